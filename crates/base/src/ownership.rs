//! Which folders are the tool's to write in and remove. A folder this tool made carries a marker
//! file: the output folder's ([`MARKER`]) lists the files the build wrote and, while a build
//! writes it, that build's [`Identity`]; the input cache and `synth` mark theirs with a marker of
//! their own ([`claim`]). Anything not listed, or a folder without a marker, is someone else's,
//! and is never replaced or removed.

use std::fs;
use std::io;
use std::path::Path;

use crate::error::{Error, Result};
use crate::layout::relative;

/// Name of the marker file a build writes first into every output folder it makes.
pub const MARKER: &str = ".scenario-ratios-output";

/// The marker's next text while it is put in place (written, then renamed over the marker).
pub const MARKER_NEXT: &str = ".scenario-ratios-output.next";
const MARKER_TEXT: &str =
    "This folder is written by scenario-ratios; the next build replaces it whole, unless\n\
something not listed here was added to it (then the build refuses, naming it).\n";
/// The line of the marker after which the files the build wrote are listed, one per line. A
/// marker without it (an empty file, say) is not this tool's: the folder is someone else's.
const MARKER_LISTING: &str = "Files written:";
/// The start of the marker's line naming the build that wrote the folder ([`Identity`]).
const MARKER_BUILD: &str = "Written by:";

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
    /// This build: this process, now, with a fresh random token.
    pub fn this_build() -> Identity {
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

    /// The token that tells this build's folders from copies of them.
    pub fn token(&self) -> &str {
        &self.token
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
pub fn marker_token(dir: &Path) -> Option<String> {
    const MAX_MARKER: u64 = 1 << 20;
    let text = crate::fetch::read_text_if_readable(&dir.join(MARKER), MAX_MARKER)?;
    let (head, _) = text.split_once(&format!("\n{MARKER_LISTING}\n"))?;
    let line = head.lines().find_map(|l| l.strip_prefix(MARKER_BUILD))?;
    let token = line.rsplit_once(", token ")?.1.trim();
    (token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit())).then(|| token.to_string())
}

/// True when `dir` holds this tool's marker file, with its listing of the files written: a
/// marker without it (an empty file, say) proves nothing, and the folder is someone else's.
pub fn is_ours(dir: &Path) -> bool {
    has_marker(dir, MARKER) && marker_listing(dir).is_some()
}

/// The files the marker of `dir` lists as written, when it has a listing.
pub(crate) fn marker_listing(dir: &Path) -> Option<String> {
    const MAX_MARKER: u64 = 1 << 20;
    let text = crate::fetch::read_text_if_readable(&dir.join(MARKER), MAX_MARKER)?;
    let (_, listing) = text.split_once(&format!("\n{MARKER_LISTING}\n"))?;
    Some(listing.to_string())
}

/// What someone added to an output folder `dir` after the build that wrote it: every file,
/// folder or link that its marker does not list (nor contain, for a folder), as relative paths.
/// A marker without a listing (written by an earlier version) lists nothing and finds nothing.
pub fn added_entries(dir: &Path) -> Vec<String> {
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
pub fn has_marker(dir: &Path, marker: &str) -> bool {
    fs::symlink_metadata(dir.join(marker)).is_ok_and(|m| m.is_file())
}

/// How a folder stands for a part of the tool that marks the folders it makes with `marker`
/// (the input cache, `synth`): only a missing, empty or marked folder is the tool's to write in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// Nothing at that path: the tool may make the folder.
    Missing,
    /// A folder with nothing in it: the tool may mark it and write in it.
    Empty,
    /// A folder holding the marker file: the tool made it, and writes in it again.
    Marked,
    /// A non-empty folder without the marker: someone else's files.
    Foreign,
    /// Something at that path that is not a folder (a file, or a link to one).
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
}
