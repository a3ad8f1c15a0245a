//! Every pair checked against its two LoadGen summary logs, and its ratio taken apart.
//!
//! For each paired row the pinned `mlperf_log_summary.txt` under its Location is parsed and
//! checked as the highlighted rows' are: the scenario and mode, LoadGen's verdict, the result
//! line against the summary's Result (to their printed digits), the latency limits a Server log
//! states against the checker's constants, and the errors and warnings the log counts. A row
//! without a pinned log is named, never dropped.
//!
//! From the two logs of a pair, its ratio is a product of three factors:
//!
//! ```text
//! Server tokens/s     scheduled samples/s   completed samples/s   Server tokens per sample
//! ---------------  =  ------------------- × ------------------- × ------------------------
//! Offline tokens/s    Offline samples/s     scheduled samples/s   Offline tokens per sample
//! ```
//!
//! the load the submitter scheduled against the Offline rate, the share of it the run completed,
//! and how the answers' lengths compare. Beside them stand the Server run's p99 latencies as
//! shares of the limits its log states.

use std::collections::BTreeMap;

use serde::Serialize;

use super::accuracy::{half_unit_of_last_digit, summary_unit};
use super::loadgen::{parse_summary_log, LoadgenLog, Printed, TestMode, Validity};
use crate::analysis::Pair;
use crate::base::error::{Error, Result};
use crate::base::workers;
use crate::inputs::{InputKind, Inputs, VerifiedInput};
use crate::project::facts::CheckerFacts;
use crate::summary::{Field, RowId, Scenario, Summary};

/// A Server run whose p99 latency reaches this share of its limit or more runs at the limit.
pub const NEAR_LIMIT: f64 = 0.95;

/// What one paired row's log says, checked against the row and the rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowLog {
    pub row: RowId,
    pub scenario: Scenario,
    /// The pinned input's name.
    pub input: String,
    /// The log describes the row's scenario, in PerformanceOnly mode.
    pub scenario_agrees: bool,
    /// LoadGen says VALID.
    pub valid: bool,
    /// The log's result line, the summary's Result, and whether they agree to the digits both
    /// print.
    pub log_result: String,
    pub summary_result: String,
    pub result_agrees: bool,
    /// A Server log's stated TTFT and TPOT limits equal the checker's for the benchmark (none
    /// for an Offline log, which no latency limit binds).
    pub limits_agree: Option<bool>,
    /// The counts the log's closing lines give (none where it has no such line).
    pub errors: Option<u64>,
    pub warnings: Option<u64>,
    /// The log prints a negative minimum first-token latency.
    pub negative_min_ttft: bool,
    /// The minimum first-token latency a Server log prints, in ns, as printed.
    pub min_first_token_ns: Option<i64>,
}

impl RowLog {
    /// Every check of the row passes (errors and warnings are reported, not failed: the
    /// summary's `errors` field is the round's official count).
    pub fn passes(&self) -> bool {
        self.scenario_agrees && self.valid && self.result_agrees && self.limits_agree != Some(false)
    }
}

/// One pair's ratio taken apart, from its two logs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Factors {
    /// The Server run's `target_qps`, as printed.
    pub target_qps: String,
    pub scheduled_samples_per_s: f64,
    pub completed_samples_per_s: f64,
    pub offline_samples_per_s: f64,
    pub server_tokens_per_sample: f64,
    pub offline_tokens_per_sample: f64,
    pub p99_ttft_ms: f64,
    pub ttft_limit_ms: f64,
    pub p99_tpot_ms: f64,
    pub tpot_limit_ms: f64,
    /// p99 ÷ limit.
    pub ttft_share: f64,
    pub tpot_share: f64,
    /// Scheduled samples/s ÷ Offline samples/s.
    pub load: f64,
    /// Completed ÷ scheduled samples/s.
    pub completion: f64,
    /// Server tokens per sample ÷ Offline tokens per sample.
    pub length: f64,
    /// `load × completion × length`: the logs' own Server ÷ Offline tokens/s.
    pub product: f64,
    /// The product equals the pair's ratio (from the summary's Results) to the digits the logs
    /// and the summary print.
    pub product_agrees: bool,
    /// What one query per second of `target_qps` is worth, as a share of the Server result
    /// (`1 / target_qps`).
    pub unit_share: f64,
    /// The target is a whole number of queries per second.
    pub whole_target: bool,
    /// The limit whose p99 share is at least [`NEAR_LIMIT`] (the larger share when both are):
    /// `TTFT`, `TPOT` or none.
    pub binding: Option<&'static str>,
}

/// A pair and what its logs say.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairLog {
    pub offline_id: RowId,
    pub server_id: RowId,
    pub benchmark: String,
    pub ratio: f64,
    /// The two rows' logs, where pinned.
    pub offline: Option<RowLog>,
    pub server: Option<RowLog>,
    /// Present when both logs are pinned and print every number the factors need.
    pub factors: Option<Factors>,
}

/// What the factors show for one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkFactors {
    pub benchmark: String,
    /// Pairs with factors.
    pub pairs: usize,
    pub median_ratio: f64,
    pub median_load: f64,
    pub median_completion: f64,
    pub median_length: f64,
    pub median_ttft_share: f64,
    pub median_tpot_share: f64,
    /// Pairs within 5 % of a limit, by which.
    pub near_ttft: usize,
    pub near_tpot: usize,
    /// The median ratio of the pairs within 5 % of a limit, and of the others.
    pub median_ratio_near: Option<f64>,
    pub median_ratio_other: Option<f64>,
    /// How the benchmark's gap splits between the factors, in logarithms: the sum over its
    /// pairs of ln(load), ln(completion) and ln(length), each over the sum of ln(product).
    pub log_shares: Option<[f64; 3]>,
}

/// The shares of ln(load), ln(completion) and ln(length) in the sum of ln(product) over
/// `factors`; `None` when that sum is zero (no gap to split).
pub fn log_shares<'a>(factors: impl IntoIterator<Item = &'a Factors>) -> Option<[f64; 3]> {
    let mut sums = [0.0f64; 3];
    for f in factors {
        sums[0] += f.load.ln();
        sums[1] += f.completion.ln();
        sums[2] += f.length.ln();
    }
    let total: f64 = sums.iter().sum();
    (total != 0.0 && total.is_finite()).then(|| sums.map(|s| s / total))
}

/// Every pair's logs, and what they show.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PairLogs {
    /// Each pair's logs and factors, by Offline row (in `pairs.csv`, not in `results.json`).
    #[serde(skip)]
    pub pairs: Vec<PairLog>,
    /// Rows checked against a log, of the paired rows.
    pub rows_checked: usize,
    pub rows_paired: usize,
    /// Rows whose log fails a check (see [`RowLog::passes`]).
    pub rows_failing: Vec<RowId>,
    /// Rows whose log counts errors, or warnings, or prints a negative minimum first-token
    /// latency.
    pub rows_with_errors: Vec<RowId>,
    pub rows_with_warnings: Vec<RowId>,
    pub rows_negative_min_ttft: Vec<RowId>,
    /// Pairs with no pinned log for either row, by Offline row.
    pub pairs_without_logs: Vec<RowId>,
    /// Pairs whose factors' product disagrees with the ratio.
    pub products_disagreeing: usize,
    /// Server runs at a whole-number target, of those with factors.
    pub whole_targets: usize,
    /// The median of `unit_share` over the whole-number targets.
    pub median_unit_share_whole: Option<f64>,
    /// By benchmark, in the order of the analysis (lowest median ratio first).
    pub benchmarks: Vec<BenchmarkFactors>,
    /// Over all pairs with factors.
    pub near_limit: usize,
    pub with_factors: usize,
    pub median_ratio_near: Option<f64>,
    pub median_ratio_other: Option<f64>,
    /// Over all pairs with factors, as [`BenchmarkFactors::log_shares`].
    pub log_shares: Option<[f64; 3]>,
}

impl PairLogs {
    /// The logs of the pair whose Offline row is `offline_id`.
    pub fn pair(&self, offline_id: RowId) -> Option<&PairLog> {
        self.pairs.iter().find(|p| p.offline_id == offline_id)
    }
}

/// The pinned LoadGen logs of this round's results tree, by their path in it.
fn logs_by_path<'a>(inputs: &'a Inputs, round: &str) -> BTreeMap<&'a str, &'a VerifiedInput> {
    let tree = format!("/inference_results_{round}");
    inputs
        .of_kind(InputKind::LoadgenSummary)
        .filter(|f| f.pin.repository.ends_with(&tree))
        .map(|f| (f.pin.path.as_str(), f))
        .collect()
}

/// The log's throughput line agrees with the summary's Result `summary_text` when they differ
/// by at most half a unit of the last digit each prints (the summary's rounded to six
/// significant figures). Returns the agreement, the tolerance and the difference.
pub fn throughput_agrees(summary_text: &str, log: &Printed) -> (bool, f64, f64) {
    let summary_value: f64 = summary_text.trim().parse().unwrap_or(f64::NAN);
    let log_unit = 2.0 * half_unit_of_last_digit(&log.text);
    let tolerance = (summary_unit(summary_text) + log_unit) / 2.0;
    let diff = (log.value - summary_value).abs();
    (diff <= tolerance * (1.0 + 1e-9), tolerance, diff)
}

/// The relative rounding of a printed number: half a unit of its last digit over its value.
fn relative_rounding(p: &Printed) -> f64 {
    half_unit_of_last_digit(&p.text) / p.value.abs()
}

fn row_log(
    summary: &Summary,
    id: RowId,
    input: &VerifiedInput,
    log: &LoadgenLog,
    facts: &CheckerFacts,
) -> RowLog {
    let row = &summary.rows[id.0 as usize];
    let scenario = row.scenario().unwrap_or(Scenario::Offline);
    let summary_result = row.raw(Field::Result);
    let limits_agree = (scenario == Scenario::Server).then(|| {
        facts
            .models
            .get(row.raw(Field::MlperfModel))
            .is_some_and(|m| {
                log.ttft_limit_ns == Some(m.server_latency_limits.ttft_ns)
                    && log.tpot_limit_ns == Some(m.server_latency_limits.tpot_ns)
            })
    });
    RowLog {
        row: id,
        scenario,
        input: input.pin.name.clone(),
        scenario_agrees: log.scenario == scenario && log.mode == TestMode::PerformanceOnly,
        valid: log.result == Validity::Valid,
        log_result: log.throughput.text.clone(),
        summary_result: crate::base::text::excerpt(summary_result, 40),
        result_agrees: throughput_agrees(summary_result, &log.throughput).0,
        limits_agree,
        errors: log.errors,
        warnings: log.warnings,
        negative_min_ttft: log.min_first_token_ns.is_some_and(|n| n < 0),
        min_first_token_ns: log.min_first_token_ns,
    }
}

/// The factors of a pair from its Offline and Server logs, when both print what they need.
fn factors(pair: &Pair, offline: &LoadgenLog, server: &LoadgenLog) -> Option<Factors> {
    let scheduled = server.scheduled_samples_per_s.as_ref()?;
    let completed = server.completed_samples_per_s.as_ref()?;
    let offline_samples = offline.samples_per_s.as_ref()?;
    let target = server.target_qps.as_ref()?;
    let ms = |ns: Option<u64>| ns.map(|n| n as f64 / 1e6);
    let (p99_ttft_ms, ttft_limit_ms) = (ms(server.p99_ttft_ns)?, ms(server.ttft_limit_ns)?);
    let (p99_tpot_ms, tpot_limit_ms) = (ms(server.p99_tpot_ns)?, ms(server.tpot_limit_ns)?);
    let positive = [
        scheduled.value,
        completed.value,
        offline_samples.value,
        target.value,
        ttft_limit_ms,
        tpot_limit_ms,
        offline.throughput.value,
    ];
    if positive.iter().any(|v| v.is_nan() || *v <= 0.0) {
        return None;
    }
    let server_tokens_per_sample = server.throughput.value / completed.value;
    let offline_tokens_per_sample = offline.throughput.value / offline_samples.value;
    let load = scheduled.value / offline_samples.value;
    let completion = completed.value / scheduled.value;
    let length = server_tokens_per_sample / offline_tokens_per_sample;
    let product = load * completion * length;
    // The product is the logs' Server ÷ Offline tokens/s; the ratio is the summary's. Each
    // side's rounding is at most half a unit of the last printed digit of each figure.
    let rounding = relative_rounding(&server.throughput)
        + relative_rounding(&offline.throughput)
        + 2.0 * 0.5e-5;
    let product_agrees = (product - pair.ratio.0).abs() <= pair.ratio.0 * rounding * (1.0 + 1e-9);
    let (ttft_share, tpot_share) = (p99_ttft_ms / ttft_limit_ms, p99_tpot_ms / tpot_limit_ms);
    let binding = match (ttft_share >= NEAR_LIMIT, tpot_share >= NEAR_LIMIT) {
        (true, true) if ttft_share >= tpot_share => Some("TTFT"),
        (true, true) | (false, true) => Some("TPOT"),
        (true, false) => Some("TTFT"),
        (false, false) => None,
    };
    Some(Factors {
        target_qps: target.text.clone(),
        scheduled_samples_per_s: scheduled.value,
        completed_samples_per_s: completed.value,
        offline_samples_per_s: offline_samples.value,
        server_tokens_per_sample,
        offline_tokens_per_sample,
        p99_ttft_ms,
        ttft_limit_ms,
        p99_tpot_ms,
        tpot_limit_ms,
        ttft_share,
        tpot_share,
        load,
        completion,
        length,
        product,
        product_agrees,
        unit_share: 1.0 / target.value,
        whole_target: target.value.fract() == 0.0,
        binding,
    })
}

fn median(v: Vec<f64>) -> Option<f64> {
    crate::analysis::median(v)
}

/// Checks every pair's logs and takes each ratio apart. `benchmarks` gives the order of the
/// benchmarks (the analysis's, lowest median first).
pub fn pair_logs(
    summary: &Summary,
    round: &str,
    pairs: &[Pair],
    benchmarks: &[String],
    inputs: &Inputs,
    facts: &CheckerFacts,
) -> Result<PairLogs> {
    let by_path = logs_by_path(inputs, round);
    let read = |id: RowId| -> Result<Option<(RowLog, LoadgenLog)>> {
        let row = &summary.rows[id.0 as usize];
        let location = row.raw(Field::Location).trim_start_matches("./");
        let path = format!("{location}/mlperf_log_summary.txt");
        let Some(input) = by_path.get(path.as_str()) else {
            return Ok(None);
        };
        let text = std::str::from_utf8(&input.bytes)
            .map_err(|_| Error::parse(&input.pin.name, "whole file", "invalid UTF-8"))?;
        let log = parse_summary_log(&input.pin.name, text)?;
        Ok(Some((row_log(summary, id, input, &log, facts), log)))
    };
    let one = |pair: &Pair| -> Result<PairLog> {
        let offline = read(pair.offline_id)?;
        let server = read(pair.server_id)?;
        let factors = match (&offline, &server) {
            (Some((_, o)), Some((_, s))) => factors(pair, o, s),
            _ => None,
        };
        Ok(PairLog {
            offline_id: pair.offline_id,
            server_id: pair.server_id,
            benchmark: pair.submission.benchmark.clone(),
            ratio: pair.ratio.0,
            offline: offline.map(|(r, _)| r),
            server: server.map(|(r, _)| r),
            factors,
        })
    };
    // The logs are parsed on two cores.
    let out = workers::map_in_order(pairs, "the LoadGen logs", one)?;
    Ok(summarise(out, benchmarks))
}

/// The counts and medians of [`PairLogs`] from its pairs.
fn summarise(pairs: Vec<PairLog>, benchmarks: &[String]) -> PairLogs {
    let rows: Vec<&RowLog> = pairs
        .iter()
        .flat_map(|p| [&p.offline, &p.server])
        .flatten()
        .collect();
    let ids = |keep: &dyn Fn(&RowLog) -> bool| -> Vec<RowId> {
        let mut v: Vec<RowId> = rows.iter().filter(|r| keep(r)).map(|r| r.row).collect();
        v.sort();
        v
    };
    let with: Vec<(&PairLog, &Factors)> = pairs
        .iter()
        .filter_map(|p| p.factors.as_ref().map(|f| (p, f)))
        .collect();
    let near_split = |ps: &[(&PairLog, &Factors)]| {
        let (near, other): (Vec<_>, Vec<_>) = ps.iter().partition(|(_, f)| f.binding.is_some());
        (
            near.len(),
            median(near.iter().map(|(p, _)| p.ratio).collect()),
            median(other.iter().map(|(p, _)| p.ratio).collect()),
        )
    };
    let by_benchmark = benchmarks
        .iter()
        .filter_map(|b| {
            let ps: Vec<(&PairLog, &Factors)> = with
                .iter()
                .copied()
                .filter(|(p, _)| &p.benchmark == b)
                .collect();
            let m = |get: fn(&Factors) -> f64| median(ps.iter().map(|(_, f)| get(f)).collect());
            let (_, median_ratio_near, median_ratio_other) = near_split(&ps);
            let count = |limit: &str| ps.iter().filter(|(_, f)| f.binding == Some(limit)).count();
            Some(BenchmarkFactors {
                benchmark: b.clone(),
                pairs: ps.len(),
                median_ratio: median(ps.iter().map(|(p, _)| p.ratio).collect())?,
                median_load: m(|f| f.load)?,
                median_completion: m(|f| f.completion)?,
                median_length: m(|f| f.length)?,
                median_ttft_share: m(|f| f.ttft_share)?,
                median_tpot_share: m(|f| f.tpot_share)?,
                near_ttft: count("TTFT"),
                near_tpot: count("TPOT"),
                median_ratio_near,
                median_ratio_other,
                log_shares: log_shares(ps.iter().map(|(_, f)| *f)),
            })
        })
        .collect();
    let (near_limit, median_ratio_near, median_ratio_other) = near_split(&with);
    let whole: Vec<f64> = with
        .iter()
        .filter(|(_, f)| f.whole_target)
        .map(|(_, f)| f.unit_share)
        .collect();
    PairLogs {
        rows_checked: rows.len(),
        rows_paired: 2 * pairs.len(),
        rows_failing: ids(&|r| !r.passes()),
        rows_with_errors: ids(&|r| r.errors.is_some_and(|n| n > 0)),
        rows_with_warnings: ids(&|r| r.warnings.is_some_and(|n| n > 0)),
        rows_negative_min_ttft: ids(&|r| r.negative_min_ttft),
        pairs_without_logs: pairs
            .iter()
            .filter(|p| p.offline.is_none() && p.server.is_none())
            .map(|p| p.offline_id)
            .collect(),
        products_disagreeing: with.iter().filter(|(_, f)| !f.product_agrees).count(),
        whole_targets: whole.len(),
        median_unit_share_whole: median(whole),
        benchmarks: by_benchmark,
        near_limit,
        with_factors: with.len(),
        median_ratio_near,
        median_ratio_other,
        log_shares: log_shares(with.iter().map(|(_, f)| *f)),
        pairs,
    }
}
