//! `scenario-ratios` builds the article "The Server/Offline ratio is workload-specific" and its
//! reproducibility bundle from pinned MLPerf Inference v6.1 results.
//!
//! The pipeline is linear, one module per stage: [`inputs`] (acquire and verify) → [`summary`]
//! (parse and cross-check) → [`analysis`] (scope, matching, ratios) → [`highlight`] (the
//! article's chosen pairs) → [`evidence`] (logs and thresholds) → [`figure`] (SVG; [`card`], the social card) → [`article`]
//! (Markdown + Askama) → [`package`] (zip, SHA256SUMS, provenance) → [`validate`] → [`dist`]
//! (guarded, atomic output). [`project`] loads the prose, settings, manifest and facts at run
//! time; [`pipeline`] runs the stages; [`verify`] is the reader's check; `main.rs` only parses
//! the command line.

pub mod analysis;
pub mod archive;
pub mod article;
pub mod calendar;
pub mod card;
pub mod config;
pub mod dist;
pub mod error;
pub mod evidence;
pub mod fetch;
pub mod figure;
pub mod format;
pub mod highlight;
pub mod inputs;
pub mod layout;
pub mod markup;
pub mod notebook;
pub mod package;
pub mod pipeline;
pub mod project;
#[cfg(feature = "serve")]
pub mod serve;
pub mod summary;
pub mod synth;
pub mod validate;
pub mod vendor;
pub mod verify;

pub use error::{Error, Result};

/// Name and version of this generator, as printed in the outputs.
pub const TOOL: &str = concat!(env!("CARGO_PKG_NAME"), " ", env!("CARGO_PKG_VERSION"));
