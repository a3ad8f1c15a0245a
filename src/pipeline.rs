//! Runs the stages in order, from the project folder to the output folder:
//! [`inputs`] → [`summary`] → [`analysis`] →
//! [`highlight`] → [`evidence`] → [`figure`] →
//! [`article`] → [`package`](mod@crate::package) → [`validate`] →
//! [`dist`](crate::dist). [`build_in_memory`] stops before writing (for `serve`); [`build`] writes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use askama::Template;
use serde::Serialize;

use crate::analysis::{self, Analysis};
use crate::article::{self, ArticleData};
use crate::dist::{Dist, OutputDir};
use crate::error::{Error, Result};
use crate::evidence::{self, Checks};
use crate::figure::{self, Figures, Svg};
use crate::highlight::{self, Highlights};
use crate::inputs::{self, AcquireOptions, InputKind, InputManifest, Inputs, Origin};
use crate::layout::{self, OutputFile};
use crate::package;
use crate::project::Project;
use crate::summary::{self, FileNames, Summary};
use crate::validate;
use crate::vendor;

/// Options of `scenario-ratios build`.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The project folder: its prose, settings, manifest and facts, and the source the bundle
    /// carries.
    pub root: PathBuf,
    pub acquire: AcquireOptions,
    /// Timestamp of the zip entries; `None` uses the manifest's `source_date`.
    pub source_date_epoch: Option<i64>,
    /// A manifest file to use instead of the project's `data/inputs.json`.
    pub manifest: Option<PathBuf>,
    pub out: PathBuf,
    /// Folder of verified `.crate` archives and vendor fragments.
    pub crate_cache: PathBuf,
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

/// Everything computed from the project and its inputs, before rendering.
#[derive(Debug, Clone)]
pub struct Computed {
    pub project: Project,
    pub summary: Summary,
    pub analysis: Analysis,
    pub highlights: Highlights,
    pub checks: Checks,
    /// The claims of `sources/claims.json`, each checked at its lines of its pinned input.
    pub notes: Vec<evidence::claims::Note>,
}

/// The project at `opts.root`, with the manifest replaced when `opts.manifest` is given.
pub fn load_project(opts: &BuildOptions) -> Result<Project> {
    let mut project = Project::load(&opts.root)?;
    if let Some(path) = &opts.manifest {
        let name = path.display().to_string();
        let text = crate::project::read_text_file(path, &name)?;
        project.manifest = InputManifest::parse(&name, &text)?;
    }
    Ok(project)
}

/// Loads both summaries from the verified inputs and runs the analysis and the checks.
pub fn compute(mut project: Project, inputs: &Inputs) -> Result<Computed> {
    // The article cites the pins of the inputs it was computed from.
    project.manifest = inputs.manifest.clone();
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
    let analysis = analysis::analyse(&summary)?;
    let highlights = highlight::select(&analysis, &project.config)?;
    let checks = evidence::check(
        &summary,
        &analysis.round,
        &highlights,
        inputs,
        &project.facts,
    )?;
    let notes = project.claims.check(inputs)?;
    Ok(Computed {
        project,
        summary,
        analysis,
        highlights,
        checks,
        notes,
    })
}

/// A standalone SVG file: XML declaration, then the figure.
fn svg_file(svg: &Svg) -> Vec<u8> {
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
    #[serde(flatten)]
    highlights: &'a Highlights,
    checks: &'a Checks,
    /// The claims the prose cites, each with the pinned lines that bear it out.
    claims: &'a [evidence::claims::Note],
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

fn to_json_bytes<T: Serialize>(value: &T, file: OutputFile) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::invalid(file.path(), format!("cannot serialise: {e}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Renders the data files and the figures: every output the bundle carries a copy of.
pub fn render_data(computed: &Computed, figures: &Figures) -> Result<Dist> {
    let mut dist = Dist::new();
    let analysis = &computed.analysis;
    let project = &computed.project;
    dist.add(
        OutputFile::Results.path(),
        to_json_bytes(
            &ResultsFile {
                title: &project.config.title,
                analysis,
                highlights: &computed.highlights,
                checks: &computed.checks,
                claims: &computed.notes,
            },
            OutputFile::Results,
        )?,
    )?;
    let mut selected = Vec::new();
    for h in &computed.highlights.highlights {
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
        to_json_bytes(&selected, OutputFile::SelectedRows)?,
    )?;
    dist.add(
        OutputFile::FigureHighlights.path(),
        svg_file(&figures.highlights),
    )?;
    dist.add(OutputFile::FigurePairs.path(), svg_file(&figures.pairs))?;
    dist.add(
        OutputFile::Card.path(),
        crate::card::card(analysis, &computed.highlights, &project.config)?,
    )?;
    let csv = project.manifest.single(InputKind::SummaryCsv)?;
    let tree = article::ResultsTree {
        repository: &csv.repository,
        commit: &csv.commit,
    };
    dist.add(
        OutputFile::PairsCsv.path(),
        article::pairs_csv(analysis, &computed.highlights, tree)?,
    )?;
    dist.add(
        OutputFile::InteractivePairsCsv.path(),
        article::interactive_pairs_csv(analysis, tree)?,
    )?;
    dist.add(
        OutputFile::Notebook.path(),
        project.notebook.clone().into_bytes(),
    )?;
    dist.add(
        OutputFile::NotebookScript.path(),
        crate::notebook::script(&project.notebook)?,
    )?;
    Ok(dist)
}

/// Renders the article, whose downloads table lists the files already in `dist`, and adds it.
pub fn render_article(computed: &Computed, figures: &Figures, dist: &mut Dist) -> Result<()> {
    let project = &computed.project;
    let downloads = article::blocks::downloads(dist, OutputFile::ALL);
    let html = article::render(
        &ArticleData {
            config: &project.config,
            analysis: &computed.analysis,
            highlights: &computed.highlights,
            checks: &computed.checks,
            manifest: &project.manifest,
            facts: &project.facts,
            notes: &computed.notes,
            vendor_plan: &project.vendor_plan,
            figures,
            downloads: &downloads,
            tool: crate::TOOL,
        },
        &project.prose,
    )?;
    dist.add(OutputFile::Article.path(), html.into_bytes())
}

/// The data files, figures and article in memory, without the bundle (for tests and benches).
pub fn render(computed: &Computed) -> Result<Dist> {
    let figures = figure::figures(&computed.analysis, &computed.highlights)?;
    let mut dist = render_data(computed, &figures)?;
    render_article(computed, &figures, &mut dist)?;
    Ok(dist)
}

/// The vendored crates of the Cargo.lock text `lock`, under the bundle's folder, as a zip fragment.
pub fn vendor_fragment(
    lock: &str,
    plan: &vendor::Plan,
    crates: &vendor::CrateSources,
    source_date_epoch: i64,
) -> Result<vendor::Fragment> {
    vendor::fragment(
        lock,
        plan,
        &layout::bundle_root(),
        source_date_epoch,
        crates,
    )
}

/// The text of the project's Cargo.lock among its source files.
pub fn lock_text(sources: &BTreeMap<String, Vec<u8>>) -> Result<&str> {
    sources
        .get("Cargo.lock")
        .and_then(|b| std::str::from_utf8(b).ok())
        .ok_or_else(|| Error::invalid("Cargo.lock", "missing from the project or not UTF-8"))
}

/// Adds provenance, and stages the reproducibility bundle's own entries: a copy of every file
/// already in `dist`, the bundle's README and cargo configuration, the inputs and the sources.
pub fn stage_package(
    dist: &mut Dist,
    inputs: &Inputs,
    computed: &Computed,
    sources: BTreeMap<String, Vec<u8>>,
    source_date_epoch: i64,
) -> Result<package::Staged> {
    dist.add(
        OutputFile::Provenance.path(),
        package::provenance(inputs, &computed.project.facts, source_date_epoch)?,
    )?;
    let mut entries = sources;
    entries.insert(
        layout::BUNDLE_README.into(),
        package::bundle_readme(
            &computed.project.config,
            &computed.analysis.round,
            &inputs.manifest,
            &computed.project.vendor_plan,
        )?,
    );
    entries.insert(
        vendor::CARGO_CONFIG_PATH.into(),
        vendor::CARGO_CONFIG.as_bytes().to_vec(),
    );
    for f in &inputs.files {
        entries.insert(package::bundle_path(&f.pin), f.bytes.clone());
    }
    for file in OutputFile::ALL {
        if let (Some(at), Some(bytes)) = (file.in_bundle(), dist.get(file.path())) {
            entries.insert(at, bytes.to_vec());
        }
    }
    package::stage(&entries, source_date_epoch)
}

/// Adds the reproducibility bundle: the staged entries on top of the vendored crates of
/// `fragment`.
pub fn package(
    dist: &mut Dist,
    staged: package::Staged,
    fragment: Option<vendor::Fragment>,
) -> Result<()> {
    let bundle = package::finish(staged, fragment)?;
    dist.add_hashed(OutputFile::Bundle.path(), bundle.bytes, bundle.sha256)
}

/// Runs the build's own checks, adds their report, then SHA256SUMS. A failed check is an error
/// naming it.
pub fn finish(dist: &mut Dist) -> Result<()> {
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
            OutputFile::Validation,
        )?,
    )?;
    if !failed.is_empty() {
        return Err(Error::invalid(
            "validation",
            format!("{} check(s) failed: {}", failed.len(), failed.join("; ")),
        ));
    }
    let sums = package::sums_listing(dist.digests());
    dist.add(OutputFile::Sums.path(), sums.into_bytes())?;
    Ok(())
}

/// A build held in memory: the output files and what was computed.
pub struct InMemory {
    pub dist: Dist,
    pub computed: Computed,
    pub inputs: Inputs,
}

/// Everything a build does except writing the output folder.
pub fn build_in_memory(opts: &BuildOptions, timings: &mut Timings) -> Result<InMemory> {
    let project = load_project(opts)?;
    let epoch = opts
        .source_date_epoch
        .unwrap_or_else(|| project.manifest.source_date_epoch());
    package::zip_time(epoch)?;
    let sources = package::source_files(&opts.root)?;
    let crates = vendor::CrateSources::for_project(
        &opts.root,
        opts.crate_cache.clone(),
        opts.acquire.allow_download,
    );
    // The vendored crates are read (or, the first time, made) on a second core while the inputs
    // are verified, the analysis runs and our own bundle entries are compressed.
    let plan = project.vendor_plan.clone();
    let lock = lock_text(&sources)?.to_string();
    let (inputs, computed, figures, mut dist, staged, fragment) = std::thread::scope(|scope| {
        let fragment = scope.spawn(|| vendor_fragment(&lock, &plan, &crates, epoch));
        let rest = (|| {
            let inputs = inputs::acquire(project.manifest.clone(), &opts.acquire)?;
            timings.lap("acquire + verify inputs");
            let computed = compute(project, &inputs)?;
            timings.lap("load, cross-check, analyse, evidence");
            let figures = figure::figures(&computed.analysis, &computed.highlights)?;
            let mut dist = render_data(&computed, &figures)?;
            timings.lap("data files and figures");
            let staged = stage_package(&mut dist, &inputs, &computed, sources, epoch)?;
            timings.lap("provenance, our bundle entries compressed");
            Ok::<_, Error>((inputs, computed, figures, dist, staged))
        })();
        let fragment = fragment.join().unwrap_or_else(|_| {
            Err(Error::invalid(
                "vendored crates",
                "the worker thread failed",
            ))
        });
        timings.lap("vendored crates (waited for)");
        let (inputs, computed, figures, dist, staged) = rest?;
        Ok::<_, Error>((inputs, computed, figures, dist, staged, fragment?))
    })?;
    package(&mut dist, staged, Some(fragment))?;
    timings.lap("bundle on the vendored crates");
    render_article(&computed, &figures, &mut dist)?;
    timings.lap("article");
    finish(&mut dist)?;
    timings.lap("validation and SHA256SUMS");
    Ok(InMemory {
        dist,
        computed,
        inputs,
    })
}

/// The whole build: acquire, compute, render, package, validate, write atomically.
pub fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let mut timings = Timings::new();
    // Refuse a dangerous output folder before any work, and again under its lock when writing.
    let out = OutputDir::guard(&opts.out, &opts.root)?;
    let built = build_in_memory(opts, &mut timings)?;
    // The bytes read back must equal the validated bytes (which SHA256SUMS lists) before they
    // replace the previous output.
    built
        .dist
        .publish(&out, |dir| built.dist.check_written(dir))?;
    timings.lap("write, re-check and swap the output");
    Ok(BuildReport {
        out: opts.out.clone(),
        files: built.dist.files().count(),
        inputs: built
            .inputs
            .files
            .iter()
            .map(|f| (f.pin.name.clone(), f.origin.clone()))
            .collect(),
        analysis: built.computed.analysis,
        timings: timings.laps,
    })
}

/// Wall time of each stage of a build.
pub struct Timings {
    last: std::time::Instant,
    laps: Vec<(&'static str, std::time::Duration)>,
}

impl Default for Timings {
    fn default() -> Self {
        Self::new()
    }
}

impl Timings {
    pub fn new() -> Self {
        Timings {
            last: std::time::Instant::now(),
            laps: Vec::new(),
        }
    }

    pub fn lap(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((name, now - self.last));
        self.last = now;
    }
}

#[derive(Template)]
#[template(path = "explain.txt")]
struct Explain<'a> {
    csv: String,
    json: String,
    analysis: &'a Analysis,
    non_key: String,
    shown: &'a [analysis::Unmatched],
    hidden: usize,
    highlights: &'a Highlights,
    key_fields: usize,
}

/// The scope walk-through and the matching outcome, as `scenario-ratios explain` prints them.
pub fn explain(computed: &Computed) -> Result<String> {
    const SHOWN: usize = 20;
    let a = &computed.analysis;
    let pin = |k: InputKind| {
        computed
            .project
            .manifest
            .single(k)
            .map_or(String::from("?"), |p| {
                format!("{} at {}", p.name, crate::format::short_commit(&p.commit))
            })
    };
    let e = Explain {
        csv: pin(InputKind::SummaryCsv),
        json: pin(InputKind::SummaryJson),
        analysis: a,
        non_key: analysis::NON_KEY_FIELDS
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", "),
        shown: &a.unmatched[..a.unmatched.len().min(SHOWN)],
        hidden: a.unmatched.len().saturating_sub(SHOWN),
        highlights: &computed.highlights,
        key_fields: a.key_fields.len(),
    };
    article::template(&e, "templates/explain.txt")
}

/// Acquires the inputs and computes everything, without writing any output.
pub fn compute_from(opts: &BuildOptions) -> Result<(Inputs, Computed)> {
    let project = load_project(opts)?;
    let inputs = inputs::acquire(project.manifest.clone(), &opts.acquire)?;
    let computed = compute(project, &inputs)?;
    Ok((inputs, computed))
}
