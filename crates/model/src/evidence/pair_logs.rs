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
//! the load the submitter scheduled against the Offline rate, the drain, and how the answers'
//! lengths compare. LoadGen computes both rates of the middle factor from one numerator, the
//! sample count less one, over the time the last query was scheduled and the time the last
//! query finished (`loadgen/results.cc`); so the drain is the share of the run spent before the
//! last query was sent, which the final answers' length sets, not load the system failed to
//! keep. The drain-free ratio is load × length. Beside them stand the Server run's p99
//! latencies as shares of the limits its log states.

use std::collections::BTreeMap;

use serde::Serialize;

use super::accuracy::{half_unit_of_last_digit, summary_unit};
use super::loadgen::{parse_summary_log, LoadgenLog, Printed, TestMode, Validity};
use crate::analysis::split::{lowest_by, system_of, Lowest, System};
use crate::analysis::units::Configuration;
use crate::analysis::{median, most_spelled, organizations, range, Pair};
use crate::inputs::{InputKind, Inputs, VerifiedInput};
use crate::project::facts::CheckerFacts;
use crate::project::rounds::LogSpec;
use crate::summary::{Field, RowId, Scenario, Summary};
use ratios_base::error::Result;
use ratios_base::workers;

/// A Server run whose p99 latency reaches this share of its limit or more runs at the limit.
pub const NEAR_LIMIT: f64 = 0.95;

/// What one paired row's log says, checked against the row and the rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowLog {
    /// The summary row the log is of.
    pub row: RowId,
    /// The row's scenario (Offline or Server).
    pub scenario: Scenario,
    /// The pinned input's name.
    pub input: String,
    /// The log describes the row's scenario, in PerformanceOnly mode.
    pub scenario_agrees: bool,
    /// LoadGen says VALID.
    pub valid: bool,
    /// The log's throughput line as printed, in tokens per second.
    pub log_result: String,
    /// The summary's Result as written, cut to 40 characters.
    pub summary_result: String,
    /// The two agree to the digits both print (the summary's read as rounded to six significant
    /// figures where it prints six or fewer).
    pub result_agrees: bool,
    /// A Server log's stated TTFT and TPOT limits equal the checker's for the benchmark (none
    /// for an Offline log, which no latency limit binds).
    pub limits_agree: Option<bool>,
    /// The errors the log's closing lines count; `None` where it has no such line.
    pub errors: Option<u64>,
    /// The warnings the log's closing lines count; `None` where it has no such line.
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
    /// The Server run's scheduled samples per second.
    pub scheduled_samples_per_s: f64,
    /// The Server run's completed samples per second.
    pub completed_samples_per_s: f64,
    /// The Offline run's samples per second.
    pub offline_samples_per_s: f64,
    /// The Server run's tokens per second over its completed samples per second: the length of an
    /// average answer, in tokens.
    pub server_tokens_per_sample: f64,
    /// The Offline run's tokens per second over its samples per second.
    pub offline_tokens_per_sample: f64,
    /// The Server run's p99 time to first token, in milliseconds.
    pub p99_ttft_ms: f64,
    /// The TTFT limit the Server log states, in milliseconds.
    pub ttft_limit_ms: f64,
    /// The Server run's p99 time per output token, in milliseconds.
    pub p99_tpot_ms: f64,
    /// The TPOT limit the Server log states, in milliseconds.
    pub tpot_limit_ms: f64,
    /// `p99_ttft_ms ÷ ttft_limit_ms`: how close the run came to its TTFT limit.
    pub ttft_share: f64,
    /// `p99_tpot_ms ÷ tpot_limit_ms`: how close the run came to its TPOT limit.
    pub tpot_share: f64,
    /// Scheduled samples/s ÷ Offline samples/s.
    pub load: f64,
    /// Completed ÷ scheduled samples/s: the time the last query was scheduled over the time it
    /// finished.
    pub drain: f64,
    /// Server tokens per sample ÷ Offline tokens per sample.
    pub length: f64,
    /// `load × drain × length`: the logs' own Server ÷ Offline tokens/s.
    pub product: f64,
    /// `load × length`: the ratio without the end-of-run drain.
    pub drain_free: f64,
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
    /// The pair's Offline row.
    pub offline_id: RowId,
    /// The pair's Server row.
    pub server_id: RowId,
    /// The pair's benchmark (`MlperfModel`).
    pub benchmark: String,
    /// The pair's Server/Offline ratio from the summary's Results, as a fraction.
    pub ratio: f64,
    /// The Offline row's log, checked; `None` where none is pinned.
    pub offline: Option<RowLog>,
    /// The Server row's log, checked; `None` where none is pinned.
    pub server: Option<RowLog>,
    /// Present when both logs are pinned and print every number the factors need.
    pub factors: Option<Factors>,
}

/// What the factors show for one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkFactors {
    /// The benchmark's name as the summary's `MlperfModel` writes it.
    pub benchmark: String,
    /// Pairs with factors.
    pub pairs: usize,
    /// The median Server/Offline ratio of its pairs with factors.
    pub median_ratio: f64,
    /// Their median load ([`Factors::load`]).
    pub median_load: f64,
    /// Their median drain ([`Factors::drain`]).
    pub median_drain: f64,
    /// Their median length factor ([`Factors::length`]).
    pub median_length: f64,
    /// Their median drain-free ratio ([`Factors::drain_free`]).
    pub median_drain_free: f64,
    /// The median of the Server runs' tokens per sample: how long the benchmark's answers are.
    pub median_server_tokens_per_sample: f64,
    /// Their median p99 time to first token as a share of its limit.
    pub median_ttft_share: f64,
    /// Their median p99 time per output token as a share of its limit.
    pub median_tpot_share: f64,
    /// Pairs whose binding limit is TTFT: p99 at [`NEAR_LIMIT`] of it or more
    /// ([`Factors::binding`]).
    pub near_ttft: usize,
    /// Pairs whose binding limit is TPOT.
    pub near_tpot: usize,
    /// The median ratio of the pairs within 5 % of a limit; `None` when there are none.
    pub median_ratio_near: Option<f64>,
    /// The median ratio of its other pairs with factors; `None` when there are none.
    pub median_ratio_other: Option<f64>,
    /// Its Server runs at a whole-number `target_qps`.
    pub whole_targets: usize,
    /// The median [`Factors::unit_share`] over them; `None` when there are none.
    pub median_unit_share_whole: Option<f64>,
    /// How the benchmark's gap splits between the factors, in logarithms: the sum over its
    /// pairs of ln(load), ln(drain) and ln(length), each over the sum of ln(product).
    pub log_shares: Option<[f64; 3]>,
    /// Its pairs with factors of CPU-only systems.
    pub cpu_only_pairs: usize,
    /// `log_shares` without those pairs; `None` where it has none, or where nothing is left to
    /// split.
    pub log_shares_without_cpu_only: Option<[f64; 3]>,
}

/// The shares of ln(load), ln(drain) and ln(length) in the sum of ln(product) over
/// `factors`; `None` when that sum is zero (no gap to split).
pub fn log_shares<'a>(factors: impl IntoIterator<Item = &'a Factors>) -> Option<[f64; 3]> {
    let mut sums = [0.0f64; 3];
    for f in factors {
        sums[0] += f.load.ln();
        sums[1] += f.drain.ln();
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
    /// Paired rows checked against a pinned log.
    pub rows_checked: usize,
    /// Paired rows in all: two per pair.
    pub rows_paired: usize,
    /// Rows whose log fails a check (see [`RowLog::passes`]).
    pub rows_failing: Vec<RowId>,
    /// Rows whose log counts one error or more.
    pub rows_with_errors: Vec<RowId>,
    /// Rows whose log counts one warning or more.
    pub rows_with_warnings: Vec<RowId>,
    /// Rows whose log prints a negative minimum first-token latency.
    pub rows_negative_min_ttft: Vec<RowId>,
    /// Pairs with no pinned log for either row, by Offline row.
    pub pairs_without_logs: Vec<RowId>,
    /// Pairs whose factors' product disagrees with the ratio.
    pub products_disagreeing: usize,
    /// Server runs at a whole-number target, of those with factors.
    pub whole_targets: usize,
    /// By benchmark, in the order of the analysis (lowest median ratio first).
    pub benchmarks: Vec<BenchmarkFactors>,
    /// Pairs with factors that ran within 5 % of a limit (compared within each benchmark only, in
    /// `benchmarks`: the benchmarks differ in how often they run there).
    pub near_limit: usize,
    /// Pairs with factors: both logs pinned and printing every number the factors need.
    pub with_factors: usize,
    /// The benchmarks' median drain falls as their median answer length grows: ordered by the
    /// one, they stand in the reverse order of the other.
    pub drain_follows_length: bool,
    /// Over all pairs with factors, as [`BenchmarkFactors::log_shares`].
    pub log_shares: Option<[f64; 3]>,
    /// The same without the pairs of CPU-only systems; `None` when there are none.
    pub log_shares_without_cpu_only: Option<[f64; 3]>,
    /// Pairs with factors of CPU-only systems.
    pub cpu_only_pairs: usize,
    /// Their share of the summed ln(product) of all pairs with factors; `None` when there are none
    /// or that sum is zero.
    pub cpu_only_share_of_gap: Option<f64>,
    /// Where each benchmark keeps the least, system by system, on the drain-free ratio (the
    /// systems with factors for every benchmark they ran).
    pub drain_free_lowest: Vec<Lowest>,
    /// The Server targets that pairs of one hardware configuration and benchmark share.
    pub shared_targets: SharedTargets,
    /// Each benchmark's gap to the other benchmarks of the same systems, taken apart into the
    /// factors, in the order of `benchmarks`.
    pub deficits: Vec<Deficit>,
    /// Pairs with factors whose ratio is above 1: the Server run reports more than the Offline run.
    pub over_100: usize,
    /// Of those, the pairs scheduled above the Offline rate (load above 1).
    pub over_100_load_above: usize,
}

/// One benchmark's gap to the other benchmarks of the same systems, taken apart: on each system
/// with factors for every pair and each benchmark once, for each other benchmark it ran,
/// ln(product) of this benchmark's pair less the other's splits into the load's, the drain's and
/// the length's differences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Deficit {
    /// The benchmark whose gap is taken apart.
    pub benchmark: String,
    /// Systems that ran it beside another benchmark, with factors for each pair and each benchmark
    /// once.
    pub systems: usize,
    /// The comparisons with another benchmark of the same system.
    pub comparisons: usize,
    /// The sums of the load's, the drain's and the length's differences over the comparisons,
    /// each as a share of the summed difference of ln(product); `None` when that sum is zero.
    pub shares: Option<[f64; 3]>,
    /// Comparisons in which the load's difference is below the drain's: the load's part of the
    /// gap is the larger.
    pub load_larger: usize,
}

/// Pairs of one hardware configuration and benchmark that ran at one Server target: a sign
/// that their submitters took one setting, so that they are not independent runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SharedTargets {
    /// Pairs with factors whose configuration and benchmark another such pair shares.
    pub sharing_configuration: usize,
    /// Of those, the pairs whose `target_qps` equals another's of the same group.
    pub sharing_target: usize,
    /// Every group of two pairs or more with one configuration, benchmark and target: most
    /// pairs first, then by benchmark, configuration and target.
    pub groups: Vec<TargetGroup>,
}

/// Two pairs or more of one configuration and benchmark at one Server target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetGroup {
    /// The benchmark the group's pairs ran.
    pub benchmark: String,
    /// The configuration, its accelerator (or processor) spelled as most of the group's pairs
    /// spell it.
    pub configuration: String,
    /// The Server target the pairs share (`target_qps`), as the first pair's log prints it.
    pub target_qps: String,
    /// Pairs in the group.
    pub pairs: usize,
    /// The organisations that submitted them, sorted, each once.
    pub organizations: Vec<String>,
    /// The lowest Server/Offline ratio in the group.
    pub min_ratio: f64,
    /// The highest Server/Offline ratio in the group.
    pub max_ratio: f64,
    /// The ratios of the other pairs of the configuration and benchmark, when there are any:
    /// least and most.
    pub others: Option<[f64; 2]>,
}

impl PairLogs {
    /// The logs of the pair whose Offline row is `offline_id`.
    pub fn pair(&self, offline_id: RowId) -> Option<&PairLog> {
        self.pairs.iter().find(|p| p.offline_id == offline_id)
    }
}

/// The pinned LoadGen logs of the round's results tree (any owner's copy of `logs.tree`), by
/// their path in it. A real manifest pins each log once: a list's logs are kept at a local path
/// made of their path, which the manifest refuses to use twice.
fn logs_by_path<'a>(inputs: &'a Inputs, logs: &LogSpec) -> BTreeMap<&'a str, &'a VerifiedInput> {
    inputs
        .of_kind(InputKind::LoadgenSummary)
        .filter(|f| f.pin.repository.rsplit('/').next() == Some(logs.tree.as_str()))
        .map(|f| (f.pin.path.as_str(), f))
        .collect()
}

/// The log's throughput line agrees with the summary's Result `summary_text` when they differ
/// by at most half a unit of the last digit each prints (the summary's rounded to six
/// significant figures). Returns the agreement, the tolerance and the difference.
pub(crate) fn throughput_agrees(summary_text: &str, log: &Printed) -> (bool, f64, f64) {
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
        summary_result: ratios_base::text::excerpt(summary_result, 40),
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
    let drain = completed.value / scheduled.value;
    let length = server_tokens_per_sample / offline_tokens_per_sample;
    let product = load * drain * length;
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
        drain,
        length,
        product,
        drain_free: load * length,
        product_agrees,
        unit_share: 1.0 / target.value,
        whole_target: target.value.fract() == 0.0,
        binding,
    })
}

/// Checks every pair's logs and takes each ratio apart. `logs` says where the round's logs lie;
/// `benchmarks` gives the order of the benchmarks (the analysis's, lowest median first).
pub fn pair_logs(
    summary: &Summary,
    logs: &LogSpec,
    pairs: &[Pair],
    benchmarks: &[String],
    inputs: &Inputs,
    facts: &CheckerFacts,
) -> Result<PairLogs> {
    let by_path = logs_by_path(inputs, logs);
    let read = |id: RowId| -> Result<Option<(RowLog, LoadgenLog)>> {
        let row = &summary.rows[id.0 as usize];
        let location = row.raw(Field::Location).trim_start_matches("./");
        let path = logs.path.replace("{location}", location);
        let Some(input) = by_path.get(path.as_str()) else {
            return Ok(None);
        };
        let log = parse_summary_log(&input.pin.name, super::utf8(input)?)?;
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
    Ok(summarise(out, pairs, benchmarks))
}

/// Every row log of `pairs`: the Offline and the Server run of each pair, where it has one.
pub fn row_logs(pairs: &[PairLog]) -> impl Iterator<Item = &RowLog> {
    pairs.iter().flat_map(|p| [&p.offline, &p.server]).flatten()
}

/// The counts and medians of [`PairLogs`] from its pairs (`logs`, in the order of `pairs`).
fn summarise(logs: Vec<PairLog>, pairs: &[Pair], benchmarks: &[String]) -> PairLogs {
    let rows: Vec<&RowLog> = row_logs(&logs).collect();
    let ids = |keep: &dyn Fn(&RowLog) -> bool| -> Vec<RowId> {
        let mut v: Vec<RowId> = rows.iter().filter(|r| keep(r)).map(|r| r.row).collect();
        v.sort();
        v
    };
    // Each pair with factors, beside its pair.
    let with: Vec<(&PairLog, &Factors, &Pair)> = logs
        .iter()
        .zip(pairs)
        .filter_map(|(l, p)| l.factors.as_ref().map(|f| (l, f, p)))
        .collect();
    let cpu_only = |p: &Pair| p.submission.cpu_only;
    // The log shares of the pairs of systems with accelerators, when some pairs are CPU-only.
    let without_cpu_only = |ps: &[(&PairLog, &Factors, &Pair)]| {
        let accelerated = ps.iter().filter(|(_, _, p)| !cpu_only(p));
        (ps.iter().any(|(_, _, p)| cpu_only(p)))
            .then(|| log_shares(accelerated.map(|(_, f, _)| *f)))
            .flatten()
    };
    let by_benchmark: Vec<BenchmarkFactors> = benchmarks
        .iter()
        .filter_map(|b| {
            let ps: Vec<(&PairLog, &Factors, &Pair)> = with
                .iter()
                .copied()
                .filter(|(l, _, _)| &l.benchmark == b)
                .collect();
            let m = |get: fn(&Factors) -> f64| median(ps.iter().map(|(_, f, _)| get(f)).collect());
            let (near, other): (Vec<_>, Vec<_>) =
                ps.iter().partition(|(_, f, _)| f.binding.is_some());
            let count = |limit: &str| {
                ps.iter()
                    .filter(|(_, f, _)| f.binding == Some(limit))
                    .count()
            };
            let whole: Vec<f64> = ps
                .iter()
                .filter(|(_, f, _)| f.whole_target)
                .map(|(_, f, _)| f.unit_share)
                .collect();
            let cpu_only_pairs = ps.iter().filter(|(_, _, p)| cpu_only(p)).count();
            Some(BenchmarkFactors {
                benchmark: b.clone(),
                pairs: ps.len(),
                median_ratio: median(ps.iter().map(|(l, _, _)| l.ratio).collect())?,
                median_load: m(|f| f.load)?,
                median_drain: m(|f| f.drain)?,
                median_length: m(|f| f.length)?,
                median_drain_free: m(|f| f.drain_free)?,
                median_server_tokens_per_sample: m(|f| f.server_tokens_per_sample)?,
                median_ttft_share: m(|f| f.ttft_share)?,
                median_tpot_share: m(|f| f.tpot_share)?,
                near_ttft: count("TTFT"),
                near_tpot: count("TPOT"),
                median_ratio_near: median(near.iter().map(|(l, _, _)| l.ratio).collect()),
                median_ratio_other: median(other.iter().map(|(l, _, _)| l.ratio).collect()),
                whole_targets: whole.len(),
                median_unit_share_whole: median(whole),
                log_shares: log_shares(ps.iter().map(|(_, f, _)| *f)),
                cpu_only_pairs,
                log_shares_without_cpu_only: without_cpu_only(&ps),
            })
        })
        .collect();
    let drain_follows_length = {
        let order = |key: fn(&BenchmarkFactors) -> f64| {
            let mut v: Vec<&BenchmarkFactors> = by_benchmark.iter().collect();
            v.sort_by(|a, b| key(a).total_cmp(&key(b)));
            v.into_iter()
                .map(|b| b.benchmark.as_str())
                .collect::<Vec<_>>()
        };
        let mut by_drain = order(|b| b.median_drain);
        by_drain.reverse();
        by_benchmark.len() >= 2 && by_drain == order(|b| b.median_server_tokens_per_sample)
    };
    let total_gap: f64 = with.iter().map(|(_, f, _)| f.product.ln()).sum();
    let cpu_only_gap: f64 = with
        .iter()
        .filter(|(_, _, p)| cpu_only(p))
        .map(|(_, f, _)| f.product.ln())
        .sum();
    let cpu_only_pairs = with.iter().filter(|(_, _, p)| cpu_only(p)).count();
    let drain_free: BTreeMap<RowId, f64> = with
        .iter()
        .map(|(l, f, _)| (l.offline_id, f.drain_free))
        .collect();
    PairLogs {
        rows_checked: rows.len(),
        rows_paired: 2 * logs.len(),
        rows_failing: ids(&|r| !r.passes()),
        rows_with_errors: ids(&|r| r.errors.is_some_and(|n| n > 0)),
        rows_with_warnings: ids(&|r| r.warnings.is_some_and(|n| n > 0)),
        rows_negative_min_ttft: ids(&|r| r.negative_min_ttft),
        pairs_without_logs: logs
            .iter()
            .filter(|p| p.offline.is_none() && p.server.is_none())
            .map(|p| p.offline_id)
            .collect(),
        products_disagreeing: with.iter().filter(|(_, f, _)| !f.product_agrees).count(),
        whole_targets: with.iter().filter(|(_, f, _)| f.whole_target).count(),
        benchmarks: by_benchmark,
        near_limit: with.iter().filter(|(_, f, _)| f.binding.is_some()).count(),
        with_factors: with.len(),
        drain_follows_length,
        log_shares: log_shares(with.iter().map(|(_, f, _)| *f)),
        log_shares_without_cpu_only: without_cpu_only(&with),
        cpu_only_pairs,
        cpu_only_share_of_gap: (cpu_only_pairs > 0 && total_gap != 0.0 && total_gap.is_finite())
            .then(|| cpu_only_gap / total_gap),
        drain_free_lowest: lowest_by(pairs, benchmarks, &|p| {
            drain_free.get(&p.offline_id).copied()
        }),
        shared_targets: shared_targets(&with),
        deficits: deficits(&with, pairs, benchmarks),
        over_100: with.iter().filter(|(l, _, _)| l.ratio > 1.0).count(),
        over_100_load_above: with
            .iter()
            .filter(|(l, f, _)| l.ratio > 1.0 && f.load > 1.0)
            .count(),
        pairs: logs,
    }
}

/// Each benchmark's gap to the others of the same systems, in factors ([`Deficit`]).
fn deficits(
    with: &[(&PairLog, &Factors, &Pair)],
    pairs: &[Pair],
    benchmarks: &[String],
) -> Vec<Deficit> {
    // Each system's factors by benchmark; a system with a benchmark twice is left out, and so
    // is one with a pair without factors.
    let key = system_of;
    let all: BTreeMap<System, usize> = pairs.iter().fold(BTreeMap::new(), |mut m, p| {
        *m.entry(key(p)).or_default() += 1;
        m
    });
    let mut by: BTreeMap<System, BTreeMap<&str, Vec<&Factors>>> = BTreeMap::new();
    for (_, f, p) in with {
        by.entry(key(p))
            .or_default()
            .entry(&p.submission.benchmark)
            .or_default()
            .push(f);
    }
    let systems: Vec<BTreeMap<&str, &Factors>> = by
        .into_iter()
        .filter(|(k, r)| all.get(k) == Some(&r.values().map(Vec::len).sum()))
        .map(|(_, r)| r)
        .filter(|r| r.values().all(|v| v.len() == 1))
        .map(|r| r.into_iter().map(|(b, v)| (b, v[0])).collect())
        .collect();
    benchmarks
        .iter()
        .map(|b| {
            let (mut sums, mut total) = ([0.0f64; 3], 0.0f64);
            let (mut n_systems, mut comparisons, mut load_larger) = (0, 0, 0);
            for ran in &systems {
                let Some(own) = ran.get(b.as_str()) else {
                    continue;
                };
                let others: Vec<&&Factors> = ran
                    .iter()
                    .filter(|(o, _)| **o != b.as_str())
                    .map(|(_, f)| f)
                    .collect();
                if others.is_empty() {
                    continue;
                }
                n_systems += 1;
                for o in others {
                    let d = [
                        own.load.ln() - o.load.ln(),
                        own.drain.ln() - o.drain.ln(),
                        own.length.ln() - o.length.ln(),
                    ];
                    for (s, x) in sums.iter_mut().zip(d) {
                        *s += x;
                    }
                    total += own.product.ln() - o.product.ln();
                    comparisons += 1;
                    load_larger += usize::from(d[0] < d[1]);
                }
            }
            Deficit {
                benchmark: b.clone(),
                systems: n_systems,
                comparisons,
                shares: (total != 0.0 && total.is_finite()).then(|| sums.map(|s| s / total)),
                load_larger,
            }
        })
        .collect()
}

/// The groups of pairs with factors that share a hardware configuration, a benchmark and a
/// Server target.
fn shared_targets(with: &[(&PairLog, &Factors, &Pair)]) -> SharedTargets {
    // By configuration and benchmark, then by target (its value's bits: 16 and 16.0 are one).
    type Group<'a> = BTreeMap<u64, Vec<(&'a Factors, &'a Pair)>>;
    let mut by: BTreeMap<(Configuration, &str), Group> = BTreeMap::new();
    for (_, f, p) in with {
        let target = f.target_qps.trim().parse::<f64>();
        let (Some(configuration), Ok(target)) = (p.submission.configuration(), target) else {
            continue;
        };
        by.entry((configuration, p.submission.benchmark.as_str()))
            .or_default()
            .entry(target.to_bits())
            .or_default()
            .push((f, p));
    }
    let mut out = SharedTargets::default();
    for ((configuration, benchmark), targets) in &by {
        let all: Vec<f64> = targets.values().flatten().map(|(_, p)| p.ratio.0).collect();
        if all.len() < 2 {
            continue;
        }
        out.sharing_configuration += all.len();
        for group in targets.values().filter(|g| g.len() >= 2) {
            out.sharing_target += group.len();
            let ratios: Vec<f64> = group.iter().map(|(_, p)| p.ratio.0).collect();
            let others: Vec<f64> = targets
                .values()
                .filter(|g| !std::ptr::eq(*g, group))
                .flatten()
                .map(|(_, p)| p.ratio.0)
                .collect();
            let [min_ratio, max_ratio] = range(ratios.iter().copied());
            // The name as most of the group's pairs spell it.
            let name = most_spelled(group.iter().map(|(_, p)| p.submission.hardware_name()))
                .unwrap_or(configuration.name.as_str());
            out.groups.push(TargetGroup {
                benchmark: benchmark.to_string(),
                configuration: configuration.spelled(name),
                target_qps: group[0].0.target_qps.clone(),
                pairs: group.len(),
                organizations: organizations(group.iter().map(|(_, p)| &p.submission)),
                min_ratio,
                max_ratio,
                others: (!others.is_empty()).then(|| range(others.iter().copied())),
            });
        }
    }
    out.groups.sort_by(|a, b| {
        b.pairs
            .cmp(&a.pairs)
            .then_with(|| a.benchmark.cmp(&b.benchmark))
            .then_with(|| a.configuration.cmp(&b.configuration))
            .then_with(|| a.target_qps.cmp(&b.target_qps))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Ratio, Submission};

    /// A pair of `org`'s system on 8 × ACME A1 with its factors: its ratio, whether it ran at
    /// its TPOT limit, its drain, its Server tokens per answer and its target.
    fn made(
        benchmark: &str,
        org: &str,
        ratio: f64,
        near: bool,
        drain: f64,
        tokens: f64,
        target: &str,
    ) -> (PairLog, Pair) {
        let id = RowId(0);
        let factors = Factors {
            target_qps: target.into(),
            scheduled_samples_per_s: 1.0,
            completed_samples_per_s: drain,
            offline_samples_per_s: 1.0,
            server_tokens_per_sample: tokens,
            offline_tokens_per_sample: tokens,
            p99_ttft_ms: 100.0,
            ttft_limit_ms: 2000.0,
            p99_tpot_ms: if near { 79.0 } else { 40.0 },
            tpot_limit_ms: 80.0,
            ttft_share: 0.05,
            tpot_share: if near { 79.0 / 80.0 } else { 0.5 },
            load: ratio / drain,
            drain,
            length: 1.0,
            product: ratio,
            drain_free: ratio / drain,
            product_agrees: true,
            unit_share: 1.0 / target.parse::<f64>().unwrap_or(1.0),
            whole_target: true,
            binding: near.then_some("TPOT"),
        };
        let log = PairLog {
            offline_id: id,
            server_id: RowId(1),
            benchmark: benchmark.into(),
            ratio,
            offline: None,
            server: None,
            factors: Some(factors),
        };
        let pair = Pair {
            offline_id: id,
            server_id: RowId(1),
            submission: Submission {
                organization: org.into(),
                system_name: org.into(),
                platform: org.into(),
                model: benchmark.into(),
                benchmark: benchmark.into(),
                accelerator: Some("ACME A1".into()),
                nodes: Some(1),
                accelerators_per_node: Some(8),
                total_accelerators: Some(8),
                cpu_only: false,
                framework: String::new(),
                host_processor: String::new(),
                host_processors_per_node: None,
            },
            offline_location: String::new(),
            server_location: String::new(),
            offline: 1.0,
            server: ratio,
            ratio: Ratio(ratio),
        };
        (log, pair)
    }

    fn summarised(made: Vec<(PairLog, Pair)>, order: &[&str]) -> PairLogs {
        let (logs, pairs): (Vec<_>, Vec<_>) = made.into_iter().unzip();
        let order: Vec<String> = order.iter().map(|b| b.to_string()).collect();
        summarise(logs, &pairs, &order)
    }

    /// Near a limit, L's pairs keep more than its others (81 against 70) and so do H's (100
    /// against 96); pooled, the near pairs keep less (81.5 against 95.5), only because most of
    /// them are L's. Within each benchmark is how the figures compare them.
    #[test]
    fn near_limit_pairs_are_compared_within_each_benchmark_not_pooled() {
        let found = summarised(
            vec![
                made("L", "a", 0.80, true, 0.99, 100.0, "1"),
                made("L", "b", 0.81, true, 0.99, 100.0, "1"),
                made("L", "c", 0.82, true, 0.99, 100.0, "1"),
                made("L", "d", 0.70, false, 0.99, 100.0, "1"),
                made("H", "a", 1.00, true, 0.99, 100.0, "1"),
                made("H", "b", 0.95, false, 0.99, 100.0, "1"),
                made("H", "c", 0.96, false, 0.99, 100.0, "1"),
                made("H", "d", 0.97, false, 0.99, 100.0, "1"),
            ],
            &["L", "H"],
        );
        let pooled = |near: bool| {
            crate::analysis::median(
                found
                    .pairs
                    .iter()
                    .filter(|p| p.factors.as_ref().unwrap().binding.is_some() == near)
                    .map(|p| p.ratio)
                    .collect(),
            )
            .unwrap()
        };
        // The fixture holds the reversal.
        assert!(pooled(true) < pooled(false));
        for (b, near, other) in [("L", 0.81, 0.70), ("H", 1.00, 0.96)] {
            let f = found.benchmarks.iter().find(|f| f.benchmark == b).unwrap();
            assert!((f.median_ratio_near.unwrap() - near).abs() < 1e-12, "{b}");
            assert!((f.median_ratio_other.unwrap() - other).abs() < 1e-12, "{b}");
        }
        assert_eq!(found.near_limit, 4);
    }

    /// The drain falls as answers lengthen: L's long answers drain at 0.95, H's short ones at
    /// 0.995. Swap the lengths and the drain no longer follows them.
    #[test]
    fn the_drain_is_found_to_follow_answer_length_only_when_it_does() {
        let pairs = |l_tokens, h_tokens| {
            vec![
                made("L", "a", 0.80, false, 0.95, l_tokens, "1"),
                made("L", "b", 0.82, false, 0.95, l_tokens, "1"),
                made("M", "a", 0.88, false, 0.98, 500.0, "1"),
                made("H", "a", 0.95, false, 0.995, h_tokens, "1"),
            ]
        };
        let found = summarised(pairs(4000.0, 100.0), &["L", "M", "H"]);
        assert!(found.drain_follows_length);
        let l = &found.benchmarks[0];
        assert_eq!(l.median_server_tokens_per_sample, 4000.0);
        assert!((l.median_drain - 0.95).abs() < 1e-12);
        // Load × length: the ratio without the drain.
        assert!((l.median_drain_free - 0.81 / 0.95).abs() < 1e-12);
        assert!(!summarised(pairs(100.0, 4000.0), &["L", "M", "H"]).drain_follows_length);
    }

    /// Two partners copy the maker's target of 16 on its hardware, a third submitter sets its
    /// own: three pairs share the configuration, two the target.
    #[test]
    fn partners_sharing_one_target_on_one_configuration_are_grouped() {
        let found = summarised(
            vec![
                made("L", "Maker", 0.84, false, 0.99, 100.0, "16"),
                made("L", "Partner", 0.82, false, 0.99, 100.0, "16.0"),
                made("L", "Own", 0.95, false, 0.99, 100.0, "18"),
            ],
            &["L"],
        );
        let t = &found.shared_targets;
        assert_eq!((t.sharing_configuration, t.sharing_target), (3, 2));
        let [g] = t.groups.as_slice() else {
            panic!("one group: {t:?}")
        };
        assert_eq!(g.configuration, "8 × ACME A1 on 1 node");
        assert_eq!((g.target_qps.as_str(), g.pairs), ("16", 2));
        assert_eq!(g.organizations, ["Maker", "Partner"]);
        assert_eq!(
            (g.min_ratio, g.max_ratio, g.others),
            (0.82, 0.84, Some([0.95, 0.95]))
        );
    }

    /// On one system, L's pair runs at load 0.8 and drain 0.95, H's at load 1.0 and drain 0.99
    /// (lengths 1): L's gap to H is ln 0.8 from the load and ln(0.95 / 0.99) from the drain, so
    /// the load carries ln 0.8 / ln(0.76 / 0.99) of it. A second system ran L alone and adds no
    /// comparison.
    #[test]
    fn a_benchmarks_gap_to_the_same_systems_other_benchmarks_is_taken_apart() {
        let found = summarised(
            vec![
                made("L", "one", 0.8 * 0.95, false, 0.95, 100.0, "1"),
                made("H", "one", 0.99, false, 0.99, 100.0, "1"),
                made("L", "alone", 0.5, false, 0.9, 100.0, "1"),
            ],
            &["L", "H"],
        );
        let l = &found.deficits[0];
        assert_eq!(
            (l.benchmark.as_str(), l.systems, l.comparisons),
            ("L", 1, 1)
        );
        let [load, drain, length] = l.shares.unwrap();
        let total = (0.76f64 / 0.99).ln();
        assert!((load - 0.8f64.ln() / total).abs() < 1e-12);
        assert!((drain - (0.95f64 / 0.99).ln() / total).abs() < 1e-12);
        assert!(length.abs() < 1e-12);
        assert_eq!(l.load_larger, 1);
        // H's gap to L is the same, the other way round.
        assert_eq!(found.deficits[1].load_larger, 0);
    }

    /// Two pairs above 100 %: one scheduled above the Offline rate (load 1.02 / 0.99), one below
    /// it (load 1.01 / 1.03), its ratio lifted by a drain above 1, made so on purpose.
    #[test]
    fn pairs_above_100_percent_are_counted_with_their_load() {
        let found = summarised(
            vec![
                made("L", "a", 1.02, false, 0.99, 100.0, "1"),
                made("L", "b", 1.01, false, 1.03, 100.0, "1"),
                made("L", "c", 0.90, false, 0.99, 100.0, "1"),
            ],
            &["L"],
        );
        assert_eq!((found.over_100, found.over_100_load_above), (2, 1));
    }
}
