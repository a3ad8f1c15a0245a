//! The bundle's inventory (`INVENTORY.sha256`) against the entries the bundle holds: one check,
//! shared by the build's own validation (which knows the entries' names) and the reader's
//! `verify` (which knows their SHA-256 too).

use std::collections::BTreeMap;

use crate::digest::HexDigest;

/// One way a bundle's entries and its inventory disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discrepancy<'a> {
    /// A path the inventory lists (inside the bundle's folder) that no entry holds.
    Absent(&'a str),
    /// A listed path whose entry has another SHA-256 than the inventory's.
    Mismatch {
        /// The path as the inventory lists it, relative to the bundle's folder.
        path: &'a str,
        /// The SHA-256 the inventory gives for it.
        listed: &'a HexDigest,
        /// The SHA-256 of the entry's inflated bytes.
        actual: &'a HexDigest,
    },
    /// An entry (by its full name) that the inventory does not list.
    Unlisted(&'a str),
}

/// Compares the inventory's lines `listed` (paths inside the bundle's folder `root`) with
/// `entries`: each entry's full name and, where it is known, its SHA-256. The inventory's own
/// entry, named `inventory`, is never taken for an unlisted one. Returns the listed paths that
/// no entry holds or whose entry has another digest, in the inventory's order, then the entries
/// the inventory does not list, in name order. An entry outside `root` is never listed.
pub fn compare<'a>(
    root: &str,
    inventory: &str,
    listed: &'a [(String, HexDigest)],
    entries: &BTreeMap<&'a str, Option<&'a HexDigest>>,
) -> Vec<Discrepancy<'a>> {
    let mut found = Vec::new();
    for (path, digest) in listed {
        match entries.get(format!("{root}{path}").as_str()) {
            None => found.push(Discrepancy::Absent(path)),
            Some(Some(actual)) if *actual != digest => found.push(Discrepancy::Mismatch {
                path,
                listed: digest,
                actual,
            }),
            Some(_) => {}
        }
    }
    let listed: std::collections::HashSet<&str> = listed.iter().map(|(p, _)| p.as_str()).collect();
    for &name in entries.keys() {
        let in_listing = name
            .strip_prefix(root)
            .is_some_and(|rel| listed.contains(rel));
        if name != inventory && !in_listing {
            found.push(Discrepancy::Unlisted(name));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_changed_and_unlisted_entries_are_each_found() {
        let (a, b) = (HexDigest::sha256(b"a"), HexDigest::sha256(b"b"));
        let listed = vec![
            ("x.txt".to_string(), a.clone()),
            ("gone.txt".to_string(), a.clone()),
            ("y.txt".to_string(), a.clone()),
        ];
        let entries: BTreeMap<&str, Option<&HexDigest>> = [
            ("r/x.txt", Some(&a)),
            ("r/y.txt", Some(&b)),
            ("r/extra.txt", None),
            ("x.txt", None),
            ("r/INVENTORY.sha256", None),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            compare("r/", "r/INVENTORY.sha256", &listed, &entries),
            [
                Discrepancy::Absent("gone.txt"),
                Discrepancy::Mismatch {
                    path: "y.txt",
                    listed: &a,
                    actual: &b
                },
                Discrepancy::Unlisted("r/extra.txt"),
                Discrepancy::Unlisted("x.txt"),
            ]
        );
    }
}
