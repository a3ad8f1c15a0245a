//! The rounds the article compares, read at run time from `data/rounds.json`: for each round, the
//! pinned summary it reads (by input name) in one of the formats the loader knows, how each field
//! of the article's schema (the fields of the first round, v6.1's summary) is read from that
//! summary, which further fields belong to the pairing key and which the key leaves out, the
//! spellings of an empty value, where the round's LoadGen logs lie, and which benchmarks are one
//! model at two accuracy targets. Adding a round is pinning its files and declaring it here; the
//! loader refuses a declaration that names a field the summary lacks, and a summary field the
//! declaration does not place.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use ratios_base::error::{Error, Result};
use ratios_base::text::excerpt;

/// Where the rounds are declared in the project.
pub const ROUNDS_PATH: &str = "data/rounds.json";

/// The file's top level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rounds {
    /// A paragraph on what a declaration holds, for the reader of the JSON file; not used by the
    /// build.
    pub about: String,
    /// The article's round first, then the rounds it is compared with.
    pub rounds: Vec<RoundSpec>,
}

/// The summary of a round: its format and the pinned inputs (by name) it is read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SummarySpec {
    /// A CSV file and a JSON object of the same rows keyed by row id, cross-checked cell by
    /// cell (v6.1's `summary.csv` and `summary.json`). Their columns are the schema's fields,
    /// in its order, under the names `fields` gives them.
    CsvJson {
        /// The pinned input name of the CSV file (`summary.csv`).
        csv: String,
        /// The pinned input name of the JSON file (`summary.json`).
        json: String,
    },
    /// One JSON array of row objects (v5.1's `summary_results.json`); a row is named by its
    /// 0-based place in the array.
    JsonArray {
        /// The pinned input name of the array's file (`v5.1 summary_results.json`).
        file: String,
    },
}

impl SummarySpec {
    /// The pinned inputs the summary is read from.
    pub fn inputs(&self) -> Vec<&str> {
        match self {
            SummarySpec::CsvJson { csv, json } => vec![csv, json],
            SummarySpec::JsonArray { file } => vec![file],
        }
    }
}

/// How one field of the schema is read from a round's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FieldSource {
    /// The summary's field of this name.
    Field(String),
    /// The product of two other fields of the schema, both whole numbers (v5.1 has no
    /// `total_accelerators`; the checker computes it as nodes × accelerators per node).
    Product {
        /// The schema names of the two fields multiplied (`number_of_nodes`,
        /// `accelerators_per_node`).
        product: [String; 2],
    },
    /// The round's summary has no such field (`null` in the file): every row holds an empty
    /// value.
    Absent(()),
}

/// Where a round's LoadGen summary logs lie: the name of the results repository whose copies
/// are pinned (any owner's copy of `inference_results_v6.1` will do), and each row's log path in
/// it, `{location}` standing for the row's `Location` without a leading `./`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSpec {
    /// The name of the results repository whose pinned copies hold the logs
    /// (`inference_results_v6.1`), whatever its owner.
    pub tree: String,
    /// Each row's log path in that repository, `{location}` standing for the row's `Location`
    /// without its leading `./`.
    pub path: String,
}

/// One round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundSpec {
    /// The round's name, as its rows' `version` field writes it (`v6.1`).
    pub round: String,
    /// The round's summary: its format and the pinned inputs it is read from.
    pub summary: SummarySpec,
    /// Every field of the schema, by its schema name, and how the round's summary gives it.
    pub fields: BTreeMap<String, FieldSource>,
    /// Fields of the round's summary beyond the schema that still describe the system, and so
    /// belong to the pairing key (v5.1's system `ID`, for example), in the summary's names.
    #[serde(default)]
    pub extra_key_fields: Vec<String>,
    /// Fields of the round's summary the analysis leaves out, with the reason: measurements
    /// that differ between the Offline and the Server row (v5.1's power figures).
    #[serde(default)]
    pub ignored_fields: BTreeMap<String, String>,
    /// The texts that stand for an empty value (the JSON `null` of v6.1, `""` in v5.1).
    pub missing: Vec<String>,
    /// Schema fields read as 0 where they and another field are both empty: v5.1 leaves the
    /// accelerator count of a system without accelerators empty, where v6.1 writes 0.
    #[serde(default)]
    pub zero_when_missing: BTreeMap<String, String>,
    /// Where the round's LoadGen summary logs lie.
    pub logs: LogSpec,
    /// Benchmarks that are one model at two accuracy targets, the laxer first: a system's pair
    /// on the laxer one with the same Offline and Server results as its pair on the stricter one
    /// is one run submitted twice, and counts once, under the stricter.
    #[serde(default)]
    pub same_model: Vec<[String; 2]>,
}

impl RoundSpec {
    /// The summary's name for schema field `name`, when the round reads it from a field.
    pub fn source_name(&self, name: &str) -> Option<&str> {
        match self.fields.get(name) {
            Some(FieldSource::Field(f)) => Some(f),
            _ => None,
        }
    }
}

fn err(message: String) -> Error {
    Error::Config {
        file: ROUNDS_PATH.into(),
        message,
    }
}

impl Rounds {
    /// Parses the declarations: at least one round, each declared once.
    pub fn parse(file: &str, text: &str) -> Result<Rounds> {
        let rounds: Rounds = serde_json::from_str(text).map_err(|e| Error::Config {
            file: file.into(),
            message: e.to_string(),
        })?;
        if rounds.rounds.is_empty() {
            return Err(err("declares no round; the first is the article's".into()));
        }
        let mut names = BTreeSet::new();
        for r in &rounds.rounds {
            if !names.insert(r.round.as_str()) {
                return Err(err(format!(
                    "round {} is declared twice",
                    ratios_base::text::quoted(&r.round, 40)
                )));
            }
        }
        Ok(rounds)
    }

    /// Checks every declaration against the schema's field names `schema`.
    pub fn check(&self, schema: &[&str]) -> Result<()> {
        self.rounds.iter().try_for_each(|r| r.check(schema))
    }

    /// The article's round.
    pub fn main(&self) -> &RoundSpec {
        &self.rounds[0]
    }
}

impl RoundSpec {
    /// Every schema field placed once, products of placed fields, and no summary field both
    /// placed and listed as extra or ignored.
    fn check(&self, schema: &[&str]) -> Result<()> {
        let at = |message: String| err(format!("round {}: {message}", excerpt(&self.round, 40)));
        for name in schema {
            if !self.fields.contains_key(*name) {
                return Err(at(format!(
                    "fields: the schema's field `{name}` is not placed (write the summary's field that gives it, a product, or null where the round has none)"
                )));
            }
        }
        if let Some(extra) = self.fields.keys().find(|k| !schema.contains(&k.as_str())) {
            return Err(at(format!(
                "fields: `{}` is not a field of the schema",
                excerpt(extra, 80)
            )));
        }
        let mut sources: BTreeSet<&str> = BTreeSet::new();
        for (name, source) in &self.fields {
            match source {
                FieldSource::Field(f) => {
                    if !sources.insert(f) {
                        return Err(at(format!(
                            "fields: the summary's field `{}` gives two fields of the schema",
                            excerpt(f, 80)
                        )));
                    }
                }
                FieldSource::Product { product } => {
                    for p in product {
                        if self.source_name(p).is_none() {
                            return Err(at(format!(
                                "fields: `{name}` is the product of `{}`, which the round does not read from its summary",
                                excerpt(p, 80)
                            )));
                        }
                    }
                }
                FieldSource::Absent(_) => {}
            }
        }
        for f in self
            .extra_key_fields
            .iter()
            .chain(self.ignored_fields.keys())
        {
            if sources.contains(f.as_str()) {
                return Err(at(format!(
                    "the summary's field `{}` is both placed in the schema and listed as extra or ignored",
                    excerpt(f, 80)
                )));
            }
        }
        if let Some(f) = self
            .extra_key_fields
            .iter()
            .find(|f| self.ignored_fields.contains_key(*f))
        {
            return Err(at(format!(
                "`{}` is listed both as a key field and as ignored",
                excerpt(f, 80)
            )));
        }
        let mut zero_when_missing = self.zero_when_missing.iter().flat_map(|(f, w)| [f, w]);
        if let Some(f) = zero_when_missing.find(|f| !schema.contains(&f.as_str())) {
            return Err(at(format!(
                "zero_when_missing: `{}` is not a field of the schema",
                excerpt(f, 80)
            )));
        }
        if let SummarySpec::CsvJson { .. } = self.summary {
            // Both files' columns are the schema's, in its order, under its names.
            if let Some((name, _)) = self
                .fields
                .iter()
                .find(|(name, s)| **s != FieldSource::Field(name.to_string()))
            {
                return Err(at(format!(
                    "fields: a csv-json summary holds every field of the schema under the schema's own name, so `{}` must be read from `{}`; renamed, derived and absent fields need a json-array summary",
                    excerpt(name, 80),
                    excerpt(name, 80)
                )));
            }
        }
        if !self.logs.path.contains("{location}") {
            return Err(at(format!(
                "logs.path {} must hold {{location}}, where each row's Location goes",
                ratios_base::text::quoted(&self.logs.path, 200)
            )));
        }
        Ok(())
    }
}
