//! The article's round set beside an earlier one: which of its findings the earlier round
//! repeats, computed by the same analysis on both. Where the article's lowest-median benchmark
//! keeps the least, system by system, in each round; whether the benchmarks both rounds hold
//! order alike by median; what the system-plus-benchmark split and the load's part of the lowest
//! benchmark's gap say in each; and the systems that appear in both rounds, with their ratio in
//! each on every benchmark both rounds hold of them.
//!
//! A system of one round is the same as a system of the other when both name the same
//! organisation and the same hardware configuration (the accelerator, or for a system without
//! one the processor, in any letter case; how many per node; the node count), and either the same
//! system name (trimmed) or the same results folder (`Platform`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::split::{system_of, Lowest, System};
use crate::analysis::units::Votes;
use crate::analysis::{sorted_distinct, Analysis, Pair};
use crate::evidence::pair_logs::PairLogs;
use crate::project::rounds::RoundSpec;
use crate::summary::Summary;

/// One round's results: its summary, the analysis and its pairs' logs, made by the same
/// functions for every round (`pipeline::compute_round`).
#[derive(Debug, Clone)]
pub struct RoundResults {
    /// The round's declaration in `data/rounds.json`: its name, its summary's inputs and format,
    /// how its fields map to the schema and where its logs lie.
    pub spec: RoundSpec,
    /// The round's summary, loaded from its pinned inputs and checked
    /// ([`crate::summary::load_round`]).
    pub summary: Summary,
    /// The scope, pairs, ratios and per-benchmark figures computed from `summary`.
    pub analysis: Analysis,
    /// Every pair's two LoadGen summary logs, checked, and each ratio taken apart into load, drain
    /// and length.
    pub logs: PairLogs,
}

/// The article's round against an earlier one. Every list with one entry per round holds the
/// earlier round first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcrossRounds {
    /// The article's round, as its rows' `version` field writes it (`v6.1`).
    pub round: String,
    /// The earlier round it is set beside (`v5.1`).
    pub previous: String,
    /// The benchmarks both rounds hold pairs of, in the article's round's order.
    pub shared_benchmarks: Vec<String>,
    /// Each shared benchmark's pairs and median ratio in each round.
    pub medians: Vec<SharedMedian>,
    /// The shared benchmarks order alike by median in both rounds.
    pub same_median_order: bool,
    /// The article's lowest-median benchmark, where it keeps the least system by system, in
    /// each round.
    pub lowest: Vec<RoundLowest>,
    /// In both rounds it keeps the least on every system that ran it beside another (and some
    /// system did in each).
    pub lowest_everywhere: bool,
    /// The system-plus-benchmark split in each round.
    pub split: Vec<RoundSplit>,
    /// The load's and the drain's parts of that benchmark's gap to the other benchmarks of the
    /// same systems, in each round.
    pub mechanism: Vec<RoundMechanism>,
    /// The systems in both rounds.
    pub systems: Vec<SystemInBoth>,
}

/// One benchmark's pairs and median in each round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedMedian {
    /// The benchmark's name as both rounds' `MlperfModel` writes it.
    pub benchmark: String,
    /// Its Server/Offline pairs in the earlier round and in the article's round.
    pub pairs: [usize; 2],
    /// Its median Server/Offline ratio, as a fraction, in the earlier round and in the article's
    /// round.
    pub median: [f64; 2],
}

/// Where a benchmark keeps the least in one round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundLowest {
    /// The round the count is of (`v6.1`).
    pub round: String,
    /// The article's lowest-median benchmark, the same in both rounds' entries.
    pub benchmark: String,
    /// Systems of the round that ran it once beside another benchmark ([`Lowest::systems`]).
    pub systems: usize,
    /// Of those, the systems on which its ratio is below every other benchmark's.
    pub lowest_on: usize,
    /// The same count with one vote per organisation, each by the median of its systems.
    pub organizations: Votes,
    /// The same count with one vote per hardware configuration.
    pub configurations: Votes,
    /// Its median gap below each system's next lowest, in points.
    pub median_gap_pp: Option<f64>,
}

/// The split of one round, reduced to what the comparison reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundSplit {
    /// The round the split is of.
    pub round: String,
    /// The pairs the split is fitted on: those of the systems that ran two benchmarks or more.
    pub pairs: usize,
    /// The systems (results folders) among those pairs.
    pub systems: usize,
    /// The P value of the system factor's F test given the benchmark.
    pub system_p: f64,
    /// The P value of the benchmark factor's F test given the system.
    pub benchmark_p: f64,
    /// The P value of the benchmark factor's permutation test within systems; `None` when the
    /// benchmarks vary within no system.
    pub permutation_p: Option<f64>,
    /// The article's lowest-median benchmark's effect in the round's additive fit, in percentage
    /// points; `None` when the round's split gives it none.
    pub lowest_effect_pp: Option<f64>,
    /// Whether that effect keeps its sign and its place with any one system, organisation or
    /// configuration left out ([`crate::analysis::split::EffectRange::holds`]); false when there is
    /// no effect.
    pub lowest_holds: bool,
}

/// The lowest benchmark's gap taken apart in one round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundMechanism {
    /// The round the logs are of.
    pub round: String,
    /// The article's lowest-median benchmark, whose gap is taken apart.
    pub benchmark: String,
    /// Its median load (scheduled ÷ Offline samples per second).
    pub median_load: Option<f64>,
    /// The load's, the drain's and the length's shares of its within-system gap.
    pub shares: Option<[f64; 3]>,
    /// The comparisons with another benchmark of the same system that `shares` sums over (0 when
    /// the round's logs allow none).
    pub comparisons: usize,
    /// Of those, the comparisons in which the load's part of the gap is larger than the drain's.
    pub load_larger: usize,
}

/// A system found in both rounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemInBoth {
    /// The organisation that submitted the system in both rounds (`Organization`).
    pub organization: String,
    /// Its name in the article's round (`SystemName`).
    pub system_name: String,
    /// Its results folder in the article's round (`Platform`).
    pub platform: String,
    /// Its name in the earlier round.
    pub previous_system_name: String,
    /// Its results folder in the earlier round.
    pub previous_platform: String,
    /// What the two share besides organisation and hardware configuration: `system name`,
    /// `platform`, `system name and platform`, or `hardware` (the processor too, and no other
    /// system of the organisation alike in either round).
    pub matched_by: &'static str,
    /// The hardware configuration, as the article's round spells the accelerator.
    pub configuration: String,
    /// Its ratio in each round on every benchmark it ran once in both.
    pub benchmarks: Vec<BothRatios>,
}

/// One system's ratio on one benchmark in each round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BothRatios {
    /// The benchmark (`MlperfModel`) the system ran once in each round.
    pub benchmark: String,
    /// Its Server/Offline ratio in the earlier round, as a fraction.
    pub previous: f64,
    /// Its Server/Offline ratio in the article's round, as a fraction.
    pub current: f64,
    /// The pair's Offline row in the earlier round's summary.
    pub previous_offline_id: crate::summary::RowId,
    /// The pair's Offline row in the article's round's summary.
    pub offline_id: crate::summary::RowId,
}

/// `main` against `previous`.
pub fn compare(main: &RoundResults, previous: &RoundResults) -> AcrossRounds {
    let (a, b) = (&previous.analysis, &main.analysis);
    let shared_benchmarks: Vec<String> = b
        .benchmarks
        .iter()
        .filter(|x| a.benchmarks.iter().any(|y| y.benchmark == x.benchmark))
        .map(|x| x.benchmark.clone())
        .collect();
    let medians: Vec<SharedMedian> = shared_benchmarks
        .iter()
        .filter_map(|name| {
            let of = |an: &Analysis| an.benchmarks.iter().find(|x| &x.benchmark == name).cloned();
            let (p, c) = (of(a)?, of(b)?);
            Some(SharedMedian {
                benchmark: name.clone(),
                pairs: [p.pairs, c.pairs],
                median: [p.median.0, c.median.0],
            })
        })
        .collect();
    let order = |k: usize| {
        let mut v: Vec<(&str, f64)> = medians
            .iter()
            .map(|m| (m.benchmark.as_str(), m.median[k]))
            .collect();
        v.sort_by(|x, y| x.1.total_cmp(&y.1).then_with(|| x.0.cmp(y.0)));
        v.into_iter().map(|x| x.0).collect::<Vec<_>>()
    };
    let same_median_order = order(0) == order(1);
    let lowest_benchmark = b.benchmarks.first().map(|x| x.benchmark.clone());
    let rounds = [previous, main];
    let lowest: Vec<RoundLowest> = lowest_benchmark
        .iter()
        .flat_map(|name| {
            rounds.iter().filter_map(move |r| {
                let l: &Lowest = r
                    .analysis
                    .split
                    .lowest
                    .iter()
                    .find(|l| &l.benchmark == name)?;
                Some(RoundLowest {
                    round: r.analysis.round.clone(),
                    benchmark: name.clone(),
                    systems: l.systems,
                    lowest_on: l.lowest_on,
                    organizations: l.units.organizations.clone(),
                    configurations: l.units.configurations.clone(),
                    median_gap_pp: l.gap_pp.map(|g| g[1]),
                })
            })
        })
        .collect();
    let lowest_everywhere = lowest.len() == 2
        && lowest
            .iter()
            .all(|l| l.systems > 0 && l.lowest_on == l.systems);
    let split = rounds
        .iter()
        .filter_map(|r| {
            let s = r.analysis.split.split.as_ref()?;
            let of_lowest = lowest_benchmark
                .as_ref()
                .and_then(|name| s.leave_one_out.iter().find(|e| &e.benchmark == name));
            Some(RoundSplit {
                round: r.analysis.round.clone(),
                pairs: s.pairs,
                systems: s.systems,
                system_p: s.system_given_benchmark.p_value,
                benchmark_p: s.benchmark_given_system.p_value,
                permutation_p: s.permutation.as_ref().map(|p| p.p_value),
                lowest_effect_pp: of_lowest.map(|e| e.effect_pp),
                lowest_holds: of_lowest.is_some_and(|e| e.holds()),
            })
        })
        .collect();
    let mechanism = lowest_benchmark
        .iter()
        .flat_map(|name| {
            rounds.iter().map(move |r| {
                let d = r.logs.deficits.iter().find(|d| &d.benchmark == name);
                RoundMechanism {
                    round: r.analysis.round.clone(),
                    benchmark: name.clone(),
                    median_load: r
                        .logs
                        .benchmarks
                        .iter()
                        .find(|f| &f.benchmark == name)
                        .map(|f| f.median_load),
                    shares: d.and_then(|d| d.shares),
                    comparisons: d.map_or(0, |d| d.comparisons),
                    load_larger: d.map_or(0, |d| d.load_larger),
                }
            })
        })
        .collect();
    AcrossRounds {
        round: b.round.clone(),
        previous: a.round.clone(),
        shared_benchmarks,
        medians,
        same_median_order,
        lowest,
        lowest_everywhere,
        split,
        mechanism,
        systems: systems_in_both(&previous.analysis.pairs, &main.analysis.pairs),
    }
}

/// Each system's pairs, by organisation and results folder, and each system's one pair per
/// benchmark (a benchmark run twice has none).
fn by_system(pairs: &[Pair]) -> BTreeMap<System<'_>, Vec<&Pair>> {
    let mut by: BTreeMap<System, Vec<&Pair>> = BTreeMap::new();
    for p in pairs {
        by.entry(system_of(p)).or_default().push(p);
    }
    by
}

/// The pair of `pairs` on `benchmark`, when there is exactly one.
fn once<'a>(pairs: &[&'a Pair], benchmark: &str) -> Option<&'a Pair> {
    let mut of = pairs.iter().filter(|p| p.submission.benchmark == benchmark);
    match (of.next(), of.next()) {
        (Some(p), None) => Some(p),
        _ => None,
    }
}

/// The hardware of a system beyond its configuration: its processor, in any letter case, and
/// how many per node.
fn processor(s: &crate::analysis::Submission) -> (String, Option<i64>) {
    (
        s.host_processor.trim().to_lowercase(),
        s.host_processors_per_node,
    )
}

/// An organisation, a hardware configuration and a processor ([`processor`]).
type Hardware = (
    String,
    crate::analysis::units::Configuration,
    (String, Option<i64>),
);

/// How many systems of `by` each organisation has with each configuration and processor.
fn alike(by: &BTreeMap<System<'_>, Vec<&Pair>>) -> BTreeMap<Hardware, usize> {
    let mut count = BTreeMap::new();
    for ((org, _), pairs) in by {
        let first = &pairs[0].submission;
        if let Some(c) = first.configuration() {
            *count
                .entry((org.to_string(), c, processor(first)))
                .or_default() += 1;
        }
    }
    count
}

/// The systems of `current` that are systems of `previous` too, by the module's rule, each
/// with its ratios on the benchmarks it ran once in both.
fn systems_in_both(previous: &[Pair], current: &[Pair]) -> Vec<SystemInBoth> {
    let (before, now) = (by_system(previous), by_system(current));
    let (alike_before, alike_now) = (alike(&before), alike(&now));
    let mut out = Vec::new();
    for ((org, platform), pairs) in &now {
        let first = &pairs[0].submission;
        let Some(configuration) = first.configuration() else {
            continue;
        };
        // The organisation's systems of the earlier round, in the map's order.
        let of_org = before
            .range((*org, "")..)
            .take_while(|((o, _), _)| o == org);
        for ((_, p_platform), p_pairs) in of_org {
            let p_first = &p_pairs[0].submission;
            if p_first.configuration().as_ref() != Some(&configuration) {
                continue;
            }
            let same_name = first.system_name.trim() == p_first.system_name.trim();
            let same_platform = platform == p_platform;
            // Renamed and moved: the same system still when it is the organisation's only one
            // of that configuration and processor in each round.
            let key = (org.to_string(), configuration.clone(), processor(first));
            let only_one = processor(first) == processor(p_first)
                && alike_now.get(&key) == Some(&1)
                && alike_before.get(&key) == Some(&1);
            let matched_by = match (same_name, same_platform) {
                (true, true) => "system name and platform",
                (true, false) => "system name",
                (false, true) => "platform",
                (false, false) if only_one => "hardware",
                (false, false) => continue,
            };
            let benchmarks = sorted_distinct(pairs.iter().map(|p| p.submission.benchmark.clone()));
            let both = benchmarks
                .iter()
                .filter_map(|name| {
                    let (c, p) = (once(pairs, name)?, once(p_pairs, name)?);
                    Some(BothRatios {
                        benchmark: name.clone(),
                        previous: p.ratio.0,
                        current: c.ratio.0,
                        previous_offline_id: p.offline_id,
                        offline_id: c.offline_id,
                    })
                })
                .collect();
            out.push(SystemInBoth {
                organization: org.to_string(),
                system_name: first.system_name.clone(),
                platform: platform.to_string(),
                previous_system_name: p_first.system_name.clone(),
                previous_platform: p_platform.to_string(),
                matched_by,
                configuration: configuration.spelled(first.hardware_name()),
                benchmarks: both,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::json_array::{self, tests::row};
    use serde_json::Value;

    fn pairs(rows: Vec<Value>) -> Vec<Pair> {
        let spec = json_array::tests::spec();
        let bytes = Value::Array(rows).to_string();
        let summary = json_array::load(&spec, bytes.as_bytes(), "rows.json").unwrap();
        crate::analysis::analyse_with(&summary, &[]).unwrap().pairs
    }

    fn run(org: &str, system: &str, benchmark: &str, offline: f64, server: f64) -> [Value; 2] {
        [
            row(org, system, benchmark, "Offline", offline),
            row(org, system, benchmark, "Server", server),
        ]
    }

    #[test]
    fn a_system_is_in_both_rounds_by_organisation_hardware_and_name_or_folder() {
        let mut before = Vec::new();
        before.extend(run("Acme", "Box", "deepseek-r1", 1000.0, 500.0));
        before.extend(run("Acme", "Box", "llama3.1-8b", 100.0, 90.0));
        before.extend(run("Gamma", "G1", "deepseek-r1", 100.0, 40.0));
        before.extend(run("Beta", "Other", "deepseek-r1", 100.0, 50.0));
        let mut now = Vec::new();
        now.extend(run("Acme", "Box", "deepseek-r1", 1000.0, 800.0));
        // Gamma renamed its system but kept its results folder.
        let mut renamed = run("Gamma", "G1", "deepseek-r1", 100.0, 70.0);
        for r in &mut renamed {
            r["SYSTEMNAME"] = "Gamma One".into();
        }
        now.extend(renamed);
        // Beta's system of the same name has twice the accelerators: another configuration.
        let mut bigger = run("Beta", "Other", "deepseek-r1", 100.0, 60.0);
        for r in &mut bigger {
            r["ACCELERATORS_PER_NODE"] = 8.into();
        }
        now.extend(bigger);
        // A system of another organisation with Acme's name is not Acme's.
        now.extend(run("Delta", "Box", "deepseek-r1", 100.0, 60.0));
        // Epsilon renamed and moved its only system of this hardware: still the same system.
        before.extend(run("Epsilon", "E-old", "deepseek-r1", 100.0, 90.0));
        now.extend(run("Epsilon", "E-new", "deepseek-r1", 100.0, 80.0));
        // Zeta has two systems of one hardware in the earlier round: which one a renamed and
        // moved system is cannot be told, so it is in neither.
        before.extend(run("Zeta", "Z-a", "deepseek-r1", 100.0, 50.0));
        before.extend(run("Zeta", "Z-b", "deepseek-r1", 100.0, 55.0));
        now.extend(run("Zeta", "Z-c", "deepseek-r1", 100.0, 60.0));

        let found = systems_in_both(&pairs(before), &pairs(now));
        type Found<'a> = (&'a str, &'a str, &'a str, Vec<(&'a str, f64, f64)>);
        let summary: Vec<Found> = found
            .iter()
            .map(|s| {
                (
                    s.organization.as_str(),
                    s.system_name.as_str(),
                    s.matched_by,
                    s.benchmarks
                        .iter()
                        .map(|b| (b.benchmark.as_str(), b.previous, b.current))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    "Acme",
                    "Box",
                    "system name and platform",
                    vec![("deepseek-r1", 0.5, 0.8)]
                ),
                (
                    "Epsilon",
                    "E-new",
                    "hardware",
                    vec![("deepseek-r1", 0.9, 0.8)]
                ),
                (
                    "Gamma",
                    "Gamma One",
                    "platform",
                    vec![("deepseek-r1", 0.4, 0.7)]
                ),
            ]
        );
        assert_eq!(found[2].previous_system_name, "G1");
        assert_eq!(found[0].configuration, "4 × GPU X on 2 nodes");
    }
}
