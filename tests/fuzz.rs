//! Property tests of the loaders and the LoadGen parsers: arbitrary or mutated bytes never panic;
//! every failure is an ordinary error value. CI runs the default number of cases (a few seconds);
//! for a longer run: `PROPTEST_CASES=20000 cargo test --release --test fuzz`.
//! Inputs that once crashed a parser are kept as regression cases at the end of this file.

mod common;

use proptest::prelude::*;
use scenario_ratios::analysis;
use scenario_ratios::config::ArticleConfig;
use scenario_ratios::evidence;
use scenario_ratios::summary::{self, FileNames};

fn base(name: &str) -> Vec<u8> {
    std::fs::read(common::fixture("base").join(name)).unwrap()
}

fn real_log() -> String {
    std::fs::read_to_string(common::mirror().join(
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

/// Loads and, when loading succeeds, analyses: must return, never panic.
fn load_and_analyse(csv: &[u8], json: &[u8]) {
    if let Ok(s) = summary::load(csv, json, FileNames::default()) {
        let config = ArticleConfig::committed().unwrap();
        let _ = analysis::analyse(&s, &config);
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
    fn arbitrary_text_never_panics_the_log_parsers(text in ".{0,600}") {
        let _ = evidence::parse_summary_log("fuzz", &text);
        let _ = evidence::parse_detail_log("fuzz", &text);
        let _ = evidence::parse_accuracy_report("fuzz", &text);
        let _ = evidence::parse_accuracy_field(&text);
        let _ = evidence::half_unit_of_last_digit(&text);
    }

    #[test]
    fn mutated_real_logs_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..8)) {
        let bytes = mutate(real_log().into_bytes(), &edits);
        let text = String::from_utf8_lossy(&bytes);
        let _ = evidence::parse_summary_log("fuzz", &text);
        let detail = text.lines().map(|l| format!(":::MLLOG {l}")).collect::<Vec<_>>().join("\n");
        let _ = evidence::parse_detail_log("fuzz", &detail);
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
        let a = evidence::parse_summary_log("a", &text).unwrap();
        let b = evidence::parse_summary_log("b", &shuffled).unwrap();
        prop_assert_eq!(a, b);
    }
}

/// Edge inputs kept as regression cases. The first overflowed `i32` (a panic in debug builds)
/// before `half_unit_of_last_digit` used `saturating_sub`; it was found by review while writing
/// these properties. The long runs recorded in BENCHMARKS.md found no crash.
#[test]
fn regression_inputs_are_errors_or_values_not_panics() {
    assert!(evidence::half_unit_of_last_digit("1.5e-2147483648") >= 0.0);
    assert!(evidence::parse_accuracy_report("x", "'").is_err());
    assert!(evidence::parse_accuracy_report("x", "'a':").is_err());
    assert!(evidence::parse_summary_log("x", "Scenario : Server\nMode : x\nResult is : VALID\nCompleted tokens per second : 1\n99.00 percentile first token latency (ns) : -1\n").is_err());
    load_and_analyse(b"", b"");
    load_and_analyse(&base("summary.csv"), b"{}");
    load_and_analyse(b"\xEF\xBB\xBF", b"\xEF\xBB\xBF");
}
