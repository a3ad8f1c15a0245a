//! A round's summary as one JSON array of row objects (v5.1's `summary_results.json`), read
//! through the round's declaration in `data/rounds.json`: each field of the schema from the
//! summary's field the declaration places there, a product of two of them, or empty where the
//! round has none; the further key fields beside them; the ignored fields left out. A row names
//! every field the declaration places, and no field it does not: a renamed field, a missing one
//! or a new one is refused, naming the row and the field, so the declaration can never silently
//! read the wrong column. A row is named by its 0-based place in the array.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::{check_text, Field, RawRecord, RowId, Summary, SummaryRow, Typed, FIELD_COUNT};
use crate::project::rounds::{FieldSource, RoundSpec, ROUNDS_PATH};
use ratios_base::error::{Error, Result};
use ratios_base::text::{excerpt, quoted};

/// Characters of a value quoted in an error line.
const EXCERPT: usize = 200;

/// Reads `bytes`, the pinned summary `file` of the round `spec` declares.
pub fn load(spec: &RoundSpec, bytes: &[u8], file: &str) -> Result<Summary> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
        .map_err(|e| Error::parse(file, format!("byte {}", e.valid_up_to()), "invalid UTF-8"))?;
    let rows: Vec<Value> = serde_json::from_str(text).map_err(|e| {
        Error::parse(
            file,
            format!("line {} column {}", e.line(), e.column().max(1)),
            format!(
                "{} (expected one array of row objects)",
                super::json_message(&e)
            ),
        )
    })?;
    let reader = Reader::new(spec, file);
    let mut out = Vec::with_capacity(rows.len());
    // Each row's every text, to find a row that repeats another.
    let mut seen: HashMap<Vec<String>, usize> = HashMap::with_capacity(rows.len());
    for (i, value) in rows.into_iter().enumerate() {
        let id = RowId(u32::try_from(i).map_err(|_| {
            Error::parse(
                file,
                format!("row {i}"),
                "more rows than a summary may hold",
            )
        })?);
        let Value::Object(fields) = value else {
            return Err(Error::parse(
                file,
                format!("row {id}"),
                "is not an object of fields",
            ));
        };
        let row = reader.row(id, &fields)?;
        let texts: Vec<String> = (0..FIELD_COUNT)
            .map(|k| row.raw.get(k).to_string())
            .chain(row.extra.iter().map(|(t, _)| t.to_string()))
            .collect();
        if let Some(first) = seen.insert(texts, i) {
            return Err(Error::parse(
                file,
                format!("row {id}"),
                format!("repeats row {first} field for field; a result counts once"),
            ));
        }
        out.push(row);
    }
    let summary = Summary {
        rows: out,
        file: file.to_string(),
        names: Field::ALL
            .iter()
            .map(|f| spec.source_name(f.name()).map(str::to_string))
            .collect(),
        extra_names: spec.extra_key_fields.clone(),
        absent: Field::ALL
            .iter()
            .copied()
            .filter(|f| matches!(spec.fields.get(f.name()), Some(FieldSource::Absent(_))))
            .collect(),
    };
    super::no_space_twins(&summary)?;
    Ok(summary)
}

/// How a row object is read: each of its fields' place.
struct Reader<'a> {
    spec: &'a RoundSpec,
    file: &'a str,
    /// The summary's name of each schema field it reads, by schema field.
    sources: Vec<(Field, &'a FieldSource)>,
    /// Every field a row may hold, and whether it must: its schema field or a further key
    /// field must, an ignored field may.
    known: BTreeMap<&'a str, bool>,
}

impl<'a> Reader<'a> {
    fn new(spec: &'a RoundSpec, file: &'a str) -> Self {
        let sources = Field::ALL
            .iter()
            .filter_map(|&f| spec.fields.get(f.name()).map(|s| (f, s)))
            .collect();
        let mut known = BTreeMap::new();
        for s in spec.fields.values() {
            if let FieldSource::Field(name) = s {
                known.insert(name.as_str(), true);
            }
        }
        for k in &spec.extra_key_fields {
            known.insert(k.as_str(), true);
        }
        for k in spec.ignored_fields.keys() {
            known.insert(k.as_str(), false);
        }
        Reader {
            spec,
            file,
            sources,
            known,
        }
    }

    /// The error of row `id`'s field `field`.
    fn refuse(&self, id: RowId, field: &str, message: impl Into<String>) -> Error {
        Error::parse(
            self.file,
            format!("row {id}, field `{}`", excerpt(field, 80)),
            message,
        )
    }

    /// One row of the array.
    fn row(&self, id: RowId, fields: &serde_json::Map<String, Value>) -> Result<SummaryRow> {
        for (name, required) in &self.known {
            if *required && !fields.contains_key(*name) {
                return Err(self.refuse(
                    id,
                    name,
                    format!(
                        "missing: {ROUNDS_PATH} reads round {}'s rows from this field",
                        self.spec.round
                    ),
                ));
            }
        }
        for name in fields.keys() {
            if !self.known.contains_key(name.as_str()) {
                return Err(self.refuse(
                    id,
                    name,
                    format!(
                        "the round {} does not place this field ({ROUNDS_PATH} neither reads it into the schema nor lists it as a key field or ignored): a renamed or new field is refused",
                        self.spec.round
                    ),
                ));
            }
        }
        let mut texts: [String; FIELD_COUNT] = Default::default();
        let mut typed = [Typed::Null; FIELD_COUNT];
        for &(field, source) in &self.sources {
            if let FieldSource::Field(name) = source {
                let (text, t) = self.cell(id, name, &fields[name.as_str()])?;
                texts[field as usize] = text;
                typed[field as usize] = t;
            }
        }
        // A count left empty beside an empty name is 0 (v6.1 writes 0 for a CPU-only system).
        for (field, when) in &self.spec.zero_when_missing {
            if let (Some(f), Some(w)) = (by_name(field), by_name(when)) {
                if typed[f as usize] == Typed::Null && typed[w as usize] == Typed::Null {
                    texts[f as usize] = "0".into();
                    typed[f as usize] = Typed::Int(0);
                }
            }
        }
        for &(field, source) in &self.sources {
            if let FieldSource::Product { product } = source {
                let factors = product
                    .each_ref()
                    .map(|p| by_name(p).map(|f| typed[f as usize]));
                let value = match factors {
                    [Some(Typed::Int(a)), Some(Typed::Int(b))] => a.checked_mul(b).map(Typed::Int),
                    [Some(Typed::Null), _] | [_, Some(Typed::Null)] => Some(Typed::Null),
                    _ => None,
                };
                let Some(value) = value else {
                    return Err(self.refuse(
                        id,
                        field.name(),
                        format!(
                            "is the product of `{}` and `{}`, which must be whole numbers (or empty)",
                            product[0], product[1]
                        ),
                    ));
                };
                texts[field as usize] = match value {
                    Typed::Int(n) => n.to_string(),
                    _ => String::new(),
                };
                typed[field as usize] = value;
            }
        }
        let extra = self
            .spec
            .extra_key_fields
            .iter()
            .map(|name| {
                let (text, t) = self.cell(id, name, &fields[name.as_str()])?;
                Ok((text.into_boxed_str(), t))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SummaryRow {
            id,
            raw: RawRecord::pack(texts.iter().map(String::as_str)),
            typed,
            extra: extra.into_boxed_slice(),
        })
    }

    /// One value: its text as the round's summary writes it, and its type.
    fn cell(&self, id: RowId, name: &str, value: &Value) -> Result<(String, Typed)> {
        let (text, typed) = match value {
            Value::Null => (String::new(), Typed::Null),
            Value::Bool(b) => (b.to_string(), Typed::Bool(*b)),
            Value::String(s) if self.spec.missing.contains(s) => (s.clone(), Typed::Null),
            Value::String(s) => (s.clone(), Typed::Text),
            Value::Number(n) => match n.as_i64() {
                Some(i) => (i.to_string(), Typed::Int(i)),
                None => {
                    let x = n.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                        self.refuse(
                            id,
                            name,
                            format!(
                                "{} is not a number the analysis can hold",
                                quoted(&n.to_string(), EXCERPT)
                            ),
                        )
                    })?;
                    (n.to_string(), Typed::Float(x.to_bits()))
                }
            },
            Value::Array(_) | Value::Object(_) => {
                return Err(self.refuse(
                    id,
                    name,
                    "holds a list or an object, where a summary holds one value",
                ))
            }
        };
        if text.len() > super::MAX_FIELD_BYTES {
            return Err(self.refuse(
                id,
                name,
                format!(
                    "has {} bytes; at most {} are accepted",
                    text.len(),
                    super::MAX_FIELD_BYTES
                ),
            ));
        }
        check_text(self.file, id, name, &text)?;
        Ok((text, typed))
    }
}

/// The schema field named `name`.
fn by_name(name: &str) -> Option<Field> {
    Field::ALL.iter().copied().find(|f| f.name() == name)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::summary::schema_names;
    use serde_json::json;

    /// A round whose summary names every schema field in upper case, derives
    /// `total_accelerators`, has no `PrivateID`, keys on `RACK` and leaves out `WATTS`.
    pub(crate) fn spec() -> RoundSpec {
        let mut fields = serde_json::Map::new();
        for name in schema_names() {
            fields.insert(name.into(), json!(name.to_uppercase()));
        }
        fields.insert(
            "total_accelerators".into(),
            json!({"product": ["number_of_nodes", "accelerators_per_node"]}),
        );
        fields.insert("PrivateID".into(), Value::Null);
        serde_json::from_value(json!({
            "round": "v0.1",
            "summary": {"format": "json-array", "file": "rows.json"},
            "fields": fields,
            "extra_key_fields": ["RACK"],
            "ignored_fields": {"WATTS": "a measurement"},
            "missing": [""],
            "zero_when_missing": {"accelerators_per_node": "accelerator_model_name"},
            "logs": {"tree": "inference_results_v0.1", "path": "{location}/log.txt"},
        }))
        .unwrap()
    }

    /// A row of that round: a datacenter system's run of `benchmark` in `scenario`.
    pub(crate) fn row(
        org: &str,
        system: &str,
        benchmark: &str,
        scenario: &str,
        result: f64,
    ) -> Value {
        let mut r = serde_json::Map::new();
        for (k, v) in [
            ("ORGANIZATION", json!(org)),
            ("AVAILABILITY", json!("available")),
            ("DIVISION", json!("closed")),
            ("SYSTEMTYPE", json!("datacenter")),
            ("SYSTEMNAME", json!(system)),
            ("PLATFORM", json!(system)),
            ("MODEL", json!(benchmark)),
            ("MLPERFMODEL", json!(benchmark)),
            ("SCENARIO", json!(scenario)),
            ("RESULT", json!(result)),
            ("ACCURACY", json!("ok")),
            ("NUMBER_OF_NODES", json!(2)),
            ("HOST_PROCESSOR_MODEL_NAME", json!("CPU")),
            ("HOST_PROCESSORS_PER_NODE", json!(2)),
            ("HOST_PROCESSOR_CORE_COUNT", json!(64)),
            ("ACCELERATOR_MODEL_NAME", json!("GPU X")),
            ("ACCELERATORS_PER_NODE", json!(4)),
            (
                "LOCATION",
                json!(format!(
                    "closed/{org}/results/{system}/{benchmark}/{scenario}"
                )),
            ),
            ("FRAMEWORK", json!("rt")),
            ("OPERATING_SYSTEM", json!("os")),
            ("NOTES", json!("")),
            ("COMPLIANCE", json!(1)),
            ("ERRORS", json!(0)),
            ("VERSION", json!("v0.1")),
            ("INFERRED", json!(0)),
            ("HAS_POWER", json!(false)),
            ("UNITS", json!("Tokens/s")),
            ("WEIGHT_DATA_TYPES", json!("fp8")),
            ("DESIGN_POWER_WATTS", Value::Null),
            ("RACK", json!("A")),
            ("WATTS", json!(result * 3.0)),
        ] {
            r.insert(k.into(), v);
        }
        Value::Object(r)
    }

    fn load_rows(rows: &[Value]) -> Result<Summary> {
        load(&spec(), json!(rows).to_string().as_bytes(), "rows.json")
    }

    fn error(rows: &[Value]) -> String {
        load_rows(rows).unwrap_err().to_string()
    }

    #[test]
    fn the_declaration_places_each_field() {
        crate::project::rounds::Rounds {
            about: String::new(),
            rounds: vec![spec()],
        }
        .check(&schema_names())
        .unwrap();
        let s = load_rows(&[row("Acme", "Box", "deepseek-r1", "Offline", 100.5)]).unwrap();
        let r = &s.rows[0];
        assert_eq!(r.raw(Field::Organization), "Acme");
        assert_eq!(r.typed(Field::Result), Typed::Float(100.5f64.to_bits()));
        // 2 nodes × 4 accelerators, derived; the absent field is empty.
        assert_eq!(r.typed(Field::TotalAccelerators), Typed::Int(8));
        assert_eq!(r.raw(Field::TotalAccelerators), "8");
        assert_eq!(r.typed(Field::PrivateId), Typed::Null);
        assert_eq!(r.typed(Field::Notes), Typed::Null);
        assert_eq!(&*r.extra()[0].0, "A");
        assert_eq!(s.absent, [Field::PrivateId]);
        assert_eq!(s.name(Field::Result), "RESULT");
        assert_eq!(s.extra_names, ["RACK"]);
    }

    #[test]
    fn an_empty_count_beside_an_empty_accelerator_is_zero() {
        let mut r = row("Acme", "Cpu", "llama3.1-8b", "Offline", 10.0);
        r["ACCELERATOR_MODEL_NAME"] = json!("");
        r["ACCELERATORS_PER_NODE"] = json!("");
        let s = load_rows(&[r.clone()]).unwrap();
        assert_eq!(s.rows[0].typed(Field::AcceleratorsPerNode), Typed::Int(0));
        assert_eq!(s.rows[0].typed(Field::TotalAccelerators), Typed::Int(0));
        // A count left empty beside a named accelerator stays empty, and so does the product.
        r["ACCELERATOR_MODEL_NAME"] = json!("GPU X");
        let s = load_rows(&[r]).unwrap();
        assert_eq!(s.rows[0].typed(Field::AcceleratorsPerNode), Typed::Null);
        assert_eq!(s.rows[0].typed(Field::TotalAccelerators), Typed::Null);
    }

    #[test]
    fn each_bad_row_is_one_line_naming_the_row_and_field() {
        let good = row("Acme", "Box", "deepseek-r1", "Offline", 100.0);
        let mut renamed = good.clone();
        let v = renamed.as_object_mut().unwrap().remove("RESULT").unwrap();
        renamed["RESULTS"] = v;
        assert_eq!(
            error(&[good.clone(), renamed]),
            "rows.json: row 1, field `RESULT`: missing: data/rounds.json reads round v0.1's rows from this field"
        );
        let mut new_field = good.clone();
        new_field["COLOUR"] = json!("red");
        let e = error(&[new_field]);
        assert!(
            e.starts_with(
                "rows.json: row 0, field `COLOUR`: the round v0.1 does not place this field"
            ),
            "{e}"
        );
        let mut listed = good.clone();
        listed["RESULT"] = json!([1, 2]);
        assert_eq!(
            error(&[listed]),
            "rows.json: row 0, field `RESULT`: holds a list or an object, where a summary holds one value"
        );
        let mut half = good.clone();
        half["ACCELERATORS_PER_NODE"] = json!(4.5);
        assert_eq!(
            error(&[half]),
            "rows.json: row 0, field `total_accelerators`: is the product of `number_of_nodes` and `accelerators_per_node`, which must be whole numbers (or empty)"
        );
        assert_eq!(
            error(&[good.clone(), good.clone()]),
            "rows.json: row 1: repeats row 0 field for field; a result counts once"
        );
        let e = load(&spec(), b"{\"rows\": []}", "rows.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("rows.json: line 1 column 1: "), "{e}");
        assert!(e.ends_with("(expected one array of row objects)"), "{e}");
        assert_eq!(
            load(&spec(), b"[1]", "rows.json").unwrap_err().to_string(),
            "rows.json: row 0: is not an object of fields"
        );
        // An empty array is read; the round it belongs to is then unknown, which is refused.
        let empty = load_rows(&[]).unwrap();
        assert_eq!(
            empty.round().unwrap_err().to_string(),
            "rows.json: holds no result rows"
        );
    }

    #[test]
    fn rows_differing_only_in_an_ignored_field_are_one_result_twice_and_refused() {
        // The ignored WATTS alone differs: the rows are the same result.
        let a = row("Acme", "Box", "deepseek-r1", "Offline", 100.0);
        let mut b = a.clone();
        b["WATTS"] = json!(1.0);
        assert_eq!(
            error(&[a.clone(), b]),
            "rows.json: row 1: repeats row 0 field for field; a result counts once"
        );
        // The further key field makes them two systems' rows.
        let mut c = a.clone();
        c["RACK"] = json!("B");
        assert_eq!(load_rows(&[a, c]).unwrap().rows.len(), 2);
    }
}
