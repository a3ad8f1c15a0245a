//! Digests as the project writes them: lowercase hexadecimal SHA-256 (of inputs, published files
//! and bundle entries) and the git blob SHA-1 that pins an input to its repository.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha1::Sha1;
use sha2::{Digest, Sha256};

/// A lowercase hexadecimal digest (SHA-256 or SHA-1).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HexDigest(String);

impl HexDigest {
    /// The hexadecimal form of a finished digest.
    pub fn of_digest(bytes: &[u8]) -> Self {
        let mut s = String::with_capacity(bytes.len() * 2);
        for b in bytes {
            use fmt::Write;
            let _ = write!(s, "{b:02x}");
        }
        HexDigest(s)
    }

    /// SHA-256 of `bytes`.
    pub fn sha256(bytes: &[u8]) -> Self {
        Self::of_digest(&Sha256::digest(bytes))
    }

    /// The id git gives a file: `sha1("blob <len>\0" + bytes)`.
    pub fn git_blob_sha1(bytes: &[u8]) -> Self {
        let mut h = Sha1::new();
        h.update(format!("blob {}\0", bytes.len()).as_bytes());
        h.update(bytes);
        Self::of_digest(&h.finalize())
    }

    /// The lowercase hexadecimal digits, as SHA256SUMS and the pages print them.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The digits in groups of 16, where a page may break a long digest over lines (never
    /// leaving a digit or two alone on the last one).
    pub fn groups(&self) -> impl Iterator<Item = &str> {
        let mut rest = self.0.as_str();
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let cut = rest.char_indices().nth(16).map_or(rest.len(), |(i, _)| i);
            let (group, tail) = rest.split_at(cut);
            rest = tail;
            Some(group)
        })
    }

    /// A SHA-256 written as 64 lowercase hexadecimal digits, else `None`.
    pub fn parse_sha256(text: &str) -> Option<Self> {
        let d = HexDigest(text.to_string());
        d.is_well_formed(64).then_some(d)
    }

    /// True when the digest is `len` lowercase hexadecimal digits (64 for SHA-256, 40 for SHA-1).
    pub fn is_well_formed(&self, len: usize) -> bool {
        self.0.len() == len
            && self
                .0
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }
}

impl fmt::Display for HexDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_digest_is_grouped_by_sixteen_digits() {
        let d = super::HexDigest::sha256(b"x");
        let groups: Vec<&str> = d.groups().collect();
        assert_eq!(groups.len(), 4);
        assert!(groups.iter().all(|g| g.len() == 16));
        assert_eq!(groups.concat(), d.as_str());
        let odd = super::HexDigest("é".repeat(17));
        assert_eq!(
            odd.groups().map(|g| g.chars().count()).collect::<Vec<_>>(),
            [16, 1]
        );
    }

    use super::*;

    #[test]
    fn git_blob_sha1_matches_git_for_known_content() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            HexDigest::git_blob_sha1(b"hello\n").as_str(),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        // `printf '' | sha256sum`
        assert_eq!(
            HexDigest::sha256(b"").as_str(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
