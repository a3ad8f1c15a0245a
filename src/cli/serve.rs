//! `scenario-ratios serve`: the live preview, when the binary was built with the `serve`
//! feature; otherwise a line saying how to build it.

use super::InputArgs;

/// Serves the preview of the build these arguments describe on `bind:port`.
#[cfg(feature = "serve")]
pub fn run(args: InputArgs, bind: &str, port: u16) -> scenario_ratios::Result<()> {
    scenario_ratios::serve::run(&args.options()?, bind, port)
}

/// Says that this binary has no live preview, and how to build one that has.
#[cfg(not(feature = "serve"))]
pub fn run(_: InputArgs, _: &str, _: u16) -> scenario_ratios::Result<()> {
    Err(scenario_ratios::Error::Usage {
        context: "serve".into(),
        message: "this binary was built without the live preview; run: cargo run --release --features serve -- serve".into(),
    })
}
