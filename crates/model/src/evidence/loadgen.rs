//! The LoadGen summary log (`mlperf_log_summary.txt`): `key : value` lines in any order; unknown
//! lines are ignored, a missing required line is an error naming the file and where it ends.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::summary::Scenario;
use ratios_base::error::{Error, Result};

/// Throughput of an Offline run, as the summary log names it.
pub(crate) const OFFLINE_THROUGHPUT: &str = "Tokens per second";
/// Throughput of a Server run (the rate of completed tokens).
pub(crate) const SERVER_THROUGHPUT: &str = "Completed tokens per second";
const P99_TTFT: &str = "99.00 percentile first token latency (ns)";
const MIN_TTFT: &str = "Min First Token latency (ns)";
const COMPLETED_SAMPLES: &str = "Completed samples per second";
const SCHEDULED_SAMPLES: &str = "Scheduled samples per second";
const OFFLINE_SAMPLES: &str = "Samples per second";
const P99_TPOT: &str = "99.00 percentile time to output token (ns)";

/// The throughput line the checker reads for a scenario.
pub(crate) fn throughput_key(scenario: Scenario) -> &'static str {
    match scenario {
        Scenario::Offline => OFFLINE_THROUGHPUT,
        Scenario::Server | Scenario::Interactive => SERVER_THROUGHPUT,
    }
}

/// A number as a log prints it: the text and its value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Printed {
    /// The number's text as the file prints it, trimmed (`1183326.85`).
    pub text: String,
    /// The finite number the text reads as.
    pub value: f64,
}

/// LoadGen's verdict on a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Validity {
    /// `Result is : VALID`: LoadGen found every condition of the run met.
    #[serde(rename = "VALID")]
    Valid,
    /// `Result is : INVALID`: LoadGen found a condition of the run unmet, so the run is no result.
    #[serde(rename = "INVALID")]
    Invalid,
}

impl Validity {
    /// The verdict as the log's `Result is` line prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Validity::Valid => "VALID",
            Validity::Invalid => "INVALID",
        }
    }
}

/// The mode a LoadGen run was made in: LoadGen's `enum class TestMode` (mlcommons/inference at
/// commit b66003e10e2db4b8c36a448b0545ec90fcc6e9e9, `loadgen/test_settings.h`, lines 99-104),
/// spelled as the summary log's `Mode :` line prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TestMode {
    /// LoadGen's accuracy pass followed by its performance pass.
    SubmissionRun,
    /// Every sample of the data set once, with the responses logged for the accuracy script; no
    /// timing.
    AccuracyOnly,
    /// The timed run whose throughput and latencies are the result; the mode the checks require.
    PerformanceOnly,
    /// A search for the highest Server target the latency limits allow, not a result.
    FindPeakPerformance,
}

impl TestMode {
    const ALL: [TestMode; 4] = [
        TestMode::SubmissionRun,
        TestMode::AccuracyOnly,
        TestMode::PerformanceOnly,
        TestMode::FindPeakPerformance,
    ];

    /// The mode as the log's `Mode :` line prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            TestMode::SubmissionRun => "SubmissionRun",
            TestMode::AccuracyOnly => "AccuracyOnly",
            TestMode::PerformanceOnly => "PerformanceOnly",
            TestMode::FindPeakPerformance => "FindPeakPerformance",
        }
    }

    fn parse(text: &str) -> Option<TestMode> {
        TestMode::ALL.into_iter().find(|m| m.as_str() == text)
    }
}

impl std::fmt::Display for TestMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a LoadGen summary log says about one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadgenLog {
    /// Interactive runs report `Server`.
    pub scenario: Scenario,
    /// The log's `Mode` line.
    pub mode: TestMode,
    /// LoadGen's verdict (`Result is`).
    pub result: Validity,
    /// `Tokens per second` (Offline) or `Completed tokens per second` (Server).
    pub throughput: Printed,
    /// The 99th-percentile time to first token, in nanoseconds; required of a Server log, `None`
    /// for an Offline one.
    pub p99_ttft_ns: Option<u64>,
    /// The 99th-percentile time per output token, in nanoseconds; required of a Server log, `None`
    /// for an Offline one.
    pub p99_tpot_ns: Option<u64>,
    /// The TTFT limit the log states it was run with (`ttft_latency (ns)`), in nanoseconds; `None`
    /// where it states none.
    pub ttft_limit_ns: Option<u64>,
    /// The TPOT limit the log states it was run with (`tpot_latency (ns)`), in nanoseconds; `None`
    /// where it states none.
    pub tpot_limit_ns: Option<u64>,
    /// The conditions the log lists under its verdict, each with its answer (`Yes` is true),
    /// in the order of [`CONDITIONS`]; a condition the log does not list is absent.
    pub conditions: Vec<(&'static str, bool)>,
    /// A Server run's `Completed samples per second`: the rate up to the time its last query
    /// finished; `None` for an Offline run or where not printed.
    pub completed_samples_per_s: Option<Printed>,
    /// A Server run's `Scheduled samples per second`: the rate up to the time its last query was
    /// scheduled; `None` for an Offline run or where not printed.
    pub scheduled_samples_per_s: Option<Printed>,
    /// The queries per second a Server run was scheduled at (`target_qps`, which the submitter
    /// chose); `None` for an Offline run or where not printed.
    pub target_qps: Option<Printed>,
    /// An Offline run's `Samples per second`; `None` for a Server run or where not printed.
    pub samples_per_s: Option<Printed>,
    /// The smallest first-token latency a Server log prints, as printed (a negative one is a
    /// LoadGen defect the page reports).
    pub min_first_token_ns: Option<i64>,
    /// The errors the log's closing lines count (`No errors encountered during test.` is 0,
    /// `2 ERRORS encountered. See detailed log.` is 2); `None` when it has no such line.
    pub errors: Option<u64>,
    /// The warnings the log's closing lines count, read the same way; `None` when it has no such
    /// line.
    pub warnings: Option<u64>,
}

/// The conditions a LoadGen summary log lists under `Result is`: every run's minimum duration,
/// minimum query count and early stopping, and a Server run's performance (latency)
/// constraints.
pub const CONDITIONS: [&str; 4] = [
    "Performance constraints satisfied",
    "Min duration satisfied",
    "Min queries satisfied",
    "Early stopping satisfied",
];

/// The conditions a log of `scenario` must list.
pub(crate) fn required_conditions(scenario: Scenario) -> &'static [&'static str] {
    match scenario {
        Scenario::Offline => &CONDITIONS[1..],
        Scenario::Server | Scenario::Interactive => &CONDITIONS,
    }
}

/// A log or report with a control character (other than tab and line ends) is refused, naming
/// the line: its values reach the article.
pub(crate) fn refuse_controls(file: &str, text: &str) -> Result<()> {
    for (i, line) in text.lines().enumerate() {
        if let Some(c) = line
            .chars()
            .find(|&c| crate::summary::is_refused_control(c))
        {
            return Err(Error::parse(
                file,
                format!("line {}", i + 1),
                format!("control character U+{:04X}; refused", c as u32),
            ));
        }
    }
    Ok(())
}

fn excerpt(s: &str) -> String {
    ratios_base::text::excerpt(s, 80)
}

fn parse_number(file: &str, line: usize, key: &str, text: &str) -> Result<Printed> {
    let text = text.trim();
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(Printed {
            text: text.to_string(),
            value,
        }),
        _ => Err(Error::parse(
            file,
            format!("line {line}"),
            format!("`{key}`: expected a number, found {:?}", excerpt(text)),
        )),
    }
}

fn parse_ns<T: std::str::FromStr>(file: &str, line: usize, key: &str, text: &str) -> Result<T> {
    text.trim().parse::<T>().map_err(|_| {
        Error::parse(
            file,
            format!("line {line}"),
            format!(
                "`{key}`: expected whole nanoseconds, found {:?}",
                excerpt(text.trim())
            ),
        )
    })
}

/// The count of a log's closing line about `what` (`error` or `warning`): `No errors
/// encountered during test.` is 0, `1 ERROR encountered. See detailed log.` is 1, in any letter
/// case; `None` when no line says it.
fn tally(text: &str, what: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let line = line.trim().to_ascii_lowercase();
        let (count, rest) = line.split_once(' ')?;
        let rest = rest.strip_prefix(what)?;
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        if !rest.starts_with(" encountered") {
            return None;
        }
        match count {
            "no" => Some(0),
            n => n.parse().ok(),
        }
    })
}

/// Parses `mlperf_log_summary.txt`.
pub fn parse_summary_log(file: &str, text: &str) -> Result<LoadgenLog> {
    refuse_controls(file, text)?;
    let mut found: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    let mut last_line = 0;
    for (i, line) in text.lines().enumerate() {
        last_line = i + 1;
        let line = line.trim_end_matches('\r');
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        // The first occurrence wins (Server logs repeat the throughput under Additional Stats).
        found.entry(key.trim()).or_insert((i + 1, value.trim()));
    }
    let missing = |key: &str| {
        Error::parse(
            file,
            format!("line {last_line} (end of file)"),
            format!("missing required line `{key} :`"),
        )
    };
    let get = |key: &'static str| found.get(key).copied().ok_or_else(|| missing(key));
    // A required line whose value must be one of a few words.
    let unexpected = |(line, text): (usize, &str), key: &str, expected: &str| {
        Error::parse(
            file,
            format!("line {line}"),
            format!("`{key}`: expected {expected}, found {:?}", excerpt(text)),
        )
    };
    let at = get("Scenario")?;
    // LoadGen logs an Interactive run as a Server run, so a log never names Interactive.
    let scenario = Scenario::parse(at.1)
        .filter(|s| *s != Scenario::Interactive)
        .ok_or_else(|| unexpected(at, "Scenario", "Offline or Server"))?;
    let at = get("Mode")?;
    let mode = TestMode::parse(at.1).ok_or_else(|| {
        let modes = TestMode::ALL.map(TestMode::as_str).join(", ");
        unexpected(
            at,
            "Mode",
            &format!("one of LoadGen's test modes ({modes})"),
        )
    })?;
    let at = get("Result is")?;
    let result = [Validity::Valid, Validity::Invalid]
        .into_iter()
        .find(|v| v.as_str() == at.1)
        .ok_or_else(|| unexpected(at, "Result is", "VALID or INVALID"))?;
    let key = throughput_key(scenario);
    let (tl, tv) = get(key)?;
    let throughput = parse_number(file, tl, key, tv)?;
    let ns = |key: &'static str| -> Result<Option<u64>> {
        found
            .get(key)
            .map(|&(l, v)| parse_ns(file, l, key, v))
            .transpose()
    };
    // p99 latencies are required of Server runs and absent from Offline runs.
    let (p99_ttft_ns, p99_tpot_ns) = match scenario {
        Scenario::Offline => (None, None),
        Scenario::Server | Scenario::Interactive => (
            Some(ns(P99_TTFT)?.ok_or_else(|| missing(P99_TTFT))?),
            Some(ns(P99_TPOT)?.ok_or_else(|| missing(P99_TPOT))?),
        ),
    };
    let mut conditions = Vec::new();
    for key in CONDITIONS {
        if let Some(&at) = found.get(key) {
            let yes = match at.1 {
                "Yes" => true,
                "No" => false,
                _ => return Err(unexpected(at, key, "Yes or No")),
            };
            conditions.push((key, yes));
        }
    }
    let server = scenario != Scenario::Offline;
    // A number the log prints for runs of one kind only (`for_server`), else `None`.
    let number = |key: &'static str, for_server: bool| -> Result<Option<Printed>> {
        found
            .get(key)
            .filter(|_| server == for_server)
            .map(|&(l, v)| parse_number(file, l, key, v))
            .transpose()
    };
    let min_first_token_ns = match found.get(MIN_TTFT) {
        Some(&(l, v)) if server => Some(parse_ns(file, l, MIN_TTFT, v)?),
        _ => None,
    };
    Ok(LoadgenLog {
        scenario,
        mode,
        result,
        throughput,
        p99_ttft_ns,
        p99_tpot_ns,
        ttft_limit_ns: ns("ttft_latency (ns)")?,
        tpot_limit_ns: ns("tpot_latency (ns)")?,
        conditions,
        completed_samples_per_s: number(COMPLETED_SAMPLES, true)?,
        scheduled_samples_per_s: number(SCHEDULED_SAMPLES, true)?,
        target_qps: number("target_qps", true)?,
        samples_per_s: number(OFFLINE_SAMPLES, false)?,
        min_first_token_ns,
        errors: tally(text, "error"),
        warnings: tally(text, "warning"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER: &str = "\
================================================
MLPerf Results Summary
================================================
SUT name : Hand
Scenario : Server
Mode     : PerformanceOnly
Completed samples per second    : 1.5
Completed tokens per second: 1234.56
Result is : VALID
  Performance constraints satisfied : Yes
  Min duration satisfied : Yes
  Min queries satisfied : Yes
  Early stopping satisfied: Yes
99.00 percentile first token latency (ns)   : 1999999999
99.00 percentile time to output token (ns)   : 80000000
ttft_latency (ns): 2000000000
tpot_latency (ns): 80000000
";

    #[test]
    fn server_log_fields_are_read() {
        let log = parse_summary_log("s.txt", SERVER).unwrap();
        assert_eq!(log.scenario, Scenario::Server);
        assert_eq!(log.result, Validity::Valid);
        assert_eq!(log.throughput.text, "1234.56");
        assert_eq!(log.p99_ttft_ns, Some(1_999_999_999));
        assert_eq!(log.p99_tpot_ns, Some(80_000_000));
        assert_eq!(log.tpot_limit_ns, Some(80_000_000));
    }

    #[test]
    fn the_rates_the_counts_and_a_negative_minimum_are_read_as_printed() {
        let text = SERVER.replace(
            "Result is : VALID",
            "Result is : VALID\nScheduled samples per second : 1.6\nMin First Token latency (ns) : -9223372036854775808\ntarget_qps : 0.95",
        ) + "No warnings encountered during test.\n\n2 ERRORS encountered. See detailed log.\n";
        let log = parse_summary_log("s.txt", &text).unwrap();
        assert_eq!(log.completed_samples_per_s.unwrap().text, "1.5");
        assert_eq!(log.scheduled_samples_per_s.unwrap().value, 1.6);
        assert_eq!(log.target_qps.unwrap().text, "0.95");
        assert_eq!(log.min_first_token_ns, Some(i64::MIN));
        assert_eq!((log.errors, log.warnings), (Some(2), Some(0)));
        assert_eq!(log.samples_per_s, None);
        // Without the closing lines the counts are unknown, not zero.
        let log = parse_summary_log("s.txt", SERVER).unwrap();
        assert_eq!((log.errors, log.warnings), (None, None));
        assert_eq!(
            tally("1 warning encountered. See detailed log.", "warning"),
            Some(1)
        );
        assert_eq!(
            tally("3 ERROR encountered. See detailed log.", "error"),
            Some(3)
        );
        assert_eq!(
            tally("WARNING: sample_concatenate_permutation was set", "warning"),
            None
        );
        // An Offline log's samples per second; its Server-only lines are not read.
        let offline = "Scenario : Offline\nMode : PerformanceOnly\nSamples per second: 18.403\nTokens per second: 70132.3\nResult is : VALID\ntarget_qps : 19\n";
        let log = parse_summary_log("o.txt", offline).unwrap();
        assert_eq!(log.samples_per_s.unwrap().text, "18.403");
        assert_eq!(log.target_qps, None);
    }

    #[test]
    fn invalid_result_is_read_as_invalid() {
        let log = parse_summary_log("s.txt", &SERVER.replace(": VALID", ": INVALID")).unwrap();
        assert_eq!(log.result, Validity::Invalid);
    }

    #[test]
    fn windows_line_endings_and_unknown_lines_change_nothing() {
        let plain = parse_summary_log("s.txt", SERVER).unwrap();
        let crlf = SERVER.replace('\n', "\r\n");
        assert_eq!(parse_summary_log("s.txt", &crlf).unwrap(), plain);
        let extra = SERVER.replace(
            "Mode     :",
            "Brand new stat : 42\nsome words without a colon\nMode     :",
        );
        assert_eq!(parse_summary_log("s.txt", &extra).unwrap(), plain);
    }

    #[test]
    fn a_missing_throughput_line_names_file_and_line() {
        let text = SERVER.replace("Completed tokens per second: 1234.56\n", "");
        let err = parse_summary_log("logs/s.txt", &text)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "logs/s.txt: line 16 (end of file): missing required line `Completed tokens per second :`"
        );
    }

    #[test]
    fn a_garbled_number_or_scenario_names_its_line() {
        let text = SERVER.replace("1234.56", "12x4");
        let err = parse_summary_log("s.txt", &text).unwrap_err().to_string();
        assert!(
            err.starts_with("s.txt: line 8: `Completed tokens per second`"),
            "{err}"
        );
        let text = SERVER.replace("Scenario : Server", "Scenario : SingleStream");
        let err = parse_summary_log("s.txt", &text).unwrap_err().to_string();
        assert!(err.starts_with("s.txt: line 5: `Scenario`"), "{err}");
        let text = SERVER.replace("SUT name : Hand", "SUT name : Ha\u{7}nd");
        let err = parse_summary_log("s.txt", &text).unwrap_err().to_string();
        assert_eq!(err, "s.txt: line 4: control character U+0007; refused");
    }

    #[test]
    fn the_mode_is_one_of_loadgens_test_modes() {
        let log = parse_summary_log("s.txt", SERVER).unwrap();
        assert_eq!(log.mode, TestMode::PerformanceOnly);
        let text = SERVER.replace("Mode     : PerformanceOnly", "Mode     : AccuracyOnly");
        let log = parse_summary_log("s.txt", &text).unwrap();
        assert_eq!(log.mode, TestMode::AccuracyOnly);
        let text = SERVER.replace("Mode     : PerformanceOnly", "Mode     : Turbo");
        let err = parse_summary_log("s.txt", &text).unwrap_err().to_string();
        assert_eq!(
            err,
            "s.txt: line 6: `Mode`: expected one of LoadGen's test modes (SubmissionRun, \
             AccuracyOnly, PerformanceOnly, FindPeakPerformance), found \"Turbo\""
        );
    }
}
