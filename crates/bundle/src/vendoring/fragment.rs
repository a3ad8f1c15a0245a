//! The vendored part of a bundle, made once per Cargo.lock, plan, bundle folder and timestamp into
//! a zip fragment kept in the crate cache (with its inventory lines and its SHA-256 beside it),
//! which each bundle copies raw, in one block, as its first entries.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::crates::{vendored, CrateSources, MAX_CRATE_BYTES};
use super::lock::locked_crates;
use super::{Plan, PLAN_PATH, VENDOR_DIR};
use ratios_base::archive::write::{Record, Writer};
use ratios_base::archive::{tail, zip_time};
use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::fetch;
use ratios_base::layout::check_entry_path;

/// Version of the fragment's layout; a change makes every cached fragment stale.
const FRAGMENT_FORMAT: &str = "scenario-ratios vendor fragment 3";
/// Largest vendor fragment read back from the cache.
const MAX_FRAGMENT_BYTES: u64 = 64 << 20;
/// Room a fragment's buffer keeps after its bytes for the rest of the bundle (our entries
/// compress to under a megabyte), so that the bundle grows in place.
const BUNDLE_ROOM: usize = 4 << 20;

/// The vendored part of a bundle: a zip whose entries are `<prefix>vendor/...`, sorted, and
/// their inventory lines (`<sha256>  vendor/...`, in the same order), which the bundle's
/// inventory ends with.
#[derive(Debug, Clone)]
pub struct Fragment {
    /// The fragment's zip, read whole into a buffer with room for the rest of the bundle: the
    /// bundle is written on top of it, its entries first.
    pub bytes: Vec<u8>,
    /// Where it is kept, for messages.
    pub path: PathBuf,
    /// Its inventory lines, `<sha256>  vendor/...` in entry order, which end the bundle's
    /// `INVENTORY.sha256`.
    pub listing: String,
    /// The length of its entries and their SHA-256 so far, from which the bundle's digest
    /// continues.
    pub block: Block,
}

/// How long a fragment's entries are (all its bytes before its central directory, which a
/// bundle keeps as its first bytes) and their SHA-256 so far, computed on the second core: the
/// bundle's digest continues from it rather than hashing those megabytes again.
#[derive(Debug, Clone)]
pub struct Block {
    /// The bytes before the fragment's central directory: its entries, which the bundle keeps.
    pub len: usize,
    /// A SHA-256 hasher fed those bytes, to be fed the rest of the bundle.
    pub sha256: Sha256,
}

/// The fragment for `lock_text` and `plan` under `prefix` (the bundle's folder with its `/`),
/// its entries stamped with `source_date_epoch`: from the cache when a fragment for exactly
/// these was made before, else made now and cached.
pub fn fragment(
    lock_text: &str,
    plan: &Plan,
    prefix: &str,
    source_date_epoch: i64,
    sources: &CrateSources,
) -> Result<Fragment> {
    let time = zip_time(source_date_epoch)?;
    let key = {
        let plan_json = serde_json::to_string(plan).unwrap_or_default();
        let material =
            format!("{FRAGMENT_FORMAT}\n{prefix}\n{source_date_epoch}\n{plan_json}\n{lock_text}");
        HexDigest::sha256(material.as_bytes()).to_string()
    };
    let files = FragmentFiles::new(&sources.cache_dir, &key[..16]);
    match files.read() {
        Ok(Some(f)) => return Ok(f),
        Ok(None) => {}
        Err(why) => ratios_base::note!(
            "warning: {}: {why}; making it again",
            ratios_base::text::path(&files.zip)
        ),
    }
    let crates = locked_crates(lock_text)?;
    let unknown: Vec<&String> = plan
        .stubs
        .iter()
        .filter(|s| !crates.iter().any(|c| &c.id() == *s))
        .collect();
    if !unknown.is_empty() {
        ratios_base::note!(
            "warning: {PLAN_PATH} lists stubs that Cargo.lock does not lock: {}",
            unknown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Written crate by crate, in the order of their folder names (and each crate's files in
    // order), so the fragment is sorted without holding every unpacked crate at once.
    let mut crates = crates;
    crates.sort_by_key(|c| c.dir());
    // Level 6: miniz_oxide's level 9 takes about 1.5 s more of a core on the first build for
    // 41 kB less, and its level 6 already packs tighter than zlib-rs's level 9 did.
    const LEVEL: u32 = 6;
    let fail = |e: String| Error::Bundle {
        file: "vendor fragment".into(),
        message: e,
    };
    let missing = super::crates::to_download(&crates, sources);
    if missing > 0 && sources.allow_download {
        ratios_base::note!(
            "note: downloading {missing} of the {} .crate archives of Cargo.lock from static.crates.io into {} (once: later builds reuse them), for the bundle's vendored crates",
            crates.len(),
            ratios_base::text::path(&sources.cache_dir)
        );
    }
    let mut w = Writer::new(Vec::new());
    let mut listing = String::new();
    for krate in &crates {
        let stub = plan.stubs.contains(&krate.id());
        for (rel, bytes) in vendored(krate, stub, sources)? {
            let name = format!("{prefix}{VENDOR_DIR}/{}/{rel}", krate.dir());
            check_entry_path(&name)?;
            w.add(&Record::deflate(&name, &bytes, LEVEL, time).map_err(fail)?)
                .map_err(fail)?;
            listing.push_str(&format!(
                "{}  {VENDOR_DIR}/{}/{rel}\n",
                HexDigest::sha256(&bytes),
                krate.dir()
            ));
        }
    }
    let zip = w.finish().map_err(fail)?;
    files.write(&zip, &listing)?;
    drop(zip);
    // Read back as every later build reads it, so that the block is hashed from the bytes merged.
    match files.read() {
        Ok(Some(f)) => Ok(f),
        Ok(None) => Err(Error::Bundle {
            file: files.zip.display().to_string(),
            message: "the vendor fragment just written does not read back".into(),
        }),
        Err(why) => Err(Error::Bundle {
            file: files.zip.display().to_string(),
            message: why,
        }),
    }
}

/// The files that keep one fragment in the crate cache: the zip, its inventory lines, and the
/// zip's SHA-256 in `sha256sum` form, written last (a fragment without it was never finished).
struct FragmentFiles {
    zip: PathBuf,
    listing: PathBuf,
    digest: PathBuf,
}

impl FragmentFiles {
    fn new(cache_dir: &Path, key: &str) -> Self {
        let zip = cache_dir.join(format!("vendor-{key}.zip"));
        FragmentFiles {
            listing: zip.with_extension("listing"),
            digest: zip.with_extension("zip.sha256"),
            zip,
        }
    }

    fn write(&self, zip: &[u8], listing: &str) -> Result<()> {
        fetch::store(&self.zip, zip)?;
        fetch::store(&self.listing, listing.as_bytes())?;
        let name = self.zip.file_name().unwrap_or_default().to_string_lossy();
        fetch::store(
            &self.digest,
            format!("{}  {name}\n", HexDigest::sha256(zip)).as_bytes(),
        )
    }

    /// The fragment made before: `None` when it was never finished (no recorded digest), an
    /// error saying what is wrong when its files do not agree with each other or the digest.
    fn read(&self) -> std::result::Result<Option<Fragment>, String> {
        let Some(recorded) = fetch::read_text_if_readable(&self.digest, 200) else {
            return Ok(None);
        };
        let expected = recorded
            .split_once("  ")
            .and_then(|(d, _)| HexDigest::parse_sha256(d))
            .ok_or("its recorded SHA-256 is not a sha256sum line")?;
        let bytes = fetch::read_file_with_room(&self.zip, MAX_FRAGMENT_BYTES, BUNDLE_ROOM)
            .map_err(|e| format!("missing or unreadable ({e})"))?
            .ok_or(format!("larger than {MAX_FRAGMENT_BYTES} bytes"))?;
        let listing = fetch::read_text_if_readable(&self.listing, MAX_CRATE_BYTES)
            .ok_or("its listing is missing or unreadable")?;
        let fragment = Fragment::from_zip(bytes, listing, self.zip.clone())?;
        let got = fragment.sha256();
        if got != expected {
            return Err(format!(
                "vendor fragment SHA-256 mismatch: expected {expected}, got {got}"
            ));
        }
        Ok(Some(fragment))
    }
}

impl Fragment {
    /// The fragment in the zip `bytes`, when `listing` has one line per entry, under `vendor/`;
    /// its block is hashed here.
    pub fn from_zip(
        bytes: Vec<u8>,
        listing: String,
        path: PathBuf,
    ) -> std::result::Result<Fragment, String> {
        let zip_tail = tail(&bytes)?;
        let lines = listing.bytes().filter(|&b| b == b'\n').count();
        let under_vendor = listing
            .lines()
            .next()
            .and_then(|l| l.split_once("  "))
            .is_some_and(|(_, p)| p.starts_with(&format!("{VENDOR_DIR}/")));
        if usize::try_from(zip_tail.entries).ok() != Some(lines)
            || !listing.ends_with('\n')
            || !under_vendor
        {
            return Err(format!(
                "its listing ({lines} lines) does not match its {} entries under {VENDOR_DIR}/",
                zip_tail.entries
            ));
        }
        let block = Block {
            len: zip_tail.dir_start,
            sha256: Sha256::new_with_prefix(&bytes[..zip_tail.dir_start]),
        };
        Ok(Fragment {
            bytes,
            path,
            listing,
            block,
        })
    }

    /// Everything but the bytes (left empty), for a copy that allocates them its own way.
    pub fn clone_without_bytes(&self) -> Fragment {
        Fragment {
            bytes: Vec::new(),
            path: self.path.clone(),
            listing: self.listing.clone(),
            block: self.block.clone(),
        }
    }

    /// The SHA-256 of the whole fragment, continued from its block's.
    pub fn sha256(&self) -> HexDigest {
        let mut h = self.block.sha256.clone();
        h.update(self.bytes.get(self.block.len..).unwrap_or_default());
        HexDigest::of_digest(&h.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_fragment_is_checked_against_its_recorded_digest() {
        use std::io::{Cursor, Write};
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        w.start_file(
            "p/vendor/demo-0.1.0/Cargo.toml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        w.write_all(b"[package]\n").unwrap();
        let zip = w.finish().unwrap().into_inner();
        let listing = format!(
            "{}  vendor/demo-0.1.0/Cargo.toml\n",
            HexDigest::sha256(b"[package]\n")
        );
        let dir = tempfile::tempdir().unwrap();
        let files = FragmentFiles::new(dir.path(), "k");
        assert!(files.read().unwrap().is_none(), "never made");
        files.write(&zip, &listing).unwrap();
        let f = files.read().unwrap().unwrap();
        assert_eq!(f.sha256(), HexDigest::sha256(&zip));
        assert_eq!(f.bytes, zip);
        assert_eq!(f.listing, listing);

        // One changed byte, a cut file, a listing of another length: each says what is wrong.
        let mut changed = zip.clone();
        changed[40] ^= 1;
        std::fs::write(&files.zip, &changed).unwrap();
        let why = files.read().unwrap_err();
        assert!(
            why.starts_with("vendor fragment SHA-256 mismatch: expected "),
            "{why}"
        );
        std::fs::write(&files.zip, &zip[..zip.len() - 10]).unwrap();
        assert!(files.read().is_err());
        std::fs::write(&files.zip, &zip).unwrap();
        std::fs::write(&files.listing, format!("{listing}{listing}")).unwrap();
        let why = files.read().unwrap_err();
        assert!(
            why.contains("(2 lines) does not match its 1 entries"),
            "{why}"
        );
    }
}
