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
    pub about: String,
    pub platforms: Vec<String>,
    pub stubs: BTreeSet<String>,
}

impl Plan {
    pub fn parse(file: &str, text: &str) -> Result<Plan> {
        serde_json::from_str(text).map_err(|e| Error::Config {
            file: file.into(),
            message: e.to_string(),
        })
    }
}
