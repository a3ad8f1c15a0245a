//! `scenario-ratios synth`: writes a synthetic summary pair of N rows and a manifest pinning it,
//! then prints the command that analyses it.

use std::path::{Path, PathBuf};

use scenario_ratios::inputs::AcquireOptions;
use scenario_ratios::out;
use scenario_ratios::project::{self, Project};

/// Writes `rows` synthetic rows made from `seed` into `out`, for the project at `root` (found
/// upward when not given).
pub fn run(
    rows: usize,
    seed: u64,
    out: &Path,
    root: Option<PathBuf>,
) -> scenario_ratios::Result<()> {
    let root = match root {
        Some(r) => r,
        None => project::find_root(Path::new("."))?,
    };
    let project = Project::load(&root)?;
    let acquire = AcquireOptions::for_project(&root);
    let manifest = scenario_ratios::synth::write(out, rows, seed, &project, &acquire)?;
    out!(
        "wrote {rows} rows to {}; analyse with: scenario-ratios explain --manifest {} --mirror {} --cache {} --offline",
        out.display(),
        manifest.display(),
        out.display(),
        out.join("cache").display()
    )
    .map_err(scenario_ratios::Error::Stdout)
}
