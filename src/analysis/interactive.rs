//! The Interactive runs, paired with the Offline runs of their submissions. MLPerf's third
//! datacenter LLM scenario is a Server run under tighter latency limits; the summary lists each
//! as a row of scenario `Interactive`, and sets `inferred` = 1 on every one of them (the checker
//! compares the row's scenario with the one LoadGen logged, and LoadGen logs `Server`). So the
//! Interactive pairs use the article's scope with two changes: the scenario is Offline or
//! Interactive, and `inferred` = 0 is asked of the Offline rows only; and they match on the 26
//! key fields other than `inferred`. A key with exactly one Offline and one Interactive row is a
//! pair, and its ratio is Interactive Result ÷ Offline Result.

use serde::Serialize;

use super::{
    by_benchmark, matching, result_of, scope_with, text_of, unmatched_row, BenchmarkStats, Ratio,
    ScopeRule, Step, Submission, Unmatched, NON_KEY_FIELDS,
};
use crate::base::error::Result;
use crate::summary::{Field, RowId, Scenario, Summary, Typed};

/// The scope of the Interactive pairs: the article's filters, with the scenario and `inferred`
/// rules changed as the module says.
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
        rule: "Scenario is Offline or Interactive",
        keep: |r| {
            matches!(
                r.scenario(),
                Some(Scenario::Offline | Scenario::Interactive)
            )
        },
    },
    ScopeRule {
        field: Field::Inferred,
        rule: "inferred = 0 (Offline rows only)",
        keep: |r| {
            r.scenario() == Some(Scenario::Interactive) || r.typed(Field::Inferred) == Typed::Int(0)
        },
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
    pub offline_id: RowId,
    pub interactive_id: RowId,
    #[serde(flatten)]
    pub submission: Submission,
    pub offline_location: String,
    pub interactive_location: String,
    /// Offline Result (tokens/s).
    pub offline: f64,
    /// Interactive Result (tokens/s).
    pub interactive: f64,
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
    pub pairs: usize,
    /// Interactive rows without exactly one Offline partner.
    pub unmatched: usize,
    pub over_100: usize,
}

/// The Interactive pairs and their spread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InteractiveAnalysis {
    pub counts: InteractiveCounts,
    pub key_fields: Vec<&'static str>,
    pub steps: Vec<Step>,
    pub pairs: Vec<InteractivePair>,
    pub unmatched: Vec<Unmatched>,
    /// Per-benchmark spread of Interactive ÷ Offline, ordered by median (lowest first).
    pub benchmarks: Vec<BenchmarkStats>,
}

impl InteractiveAnalysis {
    /// The Interactive pair of the submission whose Offline row is `offline_id`.
    pub fn pair(&self, offline_id: RowId) -> Option<&InteractivePair> {
        self.pairs.iter().find(|p| p.offline_id == offline_id)
    }
}

/// Pairs the Interactive rows with their Offline rows.
pub fn analyse(summary: &Summary) -> Result<InteractiveAnalysis> {
    let rows = &summary.rows;
    let (eligible, steps) = scope_with(summary, SCOPE);
    for &i in &eligible {
        result_of(&rows[i])?;
    }
    let is_interactive = |i: usize| rows[i].scenario() == Some(Scenario::Interactive);
    let keys: Vec<Field> = key_fields().collect();
    let matched = matching::match_rows(rows, &eligible, &keys, Scenario::Interactive);
    let mut pairs = Vec::with_capacity(matched.pairs.len());
    for &(o, i) in &matched.pairs {
        let (orow, irow) = (&rows[o], &rows[i]);
        let (offline, interactive) = (result_of(orow)?, result_of(irow)?);
        pairs.push(InteractivePair {
            offline_id: orow.id,
            interactive_id: irow.id,
            submission: Submission::of(orow),
            offline_location: text_of(orow, Field::Location),
            interactive_location: text_of(irow, Field::Location),
            offline,
            interactive,
            ratio: Ratio(interactive / offline),
        });
    }
    pairs.sort_by_key(|p| p.offline_id);
    // An Offline row without an Interactive run is the common case (the scenario is optional);
    // only Interactive rows left without a pair are listed.
    let mut unmatched: Vec<Unmatched> = matched
        .unmatched
        .iter()
        .filter(|(i, _, _)| is_interactive(*i))
        .map(|(i, s, reason)| unmatched_row(&rows[*i], *s, reason.clone()))
        .collect();
    unmatched.sort_by_key(|u| u.id);
    let interactive_rows: Vec<usize> = eligible
        .iter()
        .copied()
        .filter(|&i| is_interactive(i))
        .collect();
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
        },
        key_fields: keys.iter().map(|f| f.name()).collect(),
        steps,
        benchmarks: by_benchmark(
            pairs
                .iter()
                .map(|p| (p.submission.benchmark.as_str(), p.ratio)),
        ),
        pairs,
        unmatched,
    })
}
