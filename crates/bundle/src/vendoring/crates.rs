//! Where each locked crate's files come from, in order: the project's own `vendor/` folder
//! (checked against its `.cargo-checksum.json`), the verified crate cache, cargo's download
//! cache, or the registry (`curl`); a `.crate` archive is verified against Cargo.lock and
//! unpacked as `cargo vendor` keeps it, and a stub keeps only its manifest and an empty library.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::lock::LockedCrate;
use super::VENDOR_DIR;
use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::fetch::{self, Found};
use ratios_base::layout::is_safe_relative;

/// Largest `.crate` archive accepted, and largest unpacked crate.
pub(super) const MAX_CRATE_BYTES: u64 = 32 << 20;
const MAX_UNPACKED_BYTES: u64 = 256 << 20;

/// Where crates are looked for.
#[derive(Debug, Clone)]
pub struct CrateSources {
    /// The project's own `vendor/` folder (present in an unpacked bundle).
    pub vendor_dir: PathBuf,
    /// The verified crate cache, also where fragments are kept.
    pub cache_dir: PathBuf,
    /// Cargo's download caches (`$CARGO_HOME/registry/cache/*`).
    pub cargo_caches: Vec<PathBuf>,
    /// Whether an archive found in none of them may be downloaded from crates.io (false
    /// under `--offline`).
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
pub type Files = BTreeMap<String, Vec<u8>>;

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
            ratios_base::note!(
                "warning: {}: does not match the SHA-256 that Cargo.lock pins for {}; not used",
                ratios_base::text::path(path),
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
    let bytes = fetch::download(&url, MAX_CRATE_BYTES, false).map_err(|e| match e {
        Error::Download { .. } => vendor_error(
            krate,
            format!("{e}; `cargo fetch --locked` puts every archive in cargo's cache, where the build finds it"),
        ),
        e => e,
    })?;
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

/// How many of `crates` no local place holds (their `vendor/` folder, the crate cache, cargo's
/// caches), so that a build can say before it downloads them.
pub(super) fn to_download(crates: &[LockedCrate], sources: &CrateSources) -> usize {
    crates
        .iter()
        .filter(|k| {
            let file = format!("{}.crate", k.dir());
            !sources
                .vendor_dir
                .join(k.dir())
                .join(".cargo-checksum.json")
                .is_file()
                && !std::iter::once(&sources.cache_dir)
                    .chain(&sources.cargo_caches)
                    .any(|c| c.join(&file).is_file())
        })
        .count()
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
        if !is_safe_relative(rel) || skipped(rel) {
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
    let Some(text) = fetch::read_text_if_readable(&checksum_file, MAX_CRATE_BYTES) else {
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
        if !is_safe_relative(rel) {
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
        .filter(|p| is_safe_relative(p))
        .unwrap_or_else(|| "src/lib.rs".into())
}

/// Top-level folders of a crate that a build of it as a dependency never compiles: cargo builds
/// only a dependency's library (and its build script), so its tests, benchmarks and examples
/// are left out of the bundle, and of its `.cargo-checksum.json` with them (cargo checks only
/// the files that lists). A file there that a kept source file includes
/// (`include_str!("../examples/x.rs")` as documentation, say) stays.
const UNBUILT: [&str; 3] = ["tests/", "benches/", "examples/"];

/// Leaves out the files under [`UNBUILT`] folders that no kept `.rs` file includes.
fn trim(files: &mut Files) {
    let unbuilt = |rel: &str| UNBUILT.iter().any(|d| rel.starts_with(d));
    let mut keep = std::collections::BTreeSet::new();
    for (rel, bytes) in files.iter() {
        if unbuilt(rel) || !rel.ends_with(".rs") {
            continue;
        }
        match included(rel, &String::from_utf8_lossy(bytes)) {
            Included::Paths(paths) => keep.extend(paths),
            // A path this reading cannot follow that names one of those folders: keep them all.
            Included::Unknown => return,
        }
    }
    files.retain(|rel, _| !unbuilt(rel) || keep.contains(rel.as_str()));
}

/// What one source file includes from the crate's folders.
#[derive(Debug, PartialEq, Eq)]
enum Included {
    /// The crate-relative paths of its string-literal `include!`, `include_str!` and
    /// `include_bytes!` arguments under an [`UNBUILT`] folder.
    Paths(Vec<String>),
    /// An include or `#[path]` whose argument is not a plain string literal, or is one this
    /// reading cannot resolve, and that mentions an [`UNBUILT`] folder.
    Unknown,
}

/// The files under [`UNBUILT`] folders that `source` (the crate's file `rel`) includes.
fn included(rel: &str, source: &str) -> Included {
    let mentions = |text: &str| UNBUILT.iter().any(|d| text.contains(&d[..d.len() - 1]));
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let mut paths = Vec::new();
    for (at, _) in source.match_indices("include") {
        let rest = &source[at + "include".len()..];
        let rest = ["_str!", "_bytes!", "!"]
            .iter()
            .find_map(|m| rest.strip_prefix(m));
        let Some(rest) = rest.map(str::trim_start).and_then(|r| r.strip_prefix('(')) else {
            continue;
        };
        let args = rest.split(')').next().unwrap_or(rest);
        let literal = args
            .trim()
            .strip_prefix('"')
            .and_then(|a| a.strip_suffix('"'))
            .filter(|a| !a.contains(['"', '\\']));
        match literal.and_then(|l| resolve(dir, l)) {
            Some(path) if UNBUILT.iter().any(|d| path.starts_with(d)) => paths.push(path),
            Some(_) => {}
            None if mentions(args) => return Included::Unknown,
            None => {}
        }
    }
    for (at, _) in source.match_indices("#[path") {
        let attr = source[at..].split(']').next().unwrap_or_default();
        if mentions(attr) {
            return Included::Unknown;
        }
    }
    Included::Paths(paths)
}

/// `path` taken from the folder `dir` (both crate-relative), `..` resolved; `None` when it
/// leaves the crate or is absolute.
fn resolve(dir: &str, path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
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
pub(super) fn vendored(krate: &LockedCrate, stub: bool, sources: &CrateSources) -> Result<Files> {
    let mut files = match from_vendor_dir(krate, &sources.vendor_dir)? {
        Some(f) => f,
        None => unpack(krate, &crate_archive(krate, sources)?)?,
    };
    if !stub {
        trim(&mut files);
    }
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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_dependency_keeps_only_what_its_library_builds_from() {
        let mut files: Files = [
            ("Cargo.toml", ""),
            ("README.md", ""),
            (
                "src/lib.rs",
                "#![doc = include_str!(\"../examples/css/parser.rs\")]\n",
            ),
            (
                "src/data.rs",
                "include!(concat!(env!(\"OUT_DIR\"), \"/t.rs\"));",
            ),
            ("examples/css/parser.rs", ""),
            ("examples/other.rs", ""),
            ("tests/it.rs", "include!(\"../src/lib.rs\");"),
            ("benches/b.rs", ""),
            ("testdata/x", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
        .collect();
        trim(&mut files);
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            [
                "Cargo.toml",
                "README.md",
                "examples/css/parser.rs",
                "src/data.rs",
                "src/lib.rs",
                "testdata/x"
            ]
        );
        // An include this reading cannot follow keeps every such folder whole.
        let mut files: Files = [
            (
                "src/lib.rs",
                "include_bytes!(concat!(\"../tests/\", \"x\"));",
            ),
            ("tests/x", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
        .collect();
        trim(&mut files);
        assert_eq!(files.len(), 2);
        assert_eq!(
            included("src/a/b.rs", "#[path = \"../../tests/x.rs\"] mod x;"),
            Included::Unknown
        );
        assert_eq!(resolve("src", "../../x"), None);
        assert_eq!(resolve("src/a", "../../tests/x"), Some("tests/x".into()));
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
