//! Writes a synthetic summary pair of N rows and a manifest pinning it, for scaling tests and
//! benchmarks, then prints the command that analyses it. Test tooling, so an example rather than
//! a command of the published binary:
//!
//! ```sh
//! cargo run --release --example synth -- --rows 100000 --out /tmp/synth
//! ```
//!
//! A failure is one line on standard error and exit status 1, as with the binary.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use ratios_dev::synth;
use scenario_ratios::base::text::{escaped, excerpt};
use scenario_ratios::inputs::AcquireOptions;
use scenario_ratios::project::{self, Project};
use scenario_ratios::{note, out};

/// Write a synthetic summary pair of N rows (and a manifest pinning it) for scaling tests.
#[derive(Parser)]
struct Args {
    /// Number of rows (at most 100000).
    #[arg(long)]
    rows: usize,
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Folder to write into (mirror layout, plus inputs.json): new, empty, or one synth wrote.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The project folder whose highlights the rows include [default: found upward].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            note!("error: {}", excerpt(&escaped(&e.to_string()), 2_000));
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> scenario_ratios::Result<()> {
    let root = match args.root {
        Some(r) => r,
        None => project::find_root(Path::new("."))?,
    };
    let project = Project::load(&root)?;
    let acquire = AcquireOptions::for_project(&root);
    let manifest = synth::write(&args.out, args.rows, args.seed, &project, &acquire)?;
    out!(
        "wrote {} rows to {}; analyse with: scenario-ratios explain --manifest {} --mirror {} --cache {} --offline",
        args.rows,
        args.out.display(),
        manifest.display(),
        args.out.display(),
        args.out.join("cache").display()
    )
    .map_err(scenario_ratios::Error::Stdout)
}
