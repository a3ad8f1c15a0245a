//! `reproducibility.zip`: our entries compressed ahead ([`stage`]), then written on top of the
//! vendored crates' fragment ([`finish`]), with the inventory in its sorted place. The zip is
//! byte-reproducible: entries in sorted order, one fixed timestamp, fixed permissions, relative
//! paths only.

use std::collections::BTreeMap;
use std::io::{Cursor, Write};

use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::base::archive::zip_time;
use crate::base::digest::HexDigest;
use crate::base::error::{Error, Result};
use crate::base::layout::{bundle_root, check_entry_path, OutputFile, INVENTORY};
use crate::base::sums::sums;
use crate::vendor::{Fragment, VENDOR_DIR};

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
    pub bytes: Vec<u8>,
    pub sha256: HexDigest,
}

/// Our own entries of a bundle, compressed ahead, while the vendored crates are still being read
/// on the second core: those that sort before the inventory and those after it, each as a small
/// zip whose entries [`finish`] copies raw, and the inventory's lines for them.
#[derive(Debug)]
pub struct Staged {
    before: Vec<u8>,
    after: Vec<u8>,
    inventory: String,
    options: SimpleFileOptions,
    /// The first of our entries that lies under `vendor/`, if any (refused beside a fragment).
    under_vendor: Option<String>,
}

/// Compresses every entry of `entries` (paths relative to the bundle's folder), sorted, stamped
/// with one time and mode 0644.
pub fn stage(entries: &BTreeMap<String, Vec<u8>>, source_date_epoch: i64) -> Result<Staged> {
    let fail = |e: zip::result::ZipError| bundle_error(e);
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(1))
        .last_modified_time(zip_time(source_date_epoch)?)
        .unix_permissions(0o644);
    let root = bundle_root();
    let inventory_name = format!("{root}{INVENTORY}");
    let vendored = format!("{root}{VENDOR_DIR}/");
    let mut halves = [
        ZipWriter::new(Cursor::new(Vec::new())),
        ZipWriter::new(Cursor::new(Vec::new())),
    ];
    let mut under_vendor = None;
    // `entries` is sorted by path, and the bundle's folder prefixes every name alike.
    for (rel, bytes) in entries {
        let name = format!("{root}{rel}");
        check_entry_path(&name)?;
        if name == inventory_name {
            return Err(bundle_error(format!(
                "entry {name:?} is the inventory's own name"
            )));
        }
        if under_vendor.is_none() && name.starts_with(&vendored) {
            under_vendor = Some(name.clone());
        }
        let zip = &mut halves[usize::from(name > inventory_name)];
        zip.start_file(name.as_str(), options).map_err(fail)?;
        zip.write_all(bytes).map_err(bundle_error)?;
    }
    let [before, after] = halves;
    Ok(Staged {
        before: before.finish().map_err(fail)?.into_inner(),
        after: after.finish().map_err(fail)?.into_inner(),
        inventory: sums(entries.iter().map(|(k, v)| (k.as_str(), v.as_slice()))),
        options,
        under_vendor,
    })
}

/// Builds `reproducibility.zip` on top of the vendored crates of `vendor` (already under the
/// bundle's folder), whose entries stay first, byte for byte; then the staged entries, with the
/// inventory listing every entry in its sorted place. The digest continues from the vendored
/// block's, so only what follows it is hashed here.
pub fn finish(staged: Staged, vendor: Option<Fragment>) -> Result<Bundle> {
    let fail = |e: zip::result::ZipError| bundle_error(e);
    // The inventory: every entry but itself, by path inside the bundle's folder; the vendored
    // entries' lines come last.
    let mut inventory = staged.inventory;
    if let Some(v) = &vendor {
        inventory.push_str(&v.listing);
        if let Some(name) = &staged.under_vendor {
            return Err(bundle_error(format!(
                "entry {name:?} lies among the vendored crates"
            )));
        }
    }
    // Room for our entries and the directory.
    let room = staged.before.len() + staged.after.len() + inventory.len() + (1 << 20);
    let (mut zip, (from, mut sha256)) = match vendor {
        Some(v) => {
            let mut bytes = v.bytes;
            bytes.reserve(room);
            let zip = ZipWriter::new_append(Cursor::new(bytes)).map_err(|e| Error::Bundle {
                file: v.path.display().to_string(),
                message: e.to_string(),
            })?;
            // Our entries start where the vendored block ends: that block is what was hashed.
            if zip.get_ref().map(|c| c.position()) != Some(v.block.len as u64) {
                return Err(Error::Bundle {
                    file: v.path.display().to_string(),
                    message: "its entries do not end where its central directory starts".into(),
                });
            }
            (zip, (v.block.len, v.block.sha256))
        }
        None => (
            ZipWriter::new(Cursor::new(Vec::with_capacity(room))),
            (0, Sha256::new()),
        ),
    };
    let half = |bytes| zip::ZipArchive::new(Cursor::new(bytes)).map_err(fail);
    zip.merge_archive(half(staged.before.as_slice())?)
        .map_err(fail)?;
    let name = format!("{}{INVENTORY}", bundle_root());
    zip.start_file(name.as_str(), staged.options)
        .map_err(fail)?;
    zip.write_all(inventory.as_bytes()).map_err(bundle_error)?;
    zip.merge_archive(half(staged.after.as_slice())?)
        .map_err(fail)?;
    let written = zip.finish().map_err(fail)?;
    // Written over the fragment's own directory: the bundle ends where the writing stopped.
    let end = usize::try_from(written.position()).unwrap_or(usize::MAX);
    let mut bytes = written.into_inner();
    bytes.truncate(end);
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

/// [`stage`] then [`finish`], in one step.
pub fn bundle(
    entries: &BTreeMap<String, Vec<u8>>,
    vendor: Option<Fragment>,
    source_date_epoch: i64,
) -> Result<Bundle> {
    finish(stage(entries, source_date_epoch)?, vendor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_are_byte_identical_and_readable() {
        let mut e = BTreeMap::new();
        e.insert("b/x.txt".to_string(), b"x".to_vec());
        e.insert("a.txt".to_string(), b"aaaa".to_vec());
        let one = bundle(&e, None, 1_795_996_800).unwrap();
        assert_eq!(one.bytes, bundle(&e, None, 1_795_996_800).unwrap().bytes);
        assert_eq!(one.sha256, HexDigest::sha256(&one.bytes));
        assert_ne!(
            one.bytes,
            bundle(&e, None, 1_795_996_802).unwrap().bytes,
            "the timestamp is recorded"
        );
        let back = crate::base::archive::read_all(&one.bytes).unwrap();
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
            crate::base::sums::parse_sums(
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

    /// A fragment of two vendored files, as `vendor::fragment` lays one out.
    fn fragment(room: usize) -> Fragment {
        let top = bundle_root();
        let options = SimpleFileOptions::default()
            .last_modified_time(zip_time(1_795_996_800).unwrap())
            .unix_permissions(0o644);
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        let mut listing = String::new();
        for (rel, body) in [
            ("demo-0.1.0/Cargo.toml", "[package]\n"),
            ("demo-0.1.0/src/lib.rs", ""),
        ] {
            w.start_file(format!("{top}vendor/{rel}"), options).unwrap();
            w.write_all(body.as_bytes()).unwrap();
            listing.push_str(&format!(
                "{}  vendor/{rel}\n",
                HexDigest::sha256(body.as_bytes())
            ));
        }
        let mut bytes = w.finish().unwrap().into_inner();
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
        let one = bundle(&e, Some(tight), 1_795_996_800).unwrap();
        let roomy = bundle(&e, Some(fragment(1 << 20)), 1_795_996_800).unwrap();
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
        let back = crate::base::archive::read_all(&one.bytes).unwrap();
        let names: Vec<String> = crate::base::archive::central_directory(
            &one.bytes,
            &crate::base::archive::BUNDLE_LIMITS,
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
            crate::base::sums::parse_sums("inv", inventory)
                .unwrap()
                .last()
                .unwrap()
                .0,
            "vendor/demo-0.1.0/src/lib.rs"
        );

        // An entry of our own named as the inventory, or among the vendored crates, is refused.
        let mut named = e.clone();
        named.insert("INVENTORY.sha256".to_string(), b"".to_vec());
        let err = bundle(&named, None, 1_795_996_800).unwrap_err();
        assert!(
            err.to_string().contains("the inventory's own name"),
            "{err}"
        );
        e.insert("vendor/demo-0.1.0/extra.rs".to_string(), b"".to_vec());
        let err = bundle(&e, Some(fragment(0)), 1_795_996_800).unwrap_err();
        assert!(
            err.to_string().contains("lies among the vendored crates"),
            "{err}"
        );
    }
}
