//! Check the highlighted rows against their LoadGen logs, their accuracy
//! reports and the MLPerf rules.
//!
//! For each highlighted row the pipeline looks up the pinned `mlperf_log_summary.txt` and
//! `accuracy.txt` under the row's Location, parses them ([`loadgen`], [`accuracy`]), and records
//! each check with its status and what it found ([`finding`], worded by the templates). A missing
//! file makes a check "not checked", never a silent pass. Limits and targets come from [`facts`],
//! read from `sources/mlperf-checker-facts.json`.

pub mod accuracy;
pub mod finding;
pub mod loadgen;
pub mod pair_logs;

use std::fmt;

use serde::Serialize;

use crate::highlight::Highlights;
use crate::inputs::{InputKind, Inputs, VerifiedInput};
use crate::project::facts::{self, CheckerFacts, MetricBound, ModelFacts};
use crate::summary::{Field, RowId, Scenario, Summary, SummaryRow};
use accuracy::{
    half_unit_of_last_digit, parse_accuracy_field, parse_accuracy_report, significant_digits,
    summary_unit, SUMMARY_SIGNIFICANT_DIGITS,
};
use finding::{Finding, Target};
use loadgen::{parse_summary_log, LoadgenLog, Validity};
use ratios_base::error::{Error, Result};

/// What a check tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckKind {
    /// The log describes this row's scenario, in PerformanceOnly mode.
    LogScenario,
    /// LoadGen says VALID.
    ResultValid,
    /// Every condition the log lists under its verdict is satisfied, and the log lists every
    /// condition of its scenario.
    RunConditions,
    /// The log's rate equals the summary's Result to the summary's last printed digit.
    Throughput,
    /// p99 time to first token is strictly below the limit.
    P99Ttft,
    /// p99 time per output token is strictly below the limit.
    P99Tpot,
    /// The metric reaches its target (a lower bound).
    AccuracyTarget(String),
    /// The metric stays within its upper limit.
    AccuracyUpperLimit(String),
}

impl CheckKind {
    /// True for the accuracy checks: a metric against its target or its upper limit.
    pub fn is_accuracy(&self) -> bool {
        matches!(
            self,
            CheckKind::AccuracyTarget(_) | CheckKind::AccuracyUpperLimit(_)
        )
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckKind::LogScenario => f.write_str("log-scenario"),
            CheckKind::ResultValid => f.write_str("result-valid"),
            CheckKind::RunConditions => f.write_str("run-conditions"),
            CheckKind::Throughput => f.write_str("throughput"),
            CheckKind::P99Ttft => f.write_str("p99-ttft"),
            CheckKind::P99Tpot => f.write_str("p99-tpot"),
            CheckKind::AccuracyTarget(m) => write!(f, "accuracy {m} target"),
            CheckKind::AccuracyUpperLimit(m) => write!(f, "accuracy {m} upper limit"),
        }
    }
}

impl Serialize for CheckKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The evidence was read and meets the rule.
    Pass,
    /// The evidence was read and does not meet the rule.
    Fail,
    /// The evidence is missing (no pinned log, no known limit or target, or the metric not
    /// reported), so the check says nothing either way; never counted as a pass.
    NotChecked,
}

impl Status {
    fn of(passed: bool) -> Status {
        if passed {
            Status::Pass
        } else {
            Status::Fail
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::NotChecked => "not checked",
        })
    }
}

/// The facts must cite a source the manifest pins (same repository, commit, path and git blob),
/// and every fact must stand at its recorded line of that pinned copy, so an edit to the facts
/// that the checker's source does not bear out fails the build.
fn check_facts_source(inputs: &Inputs, facts: &CheckerFacts) -> Result<()> {
    let src = &facts.source;
    let pinned = inputs
        .of_kind(InputKind::Source)
        .find(|i| src.is(&i.pin))
        .ok_or_else(|| Error::Config {
            file: facts::FACTS_PATH.into(),
            message: format!(
                "the facts cite {} at commit {} ({}), which the input manifest does not pin as a source",
                src.repository, src.commit, src.path
            ),
        })?;
    if pinned.git_blob_sha1.as_str() != src.git_blob_sha1 {
        return Err(Error::Config {
            file: facts::FACTS_PATH.into(),
            message: format!(
                "source.git_blob_sha1 {} differs from the pinned input `{}` ({})",
                src.git_blob_sha1, pinned.pin.name, pinned.git_blob_sha1
            ),
        });
    }
    let text = std::str::from_utf8(&pinned.bytes).map_err(|_| Error::Config {
        file: pinned.pin.name.clone(),
        message: "not UTF-8".into(),
    })?;
    facts.check_against_source(text).map(|_| ())
}

/// A pinned log or report's bytes as text.
fn utf8(input: &VerifiedInput) -> Result<&str> {
    std::str::from_utf8(&input.bytes)
        .map_err(|_| Error::parse(&input.pin.name, "whole file", "invalid UTF-8"))
}

/// One check of one highlighted row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// The summary row checked: the highlight's Offline or Server row.
    pub row: RowId,
    /// The label of the highlight the row belongs to ([`crate::highlight::Highlight::label`]).
    pub highlight: String,
    /// The row's scenario.
    pub scenario: Scenario,
    /// The row's benchmark (`MlperfModel`), whose checker facts apply.
    pub model: String,
    /// What the check tests; published as `name` (`p99-ttft`).
    #[serde(rename = "name")]
    pub kind: CheckKind,
    /// The outcome: pass, fail or not checked.
    pub status: Status,
    /// The key numbers in a few characters, for the compact table (e.g. `79.03 < 80 ms`).
    pub short: String,
    /// The numbers behind the outcome.
    pub detail: String,
    /// Where the evidence was read (pinned input names).
    pub evidence: Vec<String>,
    /// For a latency check: the p99 the log reports and the limit, as the page prints them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
}

/// A p99 latency and its limit, formatted (`79.03 ms`, `80 ms`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latency {
    /// The p99 latency the log reports, in milliseconds as the page prints it (`79.03 ms`).
    pub observed: String,
    /// The checker's limit for the benchmark, printed alike (`80 ms`).
    pub limit: String,
}

/// All checks, with a tally.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checks {
    /// Checks that pass.
    pub pass: usize,
    /// Checks that fail.
    pub fail: usize,
    /// Checks that could not be made for want of evidence.
    pub not_checked: usize,
    /// The checker source the limits and targets come from: repository, short commit and path.
    pub rule_source: String,
    /// Every check, highlight by highlight, the Offline row's before the Server row's.
    pub items: Vec<Check>,
}

fn ms(ns: u64) -> String {
    let ms = ns as f64 / 1e6;
    if ms.fract() == 0.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

/// Runs every check of every highlighted row. `round` is the round the analysis found in the
/// summary (`Analysis::round`); the checker facts must be that round's.
pub fn check(
    summary: &Summary,
    round: &str,
    highlights: &Highlights,
    inputs: &Inputs,
    facts: &CheckerFacts,
) -> Result<Checks> {
    check_facts_source(inputs, facts)?;
    if facts.round != round {
        return Err(Error::Config {
            file: facts::FACTS_PATH.into(),
            message: format!(
                "the facts are the checker's for round {}, but the summary's rows are round {round}",
                facts.round
            ),
        });
    }
    let mut items = Vec::new();
    for h in &highlights.highlights {
        for id in [h.offline_id, h.server_id] {
            let row = &summary.rows[id.0 as usize];
            let Some(scenario) = row.scenario() else {
                continue;
            };
            RowChecks {
                row,
                label: &h.label,
                scenario,
                model: row.raw(Field::MlperfModel),
                inputs,
                facts,
                items: &mut items,
            }
            .run()?;
        }
    }
    let count = |s| items.iter().filter(|c: &&Check| c.status == s).count();
    Ok(Checks {
        pass: count(Status::Pass),
        fail: count(Status::Fail),
        not_checked: count(Status::NotChecked),
        rule_source: format!(
            "{} at {}, {}",
            facts.source.repository,
            ratios_base::text::short_commit(&facts.source.commit),
            facts.source.path
        ),
        items,
    })
}

/// The checks of one row.
struct RowChecks<'a> {
    row: &'a SummaryRow,
    label: &'a str,
    scenario: Scenario,
    model: &'a str,
    inputs: &'a Inputs,
    facts: &'a CheckerFacts,
    items: &'a mut Vec<Check>,
}

impl RowChecks<'_> {
    fn push(
        &mut self,
        kind: CheckKind,
        status: Status,
        finding: Finding,
        evidence: Vec<String>,
    ) -> Result<()> {
        let (short, detail) = finding.words()?;
        let latency = match &finding {
            Finding::Latency {
                observed, limit, ..
            } => Some(Latency {
                observed: observed.clone(),
                limit: limit.clone(),
            }),
            _ => None,
        };
        self.items.push(Check {
            row: self.row.id,
            highlight: self.label.to_string(),
            scenario: self.scenario,
            model: self.model.to_string(),
            kind,
            status,
            short,
            detail,
            evidence,
            latency,
        });
        Ok(())
    }

    /// The row's Location, relative to the results tree (`./closed/...` → `closed/...`).
    fn location(&self) -> &str {
        self.row.raw(Field::Location).trim_start_matches("./")
    }

    /// The pinned input of `kind` at `path` in a copy of this round's results tree.
    fn find(&self, kind: InputKind, path: &str) -> Option<&VerifiedInput> {
        let tree = format!("/inference_results_{}", self.facts.round);
        self.inputs
            .of_kind(kind)
            .find(|f| f.pin.path == path && f.pin.repository.ends_with(&tree))
    }

    fn run(&mut self) -> Result<()> {
        let model_facts = self.facts.models.get(self.model);
        let log_path = format!("{}/mlperf_log_summary.txt", self.location());
        match self.find(InputKind::LoadgenSummary, &log_path) {
            None => {
                for kind in [
                    CheckKind::LogScenario,
                    CheckKind::ResultValid,
                    CheckKind::RunConditions,
                    CheckKind::Throughput,
                ] {
                    self.push(
                        kind,
                        Status::NotChecked,
                        Finding::NoLog {
                            path: log_path.clone(),
                        },
                        vec![],
                    )?;
                }
            }
            Some(input) => {
                let log = parse_summary_log(&input.pin.name, utf8(input)?)?;
                let ev = vec![input.pin.name.clone()];
                self.log_checks(&log, &ev)?;
                if self.scenario == Scenario::Server {
                    self.latency_checks(&log, model_facts, &ev)?;
                }
            }
        }
        self.accuracy_checks(model_facts)
    }

    fn log_checks(&mut self, log: &LoadgenLog, ev: &[String]) -> Result<()> {
        let same = log.scenario == self.scenario && log.mode == loadgen::TestMode::PerformanceOnly;
        self.push(
            CheckKind::LogScenario,
            Status::of(same),
            Finding::LogScenario {
                scenario: log.scenario.to_string(),
                mode: log.mode.to_string(),
                row: self.scenario.to_string(),
            },
            ev.to_vec(),
        )?;
        self.push(
            CheckKind::ResultValid,
            Status::of(log.result == Validity::Valid),
            Finding::ResultValid {
                result: log.result.as_str(),
            },
            ev.to_vec(),
        )?;
        let required = loadgen::required_conditions(log.scenario);
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|c| !log.conditions.iter().any(|(k, _)| k == c))
            .collect();
        let unmet: Vec<&str> = log
            .conditions
            .iter()
            .filter(|(_, yes)| !yes)
            .map(|(k, _)| *k)
            .collect();
        // A log that lists no condition at all cannot be checked for them; one that lists some
        // must list every condition of its scenario.
        self.push(
            CheckKind::RunConditions,
            if log.conditions.is_empty() {
                Status::NotChecked
            } else {
                Status::of(missing.is_empty() && unmet.is_empty())
            },
            Finding::Conditions {
                listed: log.conditions.len(),
                met: log.conditions.len() - unmet.len(),
                unmet: unmet.join(", "),
                missing: missing.join(", "),
            },
            ev.to_vec(),
        )?;
        let summary_text = self.row.raw(Field::Result);
        let summary_value: f64 = summary_text.parse().unwrap_or(f64::NAN);
        let summary_unit = summary_unit(summary_text);
        let log_unit = 2.0 * half_unit_of_last_digit(&log.throughput.text);
        let tolerance = (summary_unit + log_unit) / 2.0;
        let diff = (log.throughput.value - summary_value).abs();
        let agree = diff <= tolerance * (1.0 + 1e-9);
        self.push(
            CheckKind::Throughput,
            Status::of(agree),
            Finding::Throughput {
                log: ratios_base::number::tokens(log.throughput.value),
                summary: ratios_base::number::tokens(summary_value),
                agree,
                key: loadgen::throughput_key(log.scenario),
                log_text: log.throughput.text.clone(),
                summary_text: ratios_base::text::excerpt(summary_text, 40),
                rounded: significant_digits(summary_text) <= SUMMARY_SIGNIFICANT_DIGITS,
                tolerance: round_sig(tolerance, 6),
                diff: round_sig(diff, 6),
            },
            ev.to_vec(),
        )
    }

    fn latency_checks(
        &mut self,
        log: &LoadgenLog,
        model_facts: Option<&ModelFacts>,
        ev: &[String],
    ) -> Result<()> {
        let limits = model_facts.map(|m| &m.server_latency_limits);
        for (kind, observed, limit, stated) in [
            (
                CheckKind::P99Ttft,
                log.p99_ttft_ns,
                limits.map(|l| l.ttft_ns),
                log.ttft_limit_ns,
            ),
            (
                CheckKind::P99Tpot,
                log.p99_tpot_ns,
                limits.map(|l| l.tpot_ns),
                log.tpot_limit_ns,
            ),
        ] {
            let (status, finding) = match (observed, limit) {
                (Some(o), Some(l)) => (
                    Status::of(o < l),
                    Finding::Latency {
                        observed: ms(o),
                        limit: ms(l),
                        below: o < l,
                        line: limits.map_or(0, |l| l.line),
                        stated: stated.map(ms),
                    },
                ),
                (_, None) => (
                    Status::NotChecked,
                    Finding::NoLimit {
                        model: self.model.to_string(),
                    },
                ),
                (None, _) => (Status::NotChecked, Finding::NoP99),
            };
            self.push(kind, status, finding, ev.to_vec())?;
        }
        Ok(())
    }

    /// The summary's Accuracy field, and accuracy.txt where pinned, against each bound.
    fn accuracy_checks(&mut self, model_facts: Option<&ModelFacts>) -> Result<()> {
        let achieved = parse_accuracy_field(self.row.raw(Field::Accuracy));
        let location = self.location();
        let acc_path = format!(
            "{}/accuracy.txt",
            location
                .strip_suffix("/performance/run_1")
                .map_or(location.to_string(), |p| format!("{p}/accuracy"))
        );
        let report = match self.find(InputKind::Accuracy, &acc_path) {
            None => None,
            Some(input) => Some((
                input.pin.name.clone(),
                parse_accuracy_report(&input.pin.name, utf8(input)?, self.facts)?,
            )),
        };
        let Some(mf) = model_facts else {
            return self.push(
                CheckKind::AccuracyTarget("any".into()),
                Status::NotChecked,
                Finding::NoTargets {
                    model: self.model.to_string(),
                },
                vec![],
            );
        };
        let bounds = mf
            .accuracy_targets
            .iter()
            .map(|b| (b, true))
            .chain(mf.accuracy_upper_limits.iter().map(|b| (b, false)));
        for (bound, lower) in bounds {
            let kind = if lower {
                CheckKind::AccuracyTarget(bound.metric.clone())
            } else {
                CheckKind::AccuracyUpperLimit(bound.metric.clone())
            };
            let from_summary = achieved.get(&bound.metric);
            let from_report = report.as_ref().and_then(|(_, m)| m.get(&bound.metric));
            let mut evidence = vec!["summary.csv Accuracy".to_string()];
            if let Some((n, _)) = &report {
                evidence.push(n.clone());
            }
            let (status, finding) = bound_outcome(bound, lower, from_summary, from_report);
            self.push(kind, status, finding, evidence)?;
        }
        Ok(())
    }
}

/// The outcome of one accuracy bound, given the value the summary and accuracy.txt state.
fn bound_outcome(
    bound: &MetricBound,
    lower: bool,
    from_summary: Option<&loadgen::Printed>,
    from_report: Option<&loadgen::Printed>,
) -> (Status, Finding) {
    let relation = if lower { ">=" } else { "<=" };
    let target = Target {
        metric: bound.metric.clone(),
        relation,
        value: round_sig(bound.value, 10),
        reference: bound.reference.to_string(),
        multiplier: bound.multiplier.map_or("1".into(), |m| m.to_string()),
        line: bound.line,
    };
    let Some(value) = from_summary.or(from_report).map(|p| p.value) else {
        return (Status::NotChecked, Finding::NotReported { target });
    };
    let disagree = match (from_summary, from_report) {
        (Some(s), Some(r)) => {
            (s.value - r.value).abs()
                > half_unit_of_last_digit(&s.text).max(half_unit_of_last_digit(&r.text))
                    * (1.0 + 1e-9)
        }
        _ => false,
    };
    let meets = if lower {
        value >= bound.value
    } else {
        value <= bound.value
    };
    (
        Status::of(meets && !disagree),
        Finding::Bound {
            value: round_sig(value, 6),
            bound: round_sig(bound.value, 6),
            shown_relation: if meets {
                relation
            } else if lower {
                "<"
            } else {
                ">"
            },
            from_summary: from_summary.map(|s| s.text.clone()),
            from_report: from_report.map(|r| r.text.clone()),
            disagree,
            target,
        },
    )
}

/// `x` printed with at most `digits` significant digits, without trailing zeros.
pub fn round_sig(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    // libm's log10, not the system's: the same digits on every platform and C library.
    let magnitude = libm::log10(x.abs()).floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_sig_trims() {
        assert_eq!(round_sig(0.150000001, 6), "0.15");
        assert_eq!(round_sig(44.3867688, 10), "44.3867688");
        assert_eq!(round_sig(1234.0, 3), "1234");
    }

    #[test]
    fn check_kinds_keep_their_published_names() {
        assert_eq!(CheckKind::P99Tpot.to_string(), "p99-tpot");
        assert_eq!(
            CheckKind::AccuracyUpperLimit("TOKENS_PER_SAMPLE".into()).to_string(),
            "accuracy TOKENS_PER_SAMPLE upper limit"
        );
        assert!(CheckKind::AccuracyTarget("x".into()).is_accuracy());
        assert!(!CheckKind::Throughput.is_accuracy());
    }
}
