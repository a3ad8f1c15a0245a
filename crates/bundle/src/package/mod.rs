//! What a reader downloads and checks. `provenance.json` records where
//! every input came from ([`provenance`](mod@provenance)); `reproducibility.zip` ([`zip`](mod@zip)) holds the
//! pinned inputs, the project's source needed to rebuild ([`sources`]), the published outputs,
//! its own README ([`readme`]), the vendored crates and an inventory of its own entries
//! (`ratios_base::inventory` checks one).

pub mod citation;
pub mod provenance;
pub mod readme;
pub mod ro_crate;
pub mod sources;
pub mod zip;

use std::collections::BTreeMap;

pub use provenance::{bundle_path, provenance, InputProvenance, ProjectId, Provenance};
pub use readme::bundle_readme;
pub use sources::{lock_text, source_files, MAX_SOURCE_FILE, MAX_SOURCE_TOTAL};
pub use zip::{bundle, finish, stage, Bundle, Compressed, Staged, Vendored};

use crate::vendoring::{CARGO_CONFIG, CARGO_CONFIG_PATH};
use ratios_base::dist::Dist;
use ratios_base::error::Result;
use ratios_base::layout::{OutputFile, BUNDLE_README};
use ratios_model::inputs::Inputs;
use ratios_model::project::Project;

/// The package stage's output before the vendored crates join it: its own published files
/// (`provenance.json`, `CITATION.cff`) and the bundle's own entries, compressed.
#[derive(Debug)]
pub struct Package {
    /// The files this stage publishes: `provenance.json` and `CITATION.cff`.
    pub files: Dist,
    /// The bundle's entries other than the vendored crates, compressed and waiting for them.
    pub staged: Staged,
}

/// Makes `provenance.json` and `CITATION.cff`, and stages the bundle's own entries: the
/// project's `sources`, the bundle's README and cargo configuration, the inputs, and a copy of
/// every published file the bundle carries, from `data` or this stage's own (`round` is the
/// results' round, for the README); `kept` holds the entries earlier builds of this process
/// compressed.
pub fn stage_bundle(
    data: &Dist,
    inputs: &Inputs,
    project: &Project,
    round: &str,
    sources: BTreeMap<String, Vec<u8>>,
    source_date_epoch: i64,
    kept: &mut Compressed,
) -> Result<Package> {
    let mut files = Dist::new();
    files.add(
        OutputFile::Provenance.path(),
        provenance(inputs, &project.facts, source_date_epoch)?,
    )?;
    files.add(
        OutputFile::Citation.path(),
        citation::citation_cff(&project.config)?,
    )?;
    let mut entries = sources;
    entries.insert(
        BUNDLE_README.into(),
        bundle_readme(
            &project.config,
            round,
            &inputs.manifest,
            &project.vendor_plan,
        )?,
    );
    entries.insert(CARGO_CONFIG_PATH.into(), CARGO_CONFIG.as_bytes().to_vec());
    for f in &inputs.files {
        entries.insert(bundle_path(&f.pin), f.bytes.clone());
    }
    for file in OutputFile::ALL {
        let bytes = data.get(file.path()).or_else(|| files.get(file.path()));
        if let (Some(at), Some(bytes)) = (file.in_bundle(), bytes) {
            entries.insert(at, bytes.to_vec());
        }
    }
    let staged = stage(
        &entries,
        source_date_epoch,
        Some(ro_crate::Describer {
            config: project.config.clone(),
            inputs: inputs.manifest.inputs.clone(),
        }),
        kept,
    )?;
    Ok(Package { files, staged })
}

/// `reproducibility.zip`, the staged entries on top of the vendored crates, as a set of one
/// published file.
pub fn bundle_file(staged: Staged, vendored: Option<Vendored>) -> Result<Dist> {
    let bundle = finish(staged, vendored)?;
    let mut file = Dist::new();
    file.add_hashed(OutputFile::Bundle.path(), bundle.bytes, bundle.sha256)?;
    Ok(file)
}
