//! Loads a synthetic summary of N rows and runs the analysis once: a target for instruction
//! counts, e.g. `valgrind --tool=callgrind --toggle-collect='*analysis*analyse*'
//! target/release/examples/analyse_synthetic 100000` (see BENCHMARKS.md).

use ratios_dev::synth;
use scenario_ratios::project::Project;
use scenario_ratios::{analysis, summary};

fn main() {
    let rows: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let config = Project::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
        .expect("the project beside this example")
        .config;
    let (csv, json) = synth::generate(rows, 1, &config);
    let s = summary::load(&csv, &json, Default::default()).expect("synthetic files load");
    let started = std::time::Instant::now();
    let a = analysis::analyse(&s).expect("synthetic files analyse");
    println!(
        "{rows} rows: {} eligible, {} pairs, {} unmatched; analysis {:.1} ms",
        a.counts.eligible,
        a.counts.pairs,
        a.counts.unmatched,
        started.elapsed().as_secs_f64() * 1e3
    );
}
