//! The guard of the output folder: which folder a build may write and replace. Only a new path,
//! an empty folder, a folder this tool wrote (with nothing added since) or a complete output of
//! an earlier version is accepted; every refusal is one line naming the folder.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::layout;
use ratios_base::ownership::{added_entries, has_marker, is_ours, MARKER};
use ratios_base::sys::is_mount_point;
use ratios_base::text::{excerpt, path as shown_path};

/// An output folder that passed the guard: a folder this tool wrote, an empty folder, or a path
/// that does not exist yet, inside an existing parent folder.
#[derive(Debug, Clone)]
pub struct OutputDir {
    /// The path as the user gave it (for messages).
    pub(super) given: PathBuf,
    /// The project root the guard protects.
    pub(super) root: PathBuf,
    /// The canonical parent folder.
    pub(super) parent: PathBuf,
    pub(super) name: String,
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
            .ok_or_else(|| refuse("has no folder name".into()))?;
        // The lock file, the temporary folder and the journal are named after the folder; a name
        // that is not UTF-8 would be written as another name, so it is refused instead.
        let name = name
            .to_str()
            .ok_or_else(|| {
                refuse(
                    "its name is not valid UTF-8; the build names its lock file and temporary folder after it, so give a UTF-8 --out".into(),
                )
            })?
            .to_string();
        if name.len() > MAX_NAME_BYTES {
            return Err(refuse(format!(
                "its name is {} bytes long; at most {MAX_NAME_BYTES} are accepted, since the build keeps a lock file .<name>.lock and a folder <name>.tmp-<number> beside it, and a file system takes names of at most 255 bytes (give a shorter --out)",
                name.len()
            )));
        }
        // A parent that cannot be read (a path beyond PATH_MAX, no permission) is the I/O error
        // it is; only one that is missing or not a folder is said to be so.
        match fs::metadata(&parent) {
            Ok(m) if m.is_dir() => {}
            Err(e)
                if e.kind() != io::ErrorKind::NotFound
                    && e.kind() != io::ErrorKind::NotADirectory =>
            {
                return Err(Error::io(&parent, e))
            }
            _ => {
                return Err(Error::Output {
                    path: shown_path(&parent),
                    message: "is not an existing folder; cannot write the output inside it".into(),
                })
            }
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
                    excerpt(&names, 300)
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
}

/// True when `dir` is a complete output of an earlier version of this tool, written before the
/// marker existed: its SHA256SUMS lists every other file, each with a matching SHA-256, and the
/// results and the bundle among them.
fn is_earlier_output(dir: &Path) -> bool {
    // Each file is read through a cap: a folder that only looks like an output may hold anything.
    const MAX_FILE: u64 = 64 << 20;
    let sums = layout::OutputFile::Sums.path();
    let Some(text) = ratios_base::fetch::read_text_if_readable(&dir.join(sums), MAX_FILE) else {
        return false;
    };
    let Ok(listed) = ratios_base::sums::parse_sums(sums, &text) else {
        return false;
    };
    let required = [layout::OutputFile::Results, layout::OutputFile::Bundle];
    if !required
        .iter()
        .all(|f| listed.iter().any(|(p, _)| p == f.path()))
    {
        return false;
    }
    let Ok(files) = super::files_under(dir) else {
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
                && ratios_base::fetch::read_file(&dir.join(rel), MAX_FILE)
                    .is_ok_and(|b| b.is_some_and(|b| &HexDigest::sha256(&b) == digest))
        })
}

/// The longest output folder name accepted: with `.tmp-<pid>` or `.lock` added it still fits the
/// 255-byte names of common file systems.
const MAX_NAME_BYTES: usize = 200;

pub(super) fn is_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::tests::project;
    use crate::output::{check_written, publish, Dist};
    use ratios_base::ownership::marker_text;

    #[test]
    fn an_output_with_something_added_is_not_replaced() {
        let base = tempfile::tempdir().unwrap();
        let root = project(base.path());
        let out_path = base.path().join("dist");
        let mut d = Dist::new();
        d.add("qa/a.txt", b"a".to_vec()).unwrap();
        d.add("b.txt", b"b".to_vec()).unwrap();
        let out = OutputDir::guard(&out_path, &root).unwrap();
        publish(&d, &out, |dir| check_written(&d, dir)).unwrap();
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
        let sums = ratios_base::sums::sums([
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
