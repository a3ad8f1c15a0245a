//! `scenario-ratios` builds the article "The Server/Offline ratio is workload-specific" and its
//! reproducibility bundle from pinned MLPerf Inference v6.1 results.
//!
//! The layers are the workspace's crates, each depending only on those below it
//! (`docs/architecture.md`): `ratios-base` (the building blocks and the published file set),
//! `ratios-model` (the project, the inputs, the rounds' summaries, the analysis, the evidence),
//! `ratios-bundle` (the reproducibility bundle, its vendored crates, `verify`, the signature) and
//! `ratios-render` (the figures, the pages, the build's own checks). This crate assembles them:
//! [`pipeline`] orders the stages, [`output`] writes the folder, [`walkthrough`] renders
//! `explain`, `serve` is the live preview (feature `serve`). `ratios-dev` holds what only the
//! tests, the benches and the examples use (the synthetic summaries). It re-exports the layers' modules under
//! one name, for the tests and the benches.
//!
//! The binary's `cli/` folder holds one file per command; its `main.rs` only dispatches.

pub use ratios_base as base;
pub use ratios_base::{note, out};
pub use ratios_bundle::{package, signature, vendoring, verify};
pub use ratios_model::{across, analysis, evidence, highlight, inputs, notebook, project, summary};
pub use ratios_render::{article, figure, self_check};

pub mod output;
pub mod pipeline;
#[cfg(feature = "serve")]
pub mod serve;
pub mod walkthrough;

pub use base::error::{Error, Result};

/// The number formats under the name the Askama templates call them by
/// (`crate::format::percent` in `templates/explain.txt`).
pub use base::number as format;

/// Name and version of this generator, as printed in the outputs.
pub use ratios_base::TOOL;

#[cfg(test)]
mod tests {
    #[test]
    fn the_building_blocks_print_this_package_name_and_version() {
        assert_eq!(ratios_base::PACKAGE, env!("CARGO_PKG_NAME"));
        assert_eq!(
            ratios_base::TOOL,
            concat!(env!("CARGO_PKG_NAME"), " ", env!("CARGO_PKG_VERSION"))
        );
    }
}
