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

/// The marker's next text while it is put in place (written, then renamed over the marker).
const MARKER_NEXT: &str = ".scenario-ratios-output.next";
const MARKER_TEXT: &str =
    "This folder is written by scenario-ratios; the next build replaces it whole, unless\n\
something not listed here was added to it (then the build refuses, naming it).\n";
/// The line of the marker after which the files the build wrote are listed, one per line. A
/// marker without it (an empty file, say) is not this tool's: the folder is someone else's.
const MARKER_LISTING: &str = "Files written:";
/// The start of the marker's line naming the build that wrote the folder ([`Identity`]).
const MARKER_BUILD: &str = "Written by:";

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
        let mut lock = out.lock()?;
        out.recover(&mut lock)?;
        // The folder may have changed since the first check (another build, a user): check again
        // under the lock, before anything is replaced.
        OutputDir::guard(&out.given, &out.root)?;
        let identity = Identity::new();
        let tmp = out.sibling(Sibling::New, std::process::id());
        let name = out.sibling_name(&tmp);
        // Journalled before it exists, and again once this build made it: only a folder the
        // journal says this build made, or that holds a journalled token, is ever taken for a
        // leftover of this build.
        let mut journal = Journal::default();
        journal.add(Sibling::New, &name, &identity.token);
        let result = journal
            .write(&mut lock)
            .and_then(|()| fs::create_dir(&tmp).map_err(|e| Error::io(&tmp, e)))
            .and_then(|()| {
                journal.add(Sibling::Made, &name, &identity.token);
                journal.write(&mut lock)
            })
            .and_then(|()| self.write_into(&tmp, &identity))
            .and_then(|()| check(&tmp))
            .and_then(|()| out.swap_in(&tmp, &mut lock, &mut journal))
            .and_then(|()| self.settle_marker(&out.path()));
        if result.is_err() && journal.made(&name) && tmp.exists() {
            let _ = fs::remove_dir_all(&tmp);
        }
        // Emptied once nothing it names is left; else the next build finishes the work.
        if journal.settled(&out.parent) {
            let _ = Journal::default().write(&mut lock);
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
    fn write_into(&self, dir: &Path, identity: &Identity) -> Result<()> {
        let marker = dir.join(MARKER);
        let text = marker_text(Some(identity), self.files.keys().map(String::as_str));
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

/// The text of the marker of a folder holding `files`, written by the build `identity`.
pub fn marker_text<'a>(
    identity: Option<&Identity>,
    files: impl IntoIterator<Item = &'a str>,
) -> String {
    let mut text = MARKER_TEXT.to_string();
    if let Some(id) = identity {
        text.push_str(&format!("{MARKER_BUILD} {}\n", id.line()));
    }
    text.push_str(MARKER_LISTING);
    text.push('\n');
    for path in files {
        text.push_str(path);
        text.push('\n');
    }
    text
}

/// Who wrote an output folder: the process, when it started, and a random token. A copy a user
/// makes of the folder carries the same marker, so the identity alone proves nothing; a leftover
/// is this tool's only when the lock file's journal names its folder with its token, which
/// the build writes before it makes the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pid: u32,
    started: std::time::Duration,
    token: String,
}

impl Identity {
    fn new() -> Identity {
        use std::hash::{BuildHasher, Hasher};
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let pid = std::process::id();
        // Two 64-bit words from hashers keyed by the operating system's randomness.
        let token: String = (0..2u8)
            .map(|i| {
                let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                h.write_u8(i);
                h.write_u32(pid);
                h.write_u128(started.as_nanos());
                format!("{:016x}", h.finish())
            })
            .collect();
        Identity {
            pid,
            started,
            token,
        }
    }

    fn line(&self) -> String {
        format!(
            "process {}, started {}.{:09}, token {}",
            self.pid,
            self.started.as_secs(),
            self.started.subsec_nanos(),
            self.token
        )
    }
}

/// The token of the build that wrote `dir`, read from its marker.
fn marker_token(dir: &Path) -> Option<String> {
    const MAX_MARKER: u64 = 1 << 20;
    let text = crate::fetch::read_text_if_readable(&dir.join(MARKER), MAX_MARKER)?;
    let (head, _) = text.split_once(&format!("\n{MARKER_LISTING}\n"))?;
    let line = head.lines().find_map(|l| l.strip_prefix(MARKER_BUILD))?;
    let token = line.rsplit_once(", token ")?.1.trim();
    (token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit())).then(|| token.to_string())
}

/// The folders a build is about to make beside the output folder, written into its lock file
/// before each is made: `<kind> <name> <token>` a line, the token being that of the marker the
/// folder holds. The next build (under the same lock, so the writer is gone) removes or puts
/// back only the folders its journal names and that hold the token named; every other folder,
/// however it is named, is left alone. A finished build empties the journal.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Journal(Vec<(Sibling, String, String)>);

impl Journal {
    fn add(&mut self, kind: Sibling, name: &str, token: &str) {
        self.0.push((kind, name.to_string(), token.to_string()));
    }

    /// True when the journal says this build made the folder `name` itself.
    fn made(&self, name: &str) -> bool {
        self.0
            .iter()
            .any(|(k, n, _)| *k == Sibling::Made && n == name)
    }

    /// True when no folder the journal names is left beside the output (in `parent`).
    fn settled(&self, parent: &Path) -> bool {
        self.0
            .iter()
            .all(|(_, n, _)| fs::symlink_metadata(parent.join(n)).is_err())
    }

    /// Writes the journal into the lock file. A journal only grows during a build, so the new
    /// text is written over the old from the start and the file then cut to it: a build killed
    /// in between leaves the new text whole (emptying it is one cut).
    fn write(&self, lock: &mut fs::File) -> Result<()> {
        use std::io::{Seek, Write};
        let text: String = self
            .0
            .iter()
            .map(|(k, n, t)| format!("{} {n} {t}\n", k.as_str()))
            .collect();
        let io = |e| Error::io(LOCK_NAME_HINT, e);
        lock.rewind().map_err(io)?;
        lock.write_all(text.as_bytes()).map_err(io)?;
        lock.set_len(text.len() as u64).map_err(io)?;
        lock.sync_data().map_err(io)
    }

    fn read(lock: &mut fs::File) -> Journal {
        use std::io::{Read, Seek};
        let mut text = String::new();
        if lock.rewind().is_err() || (&*lock).take(1 << 16).read_to_string(&mut text).is_err() {
            return Journal::default();
        }
        Journal(
            text.lines()
                .filter_map(|l| {
                    let mut parts = l.splitn(3, ' ');
                    let kind = Sibling::parse(parts.next()?)?;
                    let name = parts.next()?;
                    let token = parts.next()?;
                    // A name is one plain path component: never a path leading elsewhere.
                    (!name.is_empty() && !name.contains('/') && name != "." && name != "..")
                        .then(|| (kind, name.to_string(), token.to_string()))
                })
                .collect(),
        )
    }
}

/// How a journal error names the lock file (its full path is in the lock's own errors).
const LOCK_NAME_HINT: &str = "the output's lock file";

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
    /// In the journal only: the new folder, once this build made it (so it is this build's,
    /// whatever it holds by the time the build dies).
    Made,
}

impl Sibling {
    fn as_str(self) -> &'static str {
        match self {
            Sibling::New => "tmp",
            Sibling::Old => "old",
            Sibling::Made => "made",
        }
    }

    fn parse(kind: &str) -> Option<Sibling> {
        [Sibling::New, Sibling::Old, Sibling::Made]
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
        if name.len() > MAX_NAME_BYTES {
            return Err(refuse(format!(
                "its name is {} bytes long; at most {MAX_NAME_BYTES} are accepted, since the build keeps a lock file .<name>.lock and a folder <name>.tmp-<number> beside it, and a file system takes names of at most 255 bytes (give a shorter --out)",
                name.len()
            )));
        }
        if !parent.is_dir() {
            return Err(Error::invalid(
                crate::format::path(&parent),
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
            if is_mount_point(&target, &parent) {
                return Err(refuse(
                    "is a mount point; the build replaces its output folder whole, by renaming, which a mount point does not allow (give a folder inside it, such as its subfolder dist, as --out)".into(),
                ));
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
            if has_marker(&target, MARKER) {
                return Err(refuse(format!(
                    "holds a {MARKER} that does not list the files written, as every build's does, so scenario-ratios did not write this folder; refusing to replace it (give another --out, or move the folder away yourself)"
                )));
            }
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

    /// The name of a sibling folder `path` (beside the output folder), for the journal.
    fn sibling_name(&self, path: &Path) -> String {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Takes the lock of this output folder (`.<name>.lock` beside it), waiting for another build
    /// that holds it.
    fn lock(&self) -> Result<fs::File> {
        let path = self.parent.join(format!(".{}.lock", self.name));
        let file = open_lock(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                eprintln!(
                    "note: waiting for another build of {} to finish (lock {})",
                    crate::format::path(&self.given),
                    crate::format::path(&path)
                );
                file.lock().map_err(|e| Error::io(&path, e))?;
            }
            Err(fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        Ok(file)
    }

    /// Repairs what an interrupted build left beside the output folder. Runs under the lock, so
    /// the build that wrote the lock file's journal is gone: each folder the journal names and
    /// that holds the journalled token is that build's. The previous output it had put aside
    /// (`<name>.old-<pid>`) is put back when the output folder is missing; every other such
    /// folder is removed. Nothing else is touched, whatever its name: a user's `dist.old-1`
    /// or a copy holding a marker is theirs.
    fn recover(&self, lock: &mut fs::File) -> Result<()> {
        let journal = Journal::read(lock);
        if journal.0.is_empty() {
            return Ok(());
        }
        let out = self.path();
        let ours = |name: &str, token: &str| {
            let path = self.parent.join(name);
            let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            let held = marker_token(&path);
            // `-` stands for a previous output whose marker names no build (an earlier version's).
            let matches = match token {
                "-" => held.is_none() && is_ours(&path),
                t => held.as_deref() == Some(t),
            };
            (is_dir && matches).then_some(path)
        };
        let mut found: Vec<(Sibling, PathBuf)> = Vec::new();
        for (kind, name, token) in &journal.0 {
            let made = *kind == Sibling::Made && {
                let path = self.parent.join(name);
                fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
            };
            if made {
                let path = self.parent.join(name);
                if !found.iter().any(|(_, p)| p == &path) {
                    found.push((Sibling::New, path));
                }
            } else if let Some(path) = ours(name, token) {
                if !found.iter().any(|(_, p)| p == &path) {
                    found.push((*kind, path));
                }
            } else {
                // A journalled folder the build made but had not yet marked holds nothing:
                // removing an empty folder loses nothing, whoever made it.
                let path = self.parent.join(name);
                if fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) && is_empty_dir(&path) {
                    let _ = fs::remove_dir(&path);
                }
            }
        }
        if !out.exists() {
            if let Some(i) = found.iter().position(|(k, _)| *k == Sibling::Old) {
                let (_, previous) = found.remove(i);
                fs::rename(&previous, &out).map_err(|e| Error::io(&previous, e))?;
                eprintln!(
                    "note: restored the previous output {} from {} (an earlier build was interrupted)",
                    crate::format::path(&self.given),
                    crate::format::path(&previous)
                );
            }
        }
        for (_, path) in found {
            fs::remove_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        }
        Journal::default().write(lock)
    }

    /// Puts the complete folder `tmp` in place of the output folder. On Linux the two are
    /// exchanged in one step; elsewhere (or where the file system cannot exchange) the previous
    /// folder is first renamed aside, and [`OutputDir::recover`] puts it back if the process dies
    /// in between. Each folder that will hold the previous output is journalled first, with the
    /// previous output's token.
    fn swap_in(&self, tmp: &Path, lock: &mut fs::File, journal: &mut Journal) -> Result<()> {
        let out = self.path();
        if !out.exists() {
            return fs::rename(tmp, &out).map_err(|e| Error::io(&out, e));
        }
        let previous = marker_token(&out).unwrap_or_else(|| "-".into());
        journal.add(Sibling::New, &self.sibling_name(tmp), &previous);
        journal.write(lock)?;
        match exchange(tmp, &out) {
            Ok(()) => {}
            Err(e) if exchange_unsupported(&e) => {
                let old = self.sibling(Sibling::Old, std::process::id());
                journal.add(Sibling::Old, &self.sibling_name(&old), &previous);
                journal.write(lock)?;
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

/// Opens (or makes) the lock file at `path` without ever blocking: a FIFO or a device put there
/// would make a plain open wait forever, so it is opened non-blocking and without following a
/// link, and anything but a regular file is refused in one line.
fn open_lock(path: &Path) -> Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.create(true).truncate(false).read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    let not_a_file = || {
        Error::Refused {
        path: path.to_path_buf(),
        message: "is where the output's lock file goes, but it is not a regular file (a named pipe, a device, a folder or a link); remove it, and the next build makes the lock file anew".into(),
    }
    };
    let file = match options.open(path) {
        Ok(f) => f,
        // Something is there that a regular file's open refuses (a folder, a link, a pipe with
        // no reader): name it as what it is.
        Err(_) if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) => {
            return Err(not_a_file())
        }
        Err(e) => return Err(lock_error(path, e)),
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(not_a_file());
    }
    Ok(file)
}

/// The line for a lock file that cannot be made: it names the folder the output goes in and
/// the real cause, not only the lock file.
fn lock_error(path: &Path, e: io::Error) -> Error {
    let folder = path.parent().unwrap_or(Path::new("."));
    let cause = match e.kind() {
        io::ErrorKind::PermissionDenied => "you may not write in it",
        io::ErrorKind::ReadOnlyFilesystem => "it is on a read-only file system",
        _ => return Error::io(path, e),
    };
    Error::Refused {
        path: folder.to_path_buf(),
        message: format!(
            "the output cannot be written in this folder: {cause} (give an --out in a folder you can write)"
        ),
    }
}

/// Removes the previous output after a swap; a failure only leaves a leftover that the next
/// build removes.
fn remove_previous(dir: &Path) -> Result<()> {
    if let Err(e) = fs::remove_dir_all(dir) {
        eprintln!(
            "warning: {}: could not remove the previous output ({e}); the next build will",
            crate::format::path(dir)
        );
    }
    Ok(())
}

/// True when `dir` holds this tool's marker file, with its listing of the files written: a
/// marker without it (an empty file, say) proves nothing, and the folder is someone else's.
fn is_ours(dir: &Path) -> bool {
    has_marker(dir, MARKER) && marker_listing(dir).is_some()
}

/// The files the marker of `dir` lists as written, when it has a listing.
fn marker_listing(dir: &Path) -> Option<String> {
    const MAX_MARKER: u64 = 1 << 20;
    let text = crate::fetch::read_text_if_readable(&dir.join(MARKER), MAX_MARKER)?;
    let (_, listing) = text.split_once(&format!("\n{MARKER_LISTING}\n"))?;
    Some(listing.to_string())
}

/// What someone added to an output folder `dir` after the build that wrote it: every file,
/// folder or link that its marker does not list (nor contain, for a folder), as relative paths.
/// A marker without a listing (written by an earlier version) lists nothing and finds nothing.
fn added_entries(dir: &Path) -> Vec<String> {
    let Some(listing) = marker_listing(dir) else {
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
            // The marker's next text, left by a build stopped while settling it, is the tool's.
            entry.file_type().is_file()
                && (rel == MARKER || rel == MARKER_NEXT || written.contains(rel.as_str()))
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

/// The longest output folder name accepted: with `.tmp-<pid>` or `.lock` added it still fits the
/// 255-byte names of common file systems.
const MAX_NAME_BYTES: usize = 200;

/// True when the folder `dir` is a mount point: its device differs from its parent's.
fn is_mount_point(dir: &Path, parent: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::symlink_metadata(dir), fs::metadata(parent)) {
            (Ok(d), Ok(p)) => d.dev() != p.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, parent);
        false
    }
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
        // A marker without a listing (an earlier version's, or a bare one) is not the tool's.
        fs::write(
            out_path.join(MARKER),
            "This folder is written by scenario-ratios.\n",
        )
        .unwrap();
        assert!(!is_ours(&out_path));
        assert!(OutputDir::guard(&out_path, &root)
            .unwrap_err()
            .to_string()
            .contains("did not write"));
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

    /// Copies the folder `from` to `to` (files only), as `cp -a` would.
    fn copy_dir(from: &Path, to: &Path) {
        for (rel, path) in files_under(from).unwrap() {
            let target = to.join(rel);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::copy(path, target).unwrap();
        }
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
        // A finished output's marker names no build: the journal writes its token as `-`.
        assert_eq!(marker_token(&out_path), None);
        let previous = "-";
        // A user's backups beside it, named as leftovers are, holding the output's own marker.
        copy_dir(&out_path, &base.path().join("dist.old-20261130"));
        copy_dir(&out_path, &base.path().join("dist.tmp-1"));
        // As if a build died between its two renames: the output is aside, a partial new one too,
        // both named in the lock file's journal with their tokens.
        fs::rename(&out_path, base.path().join("dist.old-999999")).unwrap();
        let partial = base.path().join("dist.tmp-999999");
        fs::create_dir(&partial).unwrap();
        let id = Identity::new();
        fs::write(partial.join(MARKER), marker_text(Some(&id), ["a.txt"])).unwrap();
        fs::write(
            base.path().join(".dist.lock"),
            format!(
                "tmp dist.tmp-999999 {}\nold dist.old-999999 {previous}\ntmp dist.tmp-1 {}\ntmp dist.tmp-888888 {}\nmade dist.tmp-777777 {}\n",
                id.token, id.token, id.token, id.token
            ),
        )
        .unwrap();
        // A build that died between making its folder and writing the marker left it empty.
        fs::create_dir(base.path().join("dist.tmp-888888")).unwrap();
        // One that died while writing its marker: the journal says it made the folder.
        let half = base.path().join("dist.tmp-777777");
        fs::create_dir(&half).unwrap();
        fs::write(half.join(MARKER), b"").unwrap();
        fs::write(half.join("a.txt"), b"a").unwrap();
        // And a folder of someone else's that only looks like a leftover.
        fs::create_dir(base.path().join("dist.tmp-12")).unwrap();
        fs::write(base.path().join("dist.tmp-12/keep.txt"), b"k").unwrap();
        let mut lock = out.lock().unwrap();
        out.recover(&mut lock).unwrap();
        drop(lock);
        assert_eq!(fs::read(out_path.join("a.txt")).unwrap(), b"a");
        assert!(!base.path().join("dist.old-999999").exists());
        assert!(!partial.exists());
        assert!(!base.path().join("dist.tmp-888888").exists());
        assert!(!half.exists());
        assert_eq!(fs::read(base.path().join(".dist.lock")).unwrap(), b"");
        // The journal named dist.tmp-1, but with another token: the user's copy stays.
        for kept in ["dist.old-20261130", "dist.tmp-1"] {
            assert_eq!(
                fs::read(base.path().join(kept).join("a.txt")).unwrap(),
                b"a"
            );
        }
        assert_eq!(
            fs::read(base.path().join("dist.tmp-12/keep.txt")).unwrap(),
            b"k"
        );
        // Without a journal (a finished build's), a moved-away output is not "restored".
        fs::rename(&out_path, base.path().join("dist.old-1")).unwrap();
        let mut lock = out.lock().unwrap();
        out.recover(&mut lock).unwrap();
        assert!(!out_path.exists() && base.path().join("dist.old-1/a.txt").exists());
    }

    #[test]
    fn a_lock_path_that_is_not_a_file_is_refused_without_waiting() {
        let base = tempfile::tempdir().unwrap();
        let root = project(base.path());
        let lock = base.path().join(".dist.lock");
        let made = std::process::Command::new("mkfifo")
            .arg(&lock)
            .status()
            .unwrap();
        assert!(made.success());
        let out = OutputDir::guard(&base.path().join("dist"), &root).unwrap();
        let err = Dist::new()
            .publish(&out, |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("is where the output's lock file goes, but it is not a regular file"),
            "{err}"
        );
        fs::remove_file(&lock).unwrap();
        fs::create_dir(&lock).unwrap();
        assert!(Dist::new().publish(&out, |_| Ok(())).is_err());
        assert!(!base.path().join("dist").exists());
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
        // A bare marker is no proof: without its listing the folder is someone else's.
        fs::write(base.path().join("theirs").join(MARKER), "").unwrap();
        assert!(refused(&base.path().join("theirs")).contains("did not write"));
        fs::write(
            base.path().join("theirs").join(MARKER),
            marker_text(None, ["x"]),
        )
        .unwrap();
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
