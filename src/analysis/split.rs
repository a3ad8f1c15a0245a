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

use super::Pair;
use crate::base::stats::{f_upper_tail, sign_test};

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
    pub residual_sum_of_squares: f64,
    /// 1 − RSS / TSS.
    pub r_squared: f64,
    /// 1 − (RSS / (n − p)) / (TSS / (n − 1)).
    pub adjusted_r_squared: f64,
}

/// The F test of one factor added to a fit of the other.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FTest {
    pub f: f64,
    pub df_factor: usize,
    pub df_residual: usize,
    pub p_value: f64,
    /// The share of the variance the other factor leaves that this one explains: 1 − RSS of
    /// both ÷ RSS of the other alone (partial η²).
    pub partial_eta_squared: f64,
}

/// The split of the variance between system and benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Split {
    pub pairs: usize,
    pub systems: usize,
    pub benchmarks: usize,
    pub system: Fit,
    pub benchmark: Fit,
    pub both: Fit,
    /// The system given the benchmark, and the benchmark given the system.
    pub system_given_benchmark: FTest,
    pub benchmark_given_system: FTest,
    /// Each benchmark's effect in the additive fit, in percentage points, centred so that
    /// the benchmarks' effects sum to zero; lowest first.
    pub benchmark_effects_pp: Vec<(String, f64)>,
    /// Rounds the alternating means took.
    pub rounds: usize,
}

/// One paired comparison of two benchmarks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub first: String,
    pub second: String,
    /// Systems that ran each of the two once.
    pub systems: usize,
    /// On how many the first keeps more, the second keeps more, or both keep the same.
    pub first_higher: usize,
    pub second_higher: usize,
    pub ties: usize,
    /// The exact two-sided sign test on the untied systems.
    pub p_value: f64,
    /// The largest gap between the two on one system within which the comparison is close:
    /// the systems whose two ratios lie less than one percentage point apart.
    pub within_one_point: usize,
}

/// Where one benchmark keeps the least, system by system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lowest {
    pub benchmark: String,
    /// Systems that ran it once beside at least one other benchmark (each once).
    pub systems: usize,
    /// On how many of them its ratio is below every other benchmark's.
    pub lowest_on: usize,
    /// On those, how far below the next lowest it lies, in percentage points: least, median
    /// and most (none when it is lowest nowhere).
    pub gap_pp: Option<[f64; 3]>,
    /// The accelerators of the systems counted in `systems`, as the summary names them (CPU-only
    /// systems have none), sorted and each once.
    pub accelerators: Vec<String>,
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
}

type System<'a> = (&'a str, &'a str);

fn system_of(p: &Pair) -> System<'_> {
    (&p.submission.organization, &p.submission.platform)
}

/// The split and the comparisons of `pairs`, benchmarks ordered as `benchmarks`.
pub fn system_and_benchmark(pairs: &[Pair], benchmarks: &[String]) -> SystemAndBenchmark {
    SystemAndBenchmark {
        split: split(pairs),
        comparisons: comparisons(pairs, benchmarks),
        lowest: lowest(pairs, benchmarks),
    }
}

/// Each system's one ratio per benchmark, for the systems that ran each of their benchmarks
/// once (a system with two runs of one benchmark is left out: which of them to compare is a
/// choice the results do not make).
fn once_each(pairs: &[Pair]) -> BTreeMap<System<'_>, BTreeMap<&str, f64>> {
    let mut ran: BTreeMap<System, BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    for p in pairs {
        ran.entry(system_of(p))
            .or_default()
            .entry(&p.submission.benchmark)
            .or_default()
            .push(p.ratio.0);
    }
    ran.into_iter()
        .filter(|(_, r)| r.values().all(|v| v.len() == 1))
        .map(|(s, r)| (s, r.into_iter().map(|(b, v)| (b, v[0])).collect()))
        .collect()
}

/// For each benchmark, the systems that ran it beside another, and where it keeps the least.
fn lowest(pairs: &[Pair], benchmarks: &[String]) -> Vec<Lowest> {
    let systems = once_each(pairs);
    let mut accelerators_of: BTreeMap<System, BTreeSet<&str>> = BTreeMap::new();
    for p in pairs {
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
            let mut n = 0;
            let mut gaps = Vec::new();
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
                    n += 1;
                    accelerators.extend(accelerators_of.get(system).into_iter().flatten());
                    if own < next {
                        gaps.push((next - own) * 100.0);
                    }
                }
            }
            gaps.sort_by(f64::total_cmp);
            Lowest {
                benchmark: b.clone(),
                systems: n,
                lowest_on: gaps.len(),
                gap_pp: crate::analysis::median(gaps.clone())
                    .map(|m| [gaps[0], m, gaps[gaps.len() - 1]]),
                accelerators: accelerators.into_iter().map(str::to_string).collect(),
            }
        })
        .collect()
}

/// The least-squares fits on the pairs of the systems that ran two benchmarks or more.
pub fn split(pairs: &[Pair]) -> Option<Split> {
    let mut ran: BTreeMap<System, BTreeSet<&str>> = BTreeMap::new();
    for p in pairs {
        ran.entry(system_of(p))
            .or_default()
            .insert(&p.submission.benchmark);
    }
    let obs: Vec<(System, &str, f64)> = pairs
        .iter()
        .filter(|p| ran[&system_of(p)].len() >= 2)
        .map(|p| (system_of(p), p.submission.benchmark.as_str(), p.ratio.0))
        .collect();
    fit(&obs)
}

/// The three fits of `obs` (system, benchmark, ratio).
fn fit(obs: &[(System, &str, f64)]) -> Option<Split> {
    let n = obs.len();
    let systems: BTreeSet<System> = obs.iter().map(|o| o.0).collect();
    let benchmarks: BTreeSet<&str> = obs.iter().map(|o| o.1).collect();
    let (s, b) = (systems.len(), benchmarks.len());
    // The additive fit has s + b − 1 parameters when systems and benchmarks form one
    // connected design; the F tests need residual degrees of freedom.
    let p_both = s + b - 1;
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
    let rss_system = one(&|o| format!("{}\u{0}{}", o.0 .0, o.0 .1));
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
    // The benchmarks' effects centred on their mean (the systems' absorb the shift).
    let centre = benchmark_effect.values().sum::<f64>() / b as f64;
    let mut effects: Vec<(String, f64)> = benchmark_effect
        .iter()
        .map(|(k, v)| (k.to_string(), (v - centre) * 100.0))
        .collect();
    effects.sort_by(|x, y| x.1.total_cmp(&y.1).then_with(|| x.0.cmp(&y.0)));
    Some(Split {
        pairs: n,
        systems: s,
        benchmarks: b,
        system: fit_of(rss_system, s),
        benchmark: fit_of(rss_benchmark, b),
        both: fit_of(rss_both, p_both),
        system_given_benchmark: test(rss_benchmark, s - 1),
        benchmark_given_system: test(rss_system, b - 1),
        benchmark_effects_pp: effects,
        rounds,
    })
}

type Effects<'a> = (BTreeMap<System<'a>, f64>, BTreeMap<&'a str, f64>, usize);

/// The additive least-squares fit by alternating means: system effects set to the mean of
/// (ratio − benchmark effect) over each system's pairs, then benchmark effects likewise, until
/// no effect moves by more than [`TOLERANCE`].
fn alternating_means<'a>(obs: &[(System<'a>, &'a str, f64)]) -> Option<Effects<'a>> {
    let mut sys: BTreeMap<System, f64> = obs.iter().map(|o| (o.0, 0.0)).collect();
    let mut bench: BTreeMap<&str, f64> = obs.iter().map(|o| (o.1, 0.0)).collect();
    for round in 1..=MAX_ROUNDS {
        let mut moved: f64 = 0.0;
        let mut sums: BTreeMap<System, (f64, usize)> = BTreeMap::new();
        for o in obs {
            let e = sums.entry(o.0).or_default();
            e.0 += o.2 - bench[o.1];
            e.1 += 1;
        }
        for (k, (sum, count)) in sums {
            let v = sum / count as f64;
            moved = moved.max((v - sys[&k]).abs());
            sys.insert(k, v);
        }
        let mut sums: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
        for o in obs {
            let e = sums.entry(o.1).or_default();
            e.0 += o.2 - sys[&o.0];
            e.1 += 1;
        }
        for (k, (sum, count)) in sums {
            let v = sum / count as f64;
            moved = moved.max((v - bench[k]).abs());
            bench.insert(k, v);
        }
        if moved <= TOLERANCE {
            return Some((sys, bench, round));
        }
    }
    None
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

/// For every two benchmarks, the systems that ran both (each of their benchmarks once), compared.
fn comparisons(pairs: &[Pair], benchmarks: &[String]) -> Vec<Comparison> {
    let systems = once_each(pairs);
    let mut out = Vec::new();
    for (i, first) in benchmarks.iter().enumerate() {
        for second in &benchmarks[i + 1..] {
            let both: Vec<(f64, f64)> = systems
                .values()
                .filter_map(|r| Some((*r.get(first.as_str())?, *r.get(second.as_str())?)))
                .collect();
            let first_higher = both.iter().filter(|(a, b)| a > b).count();
            let second_higher = both.iter().filter(|(a, b)| b > a).count();
            let untied = (first_higher + second_higher) as u32;
            out.push(Comparison {
                first: first.clone(),
                second: second.clone(),
                systems: both.len(),
                first_higher,
                second_higher,
                ties: both.len() - first_higher - second_higher,
                p_value: sign_test(first_higher as u32, untied).unwrap_or(f64::NAN),
                within_one_point: both.iter().filter(|(a, b)| (a - b).abs() < 0.01).count(),
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
