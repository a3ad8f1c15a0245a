//! The facts the checks apply, read at run time from `sources/mlperf-checker-facts.json`: accuracy
//! targets and upper limits, Server latency limits, and the key under which `accuracy.txt` prints
//! each metric, each with the line of the MLPerf submission checker it was read from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where the checker facts live in the project.
pub const FACTS_PATH: &str = "sources/mlperf-checker-facts.json";

/// Where a fact was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactSource {
    pub repository: String,
    pub commit: String,
    pub path: String,
    pub git_blob_sha1: String,
    pub url: String,
}

/// A bound on one accuracy metric: `value = reference × multiplier`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricBound {
    pub metric: String,
    pub reference: f64,
    pub multiplier: Option<f64>,
    pub value: f64,
    pub line: u32,
}

/// Server latency limits of an LLM (p99 must be strictly below).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencyLimits {
    pub ttft_ns: u64,
    pub tpot_ns: u64,
    pub line: u32,
}

/// The LoadGen log field the checker reads a scenario's throughput from.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogField {
    pub field: String,
    pub line: u32,
}

/// The checker facts of one model. Every `line` is the line of the checker's source that holds
/// the value.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFacts {
    pub accuracy_targets: Vec<MetricBound>,
    pub accuracy_upper_limits: Vec<MetricBound>,
    pub server_latency_limits: LatencyLimits,
    /// By scenario (`Offline`, `Server`).
    pub throughput_log_field: BTreeMap<String, LogField>,
}

/// The key under which `accuracy.txt` prints a metric (`'rouge1': 44.8` is ROUGE1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportKey {
    pub metric: String,
    pub key: String,
    pub line: u32,
}

/// The facts file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckerFacts {
    pub about: String,
    pub source: FactSource,
    pub round: String,
    pub accuracy_report_keys: Vec<ReportKey>,
    pub models: BTreeMap<String, ModelFacts>,
}

impl CheckerFacts {
    /// Parses the facts file; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let facts: CheckerFacts = serde_json::from_str(text).map_err(|e| Error::Config {
            file: file.into(),
            message: e.to_string(),
        })?;
        if facts.source.commit.len() != 40 {
            return Err(Error::Config {
                file: file.into(),
                message: "source.commit must be a full 40-digit hash".into(),
            });
        }
        Ok(facts)
    }

    /// The checker's name of a metric that `accuracy.txt` prints under `key`, if it is known.
    pub fn metric_of_report_key(&self, key: &str) -> Option<&str> {
        self.accuracy_report_keys
            .iter()
            .find(|k| k.key == key)
            .map(|k| k.metric.as_str())
    }
}
