//! `data/vendor.json`, the vendoring plan: which platforms the reader's offline rebuild covers and
//! which crates the bundle carries as stubs. The project loads it with the rest of its files;
//! `ratios-bundle`'s `vendoring` carries out the plan.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use ratios_base::error::{Error, Result};

/// Where the stub plan lives in the project.
pub const PLAN_PATH: &str = "data/vendor.json";

/// `data/vendor.json`: the platforms the offline rebuild covers and the crates carried as stubs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// A paragraph on how the stub list is chosen, for the reader of the JSON file; not used by the
    /// build.
    pub about: String,
    /// The target triples the reader's offline rebuild covers (`x86_64-unknown-linux-gnu`).
    pub platforms: Vec<String>,
    /// The locked crates the bundle carries as stubs (their `Cargo.toml` only), each as
    /// `<name> <version>`.
    pub stubs: BTreeSet<String>,
}

impl Plan {
    /// Parses the plan; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Plan> {
        serde_json::from_str(text).map_err(|e| Error::Config {
            file: file.into(),
            message: e.to_string(),
        })
    }
}
