//! A child process's peak memory, as the kernel counted it for that process alone.

use std::path::Path;
use std::process::{Command, Output};

use super::root;

/// Runs `program` with `args` to its end and returns its output, its exit code and its peak
/// resident set size in KiB, as the kernel counted it for that one process (`ru_maxrss` of
/// `wait4`). The program is started by a small Python process (fork, then exec): a process
/// started straight from this test binary would count the test binary's own memory too, since
/// the kernel carries the high-water mark of the address space a process is born in.
pub(crate) fn run_measured(
    program: &Path,
    args: &[&std::ffi::OsStr],
) -> (Output, Option<i32>, u64) {
    const MEASURE: &str = "import os, sys\n\
pid = os.fork()\n\
if pid == 0:\n    os.execv(sys.argv[2], sys.argv[2:])\n\
_, status, usage = os.wait4(pid, 0)\n\
open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n\
sys.exit(os.waitstatus_to_exitcode(status))\n";
    let report = tempfile::NamedTempFile::new().unwrap();
    let output = Command::new("python3")
        .arg("-c")
        .arg(MEASURE)
        .arg(report.path())
        .arg(program)
        .args(args)
        .env("SCENARIO_RATIOS_CRATE_CACHE", root().join("data/crates"))
        .env_remove("UPSTREAM_MIRROR")
        .env_remove("SCENARIO_RATIOS_DOWNLOAD_BASE")
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("python3 runs");
    let peak: u64 = std::fs::read_to_string(report.path())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let code = output.status.code();
    (output, code, peak)
}
