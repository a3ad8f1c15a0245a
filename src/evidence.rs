//! Stage 4 of the pipeline: check the highlighted rows against their LoadGen logs, their accuracy
//! reports and the MLPerf rules.
//!
//! For each highlighted row the pipeline looks up the pinned `mlperf_log_summary.txt` and
//! `accuracy.txt` under the row's Location, parses them, and records each check with its status
//! and the numbers behind it. A missing file makes a check "not checked", never a silent pass.
//! Limits and targets come from `sources/mlperf-checker-facts.json`, our own file of facts read from
//! the MLPerf submission checker, each with its line number.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::analysis::Analysis;
use crate::error::{Error, Result};
use crate::inputs::{InputKind, Inputs};
use crate::summary::{Field, RowId, Summary};

/// Where the checker facts live in the repository (compiled into the binary).
pub const FACTS_PATH: &str = "sources/mlperf-checker-facts.json";
const FACTS_TEXT: &str = include_str!("../sources/mlperf-checker-facts.json");

/// Where a fact was read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FactSource {
    pub repository: String,
    pub commit: String,
    pub path: String,
    pub git_blob_sha1: String,
    pub url: String,
}

/// A bound on one accuracy metric: `value = reference × multiplier`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MetricBound {
    pub metric: String,
    pub reference: f64,
    pub multiplier: Option<f64>,
    pub value: f64,
    pub line: u32,
}

/// Server latency limits of an LLM (p99 must be strictly below).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LatencyLimits {
    pub ttft_ns: u64,
    pub tpot_ns: u64,
    pub line: u32,
}

/// The checker facts of one model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelFacts {
    pub accuracy_targets: Vec<MetricBound>,
    pub accuracy_upper_limits: Vec<MetricBound>,
    pub server_latency_limits: LatencyLimits,
    pub throughput_log_field: BTreeMap<String, serde_json::Value>,
}

/// The facts file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckerFacts {
    pub about: String,
    pub source: FactSource,
    pub round: String,
    pub models: BTreeMap<String, ModelFacts>,
}

impl CheckerFacts {
    pub fn committed() -> Result<Self> {
        serde_json::from_str(FACTS_TEXT).map_err(|e| Error::Config {
            file: FACTS_PATH.into(),
            message: e.to_string(),
        })
    }
}

/// The scenario a LoadGen log reports. Interactive runs report `Server`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum LogScenario {
    Offline,
    Server,
    Other(String),
}

impl LogScenario {
    fn parse(text: &str) -> Self {
        match text {
            "Offline" => LogScenario::Offline,
            "Server" => LogScenario::Server,
            other => LogScenario::Other(other.to_string()),
        }
    }
}

/// The names one log shape gives to the values both shapes report.
pub struct LogKeys {
    pub offline_throughput: &'static str,
    pub server_throughput: &'static str,
    pub p99_ttft: &'static str,
    pub p99_tpot: &'static str,
}

/// Names in `mlperf_log_summary.txt`.
pub const SUMMARY_KEYS: LogKeys = LogKeys {
    offline_throughput: "Tokens per second",
    server_throughput: "Completed tokens per second",
    p99_ttft: "99.00 percentile first token latency (ns)",
    p99_tpot: "99.00 percentile time to output token (ns)",
};

/// Keys in `mlperf_log_detail.txt`.
pub const DETAIL_KEYS: LogKeys = LogKeys {
    offline_throughput: "result_tokens_per_second",
    server_throughput: "result_completed_tokens_per_second",
    p99_ttft: "result_first_token_99.00_percentile_latency_ns",
    p99_tpot: "result_time_per_output_token_99.00_percentile_ns",
};

impl LogKeys {
    /// The throughput the checker uses for `scenario` (Interactive runs log as Server).
    pub fn throughput(&self, scenario: &LogScenario) -> &'static str {
        match scenario {
            LogScenario::Offline => self.offline_throughput,
            _ => self.server_throughput,
        }
    }

    /// p99 TTFT and TPOT: required for Server runs, absent from Offline runs.
    fn p99(
        &self,
        scenario: &LogScenario,
        ns: impl Fn(&'static str) -> Result<Option<u64>>,
        missing: impl Fn(&str) -> Error,
    ) -> Result<(Option<u64>, Option<u64>)> {
        if *scenario == LogScenario::Offline {
            return Ok((None, None));
        }
        let required = |key| ns(key)?.ok_or_else(|| missing(key)).map(Some);
        Ok((required(self.p99_ttft)?, required(self.p99_tpot)?))
    }
}

impl fmt::Display for LogScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogScenario::Offline => f.write_str("Offline"),
            LogScenario::Server => f.write_str("Server"),
            LogScenario::Other(s) => f.write_str(s),
        }
    }
}

/// A number as a log prints it: the text and its value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Printed {
    pub text: String,
    pub value: f64,
}

/// What a LoadGen log (summary or detail) says about one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadgenLog {
    pub scenario: LogScenario,
    pub mode: String,
    /// `VALID` or `INVALID` as printed.
    pub result: String,
    /// `Tokens per second` (Offline) or `Completed tokens per second` (Server).
    pub throughput: Printed,
    pub p99_ttft_ns: Option<u64>,
    pub p99_tpot_ns: Option<u64>,
    /// The limits the log states it was run with.
    pub ttft_limit_ns: Option<u64>,
    pub tpot_limit_ns: Option<u64>,
    pub min_duration_satisfied: Option<bool>,
    pub min_queries_satisfied: Option<bool>,
    pub early_stopping_satisfied: Option<bool>,
    pub performance_constraints_satisfied: Option<bool>,
}

impl LoadgenLog {
    pub fn is_valid(&self) -> bool {
        self.result == "VALID"
    }
}

/// A log or report with a control character (other than tab and line ends) is refused, naming
/// the line: its values reach the article.
fn refuse_controls(file: &str, text: &str) -> Result<()> {
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
            format!("`{key}`: expected a number, found {text:?}"),
        )),
    }
}

fn parse_ns(file: &str, line: usize, key: &str, text: &str) -> Result<u64> {
    text.trim().parse::<u64>().map_err(|_| {
        Error::parse(
            file,
            format!("line {line}"),
            format!(
                "`{key}`: expected whole nanoseconds, found {:?}",
                text.trim()
            ),
        )
    })
}

fn yes_no(text: &str) -> Option<bool> {
    match text.trim() {
        "Yes" => Some(true),
        "No" => Some(false),
        _ => None,
    }
}

/// Parses `mlperf_log_summary.txt`. Unknown lines are ignored; a missing required line is an error
/// naming the file and the line the file ends at.
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
    let scenario = LogScenario::parse(get("Scenario")?.1);
    let (_, mode) = get("Mode")?;
    let (result_line, result) = get("Result is")?;
    if result != "VALID" && result != "INVALID" {
        return Err(Error::parse(
            file,
            format!("line {result_line}"),
            format!("`Result is`: expected VALID or INVALID, found {result:?}"),
        ));
    }
    let throughput_key = SUMMARY_KEYS.throughput(&scenario);
    let (tl, tv) = get(throughput_key)?;
    let throughput = parse_number(file, tl, throughput_key, tv)?;
    let ns = |key: &'static str| -> Result<Option<u64>> {
        found
            .get(key)
            .map(|&(l, v)| parse_ns(file, l, key, v))
            .transpose()
    };
    let (p99_ttft_ns, p99_tpot_ns) = SUMMARY_KEYS.p99(&scenario, ns, missing)?;
    let flag = |key: &str| found.get(key).and_then(|&(_, v)| yes_no(v));
    Ok(LoadgenLog {
        scenario,
        mode: mode.to_string(),
        result: result.to_string(),
        throughput,
        p99_ttft_ns,
        p99_tpot_ns,
        ttft_limit_ns: ns("ttft_latency (ns)")?,
        tpot_limit_ns: ns("tpot_latency (ns)")?,
        min_duration_satisfied: flag("Min duration satisfied"),
        min_queries_satisfied: flag("Min queries satisfied"),
        early_stopping_satisfied: flag("Early stopping satisfied"),
        performance_constraints_satisfied: flag("Performance constraints satisfied"),
    })
}

/// Parses `mlperf_log_detail.txt` (`:::MLLOG {json}` lines). Other lines are ignored.
pub fn parse_detail_log(file: &str, text: &str) -> Result<LoadgenLog> {
    refuse_controls(file, text)?;
    let mut found: BTreeMap<String, (usize, serde_json::Value)> = BTreeMap::new();
    let mut last_line = 0;
    for (i, line) in text.lines().enumerate() {
        last_line = i + 1;
        let Some(json) = line.trim_end_matches('\r').strip_prefix(":::MLLOG ") else {
            continue;
        };
        #[derive(Deserialize)]
        struct Entry {
            key: String,
            value: serde_json::Value,
        }
        let entry: Entry = serde_json::from_str(json).map_err(|e| {
            Error::parse(
                file,
                format!("line {}", i + 1),
                format!("bad MLLOG entry: {e}"),
            )
        })?;
        found.entry(entry.key).or_insert((i + 1, entry.value));
    }
    let missing = |key: &str| {
        Error::parse(
            file,
            format!("line {last_line} (end of file)"),
            format!("missing required entry `{key}`"),
        )
    };
    let text_of = |key: &str| -> Result<String> {
        match found.get(key) {
            Some((_, serde_json::Value::String(s))) => Ok(s.clone()),
            Some((l, v)) => Err(Error::parse(
                file,
                format!("line {l}"),
                format!("`{key}`: expected text, found {v}"),
            )),
            None => Err(missing(key)),
        }
    };
    let number = |key: &str| -> Result<Option<(usize, f64)>> {
        match found.get(key) {
            Some((l, v)) => v
                .as_f64()
                .filter(|x| x.is_finite())
                .map(|x| Some((*l, x)))
                .ok_or_else(|| {
                    Error::parse(
                        file,
                        format!("line {l}"),
                        format!("`{key}`: expected a number, found {v}"),
                    )
                }),
            None => Ok(None),
        }
    };
    let ns = |key: &str| -> Result<Option<u64>> { Ok(number(key)?.map(|(_, x)| x as u64)) };
    let scenario = LogScenario::parse(&text_of("effective_scenario")?);
    let throughput_key = DETAIL_KEYS.throughput(&scenario);
    let (_, tv) = number(throughput_key)?.ok_or_else(|| missing(throughput_key))?;
    let flag = |key: &str| found.get(key).and_then(|(_, v)| v.as_bool());
    let (p99_ttft_ns, p99_tpot_ns) = DETAIL_KEYS.p99(&scenario, ns, missing)?;
    Ok(LoadgenLog {
        scenario,
        mode: text_of("effective_test_mode")?,
        result: text_of("result_validity")?,
        throughput: Printed {
            text: found[throughput_key].1.to_string(),
            value: tv,
        },
        p99_ttft_ns,
        p99_tpot_ns,
        ttft_limit_ns: ns("requested_server_ttft_latency")?,
        tpot_limit_ns: ns("requested_server_tpot_latency")?,
        min_duration_satisfied: flag("result_min_duration_met"),
        min_queries_satisfied: flag("result_min_queries_met"),
        early_stopping_satisfied: flag("early_stopping_met"),
        performance_constraints_satisfied: flag("result_perf_constraints_met"),
    })
}

/// Canonical (checker) name of an accuracy metric as accuracy.txt spells it.
fn checker_metric_name(name: &str) -> String {
    match name {
        "rouge1" => "ROUGE1".into(),
        "rouge2" => "ROUGE2".into(),
        "rougeL" => "ROUGEL".into(),
        "rougeLsum" => "ROUGELSUM".into(),
        "tokens_per_sample" => "TOKENS_PER_SAMPLE".into(),
        "gen_len" => "GEN_LEN".into(),
        other => other.to_string(),
    }
}

/// Metrics printed by `accuracy.txt` as `'name': number` (a Python dict, or one pair per line).
pub fn parse_accuracy_report(file: &str, text: &str) -> Result<BTreeMap<String, Printed>> {
    refuse_controls(file, text)?;
    let mut metrics = BTreeMap::new();
    let mut rest = text;
    while let Some(start) = rest.find('\'') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('\'') else { break };
        let name = &after[..end];
        let tail = &after[end + 1..];
        rest = tail;
        let Some(value) = tail.trim_start().strip_prefix(':') else {
            continue;
        };
        let number: String = value
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
            .collect();
        if let Ok(v) = number.parse::<f64>() {
            if v.is_finite() {
                metrics.entry(checker_metric_name(name)).or_insert(Printed {
                    text: number,
                    value: v,
                });
            }
        }
    }
    if metrics.is_empty() {
        return Err(Error::parse(
            file,
            "whole file",
            "no `'metric': value` pairs found",
        ));
    }
    if !text.lines().any(|l| l.trim_start().starts_with("hash=")) {
        return Err(Error::parse(
            file,
            "whole file",
            "missing the `hash=` line the checker requires",
        ));
    }
    Ok(metrics)
}

/// Metrics of the summary's Accuracy field, written `NAME: value  NAME: value`.
pub fn parse_accuracy_field(text: &str) -> BTreeMap<String, Printed> {
    let mut metrics = BTreeMap::new();
    let mut tokens = text.split_whitespace();
    while let Some(tok) = tokens.next() {
        let Some(name) = tok.strip_suffix(':') else {
            continue;
        };
        if let Some(value) = tokens.next() {
            if let Ok(v) = value.parse::<f64>() {
                metrics.insert(
                    name.to_string(),
                    Printed {
                        text: value.to_string(),
                        value: v,
                    },
                );
            }
        }
    }
    metrics
}

/// Half a unit of the last digit `text` prints (trailing fractional zeros do not count).
pub fn half_unit_of_last_digit(text: &str) -> f64 {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    let exponent: i32 = text
        .split_once(['e', 'E'])
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let decimals = mantissa
        .split_once('.')
        .map_or(0, |(_, frac)| frac.trim_end_matches('0').len() as i32);
    0.5 * 10f64.powi(exponent.saturating_sub(decimals))
}

/// Outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    Fail,
    NotChecked,
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

/// One check of one highlighted row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub row: RowId,
    pub highlight: String,
    pub scenario: String,
    pub model: String,
    /// Short name, e.g. `result-valid`, `p99-ttft`, `accuracy ROUGE1`.
    pub name: String,
    pub status: Status,
    /// The key numbers in a few characters, for the compact table (e.g. `79.03 < 80 ms`).
    pub short: String,
    /// The numbers behind the outcome, in words.
    pub detail: String,
    /// Where the evidence was read (pinned input names).
    pub evidence: Vec<String>,
}

/// All checks, with a tally.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checks {
    pub pass: usize,
    pub fail: usize,
    pub not_checked: usize,
    pub rule_source: String,
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

/// Runs every check of every highlighted row.
pub fn check(
    summary: &Summary,
    analysis: &Analysis,
    inputs: &Inputs,
    facts: &CheckerFacts,
) -> Result<Checks> {
    let mut items = Vec::new();
    for h in &analysis.highlights {
        for id in [h.offline_id, h.server_id] {
            let row = &summary.rows[id.0 as usize];
            check_row(row, &h.label, inputs, facts, &mut items)?;
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
            &facts.source.commit[..12],
            facts.source.path
        ),
        items,
    })
}

fn check_row(
    row: &crate::summary::SummaryRow,
    label: &str,
    inputs: &Inputs,
    facts: &CheckerFacts,
    items: &mut Vec<Check>,
) -> Result<()> {
    let scenario = row.raw(Field::Scenario).to_string();
    let model = row.raw(Field::MlperfModel).to_string();
    let location = row
        .raw(Field::Location)
        .trim_start_matches("./")
        .to_string();
    let mut push =
        |name: &str, status: Status, short: String, detail: String, evidence: Vec<String>| {
            items.push(Check {
                row: row.id,
                highlight: label.to_string(),
                scenario: scenario.clone(),
                model: model.clone(),
                name: name.to_string(),
                status,
                short,
                detail,
                evidence,
            })
        };
    let find = |kind: InputKind, path: String| {
        inputs.files.iter().find(|f| {
            f.pin.kind == kind
                && f.pin.path == path
                && f.pin.repository.ends_with("/inference_results_v6.1")
        })
    };
    let model_facts = facts.models.get(&model);

    // LoadGen summary log.
    let log_path = format!("{location}/mlperf_log_summary.txt");
    match find(InputKind::LoadgenSummary, log_path.clone()) {
        None => {
            for name in ["log-scenario", "result-valid", "throughput"] {
                push(
                    name,
                    Status::NotChecked,
                    "no log".into(),
                    format!("no pinned log at {log_path}"),
                    vec![],
                );
            }
        }
        Some(input) => {
            let text = std::str::from_utf8(&input.bytes)
                .map_err(|_| Error::parse(&input.pin.name, "whole file", "invalid UTF-8"))?;
            let log = parse_summary_log(&input.pin.name, text)?;
            let ev = vec![input.pin.name.clone()];
            let same = log.scenario.to_string() == scenario && log.mode == "PerformanceOnly";
            push(
                "log-scenario",
                if same { Status::Pass } else { Status::Fail },
                format!("{} {}", log.scenario, log.mode),
                format!(
                    "log: Scenario {}, Mode {}; summary row: {scenario}",
                    log.scenario, log.mode
                ),
                ev.clone(),
            );
            push(
                "result-valid",
                if log.is_valid() {
                    Status::Pass
                } else {
                    Status::Fail
                },
                log.result.clone(),
                format!("Result is : {}", log.result),
                ev.clone(),
            );
            let summary_text = row.raw(Field::Result);
            let summary_value: f64 = summary_text.parse().unwrap_or(f64::NAN);
            let tolerance = half_unit_of_last_digit(summary_text);
            let diff = (log.throughput.value - summary_value).abs();
            let label = SUMMARY_KEYS.throughput(&log.scenario);
            push(
                "throughput",
                if diff <= tolerance * (1.0 + 1e-9) {
                    Status::Pass
                } else {
                    Status::Fail
                },
                format!(
                    "{} {} {}",
                    crate::format::tokens(log.throughput.value),
                    if diff <= tolerance * (1.0 + 1e-9) { "≈" } else { "≠" },
                    crate::format::tokens(summary_value)
                ),
                format!(
                    "log {label} {} vs summary Result {summary_text}: the summary rounds to its last printed digit, so they must differ by at most {tolerance}; they differ by {}",
                    log.throughput.text,
                    round_sig(diff, 6)
                ),
                ev.clone(),
            );
            if scenario == "Server" {
                let limits = model_facts.map(|m| &m.server_latency_limits);
                for (name, observed, limit, stated) in [
                    (
                        "p99-ttft",
                        log.p99_ttft_ns,
                        limits.map(|l| l.ttft_ns),
                        log.ttft_limit_ns,
                    ),
                    (
                        "p99-tpot",
                        log.p99_tpot_ns,
                        limits.map(|l| l.tpot_ns),
                        log.tpot_limit_ns,
                    ),
                ] {
                    let (status, short, detail) = match (observed, limit) {
                        (Some(o), Some(l)) => (
                            if o < l { Status::Pass } else { Status::Fail },
                            format!("{} {} {}", ms(o), if o < l { "<" } else { "≥" }, ms(l)),
                            format!(
                                "p99 {} {} limit {} (checker line {}){}",
                                ms(o),
                                if o < l { "<" } else { "is not below" },
                                ms(l),
                                limits.map_or(0, |l| l.line),
                                stated.map_or(String::new(), |s| format!(
                                    "; the log states {}",
                                    ms(s)
                                ))
                            ),
                        ),
                        (_, None) => (
                            Status::NotChecked,
                            "no limit".into(),
                            format!("no latency limit known for {model}"),
                        ),
                        (None, _) => (
                            Status::NotChecked,
                            "no p99".into(),
                            "no p99 in the log".into(),
                        ),
                    };
                    push(name, status, short, detail, ev.clone());
                }
            }
        }
    }

    // Accuracy: the summary's Accuracy field, and accuracy.txt where pinned.
    let achieved = parse_accuracy_field(row.raw(Field::Accuracy));
    let acc_path = format!(
        "{}/accuracy.txt",
        location
            .strip_suffix("/performance/run_1")
            .map_or(location.clone(), |p| format!("{p}/accuracy"))
    );
    let report = match find(InputKind::Accuracy, acc_path) {
        None => None,
        Some(input) => {
            let text = std::str::from_utf8(&input.bytes)
                .map_err(|_| Error::parse(&input.pin.name, "whole file", "invalid UTF-8"))?;
            Some((
                input.pin.name.clone(),
                parse_accuracy_report(&input.pin.name, text)?,
            ))
        }
    };
    let Some(mf) = model_facts else {
        push(
            "accuracy",
            Status::NotChecked,
            "no targets".into(),
            format!("no accuracy targets known for {model}"),
            vec![],
        );
        return Ok(());
    };
    let bounds = mf
        .accuracy_targets
        .iter()
        .map(|b| (b, true))
        .chain(mf.accuracy_upper_limits.iter().map(|b| (b, false)));
    for (bound, lower) in bounds {
        let name = format!(
            "accuracy {} {}",
            bound.metric,
            if lower { "target" } else { "upper limit" }
        );
        let relation = if lower { ">=" } else { "<=" };
        let target = format!(
            "{} {} {} ({} × {}, checker line {})",
            bound.metric,
            relation,
            round_sig(bound.value, 10),
            bound.reference,
            bound.multiplier.map_or("1".into(), |m| m.to_string()),
            bound.line
        );
        let from_summary = achieved.get(&bound.metric);
        let from_report = report.as_ref().and_then(|(_, m)| m.get(&bound.metric));
        let mut evidence = vec!["summary.csv Accuracy".to_string()];
        if let Some((n, _)) = &report {
            evidence.push(n.clone());
        }
        let (status, short, detail) = match (from_summary, from_report) {
            (None, None) => (
                Status::NotChecked,
                format!("{} not reported", bound.metric),
                format!("{} is not reported; {target}", bound.metric),
            ),
            (s, r) => {
                let disagree = match (s, r) {
                    (Some(s), Some(r)) => {
                        (s.value - r.value).abs()
                            > half_unit_of_last_digit(&s.text).max(half_unit_of_last_digit(&r.text))
                                * (1.0 + 1e-9)
                    }
                    _ => false,
                };
                let value = s.or(r).expect("one is present").value;
                let meets = if lower {
                    value >= bound.value
                } else {
                    value <= bound.value
                };
                let shown = [
                    s.map(|s| format!("summary {}", s.text)),
                    r.map(|r| format!("accuracy.txt {}", r.text)),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", ");
                (
                    if meets && !disagree {
                        Status::Pass
                    } else {
                        Status::Fail
                    },
                    format!(
                        "{} {} {} {}",
                        bound.metric,
                        round_sig(value, 6),
                        if meets {
                            relation
                        } else if lower {
                            "<"
                        } else {
                            ">"
                        },
                        round_sig(bound.value, 6)
                    ),
                    format!(
                        "{shown}{}; {target}",
                        if disagree { " (the two disagree)" } else { "" }
                    ),
                )
            }
        };
        push(&name, status, short, detail, evidence);
    }
    Ok(())
}

/// `x` printed with at most `digits` significant digits, without trailing zeros.
pub fn round_sig(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor() as i32;
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
        assert_eq!(log.scenario, LogScenario::Server);
        assert!(log.is_valid());
        assert_eq!(log.throughput.text, "1234.56");
        assert_eq!(log.p99_ttft_ns, Some(1_999_999_999));
        assert_eq!(log.p99_tpot_ns, Some(80_000_000));
        assert_eq!(log.tpot_limit_ns, Some(80_000_000));
        assert_eq!(log.performance_constraints_satisfied, Some(true));
    }

    #[test]
    fn invalid_result_is_read_as_invalid() {
        let log = parse_summary_log("s.txt", &SERVER.replace(": VALID", ": INVALID")).unwrap();
        assert!(!log.is_valid());
        assert_eq!(log.result, "INVALID");
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
    fn a_garbled_number_names_its_line() {
        let text = SERVER.replace("1234.56", "12x4");
        let err = parse_summary_log("s.txt", &text).unwrap_err().to_string();
        assert!(
            err.starts_with("s.txt: line 8: `Completed tokens per second`"),
            "{err}"
        );
    }

    #[test]
    fn accuracy_reports_in_both_shapes_are_read() {
        let dict =
            "Results\n\n{'rouge1': 44.8, 'rougeL': 29.2, 'tokens_per_sample': 272.7}\n\nhash=ab\n";
        let m = parse_accuracy_report("a.txt", dict).unwrap();
        assert_eq!(m["ROUGE1"].value, 44.8);
        assert_eq!(m["ROUGEL"].text, "29.2");
        assert_eq!(m["TOKENS_PER_SAMPLE"].value, 272.7);
        let lines = "Printing:\n\n'exact_match': 83.702\n\nhash=cd\n";
        assert_eq!(
            parse_accuracy_report("a.txt", lines).unwrap()["exact_match"].value,
            83.702
        );
        assert!(parse_accuracy_report("a.txt", "'exact_match': 1.0\n").is_err());
    }

    #[test]
    fn accuracy_field_pairs_are_read() {
        let m = parse_accuracy_field("ROUGE1: 44.7951  ROUGE2: 22.3759  TOKENS_PER_SAMPLE: 272.8");
        assert_eq!(m.len(), 3);
        assert_eq!(m["ROUGE2"].value, 22.3759);
    }

    #[test]
    fn half_unit_follows_the_printed_digits() {
        assert_eq!(half_unit_of_last_digit("59867.8"), 0.05);
        assert_eq!(half_unit_of_last_digit("100630.0"), 0.5);
        assert_eq!(half_unit_of_last_digit("42"), 0.5);
        assert_eq!(half_unit_of_last_digit("1.25e3"), 5.0);
    }

    #[test]
    fn round_sig_trims() {
        assert_eq!(round_sig(0.150000001, 6), "0.15");
        assert_eq!(round_sig(44.3867688, 10), "44.3867688");
        assert_eq!(round_sig(1234.0, 3), "1234");
    }
}
