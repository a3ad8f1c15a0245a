//! Stage 1 of the pipeline: acquire every pinned upstream input and verify it.
//!
//! The committed manifest (`data/inputs.json`) pins each input by repository, commit, path, size,
//! SHA-256 and git blob SHA-1. An input is taken from the verified cache (`data/upstream/`), else from a
//! local mirror laid out as `<owner>/<repo>/<path>`, else downloaded from its pinned HTTPS URL. Every
//! copy is checked before use; a mismatch is a hard error naming the file and both hashes.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::Sha1;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::fetch::{self, Found};
use crate::layout::is_safe_relative;

/// Where the manifest lives in the project (read at run time, see [`crate::project`]).
pub const MANIFEST_PATH: &str = crate::layout::MANIFEST;

/// Default folder of the verified cache, relative to the project root (the bundle's layout).
pub const DEFAULT_CACHE: &str = crate::layout::INPUTS_DIR;
/// Largest input a manifest may pin. The real inputs are under 1 MB; a synthetic summary of
/// 100,000 rows is 120 MB.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Default mirror, used only when the folder exists.
pub const DEFAULT_MIRROR: &str = "../shared/upstream";

/// A lowercase hexadecimal digest (SHA-256 or SHA-1).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
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

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A SHA-256 written as 64 lowercase hexadecimal digits, else `None`.
    pub fn parse_sha256(text: &str) -> Option<Self> {
        let d = HexDigest(text.to_string());
        d.is_well_formed(64).then_some(d)
    }

    fn is_well_formed(&self, len: usize) -> bool {
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

/// What role an input plays in the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputKind {
    SummaryCsv,
    SummaryJson,
    License,
    LoadgenSummary,
    Accuracy,
    /// A file a reviewer needs to check a rule or definition the article relies on (the
    /// submission checker's constants, LoadGen's scenario header, the README files).
    Source,
}

/// One upstream file pinned by the manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedInput {
    /// Logical name, unique in the manifest.
    pub name: String,
    pub kind: InputKind,
    /// Where the project keeps the file, relative to its cache folder (`data/upstream/`, which is
    /// also the bundle's layout): a short path a reader can navigate.
    pub local: String,
    /// `<owner>/<repo>` on GitHub.
    pub repository: String,
    /// Full commit hash the file is pinned at.
    pub commit: String,
    /// Path of the file inside the repository.
    pub path: String,
    /// HTTPS URL of the file at that commit.
    pub url: String,
    pub size: u64,
    pub sha256: HexDigest,
    pub git_blob_sha1: HexDigest,
    /// SPDX licence identifier.
    pub license: String,
    /// Date (YYYY-MM-DD) the file was acquired and pinned.
    pub acquired: String,
}

impl PinnedInput {
    /// Relative location of the file under a mirror: `<owner>/<repo>/<path>`.
    pub fn mirror_path(&self) -> PathBuf {
        Path::new(&self.repository).join(&self.path)
    }

    /// Relative location of the file in the cache (and under the bundle's `data/upstream/`).
    pub fn cache_path(&self) -> PathBuf {
        PathBuf::from(&self.local)
    }

    /// Checks `bytes` against the pin; `file` names where the bytes came from. Returns the
    /// SHA-256 and git blob SHA-1 computed from the bytes.
    pub fn verify(&self, file: &Path, bytes: &[u8]) -> Result<(HexDigest, HexDigest)> {
        let mismatch = |what, expected: String, actual: String| Error::Mismatch {
            file: file.display().to_string(),
            name: self.name.clone(),
            what,
            expected,
            actual,
        };
        if bytes.len() as u64 != self.size {
            return Err(mismatch(
                "size",
                format!("{} bytes", self.size),
                format!("{} bytes", bytes.len()),
            ));
        }
        let sha = HexDigest::sha256(bytes);
        if sha != self.sha256 {
            return Err(mismatch("SHA-256", self.sha256.0.clone(), sha.0));
        }
        let blob = HexDigest::git_blob_sha1(bytes);
        if blob != self.git_blob_sha1 {
            return Err(mismatch(
                "git blob SHA-1",
                self.git_blob_sha1.0.clone(),
                blob.0,
            ));
        }
        Ok((sha, blob))
    }
}

/// The committed manifest of pinned inputs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputManifest {
    pub about: String,
    /// Fixed timestamp (RFC 3339, UTC) used for every zip entry when `SOURCE_DATE_EPOCH` is unset.
    pub source_date: String,
    pub inputs: Vec<PinnedInput>,
}

impl InputManifest {
    /// Parses and checks a manifest text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let err = |message: String| Error::Manifest {
            file: file.to_string(),
            message,
        };
        let manifest: InputManifest =
            serde_json::from_str(text).map_err(|e| err(format!("invalid manifest: {e}")))?;
        let mut names = std::collections::BTreeSet::new();
        let mut locals = std::collections::BTreeSet::new();
        for pin in &manifest.inputs {
            let ctx = |m: &str| err(format!("input `{}`: {m}", pin.name));
            if !names.insert(pin.name.as_str()) {
                return Err(ctx("duplicate name"));
            }
            if !is_safe_relative(&pin.local) {
                return Err(ctx("local must be a relative path, without `..`"));
            }
            if pin.local.split('/').any(|part| part == CACHE_MARKER) {
                return Err(ctx(&format!(
                    "local must not be named {CACHE_MARKER}, the cache's own marker (storing the input there would replace it)"
                )));
            }
            if !locals.insert(pin.local.as_str()) {
                return Err(ctx("local path used twice"));
            }
            if pin.size > MAX_INPUT_BYTES {
                return Err(ctx(&format!(
                    "size {} bytes is above the limit of {MAX_INPUT_BYTES} bytes",
                    pin.size
                )));
            }
            if !pin.sha256.is_well_formed(64) {
                return Err(ctx("sha256 must be 64 lowercase hex digits"));
            }
            if !pin.git_blob_sha1.is_well_formed(40) {
                return Err(ctx("git_blob_sha1 must be 40 lowercase hex digits"));
            }
            if pin.commit.len() != 40 || !pin.commit.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(ctx("commit must be a full 40-digit hash"));
            }
            if pin.repository.split('/').count() != 2 || !is_safe_relative(&pin.repository) {
                return Err(ctx("repository must be `<owner>/<repo>`"));
            }
            if !is_safe_relative(&pin.path) {
                return Err(ctx("path must be relative, without `..`"));
            }
            let expected_suffix = format!("/{}/{}/{}", pin.repository, pin.commit, pin.path);
            if !pin.url.starts_with("https://") || !pin.url.ends_with(&expected_suffix) {
                return Err(ctx(&format!(
                    "url must be https and end with `{expected_suffix}`"
                )));
            }
        }
        let epoch = crate::calendar::parse_rfc3339_utc(&manifest.source_date)
            .map_err(|m| err(format!("source_date: {m}")))?;
        // The bundle's entries are stamped with it: a time a zip cannot store is this file's
        // mistake, named here (not SOURCE_DATE_EPOCH's).
        if let Some(why) = crate::package::zip_time_problem(epoch) {
            return Err(err(format!(
                "source_date {} {why}; {}; write here a time a zip can store",
                crate::format::quoted(&manifest.source_date, 40),
                crate::package::ZIP_RANGE
            )));
        }
        Ok(manifest)
    }

    /// Seconds since the Unix epoch of `source_date`.
    pub fn source_date_epoch(&self) -> i64 {
        crate::calendar::parse_rfc3339_utc(&self.source_date).unwrap_or(0)
    }

    pub fn of_kind(&self, kind: InputKind) -> impl Iterator<Item = &PinnedInput> {
        self.inputs.iter().filter(move |p| p.kind == kind)
    }

    /// The single pin of `kind` (summary CSV, summary JSON, licence).
    pub fn single(&self, kind: InputKind) -> Result<&PinnedInput> {
        single(self.of_kind(kind), kind)
    }

    /// Each licence the inputs carry (SPDX identifier), with how many inputs carry it, sorted.
    pub fn licences(&self) -> Vec<(&str, usize)> {
        let mut by_id: std::collections::BTreeMap<&str, usize> = Default::default();
        for pin in &self.inputs {
            *by_id.entry(pin.license.as_str()).or_default() += 1;
        }
        by_id.into_iter().collect()
    }
}

/// Where an input's verified bytes came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Cache(PathBuf),
    Mirror(PathBuf),
    Download(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Cache(p) => write!(f, "cache {}", p.display()),
            Origin::Mirror(p) => write!(f, "mirror {}", p.display()),
            Origin::Download(u) => write!(f, "download {u}"),
        }
    }
}

/// An input whose bytes matched its pin.
#[derive(Debug, Clone)]
pub struct VerifiedInput {
    pub pin: PinnedInput,
    pub bytes: Vec<u8>,
    pub origin: Origin,
    /// SHA-256 computed from `bytes` (equal to the pin's).
    pub sha256: HexDigest,
    /// git blob SHA-1 computed from `bytes` (equal to the pin's).
    pub git_blob_sha1: HexDigest,
}

impl VerifiedInput {
    /// Checks `bytes` against `pin` and keeps the digests computed on the way.
    pub fn new(pin: PinnedInput, bytes: Vec<u8>, origin: Origin, file: &Path) -> Result<Self> {
        let (sha256, git_blob_sha1) = pin.verify(file, &bytes)?;
        Ok(VerifiedInput {
            pin,
            bytes,
            origin,
            sha256,
            git_blob_sha1,
        })
    }
}

/// Every pinned input, verified, in manifest order.
#[derive(Debug, Clone)]
pub struct Inputs {
    pub manifest: InputManifest,
    pub files: Vec<VerifiedInput>,
}

/// The only item of `items`, else an error naming the kind.
fn single<T>(mut items: impl Iterator<Item = T>, kind: InputKind) -> Result<T> {
    match (items.next(), items.next()) {
        (Some(f), None) => Ok(f),
        _ => Err(Error::Manifest {
            file: MANIFEST_PATH.into(),
            message: format!("expected exactly one input of kind {kind:?}"),
        }),
    }
}

impl Inputs {
    pub fn of_kind(&self, kind: InputKind) -> impl Iterator<Item = &VerifiedInput> {
        self.files.iter().filter(move |f| f.pin.kind == kind)
    }

    /// The single input of `kind` (summary CSV, summary JSON, licence).
    pub fn single(&self, kind: InputKind) -> Result<&VerifiedInput> {
        single(self.of_kind(kind), kind)
    }
}

/// Where to look for inputs.
#[derive(Debug, Clone)]
pub struct AcquireOptions {
    pub cache_dir: PathBuf,
    /// A local mirror; `None` skips the mirror step.
    pub mirror: Option<PathBuf>,
    /// Replaces the `https://<host>` part of pinned URLs (tests point it at 127.0.0.1).
    pub download_base: Option<String>,
    /// When false, an input that is neither cached nor mirrored is an error instead of a download.
    pub allow_download: bool,
    /// The cache is the project's own `data/upstream/` (git-ignored, made by this tool, or
    /// unzipped with the bundle): it is used even without [`CACHE_MARKER`], but then never
    /// marked, and an entry in it that fails its pin is left as it is (see `claim_cache`).
    pub own_cache: bool,
}

impl AcquireOptions {
    /// The defaults for the project at `root`: its own cache `data/upstream/`, the mirror
    /// `../shared/upstream` beside it when that folder exists, downloads allowed.
    pub fn for_project(root: &Path) -> AcquireOptions {
        let mirror = root.join(DEFAULT_MIRROR);
        AcquireOptions {
            cache_dir: root.join(DEFAULT_CACHE),
            mirror: mirror.is_dir().then_some(mirror),
            download_base: None,
            allow_download: true,
            own_cache: true,
        }
    }
}

/// The file that marks a folder as this tool's input cache. The build writes and removes files
/// only in a cache folder that is new, empty, marked, or the project's own.
pub const CACHE_MARKER: &str = ".scenario-ratios-cache";

/// Checks that the cache folder is the tool's to write in (see [`CACHE_MARKER`]), and marks it
/// when it is new or empty. True when the tool filled the folder, so an entry that fails its pin
/// may be removed: false for the project's own cache when it holds files but no marker, as an
/// unzipped bundle's `data/upstream/` does (those files are the reader's).
fn claim_cache(opts: &AcquireOptions) -> Result<bool> {
    use crate::dist::Ownership;
    let state = crate::dist::claim(
        &opts.cache_dir,
        CACHE_MARKER,
        "This folder is the verified input cache of scenario-ratios; entries that fail their pin are removed and acquired again.\n",
        |state| match state {
            Ownership::Foreign if !opts.own_cache => Some(format!(
                "is a folder that scenario-ratios did not make as its input cache (no {CACHE_MARKER} inside) and is not empty; refusing to write or remove files in it (give a new or empty folder as --cache)"
            )),
            Ownership::NotAFolder => {
                Some("is not a folder; give a folder for the input cache (--cache)".into())
            }
            _ => None,
        },
    )?;
    Ok(state != Ownership::Foreign)
}

/// Acquires and verifies every input of `manifest`.
pub fn acquire(manifest: InputManifest, opts: &AcquireOptions) -> Result<Inputs> {
    if let Some(m) = &opts.mirror {
        if !m.is_dir() {
            return Err(Error::MirrorMissing(m.clone()));
        }
    }
    let ours = claim_cache(opts)?;
    let files = manifest
        .inputs
        .iter()
        .map(|pin| acquire_one(pin, opts, ours))
        .collect::<Result<Vec<_>>>()?;
    Ok(Inputs { manifest, files })
}

/// One input: from the cache, else the mirror, else a download. `ours` says the tool filled
/// the cache folder, so a damaged entry there may be removed and acquired again; otherwise it is
/// left as it is and the build stops.
fn acquire_one(pin: &PinnedInput, opts: &AcquireOptions, ours: bool) -> Result<VerifiedInput> {
    let cached = opts.cache_dir.join(pin.cache_path());
    fetch::remove_stale_partials(&cached);
    // A cache entry is only ever written verified, so one that fails its pin (size or hashes)
    // was changed or damaged since: drop it and acquire the input again.
    let damaged = match read_pinned(&cached, pin, Place::Cache) {
        Ok(Some(bytes)) => {
            match VerifiedInput::new(pin.clone(), bytes, Origin::Cache(cached.clone()), &cached) {
                Ok(input) => return Ok(input),
                Err(e) => Some(e),
            }
        }
        Ok(None) => None,
        Err(e @ Error::Mismatch { .. }) => Some(e),
        Err(e) => return Err(e),
    };
    if let Some(e) = damaged {
        if !ours {
            return Err(Error::DamagedNotOurs {
                mismatch: Box::new(e),
                marker: CACHE_MARKER,
            });
        }
        eprintln!(
            "warning: {}; removed the cache entry, acquiring it again",
            crate::format::escaped(&e.to_string())
        );
        fs::remove_file(&cached).map_err(|e| Error::io(&cached, e))?;
    }
    if let Some(mirror) = &opts.mirror {
        let mirrored = mirror.join(pin.mirror_path());
        if let Some(bytes) = read_pinned(&mirrored, pin, Place::Mirror)? {
            let input = VerifiedInput::new(
                pin.clone(),
                bytes,
                Origin::Mirror(mirrored.clone()),
                &mirrored,
            )?;
            fetch::store(&cached, &input.bytes)?;
            return Ok(input);
        }
    }
    if !opts.allow_download {
        return Err(Error::Acquire {
            name: pin.name.clone(),
            message: format!(
                "not in the cache ({}){} and downloads are disabled",
                cached.display(),
                match &opts.mirror {
                    Some(m) => format!(" nor in the mirror {}", m.display()),
                    None => String::new(),
                }
            ),
        });
    }
    let url = download_url(pin, opts.download_base.as_deref());
    let bytes = fetch::download(&url, pin.size, opts.download_base.is_some())?;
    let input = VerifiedInput::new(
        pin.clone(),
        bytes,
        Origin::Download(url.clone()),
        Path::new(&url),
    )?;
    fetch::store(&cached, &input.bytes)?;
    Ok(input)
}

/// The bytes at `path` when it exists, read only after its size matched the pin and through a
/// cap. A path that exists but is not a regular file (after following a symbolic link) is an
/// error naming it; a missing path is `None`.
fn read_pinned(path: &Path, pin: &PinnedInput, place: Place) -> Result<Option<Vec<u8>>> {
    match fetch::read_expected(path, pin.size).map_err(|e| Error::io(path, e))? {
        Found::Missing => Ok(None),
        Found::Bytes(b) => Ok(Some(b)),
        Found::NotAFile => Err(Error::Acquire {
            name: pin.name.clone(),
            message: format!(
                "{} exists but is not a regular file; {}",
                crate::format::path(path),
                match place {
                    Place::Mirror => "remove it or point the mirror elsewhere",
                    Place::Cache => "remove it from the cache (scenario-ratios stores only regular files there, and acquires the input again)",
                }
            ),
        }),
        Found::WrongSize(actual) => Err(Error::Mismatch {
            file: path.display().to_string(),
            name: pin.name.clone(),
            what: "size",
            expected: format!("{} bytes", pin.size),
            actual: format!("{actual} bytes"),
        }),
    }
}

/// Where [`read_pinned`] looks: the remedy for something odd there differs.
#[derive(Debug, Clone, Copy)]
enum Place {
    Cache,
    Mirror,
}

/// The pinned URL, with its scheme and host replaced by `base` when given.
pub fn download_url(pin: &PinnedInput, base: Option<&str>) -> String {
    match base {
        None => pin.url.clone(),
        Some(base) => {
            let after_scheme = pin.url.trim_start_matches("https://");
            let path = after_scheme.find('/').map_or("", |i| &after_scheme[i..]);
            format!("{}{}", base.trim_end_matches('/'), path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> InputManifest {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(MANIFEST_PATH);
        InputManifest::parse(MANIFEST_PATH, &fs::read_to_string(path).unwrap()).unwrap()
    }

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

    #[test]
    fn committed_manifest_is_well_formed() {
        let m = committed();
        assert_eq!(m.of_kind(InputKind::SummaryCsv).count(), 1);
        assert_eq!(m.of_kind(InputKind::SummaryJson).count(), 1);
        // 2026-12-01T00:00:00Z: `date -u -d 2026-12-01 +%s`
        assert_eq!(m.source_date_epoch(), 1_796_083_200);
    }

    #[test]
    fn download_base_replaces_scheme_and_host() {
        let m = committed();
        let pin = &m.inputs[0];
        let url = download_url(pin, Some("http://127.0.0.1:9/"));
        assert!(url.starts_with("http://127.0.0.1:9/mlcommons/inference_results_v6.1/"));
        assert!(url.ends_with("/summary.csv"));
    }

    #[test]
    fn verify_names_file_and_both_hashes() {
        let m = committed();
        let mut pin = m.inputs[0].clone();
        pin.size = 3;
        let err = pin.verify(Path::new("x/summary.csv"), b"abc").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("x/summary.csv: input `summary.csv` SHA-256 mismatch"));
        assert!(msg.contains(pin.sha256.as_str()));
        assert!(msg.contains(HexDigest::sha256(b"abc").as_str()));
    }
}
