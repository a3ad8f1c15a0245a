//! The `scenario-ratios` command: parses the command line ([`cli`]) and runs the command it
//! names; a failure is one line on standard error and exit status 1.

mod cli;

use std::process::ExitCode;

use cli::Command;
use scenario_ratios::base::text::escaped;

fn main() -> ExitCode {
    let result = match cli::parse() {
        Command::Build(args) => cli::build::run(args),
        Command::Explain(args) => cli::explain::run(args),
        Command::Serve { input, port, bind } => cli::serve::run(input, &bind, port),
        Command::Synth {
            rows,
            seed,
            out,
            root,
        } => cli::synth::run(rows, seed, &out, root),
        Command::Verify { path, public_key } => cli::verify::run(path, public_key),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Whatever a message quotes, it stays one line and shows what it quotes.
            eprintln!("error: {}", escaped(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}
