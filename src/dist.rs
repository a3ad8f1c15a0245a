//! The output folder. Every file of a build is produced in memory first ([`Dist`]), then written
//! into a temporary folder beside the target, read back and checked, and only then put in place in
//! one step, so the output folder is never missing or partial, even if the process is killed.
//!
//! The folder is guarded ([`OutputDir::guard`]): the build only ever replaces a folder it wrote
//! itself, which it marks with [`MARKER`] (listing the files it wrote), and only while nothing was
//! added to it since. It refuses files, symbolic links, `/`, the home folder,
//! the project folder and any folder containing it or the current folder, the project's source
//! folders, and any non-empty folder without the marker. Builds into one folder are serialised by
//! a lock file beside it, and each build first repairs what an interrupted build left behind.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::inputs::HexDigest;
use crate::layout;

/// A relative, `/`-separated path inside the output folder.
pub type DistPath = String;

/// Name of the marker file a build writes first into every output folder it makes.
pub const MARKER: &str = ".scenario-ratios-output";
const MARKER_TEXT: &str =
    "This folder is written by scenario-ratios; the next build replaces it whole, unless\n\
something not listed here was added to it (then the build refuses, naming it).\n";
/// The line of the marker after which the files the build wrote are listed, one per line.
const MARKER_LISTING: &str = "Files written:";

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
            return Err(Error::invalid(
                path,
                "output path must be relative, without `..`",
            ));
        }
        if self
            .files
            .insert(path.to_string(), (bytes, digest))
            .is_some()
        {
            return Err(Error::invalid(path, "output file written twice"));
        }
        Ok(())
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

    /// Writes every file into a fresh temporary folder beside `out`, runs `check` on it, and only
    /// then puts it in place of `out`. Holds `out`'s lock throughout.
    pub fn publish(&self, out: &OutputDir, check: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
        let _lock = out.lock()?;
        out.recover()?;
        // The folder may have changed since the first check (another build, a user): check again
        // under the lock, before anything is replaced.
        OutputDir::guard(&out.given, &out.root)?;
        let tmp = out.sibling(Sibling::New, std::process::id());
        let result = self
            .write_into(&tmp)
            .and_then(|()| check(&tmp))
            .and_then(|()| out.swap_in(&tmp));
        if result.is_err() && tmp.exists() {
            let _ = fs::remove_dir_all(&tmp);
        }
        result
    }

    /// Checks that `dir` holds exactly these files (and the marker) with exactly these bytes.
    pub fn check_written(&self, dir: &Path) -> Result<()> {
        let mut seen = 0;
        for (rel, path) in files_under(dir)? {
            if rel == MARKER {
                continue;
            }
            let expected = self.get(&rel).ok_or_else(|| {
                Error::invalid(path.display().to_string(), "unexpected file in the output")
            })?;
            if !same_bytes(&path, expected).map_err(|e| Error::io(&path, e))? {
                return Err(Error::invalid(
                    path.display().to_string(),
                    "the bytes read back differ from the bytes written",
                ));
            }
            seen += 1;
        }
        if seen != self.files.len() {
            return Err(Error::invalid(
                dir.display().to_string(),
                format!("{seen} files read back, {} written", self.files.len()),
            ));
        }
        Ok(())
    }

    /// Creates `dir` (which must not exist), writes the marker first, then every file.
    fn write_into(&self, dir: &Path) -> Result<()> {
        fs::create_dir(dir).map_err(|e| Error::io(dir, e))?;
        let marker = dir.join(MARKER);
        let mut text = format!("{MARKER_TEXT}{MARKER_LISTING}\n");
        for path in self.files.keys() {
            text.push_str(path);
            text.push('\n');
        }
        fs::write(&marker, text).map_err(|e| Error::io(&marker, e))?;
        for (path, (bytes, _)) in &self.files {
            let target = dir.join(path);
            if let Some(p) = target.parent() {
                fs::create_dir_all(p).map_err(|e| Error::io(p, e))?;
            }
            fs::write(&target, bytes).map_err(|e| Error::io(&target, e))?;
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

/// `path` relative to `dir`, `/`-separated.
fn relative(dir: &Path, path: &Path) -> DistPath {
    path.strip_prefix(dir)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default()
}

/// Every regular file under `dir` (symbolic links are not followed), sorted, as
/// (`/`-separated path relative to `dir`, full path).
pub fn files_under(dir: &Path) -> Result<Vec<(DistPath, PathBuf)>> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::invalid(dir.display().to_string(), e.to_string()))?;
        if entry.file_type().is_file() {
            files.push((relative(dir, entry.path()), entry.into_path()));
        }
    }
    Ok(files)
}

/// An output folder that passed the guard: a folder this tool wrote, an empty folder, or a path
/// that does not exist yet, inside an existing parent folder.
#[derive(Debug, Clone)]
pub struct OutputDir {
    /// The path as the user gave it (for messages).
    given: PathBuf,
    /// The project root the guard protects.
    root: PathBuf,
    /// The canonical parent folder.
    parent: PathBuf,
    name: String,
}

/// A folder a build keeps beside the output folder, named `<name>.<kind>-<pid>`: the new output
/// being written, or the previous one while it is being replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sibling {
    New,
    Old,
}

impl Sibling {
    fn as_str(self) -> &'static str {
        match self {
            Sibling::New => "tmp",
            Sibling::Old => "old",
        }
    }

    fn parse(kind: &str) -> Option<Sibling> {
        [Sibling::New, Sibling::Old]
            .into_iter()
            .find(|s| s.as_str() == kind)
    }
}

impl OutputDir {
    /// Checks that `out` may be written and replaced, without touching it. `root` is the project
    /// folder. Every refusal is one line naming the folder.
    pub fn guard(out: &Path, root: &Path) -> Result<OutputDir> {
        let refuse = |message: String| Error::Refused {
            path: out.to_path_buf(),
            message,
        };
        // `.`, `..` and paths ending in them have no name: resolve them first.
        let resolved = match out.file_name() {
            Some(_) => out.to_path_buf(),
            None => fs::canonicalize(out).map_err(|e| Error::io(out, e))?,
        };
        let parent = match resolved.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            Some(_) => PathBuf::from("."),
            None => return Err(refuse("is the root folder; refusing to replace it".into())),
        };
        let name = resolved
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| refuse("has no folder name".into()))?;
        if !parent.is_dir() {
            return Err(Error::invalid(
                parent.display().to_string(),
                "is not an existing folder; cannot write the output inside it",
            ));
        }
        let parent = fs::canonicalize(&parent).map_err(|e| Error::io(&parent, e))?;
        let target = parent.join(&name);
        let root = fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
        let cwd = std::env::current_dir().and_then(fs::canonicalize).ok();
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .and_then(|h| fs::canonicalize(h).ok());

        let meta = match fs::symlink_metadata(&target) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(out, e)),
        };
        if let Some(m) = &meta {
            if m.file_type().is_symlink() {
                return Err(refuse(
                    "is a symbolic link; refusing to replace it (give the folder itself)".into(),
                ));
            }
            if !m.is_dir() {
                return Err(refuse(
                    "is a file, not a folder; refusing to replace it (it is left as it was)".into(),
                ));
            }
            if target.parent().is_none() || target == Path::new("/") {
                return Err(refuse("is the root folder; refusing to replace it".into()));
            }
            if home.as_deref() == Some(target.as_path()) {
                return Err(refuse("is your home folder; refusing to replace it".into()));
            }
            if root.starts_with(&target) {
                return Err(refuse(format!(
                    "is or contains the project folder {}; refusing to replace it",
                    root.display()
                )));
            }
            if cwd.as_deref().is_some_and(|c| c.starts_with(&target)) {
                return Err(refuse(
                    "is or contains the current folder; refusing to replace it".into(),
                ));
            }
        }
        for source in layout::SOURCE_PATHS {
            if target.starts_with(root.join(source)) {
                return Err(refuse(format!(
                    "is inside the project's source `{source}`; refusing to write the output there"
                )));
            }
        }
        let ours = meta.is_some() && is_ours(&target);
        if ours {
            // Names as typed, control characters escaped, so the refusal stays one line.
            let added: Vec<String> = added_entries(&target)
                .iter()
                .map(|n| n.escape_debug().to_string())
                .collect();
            if let Some(last) = added.last() {
                let names = match added.len() {
                    1 => last.clone(),
                    n if n <= 5 => format!("{} and {last}", added[..n - 1].join(", ")),
                    n => format!("{} and {} more", added[..4].join(", "), n - 4),
                };
                let them = if added.len() == 1 { "it" } else { "them" };
                return Err(refuse(format!(
                    "holds {}, which scenario-ratios did not write; refusing to replace it, which would delete {them} (move {them} away, or give another --out)",
                    crate::format::excerpt(&names, 300)
                )));
            }
        }
        if meta.is_some() && !ours && !is_empty_dir(&target) && !is_earlier_output(&target) {
            return Err(refuse(format!(
                "is a folder that scenario-ratios did not write (no {MARKER} inside) and is not empty; refusing to replace it (give another --out, or move the folder away yourself)"
            )));
        }
        Ok(OutputDir {
            given: out.to_path_buf(),
            root,
            parent,
            name,
        })
    }

    /// The output folder (canonical parent joined with its name).
    pub fn path(&self) -> PathBuf {
        self.parent.join(&self.name)
    }

    fn sibling(&self, kind: Sibling, pid: u32) -> PathBuf {
        self.parent
            .join(format!("{}.{}-{pid}", self.name, kind.as_str()))
    }

    /// Takes the lock of this output folder (`.<name>.lock` beside it), waiting for another build
    /// that holds it.
    fn lock(&self) -> Result<fs::File> {
        let path = self.parent.join(format!(".{}.lock", self.name));
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                eprintln!(
                    "note: waiting for another build of {} to finish (lock {})",
                    self.given.display(),
                    path.display()
                );
                file.lock().map_err(|e| Error::io(&path, e))?;
            }
            Err(fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        Ok(file)
    }

    /// Repairs what an interrupted build left beside the output folder. Runs under the lock, so
    /// every leftover belongs to a build that is gone: an `<name>.old-<pid>` folder is put back
    /// when the output folder is missing, and every other leftover this tool wrote is removed.
    fn recover(&self) -> Result<()> {
        let out = self.path();
        let entries = fs::read_dir(&self.parent).map_err(|e| Error::io(&self.parent, e))?;
        let mut old = Vec::new();
        let mut stale = Vec::new();
        for entry in entries.flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let Some(rest) = file_name.strip_prefix(&format!("{}.", self.name)) else {
                continue;
            };
            let Some(kind) = rest
                .split_once('-')
                .filter(|(_, pid)| pid.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|(k, _)| Sibling::parse(k))
            else {
                continue;
            };
            let path = entry.path();
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if kind == Sibling::Old && is_ours(&path) {
                old.push(path);
            } else {
                stale.push(path);
            }
        }
        old.sort();
        if !out.exists() {
            if let Some(previous) = old.pop() {
                fs::rename(&previous, &out).map_err(|e| Error::io(&previous, e))?;
                eprintln!(
                    "note: restored the previous output {} from {} (an earlier build was interrupted)",
                    self.given.display(),
                    previous.display()
                );
            }
        }
        for path in old.into_iter().chain(stale) {
            if is_ours(&path) {
                fs::remove_dir_all(&path).map_err(|e| Error::io(&path, e))?;
            } else if is_empty_dir(&path) {
                fs::remove_dir(&path).map_err(|e| Error::io(&path, e))?;
            } else {
                eprintln!(
                    "warning: {}: looks like a leftover output folder but has no {MARKER}; left as it is",
                    path.display()
                );
            }
        }
        Ok(())
    }

    /// Puts the complete folder `tmp` in place of the output folder. On Linux the two are
    /// exchanged in one step; elsewhere (or where the file system cannot exchange) the previous
    /// folder is first renamed aside, and [`OutputDir::recover`] puts it back if the process dies
    /// in between.
    fn swap_in(&self, tmp: &Path) -> Result<()> {
        let out = self.path();
        if !out.exists() {
            return fs::rename(tmp, &out).map_err(|e| Error::io(&out, e));
        }
        match exchange(tmp, &out) {
            Ok(()) => {}
            Err(e) if exchange_unsupported(&e) => {
                let old = self.sibling(Sibling::Old, std::process::id());
                fs::rename(&out, &old).map_err(|e| Error::io(&out, e))?;
                if let Err(e) = fs::rename(tmp, &out) {
                    let _ = fs::rename(&old, &out);
                    return Err(Error::io(&out, e));
                }
                return remove_previous(&old);
            }
            Err(e) => return Err(Error::io(&out, e)),
        }
        // `tmp` now holds the previous output.
        remove_previous(tmp)
    }
}

/// Removes the previous output after a swap; a failure only leaves a leftover that the next
/// build removes.
fn remove_previous(dir: &Path) -> Result<()> {
    if let Err(e) = fs::remove_dir_all(dir) {
        eprintln!(
            "warning: {}: could not remove the previous output ({e}); the next build will",
            dir.display()
        );
    }
    Ok(())
}

/// True when `dir` holds this tool's marker file.
fn is_ours(dir: &Path) -> bool {
    has_marker(dir, MARKER)
}

/// What someone added to an output folder `dir` after the build that wrote it: every file,
/// folder or link that its marker does not list (nor contain, for a folder), as relative paths.
/// A marker without a listing (written by an earlier version) lists nothing and finds nothing.
fn added_entries(dir: &Path) -> Vec<String> {
    const MAX_MARKER: u64 = 1 << 20;
    let Some(text) = crate::fetch::read_text_if_readable(&dir.join(MARKER), MAX_MARKER) else {
        return Vec::new();
    };
    let Some((_, listing)) = text.split_once(&format!("{MARKER_LISTING}\n")) else {
        return Vec::new();
    };
    let written: std::collections::BTreeSet<&str> = listing.lines().collect();
    let mut added = Vec::new();
    let mut walk = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter();
    while let Some(Ok(entry)) = walk.next() {
        let rel = relative(dir, entry.path());
        let ours = if entry.file_type().is_dir() {
            let prefix = format!("{rel}/");
            written.iter().any(|w| w.starts_with(&prefix))
        } else {
            entry.file_type().is_file() && (rel == MARKER || written.contains(rel.as_str()))
        };
        if !ours {
            added.push(rel);
            if entry.file_type().is_dir() {
                walk.skip_current_dir();
            }
        }
    }
    added
}

/// True when `dir` holds the file `marker` (a file, not a folder of that name).
fn has_marker(dir: &Path, marker: &str) -> bool {
    fs::symlink_metadata(dir.join(marker)).is_ok_and(|m| m.is_file())
}

/// True when `dir` is a complete output of an earlier version of this tool, written before the
/// marker existed: its SHA256SUMS lists every other file, each with a matching SHA-256, and the
/// results and the bundle among them.
fn is_earlier_output(dir: &Path) -> bool {
    // Each file is read through a cap: a folder that only looks like an output may hold anything.
    const MAX_FILE: u64 = 64 << 20;
    let sums = layout::OutputFile::Sums.path();
    let Some(text) = crate::fetch::read_text_if_readable(&dir.join(sums), MAX_FILE) else {
        return false;
    };
    let Ok(listed) = crate::package::parse_sums(sums, &text) else {
        return false;
    };
    let required = [layout::OutputFile::Results, layout::OutputFile::Bundle];
    if !required
        .iter()
        .all(|f| listed.iter().any(|(p, _)| p == f.path()))
    {
        return false;
    }
    let Ok(files) = files_under(dir) else {
        return false;
    };
    let others: Vec<&str> = files
        .iter()
        .map(|(rel, _)| rel.as_str())
        .filter(|rel| *rel != sums)
        .collect();
    others.len() == listed.len()
        && listed.iter().all(|(rel, digest)| {
            others.contains(&rel.as_str())
                && crate::fetch::read_file(&dir.join(rel), MAX_FILE).is_ok_and(|b| {
                    b.is_some_and(|b| &crate::inputs::HexDigest::sha256(&b) == digest)
                })
        })
}

fn is_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none())
}

/// How a folder stands for a part of the tool that marks the folders it makes with `marker`
/// (the input cache, `synth`): only a missing, empty or marked folder is the tool's to write in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    Missing,
    Empty,
    Marked,
    /// A non-empty folder without the marker: someone else's files.
    Foreign,
    NotAFolder,
}

/// Reads how `dir` stands (a symbolic link to a folder counts as that folder).
pub fn ownership(dir: &Path, marker: &str) -> io::Result<Ownership> {
    match fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Ownership::Missing),
        Err(e) => Err(e),
        Ok(m) if !m.is_dir() => Ok(Ownership::NotAFolder),
        Ok(_) if has_marker(dir, marker) => Ok(Ownership::Marked),
        Ok(_) if fs::read_dir(dir)?.next().is_none() => Ok(Ownership::Empty),
        Ok(_) => Ok(Ownership::Foreign),
    }
}

/// Makes `dir` the tool's to write in: `refusal` names the states it refuses, with the line to
/// show; otherwise a missing folder is made and an empty one marked with `marker` (holding
/// `text`). A marked folder is left as it is, and so is a non-empty unmarked one the caller
/// accepts: its files are someone else's, so it is not marked as the tool's. Returns the state
/// found.
pub fn claim(
    dir: &Path,
    marker: &str,
    text: &str,
    refusal: impl FnOnce(Ownership) -> Option<String>,
) -> Result<Ownership> {
    let state = ownership(dir, marker).map_err(|e| Error::io(dir, e))?;
    if let Some(message) = refusal(state) {
        return Err(Error::Refused {
            path: dir.to_path_buf(),
            message,
        });
    }
    match state {
        Ownership::Marked | Ownership::Foreign | Ownership::NotAFolder => return Ok(state),
        Ownership::Missing => fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?,
        Ownership::Empty => {}
    }
    let path = dir.join(marker);
    fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    Ok(state)
}

/// Exchanges two paths atomically (`renameat2` with `RENAME_EXCHANGE`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// True when the kernel or file system cannot exchange two paths, so two renames must do.
fn exchange_unsupported(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if matches!(
        e.raw_os_error(),
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
    ) {
        return true;
    }
    e.kind() == io::ErrorKind::Unsupported
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ownership_tells_new_empty_marked_foreign_and_files_apart() {
        let base = tempfile::tempdir().unwrap();
        let p = base.path();
        assert_eq!(ownership(&p.join("new"), "m").unwrap(), Ownership::Missing);
        fs::create_dir(p.join("empty")).unwrap();
        assert_eq!(ownership(&p.join("empty"), "m").unwrap(), Ownership::Empty);
        fs::create_dir(p.join("theirs")).unwrap();
        fs::write(p.join("theirs/photo.jpg"), b"x").unwrap();
        assert_eq!(
            ownership(&p.join("theirs"), "m").unwrap(),
            Ownership::Foreign
        );
        fs::write(p.join("theirs/m"), b"").unwrap();
        assert_eq!(
            ownership(&p.join("theirs"), "m").unwrap(),
            Ownership::Marked
        );
        // A folder named like the marker is no marker.
        fs::create_dir_all(p.join("odd/m")).unwrap();
        assert_eq!(ownership(&p.join("odd"), "m").unwrap(), Ownership::Foreign);
        fs::write(p.join("file"), b"x").unwrap();
        assert_eq!(
            ownership(&p.join("file"), "m").unwrap(),
            Ownership::NotAFolder
        );
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

    fn project(base: &Path) -> PathBuf {
        let root = base.join("project");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("Cargo.toml"), b"[package]").unwrap();
        root
    }

    #[test]
    fn an_output_with_something_added_is_not_replaced() {
        let base = tempfile::tempdir().unwrap();
        let root = project(base.path());
        let out_path = base.path().join("dist");
        let mut d = Dist::new();
        d.add("qa/a.txt", b"a".to_vec()).unwrap();
        d.add("b.txt", b"b".to_vec()).unwrap();
        let out = OutputDir::guard(&out_path, &root).unwrap();
        d.publish(&out, |dir| d.check_written(dir)).unwrap();
        assert!(OutputDir::guard(&out_path, &root).is_ok(), "as written");
        // A file, a folder and a file in a folder the build made, added by someone.
        fs::write(out_path.join("CNAME"), b"example.org").unwrap();
        fs::create_dir(out_path.join("img")).unwrap();
        fs::write(out_path.join("img/x.png"), b"x").unwrap();
        fs::write(out_path.join("qa/notes.txt"), b"n").unwrap();
        assert_eq!(added_entries(&out_path), ["CNAME", "img", "qa/notes.txt"]);
        let err = OutputDir::guard(&out_path, &root).unwrap_err().to_string();
        assert!(
            err.ends_with("holds CNAME, img and qa/notes.txt, which scenario-ratios did not write; refusing to replace it, which would delete them (move them away, or give another --out)"),
            "{err}"
        );
        assert_eq!(fs::read(out_path.join("img/x.png")).unwrap(), b"x");
        // A marker without a listing (an earlier version's) finds nothing added.
        fs::write(
            out_path.join(MARKER),
            "This folder is written by scenario-ratios.\n",
        )
        .unwrap();
        assert!(added_entries(&out_path).is_empty());
    }

    #[test]
    fn claim_marks_only_a_folder_it_makes_or_finds_empty() {
        let base = tempfile::tempdir().unwrap();
        let accept = |_: Ownership| None;
        let marked = |d: &Path| d.join("M").exists();
        let new = base.path().join("new");
        assert_eq!(claim(&new, "M", "m", accept).unwrap(), Ownership::Missing);
        assert!(marked(&new));
        assert_eq!(claim(&new, "M", "m", accept).unwrap(), Ownership::Marked);
        let empty = base.path().join("empty");
        fs::create_dir(&empty).unwrap();
        assert_eq!(claim(&empty, "M", "m", accept).unwrap(), Ownership::Empty);
        assert!(marked(&empty));
        // Someone's files, accepted by the caller: used, but not marked as the tool's.
        let theirs = base.path().join("theirs");
        fs::create_dir(&theirs).unwrap();
        fs::write(theirs.join("a.csv"), b"a").unwrap();
        assert_eq!(
            claim(&theirs, "M", "m", accept).unwrap(),
            Ownership::Foreign
        );
        assert!(!marked(&theirs));
        let refused = claim(&theirs, "M", "m", |_| Some("no".into())).unwrap_err();
        assert_eq!(refused.to_string(), format!("{}: no", theirs.display()));
    }

    #[test]
    fn publish_replaces_only_its_own_folder_and_leaves_nothing_beside_it() {
        let base = tempfile::tempdir().unwrap();
        let root = project(base.path());
        let out_path = base.path().join("dist");
        let mut d = Dist::new();
        d.add("qa/new.txt", b"new".to_vec()).unwrap();
        let out = OutputDir::guard(&out_path, &root).unwrap();
        d.publish(&out, |dir| d.check_written(dir)).unwrap();
        assert_eq!(fs::read(out_path.join("qa/new.txt")).unwrap(), b"new");
        assert!(is_ours(&out_path));

        // A second build replaces the first whole.
        let mut e = Dist::new();
        e.add("other.txt", b"x".to_vec()).unwrap();
        let out = OutputDir::guard(&out_path, &root).unwrap();
        e.publish(&out, |dir| e.check_written(dir)).unwrap();
        assert!(!out_path.join("qa").exists());
        assert_eq!(fs::read(out_path.join("other.txt")).unwrap(), b"x");

        // A failing check leaves the previous output as it was.
        let err = d.publish(&out, |_| Err(Error::invalid("check", "refused")));
        assert!(err.is_err());
        assert_eq!(fs::read(out_path.join("other.txt")).unwrap(), b"x");
        let mut names: Vec<_> = fs::read_dir(base.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".dist.lock", "dist", "project"]);
    }

    #[test]
    fn an_interrupted_swap_is_repaired_by_the_next_build() {
        let base = tempfile::tempdir().unwrap();
        let root = project(base.path());
        let out_path = base.path().join("dist");
        let mut d = Dist::new();
        d.add("a.txt", b"a".to_vec()).unwrap();
        let out = OutputDir::guard(&out_path, &root).unwrap();
        d.publish(&out, |_| Ok(())).unwrap();
        // As if a build died between its two renames: the output is aside, a partial new one too.
        fs::rename(&out_path, base.path().join("dist.old-999999")).unwrap();
        fs::create_dir(base.path().join("dist.tmp-999999")).unwrap();
        fs::write(base.path().join("dist.tmp-999999").join(MARKER), "").unwrap();
        // And a folder of someone else's that only looks like a leftover.
        fs::create_dir(base.path().join("dist.tmp-12")).unwrap();
        fs::write(base.path().join("dist.tmp-12/keep.txt"), b"k").unwrap();
        out.recover().unwrap();
        assert_eq!(fs::read(out_path.join("a.txt")).unwrap(), b"a");
        assert!(!base.path().join("dist.old-999999").exists());
        assert!(!base.path().join("dist.tmp-999999").exists());
        assert_eq!(
            fs::read(base.path().join("dist.tmp-12/keep.txt")).unwrap(),
            b"k"
        );
    }

    #[test]
    fn the_guard_refuses_what_it_did_not_write() {
        let base = tempfile::tempdir().unwrap();
        let root = project(base.path());
        let refused = |p: &Path| OutputDir::guard(p, &root).unwrap_err().to_string();
        assert!(refused(&root).contains("project folder"));
        assert!(refused(base.path()).contains("project folder"));
        assert!(refused(&root.join("src")).contains("source `src`"));
        assert!(refused(&root.join("src/new")).contains("source `src`"));
        fs::write(base.path().join("file"), b"f").unwrap();
        assert!(refused(&base.path().join("file")).contains("is a file"));
        fs::create_dir(base.path().join("theirs")).unwrap();
        fs::write(base.path().join("theirs/x"), b"x").unwrap();
        assert!(refused(&base.path().join("theirs")).contains("did not write"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.path().join("theirs"), base.path().join("link"))
                .unwrap();
            assert!(refused(&base.path().join("link")).contains("symbolic link"));
        }
        assert!(refused(Path::new("/")).contains("root folder"));
        // A new path, an empty folder and a marked folder are accepted.
        assert!(OutputDir::guard(&base.path().join("new"), &root).is_ok());
        fs::create_dir(base.path().join("empty")).unwrap();
        assert!(OutputDir::guard(&base.path().join("empty"), &root).is_ok());
        fs::write(base.path().join("theirs").join(MARKER), "").unwrap();
        assert!(OutputDir::guard(&base.path().join("theirs"), &root).is_ok());
        // An earlier version's complete output (no marker) is recognised by its own checksums;
        // one extra or changed file and it is someone else's again.
        let old = base.path().join("old-dist");
        fs::create_dir(&old).unwrap();
        fs::write(old.join("results.json"), b"{}").unwrap();
        fs::write(old.join("reproducibility.zip"), b"zip").unwrap();
        let sums = crate::package::sums([
            ("results.json", &b"{}"[..]),
            ("reproducibility.zip", &b"zip"[..]),
        ]);
        fs::write(old.join("SHA256SUMS"), sums).unwrap();
        assert!(OutputDir::guard(&old, &root).is_ok());
        fs::write(old.join("mine.txt"), b"x").unwrap();
        assert!(refused(&old).contains("did not write"));
        fs::remove_file(old.join("mine.txt")).unwrap();
        fs::write(old.join("results.json"), b"{ }").unwrap();
        assert!(refused(&old).contains("did not write"));
    }
}
