//! The project's own files that the bundle carries (what a rebuild needs): every file under the
//! source paths but those `.gitignore` names and the scratch files editors and tools leave. A
//! `.gitignore` that would leave out a file the build reads or compiles is refused.

use std::collections::BTreeMap;
use std::path::Path;

use walkdir::WalkDir;

use crate::base::error::{Error, Result};
use crate::base::layout::{is_scratch, SOURCE_PATHS};
use crate::project::{check_is_project, symlink_refused, Project};

/// Minimal matcher for the project's `.gitignore`: `*` within a name, a trailing `/` for folders
/// only, and git's anchoring (a pattern with a `/` at its start or in its middle matches from the
/// project's root only, as `/dist/` names the output folder and not `src/output/`; any other
/// matches a name at any depth).
struct GitIgnore {
    patterns: Vec<Pattern>,
}

/// One line of `.gitignore`.
struct Pattern {
    /// The line as written.
    line: String,
    glob: String,
    dir_only: bool,
    anchored: bool,
}

impl GitIgnore {
    fn read(root: &Path) -> Self {
        let text =
            crate::base::fetch::read_text_if_readable(&root.join(".gitignore"), MAX_SOURCE_FILE)
                .unwrap_or_default();
        Self::parse(&text)
    }

    fn parse(text: &str) -> Self {
        let patterns = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let dir_only = l.ends_with('/');
                let glob = l.trim_matches('/').to_string();
                Pattern {
                    line: l.to_string(),
                    anchored: l.starts_with('/') || glob.contains('/'),
                    glob,
                    dir_only,
                }
            })
            .collect();
        GitIgnore { patterns }
    }

    fn ignores(&self, rel: &str, is_dir: bool) -> bool {
        self.patterns.iter().any(|p| p.matches(rel, is_dir))
    }

    /// The pattern that leaves out the file `rel` or a folder it lies in, as written.
    fn naming(&self, rel: &str) -> Option<String> {
        let parts: Vec<&str> = rel.split('/').collect();
        (1..=parts.len()).find_map(|n| {
            let path = parts[..n].join("/");
            let is_dir = n < parts.len();
            self.patterns
                .iter()
                .find(|p| p.matches(&path, is_dir))
                .map(|p| p.line.clone())
        })
    }
}

impl Pattern {
    fn matches(&self, rel: &str, is_dir: bool) -> bool {
        (!self.dir_only || is_dir)
            && if self.anchored {
                glob(&self.glob, rel)
            } else {
                rel.split('/').any(|part| glob(&self.glob, part))
            }
    }
}

/// `*` matches any run of characters other than `/`.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => {
            text.starts_with(head)
                && (head.len()..=text.len())
                    .any(|i| !text[head.len()..i].contains('/') && glob(tail, &text[i..]))
        }
    }
}

/// The most bytes one project source file may hold, and all of them together: the bundle
/// carries them, and each is read whole.
pub const MAX_SOURCE_FILE: u64 = 4 << 20;
pub const MAX_SOURCE_TOTAL: u64 = 32 << 20;

/// The project's own files that the bundle carries, read from `root`, sorted by path: every file
/// under [`SOURCE_PATHS`] but those `.gitignore` names and scratch files (hidden
/// files, editor backups, Python caches; see [`is_scratch`]), so that opening the
/// notebook in Jupyter or saving in an editor never changes the bundle.
pub fn source_files(root: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    // The same test as the project loader's, so a wrong root never packs someone's folder.
    check_is_project(root)?;
    let ignore = GitIgnore::read(root);
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    for top in SOURCE_PATHS {
        let start = root.join(top);
        let walker = WalkDir::new(&start).sort_by_file_name().into_iter();
        for entry in walker.filter_entry(|e| {
            let rel = e.path().strip_prefix(root).unwrap_or(e.path());
            let rel = rel.to_string_lossy().replace('\\', "/");
            let scratch = e.depth() > 0 && is_scratch(&e.file_name().to_string_lossy());
            !scratch && !ignore.ignores(&rel, e.file_type().is_dir())
        }) {
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
                        message: format!("larger than {MAX_SOURCE_FILE} bytes, the most a project source file may hold (the bundle carries every file under {top}/ that .gitignore does not name)"),
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
    for rel in needed(root) {
        if !files.contains_key(&rel) {
            let pattern = ignore.naming(&rel).unwrap_or_default();
            return Err(Error::Source {
                file: rel,
                message: format!("the build reads or compiles it, but .gitignore's pattern `{pattern}` leaves it out of the bundle, whose rebuild would then fail; take the pattern out of .gitignore"),
            });
        }
    }
    Ok(files)
}

/// The project files a rebuild cannot do without, whatever `.gitignore` says: the files the
/// project loader reads, the manifests of the crate, and every file under `src/` and
/// `templates/` (the code and the templates compiled into it), scratch files aside.
fn needed(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = ["Cargo.toml", "Cargo.lock", "askama.toml"]
        .iter()
        .chain(Project::READ)
        .filter(|rel| root.join(rel).is_file())
        .map(|rel| rel.to_string())
        .collect();
    for top in ["src", "templates"] {
        let walker = WalkDir::new(root.join(top)).sort_by_file_name().into_iter();
        for entry in walker
            .filter_entry(|e| e.depth() == 0 || !is_scratch(&e.file_name().to_string_lossy()))
            .flatten()
        {
            if entry.file_type().is_file() {
                if let Ok(rel) = entry.path().strip_prefix(root) {
                    out.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
    }
    out
}

/// Reads a source file of at most `max` bytes (an error of kind `FileTooLarge` otherwise).
fn read_source(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    crate::base::fetch::read_file(path, max)?
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_gitignore_patterns() {
        let ig = GitIgnore::parse("# build output\ntarget/\ndata/cache/\ndist.tmp-*/\n*.bak\n");
        assert!(ig.ignores("target", true));
        assert!(ig.ignores("data/cache", true));
        assert!(!ig.ignores("data/inputs.json", false));
        assert!(ig.ignores("dist.tmp-123", true));
        assert!(ig.ignores("src/x.bak", false));
        assert!(!ig.ignores("src/main.rs", false));
        assert!(!ig.ignores("target", false), "dir-only pattern");
        assert!(ig.ignores("benches/target", true), "a name at any depth");
    }

    #[test]
    fn a_pattern_with_a_slash_matches_from_the_root_only() {
        let ig = GitIgnore::parse("/dist/\n/vendor/\n/.dist.lock\n/data/crates/\n");
        assert!(ig.ignores("dist", true));
        assert!(ig.ignores("vendor", true));
        assert!(ig.ignores(".dist.lock", false));
        assert!(ig.ignores("data/crates", true));
        // The source folders of the output and vendoring stages are not the output or the
        // vendored crates.
        assert!(!ig.ignores("src/dist", true));
        assert!(!ig.ignores("src/vendor", true));
        assert!(!ig.ignores("src/output/guard.rs", false));
        assert!(!ig.ignores("tests/data/crates", true));
    }
}
