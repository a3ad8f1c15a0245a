//! The published file set: every file of one build, in memory, by path, with its SHA-256. Each
//! stage that renders files returns its own; the build merges them, refusing a path made twice,
//! and writes the whole set once (`scenario-ratios`' `output`).

use std::collections::BTreeMap;

use crate::digest::HexDigest;
use crate::error::{Error, Result};
use crate::layout::{self, OutputFile};
use crate::ownership::MARKER;

/// A relative, `/`-separated path inside the output folder.
pub type DistPath = String;

/// The files of one build, sorted by path, each with its SHA-256 (computed once, when added:
/// the downloads table and SHA256SUMS both use it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dist {
    files: BTreeMap<DistPath, (Vec<u8>, HexDigest)>,
}

impl Dist {
    /// An empty set, to which a stage adds the files it renders.
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

    /// The bytes of the file at `path`, or `None` when the set holds no such file.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(|(b, _)| b.as_slice())
    }

    /// The SHA-256 of a file.
    pub fn sha256(&self, path: &str) -> Option<&HexDigest> {
        self.files.get(path).map(|(_, d)| d)
    }

    /// Every file's path and bytes, in path order, as the build writes them to the folder.
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
        let sums = crate::sums::sums_listing(self.digests());
        self.add(OutputFile::Sums.path(), sums.into_bytes())
    }

    /// How many files the set holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the set holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
