//! Stage 7 of the pipeline: what a reader downloads and checks. `provenance.json` records where
//! every input came from; `reproducibility.zip` holds the pinned inputs, the source needed to
//! rebuild, the published outputs and an inventory of its own entries; `SHA256SUMS` covers every
//! file of `dist/` in the format of coreutils `sha256sum`.
//!
//! The zip is byte-reproducible: entries in sorted order, one fixed timestamp, fixed permissions,
//! relative paths only.

use std::collections::BTreeMap;
use std::io::{Cursor, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use walkdir::WalkDir;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use crate::error::{Error, Result};
use crate::evidence::facts::CheckerFacts;
use crate::inputs::{HexDigest, Inputs};
use crate::layout::{is_safe_relative, OutputFile, INPUTS_DIR, INVENTORY};

const BUNDLE: &str = OutputFile::Bundle.path();

/// One input as `provenance.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputProvenance {
    pub name: String,
    pub kind: crate::inputs::InputKind,
    pub repository: String,
    pub commit: String,
    pub path: String,
    pub url: String,
    pub size: u64,
    /// Computed from the bytes.
    pub sha256: HexDigest,
    /// Computed from the bytes: `sha1("blob <len>\0" + bytes)`.
    pub git_blob_sha1: HexDigest,
    pub acquired: String,
    pub license: String,
    /// Where the file sits inside the reproducibility bundle.
    pub bundle_path: String,
}

/// The generator that wrote a provenance file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectId {
    pub name: String,
    pub version: String,
}

/// `provenance.json`: where every input came from, and the timestamp of the bundle.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub project: ProjectId,
    /// Timestamp of every zip entry (seconds since the Unix epoch).
    pub source_date_epoch: i64,
    pub inputs: Vec<InputProvenance>,
    pub checker_facts: crate::evidence::facts::FactSource,
}

#[derive(askama::Template)]
#[template(path = "bundle/README.md", escape = "none")]
struct BundleReadme<'a> {
    folder: String,
    title: &'a str,
    url: &'a str,
    rust_version: &'a str,
    python_version: String,
    nbval_python_version: &'a str,
    round: &'a str,
    tool: &'a str,
    inputs: usize,
    licences: String,
    platforms: String,
}

/// The bundle's README, for a reader of the bundle.
pub fn bundle_readme(
    config: &crate::config::ArticleConfig,
    round: &str,
    manifest: &crate::inputs::InputManifest,
    plan: &crate::vendor::Plan,
) -> Result<Vec<u8>> {
    askama::Template::render(&BundleReadme {
        folder: crate::layout::bundle_folder(),
        title: &config.title,
        url: &config.canonical_url,
        rust_version: env!("CARGO_PKG_RUST_VERSION"),
        python_version: crate::notebook::min_python(),
        nbval_python_version: crate::notebook::NBVAL_MIN_PYTHON,
        round,
        tool: crate::TOOL,
        inputs: manifest.inputs.len(),
        licences: manifest
            .licences()
            .iter()
            .map(|(id, _)| *id)
            .collect::<Vec<_>>()
            .join(", "),
        platforms: plan.platforms.join(", "),
    })
    .map(String::into_bytes)
    .map_err(|e| Error::invalid("templates/bundle/README.md", e.to_string()))
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
        project: ProjectId {
            name: env!("CARGO_PKG_NAME").into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        source_date_epoch,
        inputs: inputs
            .files
            .iter()
            .map(|f| InputProvenance {
                name: f.pin.name.clone(),
                kind: f.pin.kind,
                repository: f.pin.repository.clone(),
                commit: f.pin.commit.clone(),
                path: f.pin.path.clone(),
                url: f.pin.url.clone(),
                size: f.bytes.len() as u64,
                sha256: f.sha256.clone(),
                git_blob_sha1: f.git_blob_sha1.clone(),
                acquired: f.pin.acquired.clone(),
                license: f.pin.license.clone(),
                bundle_path: bundle_path(&f.pin),
            })
            .collect(),
        checker_facts: facts.source.clone(),
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
        let text = crate::fetch::read_text_if_readable(&root.join(".gitignore"), MAX_SOURCE_FILE)
            .unwrap_or_default();
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

/// The most bytes one project source file may hold, and all of them together: the bundle
/// carries them, and each is read whole.
pub const MAX_SOURCE_FILE: u64 = 4 << 20;
pub const MAX_SOURCE_TOTAL: u64 = 32 << 20;

/// The project's own files that the bundle carries, read from `root`, sorted by path: every file
/// under [`crate::layout::SOURCE_PATHS`] but those `.gitignore` names and scratch files (hidden
/// files, editor backups, Python caches; see [`crate::layout::is_scratch`]), so that opening the
/// notebook in Jupyter or saving in an editor never changes the bundle.
pub fn source_files(root: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    // The same test as the project loader's, so a wrong root never packs someone's folder.
    crate::project::check_is_project(root)?;
    let ignore = GitIgnore::read(root);
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    for top in crate::layout::SOURCE_PATHS {
        let start = root.join(top);
        let walker = WalkDir::new(&start).sort_by_file_name().into_iter();
        for entry in walker.filter_entry(|e| {
            let rel = e.path().strip_prefix(root).unwrap_or(e.path());
            let rel = rel.to_string_lossy().replace('\\', "/");
            let scratch =
                e.depth() > 0 && crate::layout::is_scratch(&e.file_name().to_string_lossy());
            !scratch && !ignore.ignores(&rel, e.file_type().is_dir())
        }) {
            let entry = entry.map_err(|e| {
                Error::invalid(start.display().to_string(), format!("cannot walk: {e}"))
            })?;
            if entry.path_is_symlink() {
                return Err(crate::project::symlink_refused(root, entry.path()));
            }
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
            let bytes = match read_source(entry.path(), MAX_SOURCE_FILE) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
                    return Err(Error::invalid(
                        rel,
                        format!("larger than {MAX_SOURCE_FILE} bytes, the most a project source file may hold (the bundle carries every file under {top}/ that .gitignore does not name)"),
                    ))
                }
                Err(e) => return Err(Error::io(entry.path(), e)),
            };
            total += bytes.len() as u64;
            if total > MAX_SOURCE_TOTAL {
                return Err(Error::invalid(
                    rel,
                    format!("the project's source files pass {MAX_SOURCE_TOTAL} bytes together, the most the bundle carries"),
                ));
            }
            files.insert(rel, bytes);
        }
    }
    Ok(files)
}

/// Reads a source file of at most `max` bytes (an error of kind `FileTooLarge` otherwise).
fn read_source(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    crate::fetch::read_file(path, max)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::FileTooLarge))
}

/// A zip timestamp from Unix seconds (UTC). A zip entry stores a local date from 1980-01-01 to
/// 2107-12-31 in steps of two seconds; any other value is refused rather than silently changed,
/// so the bundle and provenance.json always state the same time.
pub fn zip_time(epoch: i64) -> Result<DateTime> {
    let refuse =
        |why: &str| Error::invalid("SOURCE_DATE_EPOCH", format!("{epoch} {why}; {ZIP_RANGE}"));
    if let Some(why) = zip_time_problem(epoch) {
        return Err(refuse(why));
    }
    let (date, (hh, mm, ss)) = crate::calendar::civil_from_epoch(epoch);
    DateTime::from_date_and_time(
        date.0 as u16,
        date.1 as u8,
        date.2 as u8,
        hh as u8,
        mm as u8,
        ss as u8,
    )
    .map_err(|_| refuse("is outside the zip date range"))
}

/// What a zip can store, for the lines that refuse a time.
pub const ZIP_RANGE: &str =
    "a zip stores even seconds from 1980-01-01 to 2107-12-31 (315532800 to 4354819198)";

/// Why a zip cannot store the time `epoch` (Unix seconds), if it cannot.
pub fn zip_time_problem(epoch: i64) -> Option<&'static str> {
    let (date, (_, _, ss)) = crate::calendar::civil_from_epoch(epoch);
    if !(1980..=2107).contains(&date.0) {
        return Some("is outside the zip date range");
    }
    if ss % 2 != 0 {
        return Some("is an odd number of seconds");
    }
    None
}

/// The sha256sum-format listing of `files` (sorted by path).
pub fn sums<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let digests: Vec<(&str, HexDigest)> = files
        .into_iter()
        .map(|(p, b)| (p, HexDigest::sha256(b)))
        .collect();
    sums_listing(digests.iter().map(|(p, d)| (*p, d)))
}

/// The sha256sum-format listing of paths whose SHA-256 is known (sorted by path).
pub fn sums_listing<'a>(items: impl IntoIterator<Item = (&'a str, &'a HexDigest)>) -> String {
    let mut lines: Vec<(&str, &HexDigest)> = items.into_iter().collect();
    lines.sort();
    lines
        .into_iter()
        .map(|(p, h)| format!("{h}  {p}\n"))
        .collect()
}

/// Parses a listing in the format `sha256sum` writes (`<64 lowercase hex>  <path>` per line,
/// each ending in a newline), strictly: an empty listing, a malformed line, a path that is not
/// relative and normalised, and a path listed twice are each a problem naming `file` and the line.
pub fn parse_sums(
    file: &str,
    text: &str,
) -> std::result::Result<Vec<(String, HexDigest)>, Vec<String>> {
    let mut listed = Vec::new();
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    if text.is_empty() {
        return Err(vec![format!("{file}: empty: it lists no file")]);
    }
    if text.starts_with('\u{feff}') {
        // An editor's byte-order mark, which sha256sum would read as part of the first digest.
        return Err(vec![format!(
            "{file}: starts with a byte-order mark (U+FEFF), which sha256sum -c cannot read; save it again without one"
        )]);
    }
    if !text.ends_with('\n') {
        problems.push(format!("{file}: the last line has no newline (truncated?)"));
    }
    for (i, line) in text.lines().enumerate() {
        let at = |m: &str| format!("{file}: line {}: {m}", i + 1);
        let Some((hex, path)) = line.split_once("  ") else {
            problems.push(at("expected `<sha256>  <path>`"));
            continue;
        };
        let digest = HexDigest::parse_sha256(hex);
        let Some(digest) = digest else {
            problems.push(at("expected 64 lowercase hexadecimal digits"));
            continue;
        };
        if !is_safe_relative(path) {
            problems.push(at(&format!(
                "path {} is not a relative, normalised path inside the folder",
                crate::format::quoted(path, 200)
            )));
            continue;
        }
        if !seen.insert(path) {
            problems.push(at(&format!(
                "{} is listed twice",
                crate::format::quoted(path, 200)
            )));
            continue;
        }
        listed.push((path.to_string(), digest));
    }
    if problems.is_empty() {
        Ok(listed)
    } else {
        Err(problems)
    }
}

/// An entry path the bundle may hold: relative, normalised, and short enough to unpack anywhere.
pub(crate) fn check_entry_path(name: &str) -> Result<()> {
    if is_safe_relative(name) && name.len() <= crate::layout::MAX_BUNDLE_PATH {
        Ok(())
    } else {
        Err(Error::invalid(
            BUNDLE,
            format!(
                "entry path {name:?} is unsafe or longer than {} characters",
                crate::layout::MAX_BUNDLE_PATH
            ),
        ))
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
    let fail = |e: zip::result::ZipError| Error::invalid(BUNDLE, e.to_string());
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(1))
        .last_modified_time(zip_time(source_date_epoch)?)
        .unix_permissions(0o644);
    let root = crate::layout::bundle_root();
    let inventory_name = format!("{root}{INVENTORY}");
    let vendored = format!("{root}{}/", crate::vendor::VENDOR_DIR);
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
            return Err(Error::invalid(
                BUNDLE,
                format!("entry {name:?} is the inventory's own name"),
            ));
        }
        if under_vendor.is_none() && name.starts_with(&vendored) {
            under_vendor = Some(name.clone());
        }
        let zip = &mut halves[usize::from(name > inventory_name)];
        zip.start_file(name.as_str(), options).map_err(fail)?;
        zip.write_all(bytes)
            .map_err(|e| Error::invalid(BUNDLE, e.to_string()))?;
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
pub fn finish(staged: Staged, vendor: Option<crate::vendor::Fragment>) -> Result<Bundle> {
    let fail = |e: zip::result::ZipError| Error::invalid(BUNDLE, e.to_string());
    // The inventory: every entry but itself, by path inside the bundle's folder; the vendored
    // entries' lines come last.
    let mut inventory = staged.inventory;
    if let Some(v) = &vendor {
        inventory.push_str(&v.listing);
        if let Some(name) = &staged.under_vendor {
            return Err(Error::invalid(
                BUNDLE,
                format!("entry {name:?} lies among the vendored crates"),
            ));
        }
    }
    // Room for our entries and the directory.
    let room = staged.before.len() + staged.after.len() + inventory.len() + (1 << 20);
    let (mut zip, (from, mut sha256)) = match vendor {
        Some(v) => {
            let mut bytes = v.bytes;
            bytes.reserve(room);
            let zip = ZipWriter::new_append(Cursor::new(bytes))
                .map_err(|e| Error::invalid(v.path.display().to_string(), e.to_string()))?;
            // Our entries start where the vendored block ends: that block is what was hashed.
            if zip.get_ref().map(|c| c.position()) != Some(v.block.len as u64) {
                return Err(Error::invalid(
                    v.path.display().to_string(),
                    "its entries do not end where its central directory starts",
                ));
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
    let name = format!("{}{INVENTORY}", crate::layout::bundle_root());
    zip.start_file(name.as_str(), staged.options)
        .map_err(fail)?;
    zip.write_all(inventory.as_bytes())
        .map_err(|e| Error::invalid(BUNDLE, e.to_string()))?;
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
            .ok_or_else(|| Error::invalid(BUNDLE, "shorter than its vendored block"))?,
    );
    Ok(Bundle {
        sha256: HexDigest::of_digest(&sha256.finalize()),
        bytes,
    })
}

/// [`stage`] then [`finish`], in one step.
pub fn bundle(
    entries: &BTreeMap<String, Vec<u8>>,
    vendor: Option<crate::vendor::Fragment>,
    source_date_epoch: i64,
) -> Result<Bundle> {
    finish(stage(entries, source_date_epoch)?, vendor)
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
        let t = zip_time(951_782_400 + 3662).unwrap(); // 2000-02-29T01:01:02Z
        assert_eq!((t.year(), t.month(), t.day(), t.minute()), (2000, 2, 29, 1));
        // What a zip cannot store is refused, not clamped or rounded.
        for bad in [
            0,
            315_532_799,
            4_354_819_200,
            1_795_996_801,
            i64::MAX,
            i64::MIN,
        ] {
            assert!(zip_time(bad).is_err(), "{bad}");
        }
        assert!(zip_time(315_532_800).is_ok() && zip_time(4_354_819_198).is_ok());
    }

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
        let back = crate::archive::read_all(&one.bytes).unwrap();
        let names: Vec<_> = back.keys().cloned().collect();
        let top = crate::layout::bundle_root();
        assert_eq!(
            names,
            [
                format!("{top}INVENTORY.sha256"),
                format!("{top}a.txt"),
                format!("{top}b/x.txt")
            ]
        );
        assert_eq!(
            parse_sums(
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
    fn fragment(room: usize) -> crate::vendor::Fragment {
        let top = crate::layout::bundle_root();
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
        crate::vendor::Fragment::from_zip(bytes, listing, "fragment.zip".into()).unwrap()
    }

    #[test]
    fn the_vendored_block_comes_first_and_the_digest_is_the_whole_bundles() {
        let top = crate::layout::bundle_root();
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
        let back = crate::archive::read_all(&one.bytes).unwrap();
        let names: Vec<String> =
            crate::archive::central_directory(&one.bytes, &crate::archive::BUNDLE_LIMITS)
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
            parse_sums("inv", inventory).unwrap().last().unwrap().0,
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

    #[test]
    fn malformed_listings_are_refused_line_by_line() {
        let h = HexDigest::sha256(b"").to_string();
        assert_eq!(
            parse_sums("S", ""),
            Err(vec!["S: empty: it lists no file".to_string()])
        );
        let text = format!(
            "{h}  a\n{h}  ../b\n{h} c\nxyz  d\n{h}  /e\n{h}  a\n{}  f\n",
            h.to_uppercase()
        );
        let problems = parse_sums("S", &text).unwrap_err();
        assert_eq!(problems.len(), 6, "{problems:?}");
        assert!(problems[0].starts_with("S: line 2: path \"../b\""));
        assert!(problems[1].starts_with("S: line 3: expected `<sha256>  <path>`"));
        assert!(problems[4].contains("\"a\" is listed twice"));
        assert!(
            parse_sums("S", &format!("{h}  a")).is_err(),
            "no final newline"
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
