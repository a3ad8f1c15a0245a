//! What the preview keeps from one build for the next, so that work whose inputs did not change
//! is not redone: the verified inputs, while the manifest is the same; everything computed from
//! them with the data files and figures, while the project but its prose is the same; our bundle
//! entries compressed, by name and content; and the vendored crates, while Cargo.lock, the
//! vendoring plan and the timestamp are the same. Every output is a function of what its key
//! holds, so a build from the cache writes the same bytes as a fresh one (the serve test compares
//! them).

use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_bundle::package;
use ratios_model::inputs::{self, AcquireOptions, InputManifest, Inputs};
use ratios_model::project::Project;
use ratios_render::figure::Figures;

use crate::output::Dist;
use crate::pipeline::{compute_data, Computed, Keep, Timings};

/// The preview's [`Keep`].
#[derive(Default)]
pub struct Cache {
    inputs: Option<(String, Inputs)>,
    data: Option<Data>,
    entries: package::Compressed,
    vendored: Option<(String, package::Vendored)>,
}

/// The part of a build that does not depend on the prose, with its key.
struct Data {
    key: HexDigest,
    computed: Computed,
    figures: Figures,
    dist: Dist,
}

impl Keep for Cache {
    /// The last build's inputs when its manifest was the same, else acquired anew.
    fn inputs(&mut self, manifest: &InputManifest, opts: &AcquireOptions) -> Result<Inputs> {
        let text = serde_json::to_string(manifest).map_err(|e| Error::Serialise {
            file: ratios_model::inputs::MANIFEST_PATH.into(),
            message: e.to_string(),
        })?;
        if let Some((kept, inputs)) = &self.inputs {
            if *kept == text {
                return Ok(inputs.clone());
            }
        }
        self.inputs = None;
        let inputs = inputs::acquire(manifest.clone(), opts)?;
        self.inputs = Some((text, inputs.clone()));
        Ok(inputs)
    }

    /// The last build's when only the prose changed, else made anew.
    fn data(
        &mut self,
        project: Project,
        inputs: &Inputs,
        timings: &mut Timings,
    ) -> Result<(Computed, Figures, Dist)> {
        let key = data_key(&project, inputs)?;
        if let Some(data) = self.data.as_ref().filter(|d| d.key == key) {
            let mut computed = data.computed.clone();
            computed.project.prose = project.prose;
            computed.project.data_prose = project.data_prose;
            timings.lap("load, cross-check, analyse, evidence (kept)");
            return Ok((computed, data.figures.clone(), data.dist.clone()));
        }
        let (computed, figures, dist) = compute_data(project, inputs, timings)?;
        self.data = Some(Data {
            key,
            computed: computed.clone(),
            figures: figures.clone(),
            dist: dist.clone(),
        });
        Ok((computed, figures, dist))
    }

    fn entries(&mut self) -> &mut package::Compressed {
        &mut self.entries
    }

    fn vendored(&mut self, key: &str) -> Option<package::Vendored> {
        self.vendored
            .take()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    fn keep_vendored(&mut self, key: String, vendored: &package::Vendored) {
        self.vendored = Some((key, vendored.copy()));
    }
}

/// What the data files and figures depend on: every part of the project but its prose, and
/// the inputs' digests.
fn data_key(project: &Project, inputs: &Inputs) -> Result<HexDigest> {
    let serialise = |e: serde_json::Error| Error::Serialise {
        file: "the project".into(),
        message: e.to_string(),
    };
    let mut text = serde_json::to_string(&(
        &project.root,
        &project.config,
        &project.manifest,
        &project.facts,
        &project.claims,
        &project.vendor_plan,
        &project.notebook,
    ))
    .map_err(serialise)?;
    for f in &inputs.files {
        text.push('\n');
        text.push_str(&f.sha256.to_string());
    }
    Ok(HexDigest::sha256(text.as_bytes()))
}
