//! The `scenario-ratios` command: parses the command line ([`cli`]) and runs the command it
//! names; a failure is one line on standard error and exit status 1.

mod cli;

use std::process::ExitCode;

use cli::Command;
use scenario_ratios::base::console;
use scenario_ratios::base::text::{escaped, excerpt};
use scenario_ratios::{note, Error};

/// The longest error line printed, in characters; a longer one is cut, saying how much.
const MAX_ERROR_CHARS: usize = 2_000;

fn main() -> ExitCode {
    // A write past a file-size limit (`ulimit -f`) fails with an error the command reports,
    // instead of a signal that kills it without a word.
    scenario_ratios::base::sys::ignore_file_size_signal();
    let result = match cli::parse() {
        Command::Build(args) => cli::build::run(args),
        Command::Explain(args) => cli::explain::run(args),
        #[cfg(feature = "serve")]
        Command::Serve { input, port, bind } => cli::serve::run(input, &bind, port),
        Command::Verify { path, public_key } => cli::verify::run(path, public_key),
    };
    match result {
        // A line lost on a full or closed standard error fails the command, though it cannot say
        // so there.
        Ok(()) if console::stderr_failed() => ExitCode::FAILURE,
        Ok(()) => ExitCode::SUCCESS,
        // The reader of the output stopped reading (`| head`): nothing is wrong, nothing is said,
        // as ripgrep does.
        Err(Error::Stdout(e)) if console::is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Whatever a message quotes, it stays one line, of a bounded length, and shows what
            // it quotes.
            note!(
                "error: {}",
                excerpt(&escaped(&e.to_string()), MAX_ERROR_CHARS)
            );
            ExitCode::FAILURE
        }
    }
}
