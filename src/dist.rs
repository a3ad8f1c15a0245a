//! The build output: every file of `dist/` is produced in memory first, then written into a
//! temporary folder beside the target and renamed into place only when every stage succeeded, so a
//! failed build leaves the previous `dist/` exactly as it was.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::inputs::is_safe_relative;

/// A relative, `/`-separated path inside `dist/`.
pub type DistPath = String;

/// The files of one build, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dist {
    files: BTreeMap<DistPath, Vec<u8>>,
}

impl Dist {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file; a path that is absolute, contains `..` or was already added is an error.
    pub fn add(&mut self, path: &str, bytes: Vec<u8>) -> Result<()> {
        if !is_safe_relative(path) {
            return Err(Error::invalid(
                path,
                "output path must be relative, without `..`",
            ));
        }
        if self.files.insert(path.to_string(), bytes).is_some() {
            return Err(Error::invalid(path, "output file written twice"));
        }
        Ok(())
    }

    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// Writes every file under a fresh temporary folder beside `out`, runs `check` on that folder,
    /// and only then swaps it into place.
    pub fn write_atomically(
        &self,
        out: &Path,
        check: impl FnOnce(&Path) -> Result<()>,
    ) -> Result<()> {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = out
            .file_name()
            .ok_or_else(|| Error::invalid(out.display().to_string(), "output folder needs a name"))?
            .to_string_lossy()
            .into_owned();
        if !parent.is_dir() {
            return Err(Error::invalid(
                parent.display().to_string(),
                "is not an existing folder; cannot write the output inside it",
            ));
        }
        let pid = std::process::id();
        let tmp = parent.join(format!("{name}.tmp-{pid}"));
        let old = parent.join(format!("{name}.old-{pid}"));
        let result = self
            .write_into(&tmp)
            .and_then(|()| check(&tmp))
            .and_then(|()| swap(&tmp, out, &old));
        if result.is_err() {
            let _ = fs::remove_dir_all(&tmp);
        }
        result
    }

    /// Checks that `dir` holds exactly these files with exactly these bytes (read back from disk).
    pub fn check_written(&self, dir: &Path) -> Result<()> {
        let mut seen = 0;
        for (rel, path) in files_under(dir)? {
            let expected = self.get(&rel).ok_or_else(|| {
                Error::invalid(path.display().to_string(), "unexpected file in the output")
            })?;
            let actual = fs::read(&path).map_err(|e| Error::io(&path, e))?;
            if actual != expected {
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

    fn write_into(&self, dir: &Path) -> Result<()> {
        if dir.exists() {
            fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        for (path, bytes) in &self.files {
            let target = dir.join(path);
            if let Some(p) = target.parent() {
                fs::create_dir_all(p).map_err(|e| Error::io(p, e))?;
            }
            fs::write(&target, bytes).map_err(|e| Error::io(&target, e))?;
        }
        Ok(())
    }
}

/// Every file under `dir`, sorted, as (`/`-separated path relative to `dir`, full path).
pub fn files_under(dir: &Path) -> Result<Vec<(DistPath, PathBuf)>> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::invalid(dir.display().to_string(), e.to_string()))?;
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            files.push((rel, entry.into_path()));
        }
    }
    Ok(files)
}

/// Moves `tmp` to `out`, keeping the previous `out` until the new one is in place.
fn swap(tmp: &Path, out: &Path, old: &Path) -> Result<()> {
    let had_old = out.exists();
    if had_old {
        fs::rename(out, old).map_err(|e| Error::io(out, e))?;
    }
    if let Err(e) = fs::rename(tmp, out) {
        if had_old {
            let _ = fs::rename(old, out);
        }
        return Err(Error::io(out, e));
    }
    if had_old {
        fs::remove_dir_all(old).map_err(|e| Error::io(old, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_or_repeated_paths_are_refused() {
        let mut d = Dist::new();
        assert!(d.add("../x", vec![]).is_err());
        assert!(d.add("/x", vec![]).is_err());
        d.add("a/b.txt", vec![1]).unwrap();
        assert!(d.add("a/b.txt", vec![2]).is_err());
    }

    #[test]
    fn write_replaces_previous_output_whole() {
        let base = std::env::temp_dir().join(format!("dist-test-{}", std::process::id()));
        let out = base.join("dist");
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("stale.txt"), b"old").unwrap();
        let mut d = Dist::new();
        d.add("qa/new.txt", b"new".to_vec()).unwrap();
        d.write_atomically(&out, |_| Ok(())).unwrap();
        assert!(!out.join("stale.txt").exists());
        assert_eq!(fs::read(out.join("qa/new.txt")).unwrap(), b"new");
        let leftovers: Vec<_> = fs::read_dir(&base).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary folder is left behind");
        // A failing check leaves the previous output as it was.
        let mut e = Dist::new();
        e.add("other.txt", b"x".to_vec()).unwrap();
        let err = e.write_atomically(&out, |_| Err(Error::invalid("check", "refused")));
        assert!(err.is_err());
        assert_eq!(fs::read(out.join("qa/new.txt")).unwrap(), b"new");
        assert!(!out.join("other.txt").exists());
        assert_eq!(fs::read_dir(&base).unwrap().count(), 1);
        fs::remove_dir_all(&base).unwrap();
    }
}
