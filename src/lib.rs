//! `scenario-ratios` builds the article "The Server/Offline ratio is workload-specific" and its
//! reproducibility bundle from pinned MLPerf Inference v6.1 results.
//!
//! The pipeline is linear, one module per stage: [`inputs`] (acquire and verify) → [`summary`]
//! (parse and cross-check) → [`analysis`] (scope, matching, ratios) → [`evidence`] (logs and
//! thresholds) → [`figure`] (SVG) → [`article`] (Markdown + Askama) → [`package`] (zip, SHA256SUMS,
//! provenance) → [`validate`] → [`dist`] (atomic output). [`pipeline`] runs the
//! stages; `main.rs` only parses the command line.

pub mod analysis;
pub mod archive;
pub mod article;
pub mod calendar;
pub mod config;
pub mod dist;
pub mod error;
pub mod evidence;
pub mod figure;
pub mod format;
pub mod inputs;
pub mod layout;
pub mod package;
pub mod pipeline;
pub mod summary;
pub mod synth;
pub mod validate;
pub mod verify;

pub use error::{Error, Result};
