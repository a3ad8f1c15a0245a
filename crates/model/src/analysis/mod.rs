//! The results of the whole round. Scope the rows, match the Offline and
//! Server rows of one submission exactly, compute each pair's Server/Offline ratio, and summarise
//! the ratios of each benchmark; pair the Interactive runs with their Offline runs the same way
//! ([`interactive`]); and measure how robust the per-benchmark picture is ([`robustness`]). Which
//! pairs the article highlights is the article's choice ([`crate::highlight`]), not the
//! analysis's.
//!
//! Scope is a fixed list of filters, each recorded with the row count after it. Two eligible rows
//! match when the 27 key fields (all but Scenario, Result, Accuracy and Location) are equal both as
//! typed JSON values and as raw CSV strings. Matching hashes the key, so it is linear in rows.

pub mod interactive;
mod matching;
pub mod robustness;
pub mod split;
pub mod units;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::summary::{Field, RowId, Scenario, Summary, SummaryRow, Typed};
use ratios_base::error::{Error, Result};

pub use interactive::{InteractiveAnalysis, InteractivePair};
pub use robustness::Robustness;

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

/// A throughput ratio of one submission as a fraction (1.0 = the Server or Interactive run
/// matched its Offline run).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Ratio(pub f64);

impl Ratio {
    /// The ratio in percent (0.85 is 85), the unit of the article's percentage-point figures.
    pub fn percent(self) -> f64 {
        self.0 * 100.0
    }
}

/// A ratio is a fraction: the number formats ([`ratios_base::number::percent`]) take it as one.
impl From<Ratio> for f64 {
    fn from(r: Ratio) -> f64 {
        r.0
    }
}

/// One scope filter.
#[derive(Clone, Copy)]
pub struct ScopeRule {
    /// The summary field the rule tests, which the walk-through names as the round spells it.
    pub field: Field,
    /// The rule as shown to readers, e.g. `Division = closed`.
    pub rule: &'static str,
    keep: fn(&SummaryRow) -> bool,
}

impl ScopeRule {
    /// True when `row` passes the rule and stays in scope.
    pub fn keeps(&self, row: &SummaryRow) -> bool {
        (self.keep)(row)
    }
}

/// The scope filters, applied in this order. The Scenario filter comes before `inferred`, so the
/// walk-through shows where the Interactive runs leave: at the scenario, not at `inferred`, which
/// the summary sets to 1 on every Interactive row (see [`interactive`]).
pub const SCOPE: &[ScopeRule] = &[
    rule(Field::Availability, "Availability = available", |r| {
        r.is_text(Field::Availability, "available")
    }),
    rule(Field::Division, "Division = closed", |r| {
        r.is_text(Field::Division, "closed")
    }),
    rule(Field::SystemType, "SystemType = datacenter", |r| {
        r.is_text(Field::SystemType, "datacenter")
    }),
    rule(Field::Errors, "errors = 0", |r| {
        r.typed(Field::Errors) == Typed::Int(0)
    }),
    rule(Field::Units, "Units = Tokens/s", |r| {
        r.is_text(Field::Units, "Tokens/s")
    }),
    rule(Field::Scenario, "Scenario is Offline or Server", |r| {
        matches!(r.scenario(), Some(Scenario::Offline | Scenario::Server))
    }),
    rule(Field::Inferred, "inferred = 0", |r| {
        r.typed(Field::Inferred) == Typed::Int(0)
    }),
    rule(Field::HasPower, "has_power = false", |r| {
        r.typed(Field::HasPower) == Typed::Bool(false)
    }),
    rule(Field::DesignPowerWatts, "design_power_watts is null", |r| {
        r.typed(Field::DesignPowerWatts) == Typed::Null
    }),
];

const fn rule(field: Field, rule: &'static str, keep: fn(&SummaryRow) -> bool) -> ScopeRule {
    ScopeRule { field, rule, keep }
}

/// The row count after one step of the walk-through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The step as the walk-through shows it: `All rows of the summary`, then each rule's text
    /// ([`ScopeRule::rule`]).
    pub name: String,
    /// The summary's name for the field the step filters on.
    pub field: Option<String>,
    /// Rows left after the step.
    pub rows: usize,
    /// How many of those rows are Interactive runs.
    pub interactive: usize,
}

/// Headline counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Rows of the whole summary, of every division and scenario.
    pub rows: usize,
    /// Rows whose `Division` is `closed`.
    pub closed: usize,
    /// Rows whose `Division` is `open`.
    pub open: usize,
    /// Rows that pass every scope rule ([`SCOPE`]).
    pub eligible: usize,
    /// Pairs, a result submitted twice counted once (see [`Duplicate`]).
    pub pairs: usize,
    /// Eligible rows left without a pair ([`Unmatched`]).
    pub unmatched: usize,
    /// Pairs whose Server Result exceeds their Offline Result (a ratio above 1).
    pub over_100: usize,
    /// Pairs left out as the same results as another pair of the system (see [`Duplicate`]).
    pub duplicates: usize,
}

/// A pair whose Offline and Server results are those of another pair of the same system on a
/// stricter accuracy target of the same model (`data/rounds.json`, `same_model`): one run
/// submitted twice, which counts once, under the stricter target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Duplicate {
    /// The Offline row of the pair left out.
    pub offline_id: RowId,
    /// The partner row: Server, or Interactive for an Interactive pair.
    pub partner_id: RowId,
    /// The laxer benchmark of the `same_model` couple, which the left-out pair ran.
    pub benchmark: String,
    /// The Offline row of the pair it repeats.
    pub of_offline_id: RowId,
    /// The partner row (Server, or Interactive) of the pair it repeats.
    pub of_partner_id: RowId,
    /// The stricter benchmark of the couple, which the pair it repeats ran and under which the run
    /// counts.
    pub of_benchmark: String,
}

/// A matched pair's Offline row, partner row (Server or Interactive) and their Results.
pub(crate) type RowPair<'a> = (&'a SummaryRow, &'a SummaryRow, f64, f64);

/// Of `pairs`, those that repeat another pair of the same system on the stricter benchmark of a
/// `same_model` couple with the same two results, each with the pair it repeats, in order.
fn duplicates(pairs: &[RowPair<'_>], same_model: &[[String; 2]]) -> Vec<Duplicate> {
    fn benchmark<'a>(p: &RowPair<'a>) -> &'a str {
        p.0.raw(Field::MlperfModel)
    }
    fn system<'a>(p: &RowPair<'a>) -> [&'a str; 2] {
        [Field::Organization, Field::Platform].map(|f| p.0.raw(f))
    }
    let mut out = Vec::new();
    for [lax, strict] in same_model {
        // Each system's pairs on the stricter benchmark, in order: one look-up per laxer pair.
        let mut on_strict: BTreeMap<[&str; 2], Vec<&RowPair>> = BTreeMap::new();
        for q in pairs.iter().filter(|q| benchmark(q) == strict) {
            on_strict.entry(system(q)).or_default().push(q);
        }
        for p in pairs.iter().filter(|p| benchmark(p) == lax) {
            let of_system = on_strict.get(&system(p)).map_or(&[][..], Vec::as_slice);
            if let Some(q) = of_system.iter().find(|q| (q.2, q.3) == (p.2, p.3)) {
                out.push(Duplicate {
                    offline_id: p.0.id,
                    partner_id: p.1.id,
                    benchmark: lax.clone(),
                    of_offline_id: q.0.id,
                    of_partner_id: q.1.id,
                    of_benchmark: strict.clone(),
                });
            }
        }
    }
    out.sort_by_key(|d| d.offline_id);
    out
}

/// The rows in scope of `rules` matched on `keys` into pairs of Offline and `partner` rows.
pub(crate) struct Paired<'a> {
    /// Row indices of the eligible rows.
    pub eligible: Vec<usize>,
    /// The walk-through of the scope.
    pub steps: Vec<Step>,
    /// Every pair, by Offline row, duplicates left out.
    pub pairs: Vec<RowPair<'a>>,
    /// The pairs left out as one run submitted twice.
    pub duplicates: Vec<Duplicate>,
    /// Eligible rows left without a pair whose scenario is listed, by row.
    pub unmatched: Vec<Unmatched>,
}

/// Scopes the rows by `rules`, checks every eligible row's Result (in row order, paired or
/// not), matches them on `keys` and leaves out the duplicates of `same_model`; of the rows left
/// without a pair, those of the scenarios `listed` accepts are described.
pub(crate) fn pair_rows<'a>(
    summary: &'a Summary,
    rules: &[ScopeRule],
    keys: &[Field],
    partner: Scenario,
    same_model: &[[String; 2]],
    listed: impl Fn(Scenario) -> bool,
) -> Result<Paired<'a>> {
    let rows = &summary.rows;
    let (eligible, steps) = scope_with(summary, rules);
    for &i in &eligible {
        result_of(summary, &rows[i])?;
    }
    let matched = matching::match_rows(rows, &eligible, keys, partner);
    let mut pairs = Vec::with_capacity(matched.pairs.len());
    for &(o, p) in &matched.pairs {
        let (orow, prow) = (&rows[o], &rows[p]);
        pairs.push((
            orow,
            prow,
            result_of(summary, orow)?,
            result_of(summary, prow)?,
        ));
    }
    pairs.sort_by_key(|p| p.0.id);
    let duplicates = duplicates(&pairs, same_model);
    let left_out: BTreeSet<RowId> = duplicates.iter().map(|d| d.offline_id).collect();
    pairs.retain(|p| !left_out.contains(&p.0.id));
    let listed: Vec<_> = matched
        .unmatched
        .into_iter()
        .filter(|&(_, scenario, _)| listed(scenario))
        .collect();
    // Each results folder's rows, in row order: an unmatched row names the others of its own.
    let mut folders: BTreeMap<[&str; 4], Vec<usize>> = BTreeMap::new();
    if !listed.is_empty() {
        for (j, r) in rows.iter().enumerate() {
            folders.entry(folder_of(r)).or_default().push(j);
        }
    }
    let mut unmatched: Vec<Unmatched> = listed
        .into_iter()
        .map(|(i, scenario, reason)| unmatched_row(rows, &folders, i, scenario, reason))
        .collect();
    unmatched.sort_by_key(|u| u.id);
    Ok(Paired {
        eligible,
        steps,
        pairs,
        duplicates,
        unmatched,
    })
}

/// The system and benchmark of a matched pair, as the Offline row states them (every key field
/// is equal in both rows of a pair).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Submission {
    /// The submitting organisation (`Organization`), as written.
    pub organization: String,
    /// The one name the article gives a system: the summary's `SystemName`.
    pub system_name: String,
    /// The results folder of the system (`Platform`), which highlights select by.
    pub platform: String,
    /// The model label of the rows (`Model`), kept as the submitter wrote it.
    pub model: String,
    /// The benchmark the model belongs to (`MlperfModel`), used to group the pairs.
    pub benchmark: String,
    /// `accelerator_model_name` as written; `None` where the summary's value is null.
    /// [`Submission::accelerator_name`] also leaves it out for a CPU-only system.
    pub accelerator: Option<String>,
    /// `number_of_nodes`; `None` when the summary holds no whole number there.
    pub nodes: Option<i64>,
    /// `accelerators_per_node`; `None` when the summary holds no whole number there.
    pub accelerators_per_node: Option<i64>,
    /// `total_accelerators`, 0 for a CPU-only system; `None` when the summary holds no whole number
    /// there.
    pub total_accelerators: Option<i64>,
    /// No accelerator at all (`total_accelerators` = 0): a CPU-only system.
    pub cpu_only: bool,
    /// The software the submitter lists (`framework`), as written; not part of the published
    /// pair records.
    #[serde(skip)]
    pub framework: String,
    /// The host processor (`host_processor_model_name`), as written: with
    /// `host_processors_per_node`, a CPU-only system's hardware configuration; not part of the
    /// published pair records.
    #[serde(skip)]
    pub host_processor: String,
    /// How many host processors each node holds (`host_processors_per_node`); `None` when the
    /// summary holds no whole number there; not part of the published pair records.
    #[serde(skip)]
    pub host_processors_per_node: Option<i64>,
}

impl Submission {
    fn of(row: &SummaryRow) -> Submission {
        let int = |f: Field| match row.typed(f) {
            Typed::Int(n) => Some(n),
            _ => None,
        };
        Submission {
            organization: text_of(row, Field::Organization),
            system_name: text_of(row, Field::SystemName),
            platform: text_of(row, Field::Platform),
            model: text_of(row, Field::Model),
            benchmark: text_of(row, Field::MlperfModel),
            accelerator: (row.typed(Field::AcceleratorModelName) != Typed::Null)
                .then(|| text_of(row, Field::AcceleratorModelName)),
            nodes: int(Field::NumberOfNodes),
            accelerators_per_node: int(Field::AcceleratorsPerNode),
            total_accelerators: int(Field::TotalAccelerators),
            cpu_only: int(Field::TotalAccelerators) == Some(0),
            framework: text_of(row, Field::Framework),
            host_processor: text_of(row, Field::HostProcessorModelName),
            host_processors_per_node: int(Field::HostProcessorsPerNode),
        }
    }

    /// The system as the article names it: its `SystemName`, and its organisation after it in
    /// parentheses when the name does not carry it already.
    pub fn system_label(&self) -> String {
        if self.system_name.contains(self.organization.as_str()) {
            self.system_name.clone()
        } else {
            format!("{} ({})", self.system_name, self.organization)
        }
    }

    /// The accelerator's name as written; `None` for a CPU-only system or an empty field.
    pub fn accelerator_name(&self) -> Option<&str> {
        self.accelerator.as_deref().filter(|_| !self.cpu_only)
    }

    /// The accelerator's name as written, or for a CPU-only system the host processor's, trimmed.
    pub fn hardware_name(&self) -> &str {
        if self.cpu_only {
            self.host_processor.trim()
        } else {
            self.accelerator_name().unwrap_or_default()
        }
    }

    /// The hardware as the article compares it: the accelerator's name in lower case (the
    /// summary spells one accelerator two ways, `NVIDIA` and `Nvidia`), accelerators per node and
    /// node count; `None` for a CPU-only system or when the summary leaves any of them empty.
    pub fn hardware(&self) -> Option<(String, i64, i64)> {
        Some((
            self.accelerator_name()?.to_lowercase(),
            self.accelerators_per_node?,
            self.nodes?,
        ))
    }

    /// Runs on more than one node.
    pub fn multi_node(&self) -> Option<bool> {
        self.nodes.map(|n| n > 1)
    }

    /// The hardware configuration ([`units::Configuration`]): the accelerator (or, without
    /// one, the host processor) in lower case, how many per node, and the node count; `None`
    /// when the summary leaves any of them empty.
    pub fn configuration(&self) -> Option<units::Configuration> {
        let nodes = self.nodes?;
        let (name, per_node) = if self.cpu_only {
            let name = self.host_processor.trim();
            (!name.is_empty()).then_some(())?;
            (name, self.host_processors_per_node?)
        } else {
            (self.accelerator_name()?, self.accelerators_per_node?)
        };
        Some(units::Configuration {
            cpu_only: self.cpu_only,
            name: name.to_lowercase(),
            per_node,
            nodes,
        })
    }

    /// What the system is counted under, by organisation and by configuration.
    pub fn membership(&self) -> units::Membership {
        units::Membership {
            organization: self.organization.clone(),
            configuration: self
                .configuration()
                .ok_or_else(|| format!("{}\u{0}{}", self.organization, self.platform)),
        }
    }
}

/// A complete Offline/Server pair of one submission.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    /// The Offline row of the pair, by which the pairs are sorted and found ([`Analysis::pair`]).
    pub offline_id: RowId,
    /// The Server row of the pair.
    pub server_id: RowId,
    /// The system and benchmark, as both rows state them.
    #[serde(flatten)]
    pub submission: Submission,
    /// The Offline row's `Location`: its folder in the round's results tree, where its LoadGen logs
    /// lie.
    pub offline_location: String,
    /// The Server row's `Location` in the round's results tree.
    pub server_location: String,
    /// Offline Result (tokens/s), from the CSV's full-precision text.
    pub offline: f64,
    /// Server Result (tokens/s), from the CSV's full-precision text.
    pub server: f64,
    /// Server Result ÷ Offline Result: the share of the Offline throughput the system keeps under
    /// the Server latency limits.
    pub ratio: Ratio,
}

/// Why an eligible row is not part of a pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum UnmatchedReason {
    /// No row of the other scenario has the same key.
    NoPartner {
        /// The scenario no row of the key holds: Offline, or the partner scenario.
        missing: Scenario,
    },
    /// The key holds more than one row of a scenario, so no pair is formed: `offline` Offline
    /// rows and `partners` rows of the `partner` scenario.
    DuplicateKey {
        /// Offline rows that share the key.
        offline: usize,
        /// The scenario paired with Offline: Server, or Interactive for the Interactive pairing.
        partner: Scenario,
        /// Rows of the `partner` scenario that share the key.
        partners: usize,
    },
}

/// An eligible row left without a pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    /// The unmatched row.
    pub id: RowId,
    /// Its scenario: Offline, or the partner scenario (Server or Interactive).
    pub scenario: Scenario,
    /// Its `Organization`, as written.
    pub organization: String,
    /// Its `SystemName`, as written.
    pub system_name: String,
    /// Its `Model` label, as written.
    pub model: String,
    /// Why it has no pair.
    pub reason: UnmatchedReason,
    /// The other rows of the whole summary, in or out of scope, from the same results folder
    /// (`Division`, `Organization`, `Platform`, `Model`), by row: what the system did submit of
    /// this model.
    pub siblings: Vec<Sibling>,
}

/// A row of the same system and model as an unmatched row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sibling {
    /// The sibling row.
    pub id: RowId,
    /// Its scenario: which run of the model the system did submit.
    pub scenario: Scenario,
}

impl Unmatched {
    /// True when the summary holds a row of `scenario` for the same system and model.
    pub fn has_sibling(&self, scenario: &Scenario) -> bool {
        self.siblings.iter().any(|s| s.scenario == *scenario)
    }
}

/// The spread of one benchmark's ratios.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchmarkStats {
    /// The benchmark's name as the summary's `MlperfModel` writes it (`llama2-70b-99.9`).
    pub benchmark: String,
    /// Pairs of the benchmark the figures are taken over.
    pub pairs: usize,
    /// The lowest ratio among them.
    pub min: Ratio,
    /// Their median ratio (the mean of the middle two for an even count).
    pub median: Ratio,
    /// The highest ratio among them.
    pub max: Ratio,
}

/// The model labels of one benchmark's pairs, when the summary writes more than one label, or a
/// label other than the benchmark's name: the pairs are grouped by benchmark, the tables keep
/// each row's own label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergedLabels {
    /// The benchmark (`MlperfModel`) whose pairs carry the labels.
    pub benchmark: String,
    /// Each label and its number of pairs, by label.
    pub labels: Vec<(String, usize)>,
}

/// Everything the analysis computes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// The round of the results (`version` of every row, such as `v6.1`).
    pub round: String,
    /// The headline counts: rows, divisions, eligible rows, pairs, unmatched rows and duplicates.
    pub counts: Counts,
    /// The fields two rows must share to pair, in the summary's names: the schema's key
    /// fields, then the round's further key fields.
    pub key_fields: Vec<String>,
    /// The scope walk-through: the row count before the first rule and after each ([`SCOPE`]).
    pub steps: Vec<Step>,
    /// Every Server/Offline pair, by Offline row, duplicates left out.
    pub pairs: Vec<Pair>,
    /// Eligible rows left without a pair, by row.
    pub unmatched: Vec<Unmatched>,
    /// Per-benchmark spread of the ratios, ordered by median (lowest first).
    pub benchmarks: Vec<BenchmarkStats>,
    /// Benchmarks whose pairs carry more than one model label.
    pub merged_labels: Vec<MergedLabels>,
    /// Pairs left out as one run submitted twice, with the pair each repeats.
    pub duplicates: Vec<Duplicate>,
    /// Each benchmark's median with and without CPU-only and multi-node systems, and the noise
    /// among systems of one hardware.
    pub robustness: Robustness,
    /// The Interactive runs paired with their Offline runs, analysed the same way.
    pub interactive: InteractiveAnalysis,
    /// How much of the ratio the system sets and how much the benchmark does, and the paired
    /// comparisons of the benchmarks.
    pub split: split::SystemAndBenchmark,
}

impl Analysis {
    /// The pair whose Offline row is `offline_id`, if it is one.
    pub fn pair(&self, offline_id: RowId) -> Option<&Pair> {
        self.pairs
            .binary_search_by_key(&offline_id, |p| p.offline_id)
            .ok()
            .map(|i| &self.pairs[i])
    }
}

/// Rows of the summary that pass every rule of `rules`, with the walk-through: one pass over the
/// rows, each row charged to the first rule it fails; the count after a step is what remains.
pub(crate) fn scope_with(summary: &Summary, rules: &[ScopeRule]) -> (Vec<usize>, Vec<Step>) {
    let mut dropped_at = vec![(0usize, 0usize); rules.len()];
    let mut kept = Vec::with_capacity(summary.rows.len());
    let is_interactive = |row: &SummaryRow| row.scenario() == Some(Scenario::Interactive);
    for (i, row) in summary.rows.iter().enumerate() {
        match rules.iter().position(|rule| !rule.keeps(row)) {
            Some(k) => {
                dropped_at[k].0 += 1;
                dropped_at[k].1 += usize::from(is_interactive(row));
            }
            None => kept.push(i),
        }
    }
    let mut remaining = summary.rows.len();
    let mut interactive = summary.rows.iter().filter(|r| is_interactive(r)).count();
    let mut steps = vec![Step {
        name: "All rows of the summary".into(),
        field: None,
        rows: remaining,
        interactive,
    }];
    for (rule, (dropped, dropped_interactive)) in rules.iter().zip(dropped_at) {
        remaining -= dropped;
        interactive -= dropped_interactive;
        steps.push(Step {
            name: rule.rule.into(),
            // A field the round has no value for: the step keeps every row.
            field: (!summary.absent.contains(&rule.field))
                .then(|| summary.name(rule.field).to_string()),
            rows: remaining,
            interactive,
        });
    }
    (kept, steps)
}

/// Row indices of the eligible rows, with the walk-through of the scope.
pub fn scope(summary: &Summary) -> (Vec<usize>, Vec<Step>) {
    scope_with(summary, SCOPE)
}

/// The range a Result (tokens/s) must lie in: wide beyond any real system (every v6.1 Result
/// lies between about 0.01 and 6,000,000), narrow enough that every ratio of two Results is
/// finite and its percentage prints in at most 18 digits.
pub(crate) const RESULT_RANGE: (f64, f64) = (1e-6, 1e9);

/// The numeric Result of an eligible row: a finite number within [`RESULT_RANGE`], read from
/// the CSV text.
pub(crate) fn result_of(summary: &Summary, row: &SummaryRow) -> Result<f64> {
    let raw = row.raw(Field::Result);
    let bad = |message: String| Error::BadResult {
        file: summary.file.clone(),
        row: row.id.to_string(),
        field: summary.name(Field::Result).to_string(),
        message,
    };
    match raw.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => {
            let (low, high) = RESULT_RANGE;
            if (low..=high).contains(&v) {
                Ok(v)
            } else {
                Err(bad(format!(
                    "{} is outside the accepted range of {low:e} to {high:e} tokens/s (a typo or a unit error)",
                    ratios_base::text::quoted(raw, 200)
                )))
            }
        }
        _ => Err(bad(format!(
            "expected a positive finite number, got {:?}",
            ratios_base::text::excerpt(raw, 200)
        ))),
    }
}

fn text_of(row: &SummaryRow, f: Field) -> String {
    row.raw(f).to_string()
}

/// Runs scope, matching, ratios, the per-benchmark summary, the Interactive pairing and the
/// robustness figures.
pub fn analyse(summary: &Summary) -> Result<Analysis> {
    analyse_with(summary, &[])
}

/// [`analyse`], counting once a result a system submitted on two accuracy targets of one model
/// (`same_model`, the laxer first: see [`Duplicate`]).
pub fn analyse_with(summary: &Summary, same_model: &[[String; 2]]) -> Result<Analysis> {
    let round = summary.round()?.to_string();
    let keys: Vec<Field> = key_fields().collect();
    let paired = pair_rows(summary, SCOPE, &keys, Scenario::Server, same_model, |_| {
        true
    })?;
    let pairs: Vec<Pair> = paired
        .pairs
        .iter()
        .map(|&(orow, srow, offline, server)| Pair {
            offline_id: orow.id,
            server_id: srow.id,
            submission: Submission::of(orow),
            offline_location: text_of(orow, Field::Location),
            server_location: text_of(srow, Field::Location),
            offline,
            server,
            ratio: Ratio(server / offline),
        })
        .collect();
    let (steps, duplicates, unmatched) = (paired.steps, paired.duplicates, paired.unmatched);
    let rows = &summary.rows;
    let division = |d: &'static str| rows.iter().filter(move |r| r.is_text(Field::Division, d));
    let counts = Counts {
        rows: rows.len(),
        closed: division("closed").count(),
        open: division("open").count(),
        eligible: paired.eligible.len(),
        pairs: pairs.len(),
        unmatched: unmatched.len(),
        over_100: pairs.iter().filter(|p| p.ratio.0 > 1.0).count(),
        duplicates: duplicates.len(),
    };
    let interactive = interactive::analyse(summary, &pairs, same_model)?;
    let benchmarks = by_benchmark(
        pairs
            .iter()
            .map(|p| (p.submission.benchmark.as_str(), p.ratio)),
    );
    let order: Vec<String> = benchmarks.iter().map(|b| b.benchmark.clone()).collect();
    Ok(Analysis {
        round,
        counts,
        key_fields: key_names(summary, &keys),
        steps,
        split: split::system_and_benchmark(&pairs, &order),
        benchmarks,
        merged_labels: merged_labels(&pairs),
        duplicates,
        robustness: robustness::robustness(&pairs),
        pairs,
        unmatched,
        interactive,
    })
}

/// The names of the key fields `keys` as the summary writes them (those it has no value for
/// left out: they are empty in every row), then its further key fields.
pub(crate) fn key_names(summary: &Summary, keys: &[Field]) -> Vec<String> {
    keys.iter()
        .filter(|f| !summary.absent.contains(f))
        .map(|&f| summary.name(f).to_string())
        .chain(summary.extra_names.iter().cloned())
        .collect()
}

/// The results folder of `row`: its division, organisation, platform and model.
fn folder_of(row: &SummaryRow) -> [&str; 4] {
    [
        Field::Division,
        Field::Organization,
        Field::Platform,
        Field::Model,
    ]
    .map(|f| row.raw(f))
}

/// `rows[i]` as an unmatched row, with the other rows of its results folder (`folders`).
fn unmatched_row(
    rows: &[SummaryRow],
    folders: &BTreeMap<[&str; 4], Vec<usize>>,
    i: usize,
    scenario: Scenario,
    reason: UnmatchedReason,
) -> Unmatched {
    let row = &rows[i];
    let folder = folders.get(&folder_of(row)).map_or(&[][..], Vec::as_slice);
    let siblings = folder
        .iter()
        .filter(|&&j| j != i)
        .filter_map(|&j| {
            Some(Sibling {
                id: rows[j].id,
                scenario: rows[j].scenario()?,
            })
        })
        .collect();
    Unmatched {
        id: row.id,
        scenario,
        organization: text_of(row, Field::Organization),
        system_name: text_of(row, Field::SystemName),
        model: text_of(row, Field::Model),
        reason,
        siblings,
    }
}

/// The median of sorted, non-empty `v`.
pub(crate) fn median_of_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Each value of `items` once, in order.
pub(crate) fn sorted_distinct<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    items
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The organisations of `submissions`, sorted, each once.
pub(crate) fn organizations<'a>(submissions: impl Iterator<Item = &'a Submission>) -> Vec<String> {
    sorted_distinct(submissions.map(|s| s.organization.clone()))
}

/// The least and the most of `values` (infinite when there are none).
pub fn range(values: impl Iterator<Item = f64> + Clone) -> [f64; 2] {
    [
        values.clone().fold(f64::INFINITY, f64::min),
        values.fold(f64::NEG_INFINITY, f64::max),
    ]
}

/// The name the most of `names` spell, the first in sorted order on a tie.
pub fn most_spelled<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut spellings: std::collections::BTreeMap<&str, usize> = Default::default();
    for name in names {
        *spellings.entry(name).or_default() += 1;
    }
    let most = spellings.values().copied().max().unwrap_or(0);
    spellings
        .into_iter()
        .find(|&(_, n)| n == most)
        .map(|(name, _)| name)
}

/// The median of `v`, or `None` when it is empty.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(median_of_sorted(&v))
}

/// Per-benchmark spread of ratios, ordered by median (lowest first), then by name.
pub(crate) fn by_benchmark<'a>(
    ratios: impl Iterator<Item = (&'a str, Ratio)>,
) -> Vec<BenchmarkStats> {
    let mut groups: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    for (b, r) in ratios {
        groups.entry(b).or_default().push(r.0);
    }
    let mut stats: Vec<BenchmarkStats> = groups
        .into_iter()
        .map(|(b, mut v)| {
            v.sort_by(f64::total_cmp);
            BenchmarkStats {
                benchmark: b.to_string(),
                pairs: v.len(),
                min: Ratio(v[0]),
                median: Ratio(median_of_sorted(&v)),
                max: Ratio(v[v.len() - 1]),
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

/// The benchmarks whose pairs carry more than one model label, or a label other than the
/// benchmark's own name, with each label's count of pairs.
fn merged_labels(pairs: &[Pair]) -> Vec<MergedLabels> {
    use std::collections::BTreeMap;
    let mut by: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for p in pairs {
        *by.entry(&p.submission.benchmark)
            .or_default()
            .entry(&p.submission.model)
            .or_default() += 1;
    }
    by.into_iter()
        .filter(|(b, labels)| labels.len() > 1 || !labels.contains_key(b))
        .map(|(b, labels)| MergedLabels {
            benchmark: b.to_string(),
            labels: labels
                .into_iter()
                .map(|(l, n)| (l.to_string(), n))
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_prints_as_the_percentage_it_is() {
        use ratios_base::number::percent;
        // Joined to `%` by a no-break space.
        assert_eq!(percent(Ratio(0.853640904)), "85.36\u{a0}%");
        assert_eq!(percent(Ratio(1.0172490073673766)), "101.72\u{a0}%");
        assert_eq!(format!("{:.2} %", Ratio(0.853640904).percent()), "85.36 %");
    }
}
