//! The Interactive runs, paired with the Offline runs of their submissions. MLPerf's third
//! datacenter LLM scenario is a Server run under tighter latency limits; the summary lists each
//! as a row of scenario `Interactive`, and sets `inferred` = 1 on every one of them (the checker
//! compares the row's scenario with the one LoadGen logged, and LoadGen logs `Server`). So the
//! Interactive pairs use the article's scope with two changes: the scenario is Offline or
//! Interactive, and `inferred` = 0 is asked of the Offline rows only; and they match on the 26
//! key fields other than `inferred`. A key with exactly one Offline and one Interactive row is a
//! pair, and its ratio is Interactive Result ÷ Offline Result.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{
    by_benchmark, pair_rows, text_of, BenchmarkStats, Pair, Ratio, ScopeRule, Step, Submission,
    Unmatched, NON_KEY_FIELDS,
};
use crate::summary::{Field, RowId, Scenario, Summary, Typed};
use ratios_base::error::Result;

/// The scope of the Interactive pairs: the article's filters ([`super::SCOPE`]), with the
/// scenario and `inferred` rules changed as the module says.
pub fn scope() -> Vec<ScopeRule> {
    super::SCOPE
        .iter()
        .map(|rule| match rule.field {
            Field::Scenario => {
                super::rule(Field::Scenario, "Scenario is Offline or Interactive", |r| {
                    matches!(
                        r.scenario(),
                        Some(Scenario::Offline | Scenario::Interactive)
                    )
                })
            }
            Field::Inferred => {
                super::rule(Field::Inferred, "inferred = 0 (Offline rows only)", |r| {
                    r.scenario() == Some(Scenario::Interactive)
                        || r.typed(Field::Inferred) == Typed::Int(0)
                })
            }
            _ => *rule,
        })
        .collect()
}

/// The fields two rows must share to pair an Interactive run with its Offline run: the key
/// fields, less `inferred`.
pub fn key_fields() -> impl Iterator<Item = Field> {
    Field::ALL
        .iter()
        .copied()
        .filter(|f| !NON_KEY_FIELDS.contains(f) && *f != Field::Inferred)
}

/// An Offline/Interactive pair of one submission.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InteractivePair {
    /// The Offline row of the pair.
    pub offline_id: RowId,
    /// The Interactive row of the pair.
    pub interactive_id: RowId,
    /// The system and benchmark, as the Offline row states them.
    #[serde(flatten)]
    pub submission: Submission,
    /// The Offline row's `Location` in the round's results tree.
    pub offline_location: String,
    /// The Interactive row's `Location` in the round's results tree.
    pub interactive_location: String,
    /// Offline Result (tokens/s).
    pub offline: f64,
    /// Interactive Result (tokens/s).
    pub interactive: f64,
    /// Interactive Result ÷ Offline Result: the share of the Offline throughput the system keeps
    /// under the Interactive latency limits.
    pub ratio: Ratio,
}

/// Counts of the Interactive pairing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InteractiveCounts {
    /// Interactive rows in the scope above.
    pub interactive_rows: usize,
    /// Of those, the rows whose `inferred` is 1.
    pub inferred: usize,
    /// Offline rows in the scope above: how many submissions could have run Interactive.
    pub offline_rows: usize,
    /// Rows of the whole summary, of any other scenario, whose `inferred` is 1: the flag marks
    /// more than Interactive runs.
    pub inferred_elsewhere: usize,
    /// Offline/Interactive pairs, a run submitted twice counted once.
    pub pairs: usize,
    /// Interactive rows without exactly one Offline partner.
    pub unmatched: usize,
    /// Pairs whose Interactive Result exceeds their Offline Result (a ratio above 1).
    pub over_100: usize,
    /// Pairs left out as one run submitted twice.
    pub duplicates: usize,
}

/// The Interactive pairs and their spread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InteractiveAnalysis {
    /// The counts of the pairing: rows in scope, pairs, unmatched rows and duplicates.
    pub counts: InteractiveCounts,
    /// The fields two rows must share to pair, in the summary's names: the key fields less
    /// `inferred`, then the round's further key fields.
    pub key_fields: Vec<String>,
    /// The walk-through of the Interactive scope ([`scope`]): the row count before the first rule
    /// and after each.
    pub steps: Vec<Step>,
    /// Every Offline/Interactive pair, by Offline row, duplicates left out.
    pub pairs: Vec<InteractivePair>,
    /// Interactive rows in scope left without a pair, by row (an Offline row without an Interactive
    /// run is the common case and is not listed).
    pub unmatched: Vec<Unmatched>,
    /// Per-benchmark spread of Interactive ÷ Offline, ordered by median (lowest first).
    pub benchmarks: Vec<BenchmarkStats>,
    /// The accelerators behind each benchmark's Interactive pairs, in the order of `benchmarks`.
    pub hardware: Vec<BenchmarkHardware>,
    /// Server ÷ Offline of the same submissions, to set beside Interactive ÷ Offline.
    pub server_alongside: Alongside,
    /// The same comparison system by system, so that no mix of hardware enters it.
    pub within_systems: WithinSystems,
    /// Pairs left out as one run submitted twice, with the pair each repeats.
    pub duplicates: Vec<super::Duplicate>,
}

/// The benchmarks' spread under Interactive and under Server limits, system by system: on the
/// systems (organisation and `Platform`) whose submissions have both an Interactive and a Server
/// pair on two benchmarks or more (each benchmark once).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WithinSystems {
    /// Systems with an Interactive and a Server pair on two benchmarks or more, each once.
    pub systems: usize,
    /// Systems whose benchmarks lie further apart (highest ratio less lowest) under Interactive
    /// limits than under Server limits.
    pub interactive_wider: usize,
    /// Systems whose benchmarks lie as far apart or further under Server limits.
    pub server_wider_or_equal: usize,
    /// The median spread of the systems' Server ratios, in percentage points; `None` when no system
    /// qualifies.
    pub median_spread_server_pp: Option<f64>,
    /// The median spread of their Interactive ratios, in percentage points.
    pub median_spread_interactive_pp: Option<f64>,
    /// Every two benchmarks, on the systems with both under both limits.
    pub comparisons: Vec<ScenarioComparison>,
}

/// Two benchmarks compared on the same systems under Server and under Interactive limits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioComparison {
    /// The benchmark of the two that comes first by name.
    pub first: String,
    /// The other benchmark, later by name.
    pub second: String,
    /// Systems with a Server and an Interactive pair on both benchmarks.
    pub systems: usize,
    /// Of those, the systems on which the first benchmark's Server ratio is the higher.
    pub first_higher_server: usize,
    /// Of those, the systems on which the first benchmark's Interactive ratio is the higher.
    pub first_higher_interactive: usize,
}

/// The accelerators one benchmark's Interactive pairs ran on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkHardware {
    /// The benchmark (`MlperfModel`) whose Interactive pairs are counted.
    pub benchmark: String,
    /// Each accelerator, most pairs first, then by name.
    pub accelerators: Vec<AcceleratorRuns>,
}

/// The Interactive pairs of one benchmark on one accelerator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcceleratorRuns {
    /// `accelerator_model_name` as written; `None` for CPU-only systems or an empty field.
    pub accelerator: Option<String>,
    /// Interactive pairs of the benchmark on the accelerator.
    pub pairs: usize,
    /// The organisations that submitted them, sorted, each once.
    pub organizations: Vec<String>,
    /// The lowest Interactive ÷ Offline ratio among them.
    pub min: Ratio,
    /// The highest Interactive ÷ Offline ratio among them.
    pub max: Ratio,
}

/// The submissions with both pairs: the Server pairs whose Offline row is also the Offline row
/// of an Interactive pair, so that the two ratios are compared on the same submissions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alongside {
    /// Server pairs whose Offline row is also an Interactive pair's.
    pub pairs: usize,
    /// Their Server ÷ Offline by benchmark, ordered by median (lowest first).
    pub benchmarks: Vec<BenchmarkStats>,
    /// Their Interactive ÷ Offline by benchmark, ordered by median (lowest first).
    pub interactive: Vec<BenchmarkStats>,
}

impl Alongside {
    /// Each benchmark with both: its Server figures and its Interactive figures, in the order of
    /// the Server medians.
    pub fn both(&self) -> impl Iterator<Item = (&BenchmarkStats, &BenchmarkStats)> {
        self.benchmarks.iter().filter_map(|s| {
            let i = self
                .interactive
                .iter()
                .find(|i| i.benchmark == s.benchmark)?;
            Some((s, i))
        })
    }
}

impl InteractiveAnalysis {
    /// The Interactive pair of the submission whose Offline row is `offline_id`.
    pub fn pair(&self, offline_id: RowId) -> Option<&InteractivePair> {
        self.pairs.iter().find(|p| p.offline_id == offline_id)
    }
}

/// Pairs the Interactive rows with their Offline rows; `server` are the article's Server pairs.
pub fn analyse(
    summary: &Summary,
    server: &[Pair],
    same_model: &[[String; 2]],
) -> Result<InteractiveAnalysis> {
    let rows = &summary.rows;
    let keys: Vec<Field> = key_fields().collect();
    // An Offline row without an Interactive run is the common case (the scenario is optional);
    // only Interactive rows left without a pair are listed.
    let interactive_only = |s: Scenario| s == Scenario::Interactive;
    let paired = pair_rows(
        summary,
        &scope(),
        &keys,
        Scenario::Interactive,
        same_model,
        interactive_only,
    )?;
    let is_interactive = |i: usize| rows[i].scenario() == Some(Scenario::Interactive);
    let pairs: Vec<InteractivePair> = paired
        .pairs
        .iter()
        .map(|&(orow, irow, offline, interactive)| InteractivePair {
            offline_id: orow.id,
            interactive_id: irow.id,
            submission: Submission::of(orow),
            offline_location: text_of(orow, Field::Location),
            interactive_location: text_of(irow, Field::Location),
            offline,
            interactive,
            ratio: Ratio(interactive / offline),
        })
        .collect();
    let (eligible, steps, duplicates) = (paired.eligible, paired.steps, paired.duplicates);
    let unmatched = paired.unmatched;
    let interactive_rows: Vec<usize> = eligible
        .iter()
        .copied()
        .filter(|&i| is_interactive(i))
        .collect();
    let benchmarks = by_benchmark(
        pairs
            .iter()
            .map(|p| (p.submission.benchmark.as_str(), p.ratio)),
    );
    Ok(InteractiveAnalysis {
        counts: InteractiveCounts {
            interactive_rows: interactive_rows.len(),
            inferred: interactive_rows
                .iter()
                .filter(|&&i| rows[i].typed(Field::Inferred) == Typed::Int(1))
                .count(),
            offline_rows: eligible.len() - interactive_rows.len(),
            inferred_elsewhere: rows
                .iter()
                .filter(|r| {
                    r.typed(Field::Inferred) == Typed::Int(1)
                        && r.scenario() != Some(Scenario::Interactive)
                })
                .count(),
            pairs: pairs.len(),
            unmatched: unmatched.len(),
            over_100: pairs.iter().filter(|p| p.ratio.0 > 1.0).count(),
            duplicates: duplicates.len(),
        },
        key_fields: super::key_names(summary, &keys),
        steps,
        hardware: hardware(&pairs, &benchmarks),
        server_alongside: alongside(&pairs, server),
        within_systems: within_systems(&pairs, server),
        duplicates,
        benchmarks,
        pairs,
        unmatched,
    })
}

/// The accelerators of each benchmark's Interactive pairs, in the order of `benchmarks`.
fn hardware(pairs: &[InteractivePair], benchmarks: &[BenchmarkStats]) -> Vec<BenchmarkHardware> {
    benchmarks
        .iter()
        .map(|b| {
            let mut by: BTreeMap<Option<&str>, Vec<&InteractivePair>> = BTreeMap::new();
            for p in pairs
                .iter()
                .filter(|p| p.submission.benchmark == b.benchmark)
            {
                by.entry(p.submission.accelerator_name())
                    .or_default()
                    .push(p);
            }
            let mut accelerators: Vec<AcceleratorRuns> = by
                .into_iter()
                .map(|(accelerator, ps)| {
                    let [min, max] = super::range(ps.iter().map(|p| p.ratio.0));
                    AcceleratorRuns {
                        accelerator: accelerator.map(str::to_string),
                        pairs: ps.len(),
                        organizations: super::organizations(ps.iter().map(|p| &p.submission)),
                        min: Ratio(min),
                        max: Ratio(max),
                    }
                })
                .collect();
            // Stable: ties keep the map's order, by name (no accelerator first).
            accelerators.sort_by_key(|g| std::cmp::Reverse(g.pairs));
            BenchmarkHardware {
                benchmark: b.benchmark.clone(),
                accelerators,
            }
        })
        .collect()
}

/// Server ÷ Offline of the submissions with an Interactive pair.
fn alongside(pairs: &[InteractivePair], server: &[Pair]) -> Alongside {
    let offline: BTreeSet<RowId> = pairs.iter().map(|p| p.offline_id).collect();
    let same: Vec<&Pair> = server
        .iter()
        .filter(|p| offline.contains(&p.offline_id))
        .collect();
    let with_server: BTreeSet<RowId> = same.iter().map(|p| p.offline_id).collect();
    Alongside {
        pairs: same.len(),
        benchmarks: by_benchmark(
            same.iter()
                .map(|p| (p.submission.benchmark.as_str(), p.ratio)),
        ),
        interactive: by_benchmark(
            pairs
                .iter()
                .filter(|i| with_server.contains(&i.offline_id))
                .map(|i| (i.submission.benchmark.as_str(), i.ratio)),
        ),
    }
}

/// A system (organisation, `Platform`) and its benchmarks, each with what was found of it.
type BySystem<'a, T> = BTreeMap<(&'a str, &'a str), BTreeMap<&'a str, T>>;

/// Each system's Server and Interactive ratios of the same submissions, by benchmark, for the
/// systems with both on two benchmarks or more, each once.
fn both_by_system<'a>(
    pairs: &'a [InteractivePair],
    server: &'a [Pair],
) -> BySystem<'a, (f64, f64)> {
    let interactive: BTreeMap<RowId, &InteractivePair> =
        pairs.iter().map(|p| (p.offline_id, p)).collect();
    let mut by: BySystem<Vec<(f64, f64)>> = BTreeMap::new();
    for s in server {
        if let Some(i) = interactive.get(&s.offline_id) {
            by.entry((&s.submission.organization, &s.submission.platform))
                .or_default()
                .entry(&s.submission.benchmark)
                .or_default()
                .push((s.ratio.0, i.ratio.0));
        }
    }
    by.into_iter()
        .filter(|(_, r)| r.len() >= 2 && r.values().all(|v| v.len() == 1))
        .map(|(s, r)| (s, r.into_iter().map(|(b, v)| (b, v[0])).collect()))
        .collect()
}

/// The spreads and the comparisons of [`WithinSystems`].
fn within_systems(pairs: &[InteractivePair], server: &[Pair]) -> WithinSystems {
    let systems = both_by_system(pairs, server);
    let spread = |r: &BTreeMap<&str, (f64, f64)>, pick: fn(&(f64, f64)) -> f64| {
        let [lo, hi] = super::range(r.values().map(pick));
        (hi - lo) * 100.0
    };
    let spreads: Vec<(f64, f64)> = systems
        .values()
        .map(|r| (spread(r, |x| x.0), spread(r, |x| x.1)))
        .collect();
    let benchmarks = super::sorted_distinct(systems.values().flat_map(|r| r.keys().copied()));
    let mut comparisons = Vec::new();
    for (i, first) in benchmarks.iter().enumerate() {
        for second in &benchmarks[i + 1..] {
            let both: Vec<((f64, f64), (f64, f64))> = systems
                .values()
                .filter_map(|r| Some((*r.get(first)?, *r.get(second)?)))
                .collect();
            if both.is_empty() {
                continue;
            }
            comparisons.push(ScenarioComparison {
                first: first.to_string(),
                second: second.to_string(),
                systems: both.len(),
                first_higher_server: both.iter().filter(|(a, b)| a.0 > b.0).count(),
                first_higher_interactive: both.iter().filter(|(a, b)| a.1 > b.1).count(),
            });
        }
    }
    let interactive_wider = spreads.iter().filter(|(s, i)| i > s).count();
    WithinSystems {
        systems: systems.len(),
        interactive_wider,
        server_wider_or_equal: spreads.len() - interactive_wider,
        median_spread_server_pp: super::median(spreads.iter().map(|x| x.0).collect()),
        median_spread_interactive_pp: super::median(spreads.iter().map(|x| x.1).collect()),
        comparisons,
    }
}

#[cfg(test)]
mod tests {
    use super::scope;
    use crate::summary::Field;

    /// The Interactive scope is the article's, rule for rule and in its order, but for the
    /// scenario and `inferred` rules: a rule the article's scope drops or renames shows here.
    #[test]
    fn the_interactive_scope_is_the_articles_with_two_rules_changed() {
        let rules: Vec<(Field, &str)> = scope().iter().map(|r| (r.field, r.rule)).collect();
        assert_eq!(
            rules,
            [
                (Field::Availability, "Availability = available"),
                (Field::Division, "Division = closed"),
                (Field::SystemType, "SystemType = datacenter"),
                (Field::Errors, "errors = 0"),
                (Field::Units, "Units = Tokens/s"),
                (Field::Scenario, "Scenario is Offline or Interactive"),
                (Field::Inferred, "inferred = 0 (Offline rows only)"),
                (Field::HasPower, "has_power = false"),
                (Field::DesignPowerWatts, "design_power_watts is null"),
            ]
        );
    }

    fn submission(system: &str, benchmark: &str) -> super::Submission {
        super::Submission {
            organization: "org".into(),
            system_name: system.into(),
            platform: system.into(),
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
        }
    }

    /// Two systems ran A and B under both limits (one Offline run each): on s1 the benchmarks
    /// lie 2 points apart under Server limits and 30 under Interactive ones, and A's lead over B
    /// turns; s2 is narrower under Interactive limits. s3 ran B twice and is left out.
    #[test]
    fn the_interactive_and_server_spreads_are_compared_system_by_system() {
        use super::{within_systems, InteractivePair, Pair, Ratio, RowId};
        let mut server = Vec::new();
        let mut interactive = Vec::new();
        let runs = [
            ("s1", "A", 0.95, 0.50),
            ("s1", "B", 0.93, 0.80),
            ("s2", "A", 0.90, 0.70),
            ("s2", "B", 0.80, 0.65),
            ("s3", "A", 0.90, 0.70),
            ("s3", "B", 0.80, 0.65),
            ("s3", "B", 0.70, 0.60),
        ];
        for (i, (system, b, s, x)) in runs.into_iter().enumerate() {
            let offline_id = RowId(i as u32);
            server.push(Pair {
                offline_id,
                server_id: RowId(100 + i as u32),
                submission: submission(system, b),
                offline_location: String::new(),
                server_location: String::new(),
                offline: 1.0,
                server: s,
                ratio: Ratio(s),
            });
            interactive.push(InteractivePair {
                offline_id,
                interactive_id: RowId(200 + i as u32),
                submission: submission(system, b),
                offline_location: String::new(),
                interactive_location: String::new(),
                offline: 1.0,
                interactive: x,
                ratio: Ratio(x),
            });
        }
        let w = within_systems(&interactive, &server);
        assert_eq!(
            (w.systems, w.interactive_wider, w.server_wider_or_equal),
            (2, 1, 1)
        );
        // Server spreads 2 and 10 points, Interactive 30 and 5: medians 6 and 17.5.
        assert!((w.median_spread_server_pp.unwrap() - 6.0).abs() < 1e-9);
        assert!((w.median_spread_interactive_pp.unwrap() - 17.5).abs() < 1e-9);
        let [c] = w.comparisons.as_slice() else {
            panic!("{w:?}")
        };
        assert_eq!(
            (
                c.first.as_str(),
                c.systems,
                c.first_higher_server,
                c.first_higher_interactive
            ),
            ("A", 2, 2, 1)
        );
    }
}
