//! `scenario-ratios build` (the default): runs the whole pipeline and reports what it wrote.

use scenario_ratios::base::minisign::KEY_VAR;
use scenario_ratios::base::text::path;
use scenario_ratios::inputs::Origin;
use scenario_ratios::pipeline::{self, BuildReport};
use scenario_ratios::signature::Outcome;
use scenario_ratios::{note, out, Error};

use super::BuildArgs;

/// Builds, prints the stages' wall times when asked, where the inputs came from, and the counts.
pub(crate) fn run(args: BuildArgs) -> scenario_ratios::Result<()> {
    let timings = args.timings;
    let report = pipeline::build(&args.options()?)?;
    if timings {
        for (stage, d) in &report.timings {
            note!("{:>8.2} ms  {stage}", d.as_secs_f64() * 1e3);
        }
    }
    let c = &report.analysis.counts;
    note!("{}", input_summary(&report));
    match &report.signature {
        Outcome::Signed(id) => note!("SHA256SUMS signed by key {id} (SHA256SUMS.minisig)"),
        Outcome::Unsigned { declared: None } => note!(
            "note: SHA256SUMS is not signed (to sign it, set {KEY_VAR} to a minisign secret key file; see README)"
        ),
        Outcome::Unsigned { declared: Some(id) } => note!(
            "note: SHA256SUMS is not signed: {KEY_VAR} is not set, and content/article.json declares key {id}, so `verify` refuses this folder until it is signed"
        ),
    }
    out!(
        "{} rows, {} eligible, {} pairs, {} unmatched; wrote {} files to {}",
        c.rows,
        c.eligible,
        c.pairs,
        c.unmatched,
        report.files,
        path(&report.out)
    )
    .map_err(Error::Stdout)
}

/// One line: how many inputs were verified, and where they came from.
fn input_summary(report: &BuildReport) -> String {
    let count = |f: fn(&Origin) -> bool| report.inputs.iter().filter(|(_, o)| f(o)).count();
    format!(
        "{} inputs verified: {} from the cache, {} from the mirror, {} downloaded",
        report.inputs.len(),
        count(|o| matches!(o, Origin::Cache(_))),
        count(|o| matches!(o, Origin::Mirror(_))),
        count(|o| matches!(o, Origin::Download(_))),
    )
}
