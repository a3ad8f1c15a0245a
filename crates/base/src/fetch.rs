//! Getting bytes from disk and from the web without trusting their size: a file is read only
//! after its length matched the expected size, and through a cap; a download runs the system
//! `curl` (so no TLS stack is compiled into the program) and is read through a cap too; a file is
//! stored through a temporary sibling that is removed on failure, and leftovers of a killed
//! process are cleaned up. The callers check every byte against its pinned hash.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};
use crate::text::excerpt;

/// What `read_expected` found.
pub enum Found {
    /// Nothing at the path.
    Missing,
    /// Something that is not a regular file (a folder, a FIFO, a device), after following links.
    NotAFile,
    /// A regular file whose length is not the expected one; it was not read.
    WrongSize(u64),
    /// The file's bytes (exactly the expected size).
    Bytes(Vec<u8>),
}

/// Reads `path` when it is a regular file of exactly `size` bytes.
pub fn read_expected(path: &Path, size: u64) -> std::io::Result<Found> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(e) => return Err(e),
    };
    if !meta.is_file() {
        return Ok(Found::NotAFile);
    }
    if meta.len() != size {
        return Ok(Found::WrongSize(meta.len()));
    }
    let file = fs::File::open(path)?;
    let mut bytes = Vec::with_capacity(size.min(64 << 20) as usize);
    file.take(size + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != size {
        // The file changed while it was read.
        return Ok(Found::WrongSize(bytes.len() as u64));
    }
    Ok(Found::Bytes(bytes))
}

/// Reads the regular file at `path` when it holds at most `max` bytes; `None` when it holds more.
/// Anything else at the path (a folder, a FIFO, a device such as `/dev/zero`) is an error of kind
/// `InvalidInput`, found before it is opened, so nothing blocks or reads without end.
pub fn read_file(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    read_file_with_room(path, max, 0)
}

/// As [`read_file`], into a buffer that keeps `room` bytes to spare after the file's (for a
/// caller that goes on writing into it).
pub fn read_file_with_room(path: &Path, max: u64, room: usize) -> std::io::Result<Option<Vec<u8>>> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    // Sized by the file, never beyond the cap.
    let size = usize::try_from(meta.len().min(max)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(size.saturating_add(room));
    fs::File::open(path)?
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// The text of the regular file at `path` when it is UTF-8 of at most `max` bytes; `None` when it
/// is missing, larger, not a regular file or not UTF-8 (for files that are optional).
pub fn read_text_if_readable(path: &Path, max: u64) -> Option<String> {
    String::from_utf8(read_file(path, max).ok()??).ok()
}

/// Downloads `url` with the system `curl`, reading at most `max` bytes. `allow_http` admits
/// plain http (a local test server); otherwise only https is followed.
pub fn download(url: &str, max: u64, allow_http: bool) -> Result<Vec<u8>> {
    let fail = |message: String| Error::Download {
        url: excerpt(url, 200),
        message,
    };
    let mut child = Command::new("curl")
        .args(["--fail", "--silent", "--show-error", "--location"])
        .args(["--proto", if allow_http { "=http,https" } else { "=https" }])
        .args([
            "--proto-redir",
            if allow_http { "=http,https" } else { "=https" },
        ])
        .args(["--max-time", "300", "--max-filesize"])
        .arg(max.to_string())
        .arg("--")
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| {
            fail(format!(
                "cannot run curl ({e}); install curl, or use --mirror or the cache (and --offline)"
            ))
        })?;
    let mut bytes = Vec::with_capacity(max.min(64 << 20) as usize);
    let read = child
        .stdout
        .take()
        .map(|out| out.take(max + 1).read_to_end(&mut bytes));
    if bytes.len() as u64 > max {
        let _ = child.kill();
    }
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = (&mut e).take(4096).read_to_string(&mut stderr);
    }
    let status = child.wait().map_err(|e| fail(e.to_string()))?;
    if let Some(Err(e)) = read {
        return Err(fail(e.to_string()));
    }
    if bytes.len() as u64 > max {
        return Err(fail(format!("more than the expected {max} bytes")));
    }
    if !status.success() {
        let why = stderr.lines().next().unwrap_or("curl failed").trim();
        return Err(fail(excerpt(why, 200)));
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary sibling, so the file is never half-written; the
/// temporary file is removed when writing fails.
pub fn store(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let tmp = partial_path(path, std::process::id());
    // A failure names the file being stored, not its temporary sibling, which is removed.
    let written = fs::write(&tmp, bytes)
        .map_err(|e| Error::io(path, e))
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| Error::io(path, e)));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

fn partial_path(path: &Path, pid: u32) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".partial-{pid}"));
    path.with_file_name(name)
}

/// Removes `<file>.partial-<pid>` files left beside `path` by a process that is gone.
pub fn remove_stale_partials(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let prefix = format!("{}.partial-", name.to_string_lossy());
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file_name
            .strip_prefix(&prefix)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !crate::sys::process_alive(pid) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_file_takes_only_a_regular_file_and_only_up_to_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        fs::write(&f, b"abc").unwrap();
        assert_eq!(read_file(&f, 3).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(read_file(&f, 2).unwrap(), None);
        let roomy = read_file_with_room(&f, 3, 100).unwrap().unwrap();
        assert_eq!(roomy, b"abc");
        assert!(roomy.capacity() >= 103, "room kept after the bytes");
        assert_eq!(read_file_with_room(&f, 2, 100).unwrap(), None);
        for not_a_file in [dir.path(), Path::new("/dev/zero")] {
            let e = read_file(not_a_file, 3).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{not_a_file:?}");
        }
        assert_eq!(
            read_file(&dir.path().join("missing"), 3)
                .unwrap_err()
                .kind(),
            std::io::ErrorKind::NotFound
        );
    }

    #[test]
    fn only_a_regular_file_of_the_expected_size_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        fs::write(&f, b"abc").unwrap();
        assert!(matches!(read_expected(&f, 3).unwrap(), Found::Bytes(b) if b == b"abc"));
        assert!(matches!(read_expected(&f, 2).unwrap(), Found::WrongSize(3)));
        assert!(matches!(
            read_expected(dir.path(), 3).unwrap(),
            Found::NotAFile
        ));
        assert!(matches!(
            read_expected(&dir.path().join("none"), 3).unwrap(),
            Found::Missing
        ));
    }

    #[test]
    fn a_stale_partial_file_is_removed_and_a_live_one_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("x.csv");
        // pid 4194305 is above Linux's pid_max: no such process.
        let stale = partial_path(&target, 4_194_305);
        let live = partial_path(&target, 1);
        fs::write(&stale, b"s").unwrap();
        fs::write(&live, b"l").unwrap();
        remove_stale_partials(&target);
        assert!(!stale.exists());
        assert!(live.exists(), "pid 1 is alive");
        store(&target, b"ok").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"ok");
    }
}
