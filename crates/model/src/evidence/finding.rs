//! The words of a check's outcome. A [`Finding`] holds what a check found, its numbers already
//! formatted; `templates/text/check-short.txt` words it for the compact checks table and
//! `templates/text/check-detail.txt` for the table of every check and for results.json.

use askama::Template;

use ratios_base::error::{Error, Result};

/// A bound as the submission checker states it, for the words of an accuracy check.
#[derive(Debug, Clone)]
pub struct Target {
    /// The checker's name of the metric (`ROUGE1`, `TOKENS_PER_SAMPLE`).
    pub metric: String,
    /// `>=` for a target, `<=` for an upper limit.
    pub relation: &'static str,
    /// The bound, reference × multiplier, to ten significant digits.
    pub value: String,
    /// The reference value the checker states for the metric.
    pub reference: String,
    /// The factor the checker applies to the reference (`0.999`; `1` where it gives none).
    pub multiplier: String,
    /// Its line of the checker's source.
    pub line: u32,
}

/// What one check found.
#[derive(Debug, Clone)]
pub enum Finding {
    /// The row's LoadGen summary log is not among the pinned inputs.
    NoLog {
        /// The log's path in the results tree, which no pinned input has: the row's Location, then
        /// `mlperf_log_summary.txt`.
        path: String,
    },
    /// The scenario and mode the log describes, and the row's scenario.
    LogScenario {
        /// The log's `Scenario` line (`Server` for an Interactive run).
        scenario: String,
        /// The log's `Mode` line (`PerformanceOnly`).
        mode: String,
        /// The summary row's scenario.
        row: String,
    },
    /// The log's `Result is` line.
    ResultValid {
        /// LoadGen's verdict as the log prints it: `VALID` or `INVALID`.
        result: &'static str,
    },
    /// The conditions the log lists under its verdict: how many it lists and how many it says
    /// are met, those it says are not, and those of the scenario it does not list.
    Conditions {
        /// Conditions the log lists under its verdict.
        listed: usize,
        /// Of those, the conditions it answers `Yes`.
        met: usize,
        /// The conditions it answers `No`, separated by commas; empty when there are none.
        unmet: String,
        /// The conditions of the run's scenario it does not list, separated by commas; empty when
        /// there are none.
        missing: String,
    },
    /// The log's throughput against the summary's Result, which rounds it.
    Throughput {
        /// The log's throughput in tokens per second, formatted for the compact words.
        log: String,
        /// The summary's Result, formatted alike.
        summary: String,
        /// The two differ by no more than `tolerance`.
        agree: bool,
        /// The log line the throughput is read from (`Tokens per second`,
        /// `Completed tokens per second`).
        key: &'static str,
        /// The log's throughput as printed.
        log_text: String,
        /// The summary's Result as written, cut to 40 characters.
        summary_text: String,
        /// The summary prints at most six significant figures, so it is read as rounded to six.
        rounded: bool,
        /// The most the two may differ: half a unit of the last digit of each, summed, to six
        /// significant digits.
        tolerance: String,
        /// How far apart the two are, to six significant digits.
        diff: String,
    },
    /// A p99 latency against its limit (strictly below passes).
    Latency {
        /// The p99 latency the log reports, in milliseconds (`79.03 ms`).
        observed: String,
        /// The checker's limit for the benchmark, in milliseconds (`80 ms`).
        limit: String,
        /// The p99 lies strictly below the limit.
        below: bool,
        /// The line of the checker's source that holds the limit.
        line: u32,
        /// The limit the log states it ran with, where it prints one.
        stated: Option<String>,
    },
    /// The checker facts hold no latency limit for the model.
    NoLimit {
        /// The row's benchmark (`MlperfModel`), which the facts give no limits for.
        model: String,
    },
    /// The log holds no p99 latency.
    NoP99,
    /// The checker facts hold no accuracy targets for the model.
    NoTargets {
        /// The row's benchmark (`MlperfModel`), which the facts give no targets for.
        model: String,
    },
    /// An accuracy value (from the summary, accuracy.txt or both) against a bound.
    Bound {
        /// The value checked, to six significant digits: the summary's where it gives one, else
        /// accuracy.txt's.
        value: String,
        /// The bound's value as the compact words give it (fewer digits than the target's).
        bound: String,
        /// The relation the value stands in: the bound's own when it is met, else its opposite.
        shown_relation: &'static str,
        /// The metric as the summary's Accuracy field prints it, where it does.
        from_summary: Option<String>,
        /// The metric as the pinned accuracy.txt prints it, where that file is pinned and prints
        /// it.
        from_report: Option<String>,
        /// The two differ by more than half a unit of the last digit either prints.
        disagree: bool,
        /// The bound as the checker states it.
        target: Target,
    },
    /// Neither the summary nor accuracy.txt reports the metric.
    NotReported {
        /// The bound the metric was to be checked against.
        target: Target,
    },
}

#[derive(Template)]
#[template(path = "text/check-short.txt")]
struct Short<'a> {
    f: &'a Finding,
}

#[derive(Template)]
#[template(path = "text/check-detail.txt")]
struct Detail<'a> {
    f: &'a Finding,
}

impl Finding {
    /// The compact words and the full ones.
    pub fn words(&self) -> Result<(String, String)> {
        let fail = |name: &str, e: askama::Error| Error::Template {
            template: name.into(),
            message: e.to_string(),
        };
        Ok((
            Short { f: self }
                .render()
                .map_err(|e| fail("templates/text/check-short.txt", e))?,
            Detail { f: self }
                .render()
                .map_err(|e| fail("templates/text/check-detail.txt", e))?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            metric: "ROUGE1".into(),
            relation: ">=",
            value: "44.3867688".into(),
            reference: "44.4312".into(),
            multiplier: "0.999".into(),
            line: 121,
        }
    }

    #[test]
    fn every_finding_is_worded_compactly_and_in_full() {
        let cases = [
            (
                Finding::NoLog { path: "a/log.txt".into() },
                "no log",
                "no pinned log at a/log.txt",
            ),
            (
                Finding::LogScenario {
                    scenario: "Server".into(),
                    mode: "PerformanceOnly".into(),
                    row: "Server".into(),
                },
                "Server PerformanceOnly",
                "log: Scenario Server, Mode PerformanceOnly; summary row: Server",
            ),
            (
                Finding::ResultValid { result: "INVALID" },
                "INVALID",
                "log: Result is INVALID",
            ),
            (
                Finding::Throughput {
                    log: "850".into(),
                    summary: "851".into(),
                    agree: false,
                    key: "Completed tokens per second",
                    log_text: "850.0".into(),
                    summary_text: "851.0".into(),
                    rounded: true,
                    tolerance: "0.55".into(),
                    diff: "1".into(),
                },
                "850 ≠ 851",
                "log Completed tokens per second 850.0 vs summary Result 851.0: the summary gives \
                 6 significant figures and the log its printed digits, so they may differ by half \
                 a unit of each, at most 0.55; they differ by 1",
            ),
            (
                Finding::Throughput {
                    log: "1,183,326.85".into(),
                    summary: "1,183,326.854".into(),
                    agree: true,
                    key: "Completed tokens per second",
                    log_text: "1183326.85".into(),
                    summary_text: "1183326.8540322022".into(),
                    rounded: false,
                    tolerance: "0.005".into(),
                    diff: "0.004032".into(),
                },
                "1,183,326.85 ≈ 1,183,326.854",
                "log Completed tokens per second 1183326.85 vs summary Result 1183326.8540322022: \
                 both give their printed digits, so they may differ by half a unit of each, at most \
                 0.005; they differ by 0.004032",
            ),
            (
                Finding::Conditions {
                    listed: 4,
                    met: 4,
                    unmet: String::new(),
                    missing: String::new(),
                },
                "4 of 4 conditions met",
                "log: all 4 conditions listed under the verdict are met",
            ),
            (
                Finding::Conditions {
                    listed: 3,
                    met: 2,
                    unmet: "Min queries satisfied".into(),
                    missing: "Performance constraints satisfied".into(),
                },
                "2 of 3 conditions met",
                "log: 2 of the 3 conditions listed under the verdict are met; not met: Min queries \
                 satisfied; not listed: Performance constraints satisfied",
            ),
            (
                Finding::Latency {
                    observed: "80 ms".into(),
                    limit: "80 ms".into(),
                    below: false,
                    line: 1787,
                    stated: Some("80 ms".into()),
                },
                "80 ms ≥ 80 ms",
                "p99 80 ms is not below limit 80 ms (checker line 1787); the log states 80 ms",
            ),
            (
                Finding::Latency {
                    observed: "79.03 ms".into(),
                    limit: "80 ms".into(),
                    below: true,
                    line: 1787,
                    stated: None,
                },
                "79.03 ms < 80 ms",
                "p99 79.03 ms < limit 80 ms (checker line 1787)",
            ),
            (
                Finding::NoLimit { model: "m".into() },
                "no limit",
                "no latency limit known for m",
            ),
            (Finding::NoP99, "no p99", "no p99 in the log"),
            (
                Finding::NoTargets { model: "m".into() },
                "no targets",
                "no accuracy targets known for m",
            ),
            (
                Finding::Bound {
                    value: "44.1".into(),
                    bound: "44.3868".into(),
                    shown_relation: "<",
                    from_summary: Some("44.1".into()),
                    from_report: Some("44.9".into()),
                    disagree: true,
                    target: target(),
                },
                "ROUGE1 44.1 < 44.3868",
                "summary 44.1, accuracy.txt 44.9 (the two disagree); \
                 ROUGE1 >= 44.3867688 (44.4312 × 0.999, checker line 121)",
            ),
            (
                Finding::Bound {
                    value: "44.8".into(),
                    bound: "44.3868".into(),
                    shown_relation: ">=",
                    from_summary: None,
                    from_report: Some("44.8".into()),
                    disagree: false,
                    target: target(),
                },
                "ROUGE1 44.8 >= 44.3868",
                "accuracy.txt 44.8; ROUGE1 >= 44.3867688 (44.4312 × 0.999, checker line 121)",
            ),
            (
                Finding::NotReported { target: target() },
                "ROUGE1 not reported",
                "ROUGE1 is not reported; ROUGE1 >= 44.3867688 (44.4312 × 0.999, checker line 121)",
            ),
        ];
        for (finding, short, detail) in cases {
            assert_eq!(
                finding.words().unwrap(),
                (short.to_string(), detail.to_string())
            );
        }
    }
}
