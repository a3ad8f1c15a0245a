//! Lines for the person at the terminal, written without ever panicking: `println!` and
//! `eprintln!` panic when their stream is closed or full (`> /dev/full`, a pipe whose reader has
//! gone), which would turn a finished build into an abort.
//!
//! [`out`] writes one line of a command's output to standard output and returns the error, which
//! the command passes up (a reader that stopped reading, as `| head` does, is told apart by
//! [`is_closed_pipe`]). [`note`] writes one line of progress or warning to standard error; a
//! failure there cannot be reported where it happened, so it is remembered and [`stderr_failed`]
//! turns it into exit status 1 at the end.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a line could not be written to standard error.
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `line` and a newline to standard output, and flushes it.
pub fn out(line: fmt::Arguments<'_>) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_fmt(line)?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

/// Writes `line` and a newline to standard error; a failure is remembered for
/// [`stderr_failed`].
pub fn note(line: fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    let written = stderr
        .write_fmt(line)
        .and_then(|()| stderr.write_all(b"\n"))
        .and_then(|()| stderr.flush());
    if written.is_err() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// True once a line could not be written to standard error.
pub fn stderr_failed() -> bool {
    STDERR_FAILED.load(Ordering::Relaxed)
}

/// True when `e` says the reader of standard output has gone (a closed pipe).
pub fn is_closed_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// `println!` that returns the error instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::console::out(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics (see [`note`]).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::console::note(format_args!($($arg)*))
    };
}
