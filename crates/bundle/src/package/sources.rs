//! The project's own files that the bundle carries (what a rebuild needs): every file under the
//! source paths of the include list ([`SOURCE_PATHS`]) but the scratch files editors and tools
//! leave. What `.gitignore` says plays no part: the list names what the rebuild needs, and
//! nothing the build writes or caches lies under it.

use std::collections::BTreeMap;
use std::path::Path;

use walkdir::WalkDir;

use ratios_base::error::{Error, Result};
use ratios_base::layout::{is_scratch, SOURCE_PATHS};
use ratios_model::project::{check_is_project, symlink_refused};

/// The most bytes one project source file may hold, and all of them together: the bundle
/// carries them, and each is read whole.
pub const MAX_SOURCE_FILE: u64 = 4 << 20;
/// The most bytes the project source files the bundle carries may hold together (32 MiB).
pub const MAX_SOURCE_TOTAL: u64 = 32 << 20;

/// The project's own files that the bundle carries, read from `root`, sorted by path: every file
/// under [`SOURCE_PATHS`] but scratch files (hidden files, editor backups, Python caches; see
/// [`is_scratch`]), so that opening the
/// notebook in Jupyter or saving in an editor never changes the bundle.
pub fn source_files(root: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    // The same test as the project loader's, so a wrong root never packs someone's folder.
    check_is_project(root)?;
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    for top in SOURCE_PATHS {
        let start = root.join(top);
        let walker = WalkDir::new(&start).sort_by_file_name().into_iter();
        for entry in
            walker.filter_entry(|e| e.depth() == 0 || !is_scratch(&e.file_name().to_string_lossy()))
        {
            let entry = entry.map_err(|e| Error::Source {
                file: start.display().to_string(),
                message: format!("cannot walk: {e}"),
            })?;
            if entry.path_is_symlink() {
                return Err(symlink_refused(root, entry.path()));
            }
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(root)
                .map_err(|_| Error::Source {
                    file: entry.path().display().to_string(),
                    message: "outside the project".into(),
                })?
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = match read_source(entry.path(), MAX_SOURCE_FILE) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
                    return Err(Error::Source {
                        file: rel,
                        message: format!("larger than {MAX_SOURCE_FILE} bytes, the most a project source file may hold (the bundle carries every file under {top}/)"),
                    })
                }
                Err(e) => return Err(Error::io(entry.path(), e)),
            };
            total += bytes.len() as u64;
            if total > MAX_SOURCE_TOTAL {
                return Err(Error::Source {
                    file: rel,
                    message: format!("the project's source files pass {MAX_SOURCE_TOTAL} bytes together, the most the bundle carries"),
                });
            }
            files.insert(rel, bytes);
        }
    }
    Ok(files)
}

/// Reads a source file of at most `max` bytes (an error of kind `FileTooLarge` otherwise).
fn read_source(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    ratios_base::fetch::read_file(path, max)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::FileTooLarge))
}

/// The text of the project's Cargo.lock among its source files.
pub fn lock_text(sources: &BTreeMap<String, Vec<u8>>) -> Result<&str> {
    sources
        .get("Cargo.lock")
        .and_then(|b| std::str::from_utf8(b).ok())
        .ok_or_else(|| Error::Source {
            file: "Cargo.lock".into(),
            message: "missing from the project or not UTF-8".into(),
        })
}
