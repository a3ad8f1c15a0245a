//! How much of the ratio the system sets and how much the benchmark does.
//!
//! On the pairs of the systems (results folders: organisation and `Platform`) that ran two
//! benchmarks or more, three least-squares fits of the ratio: on the system alone, on the
//! benchmark alone, and on both, additively (ratio = system effect + benchmark effect). Each
//! fit's share of the variance is given raw and adjusted for its degrees of freedom (a factor of
//! forty levels explains more raw variance than one of four by construction), with the F test
//! of each factor given the other. The additive fit is solved by alternating means (each
//! factor's effects set to the mean residual of the other's), which converge to the least-squares
//! solution for any design whose systems and benchmarks are connected; the loop stops when no
//! effect moves by more than [`TOLERANCE`].
//!
//! Beside the fits, the paired comparisons: for each two benchmarks, on the systems that ran
//! each once, on how many the first keeps more, with an exact two-sided sign test.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::units::{Membership, UnitVotes};
use super::{sorted_distinct, Pair};
use ratios_base::stats::{f_upper_tail, sign_test};

/// The alternating means stop when no effect moves by more than this (a ratio of 1e-12 is
/// 1e-10 percentage points).
pub const TOLERANCE: f64 = 1e-12;
/// And after this many rounds at most (a connected design of this size settles in far fewer).
const MAX_ROUNDS: usize = 100_000;

/// One fit's share of the variance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fit {
    /// Parameters, the intercept included (levels less the constraints).
    pub parameters: usize,
    /// The sum of the squared residuals (RSS), in squared ratio units (fractions, not points).
    pub residual_sum_of_squares: f64,
    /// 1 − RSS / TSS.
    pub r_squared: f64,
    /// 1 − (RSS / (n − p)) / (TSS / (n − 1)).
    pub adjusted_r_squared: f64,
}

/// The F test of one factor added to a fit of the other.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FTest {
    /// The F statistic: the drop in RSS per degree of freedom of the factor, over the residual mean
    /// square of the fit on both.
    pub f: f64,
    /// The factor's degrees of freedom: its levels less one.
    pub df_factor: usize,
    /// The residual degrees of freedom of the fit on both: the pairs less its parameters.
    pub df_residual: usize,
    /// The chance of an F this large or larger under no effect of the factor (the F distribution's
    /// upper tail); NaN when it cannot be computed.
    pub p_value: f64,
    /// The share of the variance the other factor leaves that this one explains: 1 − RSS of
    /// both ÷ RSS of the other alone (partial η²).
    pub partial_eta_squared: f64,
}

/// The split of the variance between system and benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Split {
    /// The pairs fitted: those of the systems that ran two benchmarks or more.
    pub pairs: usize,
    /// The systems (results folders) among them.
    pub systems: usize,
    /// The benchmarks among them.
    pub benchmarks: usize,
    /// The fit on the system alone: each system's mean ratio.
    pub system: Fit,
    /// The fit on the benchmark alone: each benchmark's mean ratio.
    pub benchmark: Fit,
    /// The additive fit on both, solved by alternating means.
    pub both: Fit,
    /// The F test of the system factor added to the benchmark's fit.
    pub system_given_benchmark: FTest,
    /// The F test of the benchmark factor added to the system's fit.
    pub benchmark_given_system: FTest,
    /// Each benchmark's effect in the additive fit, in percentage points, centred so that
    /// the benchmarks' effects sum to zero; lowest first.
    pub benchmark_effects_pp: Vec<(String, f64)>,
    /// Rounds the alternating means took.
    pub rounds: usize,
    /// The benchmark factor tested by permuting the benchmarks' labels within each system
    /// (`None` when the benchmarks do not vary within any system).
    pub permutation: Option<Permutation>,
    /// Each benchmark's effect refitted with each system, organisation and hardware
    /// configuration left out in turn, in the order of `benchmark_effects_pp`.
    pub leave_one_out: Vec<EffectRange>,
}

/// The seed of the permutation test's generator (SplitMix64), fixed so that the test is
/// repeatable: the date the test was written.
pub(crate) const PERMUTATION_SEED: u64 = 20_261_206;
/// Permutations the test draws.
pub(crate) const PERMUTATIONS: usize = 10_000;

/// A permutation test of the benchmark factor given the system: the ratios of each system are
/// shuffled among its own benchmarks, which keeps every system's effect and breaks any link to
/// the benchmark, and the benchmark factor's share of what the systems leave is measured again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Permutation {
    /// The seed the SplitMix64 generator starts from (`PERMUTATION_SEED`, fixed so the test
    /// repeats).
    pub seed: u64,
    /// How many shuffles the test draws.
    pub permutations: usize,
    /// Permutations whose benchmark factor reduced the residual sum of squares at least as much
    /// as the real labels do (to within 1e-9 of it).
    pub at_least_as_large: usize,
    /// (at_least_as_large + 1) / (permutations + 1).
    pub p_value: f64,
}

/// One benchmark's effect when each unit of one level is left out in turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refits {
    /// Units of the level (systems, organisations or configurations), each left out in turn.
    pub left_out: usize,
    /// Of those, the refits that could be made and hold every benchmark (a refit needs a connected
    /// design of two systems and two benchmarks or more).
    pub refits: usize,
    /// The least the effect reaches, over the full fit and the refits, in percentage points.
    pub min_pp: f64,
    /// The most the effect reaches, over the full fit and the refits, in percentage points.
    pub max_pp: f64,
    /// Every refit keeps the effect's sign (a refit at zero does not).
    pub same_sign: bool,
    /// Every refit keeps the effect's place among the benchmarks' effects, lowest first.
    pub same_rank: bool,
}

/// One benchmark's effect and how it fares with each unit left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectRange {
    /// The benchmark whose effect is refitted.
    pub benchmark: String,
    /// Its effect in the additive fit of the split's pairs, centred, in percentage points.
    pub effect_pp: f64,
    /// The refits with each system (results folder) left out in turn.
    pub systems: Refits,
    /// The refits with each organisation's systems left out in turn.
    pub organizations: Refits,
    /// The refits with each hardware configuration's systems left out in turn.
    pub configurations: Refits,
}

impl EffectRange {
    /// The effect keeps its sign and its place whichever single system, organisation or
    /// configuration is left out.
    pub fn holds(&self) -> bool {
        [&self.systems, &self.organizations, &self.configurations]
            .iter()
            .all(|r| r.same_sign && r.same_rank && r.refits == r.left_out)
    }
}

/// One paired comparison of two benchmarks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The benchmark of the two that comes first in the analysis's order (the lower median).
    pub first: String,
    /// The other benchmark, later in that order.
    pub second: String,
    /// Systems that ran each of the two once.
    pub systems: usize,
    /// Systems on which the first benchmark's ratio is the higher.
    pub first_higher: usize,
    /// Systems on which the second benchmark's ratio is the higher.
    pub second_higher: usize,
    /// Systems on which the two ratios are equal.
    pub ties: usize,
    /// The exact two-sided sign test on the untied systems.
    pub p_value: f64,
    /// The largest gap between the two on one system within which the comparison is close:
    /// the systems whose two ratios lie less than one percentage point apart.
    pub within_one_point: usize,
    /// The same comparison with one vote per system, organisation and hardware configuration
    /// (`first`: the first keeps more).
    pub units: UnitVotes,
}

/// Where one benchmark keeps the least, system by system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lowest {
    /// The benchmark counted.
    pub benchmark: String,
    /// Systems that ran it once beside at least one other benchmark (each once).
    pub systems: usize,
    /// On how many of them its ratio is below every other benchmark's.
    pub lowest_on: usize,
    /// On those, how far below the next lowest it lies, in percentage points: least, median
    /// and most (none when it is lowest nowhere).
    pub gap_pp: Option<[f64; 3]>,
    /// On how many of those it lies less than two points below: a difference the page treats
    /// as within the noise of a single run.
    pub close: usize,
    /// Systems that ran it beside another benchmark but are left out: they ran one benchmark
    /// twice, or have no value for one.
    pub left_out: usize,
    /// The accelerators of the systems counted in `systems`, as the summary names them (CPU-only
    /// systems have none), sorted and each once.
    pub accelerators: Vec<String>,
    /// The same count with one vote per system, organisation and hardware configuration
    /// (`first`: the benchmark keeps less than every other the unit's median system ran).
    pub units: UnitVotes,
    /// The count made again on the systems of one node.
    pub single_node: NodeCount,
    /// The count made again on the systems of more than one node.
    pub multi_node: NodeCount,
    /// The software the most of those systems list (`framework`), and how many list it.
    pub software: Option<super::units::SharedSoftware>,
}

/// Where a benchmark keeps the least among systems of one kind of node count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeCount {
    /// Systems of this node count that ran the benchmark once beside another.
    pub systems: usize,
    /// On how many of them its ratio is below every other benchmark's.
    pub lowest_on: usize,
    /// Least, median and most gap below the next lowest, in percentage points.
    pub gap_pp: Option<[f64; 3]>,
}

/// What the split and the comparisons find.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemAndBenchmark {
    /// `None` when fewer than two systems ran two benchmarks or more, or the fit does not settle.
    pub split: Option<Split>,
    /// Every two benchmarks, in the order of `benchmarks` (the analysis's, lowest median first).
    pub comparisons: Vec<Comparison>,
    /// Each benchmark, in the same order: where it keeps the least.
    pub lowest: Vec<Lowest>,
    /// The same, with a system taken as an organisation's hardware configuration rather than
    /// its results folder ([`lowest_by_hardware`]).
    pub lowest_by_hardware: Vec<Lowest>,
}

/// A system: its organisation and `Platform` (results folder).
pub(crate) type System<'a> = (&'a str, &'a str);

/// The system of a pair.
pub(crate) fn system_of(p: &Pair) -> System<'_> {
    (&p.submission.organization, &p.submission.platform)
}

/// The split and the comparisons of `pairs`, benchmarks ordered as `benchmarks`.
pub(crate) fn system_and_benchmark(pairs: &[Pair], benchmarks: &[String]) -> SystemAndBenchmark {
    SystemAndBenchmark {
        split: split(pairs),
        comparisons: comparisons(pairs, benchmarks),
        lowest: lowest_by(pairs, benchmarks, &|p| Some(p.ratio.0)),
        lowest_by_hardware: lowest_by_hardware(pairs, benchmarks),
    }
}

/// What each system counts under, by organisation and configuration (as its first pair states
/// them).
fn memberships(pairs: &[Pair]) -> BTreeMap<System<'_>, Membership> {
    let mut out = BTreeMap::new();
    for p in pairs {
        out.entry(system_of(p))
            .or_insert_with(|| p.submission.membership());
    }
    out
}

/// A system's key as one string, for the votes of single systems.
fn system_key(s: System) -> String {
    format!("{}\u{0}{}", s.0, s.1)
}

/// Each system's one value per benchmark, for the systems that ran each of their benchmarks
/// once and have a value for each (a system with two runs of one benchmark is left out: which
/// of them to compare is a choice the results do not make).
/// Returns also the systems left out, each with the benchmarks it ran.
fn once_each<'a>(pairs: &'a [Pair], value: &dyn Fn(&Pair) -> Option<f64>) -> OnceEach<'a> {
    let mut ran: BTreeMap<System, BTreeMap<&str, Vec<Option<f64>>>> = BTreeMap::new();
    for p in pairs {
        ran.entry(system_of(p))
            .or_default()
            .entry(&p.submission.benchmark)
            .or_default()
            .push(value(p));
    }
    let mut kept = BTreeMap::new();
    let mut left_out = Vec::new();
    for (s, r) in ran {
        let benchmarks: BTreeSet<&str> = r.keys().copied().collect();
        let one: Option<BTreeMap<&str, f64>> = r
            .into_iter()
            .map(|(b, v)| match v.as_slice() {
                [Some(x)] => Some((b, *x)),
                _ => None,
            })
            .collect();
        match one {
            Some(one) => {
                kept.insert(s, one);
            }
            None => left_out.push(benchmarks),
        }
    }
    (kept, left_out)
}

/// Each kept system's one value per benchmark, and the benchmarks of each system left out.
type OnceEach<'a> = (
    BTreeMap<System<'a>, BTreeMap<&'a str, f64>>,
    Vec<BTreeSet<&'a str>>,
);

/// How many of `diffs` (a system's value below the next lowest, as a fraction) are positive,
/// and their least, median and most, in percentage points.
fn gaps(diffs: impl Iterator<Item = f64>) -> (usize, Option<[f64; 3]>) {
    let mut gaps: Vec<f64> = diffs.filter(|d| *d > 0.0).map(|d| d * 100.0).collect();
    gaps.sort_by(f64::total_cmp);
    let range = crate::analysis::median(gaps.clone()).map(|m| [gaps[0], m, gaps[gaps.len() - 1]]);
    (gaps.len(), range)
}

/// For each benchmark, the systems that ran it beside another, and where it keeps the least by
/// `value` (the ratio, or another measure of each pair): counted by system, organisation and
/// configuration, and apart for systems of one node and of more. Systems without a value for
/// every benchmark they ran are left out.
pub fn lowest_by(
    pairs: &[Pair],
    benchmarks: &[String],
    value: &dyn Fn(&Pair) -> Option<f64>,
) -> Vec<Lowest> {
    let (systems, left_out) = once_each(pairs, value);
    let members = memberships(pairs);
    let mut accelerators_of: BTreeMap<System, BTreeSet<&str>> = BTreeMap::new();
    // Each system as its first pair states it.
    let mut first_of: BTreeMap<System, &super::Submission> = BTreeMap::new();
    for p in pairs {
        first_of.entry(system_of(p)).or_insert(&p.submission);
        if let Some(name) = p.submission.accelerator_name() {
            accelerators_of
                .entry(system_of(p))
                .or_default()
                .insert(name);
        }
    }
    benchmarks
        .iter()
        .map(|b| {
            // Each system that ran `b` beside another: how far its next lowest lies above it.
            let mut diffs: Vec<(System, f64)> = Vec::new();
            let mut accelerators = BTreeSet::new();
            for (system, ran) in &systems {
                let Some(&own) = ran.get(b.as_str()) else {
                    continue;
                };
                let next = ran
                    .iter()
                    .filter(|(other, _)| **other != b.as_str())
                    .map(|(_, &r)| r)
                    .fold(f64::INFINITY, f64::min);
                if next.is_finite() {
                    accelerators.extend(accelerators_of.get(system).into_iter().flatten());
                    diffs.push((*system, next - own));
                }
            }
            let (lowest_on, gap_pp) = gaps(diffs.iter().map(|d| d.1));
            let close = diffs.iter().filter(|d| d.1 > 0.0 && d.1 < 0.02).count();
            let by_nodes = |multi: bool| {
                let of: Vec<f64> = diffs
                    .iter()
                    .filter(|(s, _)| first_of.get(s).and_then(|f| f.multi_node()) == Some(multi))
                    .map(|d| d.1)
                    .collect();
                let (lowest_on, gap_pp) = gaps(of.iter().copied());
                NodeCount {
                    systems: of.len(),
                    lowest_on,
                    gap_pp,
                }
            };
            let votes: Vec<(&Membership, String, f64)> = diffs
                .iter()
                .filter_map(|(s, d)| Some((members.get(s)?, system_key(*s), *d)))
                .collect();
            Lowest {
                benchmark: b.clone(),
                systems: diffs.len(),
                lowest_on,
                gap_pp,
                close,
                left_out: left_out
                    .iter()
                    .filter(|ran| ran.contains(b.as_str()) && ran.len() >= 2)
                    .count(),
                accelerators: accelerators.into_iter().map(str::to_string).collect(),
                units: UnitVotes::of(&votes),
                single_node: by_nodes(false),
                multi_node: by_nodes(true),
                software: super::units::shared_software(
                    diffs
                        .iter()
                        .filter_map(|(s, _)| Some(first_of.get(s)?.framework.as_str())),
                ),
            }
        })
        .collect()
}

/// As [`lowest_by`] on the ratio, with a system taken as an organisation's hardware
/// configuration, its results folders on that hardware merged: an organisation that ran two
/// benchmarks on one hardware, each in a folder of its own, compares them. Pairs without a
/// configuration keep their folder.
pub fn lowest_by_hardware(pairs: &[Pair], benchmarks: &[String]) -> Vec<Lowest> {
    let merged: Vec<Pair> = pairs
        .iter()
        .map(|p| {
            let mut p = p.clone();
            if let Some(c) = p.submission.configuration() {
                p.submission.platform = format!("{c:?}");
            }
            p
        })
        .collect();
    lowest_by(&merged, benchmarks, &|p| Some(p.ratio.0))
}

/// The observations of the split: the pairs of the systems that ran two benchmarks or more.
fn split_observations(pairs: &[Pair]) -> Vec<(System<'_>, &str, f64)> {
    let mut ran: BTreeMap<System, BTreeSet<&str>> = BTreeMap::new();
    for p in pairs {
        ran.entry(system_of(p))
            .or_default()
            .insert(&p.submission.benchmark);
    }
    pairs
        .iter()
        .filter(|p| ran[&system_of(p)].len() >= 2)
        .map(|p| (system_of(p), p.submission.benchmark.as_str(), p.ratio.0))
        .collect()
}

/// The least-squares fits on the pairs of the systems that ran two benchmarks or more, with the
/// benchmark factor's permutation test and each effect refitted with each unit left out.
pub fn split(pairs: &[Pair]) -> Option<Split> {
    let obs = split_observations(pairs);
    let mut s = fit(&obs)?;
    s.permutation = permutation(&obs);
    s.leave_one_out = leave_one_out(&obs, &memberships(pairs), &s.benchmark_effects_pp);
    Some(s)
}

/// The three fits of `obs` (system, benchmark, ratio).
fn fit(obs: &[(System, &str, f64)]) -> Option<Split> {
    let n = obs.len();
    let systems: BTreeSet<System> = obs.iter().map(|o| o.0).collect();
    let benchmarks: BTreeSet<&str> = obs.iter().map(|o| o.1).collect();
    let (s, b) = (systems.len(), benchmarks.len());
    // The additive fit has s + b − 1 parameters when systems and benchmarks form one
    // connected design; the F tests need residual degrees of freedom.
    let p_both = (s + b).saturating_sub(1);
    if s < 2 || b < 2 || n <= p_both || !connected(obs) {
        return None;
    }
    let mean = obs.iter().map(|o| o.2).sum::<f64>() / n as f64;
    let tss: f64 = obs.iter().map(|o| (o.2 - mean).powi(2)).sum();
    // A factor alone: each level's mean.
    let one = |key: &dyn Fn(&(System, &str, f64)) -> String| -> f64 {
        let mut groups: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for o in obs {
            let g = groups.entry(key(o)).or_default();
            g.0 += o.2;
            g.1 += 1;
        }
        obs.iter()
            .map(|o| {
                let (sum, count) = groups[&key(o)];
                (o.2 - sum / count as f64).powi(2)
            })
            .sum()
    };
    let rss_system = one(&|o| system_key(o.0));
    let rss_benchmark = one(&|o| o.1.to_string());
    let (system_effect, benchmark_effect, rounds) = alternating_means(obs)?;
    let rss_both: f64 = obs
        .iter()
        .map(|o| (o.2 - system_effect[&o.0] - benchmark_effect[o.1]).powi(2))
        .sum();
    let fit_of = |rss: f64, parameters: usize| Fit {
        parameters,
        residual_sum_of_squares: rss,
        r_squared: 1.0 - rss / tss,
        adjusted_r_squared: 1.0 - (rss / (n - parameters) as f64) / (tss / (n - 1) as f64),
    };
    let df_residual = n - p_both;
    let test = |rss_without: f64, df_factor: usize| {
        let f = ((rss_without - rss_both) / df_factor as f64) / (rss_both / df_residual as f64);
        FTest {
            f,
            df_factor,
            df_residual,
            partial_eta_squared: 1.0 - rss_both / rss_without,
            p_value: f_upper_tail(f.max(0.0), df_factor as f64, df_residual as f64)
                .unwrap_or(f64::NAN),
        }
    };
    Some(Split {
        pairs: n,
        systems: s,
        benchmarks: b,
        system: fit_of(rss_system, s),
        benchmark: fit_of(rss_benchmark, b),
        both: fit_of(rss_both, p_both),
        system_given_benchmark: test(rss_benchmark, s - 1),
        benchmark_given_system: test(rss_system, b - 1),
        benchmark_effects_pp: centred(&benchmark_effect),
        rounds,
        permutation: None,
        leave_one_out: Vec::new(),
    })
}

/// The benchmarks' effects centred on their mean (the systems' absorb the shift), in
/// percentage points, lowest first (then by name).
fn centred(benchmark_effect: &BTreeMap<&str, f64>) -> Vec<(String, f64)> {
    let centre = benchmark_effect.values().sum::<f64>() / benchmark_effect.len() as f64;
    let mut effects: Vec<(String, f64)> = benchmark_effect
        .iter()
        .map(|(k, v)| (k.to_string(), (v - centre) * 100.0))
        .collect();
    effects.sort_by(|x, y| x.1.total_cmp(&y.1).then_with(|| x.0.cmp(&y.0)));
    effects
}

/// The benchmark factor's permutation test: the ratios of each system shuffled among its own
/// pairs ([`PERMUTATIONS`] times, by [`SplitMix64`] from [`PERMUTATION_SEED`]; each
/// permutation shuffles the original order, system by system in the systems' order, each
/// system's ratios in the order of its pairs, by Fisher and Yates), against the reduction in
/// the residual sum of squares that the benchmark factor brings to the systems' fit. With the
/// systems' means fixed by the shuffle, the F statistic of the benchmark given the system grows
/// with that reduction, so the two rank the permutations alike.
fn permutation(obs: &[(System, &str, f64)]) -> Option<Permutation> {
    let benchmarks: Vec<&str> = sorted_distinct(obs.iter().map(|o| o.1));
    let mut by_system: BTreeMap<System, Vec<usize>> = BTreeMap::new();
    for (i, o) in obs.iter().enumerate() {
        by_system.entry(o.0).or_default().push(i);
    }
    let groups: Vec<Vec<usize>> = by_system.into_values().collect();
    // The benchmark indicators but the first, each less its system's mean: the columns whose
    // fit to the ratios (less their systems' means) is the benchmark factor given the system.
    let k = benchmarks.len().checked_sub(1).filter(|k| *k > 0)?;
    let mut columns = vec![vec![0.0; obs.len()]; k];
    for group in &groups {
        for (j, column) in columns.iter_mut().enumerate() {
            let name = benchmarks[j + 1];
            let mean =
                group.iter().filter(|&&i| obs[i].1 == name).count() as f64 / group.len() as f64;
            for &i in group {
                column[i] = f64::from(u8::from(obs[i].1 == name)) - mean;
            }
        }
    }
    let gram: Vec<Vec<f64>> = columns
        .iter()
        .map(|a| columns.iter().map(|b| dot(a, b)).collect())
        .collect();
    // The reduction for ratios `y`: c' G⁻¹ c, with c the columns' products with y less its
    // systems' means (the columns already sum to zero within each system, so y itself will do).
    let reduction = |y: &[f64]| -> Option<f64> {
        let c: Vec<f64> = columns.iter().map(|col| dot(col, y)).collect();
        let x = ratios_base::stats::solve(&gram, &c)?;
        Some(dot(&c, &x))
    };
    let y: Vec<f64> = obs.iter().map(|o| o.2).collect();
    let observed = reduction(&y)?;
    let mut random = ratios_base::stats::SplitMix64::new(PERMUTATION_SEED);
    let mut at_least = 0;
    let mut shuffled = y.clone();
    let mut values = Vec::new();
    for _ in 0..PERMUTATIONS {
        shuffled.copy_from_slice(&y);
        for group in &groups {
            values.clear();
            values.extend(group.iter().map(|&i| y[i]));
            random.shuffle(&mut values);
            for (&i, &v) in group.iter().zip(&values) {
                shuffled[i] = v;
            }
        }
        if reduction(&shuffled)? >= observed * (1.0 - 1e-9) {
            at_least += 1;
        }
    }
    Some(Permutation {
        seed: PERMUTATION_SEED,
        permutations: PERMUTATIONS,
        at_least_as_large: at_least,
        p_value: (at_least + 1) as f64 / (PERMUTATIONS + 1) as f64,
    })
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The centred benchmark effects of the additive fit of `obs`, when its design is connected
/// and holds two systems and two benchmarks or more.
fn effects_of(obs: &[(System, &str, f64)]) -> Option<Vec<(String, f64)>> {
    let systems: BTreeSet<System> = obs.iter().map(|o| o.0).collect();
    let benchmarks: BTreeSet<&str> = obs.iter().map(|o| o.1).collect();
    if systems.len() < 2 || benchmarks.len() < 2 || !connected(obs) {
        return None;
    }
    let (_, benchmark_effect, _) = alternating_means(obs)?;
    Some(centred(&benchmark_effect))
}

/// Each benchmark's effect refitted with each system, each organisation and each hardware
/// configuration left out in turn.
fn leave_one_out(
    obs: &[(System, &str, f64)],
    members: &BTreeMap<System, Membership>,
    full: &[(String, f64)],
) -> Vec<EffectRange> {
    // The refits of one level: for each unit, the effects without its systems.
    let refits = |unit: &dyn Fn(System) -> String| -> (usize, Vec<Vec<(String, f64)>>) {
        let units: BTreeSet<String> = obs.iter().map(|o| unit(o.0)).collect();
        let fits = units
            .iter()
            .filter_map(|u| {
                let kept: Vec<(System, &str, f64)> =
                    obs.iter().filter(|o| unit(o.0) != *u).copied().collect();
                effects_of(&kept)
            })
            .collect();
        (units.len(), fits)
    };
    let levels = [
        refits(&|s| system_key(s)),
        refits(&|s| {
            members
                .get(&s)
                .map_or_else(|| system_key(s), |m| m.organization.clone())
        }),
        refits(&|s| {
            members.get(&s).map_or_else(
                || system_key(s),
                |m| match &m.configuration {
                    Ok(c) => format!("{c:?}"),
                    Err(own) => own.clone(),
                },
            )
        }),
    ];
    full.iter()
        .enumerate()
        .map(|(rank, (benchmark, effect))| {
            let [systems, organizations, configurations] =
                levels.each_ref().map(|(left_out, fits)| {
                    let mut refits = 0;
                    let (mut min, mut max) = (*effect, *effect);
                    let (mut same_sign, mut same_rank) = (true, true);
                    // A refit counts for a benchmark when it holds every benchmark.
                    for fit in fits.iter().filter(|fit| fit.len() == full.len()) {
                        let Some(at) = fit.iter().position(|(b, _)| b == benchmark) else {
                            continue;
                        };
                        refits += 1;
                        let e = fit[at].1;
                        min = min.min(e);
                        max = max.max(e);
                        same_sign &= (e > 0.0) == (*effect > 0.0) && e != 0.0;
                        same_rank &= at == rank;
                    }
                    Refits {
                        left_out: *left_out,
                        refits,
                        min_pp: min,
                        max_pp: max,
                        same_sign,
                        same_rank,
                    }
                });
            EffectRange {
                benchmark: benchmark.clone(),
                effect_pp: *effect,
                systems,
                organizations,
                configurations,
            }
        })
        .collect()
}

type Effects<'a> = (BTreeMap<System<'a>, f64>, BTreeMap<&'a str, f64>, usize);

/// The additive least-squares fit by alternating means: system effects set to the mean of
/// (ratio − benchmark effect) over each system's pairs, then benchmark effects likewise, until
/// no effect moves by more than [`TOLERANCE`].
fn alternating_means<'a>(obs: &[(System<'a>, &'a str, f64)]) -> Option<Effects<'a>> {
    // Each system and benchmark by its place in sorted order, so the rounds below add into
    // arrays; each sum still takes its pairs in the order of `obs`.
    let systems: Vec<System> = sorted_distinct(obs.iter().map(|o| o.0));
    let benchmarks: Vec<&str> = sorted_distinct(obs.iter().map(|o| o.1));
    let place = |found: Result<usize, usize>| found.unwrap_or_else(|at| at);
    let at: Vec<(usize, usize, f64)> = obs
        .iter()
        .map(|o| {
            (
                place(systems.binary_search(&o.0)),
                place(benchmarks.binary_search(&o.1)),
                o.2,
            )
        })
        .collect();
    let mut sys = vec![0.0; systems.len()];
    let mut bench = vec![0.0; benchmarks.len()];
    for round in 1..=MAX_ROUNDS {
        let moved = means(&at, &mut sys, &bench, |&(s, b, _)| (s, b));
        let moved = moved.max(means(&at, &mut bench, &sys, |&(s, b, _)| (b, s)));
        if moved <= TOLERANCE {
            return Some((
                systems.into_iter().zip(sys).collect(),
                benchmarks.into_iter().zip(bench).collect(),
                round,
            ));
        }
    }
    None
}

/// One half-round of the alternating means: each effect of `effects` set to the mean of
/// (ratio − the other factor's effect) over its pairs, `places` giving a pair's place in each
/// factor, this one's first; returns the largest move.
fn means(
    at: &[(usize, usize, f64)],
    effects: &mut [f64],
    other: &[f64],
    places: fn(&(usize, usize, f64)) -> (usize, usize),
) -> f64 {
    let mut sums = vec![(0.0, 0usize); effects.len()];
    for o in at {
        let (mine, theirs) = places(o);
        sums[mine].0 += o.2 - other[theirs];
        sums[mine].1 += 1;
    }
    let mut moved: f64 = 0.0;
    for (effect, (sum, count)) in effects.iter_mut().zip(sums) {
        let v = sum / count as f64;
        moved = moved.max((v - *effect).abs());
        *effect = v;
    }
    moved
}

/// Whether every system and benchmark of `obs` is linked to every other through shared pairs
/// (else the additive fit has more than one solution).
fn connected(obs: &[(System, &str, f64)]) -> bool {
    let Some(first) = obs.first() else {
        return false;
    };
    let mut systems: BTreeSet<System> = BTreeSet::from([first.0]);
    let mut benchmarks: BTreeSet<&str> = BTreeSet::new();
    loop {
        let before = systems.len() + benchmarks.len();
        for o in obs {
            if systems.contains(&o.0) || benchmarks.contains(o.1) {
                systems.insert(o.0);
                benchmarks.insert(o.1);
            }
        }
        if systems.len() + benchmarks.len() == before {
            break;
        }
    }
    obs.iter()
        .all(|o| systems.contains(&o.0) && benchmarks.contains(o.1))
}

/// For every two benchmarks, the systems that ran both (each of their benchmarks once), compared
/// system by system and again by organisation and by hardware configuration.
fn comparisons(pairs: &[Pair], benchmarks: &[String]) -> Vec<Comparison> {
    let systems = once_each(pairs, &|p| Some(p.ratio.0)).0;
    let members = memberships(pairs);
    let mut out = Vec::new();
    for (i, first) in benchmarks.iter().enumerate() {
        for second in &benchmarks[i + 1..] {
            let both: Vec<(System, f64, f64)> = systems
                .iter()
                .filter_map(|(s, r)| Some((*s, *r.get(first.as_str())?, *r.get(second.as_str())?)))
                .collect();
            let first_higher = both.iter().filter(|(_, a, b)| a > b).count();
            let second_higher = both.iter().filter(|(_, a, b)| b > a).count();
            let untied = (first_higher + second_higher) as u32;
            let votes: Vec<(&Membership, String, f64)> = both
                .iter()
                .filter_map(|(s, a, b)| Some((members.get(s)?, system_key(*s), a - b)))
                .collect();
            out.push(Comparison {
                first: first.clone(),
                second: second.clone(),
                systems: both.len(),
                first_higher,
                second_higher,
                ties: both.len() - first_higher - second_higher,
                p_value: sign_test(first_higher as u32, untied).unwrap_or(f64::NAN),
                within_one_point: both.iter().filter(|(_, a, b)| (a - b).abs() < 0.01).count(),
                units: UnitVotes::of(&votes),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(
        rows: &[(&'static str, &'static str, f64)],
    ) -> Vec<(System<'static>, &'static str, f64)> {
        rows.iter().map(|&(s, b, r)| (("org", s), b, r)).collect()
    }

    #[test]
    fn no_pairs_or_one_system_make_no_split() {
        // s + b − 1 parameters of nothing: no fit, and no arithmetic below zero.
        assert!(split(&[]).is_none());
        assert!(fit(&[]).is_none());
    }

    #[test]
    fn a_two_by_two_design_splits_as_worked_by_hand() {
        // System means 1.5 and 4.5, benchmark means 2 and 4, grand mean 3: the additive fit is
        // row + column − grand, leaving ±0.5 everywhere. TSS 14, RSS 5 (system alone), 10
        // (benchmark alone), 1 (both); one residual degree of freedom.
        let o = obs(&[
            ("A", "X", 1.0),
            ("A", "Y", 2.0),
            ("B", "X", 3.0),
            ("B", "Y", 6.0),
        ]);
        // Four observations and three parameters leave one degree of freedom: enough.
        let s = fit(&o).unwrap();
        assert!((s.system.residual_sum_of_squares - 5.0).abs() < 1e-12);
        assert!((s.benchmark.residual_sum_of_squares - 10.0).abs() < 1e-12);
        assert!((s.both.residual_sum_of_squares - 1.0).abs() < 1e-9);
        assert!((s.system.r_squared - 9.0 / 14.0).abs() < 1e-12);
        assert!((s.benchmark.r_squared - 4.0 / 14.0).abs() < 1e-12);
        // Adjusted: 1 − (5 / 2) / (14 / 3).
        assert!((s.system.adjusted_r_squared - (1.0 - 2.5 / (14.0 / 3.0))).abs() < 1e-12);
        // F of the system given the benchmark: (10 − 1) / 1 over 1 / 1 = 9; P(F(1,1) > 9) is
        // 1 − (2/π) atan 3.
        let t = &s.system_given_benchmark;
        assert!((t.f - 9.0).abs() < 1e-8);
        assert_eq!((t.df_factor, t.df_residual), (1, 1));
        let exact = 1.0 - 2.0 / std::f64::consts::PI * 3f64.atan();
        assert!((t.p_value - exact).abs() < 1e-8);
        assert!((s.benchmark_given_system.f - 4.0).abs() < 1e-8);
        // Partial η²: 1 − 1/10 for the system, 1 − 1/5 for the benchmark.
        assert!((t.partial_eta_squared - 0.9).abs() < 1e-9);
        assert!((s.benchmark_given_system.partial_eta_squared - 0.8).abs() < 1e-9);
        // Benchmark effects −1 and +1, in percentage points.
        assert_eq!(s.benchmark_effects_pp.len(), 2);
        assert_eq!(s.benchmark_effects_pp[0].0, "X");
        assert!((s.benchmark_effects_pp[0].1 + 100.0).abs() < 1e-6);
        assert!((s.benchmark_effects_pp[1].1 - 100.0).abs() < 1e-6);
    }

    #[test]
    fn an_unbalanced_additive_design_is_fitted_exactly() {
        // ratio = system + benchmark exactly, with systems missing some benchmarks and one
        // system running a benchmark twice: the additive fit leaves nothing.
        let (sys, bench) = (
            [("A", 0.1), ("B", 0.3), ("C", -0.2)],
            [("X", 0.5), ("Y", 0.8), ("Z", 0.6)],
        );
        let v = |s: &str, b: &str| {
            sys.iter().find(|x| x.0 == s).unwrap().1 + bench.iter().find(|x| x.0 == b).unwrap().1
        };
        let o = obs(&[
            ("A", "X", v("A", "X")),
            ("A", "Y", v("A", "Y")),
            ("A", "Y", v("A", "Y")),
            ("B", "Y", v("B", "Y")),
            ("B", "Z", v("B", "Z")),
            ("C", "X", v("C", "X")),
            ("C", "Z", v("C", "Z")),
        ]);
        let s = fit(&o).unwrap();
        assert!(s.both.residual_sum_of_squares < 1e-20);
        assert!((s.both.r_squared - 1.0).abs() < 1e-12);
        // Centred: X −0.1333…, Y +0.1666…, Z −0.0333…, in points.
        let effect = |b: &str| s.benchmark_effects_pp.iter().find(|e| e.0 == b).unwrap().1;
        assert!((effect("X") - (0.5 - 1.9 / 3.0) * 100.0).abs() < 1e-8);
        assert!((effect("Y") - (0.8 - 1.9 / 3.0) * 100.0).abs() < 1e-8);
    }

    /// A pair of `system` on `benchmark` keeping `ratio`.
    /// A pair of `system` (whose accelerator the lowest-benchmark test names: C is CPU-only).
    fn pair(system: &str, benchmark: &str, ratio: f64) -> Pair {
        let accelerator = match system {
            "A" => Some("NVIDIA H100"),
            "B" => Some("Nvidia H100"),
            "C" => Some("Intel Xeon"),
            "D" => Some("AMD MI300X"),
            "E" => Some("Intel Gaudi 3"),
            _ => None,
        };
        Pair {
            offline_id: crate::summary::RowId(0),
            server_id: crate::summary::RowId(1),
            submission: crate::analysis::Submission {
                organization: "org".into(),
                system_name: system.into(),
                platform: system.into(),
                model: benchmark.into(),
                benchmark: benchmark.into(),
                accelerator: accelerator.map(str::to_string),
                nodes: None,
                accelerators_per_node: None,
                total_accelerators: None,
                cpu_only: system == "C",
                framework: String::new(),
                host_processor: String::new(),
                host_processors_per_node: None,
            },
            offline_location: String::new(),
            server_location: String::new(),
            offline: 1.0,
            server: ratio,
            ratio: crate::analysis::Ratio(ratio),
        }
    }

    #[test]
    fn the_lowest_benchmark_and_the_sign_tests_are_counted_system_by_system() {
        // X is lowest on A (by 10 points), B (by 2) and C (by 30, against Z); D never ran X;
        // E ran X twice and is left out.
        let pairs = [
            pair("A", "X", 0.80),
            pair("A", "Y", 0.90),
            pair("B", "X", 0.95),
            pair("B", "Y", 0.97),
            pair("B", "Z", 0.99),
            pair("C", "X", 0.60),
            pair("C", "Z", 0.90),
            pair("D", "Y", 0.90),
            pair("D", "Z", 0.80),
            pair("E", "X", 0.99),
            pair("E", "X", 0.50),
            pair("E", "Y", 0.70),
        ];
        let order = ["X".to_string(), "Y".into(), "Z".into()];
        let found = system_and_benchmark(&pairs, &order);
        let x = &found.lowest[0];
        assert_eq!((x.systems, x.lowest_on), (3, 3));
        let [least, median, most] = x.gap_pp.unwrap();
        assert!(
            (least - 2.0).abs() < 1e-9
                && (median - 10.0).abs() < 1e-9
                && (most - 30.0).abs() < 1e-9
        );
        // The accelerators of A, B and C, each spelling once; C is CPU-only and names none.
        assert_eq!(x.accelerators, ["NVIDIA H100", "Nvidia H100"]);
        // Y is lowest on D only (against Z, 0.80): Z is lowest there.
        assert_eq!((found.lowest[1].systems, found.lowest[1].lowest_on), (3, 0));
        // Z is lowest on D, by 10 points (of B, C and D).
        let z = &found.lowest[2];
        assert_eq!((z.systems, z.lowest_on), (3, 1));
        assert!(z.gap_pp.unwrap().iter().all(|g| (g - 10.0).abs() < 1e-9));
        assert_eq!(z.accelerators, ["AMD MI300X", "Nvidia H100"]);
        // X against Y: on A and B, Y keeps more; 2 of 2 one way, p = 2 / 4.
        let xy = &found.comparisons[0];
        assert_eq!((xy.first.as_str(), xy.second.as_str()), ("X", "Y"));
        assert_eq!((xy.systems, xy.first_higher, xy.second_higher), (2, 0, 2));
        assert_eq!(xy.p_value, 0.5);
        // Y against Z: B (Z higher) and D (Y higher).
        let yz = &found.comparisons[2];
        assert_eq!((yz.systems, yz.first_higher, yz.second_higher), (2, 1, 1));
        assert_eq!(yz.p_value, 1.0);
    }

    /// A pair of `system` from `org` on `accelerator` × 8 over `nodes` nodes.
    fn placed(
        org: &str,
        system: &str,
        accelerator: &str,
        nodes: i64,
        benchmark: &str,
        ratio: f64,
    ) -> Pair {
        let mut p = pair(system, benchmark, ratio);
        p.submission.organization = org.into();
        p.submission.accelerator = Some(accelerator.into());
        p.submission.accelerators_per_node = Some(8);
        p.submission.nodes = Some(nodes);
        p
    }

    /// Four partners' copies of one maker's system, and one other system, all with X lowest:
    /// five systems, but two configurations, and the split by node count.
    #[test]
    fn copies_of_one_system_count_once_per_configuration_and_nodes_split_the_count() {
        let mut pairs = Vec::new();
        for (org, system) in [("Maker", "m"), ("P1", "p1"), ("P2", "p2"), ("P3", "p3")] {
            pairs.push(placed(org, system, "ACME A1", 1, "X", 0.80));
            pairs.push(placed(org, system, "ACME A1", 1, "Y", 0.95));
        }
        pairs.push(placed("Other", "o", "Acme a1", 4, "X", 0.70));
        pairs.push(placed("Other", "o", "Acme a1", 4, "Y", 0.90));
        let order = ["X".to_string(), "Y".into()];
        let x = &system_and_benchmark(&pairs, &order).lowest[0];
        assert_eq!((x.systems, x.lowest_on), (5, 5));
        assert_eq!((x.units.systems.units, x.units.systems.first), (5, 5));
        assert_eq!(x.units.organizations.units, 5);
        // "ACME A1" and "Acme a1" are one accelerator, but 1 node and 4 nodes are two
        // configurations: 2 of 2, p = 0.5.
        assert_eq!(
            (x.units.configurations.units, x.units.configurations.first),
            (2, 2)
        );
        assert_eq!(x.units.configurations.p_value, 0.5);
        assert_eq!((x.single_node.systems, x.single_node.lowest_on), (4, 4));
        assert_eq!((x.multi_node.systems, x.multi_node.lowest_on), (1, 1));
        // Single-node gaps are all 15 points, the multi-node one 20.
        let single = x.single_node.gap_pp.unwrap();
        assert!(single.iter().all(|g| (g - 15.0).abs() < 1e-9));
        assert!((x.multi_node.gap_pp.unwrap()[1] - 20.0).abs() < 1e-9);
    }

    /// Z sits highest only because of one system, on which it is 40 points above the rest:
    /// leave that system out and Z falls below Y. X's lowest place holds everywhere.
    #[test]
    fn a_benchmark_effect_carried_by_one_system_does_not_hold_when_it_is_left_out() {
        let mut pairs = Vec::new();
        let systems = [("A", "a1"), ("B", "a2"), ("C", "a3"), ("D", "a4")];
        for (i, (org, system)) in systems.iter().enumerate() {
            let base = 0.50 + 0.01 * i as f64;
            let accelerator = format!("ACC{i}");
            pairs.push(placed(org, system, &accelerator, 1, "X", base));
            pairs.push(placed(org, system, &accelerator, 1, "Y", base + 0.20));
            // Z is 5 points below Y everywhere but on a4, where it is 40 points above.
            let z = if *system == "a4" {
                base + 0.60
            } else {
                base + 0.15
            };
            pairs.push(placed(org, system, &accelerator, 1, "Z", z));
        }
        let s = split(&pairs).unwrap();
        // With all four systems, Z's mean excess is (15 + 15 + 15 + 60) / 4 = 26.25 points over
        // X, Y's 20: Z highest.
        let names: Vec<&str> = s
            .benchmark_effects_pp
            .iter()
            .map(|e| e.0.as_str())
            .collect();
        assert_eq!(names, ["X", "Y", "Z"]);
        let of = |b: &str| s.leave_one_out.iter().find(|r| r.benchmark == b).unwrap();
        assert!(of("X").holds());
        let z = of("Z");
        assert_eq!((z.systems.left_out, z.systems.refits), (4, 4));
        assert!(z.systems.same_sign && !z.systems.same_rank);
        assert!(!z.holds());
        // Without a4, Z's effect is 15 − (0 + 20 + 15) / 3 = 3.33 points, its least.
        assert!(
            (z.systems.min_pp - (15.0 - 35.0 / 3.0)).abs() < 1e-6,
            "{:?}",
            z.systems
        );
        assert!(!of("Y").holds());
    }

    /// A benchmark effect far beyond what shuffling each system's ratios gives: no shuffle
    /// reaches it. Without any effect, most shuffles reach what the real labels give.
    #[test]
    fn the_permutation_test_finds_a_real_effect_and_not_a_made_up_one() {
        let mut strong = Vec::new();
        let mut none = Vec::new();
        for i in 0..12 {
            let system = format!("s{i}");
            let base = 0.6 + 0.02 * i as f64;
            let org = "org";
            // Small noise that the labels do not explain.
            let wobble = [0.003, -0.002, 0.001][i % 3];
            for (j, b) in ["X", "Y", "Z"].iter().enumerate() {
                let mut p = placed(
                    org,
                    &system,
                    "A",
                    1,
                    b,
                    base + 0.10 * j as f64 + wobble * j as f64,
                );
                p.submission.platform = system.clone();
                strong.push(p);
                let mut q = placed(
                    org,
                    &system,
                    "A",
                    1,
                    b,
                    base + [0.01, -0.01, 0.0][(i + j) % 3],
                );
                q.submission.platform = system.clone();
                none.push(q);
            }
        }
        let t = split(&strong).unwrap().permutation.unwrap();
        assert_eq!((t.seed, t.permutations), (PERMUTATION_SEED, PERMUTATIONS));
        assert_eq!(t.at_least_as_large, 0);
        assert_eq!(t.p_value, 1.0 / (PERMUTATIONS + 1) as f64);
        let t = split(&none).unwrap().permutation.unwrap();
        assert!(t.p_value > 0.5, "{t:?}");
    }

    /// Two systems, two benchmarks: each shuffle swaps a system's two ratios or not, four
    /// outcomes alike. Worked by hand, the real labels (and both swapped) reduce the residuals by
    /// 2.25, one swap alone by 0.25: half the shuffles reach the real labels, and the drawn count
    /// lies within six standard deviations (6 × 50) of 5,000.
    #[test]
    fn the_permutation_test_agrees_with_the_four_outcomes_worked_by_hand() {
        let o = obs(&[
            ("A", "X", 1.0),
            ("A", "Y", 2.0),
            ("B", "X", 3.0),
            ("B", "Y", 5.0),
        ]);
        let t = permutation(&o).unwrap();
        assert!(t.at_least_as_large.abs_diff(5_000) <= 300, "{t:?}");
    }

    /// One organisation ran X and Y on one hardware in two results folders: by folder it
    /// compares nothing, by hardware it is one system, on which X keeps the least. The system
    /// counted lists its software.
    #[test]
    fn folders_of_one_organisation_on_one_hardware_are_one_system_by_hardware() {
        let mut x = placed("Org", "folder-x", "ACME A1", 2, "X", 0.70);
        x.submission.framework = "Stack 1, Lib 2".into();
        let y = placed("Org", "folder-y", "Acme a1", 2, "Y", 0.90);
        let pairs = [x, y];
        let order = ["X".to_string(), "Y".into()];
        assert_eq!(
            lowest_by(&pairs, &order, &|p| Some(p.ratio.0))[0].systems,
            0
        );
        let by_hardware = &lowest_by_hardware(&pairs, &order)[0];
        assert_eq!((by_hardware.systems, by_hardware.lowest_on), (1, 1));
        // One system: no item is shared by two.
        assert_eq!(by_hardware.software, None);
    }

    #[test]
    fn a_design_in_two_unlinked_parts_is_not_fitted() {
        let o = obs(&[
            ("A", "X", 1.0),
            ("A", "Y", 2.0),
            ("A", "X", 1.5),
            ("B", "Z", 3.0),
            ("B", "W", 6.0),
            ("B", "W", 6.5),
        ]);
        assert!(!connected(&o));
        assert!(fit(&o).is_none());
    }
}
