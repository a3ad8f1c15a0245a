//! `provenance.json`: where every input came from (repository, commit, path, URL, size and both
//! digests, computed from the bytes), where the bundle carries it, and the bundle's timestamp.

use serde::{Deserialize, Serialize};

use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::layout::INPUTS_DIR;
use ratios_model::inputs::{InputKind, Inputs, PinnedInput};
use ratios_model::project::facts::{CheckerFacts, FactSource};

/// One input as `provenance.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputProvenance {
    /// The input's name in `data/inputs.json`, unique there.
    pub name: String,
    /// The role it plays in the pipeline (a summary, a LoadGen log, a licence, a source).
    pub kind: InputKind,
    /// The GitHub repository it is pinned in, as `<owner>/<repo>`.
    pub repository: String,
    /// The full hash of the commit it is pinned at.
    pub commit: String,
    /// Its path inside that repository.
    pub path: String,
    /// The HTTPS URL of the file at that commit, where a download fetches it.
    pub url: String,
    /// Its length in bytes, counted from the bytes the build read.
    pub size: u64,
    /// Computed from the bytes.
    pub sha256: HexDigest,
    /// Computed from the bytes: `sha1("blob <len>\0" + bytes)`.
    pub git_blob_sha1: HexDigest,
    /// The date (YYYY-MM-DD) the file was acquired and pinned, as the manifest records it.
    pub acquired: String,
    /// Its SPDX licence identifier, as the manifest records it.
    pub license: String,
    /// Where the file sits inside the reproducibility bundle.
    pub bundle_path: String,
}

/// The generator that wrote a provenance file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectId {
    /// The generator's package name, `scenario-ratios`.
    pub name: String,
    /// The workspace's version, as `Cargo.toml` declares it.
    pub version: String,
}

/// `provenance.json`: where every input came from, and the timestamp of the bundle.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The generator and version that wrote the file.
    pub project: ProjectId,
    /// Timestamp of every zip entry (seconds since the Unix epoch).
    pub source_date_epoch: i64,
    /// Every pinned input, in the manifest's order.
    pub inputs: Vec<InputProvenance>,
    /// The submission checker's file that the facts of `sources/mlperf-checker-facts.json`
    /// were read from.
    pub checker_facts: FactSource,
}

/// Where an input lives inside the bundle.
pub fn bundle_path(pin: &PinnedInput) -> String {
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
            name: ratios_base::PACKAGE.into(),
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
    let mut bytes = serde_json::to_vec_pretty(&doc).map_err(|e| Error::Serialise {
        file: ratios_base::layout::OutputFile::Provenance.path().into(),
        message: e.to_string(),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}
