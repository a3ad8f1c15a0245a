//! Runs the stages in order and turns their typed outputs into the files of `dist/`.

use std::path::PathBuf;

use serde::Serialize;

use crate::analysis::{self, Analysis};
use crate::config::ArticleConfig;
use crate::dist::Dist;
use crate::error::{Error, Result};
use crate::evidence::{self, CheckerFacts, Checks};
use crate::inputs::{self, AcquireOptions, InputKind, InputManifest, Inputs, Origin};
use crate::summary::{self, FileNames, Summary};

/// Options of `scenario-ratios build`.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub acquire: AcquireOptions,
    /// A manifest file to use instead of the committed one.
    pub manifest: Option<PathBuf>,
    pub out: PathBuf,
}

/// What a build produced, for the command line's report.
#[derive(Debug)]
pub struct BuildReport {
    pub out: PathBuf,
    pub files: usize,
    pub analysis: Analysis,
    pub inputs: Vec<(String, Origin)>,
}

impl BuildReport {
    /// One line: how many inputs were verified, and where they came from.
    pub fn input_summary(&self) -> String {
        let count = |f: fn(&Origin) -> bool| self.inputs.iter().filter(|(_, o)| f(o)).count();
        format!(
            "{} inputs verified: {} from the cache, {} from the mirror, {} downloaded",
            self.inputs.len(),
            count(|o| matches!(o, Origin::Cache(_))),
            count(|o| matches!(o, Origin::Mirror(_))),
            count(|o| matches!(o, Origin::Download(_))),
        )
    }
}

/// Everything computed from the inputs, before rendering.
#[derive(Debug, Clone)]
pub struct Computed {
    pub config: ArticleConfig,
    pub summary: Summary,
    pub analysis: Analysis,
    pub checks: Checks,
}

/// Loads both summaries from the verified inputs and runs the analysis.
pub fn compute(inputs: &Inputs, config: ArticleConfig) -> Result<Computed> {
    let csv = inputs.single(InputKind::SummaryCsv)?;
    let json = inputs.single(InputKind::SummaryJson)?;
    let summary = summary::load(
        &csv.bytes,
        &json.bytes,
        FileNames {
            csv: &csv.pin.name,
            json: &json.pin.name,
        },
    )?;
    let analysis = analysis::analyse(&summary, &config)?;
    let checks = evidence::check(&summary, &analysis, inputs, &CheckerFacts::committed()?)?;
    Ok(Computed {
        config,
        summary,
        analysis,
        checks,
    })
}

/// `results.json`: the analysis, as the article and reviewers read it.
#[derive(Serialize)]
struct ResultsFile<'a> {
    title: &'a str,
    #[serde(flatten)]
    analysis: &'a Analysis,
    checks: &'a Checks,
}

/// One highlighted row with every source field, for `selected_rows.json`.
#[derive(Serialize)]
struct SelectedRow<'a> {
    id: summary::RowId,
    highlight: &'a str,
    scenario: &'a str,
    /// Typed values as summary.json holds them.
    json: serde_json::Map<String, serde_json::Value>,
    /// Raw text as summary.csv holds it.
    csv: serde_json::Map<String, serde_json::Value>,
}

fn to_json_bytes<T: Serialize>(value: &T, name: &str) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::invalid(name, format!("cannot serialise: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Renders every output file in memory.
pub fn render(computed: &Computed) -> Result<Dist> {
    let mut dist = Dist::new();
    let analysis = &computed.analysis;
    dist.add(
        "results.json",
        to_json_bytes(
            &ResultsFile {
                title: &computed.config.title,
                analysis,
                checks: &computed.checks,
            },
            "results.json",
        )?,
    )?;
    let mut selected = Vec::new();
    for h in &analysis.highlights {
        for id in [h.offline_id, h.server_id] {
            let row = &computed.summary.rows[id.0 as usize];
            selected.push(SelectedRow {
                id,
                highlight: &h.label,
                scenario: row.raw(summary::Field::Scenario),
                json: row
                    .cells()
                    .map(|(f, c)| (f.name().to_string(), c.to_json()))
                    .collect(),
                csv: row
                    .cells()
                    .map(|(f, c)| (f.name().to_string(), c.raw.to_string().into()))
                    .collect(),
            });
        }
    }
    dist.add(
        "selected_rows.json",
        to_json_bytes(&selected, "selected_rows.json")?,
    )?;
    Ok(dist)
}

/// The whole build: acquire, compute, render, write atomically.
pub fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let manifest = match &opts.manifest {
        None => InputManifest::committed()?,
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            InputManifest::parse(&path.display().to_string(), &text)?
        }
    };
    let config = ArticleConfig::committed()?;
    let inputs = inputs::acquire(manifest, &opts.acquire)?;
    let computed = compute(&inputs, config)?;
    let dist = render(&computed)?;
    dist.write_atomically(&opts.out)?;
    Ok(BuildReport {
        out: opts.out.clone(),
        files: dist.files().count(),
        inputs: inputs
            .files
            .iter()
            .map(|f| (f.pin.name.clone(), f.origin.clone()))
            .collect(),
        analysis: computed.analysis,
    })
}
