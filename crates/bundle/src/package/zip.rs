//! `reproducibility.zip`: our entries compressed ahead ([`stage`]), then written on top of the
//! vendored crates' fragment ([`finish`]), with the inventory in its sorted place. The zip is
//! byte-reproducible: entries in sorted order, one fixed timestamp, fixed permissions, relative
//! paths only.

use std::collections::{BTreeMap, HashMap};

use sha2::{Digest, Sha256};

use crate::package::ro_crate::{Describer, FileFacts, RO_CRATE};
use crate::vendoring::{Fragment, VENDOR_DIR};
use ratios_base::archive::write::{Record, Writer};
use ratios_base::archive::{zip_time, DosTime};
use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::layout::{bundle_root, check_entry_path, OutputFile, INVENTORY};
use ratios_base::sums::sums_listing;
use ratios_base::workers;

const BUNDLE: &str = OutputFile::Bundle.path();

/// A failure writing the bundle, named as the bundle.
fn bundle_error(message: impl ToString) -> Error {
    Error::Bundle {
        file: BUNDLE.into(),
        message: message.to_string(),
    }
}

/// `reproducibility.zip` and its SHA-256.
#[derive(Debug)]
pub struct Bundle {
    /// The zip's bytes, the vendored crates' entries first, as published as
    /// `reproducibility.zip`.
    pub bytes: Vec<u8>,
    /// The SHA-256 of those bytes, continued from the vendored block's rather than hashed again.
    pub sha256: HexDigest,
}

/// Our own entries of a bundle, compressed ahead, while the vendored crates are still being read
/// on the second core: their records in three runs that [`finish`] writes as they are (those
/// that sort before the inventory, those between it and the RO-Crate description, and those
/// after it), and each entry's size and SHA-256 for the inventory and the description.
#[derive(Debug)]
pub struct Staged {
    parts: [Vec<Record>; 3],
    files: Vec<FileFacts>,
    /// The time every entry is stamped with.
    time: DosTime,
    /// The first of our entries that lies under `vendor/`, if any (refused beside a fragment).
    under_vendor: Option<String>,
    /// Makes `ro-crate-metadata.json` once every entry is known (none: no description).
    describer: Option<Describer>,
}

/// Our entries compressed by earlier builds of one process (the preview), each record by its
/// name, SHA-256 and timestamp: a prose edit recompresses only the prose. A kept entry's record
/// is the one a fresh compression would make. A one-shot build starts empty.
#[derive(Debug, Default)]
pub struct Compressed(HashMap<(String, HexDigest, i64), Record>);

/// The deflate level of our entries: the fastest, for the build that runs on every save.
const LEVEL: u32 = 1;

/// Compresses every entry of `entries` (paths relative to the bundle's folder), sorted, stamped
/// with one time and mode 0644, reusing the entries `kept` holds and keeping only this build's.
/// With a `describer`, [`finish`] adds the RO-Crate description.
pub fn stage(
    entries: &BTreeMap<String, Vec<u8>>,
    source_date_epoch: i64,
    describer: Option<Describer>,
    kept: &mut Compressed,
) -> Result<Staged> {
    let time = zip_time(source_date_epoch)?;
    let root = bundle_root();
    let inventory_name = format!("{root}{INVENTORY}");
    let ro_crate_name = format!("{root}{RO_CRATE}");
    let vendored = format!("{root}{VENDOR_DIR}/");
    let mut parts: [Vec<Record>; 3] = Default::default();
    let mut under_vendor = None;
    // First the names, in order, each checked; then each entry's digest and compressed record,
    // on two cores (each record stands alone, so the split changes no byte); then the records
    // in order.
    for rel in entries.keys() {
        let name = format!("{root}{rel}");
        check_entry_path(&name)?;
        if name == inventory_name || name == ro_crate_name {
            return Err(bundle_error(format!(
                "entry {name:?} is the name of a file the bundle makes itself"
            )));
        }
        if under_vendor.is_none() && name.starts_with(&vendored) {
            under_vendor = Some(name.clone());
        }
    }
    let all: Vec<(&String, &Vec<u8>)> = entries.iter().collect();
    // Each entry's key, and its record unless an earlier build's is kept under that key.
    let made = workers::map_in_order(&all, "bundle entries", |&(rel, bytes)| {
        let key = (
            format!("{root}{rel}"),
            HexDigest::sha256(bytes),
            source_date_epoch,
        );
        if kept.0.contains_key(&key) {
            return Ok((key, None));
        }
        let record = Record::deflate(&key.0, bytes, LEVEL, time).map_err(bundle_error)?;
        Ok((key, Some(record)))
    })?;
    let mut files = Vec::with_capacity(entries.len());
    let mut now = Compressed::default();
    for (&(rel, bytes), (key, made)) in all.iter().zip(made) {
        let Some(one) = made.or_else(|| kept.0.remove(&key)) else {
            return Err(bundle_error(format!(
                "entry {:?} was not compressed",
                key.0
            )));
        };
        let part = usize::from(key.0 > inventory_name) + usize::from(key.0 > ro_crate_name);
        parts[part].push(one.clone());
        files.push(FileFacts {
            path: rel.clone(),
            size: bytes.len() as u64,
            sha256: Some(key.1.clone()),
        });
        now.0.insert(key, one);
    }
    *kept = now;
    Ok(Staged {
        parts,
        files,
        time,
        under_vendor,
        describer,
    })
}

/// The vendored crates' fragment, with the size and SHA-256 of each of its files (which the
/// RO-Crate description lists), read from its directory and listing once.
#[derive(Debug)]
pub struct Vendored {
    /// The fragment itself: its zip bytes, its inventory lines and its block's digest.
    pub fragment: Fragment,
    files: Vec<FileFacts>,
}

impl Vendored {
    /// The fragment with its files' sizes and SHA-256; an error when its central directory or
    /// its listing does not read, or the listing names a file the zip does not hold.
    pub fn new(fragment: Fragment) -> Result<Vendored> {
        let files = vendored_files(&fragment)?;
        Ok(Vendored { fragment, files })
    }

    /// A copy whose buffer keeps the room the fragment was read with, so that the bundle
    /// written on top of it needs no second copy.
    pub fn copy(&self) -> Vendored {
        let mut bytes = Vec::with_capacity(self.fragment.bytes.capacity());
        bytes.extend_from_slice(&self.fragment.bytes);
        Vendored {
            fragment: Fragment {
                bytes,
                ..self.fragment.clone_without_bytes()
            },
            files: self.files.clone(),
        }
    }
}

/// The vendored files of a fragment, with their sizes (from its central directory) and
/// SHA-256 (from its listing), by path inside the bundle's folder.
fn vendored_files(v: &Fragment) -> Result<Vec<FileFacts>> {
    let fail = |problems: Vec<String>| Error::Bundle {
        file: v.path.display().to_string(),
        message: problems.join("; "),
    };
    let root = bundle_root();
    let sizes: BTreeMap<String, u64> =
        ratios_base::archive::central_directory(&v.bytes, &ratios_base::archive::BUNDLE_LIMITS)
            .map_err(fail)?
            .into_iter()
            .map(|entry| {
                let name = entry
                    .name
                    .strip_prefix(root.as_str())
                    .unwrap_or(&entry.name);
                (name.to_string(), entry.size)
            })
            .collect();
    let listed = ratios_base::sums::parse_sums(&v.path.display().to_string(), &v.listing).map_err(
        |problems| Error::Bundle {
            file: v.path.display().to_string(),
            message: problems.into_lines().join("; "),
        },
    )?;
    listed
        .into_iter()
        .map(|(path, sha256)| {
            let size = *sizes.get(&path).ok_or_else(|| Error::Bundle {
                file: v.path.display().to_string(),
                message: format!("its listing names {path}, which it does not hold"),
            })?;
            Ok(FileFacts {
                path,
                size,
                sha256: Some(sha256),
            })
        })
        .collect()
}

/// Builds `reproducibility.zip` on top of the vendored crates of `vendor` (already under the
/// bundle's folder), whose entries stay first, byte for byte; then the staged entries, with the
/// inventory listing every entry in its sorted place. The digest continues from the vendored
/// block's, so only what follows it is hashed here.
pub fn finish(staged: Staged, vendor: Option<Vendored>) -> Result<Bundle> {
    if let (Some(_), Some(name)) = (&vendor, &staged.under_vendor) {
        return Err(bundle_error(format!(
            "entry {name:?} lies among the vendored crates"
        )));
    }
    let vendor_listing = vendor.as_ref().map_or("", |v| v.fragment.listing.as_str());
    // The RO-Crate description: every entry but itself, the inventory with its size alone
    // (the inventory lists the description's SHA-256, so the description cannot list the
    // inventory's).
    let described = match &staged.describer {
        None => None,
        Some(describer) => {
            let mut files = staged.files.clone();
            if let Some(v) = &vendor {
                files.extend(v.files.iter().cloned());
            }
            let line = |path: &str| ratios_base::sums::line_len(path) as u64;
            let inventory_size = staged.files.iter().map(|f| line(&f.path)).sum::<u64>()
                + line(RO_CRATE)
                + vendor_listing.len() as u64;
            files.push(FileFacts {
                path: INVENTORY.into(),
                size: inventory_size,
                sha256: None,
            });
            files.sort_by(|a, b| a.path.cmp(&b.path));
            Some(describer.describe(&files)?)
        }
    };
    // The inventory: every entry but itself, by path inside the bundle's folder; the vendored
    // entries' lines come last.
    let ro_crate_digest = described.as_ref().map(|d| HexDigest::sha256(d));
    let mut inventory = sums_listing(
        staged
            .files
            .iter()
            .filter_map(|f| f.sha256.as_ref().map(|d| (f.path.as_str(), d)))
            .chain(ro_crate_digest.as_ref().map(|d| (RO_CRATE, d))),
    );
    inventory.push_str(vendor_listing);
    // Room for our entries and the directory.
    let room = staged
        .parts
        .iter()
        .flatten()
        .map(|r| r.bytes().len())
        .sum::<usize>()
        + inventory.len()
        + described.as_ref().map_or(0, Vec::len)
        + (1 << 20);
    let (mut zip, (from, mut sha256)) = match vendor.map(|v| v.fragment) {
        Some(v) => {
            let mut bytes = v.bytes;
            bytes.reserve(room);
            let fail = |message| Error::Bundle {
                file: v.path.display().to_string(),
                message,
            };
            let zip = Writer::append_to(bytes).map_err(fail)?;
            // Our entries start where the vendored block ends: that block is what was hashed.
            if zip.position() != v.block.len {
                return Err(fail(
                    "its entries do not end where its central directory starts".into(),
                ));
            }
            (zip, (v.block.len, v.block.sha256))
        }
        None => (Writer::new(Vec::with_capacity(room)), (0, Sha256::new())),
    };
    let [first, middle, last] = &staged.parts;
    let add_all = |zip: &mut Writer, records: &[Record]| {
        records
            .iter()
            .try_for_each(|r| zip.add(r))
            .map_err(bundle_error)
    };
    // The description (the largest entry we make) is compressed on a second core while the
    // entries before it are written.
    let time = staged.time;
    let (described, written) = workers::beside(
        "the RO-Crate description",
        || {
            described
                .as_ref()
                .map(|d| {
                    let name = format!("{}{RO_CRATE}", bundle_root());
                    Record::deflate(&name, d, LEVEL, time).map_err(bundle_error)
                })
                .transpose()
        },
        || {
            add_all(&mut zip, first)?;
            let name = format!("{}{INVENTORY}", bundle_root());
            let inventory =
                Record::deflate(&name, inventory.as_bytes(), LEVEL, time).map_err(bundle_error)?;
            zip.add(&inventory).map_err(bundle_error)?;
            add_all(&mut zip, middle)
        },
    );
    written?;
    if let Some(record) = described? {
        zip.add(&record).map_err(bundle_error)?;
    }
    add_all(&mut zip, last)?;
    let bytes = zip.finish().map_err(bundle_error)?;
    sha256.update(
        bytes
            .get(from..)
            .ok_or_else(|| bundle_error("shorter than its vendored block"))?,
    );
    Ok(Bundle {
        sha256: HexDigest::of_digest(&sha256.finalize()),
        bytes,
    })
}

/// [`stage`] then [`finish`], in one step, with the RO-Crate description when `describer` is
/// given.
pub fn bundle(
    entries: &BTreeMap<String, Vec<u8>>,
    vendor: Option<Vendored>,
    source_date_epoch: i64,
    describer: Option<Describer>,
) -> Result<Bundle> {
    finish(
        stage(
            entries,
            source_date_epoch,
            describer,
            &mut Compressed::default(),
        )?,
        vendor,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_are_byte_identical_and_readable() {
        let mut e = BTreeMap::new();
        e.insert("b/x.txt".to_string(), b"x".to_vec());
        e.insert("a.txt".to_string(), b"aaaa".to_vec());
        let one = bundle(&e, None, 1_795_996_800, None).unwrap();
        assert_eq!(
            one.bytes,
            bundle(&e, None, 1_795_996_800, None).unwrap().bytes
        );
        assert_eq!(one.sha256, HexDigest::sha256(&one.bytes));
        assert_ne!(
            one.bytes,
            bundle(&e, None, 1_795_996_802, None).unwrap().bytes,
            "the timestamp is recorded"
        );
        let back = ratios_base::archive::read_all(&one.bytes).unwrap();
        let names: Vec<_> = back.keys().cloned().collect();
        let top = bundle_root();
        assert_eq!(
            names,
            [
                format!("{top}INVENTORY.sha256"),
                format!("{top}a.txt"),
                format!("{top}b/x.txt")
            ]
        );
        assert_eq!(
            ratios_base::sums::parse_sums(
                "inv",
                std::str::from_utf8(&back[&format!("{top}INVENTORY.sha256")]).unwrap()
            )
            .unwrap(),
            vec![
                ("a.txt".to_string(), HexDigest::sha256(b"aaaa")),
                ("b/x.txt".to_string(), HexDigest::sha256(b"x"))
            ]
        );
    }

    /// A fragment of two vendored files, as `vendoring::fragment` lays one out.
    fn fragment(room: usize) -> Fragment {
        let top = bundle_root();
        let time = zip_time(1_795_996_800).unwrap();
        let mut w = Writer::new(Vec::new());
        let mut listing = String::new();
        for (rel, body) in [
            ("demo-0.1.0/Cargo.toml", "[package]\n"),
            ("demo-0.1.0/src/lib.rs", ""),
        ] {
            let name = format!("{top}vendor/{rel}");
            w.add(&Record::deflate(&name, body.as_bytes(), 6, time).unwrap())
                .unwrap();
            listing.push_str(&format!(
                "{}  vendor/{rel}\n",
                HexDigest::sha256(body.as_bytes())
            ));
        }
        let mut bytes = w.finish().unwrap();
        bytes.reserve_exact(room);
        Fragment::from_zip(bytes, listing, "fragment.zip".into()).unwrap()
    }

    #[test]
    fn the_vendored_block_comes_first_and_the_digest_is_the_whole_bundles() {
        let top = bundle_root();
        let mut e = BTreeMap::new();
        e.insert("a.txt".to_string(), b"aaaa".repeat(1000));
        e.insert("z.txt".to_string(), b"z".to_vec());
        e.insert("Cargo.toml".to_string(), b"[package]".to_vec());
        // With no room left in the fragment's buffer, and with plenty: the same bytes.
        let tight = fragment(0);
        let block = tight.bytes[..tight.block.len].to_vec();
        let one = bundle(&e, Some(Vendored::new(tight).unwrap()), 1_795_996_800, None).unwrap();
        let roomy = bundle(
            &e,
            Some(Vendored::new(fragment(1 << 20)).unwrap()),
            1_795_996_800,
            None,
        )
        .unwrap();
        assert_eq!(one.bytes, roomy.bytes);
        assert_eq!(
            one.sha256,
            HexDigest::sha256(&one.bytes),
            "digest of every byte"
        );
        assert!(
            one.bytes.starts_with(&block),
            "the vendored entries are copied raw, first"
        );
        let back = ratios_base::archive::read_all(&one.bytes).unwrap();
        let names: Vec<String> = ratios_base::archive::central_directory(
            &one.bytes,
            &ratios_base::archive::BUNDLE_LIMITS,
        )
        .unwrap()
        .into_iter()
        .map(|r| r.name)
        .collect();
        assert_eq!(
            names,
            [
                format!("{top}vendor/demo-0.1.0/Cargo.toml"),
                format!("{top}vendor/demo-0.1.0/src/lib.rs"),
                format!("{top}Cargo.toml"),
                format!("{top}INVENTORY.sha256"),
                format!("{top}a.txt"),
                format!("{top}z.txt"),
            ]
        );
        assert_eq!(
            back[&format!("{top}vendor/demo-0.1.0/Cargo.toml")],
            b"[package]\n"
        );
        assert_eq!(back[&format!("{top}a.txt")], b"aaaa".repeat(1000));
        let inventory = std::str::from_utf8(&back[&format!("{top}INVENTORY.sha256")]).unwrap();
        assert_eq!(
            ratios_base::sums::parse_sums("inv", inventory)
                .unwrap()
                .last()
                .unwrap()
                .0,
            "vendor/demo-0.1.0/src/lib.rs"
        );

        // An entry of our own named as the inventory or the RO-Crate description, or among
        // the vendored crates, is refused.
        for own in ["INVENTORY.sha256", "ro-crate-metadata.json"] {
            let mut named = e.clone();
            named.insert(own.to_string(), b"".to_vec());
            let err = bundle(&named, None, 1_795_996_800, None).unwrap_err();
            assert!(
                err.to_string()
                    .contains("is the name of a file the bundle makes itself"),
                "{err}"
            );
        }
        e.insert("vendor/demo-0.1.0/extra.rs".to_string(), b"".to_vec());
        let err = bundle(
            &e,
            Some(Vendored::new(fragment(0)).unwrap()),
            1_795_996_800,
            None,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("lies among the vendored crates"),
            "{err}"
        );
    }
}
