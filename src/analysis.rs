//! Stage 3 of the pipeline: the results of the whole round. Scope the rows, match the Offline and
//! Server rows of one submission exactly, compute each pair's Server/Offline ratio, and summarise
//! the ratios of each benchmark. Which pairs the article highlights is the article's choice
//! ([`crate::highlight`]), not the analysis's.
//!
//! Scope is a fixed list of filters, each recorded with the row count after it. Two eligible rows
//! match when the 27 key fields (all but Scenario, Result, Accuracy and Location) are equal both as
//! typed JSON values and as raw CSV strings. Matching hashes the key, so it is linear in rows.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::summary::{Field, RowId, Scenario, Summary, SummaryRow, Typed};

/// Fields that differ between the Offline and Server rows of one submission.
pub const NON_KEY_FIELDS: &[Field] = &[
    Field::Scenario,
    Field::Result,
    Field::Accuracy,
    Field::Location,
];

/// The fields that must be equal for two rows to match.
pub fn key_fields() -> impl Iterator<Item = Field> {
    Field::ALL
        .iter()
        .copied()
        .filter(|f| !NON_KEY_FIELDS.contains(f))
}

/// A Server/Offline throughput ratio as a fraction (1.0 = the Server run matched Offline).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Ratio(pub f64);

impl Ratio {
    pub fn percent(self) -> f64 {
        self.0 * 100.0
    }
}

/// One scope filter.
pub struct ScopeRule {
    pub field: Field,
    /// The rule as shown to readers, e.g. `Division = closed`.
    pub rule: &'static str,
    keep: fn(&SummaryRow) -> bool,
}

/// The scope filters, applied in this order.
pub const SCOPE: &[ScopeRule] = &[
    ScopeRule {
        field: Field::Availability,
        rule: "Availability = available",
        keep: |r| r.is_text(Field::Availability, "available"),
    },
    ScopeRule {
        field: Field::Division,
        rule: "Division = closed",
        keep: |r| r.is_text(Field::Division, "closed"),
    },
    ScopeRule {
        field: Field::SystemType,
        rule: "SystemType = datacenter",
        keep: |r| r.is_text(Field::SystemType, "datacenter"),
    },
    ScopeRule {
        field: Field::Inferred,
        rule: "inferred = 0",
        keep: |r| r.typed(Field::Inferred) == Typed::Int(0),
    },
    ScopeRule {
        field: Field::Errors,
        rule: "errors = 0",
        keep: |r| r.typed(Field::Errors) == Typed::Int(0),
    },
    ScopeRule {
        field: Field::Units,
        rule: "Units = Tokens/s",
        keep: |r| r.is_text(Field::Units, "Tokens/s"),
    },
    ScopeRule {
        field: Field::Scenario,
        rule: "Scenario is Offline or Server",
        keep: |r| r.scenario().is_some(),
    },
    ScopeRule {
        field: Field::HasPower,
        rule: "has_power = false",
        keep: |r| r.typed(Field::HasPower) == Typed::Bool(false),
    },
    ScopeRule {
        field: Field::DesignPowerWatts,
        rule: "design_power_watts is null",
        keep: |r| r.typed(Field::DesignPowerWatts) == Typed::Null,
    },
];

/// The row count after one step of the walk-through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub name: String,
    pub field: Option<&'static str>,
    pub rows: usize,
}

/// Headline counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub rows: usize,
    pub closed: usize,
    pub open: usize,
    pub eligible: usize,
    pub pairs: usize,
    pub unmatched: usize,
    pub over_100: usize,
}

/// A complete Offline/Server pair of one submission.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub offline_id: RowId,
    pub server_id: RowId,
    pub organization: String,
    pub system_name: String,
    pub platform: String,
    pub model: String,
    /// The benchmark the model belongs to (MlperfModel), used to group the pairs.
    pub benchmark: String,
    pub accelerator: Option<String>,
    pub total_accelerators: serde_json::Value,
    /// Offline Result (tokens/s), from the CSV's full-precision text.
    pub offline: f64,
    /// Server Result (tokens/s), from the CSV's full-precision text.
    pub server: f64,
    pub ratio: Ratio,
}

/// Why an eligible row is not part of a pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum UnmatchedReason {
    /// No row of the other scenario has the same key.
    NoPartner { missing: Scenario },
    /// The key holds more than one row of a scenario, so no pair is formed.
    DuplicateKey { offline: usize, server: usize },
}

/// An eligible row left without a pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    pub id: RowId,
    pub scenario: Scenario,
    pub organization: String,
    pub system_name: String,
    pub model: String,
    pub reason: UnmatchedReason,
}

/// The spread of one benchmark's ratios.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkStats {
    pub benchmark: String,
    pub pairs: usize,
    pub min: Ratio,
    pub median: Ratio,
    pub max: Ratio,
}

/// Everything the analysis computes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// The round of the results (`version` of every row, such as `v6.1`).
    pub round: String,
    pub counts: Counts,
    pub key_fields: Vec<&'static str>,
    pub steps: Vec<Step>,
    pub pairs: Vec<Pair>,
    pub unmatched: Vec<Unmatched>,
    /// Per-benchmark spread of the ratios, ordered by median (lowest first).
    pub benchmarks: Vec<BenchmarkStats>,
}

impl Analysis {
    pub fn pair(&self, offline_id: RowId) -> Option<&Pair> {
        self.pairs
            .binary_search_by_key(&offline_id, |p| p.offline_id)
            .ok()
            .map(|i| &self.pairs[i])
    }
}

/// Row indices of the eligible rows, with the walk-through of the scope. One pass over the rows:
/// each row is charged to the first rule it fails, and the count after a step is what remains.
pub fn scope(summary: &Summary) -> (Vec<usize>, Vec<Step>) {
    let mut dropped_at = [0usize; SCOPE.len()];
    let mut kept = Vec::with_capacity(summary.rows.len());
    for (i, row) in summary.rows.iter().enumerate() {
        match SCOPE.iter().position(|rule| !(rule.keep)(row)) {
            Some(k) => dropped_at[k] += 1,
            None => kept.push(i),
        }
    }
    let mut remaining = summary.rows.len();
    let mut steps = vec![Step {
        name: "All rows of the summary".into(),
        field: None,
        rows: remaining,
    }];
    for (rule, dropped) in SCOPE.iter().zip(dropped_at) {
        remaining -= dropped;
        steps.push(Step {
            name: rule.rule.into(),
            field: Some(rule.field.name()),
            rows: remaining,
        });
    }
    (kept, steps)
}

/// The range a Result (tokens/s) must lie in: wide beyond any real system (every v6.1 Result
/// lies between about 0.01 and 6,000,000), narrow enough that every ratio of two Results is
/// finite and its percentage prints in at most 18 digits.
pub const RESULT_RANGE: (f64, f64) = (1e-6, 1e9);

/// The numeric Result of an eligible row: a finite number within [`RESULT_RANGE`], read from
/// the CSV text.
fn result_of(row: &SummaryRow) -> Result<f64> {
    let raw = row.raw(Field::Result);
    let context = || format!("summary.csv row {}, field Result", row.id);
    match raw.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => {
            let (low, high) = RESULT_RANGE;
            if (low..=high).contains(&v) {
                Ok(v)
            } else {
                Err(Error::invalid(
                    context(),
                    format!(
                        "{} is outside the accepted range of {low:e} to {high:e} tokens/s (a typo or a unit error)",
                        crate::format::quoted(raw, 200)
                    ),
                ))
            }
        }
        _ => Err(Error::invalid(
            context(),
            format!(
                "expected a positive finite number, got {:?}",
                crate::format::excerpt(raw, 200)
            ),
        )),
    }
}

fn text_of(row: &SummaryRow, f: Field) -> String {
    row.raw(f).to_string()
}

/// Runs scope, matching, ratios and the per-benchmark summary.
pub fn analyse(summary: &Summary) -> Result<Analysis> {
    let round = summary.round()?.to_string();
    let (eligible, steps) = scope(summary);
    let rows = &summary.rows;
    let results: Vec<f64> = eligible
        .iter()
        .map(|&i| result_of(&rows[i]))
        .collect::<Result<_>>()?;

    let keys: Vec<Field> = key_fields().collect();
    let groups = group_by_key(rows, &eligible, &keys);

    let mut pairs = Vec::with_capacity(groups.classes.len());
    let mut unmatched = Vec::new();
    for class in &groups.classes {
        let members = || groups.members(class);
        // Scope keeps only rows whose scenario is Offline or Server.
        let scenario_of = |pos: usize| rows[eligible[pos]].scenario();
        let offline = members()
            .filter(|&p| scenario_of(p) == Some(Scenario::Offline))
            .count();
        let server = class.len - offline;
        let only = |s: Scenario| members().find(|&p| scenario_of(p) == Some(s));
        if let (1, 1, Some(o), Some(s)) = (
            offline,
            server,
            only(Scenario::Offline),
            only(Scenario::Server),
        ) {
            let (orow, srow) = (&rows[eligible[o]], &rows[eligible[s]]);
            let (offline_result, server_result) = (results[o], results[s]);
            pairs.push(Pair {
                offline_id: orow.id,
                server_id: srow.id,
                organization: text_of(orow, Field::Organization),
                system_name: text_of(orow, Field::SystemName),
                platform: text_of(orow, Field::Platform),
                model: text_of(orow, Field::Model),
                benchmark: text_of(orow, Field::MlperfModel),
                accelerator: match orow.typed(Field::AcceleratorModelName) {
                    Typed::Null => None,
                    _ => Some(text_of(orow, Field::AcceleratorModelName)),
                },
                total_accelerators: orow.cell(Field::TotalAccelerators).to_json(),
                offline: offline_result,
                server: server_result,
                ratio: Ratio(server_result / offline_result),
            });
            continue;
        }
        let reason = if offline == 0 || server == 0 {
            UnmatchedReason::NoPartner {
                missing: if offline == 0 {
                    Scenario::Offline
                } else {
                    Scenario::Server
                },
            }
        } else {
            UnmatchedReason::DuplicateKey { offline, server }
        };
        for pos in members() {
            let row = &rows[eligible[pos]];
            let Some(scenario) = scenario_of(pos) else {
                continue;
            };
            unmatched.push(Unmatched {
                id: row.id,
                scenario,
                organization: text_of(row, Field::Organization),
                system_name: text_of(row, Field::SystemName),
                model: text_of(row, Field::Model),
                reason: reason.clone(),
            });
        }
    }
    pairs.sort_by_key(|p| p.offline_id);
    unmatched.sort_by_key(|u| u.id);

    let counts = Counts {
        rows: rows.len(),
        closed: rows
            .iter()
            .filter(|r| r.is_text(Field::Division, "closed"))
            .count(),
        open: rows
            .iter()
            .filter(|r| r.is_text(Field::Division, "open"))
            .count(),
        eligible: eligible.len(),
        pairs: pairs.len(),
        unmatched: unmatched.len(),
        over_100: pairs.iter().filter(|p| p.ratio.0 > 1.0).count(),
    };
    Ok(Analysis {
        round,
        counts,
        key_fields: keys.iter().map(|f| f.name()).collect(),
        steps,
        benchmarks: by_benchmark(&pairs),
        pairs,
        unmatched,
    })
}

/// Per-benchmark spread of the ratios, ordered by median (lowest first), then by name.
fn by_benchmark(pairs: &[Pair]) -> Vec<BenchmarkStats> {
    let mut groups: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    for p in pairs {
        groups.entry(&p.benchmark).or_default().push(p.ratio.0);
    }
    let mut stats: Vec<BenchmarkStats> = groups
        .into_iter()
        .map(|(b, mut v)| {
            v.sort_by(f64::total_cmp);
            let n = v.len();
            let median = if n % 2 == 1 {
                v[n / 2]
            } else {
                (v[n / 2 - 1] + v[n / 2]) / 2.0
            };
            BenchmarkStats {
                benchmark: b.to_string(),
                pairs: n,
                min: Ratio(v[0]),
                median: Ratio(median),
                max: Ratio(v[n - 1]),
            }
        })
        .collect();
    stats.sort_by(|a, b| {
        a.median
            .0
            .total_cmp(&b.median.0)
            .then_with(|| a.benchmark.cmp(&b.benchmark))
    });
    stats
}

/// Rows of one key: a chain of positions in the eligible list.
struct Class {
    first: usize,
    last: usize,
    len: usize,
    /// The next class whose key has the same fingerprint (a collision), if any.
    collision: Option<usize>,
}

/// Eligible rows grouped by key, without one allocation per group.
struct Groups {
    classes: Vec<Class>,
    /// For each eligible position, the next position of the same class.
    next: Vec<Option<usize>>,
}

impl Groups {
    fn members<'a>(&'a self, class: &Class) -> impl Iterator<Item = usize> + 'a {
        std::iter::successors(Some(class.first), move |&p| self.next[p])
    }
}

/// Groups eligible rows by their key: (typed value, raw text) of every key field. Rows are
/// bucketed by a 64-bit fingerprint of the key, then compared exactly, so a fingerprint collision
/// can never put two different keys together. Linear in rows.
fn group_by_key(rows: &[SummaryRow], eligible: &[usize], keys: &[Field]) -> Groups {
    let same_key = |a: &SummaryRow, b: &SummaryRow| {
        keys.iter()
            .all(|&f| a.typed(f) == b.typed(f) && a.raw(f) == b.raw(f))
    };
    let mut by_fingerprint: HashMap<u64, usize> = HashMap::with_capacity(eligible.len());
    let mut classes: Vec<Class> = Vec::with_capacity(eligible.len());
    let mut next = vec![None; eligible.len()];
    for (pos, &i) in eligible.iter().enumerate() {
        let row = &rows[i];
        let new_class = |collision| Class {
            first: pos,
            last: pos,
            len: 1,
            collision,
        };
        match by_fingerprint.entry(fingerprint(row, keys)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(classes.len());
                classes.push(new_class(None));
            }
            std::collections::hash_map::Entry::Occupied(o) => {
                let mut c = *o.get();
                loop {
                    if same_key(&rows[eligible[classes[c].first]], row) {
                        let last = classes[c].last;
                        next[last] = Some(pos);
                        classes[c].last = pos;
                        classes[c].len += 1;
                        break;
                    }
                    match classes[c].collision {
                        Some(n) => c = n,
                        None => {
                            classes[c].collision = Some(classes.len());
                            classes.push(new_class(None));
                            break;
                        }
                    }
                }
            }
        }
    }
    Groups { classes, next }
}

/// A 64-bit fingerprint of a row's key (typed values and raw text of the key fields).
fn fingerprint(row: &SummaryRow, keys: &[Field]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for &f in keys {
        row.typed(f).hash(&mut h);
        row.raw(f).hash(&mut h);
    }
    h.finish()
}
