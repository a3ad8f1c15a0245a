//! Putting a build's output in place: under a lock file beside the output folder (whose journal
//! names each folder the build makes before it makes it), the new folder is written, checked, and
//! exchanged with the previous output in one step; the next build repairs what a killed one left.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::guard::{is_empty_dir, OutputDir};
use super::{settle_marker, write_into, Dist};
use ratios_base::error::{Error, Result};
use ratios_base::ownership::{is_ours, marker_token, Identity};
use ratios_base::sys;
use ratios_base::text::path as shown_path;

/// Writes every file into a fresh temporary folder beside `out`, runs `check` on it, and only
/// then puts it in place of `out`. Holds `out`'s lock throughout.
pub fn publish(
    dist: &Dist,
    out: &OutputDir,
    check: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    let mut lock = out.lock()?;
    out.recover(&mut lock)?;
    // The folder may have changed since the first check (another build, a user): check again
    // under the lock, before anything is replaced.
    OutputDir::guard(&out.given, &out.root)?;
    let identity = Identity::this_build();
    let tmp = out.sibling(Sibling::New, std::process::id());
    let name = out.sibling_name(&tmp);
    // Journalled before it exists, and again once this build made it: only a folder the
    // journal says this build made, or that holds a journalled token, is ever taken for a
    // leftover of this build.
    let mut journal = Journal::default();
    journal.add(Sibling::New, &name, identity.token());
    let result = journal
        .write(&mut lock)
        .and_then(|()| sys::create_private_dir(&tmp).map_err(|e| Error::io(&tmp, e)))
        .and_then(|()| {
            journal.add(Sibling::Made, &name, identity.token());
            journal.write(&mut lock)
        })
        .and_then(|()| write_into(dist, &tmp, &identity, &out.given))
        .and_then(|()| check(&tmp))
        .and_then(|()| out.swap_in(&tmp, &mut lock, &mut journal))
        .and_then(|()| settle_marker(dist, &out.path()));
    if result.is_err() && journal.made(&name) && tmp.exists() {
        let _ = sys::remove_own_tree(&tmp);
    }
    // Emptied once nothing it names is left; else the next build finishes the work.
    if journal.settled(&out.parent) {
        let _ = Journal::default().write(&mut lock);
    }
    result
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
                ratios_base::note!(
                    "note: waiting for another build of {} to finish (lock {})",
                    shown_path(&self.given),
                    shown_path(&path)
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
                ratios_base::note!(
                    "note: restored the previous output {} from {} (an earlier build was interrupted)",
                    shown_path(&self.given),
                    shown_path(&previous)
                );
            }
        }
        for (_, path) in found {
            sys::remove_own_tree(&path).map_err(|e| Error::io(&path, e))?;
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
        match sys::exchange(tmp, &out) {
            Ok(()) => {}
            Err(e) if sys::exchange_unsupported(&e) => {
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
    let not_a_file = || {
        Error::Refused {
        path: path.to_path_buf(),
        message: "is where the output's lock file goes, but it is not a regular file (a named pipe, a device, a folder or a link); remove it, and the next build makes the lock file anew".into(),
    }
    };
    let file = match sys::open_lock_file(path) {
        Ok(f) => f,
        // Something is there that a regular file's open refuses (a folder, a link, a pipe with
        // no reader): name it as what it is.
        Err(_) if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) => {
            return Err(not_a_file())
        }
        Err(e) => return Err(lock_error(path, e)),
    };
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(not_a_file());
    }
    // A hard link shares its bytes with another file, which the journal would overwrite.
    let links = sys::link_count(&meta);
    if links > 1 {
        return Err(Error::Refused {
            path: path.to_path_buf(),
            message: format!("is where the output's lock file goes, but it is a hard link to another file ({links} names for one file), whose bytes the build's journal would overwrite; remove this name, and the next build makes the lock file anew"),
        });
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
    if let Err(e) = sys::remove_own_tree(dir) {
        ratios_base::note!(
            "warning: {}: could not remove the previous output ({e}); the next build will",
            shown_path(dir)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::check_written;
    use crate::output::tests::project;
    use ratios_base::ownership::{marker_text, MARKER};

    #[test]
    fn publish_replaces_only_its_own_folder_and_leaves_nothing_beside_it() {
        let base = tempfile::tempdir().unwrap();
        let root = project(base.path());
        let out_path = base.path().join("dist");
        let mut d = Dist::new();
        d.add("qa/new.txt", b"new".to_vec()).unwrap();
        let out = OutputDir::guard(&out_path, &root).unwrap();
        publish(&d, &out, |dir| check_written(&d, dir)).unwrap();
        assert_eq!(fs::read(out_path.join("qa/new.txt")).unwrap(), b"new");
        assert!(is_ours(&out_path));

        // A second build replaces the first whole.
        let mut e = Dist::new();
        e.add("other.txt", b"x".to_vec()).unwrap();
        let out = OutputDir::guard(&out_path, &root).unwrap();
        publish(&e, &out, |dir| check_written(&e, dir)).unwrap();
        assert!(!out_path.join("qa").exists());
        assert_eq!(fs::read(out_path.join("other.txt")).unwrap(), b"x");

        // A failing check leaves the previous output as it was.
        let err = publish(&d, &out, |_| {
            Err(Error::Output {
                path: "check".into(),
                message: "refused".into(),
            })
        });
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
        for (rel, path) in crate::output::files_under(from).unwrap() {
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
        publish(&d, &out, |_| Ok(())).unwrap();
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
        let id = Identity::this_build();
        fs::write(partial.join(MARKER), marker_text(Some(&id), ["a.txt"])).unwrap();
        fs::write(
            base.path().join(".dist.lock"),
            format!(
                "tmp dist.tmp-999999 {}\nold dist.old-999999 {previous}\ntmp dist.tmp-1 {}\ntmp dist.tmp-888888 {}\nmade dist.tmp-777777 {}\n",
                id.token(), id.token(), id.token(), id.token()
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
        let err = publish(&Dist::new(), &out, |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("is where the output's lock file goes, but it is not a regular file"),
            "{err}"
        );
        fs::remove_file(&lock).unwrap();
        fs::create_dir(&lock).unwrap();
        assert!(publish(&Dist::new(), &out, |_| Ok(())).is_err());
        assert!(!base.path().join("dist").exists());
    }
}
