//! How robust the per-benchmark picture is: each benchmark's median with and without the
//! CPU-only systems and for single- and multi-node systems, how many organisations submitted it,
//! and a noise floor: how far apart the ratios of one benchmark lie among submissions of the same
//! accelerator, accelerators per node and node count by different organisations.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{median, most_spelled, range, Pair, Ratio};

/// One benchmark's medians, whole and split.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkRobustness {
    /// The benchmark's name as the summary's `MlperfModel` writes it.
    pub benchmark: String,
    /// Its Server/Offline pairs.
    pub pairs: usize,
    /// Distinct organisations among its pairs.
    pub organizations: usize,
    /// The median ratio of all its pairs.
    pub median: Ratio,
    /// Its pairs of CPU-only systems (`total_accelerators` = 0).
    pub cpu_only: usize,
    /// The median ratio of those; `None` when there are none.
    pub median_cpu_only: Option<Ratio>,
    /// The median ratio of its other pairs; `None` when every pair is CPU-only.
    pub median_without_cpu_only: Option<Ratio>,
    /// Its pairs of one-node systems (`number_of_nodes` = 1).
    pub single_node: usize,
    /// The median ratio of those; `None` when there are none.
    pub median_single_node: Option<Ratio>,
    /// Its pairs of systems of more than one node.
    pub multi_node: usize,
    /// The median ratio of those; `None` when there are none.
    pub median_multi_node: Option<Ratio>,
}

/// The pairs of one benchmark on one hardware configuration, by two or more organisations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoiseGroup {
    /// The benchmark the group's pairs ran.
    pub benchmark: String,
    /// The accelerator as most of the group's pairs spell it (`accelerator_model_name`); the group
    /// is keyed by its name in lower case.
    pub accelerator: String,
    /// Accelerators per node, the same for every pair of the group.
    pub accelerators_per_node: i64,
    /// The node count, the same for every pair of the group.
    pub nodes: i64,
    /// Pairs in the group.
    pub pairs: usize,
    /// The organisations behind them, two or more, sorted.
    pub organizations: Vec<String>,
    /// The lowest ratio in the group.
    pub min: Ratio,
    /// The highest ratio in the group.
    pub max: Ratio,
    /// `max − min`, in percentage points.
    pub spread_pp: f64,
}

/// Every such group, widest spread first, with the median and the largest spread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Noise {
    /// Every group of one benchmark and hardware with two organisations or more, widest spread
    /// first.
    pub groups: Vec<NoiseGroup>,
    /// The median of the groups' spreads, in percentage points; `None` when there is no group.
    pub median_spread_pp: Option<f64>,
    /// The widest group's spread, in percentage points; `None` when there is no group.
    pub max_spread_pp: Option<f64>,
}

/// The robustness figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Robustness {
    /// Pairs of CPU-only systems (`total_accelerators` = 0), over every benchmark.
    pub cpu_only_pairs: usize,
    /// Ordered as the benchmarks are, by median (lowest first).
    pub benchmarks: Vec<BenchmarkRobustness>,
    /// The noise floor: how far apart one benchmark's ratios lie on one hardware across
    /// organisations.
    pub noise: Noise,
}

/// The robustness figures of the Server pairs.
pub fn robustness(pairs: &[Pair]) -> Robustness {
    let mut by: BTreeMap<&str, Vec<&Pair>> = BTreeMap::new();
    for p in pairs {
        by.entry(&p.submission.benchmark).or_default().push(p);
    }
    let med = |ps: &[&Pair], keep: &dyn Fn(&Pair) -> bool| -> (usize, Option<Ratio>) {
        let v: Vec<f64> = ps.iter().filter(|p| keep(p)).map(|p| p.ratio.0).collect();
        (v.len(), median(v).map(Ratio))
    };
    let mut benchmarks: Vec<BenchmarkRobustness> = by
        .iter()
        .filter_map(|(b, ps)| {
            let (cpu_only, median_cpu_only) = med(ps, &|p| p.submission.cpu_only);
            let (_, median_without_cpu_only) = med(ps, &|p| !p.submission.cpu_only);
            let (single_node, median_single_node) =
                med(ps, &|p| p.submission.multi_node() == Some(false));
            let (multi_node, median_multi_node) =
                med(ps, &|p| p.submission.multi_node() == Some(true));
            Some(BenchmarkRobustness {
                benchmark: b.to_string(),
                pairs: ps.len(),
                organizations: ps
                    .iter()
                    .map(|p| p.submission.organization.as_str())
                    .collect::<BTreeSet<_>>()
                    .len(),
                median: med(ps, &|_| true).1?,
                cpu_only,
                median_cpu_only,
                median_without_cpu_only,
                single_node,
                median_single_node,
                multi_node,
                median_multi_node,
            })
        })
        .collect();
    benchmarks.sort_by(|a, b| {
        a.median
            .0
            .total_cmp(&b.median.0)
            .then_with(|| a.benchmark.cmp(&b.benchmark))
    });
    Robustness {
        cpu_only_pairs: pairs.iter().filter(|p| p.submission.cpu_only).count(),
        benchmarks,
        noise: noise(pairs),
    }
}

/// The groups of pairs that share benchmark, accelerator, accelerators per node and node count
/// and come from two or more organisations. CPU-only systems and pairs whose summary leaves any
/// of those fields empty are left out: they name no accelerator to compare.
fn noise(pairs: &[Pair]) -> Noise {
    type Key<'a> = (&'a str, String, i64, i64);
    let mut by: BTreeMap<Key<'_>, Vec<&Pair>> = BTreeMap::new();
    for p in pairs {
        let s = &p.submission;
        if let Some((acc, per, nodes)) = s.hardware() {
            by.entry((&s.benchmark, acc, per, nodes))
                .or_default()
                .push(p);
        }
    }
    let mut groups: Vec<NoiseGroup> = by
        .into_iter()
        .filter_map(|((benchmark, _, per, nodes), ps)| {
            let organizations: BTreeSet<&str> = ps
                .iter()
                .map(|p| p.submission.organization.as_str())
                .collect();
            if organizations.len() < 2 {
                return None;
            }
            // The group's accelerator as most of its pairs spell it.
            let accelerator = most_spelled(
                ps.iter()
                    .map(|p| p.submission.accelerator_name().unwrap_or_default()),
            )
            .unwrap_or_default();
            let [min, max] = range(ps.iter().map(|p| p.ratio.0));
            Some(NoiseGroup {
                benchmark: benchmark.to_string(),
                accelerator: accelerator.to_string(),
                accelerators_per_node: per,
                nodes,
                pairs: ps.len(),
                organizations: organizations.into_iter().map(String::from).collect(),
                min: Ratio(min),
                max: Ratio(max),
                spread_pp: (max - min) * 100.0,
            })
        })
        .collect();
    groups.sort_by(|a, b| {
        b.spread_pp
            .total_cmp(&a.spread_pp)
            .then_with(|| a.benchmark.cmp(&b.benchmark))
            .then_with(|| a.accelerator.cmp(&b.accelerator))
            .then_with(|| a.accelerators_per_node.cmp(&b.accelerators_per_node))
            .then_with(|| a.nodes.cmp(&b.nodes))
    });
    let spreads: Vec<f64> = groups.iter().map(|g| g.spread_pp).collect();
    Noise {
        median_spread_pp: median(spreads.clone()),
        max_spread_pp: spreads.first().copied(),
        groups,
    }
}
