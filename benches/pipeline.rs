//! Speed of each pipeline stage on the real inputs, and of the analysis on synthetic summaries of
//! 1k, 10k and 100k rows. Run with `cargo bench`; see BENCHMARKS.md for recorded figures.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use divan::{black_box, Bencher};
use ratios_dev::synth;
use scenario_ratios::inputs::{self, AcquireOptions, InputKind, Inputs};
use scenario_ratios::project::Project;
use scenario_ratios::{analysis, article, highlight, package, pipeline, summary};

fn project() -> &'static Project {
    static P: OnceLock<Project> = OnceLock::new();
    P.get_or_init(|| Project::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap())
}

fn main() {
    divan::main();
}

fn real_inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let cache =
            std::env::temp_dir().join(format!("scenario-ratios-bench-{}", std::process::id()));
        let opts = AcquireOptions {
            cache_dir: cache,
            mirror: Some(root.join("../shared/upstream")),
            download_base: None,
            allow_download: false,
            own_cache: false,
        };
        inputs::acquire(project().manifest.clone(), &opts).expect("mirror beside the repository")
    })
}

/// The vendored crates, as the build keeps them (the repository's data/crates).
fn fragment() -> &'static package::Vendored {
    static F: OnceLock<package::Vendored> = OnceLock::new();
    F.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let sources = package::source_files(root).unwrap();
        let crates = scenario_ratios::vendoring::CrateSources::for_project(
            root,
            root.join(scenario_ratios::vendoring::DEFAULT_CRATE_CACHE),
            false,
        );
        scenario_ratios::vendoring::fragment(
            package::lock_text(&sources).unwrap(),
            &project().vendor_plan,
            &scenario_ratios::base::layout::bundle_root(),
            1_795_996_800,
            &crates,
        )
        .and_then(package::Vendored::new)
        .unwrap()
    })
}

fn computed() -> &'static pipeline::Computed {
    static C: OnceLock<pipeline::Computed> = OnceLock::new();
    C.get_or_init(|| pipeline::compute(project().clone(), real_inputs()).unwrap())
}

#[divan::bench]
fn load_and_cross_check(b: Bencher) {
    let i = real_inputs();
    let csv = &i.single(InputKind::SummaryCsv).unwrap().bytes;
    let json = &i.single(InputKind::SummaryJson).unwrap().bytes;
    b.bench(|| summary::load(black_box(csv), black_box(json), Default::default()).unwrap());
}

#[divan::bench]
fn scope_and_matching(b: Bencher) {
    let c = computed();
    b.bench(|| {
        let a = analysis::analyse(black_box(&c.summary)).unwrap();
        highlight::select(&a, &c.project.config).unwrap()
    });
}

#[divan::bench]
fn svg_figures(b: Bencher) {
    let c = computed();
    b.bench(|| c.figures().unwrap());
}

#[divan::bench]
fn social_card(b: Bencher) {
    let c = computed();
    b.bench(|| {
        scenario_ratios::figure::card::card(&c.analysis, &c.highlights, &c.project.config).unwrap()
    });
}

#[divan::bench]
fn article_rendering(b: Bencher) {
    let c = computed();
    let figures = c.figures().unwrap();
    let downloads = article::blocks::downloads(
        &pipeline::render_data(c, &figures).unwrap(),
        scenario_ratios::base::layout::OutputFile::ALL,
    );
    b.bench(|| {
        article::render(
            &article::ArticleData {
                config: &c.project.config,
                analysis: &c.analysis,
                highlights: &c.highlights,
                checks: &c.checks,
                logs: &c.logs,
                manifest: &c.manifest,
                facts: &c.project.facts,
                notes: &c.notes,
                vendor_plan: &c.project.vendor_plan,
                figures: &figures,
                rounds: &c.project.rounds,
                previous: &c.previous,
                across: &c.across,
                downloads: &downloads,
                tool: scenario_ratios::TOOL,
            },
            &c.project.prose,
            &c.project.data_prose,
        )
        .unwrap()
    });
}

#[divan::bench]
fn zip_packaging(b: Bencher) {
    let mut entries: BTreeMap<String, Vec<u8>> =
        package::source_files(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    for f in &real_inputs().files {
        entries.insert(package::bundle_path(&f.pin), f.bytes.clone());
    }
    let vendored = fragment();
    b.with_inputs(|| vendored.copy()).bench_local_values(|v| {
        package::bundle(black_box(&entries), Some(v), 1_795_996_800, None).unwrap()
    });
}

/// Everything after acquisition, in memory: compute, render, package, validate.
#[divan::bench]
fn whole_pipeline_in_process(b: Bencher) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // The fragment is read on a second core in a real build: its copy is made outside the timing.
    b.with_inputs(|| fragment().copy())
        .bench_local_values(|vendored| {
            let c = pipeline::compute(Project::load(root).unwrap(), real_inputs()).unwrap();
            let figures = c.figures().unwrap();
            let data = pipeline::render_data(&c, &figures).unwrap();
            let sources = package::source_files(root).unwrap();
            let package = pipeline::stage_package(
                &data,
                real_inputs(),
                &c,
                sources,
                1_795_996_800,
                &mut package::Compressed::default(),
            )
            .unwrap();
            let mut timings = pipeline::Timings::new();
            pipeline::assemble(&c, &figures, data, package, Some(vendored), &mut timings).unwrap()
        });
}

/// Scope + matching + ratios on synthetic summaries (loading excluded).
#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 10, sample_size = 1)]
fn analysis_scaling(b: Bencher, rows: usize) {
    let (csv, json) = synth::generate(rows, 1, &project().config);
    let s = summary::load(&csv, &json, Default::default()).unwrap();
    b.bench(|| analysis::analyse(black_box(&s)).unwrap());
}

/// Loading and cross-checking synthetic summaries.
#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 5, sample_size = 1)]
fn load_scaling(b: Bencher, rows: usize) {
    let (csv, json) = synth::generate(rows, 1, &project().config);
    b.bench(|| summary::load(black_box(&csv), black_box(&json), Default::default()).unwrap());
}
