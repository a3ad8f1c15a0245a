//! `qa/validation.json`: the outcome of every rule the build checks its output against, with the
//! counts of passed and failed ones. It is written whatever the outcome; a failed rule then stops
//! the build.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{validate, Validation};
use ratios_base::dist::Dist;
use ratios_base::error::{Error, Result};
use ratios_base::json;
use ratios_base::layout::OutputFile;

/// The report as it is published.
#[derive(Serialize)]
struct Report<'a> {
    passed: usize,
    failed: usize,
    checks: &'a [Validation],
}

/// Runs the checks on `dist` (which SHA256SUMS will then cover, with the report), adds the
/// report, and fails naming every rule that did not pass, as `rule (detail)`.
pub fn add_report(dist: &mut Dist) -> Result<()> {
    let summed: BTreeSet<String> = dist
        .files()
        .map(|(p, _)| p.to_string())
        .chain([OutputFile::Validation.path().to_string()])
        .collect();
    let checks = validate(dist, &summed);
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| format!("{} ({})", c.rule, c.detail))
        .collect();
    dist.add(
        OutputFile::Validation.path(),
        json::pretty(
            &Report {
                passed: checks.len() - failed.len(),
                failed: failed.len(),
                checks: &checks,
            },
            OutputFile::Validation.path(),
        )?,
    )?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::ValidationFailed(failed))
    }
}
