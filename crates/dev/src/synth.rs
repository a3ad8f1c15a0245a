//! Synthetic summaries for scaling tests and benchmarks: a consistent `summary.csv` +
//! `summary.json` pair of any size, with realistic fields, complete pairs, unmatched and duplicate
//! rows, rows outside the scope, and every missing-value spelling. The configured highlights are
//! included once each, so the committed article configuration works on synthetic data too.
//!
//! The output is a pure function of the row count and the seed.

use std::fmt::Write;

use ratios_model::project::config::ArticleConfig;
use ratios_model::summary::Field;

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// One cell: the CSV text and the JSON literal.
struct Cell {
    csv: String,
    json: String,
}

fn text(s: &str) -> Cell {
    Cell {
        csv: s.to_string(),
        json: serde_json::Value::from(s).to_string(),
    }
}

fn int(i: i64) -> Cell {
    Cell {
        csv: i.to_string(),
        json: i.to_string(),
    }
}

fn null(spelling: &str) -> Cell {
    Cell {
        csv: spelling.to_string(),
        json: "null".into(),
    }
}

/// A Result: full precision in the CSV, 10 decimals in the JSON (as the real files).
fn result(x: f64) -> Cell {
    let json = format!("{x:.10}");
    let json = json.trim_end_matches('0');
    let json = if json.ends_with('.') {
        format!("{json}0")
    } else {
        json.to_string()
    };
    Cell {
        csv: format!("{x}"),
        json,
    }
}

/// What a submission looks like before it becomes rows.
struct Submission {
    organization: String,
    system: String,
    platform: String,
    model: &'static str,
    accelerators: i64,
    notes: Cell,
    accelerator_name: Cell,
    division: &'static str,
    availability: &'static str,
    units: &'static str,
}

const MODELS: &[&str] = &[
    "deepseek-r1",
    "gpt-oss-120b",
    "llama2-70b-99.9",
    "llama3.1-8b",
];

fn row(s: &Submission, scenario: &str, value: f64) -> Vec<Cell> {
    let location = format!(
        "./{}/{}/results/{}/{}/{scenario}/performance/run_1",
        s.division, s.organization, s.platform, s.model
    );
    Field::ALL
        .iter()
        .map(|f| match f {
            Field::Organization => text(&s.organization),
            Field::Availability => text(s.availability),
            Field::Division => text(s.division),
            Field::SystemType => text("datacenter"),
            Field::SystemName => text(&s.system),
            Field::Platform => text(&s.platform),
            Field::Model | Field::MlperfModel => text(s.model),
            Field::Scenario => text(scenario),
            Field::Result => result(value),
            Field::Accuracy => text("exact_match: 84.1  TOKENS_PER_SAMPLE: 3790.5"),
            Field::NumberOfNodes => int(1),
            Field::HostProcessorModelName => text("Synthetic CPU 64-Core"),
            Field::HostProcessorsPerNode => int(2),
            Field::HostProcessorCoreCount => text("64"),
            Field::AcceleratorModelName => Cell {
                csv: s.accelerator_name.csv.clone(),
                json: s.accelerator_name.json.clone(),
            },
            Field::AcceleratorsPerNode | Field::TotalAccelerators => int(s.accelerators),
            Field::Location => text(&location),
            Field::Framework => text("Synthetic RT 1.0"),
            Field::OperatingSystem => text("Linux"),
            Field::Notes => Cell {
                csv: s.notes.csv.clone(),
                json: s.notes.json.clone(),
            },
            Field::Compliance => text(s.division),
            Field::Errors | Field::Inferred => int(0),
            Field::Version => text("v6.1"),
            Field::HasPower => Cell {
                csv: "False".into(),
                json: "false".into(),
            },
            Field::Units => text(s.units),
            Field::WeightDataTypes => text("fp4"),
            Field::DesignPowerWatts => null("None"),
            Field::PrivateId => null(""),
        })
        .collect()
}

/// Generates `rows` rows (at least the highlighted pairs). Returns (summary.csv, summary.json).
pub fn generate(rows: usize, seed: u64, config: &ArticleConfig) -> (Vec<u8>, Vec<u8>) {
    let mut rng = Rng(seed);
    let mut out: Vec<Vec<Cell>> = Vec::with_capacity(rows + 8);
    // The configured highlights, once each, so the committed configuration selects them.
    for h in &config.highlights {
        let s = Submission {
            organization: h.organization.clone(),
            system: format!("{} {}", h.organization, h.platform),
            platform: h.platform.clone(),
            model: MODELS
                .iter()
                .copied()
                .find(|m| *m == h.model)
                .unwrap_or("gpt-oss-120b"),
            accelerators: 8,
            notes: null(""),
            accelerator_name: text("Synthetic GPU"),
            division: "closed",
            availability: "available",
            units: "Tokens/s",
        };
        let offline = 1000.0 + 99000.0 * rng.unit();
        out.push(row(&s, "Offline", offline));
        out.push(row(&s, "Server", offline * (0.6 + 0.45 * rng.unit())));
    }
    let mut n = 0u64;
    while out.len() < rows {
        n += 1;
        let kind = rng.below(100);
        let s = Submission {
            organization: format!("Org{}", rng.below(400)),
            system: format!(
                "System {n} ({}x accelerators, \"rev\" {})",
                1 << rng.below(7),
                n % 13
            ),
            platform: format!("{}xSYN_{}", 1 << rng.below(7), n),
            model: rng.pick(MODELS),
            accelerators: 1 << rng.below(7),
            notes: match rng.below(4) {
                0 => null(""),
                1 => null("N/A"),
                2 => text("tuned, \"batch\" 64; line\nbreak"),
                _ => text("none"),
            },
            accelerator_name: if rng.below(10) == 0 {
                null("N/A")
            } else {
                text("Synthetic GPU 192GB")
            },
            division: if kind < 3 { "open" } else { "closed" },
            availability: if kind == 3 { "preview" } else { "available" },
            units: if kind == 4 { "Samples/s" } else { "Tokens/s" },
        };
        let offline = 10.0 + 900_000.0 * rng.unit();
        out.push(row(&s, "Offline", offline));
        match kind {
            // An Offline row without its Server partner.
            5 => {}
            // Two Server rows for one key: reported as duplicates.
            6 => {
                out.push(row(&s, "Server", offline * 0.9));
                out.push(row(&s, "Server", offline * 0.8));
            }
            _ => out.push(row(&s, "Server", offline * (0.35 + 0.7 * rng.unit()))),
        }
    }
    out.truncate(rows.max(2 * config.highlights.len()));
    (csv_bytes(&out), json_bytes(&out))
}

fn csv_bytes(rows: &[Vec<Cell>]) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(Vec::new());
    let header: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
    // Writing to a Vec cannot fail.
    let _ = w.write_record(&header);
    for r in rows {
        let _ = w.write_record(r.iter().map(|c| c.csv.as_str()));
    }
    w.into_inner().unwrap_or_default()
}

fn json_bytes(rows: &[Vec<Cell>]) -> Vec<u8> {
    let mut s = String::from("{\n");
    for (i, r) in rows.iter().enumerate() {
        let _ = writeln!(s, "    \"{i}\":{{");
        for (j, (f, c)) in Field::ALL.iter().zip(r).enumerate() {
            let comma = if j + 1 < r.len() { "," } else { "" };
            let _ = writeln!(s, "        \"{}\":{}{comma}", f.name(), c.json);
        }
        s.push_str(if i + 1 < rows.len() {
            "    },\n"
        } else {
            "    }\n"
        });
    }
    s.push_str("}\n");
    s.into_bytes()
}

/// The most rows `write` makes: the largest size the benchmarks use. The pair is built in memory
/// (about 5.5 KB a row at the peak), so the count is bounded like every other size.
pub const MAX_ROWS: usize = 100_000;

/// The file that marks a folder `write` made, so that it may write there again.
pub const MARKER: &str = ".scenario-ratios-synth";

/// Checks that `dir` may receive a synthetic pair: a new path, an empty folder, or a folder this
/// command wrote before (it holds [`MARKER`]). Anything else is refused, so that no file of the
/// user's (a project's `data/inputs.json`, say) is ever overwritten; then marks the folder.
fn claim(dir: &std::path::Path) -> ratios_base::error::Result<()> {
    use ratios_base::ownership::{claim, Ownership};
    claim(
        dir,
        MARKER,
        "Written by the synth example of scenario-ratios (examples/synth.rs).\n",
        |state| {
            match state {
        Ownership::Foreign => Some(format!(
            "is a folder that synth did not write (no {MARKER} inside) and is not empty; refusing to write into it (give a new or empty folder)"
        )),
        Ownership::NotAFolder => Some(
            "is not a folder; synth writes into a new or empty folder, or one it wrote before".into(),
        ),
        _ => None,
    }
        },
    )
    .map(|_| ())
}

/// Writes a synthetic pair under `dir` in mirror layout, plus `dir/inputs.json` pinning both, so
/// that `scenario-ratios build --manifest dir/inputs.json --mirror dir` runs the whole pipeline on it.
/// The highlights are those of `project` (its `content/article.json`); the checker's source that
/// its facts cite is acquired with `acquire` (the project's cache or mirror) and laid out and
/// pinned beside the summaries, since every build checks the facts against it. `dir` must be
/// new, empty, or written by this function before; `rows` is at most [`MAX_ROWS`].
pub fn write(
    dir: &std::path::Path,
    rows: usize,
    seed: u64,
    project: &ratios_model::project::Project,
    acquire: &ratios_model::inputs::AcquireOptions,
) -> ratios_base::error::Result<std::path::PathBuf> {
    use ratios_base::digest::HexDigest;
    use ratios_base::error::Error;
    use ratios_model::inputs::{InputKind, InputManifest, PinnedInput};
    let config = &project.config;
    if rows > MAX_ROWS {
        return Err(Error::Usage {
            context: "synth --rows".into(),
            message: format!(
                "{rows} is more than {MAX_ROWS}, the most rows a synthetic summary holds"
            ),
        });
    }
    claim(dir)?;
    let (csv, json) = generate(rows, seed, config);
    let repository = "synthetic/summaries";
    let commit = format!("{seed:040x}");
    let mut inputs = Vec::new();
    for (name, kind, bytes) in [
        ("summary.csv", InputKind::SummaryCsv, &csv),
        ("summary.json", InputKind::SummaryJson, &json),
    ] {
        ratios_base::fetch::store(&dir.join(repository).join(name), bytes)?;
        inputs.push(PinnedInput {
            name: name.to_string(),
            kind,
            local: name.to_string(),
            repository: repository.to_string(),
            commit: commit.clone(),
            path: name.to_string(),
            url: format!("https://example.invalid/{repository}/{commit}/{name}"),
            size: bytes.len() as u64,
            sha256: HexDigest::sha256(bytes),
            git_blob_sha1: HexDigest::git_blob_sha1(bytes),
            license: "CC0-1.0".into(),
            acquired: "2026-11-30".into(),
        });
    }
    // Each earlier round the project declares, as the same rows written in its own schema.
    for spec in project.rounds.rounds.iter().skip(1) {
        let ratios_model::project::rounds::SummarySpec::JsonArray { file } = &spec.summary else {
            continue;
        };
        let bytes = in_schema_of(&json, spec)?;
        let path = "summary_results.json";
        let repository = format!("{repository}-{}", spec.round);
        ratios_base::fetch::store(&dir.join(&repository).join(path), &bytes)?;
        inputs.push(PinnedInput {
            name: file.clone(),
            kind: InputKind::SummaryArray,
            local: format!("{}/{path}", spec.round),
            url: format!("https://example.invalid/{repository}/{commit}/{path}"),
            repository,
            commit: commit.clone(),
            path: path.to_string(),
            size: bytes.len() as u64,
            sha256: HexDigest::sha256(&bytes),
            git_blob_sha1: HexDigest::git_blob_sha1(&bytes),
            license: "CC0-1.0".into(),
            acquired: "2026-11-30".into(),
        });
    }
    let facts_source = &project.facts.source;
    let pin = facts_source.pin_in(&project.manifest).ok_or_else(|| {
        Error::Synth(format!(
            "the project's input manifest does not pin {}, the source its checker facts cite",
            facts_source.path
        ))
    })?;
    // The files the claims register cites too, since every build checks each claim at its lines.
    let mut cited = vec![pin.clone()];
    for claim in &project.claims.claims {
        if cited.iter().all(|p| p.name != claim.input) {
            let p = project
                .manifest
                .inputs
                .iter()
                .find(|p| p.name == claim.input);
            cited.push(p.cloned().ok_or_else(|| {
                Error::Synth(format!(
                    "the project's input manifest does not pin {}, which claim {} cites",
                    claim.input, claim.id
                ))
            })?);
        }
    }
    let source = ratios_model::inputs::acquire(
        InputManifest {
            inputs: cited,
            listed: 0,
            ..project.manifest.clone()
        },
        acquire,
    )?;
    for input in &source.files {
        let path = dir.join(&input.pin.repository).join(&input.pin.path);
        ratios_base::fetch::store(&path, &input.bytes)?;
        inputs.push(input.pin.clone());
    }
    let manifest = InputManifest {
        about: format!("synthetic summaries: {rows} rows, seed {seed}"),
        source_date: "2026-11-30T00:00:00Z".into(),
        lists: Vec::new(),
        inputs,
        listed: 0,
        listed_by: Vec::new(),
    };
    let path = dir.join("inputs.json");
    let text = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Serialise {
        file: "inputs.json".into(),
        message: e.to_string(),
    })?;
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    Ok(path)
}

/// The synthetic rows of `json` (the schema's, keyed by row id) written as one JSON array in
/// the schema `spec` declares for an earlier round: each field under the summary's name, the
/// round's name as its version, each further key field the row's `Platform` (so that the rows
/// of one system keep one key), derived and absent fields left out.
fn in_schema_of(
    json: &[u8],
    spec: &ratios_model::project::rounds::RoundSpec,
) -> ratios_base::error::Result<Vec<u8>> {
    use ratios_model::project::rounds::FieldSource;
    use serde_json::Value;
    let fail = |message: String| ratios_base::error::Error::Synth(message);
    let rows: serde_json::Map<String, Value> =
        serde_json::from_slice(json).map_err(|e| fail(e.to_string()))?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows.values() {
        let mut o = serde_json::Map::new();
        for (schema, source) in &spec.fields {
            if let FieldSource::Field(name) = source {
                let value = if schema == "version" {
                    Value::String(spec.round.clone())
                } else {
                    row.get(schema).cloned().unwrap_or(Value::Null)
                };
                o.insert(name.clone(), value);
            }
        }
        for name in &spec.extra_key_fields {
            o.insert(
                name.clone(),
                row.get("Platform").cloned().unwrap_or(Value::Null),
            );
        }
        out.push(Value::Object(o));
    }
    serde_json::to_vec(&out).map_err(|e| fail(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> ArticleConfig {
        ratios_model::project::Project::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../.."
        )))
        .unwrap()
        .config
    }

    #[test]
    fn synthetic_files_pass_the_cross_check_and_analysis() {
        let config = committed();
        let (csv, json) = generate(2000, 7, &config);
        let s = ratios_model::summary::load(&csv, &json, Default::default()).unwrap();
        assert_eq!(s.rows.len(), 2000);
        let a = ratios_model::analysis::analyse(&s).unwrap();
        assert!(a.counts.pairs > 500, "{:?}", a.counts);
        assert!(a.counts.unmatched > 0);
        assert!(a.counts.eligible < 2000, "some rows are out of scope");
        assert!(a.unmatched.iter().any(|u| matches!(
            u.reason,
            ratios_model::analysis::UnmatchedReason::DuplicateKey { .. }
        )));
        let h = ratios_model::highlight::select(&a, &config).unwrap();
        assert_eq!(h.highlights.len(), config.highlights.len());
    }

    #[test]
    fn generation_is_deterministic() {
        let config = committed();
        assert_eq!(generate(300, 1, &config), generate(300, 1, &config));
        assert_ne!(generate(300, 1, &config), generate(300, 2, &config));
    }
}
