//! Runs the stages in order and turns their typed outputs into the files of `dist/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use crate::analysis::{self, Analysis};
use crate::article::{self, ArticleData};
use crate::config::ArticleConfig;
use crate::dist::{Dist, OutputDir};
use crate::error::{Error, Result};
use crate::evidence::{self, CheckerFacts, Checks};
use crate::figure::Svg;
use crate::inputs::{self, AcquireOptions, InputKind, InputManifest, Inputs, Origin, PinnedInput};
use crate::layout::{OutputFile, PUBLISHED_DIR};
use crate::package;
use crate::summary::{self, FileNames, Summary};
use crate::validate;

/// Options of `scenario-ratios build`.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub acquire: AcquireOptions,
    /// The project folder whose source the bundle carries.
    pub root: PathBuf,
    /// Timestamp of the zip entries; `None` uses the manifest's `source_date`.
    pub source_date_epoch: Option<i64>,
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
    /// Wall time of each stage.
    pub timings: Vec<(&'static str, std::time::Duration)>,
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
    /// The pins of the inputs the results came from.
    pub pins: Vec<PinnedInput>,
    pub facts: CheckerFacts,
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
    let facts = CheckerFacts::committed()?;
    let checks = evidence::check(&summary, &analysis, inputs, &facts)?;
    Ok(Computed {
        config,
        pins: inputs.files.iter().map(|f| f.pin.clone()).collect(),
        facts,
        summary,
        analysis,
        checks,
    })
}

/// Name and version of this generator, as printed in the outputs.
pub const TOOL: &str = concat!(env!("CARGO_PKG_NAME"), " ", env!("CARGO_PKG_VERSION"));

/// A standalone SVG file: XML declaration, then the figure.
fn svg_file(svg: Svg) -> Vec<u8> {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str(&svg.0);
    s.into_bytes()
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
        OutputFile::Results.path(),
        to_json_bytes(
            &ResultsFile {
                title: &computed.config.title,
                analysis,
                checks: &computed.checks,
            },
            OutputFile::Results.path(),
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
                    .map(|(f, c)| (f.name().to_string(), c.raw.into()))
                    .collect(),
            });
        }
    }
    dist.add(
        OutputFile::SelectedRows.path(),
        to_json_bytes(&selected, OutputFile::SelectedRows.path())?,
    )?;
    let rendered = article::render(
        &ArticleData {
            config: &computed.config,
            analysis,
            checks: &computed.checks,
            inputs: &computed.pins,
            facts: &computed.facts,
            tool: TOOL,
        },
        article::PROSE,
    )?;
    dist.add(OutputFile::Article.path(), rendered.html.into_bytes())?;
    dist.add(
        OutputFile::FigureHighlights.path(),
        svg_file(rendered.highlights_svg),
    )?;
    dist.add(OutputFile::FigurePairs.path(), svg_file(rendered.pairs_svg))?;
    dist.add(OutputFile::PairsCsv.path(), article::pairs_csv(analysis)?)?;
    Ok(dist)
}

/// Adds provenance, the reproducibility bundle, the validation report and SHA256SUMS to `dist`.
/// A failed validation check is an error naming the check.
pub fn package(
    dist: &mut Dist,
    inputs: &Inputs,
    computed: &Computed,
    sources: BTreeMap<String, Vec<u8>>,
    source_date_epoch: i64,
) -> Result<()> {
    dist.add(
        OutputFile::Provenance.path(),
        package::provenance(inputs, &computed.facts, source_date_epoch)?,
    )?;
    let mut entries = sources;
    for f in &inputs.files {
        entries.insert(package::bundle_path(&f.pin), f.bytes.clone());
    }
    for (path, bytes) in dist.files() {
        entries.insert(format!("{PUBLISHED_DIR}/{path}"), bytes.to_vec());
    }
    dist.add(
        OutputFile::Bundle.path(),
        package::bundle(&entries, source_date_epoch)?,
    )?;

    let summed: BTreeSet<String> = dist
        .files()
        .map(|(p, _)| p.to_string())
        .chain([OutputFile::Validation.path().to_string()])
        .collect();
    let checks = validate::validate(dist, &summed);
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| format!("{} ({})", c.rule, c.detail))
        .collect();
    #[derive(Serialize)]
    struct Report<'a> {
        passed: usize,
        failed: usize,
        checks: &'a [validate::Validation],
    }
    dist.add(
        OutputFile::Validation.path(),
        to_json_bytes(
            &Report {
                passed: checks.len() - failed.len(),
                failed: failed.len(),
                checks: &checks,
            },
            OutputFile::Validation.path(),
        )?,
    )?;
    if !failed.is_empty() {
        return Err(Error::invalid(
            "validation",
            format!("{} check(s) failed: {}", failed.len(), failed.join("; ")),
        ));
    }
    let sums = package::sums(dist.files());
    dist.add(OutputFile::Sums.path(), sums.into_bytes())?;
    Ok(())
}

/// The whole build: acquire, compute, render, package, validate, write atomically.
pub fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let mut timings = Timings::new();
    // Refuse a dangerous output folder before any work, and again under its lock when writing.
    let out = OutputDir::guard(&opts.out, &opts.root)?;
    let manifest = load_manifest(opts)?;
    let inputs = inputs::acquire(manifest, &opts.acquire)?;
    timings.lap("acquire + verify inputs");
    let computed = compute(&inputs, ArticleConfig::committed()?)?;
    timings.lap("load, cross-check, analyse, evidence");
    let epoch = opts
        .source_date_epoch
        .unwrap_or_else(|| inputs.manifest.source_date_epoch());
    package::zip_time(epoch)?;
    let mut dist = render(&computed)?;
    timings.lap("figures + article");
    let sources = package::source_files(&opts.root)?;
    package(&mut dist, &inputs, &computed, sources, epoch)?;
    timings.lap("provenance, zip, validation, SHA256SUMS");
    // The bytes read back must equal the validated bytes (which SHA256SUMS lists) before they
    // replace the previous output.
    dist.publish(&out, |dir| dist.check_written(dir))?;
    timings.lap("write, re-check and swap dist/");
    Ok(BuildReport {
        out: opts.out.clone(),
        files: dist.files().count(),
        inputs: inputs
            .files
            .iter()
            .map(|f| (f.pin.name.clone(), f.origin.clone()))
            .collect(),
        analysis: computed.analysis,
        timings: timings.laps,
    })
}

/// Wall time of each stage of a build.
struct Timings {
    last: std::time::Instant,
    laps: Vec<(&'static str, std::time::Duration)>,
}

impl Timings {
    fn new() -> Self {
        Timings {
            last: std::time::Instant::now(),
            laps: Vec::new(),
        }
    }

    fn lap(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((name, now - self.last));
        self.last = now;
    }
}

/// The scope walk-through and the matching outcome, as `scenario-ratios explain` prints them.
pub fn explain(computed: &Computed) -> String {
    use std::fmt::Write;
    let a = &computed.analysis;
    let mut s = String::new();
    let pin = |k: InputKind| {
        computed
            .pins
            .iter()
            .find(|p| p.kind == k)
            .map_or(String::from("?"), |p| {
                format!(
                    "{} at {}",
                    p.name,
                    p.commit.chars().take(12).collect::<String>()
                )
            })
    };
    let _ = writeln!(
        s,
        "Scope of the analysis ({}, {})\n",
        pin(InputKind::SummaryCsv),
        pin(InputKind::SummaryJson)
    );
    let _ = writeln!(s, "  {:<34} {:<20} {:>6}", "step", "field", "rows");
    for step in &a.steps {
        let _ = writeln!(
            s,
            "  {:<34} {:<20} {:>6}",
            step.name,
            step.field.unwrap_or("-"),
            step.rows
        );
    }
    let _ = writeln!(
        s,
        "\nMatching on {} key fields (all but {}):",
        a.key_fields.len(),
        analysis::NON_KEY_FIELDS
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "  {} complete pairs, {} with Server above Offline; {} unmatched row(s)",
        a.counts.pairs, a.counts.over_100, a.counts.unmatched
    );
    const SHOWN: usize = 20;
    for u in a.unmatched.iter().take(SHOWN) {
        let _ = writeln!(s, "  unmatched: ID {} ({}): {}", u.id, u.scenario, u.reason);
    }
    if a.unmatched.len() > SHOWN {
        let _ = writeln!(
            s,
            "  ... and {} more unmatched rows (all listed in results.json)",
            a.unmatched.len() - SHOWN
        );
    }
    let _ = writeln!(s, "\nHighlights:");
    for h in &a.highlights {
        let _ = writeln!(
            s,
            "  {:<28} rows {:>4} / {:<4} {}",
            h.label,
            h.offline_id,
            h.server_id,
            crate::format::percent(h.ratio)
        );
    }
    let _ = writeln!(
        s,
        "  span: {} percentage points",
        crate::format::points(a.span_pp)
    );
    s
}

/// Acquires the inputs and computes everything, without writing any output.
pub fn compute_from(opts: &BuildOptions) -> Result<(Inputs, Computed)> {
    let manifest = load_manifest(opts)?;
    let inputs = inputs::acquire(manifest, &opts.acquire)?;
    let computed = compute(&inputs, ArticleConfig::committed()?)?;
    Ok((inputs, computed))
}

fn load_manifest(opts: &BuildOptions) -> Result<InputManifest> {
    match &opts.manifest {
        None => InputManifest::committed(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            InputManifest::parse(&path.display().to_string(), &text)
        }
    }
}
