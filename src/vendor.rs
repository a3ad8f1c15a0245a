//! The Rust crates the program is built from, carried in the reproducibility bundle so that a
//! reader builds it with an empty cargo home and no network: `vendor/<name>-<version>/`, laid out
//! as `cargo vendor --versioned-dirs` does (every file, and a `.cargo-checksum.json` with the
//! SHA-256 of each file and of the `.crate` archive), and a `.cargo/config.toml` pointing cargo
//! at it.
//!
//! Each crate is pinned by the SHA-256 that Cargo.lock records for it. Its files come from, in
//! order: the project's own `vendor/` folder (an unpacked bundle has one; each file is checked
//! against the folder's `.cargo-checksum.json`, whose package hash must be the lock's), the
//! verified crate cache `data/crates/`, cargo's own download cache, or the registry (`curl`).
//! Crates a Linux or macOS build of the program does not compile (other platforms, the tests and
//! benchmarks, the live preview) are carried as stubs: their `Cargo.toml` and an empty library,
//! so that cargo resolves the same Cargo.lock. Which ones is pinned by `data/vendor.json`.
//!
//! The vendored part depends only on Cargo.lock, the plan, the bundle's folder name and its
//! timestamp, so it is made once (compressed at the best level) into a zip fragment kept in
//! `data/crates/`, which each bundle copies raw, in one block, as its first entries; the block's
//! SHA-256 state is computed on a second core while the build verifies its inputs, and the
//! bundle's digest continues from it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::fetch::{self, Found};
use crate::inputs::HexDigest;

/// Where the stub plan lives in the project.
pub const PLAN_PATH: &str = "data/vendor.json";
/// Folder of the vendored crates inside the bundle.
pub const VENDOR_DIR: &str = "vendor";
/// Default crate cache, relative to the project root.
pub const DEFAULT_CRATE_CACHE: &str = "data/crates";
/// The cargo configuration the bundle carries.
pub const CARGO_CONFIG_PATH: &str = ".cargo/config.toml";
pub const CARGO_CONFIG: &str = include_str!("../templates/bundle/cargo-config.toml");
/// Version of the fragment's layout; a change makes every cached fragment stale.
const FRAGMENT_FORMAT: &str = "scenario-ratios vendor fragment 2";
/// Largest `.crate` archive accepted, and largest unpacked crate.
const MAX_CRATE_BYTES: u64 = 32 << 20;
const MAX_UNPACKED_BYTES: u64 = 256 << 20;
/// Largest vendor fragment read back from the cache.
const MAX_FRAGMENT_BYTES: u64 = 64 << 20;
/// Room a fragment's buffer keeps after its bytes for the rest of the bundle (our entries
/// compress to under a megabyte), so that the bundle grows in place.
const BUNDLE_ROOM: usize = 4 << 20;

/// A registry crate as Cargo.lock pins it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockedCrate {
    pub name: String,
    pub version: String,
    /// SHA-256 of the `.crate` archive.
    pub checksum: HexDigest,
}

impl LockedCrate {
    /// `<name>-<version>`: the archive's stem and the vendored folder's name.
    pub fn dir(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }

    /// `<name> <version>`, as the plan lists stubs.
    pub fn id(&self) -> String {
        format!("{} {}", self.name, self.version)
    }
}

/// The registry crates of a Cargo.lock, sorted.
pub fn locked_crates(lock_text: &str) -> Result<Vec<LockedCrate>> {
    #[derive(Deserialize)]
    struct Lock {
        #[serde(default)]
        package: Vec<Package>,
    }
    #[derive(Deserialize)]
    struct Package {
        name: String,
        version: String,
        source: Option<String>,
        checksum: Option<String>,
    }
    let err = |m: String| Error::Config {
        file: "Cargo.lock".into(),
        message: m,
    };
    let lock: Lock = basic_toml::from_str(lock_text).map_err(|e| err(e.to_string()))?;
    let mut crates = Vec::new();
    for p in lock.package {
        let Some(source) = p.source else { continue };
        if !source.starts_with("registry+") {
            return Err(err(format!(
                "{} {} comes from {source}; only registry crates can be vendored",
                p.name, p.version
            )));
        }
        let checksum = p
            .checksum
            .as_deref()
            .and_then(HexDigest::parse_sha256)
            .ok_or_else(|| err(format!("{} {} has no SHA-256 checksum", p.name, p.version)))?;
        let safe = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
        };
        if !safe(&p.name) || !safe(&p.version) {
            return Err(err(format!(
                "unexpected crate name or version {:?}",
                p.name
            )));
        }
        crates.push(LockedCrate {
            name: p.name,
            version: p.version,
            checksum,
        });
    }
    crates.sort();
    Ok(crates)
}

/// `data/vendor.json`: the platforms the offline rebuild covers and the crates carried as stubs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub about: String,
    pub platforms: Vec<String>,
    pub stubs: BTreeSet<String>,
}

impl Plan {
    pub fn parse(file: &str, text: &str) -> Result<Plan> {
        serde_json::from_str(text).map_err(|e| Error::Config {
            file: file.into(),
            message: e.to_string(),
        })
    }
}

/// Where crates are looked for.
#[derive(Debug, Clone)]
pub struct CrateSources {
    /// The project's own `vendor/` folder (present in an unpacked bundle).
    pub vendor_dir: PathBuf,
    /// The verified crate cache, also where fragments are kept.
    pub cache_dir: PathBuf,
    /// Cargo's download caches (`$CARGO_HOME/registry/cache/*`).
    pub cargo_caches: Vec<PathBuf>,
    pub allow_download: bool,
}

impl CrateSources {
    /// The usual places for the project at `root`: its `vendor/`, `data/crates/`, and the
    /// registry caches of `$CARGO_HOME` (default `~/.cargo`).
    pub fn for_project(root: &Path, cache_dir: PathBuf, allow_download: bool) -> Self {
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
        let cargo_caches = home
            .map(|h| h.join("registry/cache"))
            .and_then(|c| std::fs::read_dir(c).ok())
            .map(|d| {
                let mut v: Vec<PathBuf> = d.flatten().map(|e| e.path()).collect();
                v.sort();
                v
            })
            .unwrap_or_default();
        CrateSources {
            vendor_dir: root.join(VENDOR_DIR),
            cache_dir,
            cargo_caches,
            allow_download,
        }
    }
}

/// One vendored file: its path inside the crate's folder and its bytes.
type Files = BTreeMap<String, Vec<u8>>;

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
    pub listing: String,
    pub block: Block,
}

/// How long a fragment's entries are (all its bytes before its central directory, which a
/// bundle keeps as its first bytes) and their SHA-256 so far, computed on the second core: the
/// bundle's digest continues from it rather than hashing those megabytes again.
#[derive(Debug, Clone)]
pub struct Block {
    pub len: usize,
    pub sha256: Sha256,
}

fn vendor_error(krate: &LockedCrate, message: impl Into<String>) -> Error {
    Error::Acquire {
        name: format!("crate {}", krate.id()),
        message: message.into(),
    }
}

/// The `.crate` archive of `krate`, verified against its lock checksum: from the crate cache,
/// cargo's cache, or the registry.
fn crate_archive(krate: &LockedCrate, sources: &CrateSources) -> Result<Vec<u8>> {
    let file = format!("{}.crate", krate.dir());
    let cached = sources.cache_dir.join(&file);
    let mut tried = vec![cached.display().to_string()];
    let mut candidates = vec![cached.clone()];
    for c in &sources.cargo_caches {
        candidates.push(c.join(&file));
        tried.push(c.join(&file).display().to_string());
    }
    for path in &candidates {
        if let Found::Bytes(bytes) = read_capped(path)? {
            if HexDigest::sha256(&bytes) == krate.checksum {
                return Ok(bytes);
            }
            eprintln!(
                "warning: {}: does not match the SHA-256 that Cargo.lock pins for {}; not used",
                crate::format::path(path),
                krate.id()
            );
        }
    }
    if !sources.allow_download {
        return Err(vendor_error(
            krate,
            format!(
                "not in {} and downloads are disabled (run `cargo fetch --locked`, or build without --offline)",
                tried.join(" nor ")
            ),
        ));
    }
    let url = format!("https://static.crates.io/crates/{}/{}", krate.name, file);
    let bytes = fetch::download(&url, MAX_CRATE_BYTES, false)?;
    let actual = HexDigest::sha256(&bytes);
    if actual != krate.checksum {
        return Err(Error::Mismatch {
            file: url,
            name: krate.id(),
            what: "SHA-256",
            expected: krate.checksum.to_string(),
            actual: actual.to_string(),
        });
    }
    fetch::store(&cached, &bytes)?;
    Ok(bytes)
}

fn read_capped(path: &Path) -> Result<Found> {
    let size = match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() <= MAX_CRATE_BYTES => m.len(),
        Ok(_) => return Ok(Found::NotAFile),
        Err(_) => return Ok(Found::Missing),
    };
    fetch::read_expected(path, size).map_err(|e| Error::io(path, e))
}

/// Files of the `.crate` archive as cargo vendor keeps them: regular files under
/// `<name>-<version>/`, without the files cargo writes or that only serve version control.
fn unpack(krate: &LockedCrate, archive: &[u8]) -> Result<Files> {
    let prefix = format!("{}/", krate.dir());
    let mut files = Files::new();
    let mut total = 0u64;
    let gz = flate2::read::GzDecoder::new(archive);
    let mut tar = tar::Archive::new(gz);
    let entries = tar
        .entries()
        .map_err(|e| vendor_error(krate, format!("not a .crate archive: {e}")))?;
    for entry in entries {
        let mut entry =
            entry.map_err(|e| vendor_error(krate, format!("broken .crate archive: {e}")))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry
            .path()
            .map_err(|e| vendor_error(krate, format!("bad path in .crate: {e}")))?
            .to_string_lossy()
            .replace('\\', "/");
        let Some(rel) = path.strip_prefix(&prefix) else {
            return Err(vendor_error(
                krate,
                format!("{path:?} lies outside {prefix}"),
            ));
        };
        if !crate::layout::is_safe_relative(rel) || skipped(rel) {
            continue;
        }
        let size = entry.header().size().unwrap_or(u64::MAX);
        total = total.saturating_add(size);
        if total > MAX_UNPACKED_BYTES {
            return Err(vendor_error(krate, "unpacks to more than 256 MiB"));
        }
        let mut bytes = Vec::with_capacity(size.min(1 << 20) as usize);
        (&mut entry)
            .take(size.min(MAX_UNPACKED_BYTES) + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| vendor_error(krate, format!("cannot read {rel}: {e}")))?;
        files.insert(rel.to_string(), bytes);
    }
    if !files.contains_key("Cargo.toml") {
        return Err(vendor_error(krate, "the .crate archive has no Cargo.toml"));
    }
    Ok(files)
}

/// Files a vendored crate leaves out, as `cargo vendor` does: version-control files at its top
/// and the archive's marker files.
fn skipped(rel: &str) -> bool {
    matches!(
        rel,
        ".gitattributes" | ".gitignore" | ".cargo-ok" | ".cargo_vcs_info.json" | "Cargo.toml.orig"
    ) || rel.starts_with(".git/")
}

/// The crate's files from the project's own `vendor/` folder, when it holds this crate with the
/// lock's checksum and every file matches its recorded hash.
fn from_vendor_dir(krate: &LockedCrate, dir: &Path) -> Result<Option<Files>> {
    let folder = dir.join(krate.dir());
    let checksum_file = folder.join(".cargo-checksum.json");
    let Some(text) = crate::fetch::read_text_if_readable(&checksum_file, MAX_CRATE_BYTES) else {
        return Ok(None);
    };
    #[derive(Deserialize)]
    struct Checksums {
        files: BTreeMap<String, String>,
        package: Option<String>,
    }
    let sums: Checksums = serde_json::from_str(&text)
        .map_err(|e| vendor_error(krate, format!("{}: {e}", checksum_file.display())))?;
    if sums.package.as_deref() != Some(krate.checksum.as_str()) {
        return Err(vendor_error(
            krate,
            format!(
                "{} records another package hash than Cargo.lock",
                checksum_file.display()
            ),
        ));
    }
    let mut files = Files::new();
    for (rel, hex) in &sums.files {
        if !crate::layout::is_safe_relative(rel) {
            return Err(vendor_error(
                krate,
                format!("unsafe path {rel:?} in .cargo-checksum.json"),
            ));
        }
        let path = folder.join(rel);
        let bytes = match read_capped(&path)? {
            Found::Bytes(b) => b,
            _ => {
                return Err(vendor_error(
                    krate,
                    format!("{} is missing", path.display()),
                ))
            }
        };
        if HexDigest::sha256(&bytes).as_str() != hex {
            return Err(vendor_error(
                krate,
                format!("{} does not match .cargo-checksum.json", path.display()),
            ));
        }
        files.insert(rel.clone(), bytes);
    }
    Ok(Some(files))
}

/// Where a crate's manifest puts its library: `[lib] path`, else `src/lib.rs`.
fn stub_lib_path(manifest: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Manifest {
        lib: Option<Lib>,
    }
    #[derive(Deserialize)]
    struct Lib {
        path: Option<String>,
    }
    std::str::from_utf8(manifest)
        .ok()
        .and_then(|t| basic_toml::from_str::<Manifest>(t).ok())
        .and_then(|m| m.lib?.path)
        .filter(|p| crate::layout::is_safe_relative(p))
        .unwrap_or_else(|| "src/lib.rs".into())
}

/// `.cargo-checksum.json` for `files` (sorted keys, compact, as cargo reads it).
fn checksum_json(krate: &LockedCrate, files: &Files) -> Vec<u8> {
    let map: BTreeMap<&str, String> = files
        .iter()
        .map(|(k, v)| (k.as_str(), HexDigest::sha256(v).to_string()))
        .collect();
    let doc = serde_json::json!({ "files": map, "package": krate.checksum.as_str() });
    let mut out = doc.to_string().into_bytes();
    out.push(b'\n');
    out
}

/// The vendored folder of one crate: its files (all, or only Cargo.toml for a stub) and its
/// `.cargo-checksum.json`.
fn vendored(krate: &LockedCrate, stub: bool, sources: &CrateSources) -> Result<Files> {
    let mut files = match from_vendor_dir(krate, &sources.vendor_dir)? {
        Some(f) => f,
        None => unpack(krate, &crate_archive(krate, sources)?)?,
    };
    if stub {
        files.retain(|rel, _| rel == "Cargo.toml");
        // Cargo parses a stub's manifest but never builds it; the manifest must still name a
        // library target, so the stub gets an empty one where the manifest looks for it.
        let lib = stub_lib_path(
            files
                .get("Cargo.toml")
                .map(Vec::as_slice)
                .unwrap_or_default(),
        );
        files.insert(lib, Vec::new());
    }
    let checksum = checksum_json(krate, &files);
    files.insert(".cargo-checksum.json".into(), checksum);
    Ok(files)
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
    let time = crate::package::zip_time(source_date_epoch)?;
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
        Err(why) => eprintln!(
            "warning: {}: {why}; making it again",
            crate::format::path(&files.zip)
        ),
    }
    let crates = locked_crates(lock_text)?;
    let unknown: Vec<&String> = plan
        .stubs
        .iter()
        .filter(|s| !crates.iter().any(|c| &c.id() == *s))
        .collect();
    if !unknown.is_empty() {
        eprintln!(
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
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9))
        .last_modified_time(time)
        .unix_permissions(0o644);
    let fail = |e: String| Error::invalid("vendor fragment", e);
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut listing = String::new();
    for krate in &crates {
        let stub = plan.stubs.contains(&krate.id());
        for (rel, bytes) in vendored(krate, stub, sources)? {
            let name = format!("{prefix}{VENDOR_DIR}/{}/{rel}", krate.dir());
            crate::package::check_entry_path(&name)?;
            w.start_file(name.as_str(), options)
                .map_err(|e| fail(e.to_string()))?;
            w.write_all(&bytes).map_err(|e| fail(e.to_string()))?;
            listing.push_str(&format!(
                "{}  {VENDOR_DIR}/{}/{rel}\n",
                HexDigest::sha256(&bytes),
                krate.dir()
            ));
        }
    }
    let zip = w.finish().map_err(|e| fail(e.to_string()))?.into_inner();
    files.write(&zip, &listing)?;
    drop(zip);
    // Read back as every later build reads it, so that the block is hashed from the bytes merged.
    match files.read() {
        Ok(Some(f)) => Ok(f),
        Ok(None) => Err(Error::invalid(
            files.zip.display().to_string(),
            "the vendor fragment just written does not read back",
        )),
        Err(why) => Err(Error::invalid(files.zip.display().to_string(), why)),
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
        let Some(recorded) = crate::fetch::read_text_if_readable(&self.digest, 200) else {
            return Ok(None);
        };
        let expected = recorded
            .split_once("  ")
            .and_then(|(d, _)| HexDigest::parse_sha256(d))
            .ok_or("its recorded SHA-256 is not a sha256sum line")?;
        let bytes = fetch::read_file_with_room(&self.zip, MAX_FRAGMENT_BYTES, BUNDLE_ROOM)
            .map_err(|e| format!("missing or unreadable ({e})"))?
            .ok_or(format!("larger than {MAX_FRAGMENT_BYTES} bytes"))?;
        let listing = crate::fetch::read_text_if_readable(&self.listing, MAX_CRATE_BYTES)
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
        let tail = crate::archive::tail(&bytes)?;
        let lines = listing.bytes().filter(|&b| b == b'\n').count();
        let under_vendor = listing
            .lines()
            .next()
            .and_then(|l| l.split_once("  "))
            .is_some_and(|(_, p)| p.starts_with(&format!("{VENDOR_DIR}/")));
        if usize::try_from(tail.entries).ok() != Some(lines)
            || !listing.ends_with('\n')
            || !under_vendor
        {
            return Err(format!(
                "its listing ({lines} lines) does not match its {} entries under {VENDOR_DIR}/",
                tail.entries
            ));
        }
        let block = Block {
            len: tail.dir_start,
            sha256: Sha256::new_with_prefix(&bytes[..tail.dir_start]),
        };
        Ok(Fragment {
            bytes,
            path,
            listing,
            block,
        })
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

    #[test]
    fn the_lock_is_read_and_checked() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n\n[[package]]\nname = \"local\"\nversion = \"0.1.0\"\n";
        let c = locked_crates(lock).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].dir(), "a-1.0.0");
        let git = lock.replace("registry+https", "git+https");
        assert!(locked_crates(&git)
            .unwrap_err()
            .to_string()
            .contains("only registry crates"));
        let no_sum = lock.replace(
            "checksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n",
            "",
        );
        assert!(locked_crates(&no_sum).is_err());
    }

    #[test]
    fn a_crate_archive_unpacks_as_cargo_vendor_keeps_it() {
        // A .crate made here: a gzip'd tar of `demo-0.1.0/...`.
        let mut tar = tar::Builder::new(Vec::new());
        for (path, body) in [
            (
                "demo-0.1.0/Cargo.toml",
                &b"[package]\nname = \"demo\"\n"[..],
            ),
            ("demo-0.1.0/Cargo.toml.orig", b"orig"),
            ("demo-0.1.0/.cargo_vcs_info.json", b"{}"),
            ("demo-0.1.0/src/lib.rs", b"pub fn f() {}\n"),
        ] {
            let mut h = tar::Header::new_gnu();
            h.set_size(body.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            tar.append_data(&mut h, path, body).unwrap();
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&tar.into_inner().unwrap()).unwrap();
        let archive = gz.finish().unwrap();
        let krate = LockedCrate {
            name: "demo".into(),
            version: "0.1.0".into(),
            checksum: HexDigest::sha256(&archive),
        };
        let files = unpack(&krate, &archive).unwrap();
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            ["Cargo.toml", "src/lib.rs"]
        );
        let json: serde_json::Value =
            serde_json::from_slice(&checksum_json(&krate, &files)).unwrap();
        assert_eq!(json["package"], krate.checksum.as_str());
        assert_eq!(
            json["files"]["src/lib.rs"],
            HexDigest::sha256(b"pub fn f() {}\n").as_str()
        );

        // Written out as a vendor folder, the same crate is read back from it, file by file;
        // one changed byte is refused.
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("demo-0.1.0");
        for (rel, bytes) in files.iter().chain([(
            &".cargo-checksum.json".to_string(),
            &checksum_json(&krate, &files),
        )]) {
            let p = folder.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        assert_eq!(from_vendor_dir(&krate, dir.path()).unwrap().unwrap(), files);
        std::fs::write(folder.join("src/lib.rs"), b"pub fn g() {}\n").unwrap();
        assert!(from_vendor_dir(&krate, dir.path()).is_err());
    }
}
