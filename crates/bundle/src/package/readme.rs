//! The bundle's own README (`templates/bundle/README.md`), written for a reader of the bundle:
//! what it holds, the versions a rebuild needs, and the commands that check and rebuild it.

use crate::vendoring::Plan;
use ratios_base::error::{Error, Result};
use ratios_model::inputs::InputManifest;
use ratios_model::project::config::ArticleConfig;

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
    config: &ArticleConfig,
    round: &str,
    manifest: &InputManifest,
    plan: &Plan,
) -> Result<Vec<u8>> {
    askama::Template::render(&BundleReadme {
        folder: ratios_base::layout::bundle_folder(),
        title: &config.title,
        url: &config.canonical_url,
        rust_version: env!("CARGO_PKG_RUST_VERSION"),
        python_version: ratios_model::notebook::min_python(),
        nbval_python_version: ratios_model::notebook::NBVAL_MIN_PYTHON,
        round,
        tool: ratios_base::TOOL,
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
    .map_err(|e| Error::Template {
        template: "templates/bundle/README.md".into(),
        message: e.to_string(),
    })
}
