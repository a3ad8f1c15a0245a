//! Property tests of the loaders, the LoadGen parsers, the markup checks and `verify`: arbitrary or mutated bytes
//! never panic and never allocate more than a fixed cap; every failure is an ordinary error value.
//! CI runs the default number of cases (a few seconds); for a longer run:
//! `PROPTEST_CASES=20000 cargo test --release --test fuzz`.
//! Inputs that once crashed a parser are kept as regression cases at the end of this file.

// The helpers of the integration tests (tests/integration/support/); this binary uses a few of
// them, so those it leaves unused are not reported here (the integration binary uses them all).
#[allow(dead_code, unused_imports)]
#[path = "integration/support/mod.rs"]
mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;
use scenario_ratios::analysis;
use scenario_ratios::base::markup;
use scenario_ratios::evidence::accuracy::{
    half_unit_of_last_digit, parse_accuracy_field, parse_accuracy_report,
};
use scenario_ratios::evidence::loadgen::parse_summary_log;
use scenario_ratios::project::facts::CheckerFacts;
use scenario_ratios::self_check;
use scenario_ratios::summary::{self, FileNames};

fn facts() -> &'static CheckerFacts {
    static FACTS: OnceLock<CheckerFacts> = OnceLock::new();
    FACTS.get_or_init(|| support::project().facts)
}

/// The system allocator, counting the bytes each thread holds and the most it held, so a case can
/// assert its peak even while other tests run on other threads.
struct Counting;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let _ = HELD.try_with(|h| {
                let now = h.get() + layout.size();
                h.set(now);
                let _ = PEAK.try_with(|m| m.set(m.get().max(now)));
            });
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        let _ = HELD.try_with(|h| h.set(h.get().saturating_sub(layout.size())));
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Most bytes any single case may hold at once.
const MEMORY_CAP: usize = 256 << 20;

/// Runs `f` and returns the most bytes this thread held above what it held before.
fn peak_of(f: impl FnOnce()) -> usize {
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    f();
    PEAK.with(Cell::get).saturating_sub(base)
}

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One real build, made once per test binary: (the folder holding it, the dist path).
fn real_dist() -> &'static (tempfile::TempDir, PathBuf) {
    static DIST: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    DIST.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("dist");
        let o = support::build_real(&out, &tmp.path().join("cache"), &[]);
        assert!(o.status.success(), "{}", support::stderr(&o));
        (tmp, out)
    })
}

fn base(name: &str) -> Vec<u8> {
    std::fs::read(support::fixture("base").join(name)).unwrap()
}

fn real_log() -> String {
    std::fs::read_to_string(support::mirror().join(
        "intel-ai-tce/inference_results_v6.1/closed/NVIDIA/results/B300-SXM-270GBx8_TRT/deepseek-r1/Server/performance/run_1/mlperf_log_summary.txt",
    ))
    .unwrap()
}

/// Applies byte edits: (position, action) where action 0 flips a bit, 1 deletes, 2 inserts, 3 truncates.
fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    for &(pos, action, value) in edits {
        if bytes.is_empty() {
            bytes.push(value);
            continue;
        }
        let i = pos % bytes.len();
        match action % 4 {
            0 => bytes[i] ^= 1 << (value % 8),
            1 => {
                bytes.remove(i);
            }
            2 => bytes.insert(i, value),
            _ => bytes.truncate(i),
        }
    }
    bytes
}

/// The previous round's declaration (v5.1: one JSON array in another schema).
fn previous_spec() -> &'static scenario_ratios::project::rounds::RoundSpec {
    static SPEC: OnceLock<scenario_ratios::project::rounds::RoundSpec> = OnceLock::new();
    SPEC.get_or_init(|| support::project().rounds.rounds[1].clone())
}

/// Reads `bytes` as the previous round's summary and, when that succeeds, analyses it: must
/// return, never panic, and stay under the cap.
fn load_and_analyse_array(bytes: &[u8]) {
    let spec = previous_spec();
    let peak = peak_of(|| {
        if let Ok(s) = summary::json_array::load(spec, bytes, "summary_results.json") {
            let _ = analysis::analyse_with(&s, &spec.same_model);
        }
    });
    assert!(peak < MEMORY_CAP, "loading held {peak} bytes");
}

/// Loads and, when loading succeeds, analyses: must return, never panic, and stay under the cap.
fn load_and_analyse(csv: &[u8], json: &[u8]) {
    let peak = peak_of(|| {
        if let Ok(s) = summary::load(csv, json, FileNames::default()) {
            let _ = analysis::analyse(&s);
        }
    });
    assert!(peak < MEMORY_CAP, "loading held {peak} bytes");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Random edits of a real bundle (anywhere, or in its central directory and end record) and
    /// of its SHA256SUMS: verify reports problems, never panics, and stays under the cap.
    #[test]
    fn mutated_bundles_and_sums_never_panic_verify(
        zip_edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>(), any::<bool>()), 0..6),
        sums_edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..4),
    ) {
        let (_, dist) = real_dist();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("dist");
        support::copy_tree(dist, &out);
        let zip_path = out.join("reproducibility.zip");
        let mut zip = std::fs::read(&zip_path).unwrap();
        for &(pos, action, value, near_end) in &zip_edits {
            // Half the edits land in the last 4 kB: the central directory and the end record.
            let pos = if near_end { zip.len().saturating_sub(4096) + pos % 4096 } else { pos };
            zip = mutate(zip, &[(pos, action, value)]);
        }
        std::fs::write(&zip_path, &zip).unwrap();
        let sums = mutate(std::fs::read(out.join("SHA256SUMS")).unwrap(), &sums_edits);
        std::fs::write(out.join("SHA256SUMS"), &sums).unwrap();
        let mut problems = 0;
        let peak = peak_of(|| {
            problems = scenario_ratios::verify::verify_path(&out, None).problems.total();
            let _ = scenario_ratios::verify::verify_path(&zip_path, None);
        });
        prop_assert!(peak < MEMORY_CAP, "verify held {peak} bytes");
        if !zip_edits.is_empty() || !sums_edits.is_empty() {
            // Most edits must be caught; an edit can be a no-op only when it restores a byte.
            let changed = zip != std::fs::read(dist.join("reproducibility.zip")).unwrap()
                || sums != std::fs::read(dist.join("SHA256SUMS")).unwrap();
            prop_assert!(!changed || problems > 0, "a changed file verified");
        }
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_the_loader(csv in proptest::collection::vec(any::<u8>(), 0..2048),
                                               json in proptest::collection::vec(any::<u8>(), 0..2048)) {
        load_and_analyse(&csv, &json);
    }

    #[test]
    fn mutated_fixtures_never_panic_the_loader(
        csv_edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        json_edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
    ) {
        let csv = mutate(base("summary.csv"), &csv_edits);
        let json = mutate(base("summary.json"), &json_edits);
        load_and_analyse(&csv, &json);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_array_loader(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        load_and_analyse_array(&bytes);
    }

    /// Edits of the earlier round's fixture, and whole fields swapped for arbitrary JSON values.
    #[test]
    fn mutated_arrays_never_panic_the_loader(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        value in prop::sample::select(vec!["null", "true", "-1", "1e400", "9223372036854775808", "[]", "{}", "\"\"", "\"\\u0000\"", "0.5"]),
        at in any::<usize>(),
    ) {
        let text = String::from_utf8(std::fs::read(support::fixture("previous_round").join("summary_results.json")).unwrap()).unwrap();
        load_and_analyse_array(&mutate(text.clone().into_bytes(), &edits));
        // Replace the value after the `at`-th `": ` with `value`, up to the next comma or brace.
        let places: Vec<usize> = text.match_indices("\": ").map(|(i, _)| i + 3).collect();
        if let Some(&start) = places.get(at % places.len().max(1)) {
            let end = text[start..].find([',', '}']).map_or(text.len(), |e| start + e);
            let swapped = format!("{}{value}{}", &text[..start], &text[end..]);
            load_and_analyse_array(swapped.as_bytes());
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_log_parsers(text in ".{0,600}") {
        let _ = parse_summary_log("fuzz", &text);
        let _ = parse_accuracy_report("fuzz", &text, facts());
        let _ = parse_accuracy_field(&text);
        let _ = half_unit_of_last_digit(&text);
    }

    #[test]
    fn mutated_real_logs_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..8)) {
        let bytes = mutate(real_log().into_bytes(), &edits);
        let text = String::from_utf8_lossy(&bytes);
        let peak = peak_of(|| {
            let _ = parse_summary_log("fuzz", &text);
        });
        prop_assert!(peak < MEMORY_CAP);
    }

    #[test]
    fn log_lines_in_any_order_parse_the_same(seed in any::<u64>()) {
        // The parser reads `key : value` lines wherever they are.
        let text = real_log();
        let mut lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        let mut state = seed;
        for i in (1..n).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lines.swap(i, (state >> 33) as usize % (i + 1));
        }
        // (The one repeated key, the throughput, has the same value at both places in this log.)
        let shuffled = lines.join("\n");
        let a = parse_summary_log("a", &text).unwrap();
        let b = parse_summary_log("b", &shuffled).unwrap();
        prop_assert_eq!(a, b);
    }
}

/// A random tree of elements as HTML: every element closed in order (void ones have no end tag).
fn nested_html() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        "[a-z <>&;=\"]{0,6}".prop_map(|t| t.replace('<', "&lt;")),
        Just("<br>".to_string()),
        Just("<img alt=\"\"/>".to_string()),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        (
            prop::sample::select(vec!["div", "span", "p", "details", "summary", "em", "svg"]),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(tag, children)| format!("<{tag} class=\"c\">{}</{tag}>", children.concat()))
    })
}

proptest! {
    #[test]
    fn well_nested_markup_passes_and_a_lost_or_swapped_end_tag_is_found(
        html in nested_html(),
        pick in any::<usize>(),
    ) {
        let mut n = markup::Nesting::default();
        n.feed(&html, 0);
        prop_assert_eq!(n.finish(), None);
        let page = format!("<html><body>\n{html}\n</body></html>");
        prop_assert_eq!(self_check::scan(&page).structure, Vec::<String>::new());
        // Cut one end tag: some element is then closed out of order or never.
        let ends: Vec<usize> = html.match_indices("</").map(|(i, _)| i).collect();
        if !ends.is_empty() {
            let at = ends[pick % ends.len()];
            let len = html[at..].find('>').unwrap() + 1;
            let cut = format!("{}{}", &html[..at], &html[at + len..]);
            let mut n = markup::Nesting::default();
            n.feed(&cut, 0);
            prop_assert!(n.finish().is_some(), "{}", cut);
        }
        // Swap the names of two end tags that differ: the counts still balance, but the first
        // of them now closes an element other than the innermost open one.
        let names: Vec<(usize, &str)> = ends
            .iter()
            .map(|&i| (i, &html[i + 2..i + html[i..].find('>').unwrap()]))
            .collect();
        let first = (!names.is_empty()).then(|| names[pick % names.len()]);
        if let Some((i, x)) = first {
            if let Some(&(j, y)) = names.iter().find(|(j, y)| *j > i && *y != x) {
                let swapped = format!(
                    "{}</{y}>{}</{x}>{}",
                    &html[..i],
                    &html[i + x.len() + 3..j],
                    &html[j + y.len() + 3..]
                );
                let mut n = markup::Nesting::default();
                n.feed(&swapped, 0);
                prop_assert!(
                    matches!(n.finish(), Some(markup::Misnesting::ClosesAnother { .. })),
                    "{}",
                    swapped
                );
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_page_scan_or_the_prose(text in ".{0,400}") {
        let scan = self_check::scan(&text);
        let _ = scan.structure;
        let values = scenario_ratios::article::catalogue::Values::default();
        let _ = scenario_ratios::article::prose::render_prose(&text, &values, &Default::default(), &[], &[]);
    }
}

/// The counter is not vacuous: verifying the real bundle holds at least the bundle's bytes.
#[test]
fn the_allocation_counter_sees_what_verify_holds() {
    let (_, dist) = real_dist();
    let zip_len = std::fs::metadata(dist.join("reproducibility.zip"))
        .unwrap()
        .len() as usize;
    let mut problems = Default::default();
    let peak = peak_of(|| problems = scenario_ratios::verify::verify_path(dist, None).problems);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(
        peak >= zip_len && peak < MEMORY_CAP,
        "peak {peak}, bundle {zip_len}"
    );
}

/// Edge inputs kept as regression cases. The first overflowed `i32` (a panic in debug builds)
/// before `half_unit_of_last_digit` used `saturating_sub`; it was found by review while writing
/// these properties. The long runs recorded in BENCHMARKS.md found no crash.
#[test]
fn regression_inputs_are_errors_or_values_not_panics() {
    assert!(half_unit_of_last_digit("1.5e-2147483648") >= 0.0);
    assert!(parse_accuracy_report("x", "'", facts()).is_err());
    assert!(parse_accuracy_report("x", "'a':", facts()).is_err());
    assert!(parse_summary_log("x", "Scenario : Server\nMode : x\nResult is : VALID\nCompleted tokens per second : 1\n99.00 percentile first token latency (ns) : -1\n").is_err());
    load_and_analyse(b"", b"");
    load_and_analyse(&base("summary.csv"), b"{}");
    load_and_analyse(b"\xEF\xBB\xBF", b"\xEF\xBB\xBF");
}
