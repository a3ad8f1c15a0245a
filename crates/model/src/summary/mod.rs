//! Load a round's summary into typed rows of the schema's 31 fields.
//!
//! v6.1's `summary.csv` and `summary.json` describe the same 31-field rows. Each cell keeps the raw
//! CSV string and the typed value of the JSON file; the loader refuses any disagreement between
//! the two, naming the row ID, the field and both values. A round whose summary is one JSON array
//! in another schema (v5.1's) is read through its declaration in `data/rounds.json`
//! ([`json_array`]); [`load_round`] reads either, as the round declares.

pub mod json_array;

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Serialize;

use ratios_base::error::{Disagreement, Error, Result};
use ratios_base::text::excerpt;

/// Characters of a value quoted in an error line.
const EXCERPT: usize = 200;

macro_rules! fields {
    ($($(#[$doc:meta])* $variant:ident => $name:literal),+ $(,)?) => {
        /// A column of the results summary, in file order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Field { $($(#[$doc])* $variant),+ }

        impl Field {
            /// Every field, in the order both files use.
            pub const ALL: &'static [Field] = &[$(Field::$variant),+];

            /// The column name as written in the files.
            pub fn name(self) -> &'static str {
                match self { $(Field::$variant => $name),+ }
            }
        }
    };
}

fields! {
    /// The submitting organisation (`NVIDIA`).
    Organization => "Organization",
    /// Whether the system is `available`, in `preview` or `rdi` (research, development or
    /// internal); the article keeps `available`.
    Availability => "Availability",
    /// The division, `closed` or `open`; the article keeps `closed`.
    Division => "Division",
    /// The system category, `datacenter` or `edge`; the article keeps `datacenter`.
    SystemType => "SystemType",
    /// The system's name as the submitter gives it, which the article shows.
    SystemName => "SystemName",
    /// The system's results folder in the round's tree (`B300-SXM-270GBx8_TRT`).
    Platform => "Platform",
    /// The model label the submitter wrote (`wan-2.2-t2v-a14b`), which may differ from the
    /// benchmark's name.
    Model => "Model",
    /// The benchmark the result counts under (`llama2-70b-99.9`, `text_to_video`), by which the
    /// analysis groups the pairs.
    MlperfModel => "MlperfModel",
    /// The run's scenario as written (`Offline`, `Server`, `Interactive`, `SingleStream`, ...); the
    /// analysis compares the first three ([`Scenario`]).
    Scenario => "Scenario",
    /// The run's result in the row's `Units` (tokens per second for the article's rows); the
    /// analysis reads the CSV's full-precision text.
    Result => "Result",
    /// The accuracy the run reached, as `NAME: value` pairs (`ROUGE1: 44.4`).
    Accuracy => "Accuracy",
    /// How many nodes the system has.
    NumberOfNodes => "number_of_nodes",
    /// The host processor's model name (`AMD EPYC 9575F`).
    HostProcessorModelName => "host_processor_model_name",
    /// How many host processors each node holds.
    HostProcessorsPerNode => "host_processors_per_node",
    /// The host processor's core count, as the system description gives it.
    HostProcessorCoreCount => "host_processor_core_count",
    /// The accelerator's model name (`NVIDIA B300-SXM-270GB`); null (`N/A`) for a system without
    /// accelerators.
    AcceleratorModelName => "accelerator_model_name",
    /// How many accelerators each node holds; 0 for a CPU-only system.
    AcceleratorsPerNode => "accelerators_per_node",
    /// The accelerators of all nodes together; 0 for a CPU-only system.
    TotalAccelerators => "total_accelerators",
    /// The run's folder in the round's results tree
    /// (`./closed/<org>/results/<system>/<benchmark>/<scenario>/performance/run_1` in v6.1), where
    /// its logs lie.
    Location => "Location",
    /// The software the submitter lists, separated by commas (`TensorRT 10.14, CUDA 13.1`).
    Framework => "framework",
    /// The operating system the system ran (`Ubuntu 24.04`).
    OperatingSystem => "operating_system",
    /// The submitter's free-text notes on the system (`B300 TGP 1100W`).
    Notes => "notes",
    /// A second division column, `closed` or `open`, equal to `Division` on every v6.1 row.
    Compliance => "compliance",
    /// The error count the summary records for the result; the article keeps 0.
    Errors => "errors",
    /// The MLPerf round the row belongs to (`v6.1`).
    Version => "version",
    /// 1 when the row's scenario is not the one its LoadGen log records (every Interactive row,
    /// logged as Server, and some others), else 0.
    Inferred => "inferred",
    /// Whether the result comes with power measurements; the article keeps `False`.
    HasPower => "has_power",
    /// The unit of `Result` (`Tokens/s`, `Samples/s`, `Queries/s`); the article keeps `Tokens/s`.
    Units => "Units",
    /// The numeric formats of the model's weights (`fp4`, `fp8`).
    WeightDataTypes => "weight_data_types",
    /// The system's design power in watts, where given; the article keeps rows where it is null.
    DesignPowerWatts => "design_power_watts",
    /// An identifier column that every v6.1 row leaves empty.
    PrivateId => "PrivateID",
}

/// The schema's field names, in order (what `data/rounds.json` places for each round).
pub fn schema_names() -> Vec<&'static str> {
    Field::ALL.iter().map(|f| f.name()).collect()
}

/// Number of columns in both summary files.
pub(crate) const FIELD_COUNT: usize = 31;

/// CSV spellings that stand for a JSON `null` (all seen in the real v6.1 files).
pub(crate) const MISSING_SPELLINGS: &[&str] = &["", "None", "N/A"];

/// Largest field accepted, in bytes (the real files' largest is a few hundred bytes).
pub(crate) const MAX_FIELD_BYTES: usize = 1 << 20;

/// Decimal places the JSON file keeps for non-integer numbers (the CSV keeps more).
pub(crate) const JSON_DECIMALS: i32 = 10;

/// The ID of a row: its JSON object key, equal to its 0-based position in the CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(into = "String")]
pub struct RowId(pub u32);

impl fmt::Display for RowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<RowId> for String {
    fn from(id: RowId) -> String {
        id.to_string()
    }
}

/// The JSON file's typed value of a cell. A JSON string is always equal to the raw CSV text, so
/// `Text` carries no copy of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Typed {
    /// JSON `null`; the CSV spells it empty, `None` or `N/A`.
    Null,
    /// A JSON boolean; the CSV spells it `True` or `False`.
    Bool(bool),
    /// A JSON integer, which the CSV writes as the same whole number.
    Int(i64),
    /// A non-integer number, stored as its IEEE bits so the value can key a hash map.
    Float(u64),
    /// A JSON string, equal to the cell's raw CSV text.
    Text,
}

/// The scenario of a result row or a LoadGen log, where the analysis compares it. Interactive
/// runs are rows of their own in the summary; LoadGen logs them as Server runs with tighter
/// latency limits, so a log's scenario is only ever Offline or Server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Scenario {
    /// LoadGen sends every sample at the start; the result is the throughput with no latency limit.
    Offline,
    /// Queries arrive at random times at the rate the submitter sets, and the p99 latencies must
    /// stay below the benchmark's limits.
    Server,
    /// A Server run under the benchmark's tighter Interactive latency limits, a summary row of its
    /// own.
    Interactive,
}

impl Scenario {
    /// The scenario named exactly `text` (`Offline`, `Server` or `Interactive`), else `None`.
    pub fn parse(text: &str) -> Option<Scenario> {
        [Scenario::Offline, Scenario::Server, Scenario::Interactive]
            .into_iter()
            .find(|s| s.as_str() == text)
    }

    /// The scenario's name as the summary and the LoadGen logs write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scenario::Offline => "Offline",
            Scenario::Server => "Server",
            Scenario::Interactive => "Interactive",
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One cell: the raw CSV string and the JSON file's typed value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell<'a> {
    /// The cell's text in the CSV file, as written.
    pub raw: &'a str,
    /// The cell's value in the JSON file; a string is [`Typed::Text`], the same text as `raw`.
    pub typed: Typed,
}

impl Cell<'_> {
    /// The cell as a JSON value (what summary.json holds).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self.typed {
            Typed::Null => Value::Null,
            Typed::Bool(b) => Value::Bool(b),
            Typed::Int(i) => Value::from(i),
            Typed::Float(bits) => Value::from(f64::from_bits(bits)),
            Typed::Text => Value::String(self.raw.to_string()),
        }
    }
}

/// One result row with all 31 cells. The raw texts live in one string with the field ends beside
/// it, so a row is one allocation however many fields it has, and reading a field is one lookup.
/// A round whose summary holds further fields of the pairing key keeps them in `extra`, in the
/// order its declaration lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// The row's ID: its key in `summary.json` and its 0-based place in `summary.csv` (for a
    /// JSON-array round, its place in the array).
    pub id: RowId,
    raw: RawRecord,
    typed: [Typed; FIELD_COUNT],
    extra: Box<[(Box<str>, Typed)]>,
}

/// The 31 raw CSV texts of a row, concatenated, with the end offset of each.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawRecord {
    text: Box<str>,
    ends: [u32; FIELD_COUNT],
}

impl RawRecord {
    /// Packs exactly 31 texts, in the schema's order (the caller checked the count and sizes).
    fn pack<'a, I>(fields: I) -> Self
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        let fields = fields.into_iter();
        let mut text = String::with_capacity(fields.clone().map(str::len).sum());
        let mut ends = [0u32; FIELD_COUNT];
        for (end, field) in ends.iter_mut().zip(fields) {
            text.push_str(field);
            *end = text.len() as u32;
        }
        RawRecord {
            text: text.into_boxed_str(),
            ends,
        }
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        (0..FIELD_COUNT).map(|i| self.get(i))
    }
}

impl SummaryRow {
    /// The cell of field `f`: its raw text and its typed value.
    pub fn cell(&self, f: Field) -> Cell<'_> {
        Cell {
            raw: self.raw(f),
            typed: self.typed(f),
        }
    }

    /// The raw CSV text of field `f`.
    pub fn raw(&self, f: Field) -> &str {
        // The loader checked that every record has FIELD_COUNT fields.
        self.raw.get(f as usize)
    }

    /// The JSON file's typed value of field `f`.
    pub fn typed(&self, f: Field) -> Typed {
        self.typed[f as usize]
    }

    /// The row's scenario when it is one the analysis compares (the JSON value is the string).
    pub fn scenario(&self) -> Option<Scenario> {
        match self.typed(Field::Scenario) {
            Typed::Text => Scenario::parse(self.raw(Field::Scenario)),
            _ => None,
        }
    }

    /// True when the JSON value is the string `s`.
    pub fn is_text(&self, f: Field, s: &str) -> bool {
        self.typed(f) == Typed::Text && self.raw(f) == s
    }

    /// Every cell of the row with its field, in the schema's order.
    pub fn cells(&self) -> impl Iterator<Item = (Field, Cell<'_>)> {
        Field::ALL.iter().map(move |&f| (f, self.cell(f)))
    }

    /// The further key fields of the row's round, raw text and typed value, in the declared
    /// order (none for v6.1).
    pub fn extra(&self) -> &[(Box<str>, Typed)] {
        &self.extra
    }
}

/// A round's summary, loaded and checked.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Every result row, in file order.
    pub rows: Vec<SummaryRow>,
    /// The file errors about a row name (`summary.csv`, or the round's pinned summary).
    pub file: String,
    /// How the round's summary names each field of the schema, in [`Field::ALL`]'s order
    /// (`None` where the round has no such field or derives it).
    pub names: Vec<Option<String>>,
    /// The round's further key fields, in the summary's names, in the order of each row's
    /// [`SummaryRow::extra`].
    pub extra_names: Vec<String>,
    /// The schema's fields the round's summary has no value for (every row empty).
    pub absent: Vec<Field>,
}

impl Summary {
    /// How the round's summary names `field`, or the schema's name where it has none.
    pub fn name(&self, field: Field) -> &str {
        self.names
            .get(field as usize)
            .and_then(|n| n.as_deref())
            .unwrap_or(field.name())
    }

    /// The round every row belongs to (field `version`, such as `v6.1`): a summary covers one.
    pub fn round(&self) -> Result<&str> {
        let mut rounds = std::collections::BTreeSet::new();
        for row in &self.rows {
            rounds.insert(row.raw(Field::Version));
            if rounds.len() > 3 {
                break;
            }
        }
        match rounds.len() {
            1 => Ok(rounds.into_iter().next().unwrap_or_default()),
            0 => Err(Error::Summary {
                file: self.file.clone(),
                message: "holds no result rows".into(),
            }),
            _ => Err(Error::Summary {
                file: self.file.clone(),
                message: format!(
                    "field `{}`: the rows belong to more than one round ({}); a summary covers one",
                    self.name(Field::Version),
                    rounds
                        .iter()
                        .map(|r| format!("{:?}", excerpt(r, 20)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
        }
    }
}

/// Names used for the two files in error messages.
#[derive(Debug, Clone, Copy)]
pub struct FileNames<'a> {
    /// The CSV file's name (`summary.csv` by default).
    pub csv: &'a str,
    /// The JSON file's name (`summary.json` by default).
    pub json: &'a str,
}

impl Default for FileNames<'_> {
    fn default() -> Self {
        FileNames {
            csv: "summary.csv",
            json: "summary.json",
        }
    }
}

/// Parses both files and checks that they hold the same rows, fields and values.
pub fn load(csv_bytes: &[u8], json_bytes: &[u8], names: FileNames<'_>) -> Result<Summary> {
    let csv_rows = parse_csv(csv_bytes, names.csv)?;
    // The schema's own names, with no further key fields.
    let summary = Summary {
        rows: parse_json_against(json_bytes, csv_rows, names)?,
        file: names.csv.into(),
        names: Field::ALL.iter().map(|f| Some(f.name().into())).collect(),
        extra_names: Vec::new(),
        absent: Vec::new(),
    };
    no_space_twins(&summary)?;
    Ok(summary)
}

/// Refuses two rows of one results folder (organisation and `Platform`) whose texts of one
/// field differ only in their spaces (a no-break space for an ASCII one, a space at an end):
/// they print alike, so the article would show one system's two rows as one, and they do not
/// pair. A text with such a space and no twin in its folder is kept as written: v5.1 writes
/// narrow no-break spaces, and two of its systems, in two folders, have names that differ only
/// in a trailing space (the tables name each system's folder).
pub(crate) fn no_space_twins(summary: &Summary) -> Result<()> {
    type Seen<'a> = std::collections::HashMap<(&'a str, &'a str, Field, String), (&'a str, RowId)>;
    let mut seen: Seen = Default::default();
    for row in &summary.rows {
        let folder = (row.raw(Field::Organization), row.raw(Field::Platform));
        for &field in Field::ALL {
            if row.typed(field) != Typed::Text {
                continue;
            }
            let text = row.raw(field);
            let folded = ratios_base::text::spaces_folded(text);
            let key = (folder.0, folder.1, field, folded);
            let (other, id) = *seen.entry(key).or_insert((text, row.id));
            if other != text {
                return Err(Error::parse(
                    &summary.file,
                    format!("rows {id} and {}, field `{}`", row.id, summary.name(field)),
                    format!(
                        "{} and {} differ only in their spaces (a kind of space, or one at an end); they print alike, so they are refused",
                        ratios_base::text::quoted(other, EXCERPT),
                        ratios_base::text::quoted(text, EXCERPT)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The summary of the round `spec` declares, from its pinned inputs, in the format it declares;
/// a row of another round is refused.
pub fn load_round(
    spec: &crate::project::rounds::RoundSpec,
    inputs: &crate::inputs::Inputs,
) -> Result<Summary> {
    use crate::project::rounds::SummarySpec;
    let kind = |input: &crate::inputs::VerifiedInput, kind: crate::inputs::InputKind| {
        if input.pin.kind == kind {
            Ok(())
        } else {
            Err(Error::Config {
                file: crate::project::rounds::ROUNDS_PATH.into(),
                message: format!(
                    "round {}: its summary {} is pinned as {:?}, not {kind:?}",
                    spec.round,
                    ratios_base::text::quoted(&input.pin.name, 200),
                    input.pin.kind
                ),
            })
        }
    };
    let summary = match &spec.summary {
        SummarySpec::CsvJson { csv, json } => {
            let (csv, json) = (inputs.named(csv)?, inputs.named(json)?);
            kind(csv, crate::inputs::InputKind::SummaryCsv)?;
            kind(json, crate::inputs::InputKind::SummaryJson)?;
            if spec.missing != MISSING_SPELLINGS {
                return Err(Error::Config {
                    file: crate::project::rounds::ROUNDS_PATH.into(),
                    message: format!(
                        "round {}: a csv-json summary spells an empty value {MISSING_SPELLINGS:?}, as v6.1's files do; write that as its `missing`",
                        spec.round
                    ),
                });
            }
            load(
                &csv.bytes,
                &json.bytes,
                FileNames {
                    csv: &csv.pin.name,
                    json: &json.pin.name,
                },
            )?
        }
        SummarySpec::JsonArray { file } => {
            let input = inputs.named(file)?;
            kind(input, crate::inputs::InputKind::SummaryArray)?;
            json_array::load(spec, &input.bytes, &input.pin.name)?
        }
    };
    let round = summary.round()?;
    if round != spec.round {
        return Err(Error::Summary {
            file: summary.file.clone(),
            message: format!(
                "field `{}`: its rows are of round {}, but {} declares it as round {}",
                summary.name(Field::Version),
                ratios_base::text::quoted(round, 20),
                crate::project::rounds::ROUNDS_PATH,
                ratios_base::text::quoted(&spec.round, 20)
            ),
        });
    }
    Ok(summary)
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Reads the CSV into raw records of exactly 31 strings, after checking the header.
fn parse_csv(bytes: &[u8], file: &str) -> Result<Vec<RawRecord>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(strip_bom(bytes));
    let mut records = reader.records();
    let header = records
        .next()
        .ok_or_else(|| Error::parse(file, "line 1", "empty file, expected a header"))?
        .map_err(|e| csv_error(file, &e))?;
    check_header(header.iter(), file, "header")?;
    let mut rows = Vec::new();
    for (i, rec) in records.enumerate() {
        let rec = rec.map_err(|e| csv_error(file, &e))?;
        let line = rec.position().map_or(0, |p| p.line());
        if let Some((f, len)) = Field::ALL
            .iter()
            .zip(rec.iter())
            .map(|(f, v)| (f, v.len()))
            .find(|&(_, len)| len > MAX_FIELD_BYTES)
        {
            return Err(Error::parse(
                file,
                format!("line {line} (row {i})"),
                format!(
                    "field `{}` has {len} bytes; at most {MAX_FIELD_BYTES} are accepted",
                    f.name()
                ),
            ));
        }
        if rec.len() != FIELD_COUNT {
            return Err(Error::parse(
                file,
                format!("line {line} (row {i})"),
                format!("expected {FIELD_COUNT} fields, found {}", rec.len()),
            ));
        }
        rows.push(RawRecord::pack(&rec));
    }
    Ok(rows)
}

fn csv_error(file: &str, e: &csv::Error) -> Error {
    let line = e
        .position()
        .map_or(String::from("?"), |p| p.line().to_string());
    let message = match e.kind() {
        csv::ErrorKind::Utf8 { err, .. } => match Field::ALL.get(err.field()) {
            Some(f) => format!("invalid UTF-8 in field `{}`", f.name()),
            None => format!("invalid UTF-8 in field {}", err.field() + 1),
        },
        _ => e.to_string(),
    };
    Error::parse(file, format!("line {line}"), message)
}

fn check_header<'a>(names: impl Iterator<Item = &'a str>, file: &str, place: &str) -> Result<()> {
    let names: Vec<&str> = names.collect();
    if names.len() != FIELD_COUNT {
        return Err(Error::parse(
            file,
            place,
            format!("expected {FIELD_COUNT} fields, found {}", names.len()),
        ));
    }
    match names
        .iter()
        .zip(Field::ALL)
        .find(|(got, want)| **got != want.name())
    {
        Some((got, want)) => Err(Error::parse(
            file,
            place,
            format!(
                "expected field `{}`, found `{}`",
                want.name(),
                excerpt(got, EXCERPT)
            ),
        )),
        None => Ok(()),
    }
}

/// One JSON row: its key and its fields in file order.
type JsonRow = (String, Vec<(String, serde_json::Value)>);

/// Reads the JSON object of rows and cross-checks each row against its CSV record as soon as it
/// is parsed, so the JSON values of only one row are in memory at a time.
fn parse_json_against(
    bytes: &[u8],
    csv_rows: Vec<RawRecord>,
    names: FileNames<'_>,
) -> Result<Vec<SummaryRow>> {
    struct Rows<'c, 'n> {
        csv: std::vec::IntoIter<RawRecord>,
        csv_len: usize,
        names: FileNames<'n>,
        failure: &'c mut Option<Error>,
    }
    impl<'de> Visitor<'de> for Rows<'_, '_> {
        type Value = Vec<SummaryRow>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object of rows keyed by row ID")
        }
        fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
            use serde::de::Error as _;
            let mut rows = Vec::with_capacity(self.csv_len);
            while let Some(key) = map.next_key::<String>()? {
                let fields = map.next_value_seed(Fields)?;
                let index = rows.len();
                let checked = match self.csv.next() {
                    Some(raw) => cross_check(index, raw, (key, fields), self.names),
                    None => Err(Error::parse(
                        self.names.json,
                        format!("row {index}"),
                        format!("{} has only {} rows", self.names.csv, self.csv_len),
                    )),
                };
                match checked {
                    Ok(row) => rows.push(row),
                    Err(e) => {
                        *self.failure = Some(e);
                        return Err(A::Error::custom("cross-check failed"));
                    }
                }
            }
            if rows.len() != self.csv_len {
                *self.failure = Some(Error::parse(
                    self.names.json,
                    "top level",
                    format!(
                        "{} rows, but {} has {} rows",
                        rows.len(),
                        self.names.csv,
                        self.csv_len
                    ),
                ));
                return Err(A::Error::custom("row count differs"));
            }
            Ok(rows)
        }
    }
    struct Fields;
    impl<'de> DeserializeSeed<'de> for Fields {
        type Value = Vec<(String, serde_json::Value)>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Fields {
        type Value = Vec<(String, serde_json::Value)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object of fields")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut fields = Vec::with_capacity(FIELD_COUNT);
            while let Some(entry) = map.next_entry()? {
                fields.push(entry);
            }
            Ok(fields)
        }
    }
    let file = names.json;
    let text = std::str::from_utf8(strip_bom(bytes))
        .map_err(|e| Error::parse(file, format!("byte {}", e.valid_up_to()), "invalid UTF-8"))?;
    let mut failure = None;
    let csv_len = csv_rows.len();
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = de
        .deserialize_map(Rows {
            csv: csv_rows.into_iter(),
            csv_len,
            names,
            failure: &mut failure,
        })
        .and_then(|r| de.end().map(|()| r));
    if let Some(e) = failure {
        return Err(e);
    }
    parsed.map_err(|e| {
        Error::parse(
            file,
            format!("line {} column {}", e.line(), e.column()),
            json_message(&e),
        )
    })
}

/// What serde_json says of `e`, without the " at line L column C" it appends: the errors put the
/// location in front.
fn json_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    message
        .rfind(" at line ")
        .map_or(message.as_str(), |i| &message[..i])
        .to_string()
}

fn cross_check(
    index: usize,
    raw: RawRecord,
    (key, fields): JsonRow,
    names: FileNames<'_>,
) -> Result<SummaryRow> {
    let id = RowId(index as u32);
    if key != id.to_string() {
        return Err(Error::parse(
            names.json,
            format!("row {index}"),
            format!(
                "expected row ID \"{id}\" (the CSV order), found {:?}",
                excerpt(&key, EXCERPT)
            ),
        ));
    }
    check_header(
        fields.iter().map(|(k, _)| k.as_str()),
        names.json,
        &format!("row {id}"),
    )?;
    let mut typed = [Typed::Null; FIELD_COUNT];
    for (((slot, text), (_, json)), &field) in typed
        .iter_mut()
        .zip(raw.iter())
        .zip(&fields)
        .zip(Field::ALL)
    {
        check_text(names.csv, id, field.name(), text)?;
        *slot = agree(text, json).ok_or_else(|| {
            let json_text = json.as_str().map(str::to_string);
            Error::Disagree(Box::new(Disagreement {
                csv_file: names.csv.to_string(),
                json_file: names.json.to_string(),
                row: id.to_string(),
                field: field.name().to_string(),
                csv: ratios_base::text::quoted(text, EXCERPT),
                json: match &json_text {
                    Some(s) => ratios_base::text::quoted(s, EXCERPT),
                    None => ratios_base::text::escaped(&excerpt(&json.to_string(), EXCERPT)),
                },
                hint: json_text
                    .map(|s| invisible_difference(text, &s))
                    .unwrap_or_default(),
            }))
        })?;
    }
    Ok(SummaryRow {
        id,
        raw,
        typed,
        extra: Box::new([]),
    })
}

/// A cell's text, unless it holds what the article must not show: a control character, a
/// bidirectional control, or letters of one script dressed as another's.
pub(crate) fn check_text(file: &str, id: RowId, field: &str, text: &str) -> Result<()> {
    let refuse = |message: String| {
        Err(Error::parse(
            file,
            format!("row {id}, field `{field}`"),
            message,
        ))
    };
    let first = |refused: fn(char) -> bool| text.chars().enumerate().find(|&(_, c)| refused(c));
    if let Some((at, c)) = first(is_refused_control) {
        return refuse(format!(
            "control character U+{:04X} at character {at}; control characters are refused (they would reach the article and pairs.csv)",
            c as u32
        ));
    }
    if let Some((at, c)) = first(is_bidi_control) {
        return refuse(format!(
            "bidirectional control U+{:04X} at character {at}; it would reorder what the article and pairs.csv show, so it is refused",
            c as u32
        ));
    }
    ratios_base::text::lookalike(text).map_or(Ok(()), refuse)
}

/// The typed value of a cell when the CSV text and the JSON value agree, else `None`.
fn agree(raw: &str, json: &serde_json::Value) -> Option<Typed> {
    use serde_json::Value;
    match json {
        Value::Null => MISSING_SPELLINGS.contains(&raw).then_some(Typed::Null),
        Value::Bool(b) => (raw == if *b { "True" } else { "False" }).then_some(Typed::Bool(*b)),
        Value::String(s) => (s == raw).then_some(Typed::Text),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                (raw.parse::<i64>().ok() == Some(i)).then_some(Typed::Int(i))
            } else {
                let j = n.as_f64()?;
                let c: f64 = raw.trim().parse().ok()?;
                (c.is_finite() && same_to_json_precision(c, j)).then_some(Typed::Float(j.to_bits()))
            }
        }
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// The bidirectional controls, which reorder how the text around them is shown.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// Why two texts that differ would print alike: one Unicode normalisation apart (NFC and NFD),
/// or an invisible character apart (a zero-width space). Empty otherwise.
fn invisible_difference(a: &str, b: &str) -> String {
    let nfc = ratios_base::text::nfc;
    let visible = |s: &str| -> String {
        s.chars()
            .filter(|&c| !ratios_base::text::is_invisible(c))
            .collect()
    };
    if a != b && nfc(a) == nfc(b) {
        " (they differ only in Unicode normalisation, NFC against NFD: write both alike)".into()
    } else if a != b && visible(a) == visible(b) {
        " (they differ only in an invisible character, shown as \\u{...}: remove it)".into()
    } else {
        String::new()
    }
}

/// Control characters other than tab, line feed and carriage return (which are whitespace in
/// HTML and quoted in CSV) have no place in a results table and are refused at load.
pub(crate) fn is_refused_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// True when `csv` rounds to `json` at the JSON file's precision: half a unit of the 10th decimal,
/// plus a few units in the last place for values whose 10th decimal lies beyond double precision.
pub(crate) fn same_to_json_precision(csv: f64, json: f64) -> bool {
    let half_unit = 0.5 * 10f64.powi(-JSON_DECIMALS);
    let ulps = 4.0 * f64::EPSILON * csv.abs().max(json.abs());
    (csv - json).abs() <= half_unit + ulps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_table_has_31_unique_names() {
        assert_eq!(Field::ALL.len(), FIELD_COUNT);
        let mut names: Vec<_> = Field::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FIELD_COUNT);
    }

    #[test]
    fn numbers_agree_to_ten_decimals_only() {
        assert!(same_to_json_precision(3807.66351136147, 3807.6635113615));
        assert!(same_to_json_precision(0.06127496829802798, 0.0612749683));
        assert!(!same_to_json_precision(3807.66351136147, 3807.6635113614));
        assert!(!same_to_json_precision(100.5, 100.6));
    }

    #[test]
    fn missing_spellings_match_null_but_text_must_be_exact() {
        use serde_json::json;
        for s in MISSING_SPELLINGS {
            assert_eq!(agree(s, &json!(null)), Some(Typed::Null));
        }
        assert_eq!(agree("null", &json!(null)), None);
        assert_eq!(agree("True", &json!(true)), Some(Typed::Bool(true)));
        assert_eq!(agree("true", &json!(true)), None);
        assert_eq!(agree("8", &json!(8)), Some(Typed::Int(8)));
        assert_eq!(agree("8.0", &json!(8)), None);
        assert_eq!(agree("abc", &json!(1.5)), None);
        assert_eq!(agree("inf", &json!(1.5)), None);
        assert_eq!(agree("x", &json!(["x"])), None);
    }
}
