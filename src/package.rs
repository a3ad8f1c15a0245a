//! Stage 7 of the pipeline: what a reader downloads and checks. `provenance.json` records where
//! every input came from; `reproducibility.zip` holds the pinned inputs, the source needed to
//! rebuild, the published outputs and an inventory of its own entries; `SHA256SUMS` covers every
//! file of `dist/` in the format of coreutils `sha256sum`.
//!
//! The zip is byte-reproducible: entries in sorted order, one fixed timestamp, fixed permissions,
//! relative paths only.

use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};
use std::path::Path;

use serde::Serialize;
use walkdir::WalkDir;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

use crate::error::{Error, Result};
use crate::evidence::CheckerFacts;
use crate::inputs::{is_safe_relative, HexDigest, Inputs};

/// Name of the bundle inside `dist/`.
pub const ZIP_NAME: &str = "reproducibility.zip";
/// Name of the checksum file inside `dist/`.
pub const SUMS_NAME: &str = "SHA256SUMS";
/// Name of the inventory inside the zip.
pub const INVENTORY_NAME: &str = "INVENTORY.sha256";
/// Folder of the published outputs inside the zip.
pub const PUBLISHED_DIR: &str = "published";
/// Folder of the pinned inputs inside the zip: the build's cache layout, so a plain
/// `cargo run --release` in the unpacked folder finds them verified, with no mirror or network.
pub const INPUTS_DIR: &str = "data/cache";

/// Files and folders of the project that the bundle carries (what a rebuild needs).
pub const SOURCE_PATHS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "askama.toml",
    "src",
    "benches",
    "examples",
    "templates",
    "content",
    "data/inputs.json",
    "sources",
];

/// One input as `provenance.json` records it.
#[derive(Debug, Serialize)]
pub struct InputProvenance<'a> {
    pub name: &'a str,
    pub kind: crate::inputs::InputKind,
    pub repository: &'a str,
    pub commit: &'a str,
    pub path: &'a str,
    pub url: &'a str,
    pub size: u64,
    /// Computed from the bytes.
    pub sha256: HexDigest,
    /// Computed from the bytes: `sha1("blob <len>\0" + bytes)`.
    pub git_blob_sha1: HexDigest,
    pub acquired: &'a str,
    pub license: &'a str,
    /// Where the file sits inside the reproducibility bundle.
    pub bundle_path: String,
}

#[derive(Serialize)]
struct Project<'a> {
    name: &'a str,
    version: &'a str,
}

#[derive(Serialize)]
struct Provenance<'a> {
    project: Project<'a>,
    /// Timestamp of every zip entry (seconds since the Unix epoch).
    source_date_epoch: i64,
    inputs: Vec<InputProvenance<'a>>,
    checker_facts: &'a crate::evidence::FactSource,
}

/// Where an input lives inside the bundle.
pub fn bundle_path(pin: &crate::inputs::PinnedInput) -> String {
    format!("{INPUTS_DIR}/{}", pin.cache_path().to_string_lossy())
}

/// `provenance.json`.
pub fn provenance(
    inputs: &Inputs,
    facts: &CheckerFacts,
    source_date_epoch: i64,
) -> Result<Vec<u8>> {
    let doc = Provenance {
        project: Project {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
        },
        source_date_epoch,
        inputs: inputs
            .files
            .iter()
            .map(|f| InputProvenance {
                name: &f.pin.name,
                kind: f.pin.kind,
                repository: &f.pin.repository,
                commit: &f.pin.commit,
                path: &f.pin.path,
                url: &f.pin.url,
                size: f.bytes.len() as u64,
                sha256: f.sha256.clone(),
                git_blob_sha1: f.git_blob_sha1.clone(),
                acquired: &f.pin.acquired,
                license: &f.pin.license,
                bundle_path: bundle_path(&f.pin),
            })
            .collect(),
        checker_facts: &facts.source,
    };
    let mut bytes = serde_json::to_vec_pretty(&doc)
        .map_err(|e| Error::invalid("provenance.json", e.to_string()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Minimal matcher for the project's `.gitignore` (anchored paths, `*` within a name, trailing `/`).
struct GitIgnore {
    patterns: Vec<(String, bool)>,
}

impl GitIgnore {
    fn read(root: &Path) -> Self {
        let text = std::fs::read_to_string(root.join(".gitignore")).unwrap_or_default();
        let patterns = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let dir_only = l.ends_with('/');
                (l.trim_matches('/').to_string(), dir_only)
            })
            .collect();
        GitIgnore { patterns }
    }

    fn ignores(&self, rel: &str, is_dir: bool) -> bool {
        self.patterns.iter().any(|(p, dir_only)| {
            (!dir_only || is_dir)
                && if p.contains('/') {
                    glob(p, rel)
                } else {
                    rel.split('/').any(|part| glob(p, part))
                }
        })
    }
}

/// `*` matches any run of characters other than `/`.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => {
            text.starts_with(head)
                && (head.len()..=text.len())
                    .any(|i| !text[head.len()..i].contains('/') && glob(tail, &text[i..]))
        }
    }
}

/// The project's own files that the bundle carries, read from `root`, sorted by path.
pub fn source_files(root: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let manifest = root.join("Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).map_err(|e| {
        Error::invalid(
            manifest.display().to_string(),
            format!(
                "cannot read the project's Cargo.toml ({e}); run the build from the project folder"
            ),
        )
    })?;
    if !toml.contains(&format!("name = \"{}\"", env!("CARGO_PKG_NAME"))) {
        return Err(Error::invalid(
            manifest.display().to_string(),
            format!(
                "not the {} project; run the build from the project folder",
                env!("CARGO_PKG_NAME")
            ),
        ));
    }
    let ignore = GitIgnore::read(root);
    let mut files = BTreeMap::new();
    for top in SOURCE_PATHS {
        let start = root.join(top);
        let walker = WalkDir::new(&start).sort_by_file_name().into_iter();
        for entry in walker.filter_entry(|e| {
            let rel = e.path().strip_prefix(root).unwrap_or(e.path());
            let rel = rel.to_string_lossy().replace('\\', "/");
            !ignore.ignores(&rel, e.file_type().is_dir())
        }) {
            let entry = entry.map_err(|e| {
                Error::invalid(start.display().to_string(), format!("cannot walk: {e}"))
            })?;
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(root)
                .map_err(|_| {
                    Error::invalid(entry.path().display().to_string(), "outside the project")
                })?
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = std::fs::read(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
            files.insert(rel, bytes);
        }
    }
    Ok(files)
}

/// A zip timestamp from Unix seconds (UTC), clamped to the zip format's range.
fn zip_time(epoch: i64) -> Result<DateTime> {
    let days = epoch.div_euclid(86_400);
    let secs = epoch.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year = year.clamp(1980, 2107);
    DateTime::from_date_and_time(
        year as u16,
        month as u8,
        day as u8,
        (secs / 3600) as u8,
        (secs % 3600 / 60) as u8,
        (secs % 60) as u8,
    )
    .map_err(|_| {
        Error::invalid(
            "SOURCE_DATE_EPOCH",
            format!("{epoch} is outside the zip date range"),
        )
    })
}

/// The sha256sum-format listing of `files` (sorted by path).
pub fn sums<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut lines: Vec<(String, String)> = files
        .into_iter()
        .map(|(p, b)| (p.to_string(), HexDigest::sha256(b).to_string()))
        .collect();
    lines.sort();
    lines
        .into_iter()
        .map(|(p, h)| format!("{h}  {p}\n"))
        .collect()
}

/// Parses a sha256sum listing into (path, hex) pairs; `file` names it in errors.
pub fn parse_sums(file: &str, text: &str) -> Result<Vec<(String, String)>> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let (hex, path) = line.split_once("  ").ok_or_else(|| {
                Error::parse(
                    file,
                    format!("line {}", i + 1),
                    "expected `<sha256>  <path>`",
                )
            })?;
            if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::parse(
                    file,
                    format!("line {}", i + 1),
                    "expected a 64-digit SHA-256",
                ));
            }
            Ok((path.to_string(), hex.to_string()))
        })
        .collect()
}

/// Builds `reproducibility.zip` from every entry, plus its inventory.
pub fn bundle(entries: &BTreeMap<String, Vec<u8>>, source_date_epoch: i64) -> Result<Vec<u8>> {
    let fail = |e: zip::result::ZipError| Error::invalid(ZIP_NAME, e.to_string());
    let time = zip_time(source_date_epoch)?;
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(1))
        .last_modified_time(time)
        .unix_permissions(0o644);
    let mut all: Vec<(&str, &[u8])> = entries
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_slice()))
        .collect();
    let inventory = sums(all.iter().copied());
    all.push((INVENTORY_NAME, inventory.as_bytes()));
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in all {
        if !is_safe_relative(name) {
            return Err(Error::invalid(
                ZIP_NAME,
                format!("unsafe entry path {name:?}"),
            ));
        }
        zip.start_file(name, options).map_err(fail)?;
        zip.write_all(bytes)
            .map_err(|e| Error::invalid(ZIP_NAME, e.to_string()))?;
    }
    Ok(zip.finish().map_err(fail)?.into_inner())
}

/// Every entry of a zip with its bytes, each entry's CRC checked while reading.
pub fn read_zip(name: &str, bytes: &[u8]) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut archive = ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| Error::invalid(name, format!("not a readable zip: {e}")))?;
    let mut out = BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive
            .by_index(i)
            .map_err(|e| Error::invalid(name, format!("entry {i}: {e}")))?;
        let entry = file
            .name()
            .map_err(|e| Error::invalid(name, format!("entry {i}: {e}")))?
            .to_string();
        if !is_safe_relative(&entry) {
            return Err(Error::invalid(name, format!("unsafe entry path {entry:?}")));
        }
        let mut data = Vec::with_capacity(file.size() as usize);
        file.read_to_end(&mut data)
            .map_err(|e| Error::invalid(format!("{name}: {entry}"), format!("cannot read: {e}")))?;
        if out.insert(entry.clone(), data).is_some() {
            return Err(Error::invalid(
                name,
                format!("entry {entry:?} appears twice"),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_gitignore_patterns() {
        let ig = GitIgnore {
            patterns: vec![
                ("target".into(), true),
                ("data/cache".into(), true),
                ("dist.tmp-*".into(), true),
                ("*.bak".into(), false),
            ],
        };
        assert!(ig.ignores("target", true));
        assert!(ig.ignores("data/cache", true));
        assert!(!ig.ignores("data/inputs.json", false));
        assert!(ig.ignores("dist.tmp-123", true));
        assert!(ig.ignores("src/x.bak", false));
        assert!(!ig.ignores("src/main.rs", false));
        assert!(!ig.ignores("target", false), "dir-only pattern");
    }

    #[test]
    fn zip_time_matches_the_calendar() {
        // 2026-11-30T00:00:00Z = 1795996800 (`date -u -d 2026-11-30 +%s`).
        let t = zip_time(1_795_996_800).unwrap();
        assert_eq!((t.year(), t.month(), t.day(), t.hour()), (2026, 11, 30, 0));
        let t = zip_time(951_782_400 + 3661).unwrap(); // 2000-02-29T01:01:01Z
        assert_eq!((t.year(), t.month(), t.day(), t.minute()), (2000, 2, 29, 1));
    }

    #[test]
    fn bundles_are_byte_identical_and_readable() {
        let mut e = BTreeMap::new();
        e.insert("b/x.txt".to_string(), b"x".to_vec());
        e.insert("a.txt".to_string(), b"aaaa".to_vec());
        let one = bundle(&e, 1_795_996_800).unwrap();
        assert_eq!(one, bundle(&e, 1_795_996_800).unwrap());
        assert_ne!(
            one,
            bundle(&e, 1_795_996_802).unwrap(),
            "the timestamp is recorded"
        );
        let back = read_zip("t.zip", &one).unwrap();
        let names: Vec<_> = back.keys().cloned().collect();
        assert_eq!(names, ["INVENTORY.sha256", "a.txt", "b/x.txt"]);
        assert_eq!(
            parse_sums(
                "inv",
                std::str::from_utf8(&back["INVENTORY.sha256"]).unwrap()
            )
            .unwrap(),
            vec![
                ("a.txt".to_string(), HexDigest::sha256(b"aaaa").to_string()),
                ("b/x.txt".to_string(), HexDigest::sha256(b"x").to_string())
            ]
        );
    }

    #[test]
    fn sums_use_the_sha256sum_format() {
        let s = sums([("b", &b""[..]), ("a", &b"abc"[..])]);
        assert_eq!(
            s,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a\n\
             e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b\n"
        );
    }
}
