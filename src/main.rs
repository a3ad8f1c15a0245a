//! Command line of `scenario-ratios`: parses arguments and calls the pipeline.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use scenario_ratios::inputs::{AcquireOptions, DEFAULT_CACHE, DEFAULT_MIRROR};
use scenario_ratios::pipeline::{self, BuildOptions};

/// Builds "The Server/Offline ratio is workload-specific" from pinned MLPerf Inference v6.1 results.
#[derive(Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    build: BuildArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Acquire the inputs, run the analysis and write the output folder (the default).
    Build(BuildArgs),
    /// Print the scope walk-through (rows left after each filter) and the matching outcome.
    Explain(BuildArgs),
    /// Write a synthetic summary pair of N rows (and a manifest pinning it) for scaling tests.
    Synth {
        /// Number of rows.
        #[arg(long)]
        rows: usize,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Folder to write into (mirror layout, plus inputs.json).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Check a published folder (SHA256SUMS and the bundle) or a reproducibility.zip.
    Verify {
        /// A dist folder or a reproducibility.zip.
        #[arg(default_value = "dist")]
        path: PathBuf,
    },
}

#[derive(Args, Clone)]
struct BuildArgs {
    /// Local mirror of upstream files, laid out as <owner>/<repo>/<path>
    /// [default: ../shared/upstream when that folder exists]
    #[arg(long, env = "UPSTREAM_MIRROR", value_name = "DIR")]
    mirror: Option<PathBuf>,
    /// Output folder, replaced whole when the build succeeds.
    #[arg(long, default_value = "dist", value_name = "DIR")]
    out: PathBuf,
    /// Folder of verified input copies.
    #[arg(long, default_value = DEFAULT_CACHE, value_name = "DIR")]
    cache: PathBuf,
    /// Never download: fail when an input is neither cached nor mirrored.
    #[arg(long)]
    offline: bool,
    /// Print the wall time of each build stage.
    #[arg(long)]
    timings: bool,
    /// Use this input manifest instead of the committed data/inputs.json.
    #[arg(long, value_name = "FILE", hide = true)]
    manifest: Option<PathBuf>,
    /// Timestamp (Unix seconds) of the zip entries [default: the manifest's source_date].
    #[arg(long, env = "SOURCE_DATE_EPOCH", value_name = "SECONDS")]
    source_date_epoch: Option<i64>,
    /// Replace the scheme and host of pinned URLs (for testing against a local server).
    #[arg(
        long,
        env = "SCENARIO_RATIOS_DOWNLOAD_BASE",
        value_name = "URL",
        hide = true
    )]
    download_base: Option<String>,
}

impl BuildArgs {
    fn options(self) -> BuildOptions {
        let mirror = self.mirror.or_else(|| {
            let default = PathBuf::from(DEFAULT_MIRROR);
            default.is_dir().then_some(default)
        });
        BuildOptions {
            root: PathBuf::from("."),
            source_date_epoch: self.source_date_epoch,
            acquire: AcquireOptions {
                cache_dir: self.cache,
                mirror,
                download_base: self.download_base,
                allow_download: !self.offline,
            },
            out: self.out,
            manifest: self.manifest,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Build(cli.build)) {
        Command::Build(args) => pipeline::build(&args.clone().options()).map(|report| {
            if args.timings {
                for (stage, d) in &report.timings {
                    eprintln!("{:>8.2} ms  {stage}", d.as_secs_f64() * 1e3);
                }
            }
            let c = &report.analysis.counts;
            eprintln!("{}", report.input_summary());
            println!(
                "{} rows, {} eligible, {} pairs, {} unmatched; wrote {} files to {}",
                c.rows,
                c.eligible,
                c.pairs,
                c.unmatched,
                report.files,
                report.out.display()
            );
        }),
        Command::Verify { path } => verify(&path),
        Command::Synth { rows, seed, out } => {
            scenario_ratios::synth::write(&out, rows, seed).map(|manifest| {
                println!(
                    "wrote {rows} rows to {}; analyse with: scenario-ratios explain --manifest {} --mirror {} --cache {} --offline",
                    out.display(),
                    manifest.display(),
                    out.display(),
                    out.join("cache").display()
                );
            })
        }
        Command::Explain(args) => pipeline::compute_from(&args.options()).map(|(_, computed)| {
            print!("{}", pipeline::explain(&computed));
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn verify(path: &std::path::Path) -> scenario_ratios::Result<()> {
    let report = scenario_ratios::verify::verify_path(path);
    if report.problems.is_empty() {
        println!(
            "{}: {} items verified, no problem",
            path.display(),
            report.checked
        );
        return Ok(());
    }
    for p in &report.problems {
        eprintln!("error: {p}");
    }
    Err(scenario_ratios::Error::invalid(
        path.display().to_string(),
        format!("{} problem(s)", report.problems.len()),
    ))
}
