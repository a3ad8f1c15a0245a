//! Runs the stages in order, from the project folder to the output folder:
//! [`inputs`] → [`summary`] → [`analysis`] →
//! [`highlight`] → [`evidence`] → [`figure`] →
//! [`article`] (the data files) → [`package`](mod@ratios_bundle::package) → [`article`] (the pages) →
//! [`self_check`] → [`signature`] → [`output`](crate::output). [`build_in_memory`] stops before
//! writing (for `serve`); [`build`] writes;
//! [`compute_from`] stops after the evidence (for `explain`) and [`render`] before the package
//! (for the tests and the benches).
//! Each step here only hands one stage's typed output to the next; what a file holds is decided
//! by its stage. Each rendering stage returns its own files, and the published set is assembled
//! once, in [`build_in_memory`]: the data files and figures, the package's files, the bundle,
//! then the pages (whose downloads table lists the files before them), then the build's own
//! report and SHA256SUMS.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::output::{Dist, OutputDir};
use ratios_base::error::{Error, Result};
use ratios_base::layout::{bundle_root, OutputFile};
use ratios_base::workers;
use ratios_bundle::package;
use ratios_bundle::signature;
use ratios_bundle::vendoring;
use ratios_model::analysis::{self, Analysis};
use ratios_model::evidence::{self, Checks};
use ratios_model::highlight::{self, Highlights};
use ratios_model::inputs::{self, AcquireOptions, InputManifest, Inputs, Origin};
use ratios_model::project::Project;
use ratios_model::summary::{self, Summary};
use ratios_render::article::{self, ArticleData};
use ratios_render::figure::{self, Figures};
use ratios_render::self_check;

/// Options of `scenario-ratios build`.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The project folder: its prose, settings, manifest and facts, and the source the bundle
    /// carries.
    pub root: PathBuf,
    /// Where the inputs are looked for: the cache, the mirror, whether downloads are allowed.
    pub acquire: AcquireOptions,
    /// Timestamp of the zip entries; `None` uses the manifest's `source_date`.
    pub source_date_epoch: Option<i64>,
    /// A manifest file to use instead of the project's `data/inputs.json`.
    pub manifest: Option<PathBuf>,
    /// The output folder the published files replace as a whole (`dist/` by default).
    pub out: PathBuf,
    /// Folder of verified `.crate` archives and vendor fragments.
    pub crate_cache: PathBuf,
    /// The author's secret key, when the build signs SHA256SUMS.
    pub sign: Option<signature::SigningKey>,
}

/// What a build produced, for the command line's report.
#[derive(Debug)]
pub struct BuildReport {
    /// The output folder written.
    pub out: PathBuf,
    /// How many files were published into it.
    pub files: usize,
    /// The analysis of the article's round, whose counts the command prints.
    pub analysis: Analysis,
    /// Each input's name in the manifest and where its verified bytes came from (the cache,
    /// the mirror or a download).
    pub inputs: Vec<(String, Origin)>,
    /// Wall time of each stage.
    pub timings: Vec<(&'static str, std::time::Duration)>,
    /// Whether SHA256SUMS was signed.
    pub signature: signature::Outcome,
}

/// Everything computed from the project and its inputs, before rendering.
#[derive(Debug, Clone)]
pub struct Computed {
    /// The project as loaded. What the outputs cite is [`Computed::manifest`], not the
    /// project's own manifest (which names what was to be acquired).
    pub project: Project,
    /// The pins of the inputs it was computed from, which the outputs cite (the project's own
    /// in a build; a test's or a bench's may differ).
    pub manifest: InputManifest,
    /// The article's round's summary, its rows read from the CSV and checked against the JSON.
    pub summary: Summary,
    /// The analysis of the article's round: its pairs, ratios, counts and findings.
    pub analysis: Analysis,
    /// The pairs `content/article.json` highlights, and the spread of the span group.
    pub highlights: Highlights,
    /// The highlighted rows checked against their LoadGen logs, accuracy reports and the rules.
    pub checks: Checks,
    /// Every pair checked against its LoadGen logs, and its ratio taken apart.
    pub logs: evidence::pair_logs::PairLogs,
    /// The claims of `sources/claims.json`, each checked at its lines of its pinned input.
    pub notes: Vec<ratios_model::project::claims::Note>,
    /// The earlier rounds `data/rounds.json` declares, each computed as the article's own.
    pub previous: Vec<RoundResults>,
    /// The article's round against each earlier one, in the same order.
    pub across: Vec<ratios_model::across::AcrossRounds>,
}

impl Computed {
    /// The figures of these results, in both layouts.
    pub fn figures(&self) -> Result<Figures> {
        figure::figures(&self.analysis, &self.highlights, &self.logs, &self.across)
    }
}

pub use ratios_model::across::RoundResults;

/// Reads the summary of the round `spec` declares from the verified inputs, analyses it and
/// checks its pairs against their logs.
pub fn compute_round(
    spec: &ratios_model::project::rounds::RoundSpec,
    inputs: &Inputs,
    facts: &ratios_model::project::facts::CheckerFacts,
) -> Result<RoundResults> {
    let summary = summary::load_round(spec, inputs)?;
    let analysis = analysis::analyse_with(&summary, &spec.same_model)?;
    let order: Vec<String> = analysis
        .benchmarks
        .iter()
        .map(|b| b.benchmark.clone())
        .collect();
    let logs = evidence::pair_logs::pair_logs(
        &summary,
        &spec.logs,
        &analysis.pairs,
        &order,
        inputs,
        facts,
    )?;
    Ok(RoundResults {
        spec: spec.clone(),
        summary,
        analysis,
        logs,
    })
}

/// The project at `opts.root`, with the manifest replaced when `opts.manifest` is given.
pub fn load_project(opts: &BuildOptions) -> Result<Project> {
    let project = Project::load(&opts.root)?;
    match &opts.manifest {
        Some(path) => project.with_manifest_file(path),
        None => Ok(project),
    }
}

/// Computes every round `data/rounds.json` declares from the verified inputs, the article's
/// first, by [`compute_round`]; then the highlights and checks of the article's round, each
/// earlier round set beside it, and the claims.
pub fn compute(project: Project, inputs: &Inputs) -> Result<Computed> {
    project.rounds.check(&summary::schema_names())?;
    let main = compute_round(project.rounds.main(), inputs, &project.facts)?;
    let previous = project.rounds.rounds[1..]
        .iter()
        .map(|spec| compute_round(spec, inputs, &project.facts))
        .collect::<Result<Vec<_>>>()?;
    let highlights = highlight::select(&main.analysis, &project.config)?;
    let checks = evidence::check(
        &main.summary,
        &main.analysis.round,
        &highlights,
        inputs,
        &project.facts,
    )?;
    let across = previous
        .iter()
        .map(|p| ratios_model::across::compare(&main, p))
        .collect();
    project
        .claims
        .check_inputs(&inputs.manifest, |pin| project.facts.source.is(pin))?;
    let notes = project.claims.check(inputs)?;
    Ok(Computed {
        manifest: inputs.manifest.clone(),
        project,
        summary: main.summary,
        analysis: main.analysis,
        highlights,
        checks,
        logs: main.logs,
        notes,
        previous,
        across,
    })
}

/// Renders the data files and the figures: every output the bundle carries a copy of.
pub fn render_data(computed: &Computed, figures: &Figures) -> Result<Dist> {
    let analysis = &computed.analysis;
    let project = &computed.project;
    // The social card (a raster, deflated) is drawn on a second core while the rest is written.
    let (card, rest) = workers::beside(
        "the card",
        || figure::card::card(analysis, &computed.highlights, &project.config),
        || -> Result<_> {
            let results = article::results_json(
                &project.config.title,
                analysis,
                &computed.highlights,
                &computed.checks,
                &computed.logs,
                &computed.notes,
                &computed.previous,
                &computed.across,
            )?;
            let selected = article::selected_rows_json(&computed.summary, &computed.highlights)?;
            let tables = round_tables(computed)?;
            let pairs = article::pairs_csv(&tables, &computed.highlights)?;
            let interactive = article::interactive_pairs_csv(&tables)?;
            let script = ratios_model::notebook::script(&project.notebook)?;
            Ok((results, selected, pairs, interactive, script))
        },
    );
    let (results, selected, pairs, interactive, script) = rest?;
    let mut dist = Dist::new();
    dist.add(OutputFile::Results.path(), results)?;
    dist.add(OutputFile::SelectedRows.path(), selected)?;
    dist.add(
        OutputFile::FigureHighlights.path(),
        figures.highlights.file_bytes(),
    )?;
    dist.add(OutputFile::FigurePairs.path(), figures.pairs.file_bytes())?;
    dist.add(OutputFile::Card.path(), card?)?;
    dist.add(OutputFile::PairsCsv.path(), pairs)?;
    dist.add(OutputFile::InteractivePairsCsv.path(), interactive)?;
    dist.add(
        OutputFile::Notebook.path(),
        project.notebook.clone().into_bytes(),
    )?;
    dist.add(OutputFile::NotebookScript.path(), script)?;
    Ok(dist)
}

/// Each round's pairs for the CSV files, the article's first: where each round's results tree
/// lives is its summary's pinned repository and commit (the first file its declaration names).
fn round_tables(computed: &Computed) -> Result<Vec<article::RoundTable<'_>>> {
    let tree =
        |spec: &ratios_model::project::rounds::RoundSpec| -> Result<article::ResultsTree<'_>> {
            let name = spec.summary.inputs()[0];
            let pin = computed
                .manifest
                .inputs
                .iter()
                .find(|p| p.name == name)
                .ok_or_else(|| Error::Config {
                    file: ratios_model::project::rounds::ROUNDS_PATH.into(),
                    message: format!(
                        "names the input {}, which {} does not pin",
                        ratios_base::text::quoted(name, 200),
                        inputs::MANIFEST_PATH
                    ),
                })?;
            Ok(article::ResultsTree {
                repository: &pin.repository,
                commit: &pin.commit,
            })
        };
    let mut tables = vec![article::RoundTable {
        analysis: &computed.analysis,
        logs: &computed.logs,
        tree: tree(computed.project.rounds.main())?,
    }];
    for r in &computed.previous {
        tables.push(article::RoundTable {
            analysis: &r.analysis,
            logs: &r.logs,
            tree: tree(&r.spec)?,
        });
    }
    Ok(tables)
}

/// Renders the article, whose downloads table lists the files of `listed` (every file published
/// before the pages), and its data page.
pub fn render_pages(computed: &Computed, figures: &Figures, listed: &Dist) -> Result<Dist> {
    let project = &computed.project;
    let downloads = article::blocks::downloads(listed, OutputFile::ALL);
    let pages = article::render(
        &ArticleData {
            config: &project.config,
            analysis: &computed.analysis,
            highlights: &computed.highlights,
            checks: &computed.checks,
            logs: &computed.logs,
            manifest: &computed.manifest,
            facts: &project.facts,
            notes: &computed.notes,
            vendor_plan: &project.vendor_plan,
            figures,
            rounds: &project.rounds,
            previous: &computed.previous,
            across: &computed.across,
            downloads: &downloads,
            tool: ratios_base::TOOL,
        },
        &project.prose,
        &project.data_prose,
    )?;
    let mut files = Dist::new();
    files.add(OutputFile::Article.path(), pages.article.into_bytes())?;
    files.add(OutputFile::DataPage.path(), pages.data.into_bytes())?;
    Ok(files)
}

/// The data files, figures and article in memory, without the bundle (for tests and benches).
pub fn render(computed: &Computed) -> Result<Dist> {
    let figures = computed.figures()?;
    let data = render_data(computed, &figures)?;
    let pages = render_pages(computed, &figures, &data)?;
    data.merged(pages)
}

/// Makes provenance and the citation, and stages the reproducibility bundle's own entries (see
/// [`package::stage_bundle`]).
pub fn stage_package(
    data: &Dist,
    inputs: &Inputs,
    computed: &Computed,
    sources: BTreeMap<String, Vec<u8>>,
    source_date_epoch: i64,
    kept: &mut package::Compressed,
) -> Result<package::Package> {
    package::stage_bundle(
        data,
        inputs,
        &computed.project,
        &computed.analysis.round,
        sources,
        source_date_epoch,
        kept,
    )
}

/// The published files with the build's own checks' report, then SHA256SUMS. A failed check
/// is an error naming it.
pub fn finish(mut dist: Dist) -> Result<Dist> {
    self_check::report::add_report(&mut dist)?;
    dist.add_sums()?;
    Ok(dist)
}

/// The published files, assembled once from the stages' outputs: the data files and figures,
/// the package's files and the bundle (on the vendored crates), then the pages, whose downloads
/// table lists those files, then the build's own report and SHA256SUMS.
pub fn assemble(
    computed: &Computed,
    figures: &Figures,
    data: Dist,
    package: package::Package,
    vendored: Option<package::Vendored>,
    timings: &mut Timings,
) -> Result<Dist> {
    let bundle = package::bundle_file(package.staged, vendored)?;
    timings.lap("bundle on the vendored crates");
    let listed = data.merged(package.files)?.merged(bundle)?;
    let pages = render_pages(computed, figures, &listed)?;
    timings.lap("article");
    let dist = finish(listed.merged(pages)?)?;
    timings.lap("validation and SHA256SUMS");
    Ok(dist)
}

/// A build held in memory: the output files and what was computed.
pub struct InMemory {
    /// Every file the build publishes, SHA256SUMS included, before any signature is added and
    /// before anything is written.
    pub dist: Dist,
    /// What the files were rendered from.
    pub computed: Computed,
    /// The verified inputs with their bytes, and where each came from (which `build` reports).
    pub inputs: Inputs,
}

/// What a build takes from an earlier one and keeps for a later one: the preview's cache
/// (`serve::Cache`), which keeps what a prose edit does not change. A one-shot build keeps
/// nothing ([`Fresh`]). Every output is a function of what an implementation keys its kept
/// parts by, so a build that reuses them writes the same bytes as a fresh one (the serve test
/// compares them).
pub trait Keep {
    /// The verified inputs of `manifest`.
    fn inputs(&mut self, manifest: &InputManifest, opts: &AcquireOptions) -> Result<Inputs>;
    /// Everything computed from `project` and `inputs`, with the figures and the data files.
    fn data(
        &mut self,
        project: Project,
        inputs: &Inputs,
        timings: &mut Timings,
    ) -> Result<(Computed, Figures, Dist)>;
    /// Our bundle entries compressed so far, by name and content.
    fn entries(&mut self) -> &mut package::Compressed;
    /// The vendored crates kept under `key` (Cargo.lock, the plan and the timestamp), if any.
    fn vendored(&mut self, key: &str) -> Option<package::Vendored>;
    /// Keeps the vendored crates under `key` for the next build.
    fn keep_vendored(&mut self, key: String, vendored: &package::Vendored);
}

/// A one-shot build's [`Keep`]: everything made anew, nothing kept.
#[derive(Default)]
pub struct Fresh {
    entries: package::Compressed,
}

impl Keep for Fresh {
    fn inputs(&mut self, manifest: &InputManifest, opts: &AcquireOptions) -> Result<Inputs> {
        inputs::acquire(manifest.clone(), opts)
    }

    fn data(
        &mut self,
        project: Project,
        inputs: &Inputs,
        timings: &mut Timings,
    ) -> Result<(Computed, Figures, Dist)> {
        compute_data(project, inputs, timings)
    }

    fn entries(&mut self) -> &mut package::Compressed {
        &mut self.entries
    }

    fn vendored(&mut self, _key: &str) -> Option<package::Vendored> {
        None
    }

    fn keep_vendored(&mut self, _key: String, _vendored: &package::Vendored) {}
}

/// Everything computed from `project` and `inputs`, with the figures and the data files.
pub fn compute_data(
    project: Project,
    inputs: &Inputs,
    timings: &mut Timings,
) -> Result<(Computed, Figures, Dist)> {
    let computed = compute(project, inputs)?;
    timings.lap("load, cross-check, analyse, evidence");
    let figures = computed.figures()?;
    let dist = render_data(&computed, &figures)?;
    timings.lap("data files and figures");
    Ok((computed, figures, dist))
}

/// Everything a build does except writing the output folder.
pub fn build_in_memory(
    opts: &BuildOptions,
    timings: &mut Timings,
    keep: &mut dyn Keep,
) -> Result<InMemory> {
    let project = load_project(opts)?;
    let epoch = opts
        .source_date_epoch
        .unwrap_or_else(|| project.manifest.source_date_epoch());
    ratios_base::archive::zip_time(epoch)?;
    let sources = package::source_files(&opts.root)?;
    let crates = vendoring::CrateSources::for_project(
        &opts.root,
        opts.crate_cache.clone(),
        opts.acquire.allow_download,
    );
    // The vendored crates are read (or, the first time, made) on a second core while the inputs
    // are verified, the analysis runs and our own bundle entries are compressed.
    let plan = project.vendor_plan.clone();
    let lock = package::lock_text(&sources)?.to_string();
    let vendored_key = format!(
        "{epoch}\n{}\n{lock}",
        serde_json::to_string(&plan).unwrap_or_default()
    );
    let kept = keep.vendored(&vendored_key);
    let (vendored, rest) = workers::beside(
        "vendored crates",
        || match kept {
            Some(v) => Ok(v),
            None => vendoring::fragment(&lock, &plan, &bundle_root(), epoch, &crates)
                .and_then(package::Vendored::new),
        },
        || -> Result<_> {
            let inputs = keep.inputs(&project.manifest, &opts.acquire)?;
            timings.lap("acquire + verify inputs");
            let (computed, figures, data) = keep.data(project, &inputs, timings)?;
            let package = stage_package(&data, &inputs, &computed, sources, epoch, keep.entries())?;
            timings.lap("provenance, our bundle entries compressed");
            Ok((inputs, computed, figures, data, package))
        },
    );
    timings.lap("vendored crates (waited for)");
    let (inputs, computed, figures, data, package) = rest?;
    let vendored = vendored?;
    keep.keep_vendored(vendored_key, &vendored);
    let dist = assemble(&computed, &figures, data, package, Some(vendored), timings)?;
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
    let mut built = build_in_memory(opts, &mut timings, &mut Fresh::default())?;
    let signed = signature::sign(
        &mut built.dist,
        &built.computed.project.config,
        opts.sign.as_ref(),
        &opts.root,
        &opts.out,
    )?;
    timings.lap("signature");
    // The bytes read back must equal the validated bytes (which SHA256SUMS lists) before they
    // replace the previous output.
    crate::output::publish(&built.dist, &out, |dir| {
        crate::output::check_written(&built.dist, dir)
    })?;
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
        signature: signed,
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
    /// No lap yet, the clock started now.
    pub fn new() -> Self {
        Timings {
            last: std::time::Instant::now(),
            laps: Vec::new(),
        }
    }

    /// Records the wall time since the last lap (or the start) as the stage `name`.
    pub fn lap(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((name, now - self.last));
        self.last = now;
    }
}

/// Acquires the inputs and computes everything, without writing any output.
pub fn compute_from(opts: &BuildOptions) -> Result<(Inputs, Computed)> {
    let project = load_project(opts)?;
    let inputs = inputs::acquire(project.manifest.clone(), &opts.acquire)?;
    let computed = compute(project, &inputs)?;
    Ok((inputs, computed))
}
