//! The output folder. Every file of a build is produced in memory first
//! ([`Dist`], which `ratios-base` holds), then written into a temporary folder beside the target, read back and checked, and
//! only then put in place in one step, so the output folder is never missing or partial, even if
//! the process is killed.
//!
//! The folder is guarded ([`guard`], [`OutputDir::guard`]): the build only ever replaces a folder
//! it wrote itself, which it marks with [`MARKER`] (listing the files it wrote), and only while
//! nothing was added to it since. It refuses files, symbolic links, `/`, the home folder, the
//! project folder and any folder containing it or the current folder, the project's source
//! folders, and any non-empty folder without the marker. Builds into one folder are serialised by
//! a lock file beside it, and each build first repairs what an interrupted build left behind
//! ([`swap`]).

pub mod guard;
pub mod swap;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use guard::OutputDir;
pub use ratios_base::dist::{Dist, DistPath};
use ratios_base::error::{Error, Result};
use ratios_base::layout::relative;
pub use ratios_base::ownership::{marker_text, MARKER};
use ratios_base::ownership::{Identity, MARKER_NEXT};
use ratios_base::sys;
pub use swap::publish;

/// Checks that `dir` holds exactly these files (and the marker) with exactly these bytes.
pub fn check_written(dist: &Dist, dir: &Path) -> Result<()> {
    let mut seen = 0;
    for (rel, path) in files_under(dir)? {
        if rel == MARKER {
            continue;
        }
        let expected = dist.get(&rel).ok_or_else(|| Error::Output {
            path: path.display().to_string(),
            message: "unexpected file in the output".into(),
        })?;
        if !same_bytes(&path, expected).map_err(|e| Error::io(&path, e))? {
            return Err(Error::Output {
                path: path.display().to_string(),
                message: "the bytes read back differ from the bytes written".into(),
            });
        }
        seen += 1;
    }
    if seen != dist.len() {
        return Err(Error::Output {
            path: dir.display().to_string(),
            message: format!("{seen} files read back, {} written", dist.len()),
        });
    }
    Ok(())
}

/// Once the new output is in place, its marker no longer needs the build's identity (which
/// told a half-written folder apart from a user's copy): it is replaced, by a rename, with
/// the listing alone, so two builds leave byte-identical folders, marker included.
pub(crate) fn settle_marker(dist: &Dist, dir: &Path) -> Result<()> {
    let next = dir.join(MARKER_NEXT);
    let text = marker_text(None, dist.files().map(|(path, _)| path));
    fs::write(&next, text).map_err(|e| Error::io(&next, e))?;
    let marker = dir.join(MARKER);
    fs::rename(&next, &marker).map_err(|e| Error::io(&marker, e))
}

/// Writes every file into `dir`, a folder this build just made with mode 0700: each file
/// and folder is made anew (never opened through a link, never an existing one), then every
/// file is made readable by all (0644) and every folder listable (0755), whatever the umask,
/// so that a web server can serve the output.
pub(crate) fn write_into(dist: &Dist, dir: &Path, identity: &Identity, shown: &Path) -> Result<()> {
    // A failure names the file as the output will hold it (`dist/reproducibility.zip`), not
    // by the temporary folder it was written in, which is removed.
    let fail = |rel: &Path, e: io::Error| Error::io(shown.join(rel), e);
    let marker = dir.join(MARKER);
    let text = marker_text(Some(identity), dist.files().map(|(path, _)| path));
    sys::write_new_file(&marker, text.as_bytes()).map_err(|e| fail(Path::new(MARKER), e))?;
    let mut folders = vec![dir.to_path_buf()];
    for (path, bytes) in dist.files() {
        let target = dir.join(path);
        let mut made = dir.to_path_buf();
        for part in Path::new(path)
            .parent()
            .into_iter()
            .flat_map(Path::components)
        {
            made.push(part);
            if !folders.contains(&made) {
                sys::create_private_dir(&made)
                    .map_err(|e| fail(made.strip_prefix(dir).unwrap_or(&made), e))?;
                folders.push(made.clone());
            }
        }
        sys::write_new_file(&target, bytes).map_err(|e| fail(Path::new(path), e))?;
    }
    for folder in folders.iter().rev() {
        sys::set_mode(folder, 0o755).map_err(|e| Error::io(folder, e))?;
    }
    Ok(())
}

/// True when the file at `path` holds exactly `expected`, read back in pieces (no second copy
/// of a large file in memory).
fn same_bytes(path: &Path, expected: &[u8]) -> io::Result<bool> {
    use std::io::Read;
    let mut file = fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut at = 0;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(at == expected.len());
        }
        if expected.get(at..at + n) != Some(&buf[..n]) {
            return Ok(false);
        }
        at += n;
    }
}

/// Every regular file under `dir` (symbolic links are not followed), sorted, as
/// (`/`-separated path relative to `dir`, full path).
pub fn files_under(dir: &Path) -> Result<Vec<(DistPath, PathBuf)>> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::Output {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
        if entry.file_type().is_file() {
            files.push((relative(dir, entry.path()), entry.into_path()));
        }
    }
    Ok(files)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A minimal project folder under `base`, for the output guard to recognise (the tests of
    /// the guard and of the swap use it).
    pub(crate) fn project(base: &Path) -> PathBuf {
        let root = base.join("project");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("Cargo.toml"), b"[package]").unwrap();
        root
    }
}
