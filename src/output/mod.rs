//! The output folder. Every file of a build is produced in memory first
//! ([`Dist`]), then written into a temporary folder beside the target, read back and checked, and
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

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::base::digest::HexDigest;
use crate::base::error::{Error, Result};
use crate::base::layout::{self, relative, OutputFile};
pub use crate::base::ownership::{marker_text, MARKER};
use crate::base::ownership::{Identity, MARKER_NEXT};
use crate::base::sys;
pub use guard::OutputDir;

/// A relative, `/`-separated path inside the output folder.
pub type DistPath = String;

/// The files of one build, sorted by path, each with its SHA-256 (computed once, when added:
/// the downloads table and SHA256SUMS both use it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dist {
    files: BTreeMap<DistPath, (Vec<u8>, HexDigest)>,
}

impl Dist {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file; a path that is absolute, contains `..`, is the marker or was already added is
    /// an error.
    pub fn add(&mut self, path: &str, bytes: Vec<u8>) -> Result<()> {
        let digest = HexDigest::sha256(&bytes);
        self.add_hashed(path, bytes, digest)
    }

    /// Adds a file whose SHA-256 its maker computed as it made it (the bundle's, which continues
    /// from its vendored block's); otherwise as [`Dist::add`].
    pub fn add_hashed(&mut self, path: &str, bytes: Vec<u8>, digest: HexDigest) -> Result<()> {
        if !layout::is_safe_relative(path) || path == MARKER {
            return Err(Error::Output {
                path: path.into(),
                message: "output path must be relative, without `..`".into(),
            });
        }
        if self
            .files
            .insert(path.to_string(), (bytes, digest))
            .is_some()
        {
            return Err(Error::Output {
                path: path.into(),
                message: "output file written twice".into(),
            });
        }
        Ok(())
    }

    /// These files and those of `other`, as one set; a path in both is an error.
    pub fn merged(mut self, other: Dist) -> Result<Dist> {
        for (path, (bytes, digest)) in other.files {
            self.add_hashed(&path, bytes, digest)?;
        }
        Ok(self)
    }

    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(|(b, _)| b.as_slice())
    }

    /// The SHA-256 of a file.
    pub fn sha256(&self, path: &str) -> Option<&HexDigest> {
        self.files.get(path).map(|(_, d)| d)
    }

    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files
            .iter()
            .map(|(k, (b, _))| (k.as_str(), b.as_slice()))
    }

    /// Every file's path and SHA-256.
    pub fn digests(&self) -> impl Iterator<Item = (&str, &HexDigest)> {
        self.files.iter().map(|(k, (_, d))| (k.as_str(), d))
    }

    /// Adds `SHA256SUMS`, listing every file added so far in the format of coreutils `sha256sum`.
    pub fn add_sums(&mut self) -> Result<()> {
        let sums = crate::base::sums::sums_listing(self.digests());
        self.add(OutputFile::Sums.path(), sums.into_bytes())
    }

    /// Checks that `dir` holds exactly these files (and the marker) with exactly these bytes.
    pub fn check_written(&self, dir: &Path) -> Result<()> {
        let mut seen = 0;
        for (rel, path) in files_under(dir)? {
            if rel == MARKER {
                continue;
            }
            let expected = self.get(&rel).ok_or_else(|| Error::Output {
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
        if seen != self.files.len() {
            return Err(Error::Output {
                path: dir.display().to_string(),
                message: format!("{seen} files read back, {} written", self.files.len()),
            });
        }
        Ok(())
    }

    /// Once the new output is in place, its marker no longer needs the build's identity (which
    /// told a half-written folder apart from a user's copy): it is replaced, by a rename, with
    /// the listing alone, so two builds leave byte-identical folders, marker included.
    fn settle_marker(&self, dir: &Path) -> Result<()> {
        let next = dir.join(MARKER_NEXT);
        let text = marker_text(None, self.files.keys().map(String::as_str));
        fs::write(&next, text).map_err(|e| Error::io(&next, e))?;
        let marker = dir.join(MARKER);
        fs::rename(&next, &marker).map_err(|e| Error::io(&marker, e))
    }

    /// Writes into the new, empty folder `dir` the marker first, then every file.
    /// Writes every file into `dir`, a folder this build just made with mode 0700: each file
    /// and folder is made anew (never opened through a link, never an existing one), then every
    /// file is made readable by all (0644) and every folder listable (0755), whatever the umask,
    /// so that a web server can serve the output.
    fn write_into(&self, dir: &Path, identity: &Identity, shown: &Path) -> Result<()> {
        // A failure names the file as the output will hold it (`dist/reproducibility.zip`), not
        // by the temporary folder it was written in, which is removed.
        let fail = |rel: &Path, e: io::Error| Error::io(shown.join(rel), e);
        let marker = dir.join(MARKER);
        let text = marker_text(Some(identity), self.files.keys().map(String::as_str));
        sys::write_new_file(&marker, text.as_bytes()).map_err(|e| fail(Path::new(MARKER), e))?;
        let mut folders = vec![dir.to_path_buf()];
        for (path, (bytes, _)) in &self.files {
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
    pub fn project(base: &Path) -> PathBuf {
        let root = base.join("project");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("Cargo.toml"), b"[package]").unwrap();
        root
    }

    #[test]
    fn unsafe_or_repeated_paths_are_refused() {
        let mut d = Dist::new();
        assert!(d.add("../x", vec![]).is_err());
        assert!(d.add("/x", vec![]).is_err());
        assert!(d.add(MARKER, vec![]).is_err());
        d.add("a/b.txt", vec![1]).unwrap();
        assert!(d.add("a/b.txt", vec![2]).is_err());
    }
}
