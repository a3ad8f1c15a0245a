//! `scenario-ratios serve`: the live preview (feature `serve`; a binary built without it has no
//! such command).

use super::InputArgs;

/// Serves the preview of the build these arguments describe on `bind:port`.
pub(crate) fn run(args: InputArgs, bind: &str, port: u16) -> scenario_ratios::Result<()> {
    scenario_ratios::serve::run(&args.options()?, bind, port)
}
