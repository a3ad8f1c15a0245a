//! The command line: the clap types of every command and option, and the merging of the build
//! options given before the command with those given after it. One file per command runs it.

pub(crate) mod build;
pub(crate) mod explain;
#[cfg(feature = "serve")]
pub(crate) mod serve;
pub(crate) mod verify;

use std::path::{Path, PathBuf};

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use scenario_ratios::base::console;
use scenario_ratios::base::text::escaped;
use scenario_ratios::inputs::AcquireOptions;
use scenario_ratios::pipeline::BuildOptions;
use scenario_ratios::project;
use scenario_ratios::vendoring::DEFAULT_CRATE_CACHE;

/// Builds "The Server/Offline ratio is workload-specific" from pinned MLPerf Inference v6.1 results.
///
/// The build options may stand before the command (`scenario-ratios --offline explain`) or after
/// it; given in both places, the one after wins.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    build: BuildArgs,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Acquire the inputs, run the analysis and write the output folder (the default).
    Build(BuildArgs),
    /// Print the scope walk-through (rows left after each filter) and the matching outcome.
    Explain(InputArgs),
    /// Live preview: build in memory, serve, reload on every saved edit.
    #[cfg(feature = "serve")]
    Serve {
        #[command(flatten)]
        input: InputArgs,
        /// Port to listen on.
        #[arg(long, default_value_t = 3000)]
        port: u16,
        /// Address to listen on (only this machine by default).
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
    },
    /// Check a published folder (SHA256SUMS, its signature and the bundle) or a reproducibility.zip.
    Verify {
        /// A published folder or a reproducibility.zip [default: dist in the project]
        path: Option<PathBuf>,
        /// The author's minisign public key as you found it (the RW… line of minisign.pub)
        /// [default: the key the bundle's settings declare]
        #[arg(long, value_name = "KEY")]
        public_key: Option<String>,
    },
}

/// The options of every command that reads the project and its inputs: build, explain, serve.
#[derive(Args, Clone)]
pub(crate) struct InputArgs {
    /// The project folder [default: the nearest folder upward holding this project's Cargo.toml]
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Local mirror of upstream files, laid out as <owner>/<repo>/<path>
    /// [default: ../shared/upstream beside the project, when that folder exists]
    #[arg(long, env = "UPSTREAM_MIRROR", value_name = "DIR")]
    mirror: Option<PathBuf>,
    /// Folder of verified input copies: new, empty, or one this tool made [default: data/upstream in the project]
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Never download: fail when an input is neither cached nor mirrored.
    #[arg(long)]
    offline: bool,
    /// Use this input manifest instead of the project's data/inputs.json.
    #[arg(long, value_name = "FILE", hide = true)]
    manifest: Option<PathBuf>,
    /// Folder of verified .crate archives and vendor fragments [default: data/crates in the project]
    #[arg(
        long,
        env = "SCENARIO_RATIOS_CRATE_CACHE",
        value_name = "DIR",
        hide = true
    )]
    crate_cache: Option<PathBuf>,
    /// Replace the scheme and host of pinned URLs (for testing against a local server).
    #[arg(
        long,
        env = "SCENARIO_RATIOS_DOWNLOAD_BASE",
        value_name = "URL",
        hide = true
    )]
    download_base: Option<String>,
}

/// The options of `build`: those of every command that reads the inputs, and what it writes.
#[derive(Args, Clone)]
pub(crate) struct BuildArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Output folder, replaced whole when the build succeeds [default: dist in the project]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the wall time of each build stage.
    #[arg(long)]
    pub timings: bool,
    /// Timestamp (Unix seconds) of the zip entries [default: the manifest's source_date].
    /// The SOURCE_DATE_EPOCH environment variable is not read, so a value left in a shell never
    /// changes the published bytes.
    #[arg(long, value_name = "SECONDS")]
    source_date_epoch: Option<i64>,
}

impl InputArgs {
    /// These options, each taken from `before` (given before the command) where it is not given
    /// here.
    fn or(self, before: InputArgs) -> InputArgs {
        InputArgs {
            root: self.root.or(before.root),
            mirror: self.mirror.or(before.mirror),
            cache: self.cache.or(before.cache),
            offline: self.offline || before.offline,
            manifest: self.manifest.or(before.manifest),
            crate_cache: self.crate_cache.or(before.crate_cache),
            download_base: self.download_base.or(before.download_base),
        }
    }

    /// The build options these arguments give, with the defaults of the project they name (the
    /// output folder `dist`, the manifest's timestamp).
    pub(crate) fn options(self) -> scenario_ratios::Result<BuildOptions> {
        let root = match self.root {
            Some(r) => {
                project::check_is_project(&r)?;
                r
            }
            None => project::find_root(Path::new("."))?,
        };
        let defaults = AcquireOptions::for_project(&root);
        let mirror = self.mirror.or(defaults.mirror);
        Ok(BuildOptions {
            source_date_epoch: None,
            acquire: AcquireOptions {
                own_cache: self.cache.is_none(),
                cache_dir: self.cache.unwrap_or(defaults.cache_dir),
                mirror,
                download_base: self.download_base,
                allow_download: !self.offline,
            },
            out: root.join("dist"),
            crate_cache: self
                .crate_cache
                .unwrap_or_else(|| root.join(DEFAULT_CRATE_CACHE)),
            manifest: self.manifest,
            sign: None,
            root,
        })
    }
}

impl BuildArgs {
    /// These options, each taken from `before` (given before the command) where it is not given
    /// here.
    fn or(self, before: BuildArgs) -> BuildArgs {
        BuildArgs {
            input: self.input.or(before.input),
            out: self.out.or(before.out),
            timings: self.timings || before.timings,
            source_date_epoch: self.source_date_epoch.or(before.source_date_epoch),
        }
    }

    /// The build options these arguments give, with the defaults of the project they name.
    pub(crate) fn options(self) -> scenario_ratios::Result<BuildOptions> {
        if let Some(v) = std::env::var_os("SOURCE_DATE_EPOCH") {
            if self.source_date_epoch.is_none() {
                scenario_ratios::note!(
                    "note: SOURCE_DATE_EPOCH={} in the environment is ignored: the bundle's timestamp comes from data/inputs.json (source_date), or from --source-date-epoch",
                    escaped(&v.to_string_lossy())
                );
            }
        }
        let mut options = self.input.options()?;
        options.source_date_epoch = self.source_date_epoch;
        // The author's secret key, from the environment only (never an argument, which shells
        // keep in their history and `ps` shows).
        use scenario_ratios::base::minisign::{KEY_VAR, PASSWORD_VAR};
        let password = match std::env::var_os(PASSWORD_VAR).filter(|p| !p.is_empty()) {
            None => None,
            Some(p) => Some(p.into_string().map_err(|_| scenario_ratios::Error::Usage {
                context: "build".into(),
                message: format!("{PASSWORD_VAR} is not valid UTF-8; minisign passwords are text"),
            })?),
        };
        options.sign = std::env::var_os(KEY_VAR)
            .filter(|v| !v.is_empty())
            .map(|path| scenario_ratios::signature::SigningKey {
                path: path.into(),
                password,
            });
        if let Some(out) = self.out {
            options.out = out;
        }
        Ok(options)
    }
}

/// The build-only options (`--out`, `--timings`, `--source-date-epoch`) written on the command
/// line before a command that reads the inputs but writes no output folder, as the user spelled
/// the first.
fn build_only_before(matches: &ArgMatches) -> Option<String> {
    ["out", "timings", "source_date_epoch"]
        .into_iter()
        .find(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
        .map(|id| format!("--{}", id.replace('_', "-")))
}

/// The first option written on the command line before the command (not one read from the
/// environment), as the user spelled it.
fn given_before(matches: &ArgMatches) -> Option<String> {
    matches
        .ids()
        .find(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| format!("--{}", id.as_str().replace('_', "-")))
}

/// Prints clap's help, version or usage error and exits with its status, as clap's own `exit`
/// does, except that a help text lost on a full standard output (`> /dev/full`) is one line on
/// standard error and status 1; a reader that stopped reading (`| head`) is no failure.
fn exit_with(e: clap::Error) -> ! {
    // A binary built without the live preview has no `serve` command; asked for one, it says how
    // to build a binary that has.
    if !cfg!(feature = "serve")
        && e.kind() == clap::error::ErrorKind::InvalidSubcommand
        && e.get(clap::error::ContextKind::InvalidSubcommand)
            .is_some_and(|v| v.to_string() == "serve")
    {
        scenario_ratios::note!(
            "error: serve: this binary was built without the live preview; run: cargo run --release --features serve -- serve"
        );
        std::process::exit(1)
    }
    match e.print() {
        Err(io) if !console::is_closed_pipe(&io) => {
            let stream = if e.use_stderr() {
                "standard error"
            } else {
                "standard output"
            };
            scenario_ratios::note!("error: {stream}: {io}");
            std::process::exit(1)
        }
        _ => std::process::exit(e.exit_code()),
    }
}

/// The command the command line names (`build` when it names none), with the build options given
/// before it merged into its own; a non-build command given build options before it is refused
/// (clap prints the error and exits).
pub(crate) fn parse() -> Command {
    let matches = Cli::command()
        .try_get_matches()
        .unwrap_or_else(|e| exit_with(e));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| exit_with(e));
    let before = cli.build;
    let refuse = |option: String, name: &str, of: &str| -> ! {
        let e = Cli::command().error(
            clap::error::ErrorKind::ArgumentConflict,
            format!("{option} is an option of {of}, not of {name}"),
        );
        exit_with(e)
    };
    match cli.command {
        None => Command::Build(before),
        Some(Command::Build(args)) => Command::Build(args.or(before)),
        Some(Command::Explain(input)) => {
            if let Some(option) = build_only_before(&matches) {
                refuse(option, "explain", "build");
            }
            Command::Explain(input.or(before.input))
        }
        #[cfg(feature = "serve")]
        Some(Command::Serve { input, port, bind }) => {
            if let Some(option) = build_only_before(&matches) {
                refuse(option, "serve", "build");
            }
            Command::Serve {
                input: input.or(before.input),
                port,
                bind,
            }
        }
        Some(other) => {
            if let Some(option) = given_before(&matches) {
                let name = matches.subcommand_name().unwrap_or("this command");
                let readers = if cfg!(feature = "serve") {
                    "build, explain and serve"
                } else {
                    "build and explain"
                };
                refuse(option, name, readers);
            }
            other
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own consistency check of every command and option (conflicting names, a default
    /// that its parser refuses, a missing value name), as mdBook runs it.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
