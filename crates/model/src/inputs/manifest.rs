//! The input manifest (`data/inputs.json`): what each pinned input is, where it comes from and
//! what its bytes must be, checked whole when it is read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::cache::CACHE_MARKER;
use ratios_base::archive::{zip_time_problem, ZIP_RANGE};
use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::layout::is_safe_relative;

/// Where the manifest lives in the project (read at run time, see [`crate::project`]).
pub const MANIFEST_PATH: &str = ratios_base::layout::MANIFEST;

/// Largest input a manifest may pin. The real inputs are under 1 MB; a synthetic summary of
/// 100,000 rows is 120 MB.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// What role an input plays in the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputKind {
    /// A round's results summary as CSV (v6.1's `summary.csv`).
    SummaryCsv,
    /// The same rows as a JSON object keyed by row ID (v6.1's `summary.json`).
    SummaryJson,
    /// A round's results summary as one JSON array of rows (v5.1's `summary_results.json`);
    /// `data/rounds.json` names it.
    SummaryArray,
    /// The licence text of the inputs from its repository (mlcommons/inference's `LICENSE.md`),
    /// which the page names and the bundle carries.
    License,
    /// A run's LoadGen summary log (`mlperf_log_summary.txt`) from a results tree.
    LoadgenSummary,
    /// A run's accuracy report (`accuracy.txt`) from a results tree.
    Accuracy,
    /// A file a reviewer needs to check a rule or definition the article relies on (the
    /// submission checker's constants, LoadGen's scenario header, the README files).
    Source,
}

/// One upstream file pinned by the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedInput {
    /// Logical name, unique in the manifest.
    pub name: String,
    /// The role the file plays in the pipeline (JSON `kind`, such as `loadgen-summary`).
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
    /// The file's size in bytes.
    pub size: u64,
    /// The SHA-256 of the file's bytes.
    pub sha256: HexDigest,
    /// The git blob SHA-1 of the file's bytes: the id git gives the file at the pinned commit.
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
        let sha = check_size_and_sha256(bytes, self.size, &self.sha256, mismatch)?;
        let blob = HexDigest::git_blob_sha1(bytes);
        if blob != self.git_blob_sha1 {
            return Err(mismatch(
                "git blob SHA-1",
                self.git_blob_sha1.to_string(),
                blob.to_string(),
            ));
        }
        Ok((sha, blob))
    }
}

/// The committed manifest of pinned inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputManifest {
    /// A paragraph on what the manifest holds, for the reader of the JSON file; not used by the
    /// build.
    pub about: String,
    /// Fixed timestamp (RFC 3339, UTC) used for every zip entry when `SOURCE_DATE_EPOCH` is unset.
    pub source_date: String,
    /// The compact lists of further pinned files (`data/loadgen-logs.json` and one per earlier
    /// round), each pinned here by size and SHA-256; their files join [`InputManifest::inputs`]
    /// once [`InputManifest::add_list`] has read each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lists: Vec<ListPin>,
    /// Every pinned input: the manifest's own entries, then the files of its lists once added.
    pub inputs: Vec<PinnedInput>,
    /// How many of [`InputManifest::inputs`], at their end, came from the lists.
    #[serde(skip)]
    pub listed: usize,
    /// How many came from each list, in the order they were added.
    #[serde(skip)]
    pub listed_by: Vec<(String, usize)>,
}

/// Where the manifest's list of further pinned files lives in the project, and what its bytes
/// must be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListPin {
    /// Relative to the project's root.
    pub path: String,
    /// The list file's size in bytes.
    pub size: u64,
    /// The SHA-256 of the list file's bytes.
    pub sha256: HexDigest,
}

/// A compact list of pinned files of one kind, from one repository at one commit: the LoadGen
/// summary logs of the paired rows, too many to write out as manifest entries.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PinList {
    #[allow(dead_code)]
    about: String,
    kind: InputKind,
    repository: String,
    commit: String,
    license: String,
    acquired: String,
    /// The folder under the inputs' cache that holds the listed files (`logs` when left out).
    #[serde(default = "default_log_folder")]
    folder: String,
    /// Each file's path in the repository, size, SHA-256 and git blob SHA-1.
    files: Vec<(String, u64, HexDigest, HexDigest)>,
}

fn default_log_folder() -> String {
    "logs".into()
}

/// The name and local path a listed LoadGen log gets, as the manifest's own log entries have
/// them: `closed/<org>/results/<system>/<model>/<scenario>/performance/run_1/mlperf_log_summary.txt`
/// in the results tree of round `v6.1` is named
/// `v6.1/<org>/<system>/<model>/<scenario>/mlperf_log_summary.txt` and kept at
/// `<folder>/<org>/<system>/<model>/<scenario>/mlperf_log_summary.txt`.
fn listed_log_names(round: &str, folder: &str, path: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        [_division, org, "results", system, model, scenario, "performance", "run_1", file] => {
            let rest = format!("{org}/{system}/{model}/{scenario}/{file}");
            Some((format!("{round}/{rest}"), format!("{folder}/{rest}")))
        }
        _ => None,
    }
}

impl InputManifest {
    /// Parses and checks a manifest text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let err = manifest_error(file);
        let manifest: InputManifest =
            serde_json::from_str(text).map_err(|e| err(format!("invalid manifest: {e}")))?;
        let mut paths = std::collections::BTreeSet::new();
        for list in &manifest.lists {
            if !ratios_base::layout::is_log_list(&list.path) {
                return Err(err(format!(
                    "lists: path {} must be a file {}, where the bundle carries it",
                    ratios_base::text::quoted(&list.path, 200),
                    ratios_base::layout::LOG_LISTS
                )));
            }
            if !paths.insert(list.path.as_str()) {
                return Err(err(format!(
                    "lists: {} is listed twice",
                    ratios_base::text::quoted(&list.path, 200)
                )));
            }
            if !list.sha256.is_well_formed(64) {
                return Err(err("lists: sha256 must be 64 lowercase hex digits".into()));
            }
        }
        manifest.check_pins(file)?;
        let epoch = ratios_base::calendar::parse_rfc3339_utc(&manifest.source_date)
            .map_err(|m| err(format!("source_date: {m}")))?;
        // The bundle's entries are stamped with it: a time a zip cannot store is this file's
        // mistake, named here (not SOURCE_DATE_EPOCH's).
        if let Some(why) = zip_time_problem(epoch) {
            return Err(err(format!(
                "source_date {} {why}; {ZIP_RANGE}; write here a time a zip can store",
                ratios_base::text::quoted(&manifest.source_date, 40),
            )));
        }
        Ok(manifest)
    }

    /// Adds the files of the manifest's list at `path` (its pin's path), whose bytes `bytes`,
    /// read from `file`, must be those the manifest pins; the listed files are checked as the
    /// manifest's own entries are, and against them (`manifest` names the manifest in errors).
    pub fn add_list(&mut self, manifest: &str, path: &str, file: &str, bytes: &[u8]) -> Result<()> {
        let Some(pin) = self.lists.iter().find(|l| l.path == path).cloned() else {
            return Ok(());
        };
        let mismatch = |what, expected: String, actual: String| Error::Mismatch {
            file: file.to_string(),
            name: format!("list {}", pin.path),
            what,
            expected,
            actual,
        };
        check_size_and_sha256(bytes, pin.size, &pin.sha256, mismatch)?;
        let err = manifest_error(file);
        let list: PinList =
            serde_json::from_slice(bytes).map_err(|e| err(format!("invalid list: {e}")))?;
        if list.kind != InputKind::LoadgenSummary {
            return Err(err(format!(
                "lists files of kind {:?}; only LoadGen summary logs can be listed",
                list.kind
            )));
        }
        let round = list
            .repository
            .rsplit_once("inference_results_")
            .map(|(_, r)| r.to_string())
            .ok_or_else(|| {
                err(format!(
                    "repository {} is not a copy of an inference_results_<round> tree",
                    ratios_base::text::quoted(&list.repository, 200)
                ))
            })?;
        if !is_safe_relative(&list.folder) || list.folder.contains('/') {
            return Err(err(format!(
                "folder {} must be one folder's name",
                ratios_base::text::quoted(&list.folder, 200)
            )));
        }
        let before = self.inputs.len();
        for (path, size, sha256, git_blob_sha1) in list.files {
            let (name, local) = listed_log_names(&round, &list.folder, &path).ok_or_else(|| {
                err(format!(
                    "{} is not a LoadGen summary log's place in a results tree (closed/<org>/results/<system>/<model>/<scenario>/performance/run_1/mlperf_log_summary.txt)",
                    ratios_base::text::quoted(&path, 200)
                ))
            })?;
            self.inputs.push(PinnedInput {
                name,
                kind: list.kind,
                local,
                url: format!(
                    "https://raw.githubusercontent.com/{}/{}/{path}",
                    list.repository, list.commit
                ),
                repository: list.repository.clone(),
                commit: list.commit.clone(),
                path,
                size,
                sha256,
                git_blob_sha1,
                license: list.license.clone(),
                acquired: list.acquired.clone(),
            });
        }
        self.listed += self.inputs.len() - before;
        self.listed_by
            .push((pin.path.clone(), self.inputs.len() - before));
        self.check_pins(manifest)
    }

    /// Each pin well formed, and no name or local path used twice.
    fn check_pins(&self, file: &str) -> Result<()> {
        let err = manifest_error(file);
        let mut names = std::collections::BTreeSet::new();
        let mut locals = std::collections::BTreeSet::new();
        for pin in &self.inputs {
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
        Ok(())
    }

    /// The inputs the manifest pins one by one, without those of its lists.
    pub fn hand_picked(&self) -> &[PinnedInput] {
        &self.inputs[..self.inputs.len() - self.listed.min(self.inputs.len())]
    }

    /// The inputs of its lists, list after list.
    pub fn listed(&self) -> &[PinnedInput] {
        &self.inputs[self.inputs.len() - self.listed.min(self.inputs.len())..]
    }

    /// Each list that was added, with its pin and its inputs.
    pub fn lists_read(&self) -> Vec<(&ListPin, &[PinnedInput])> {
        let mut out = Vec::new();
        let mut at = self.inputs.len() - self.listed.min(self.inputs.len());
        for (path, n) in &self.listed_by {
            let end = (at + n).min(self.inputs.len());
            if let Some(pin) = self.lists.iter().find(|l| &l.path == path) {
                out.push((pin, &self.inputs[at..end]));
            }
            at = end;
        }
        out
    }

    /// Seconds since the Unix epoch of `source_date`.
    pub fn source_date_epoch(&self) -> i64 {
        ratios_base::calendar::parse_rfc3339_utc(&self.source_date).unwrap_or(0)
    }

    /// The pins of `kind`, in manifest order.
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

/// An error of the manifest (or list) `file`.
fn manifest_error(file: &str) -> impl Fn(String) -> Error + '_ {
    move |message| Error::Manifest {
        file: file.to_string(),
        message,
    }
}

/// Checks `bytes` against a pinned size and SHA-256, `mismatch` saying how they differ;
/// returns the SHA-256 of the bytes.
fn check_size_and_sha256(
    bytes: &[u8],
    size: u64,
    sha256: &HexDigest,
    mismatch: impl Fn(&'static str, String, String) -> Error,
) -> Result<HexDigest> {
    if bytes.len() as u64 != size {
        return Err(mismatch(
            "size",
            format!("{size} bytes"),
            format!("{} bytes", bytes.len()),
        ));
    }
    let sha = HexDigest::sha256(bytes);
    if sha != *sha256 {
        return Err(mismatch("SHA-256", sha256.to_string(), sha.to_string()));
    }
    Ok(sha)
}

/// The only item of `items`, else an error naming the kind.
pub(super) fn single<T>(mut items: impl Iterator<Item = T>, kind: InputKind) -> Result<T> {
    match (items.next(), items.next()) {
        (Some(f), None) => Ok(f),
        _ => Err(Error::Manifest {
            file: MANIFEST_PATH.into(),
            message: format!("expected exactly one input of kind {kind:?}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> InputManifest {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(MANIFEST_PATH);
        InputManifest::parse(MANIFEST_PATH, &std::fs::read_to_string(path).unwrap()).unwrap()
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
