//! `scenario-ratios explain`: acquires the inputs, computes, and prints the scope walk-through
//! and the matching outcome, writing nothing.

use scenario_ratios::{out, pipeline, walkthrough, Error};

use super::InputArgs;

/// Prints the walk-through of the build these arguments describe.
pub(crate) fn run(args: InputArgs) -> scenario_ratios::Result<()> {
    let (_, computed) = pipeline::compute_from(&args.options()?)?;
    let text = walkthrough::render(
        &computed.analysis,
        &computed.highlights,
        &computed.logs,
        &computed.manifest,
    )?;
    // A terminal's prompt starts on a line of its own.
    out!("{}", text.strip_suffix('\n').unwrap_or(&text)).map_err(Error::Stdout)
}
