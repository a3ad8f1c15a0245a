//! The facts the checks apply, read at run time from `sources/mlperf-checker-facts.json`: accuracy
//! targets and upper limits, Server latency limits, and the key under which `accuracy.txt` prints
//! each metric, each with the line of the MLPerf submission checker it was read from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use ratios_base::error::{Error, Result};

/// Where the checker facts live in the project.
pub(crate) const FACTS_PATH: &str = "sources/mlperf-checker-facts.json";

/// Where a fact was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactSource {
    /// The GitHub repository of the checker's source (`mlcommons/inference`).
    pub repository: String,
    /// The full 40-digit commit hash the facts were read at.
    pub commit: String,
    /// The source file's path in the repository
    /// (`tools/submission/submission_checker/constants.py`).
    pub path: String,
    /// The git blob SHA-1 of that file, which must equal the pinned input's.
    pub git_blob_sha1: String,
    /// The file's address on GitHub at that commit.
    pub url: String,
}

impl FactSource {
    /// Whether `pin` pins this source: the same repository, commit and path.
    pub fn is(&self, pin: &crate::inputs::PinnedInput) -> bool {
        pin.repository == self.repository && pin.commit == self.commit && pin.path == self.path
    }

    /// The manifest's pin of this source, among its sources.
    pub fn pin_in<'a>(
        &self,
        manifest: &'a crate::inputs::InputManifest,
    ) -> Option<&'a crate::inputs::PinnedInput> {
        manifest
            .of_kind(crate::inputs::InputKind::Source)
            .find(|p| self.is(p))
    }
}

/// A bound on one accuracy metric: `value = reference × multiplier`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricBound {
    /// The checker's name of the metric (`ROUGE1`, `TOKENS_PER_SAMPLE`).
    pub metric: String,
    /// The reference implementation's value of the metric, which the bound is set from.
    pub reference: f64,
    /// The share of the reference the checker requires (`0.999`) or allows at most (`1.1`); `None`
    /// when the bound is the reference itself.
    pub multiplier: Option<f64>,
    /// The bound: `reference × multiplier`, as Python computes it.
    pub value: f64,
    /// The line of the checker's source that holds the reference (the metric's name is on it or the
    /// line before).
    pub line: u32,
}

/// Latency limits of an LLM in one scenario (p99 must be strictly below).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencyLimits {
    /// The limit on the p99 time to first token, in nanoseconds.
    pub ttft_ns: u64,
    /// The limit on the p99 time per output token, in nanoseconds.
    pub tpot_ns: u64,
    /// The line of the checker's source that holds both limits, the one after the scenario's key.
    pub line: u32,
}

/// The LoadGen log field the checker reads a scenario's throughput from.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogField {
    /// The key the checker reads the throughput under (`result_tokens_per_second`).
    pub field: String,
    /// The line of the checker's source that maps the scenario to that key.
    pub line: u32,
}

/// The checker facts of one model. Every `line` is the line of the checker's source that holds
/// the value.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFacts {
    /// The lower bounds on accuracy metrics, each to be reached (for the benchmarks of the
    /// article's round; a model only an earlier round ran has its latency limits alone).
    #[serde(default)]
    pub accuracy_targets: Vec<MetricBound>,
    /// The upper limits on accuracy metrics, none to be exceeded (`TOKENS_PER_SAMPLE` at most 1.1 ×
    /// the reference); empty likewise for a model only an earlier round ran.
    #[serde(default)]
    pub accuracy_upper_limits: Vec<MetricBound>,
    /// The Server scenario's TTFT and TPOT limits, which the p99s must lie strictly below.
    pub server_latency_limits: LatencyLimits,
    /// `None` for a model the checker gives no Interactive limits (v5.1's mixtral-8x7b).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactive_latency_limits: Option<LatencyLimits>,
    /// By scenario (`Offline`, `Server`), for the article's round.
    #[serde(default)]
    pub throughput_log_field: BTreeMap<String, LogField>,
}

/// The key under which `accuracy.txt` prints a metric (`'rouge1': 44.8` is ROUGE1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportKey {
    /// The checker's name of the metric (`ROUGE1`).
    pub metric: String,
    /// The key `accuracy.txt` prints it under (`rouge1`).
    pub key: String,
    /// The line of the checker's source that maps the key to the metric.
    pub line: u32,
}

/// The facts file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckerFacts {
    /// A paragraph on what the facts are and how the checker applies them, for the reader of the
    /// JSON file; not used by the build.
    pub about: String,
    /// The checker source every fact was read from, which the input manifest must pin.
    pub source: FactSource,
    /// The round the facts are the checker's for (`v6.1`), which must be the summary's.
    pub round: String,
    /// How `accuracy.txt` names each metric the checker knows.
    pub accuracy_report_keys: Vec<ReportKey>,
    /// The facts of each model, keyed by benchmark name (`MlperfModel`, such as `llama2-70b-99.9`).
    pub models: BTreeMap<String, ModelFacts>,
}

impl CheckerFacts {
    /// Parses the facts file; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let err = |message: String| Error::Config {
            file: file.into(),
            message,
        };
        let facts: CheckerFacts = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        if facts.source.commit.len() != 40 {
            return Err(err("source.commit must be a full 40-digit hash".into()));
        }
        Ok(facts)
    }

    /// Checks every fact against the checker's source it cites (`text`, the pinned copy of
    /// `source.path`): each value must stand at its recorded line, written as the source writes
    /// it, and a target's value must be its reference times its multiplier as Python computes
    /// it. Returns how many facts were checked; the first fact that is not there is an error
    /// naming it and the line.
    pub fn check_against_source(&self, text: &str) -> Result<usize> {
        let lines: Vec<&str> = text.lines().collect();
        let at = |line: u32| -> Option<&str> {
            line.checked_sub(1)
                .and_then(|i| lines.get(i as usize))
                .copied()
        };
        let fail = |what: String, line: u32, why: &str| Error::Config {
            file: FACTS_PATH.into(),
            message: format!(
                "{what}: line {line} of {} {why} (it reads: {})",
                self.source.path,
                ratios_base::text::excerpt(at(line).unwrap_or_default().trim(), 80)
            ),
        };
        // A needle that ends in a digit must not continue with one (`* 1000000` is not in
        // `* 10000000`).
        let holds = |line: u32, needle: &str| {
            at(line).is_some_and(|l| {
                l.match_indices(needle).any(|(i, _)| {
                    !needle.ends_with(|c: char| c.is_ascii_digit())
                        || !l[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit())
                })
            })
        };
        // A number is matched as a whole literal of the line (0.99 is not in `0.999`).
        let holds_number = |line: u32, x: f64| {
            at(line).is_some_and(|l| {
                l.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .any(|t| t.parse::<f64>() == Ok(x))
            })
        };
        let mut checked = 0;
        for (model, mf) in &self.models {
            for b in mf.accuracy_targets.iter().chain(&mf.accuracy_upper_limits) {
                let quoted = format!("\"{}\"", b.metric);
                let why = if !holds(b.line, &quoted) && !holds(b.line.saturating_sub(1), &quoted) {
                    Some(format!("(or the line before) does not name {quoted}"))
                } else if !holds_number(b.line, b.reference) {
                    Some(format!(
                        "does not hold the reference {}",
                        python_number(b.reference)
                    ))
                } else {
                    match b.multiplier {
                        Some(m) if !holds_number(b.line, m) => {
                            Some(format!("does not hold the multiplier {}", python_number(m)))
                        }
                        Some(m) if b.reference * m != b.value => Some(format!(
                            "gives {} × {} = {}, not the recorded value",
                            b.reference,
                            m,
                            b.reference * m
                        )),
                        None if b.reference != b.value => Some("holds a reference without multiplier that differs from the recorded value".into()),
                        _ => None,
                    }
                };
                if let Some(why) = why {
                    let what = format!("{model} {} {}", b.metric, b.value);
                    return Err(fail(what, b.line, &why));
                }
                checked += 1;
            }
            let interactive = mf.interactive_latency_limits.as_ref();
            let limits = std::iter::once(("Server", &mf.server_latency_limits))
                .chain(interactive.map(|l| ("Interactive", l)));
            for (scenario, l) in limits {
                // The limits stand on the line after their scenario's key.
                let opens = format!("\"{scenario}\": {{");
                if !holds(l.line.saturating_sub(1), &opens) {
                    return Err(fail(
                        format!("{model} {scenario} latency limits"),
                        l.line.saturating_sub(1),
                        &format!("does not open {opens}"),
                    ));
                }
                for (key, ns) in [("ttft", l.ttft_ns), ("tpot", l.tpot_ns)] {
                    let written = format!("\"{key}\": {} * 1000000", ns / 1_000_000);
                    if ns % 1_000_000 != 0 || !holds(l.line, &written) {
                        return Err(fail(
                            format!("{model} {scenario} {key} limit {ns} ns"),
                            l.line,
                            &format!("does not hold {written}"),
                        ));
                    }
                }
                checked += 1;
            }
            for (scenario, field) in &mf.throughput_log_field {
                let written = format!("\"{scenario}\": \"{}\"", field.field);
                if !holds(field.line, &written) {
                    return Err(fail(
                        format!("{model} {scenario} log field"),
                        field.line,
                        &format!("does not hold {written}"),
                    ));
                }
                checked += 1;
            }
        }
        for k in &self.accuracy_report_keys {
            let (metric, key) = (format!("\"{}\"", k.metric), format!("'{}'", k.key));
            if !holds(k.line, &metric) || !holds(k.line, &key) {
                return Err(fail(
                    format!("report key {}", k.key),
                    k.line,
                    &format!("does not map {key} to {metric}"),
                ));
            }
            checked += 1;
        }
        Ok(checked)
    }

    /// The checker's name of a metric that `accuracy.txt` prints under `key`, if it is known.
    pub fn metric_of_report_key(&self, key: &str) -> Option<&str> {
        self.accuracy_report_keys
            .iter()
            .find(|k| k.key == key)
            .map(|k| k.metric.as_str())
    }
}

/// A number as Python source writes it: `294.45`, `0.999`, `9999`.
fn python_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made checker source: one target, one latency limit, two log fields, one report key.
    const SOURCE: &str = r#"TARGETS = {
    "llama2-70b-99.9": (
        "ROUGE1",
        44.4312 * 0.999,
    ),
}
LATENCY = {
    "llama2-70b-99.9": {
        "Server": {
            "ttft": 2000 * 1000000, "tpot": 200 * 1000000
        },
        "Interactive": {
            "ttft": 450 * 1000000, "tpot": 40 * 1000000
        },
    },
}
FIELDS = {"Offline": "result_tokens_per_second",
    "Server": "result_completed_tokens_per_second"}
KEYS = {"ROUGE1": 'rouge1'}
"#;

    fn facts(edit: fn(&mut serde_json::Value)) -> CheckerFacts {
        let mut v = serde_json::json!({
            "about": "test", "round": "v6.1",
            "source": {"repository": "o/r", "commit": "0".repeat(40), "path": "constants.py",
                       "git_blob_sha1": "0".repeat(40), "url": "https://example.org/"},
            "accuracy_report_keys": [{"metric": "ROUGE1", "key": "rouge1", "line": 19}],
            "models": {"llama2-70b-99.9": {
                "accuracy_targets": [{"metric": "ROUGE1", "reference": 44.4312,
                                      "multiplier": 0.999, "value": 44.4312_f64 * 0.999, "line": 4}],
                "accuracy_upper_limits": [],
                "server_latency_limits": {"ttft_ns": 2_000_000_000u64, "tpot_ns": 200_000_000u64, "line": 10},
                "interactive_latency_limits": {"ttft_ns": 450_000_000u64, "tpot_ns": 40_000_000u64, "line": 13},
                "throughput_log_field": {
                    "Offline": {"field": "result_tokens_per_second", "line": 17},
                    "Server": {"field": "result_completed_tokens_per_second", "line": 18}}}}
        });
        edit(&mut v);
        CheckerFacts::parse("facts.json", &v.to_string()).unwrap()
    }

    #[test]
    fn every_fact_must_stand_at_its_line_of_the_source() {
        assert_eq!(facts(|_| {}).check_against_source(SOURCE).unwrap(), 6);
        // A limit ten times larger in the source is not the recorded one.
        let tenfold = SOURCE.replace("200 * 1000000", "200 * 10000000");
        let err = facts(|_| {})
            .check_against_source(&tenfold)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("does not hold \"tpot\": 200 * 1000000"),
            "{err}"
        );
        fn m(v: &mut serde_json::Value) -> &mut serde_json::Value {
            &mut v["models"]["llama2-70b-99.9"]
        }
        type Edit = fn(&mut serde_json::Value);
        let cases: [(Edit, &str); 8] = [
            (
                |v| m(v)["accuracy_targets"][0]["line"] = 6.into(),
                "does not name \"ROUGE1\"",
            ),
            (
                |v| m(v)["accuracy_targets"][0]["multiplier"] = 0.99.into(),
                "does not hold the multiplier 0.99",
            ),
            (
                |v| m(v)["accuracy_targets"][0]["value"] = 44.387.into(),
                "not the recorded value",
            ),
            (
                |v| m(v)["server_latency_limits"]["tpot_ns"] = 90_000_000.into(),
                "does not hold \"tpot\": 90 * 1000000",
            ),
            (
                |v| m(v)["interactive_latency_limits"]["tpot_ns"] = 30_000_000.into(),
                "Interactive tpot limit 30000000 ns: line 13 of constants.py does not hold \"tpot\": 30 * 1000000",
            ),
            (
                // The Server limits' line given for the Interactive ones.
                |v| m(v)["interactive_latency_limits"]["line"] = 10.into(),
                "llama2-70b-99.9 Interactive latency limits: line 9 of constants.py does not open \"Interactive\": {",
            ),
            (
                |v| m(v)["throughput_log_field"]["Server"]["line"] = 99.into(),
                "line 99 of constants.py does not hold",
            ),
            (
                |v| v["accuracy_report_keys"][0]["key"] = "rougeL".into(),
                "does not map 'rougeL' to \"ROUGE1\"",
            ),
        ];
        for (edit, says) in cases {
            let err = facts(edit)
                .check_against_source(SOURCE)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("sources/mlperf-checker-facts.json: "),
                "{err}"
            );
            assert!(err.contains(says), "{says}: {err}");
        }
    }
}
