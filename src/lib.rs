//! `scenario-ratios` builds the article "The Server/Offline ratio is workload-specific" and its
//! reproducibility bundle from pinned MLPerf Inference v6.1 results.
//!
//! The folders show the layers:
//!
//! - [`base`]: the building blocks (the error type, digests and the sha256sum listing, folder
//!   ownership, text and number formats, bounded reading and downloading, system calls, zip
//!   archives, HTML nesting, template rendering, the calendar, the published layout). They import
//!   no stage.
//! - The stages, a linear pipeline, each a function from typed input to typed output:
//!   [`inputs`] (acquire and verify) → [`summary`] (parse and cross-check) → [`analysis`]
//!   (scope, matching, ratios) → [`highlight`] (the article's chosen pairs) → [`evidence`] (logs,
//!   thresholds, the claims checked at their lines) → [`figure`] (SVG, and the social card as
//!   PNG) → [`article`] (the data files) → [`package`] (provenance, the zip, its README and
//!   inventory; with [`vendoring`], the crates it carries) → [`article`] again (the pages, from
//!   Markdown and Askama, whose downloads table lists the bundle's bytes) → [`self_check`] (the
//!   build's own checks) → [`signature`] → [`output`] (guarded, atomic output).
//! - [`project`] loads the prose, settings, manifest, facts and claims at run time
//!   (`docs/architecture.md` draws the layers and the stage order); [`pipeline`] only orders
//!   the stages; [`walkthrough`] renders the scope walk-through,
//!   [`verify`] is the reader's check, `serve` the live preview (feature `serve`), [`synth`]
//!   writes synthetic inputs (for the tests, the benches and `examples/synth.rs`) and [`notebook`] turns the walk-through notebook into a script.
//!
//! The binary's `cli/` folder holds one file per command; its `main.rs` only dispatches.

pub mod across;
pub mod analysis;
pub mod article;
pub mod base;
pub mod evidence;
pub mod figure;
pub mod highlight;
pub mod inputs;
pub mod notebook;
pub mod output;
pub mod package;
pub mod pipeline;
pub mod project;
pub mod self_check;
#[cfg(feature = "serve")]
pub mod serve;
pub mod signature;
pub mod summary;
pub mod synth;
pub mod vendoring;
pub mod verify;
pub mod walkthrough;

pub use base::error::{Error, Result};

/// The number formats under the name the Askama templates call them by
/// (`crate::format::percent` in `templates/explain.txt`).
pub use base::number as format;

/// Name and version of this generator, as printed in the outputs.
pub const TOOL: &str = concat!(env!("CARGO_PKG_NAME"), " ", env!("CARGO_PKG_VERSION"));
