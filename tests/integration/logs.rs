//! Every pair checked against its two LoadGen logs, and its ratio taken apart, on the base
//! fixture with hand-made logs whose answers are worked out by hand below: a pair that runs at
//! its TPOT limit, a log that counts errors and prints a negative minimum latency, a log whose
//! rate disagrees with its summary row, and a pair with no log at all.

use scenario_ratios::analysis;
use scenario_ratios::evidence::pair_logs::{pair_logs, PairLogs};
use scenario_ratios::inputs::{InputKind, Inputs};
use scenario_ratios::summary::{self, FileNames, RowId};

use crate::support;

/// Where the logs of a base-fixture row sit in a copy of the v6.1 results tree.
fn at(system: &str, model: &str, scenario: &str) -> String {
    format!("closed/NVIDIA/results/{system}/{model}/{scenario}/performance/run_1/mlperf_log_summary.txt")
}

const B300: &str = "B300-SXM-270GBx8_TRT";
const GB200: &str = "GB200-NVL72_GB200-186GB_aarch64x72_TRT";

/// An Offline log: `samples` samples/s and `tokens` tokens/s.
fn offline(samples: &str, tokens: &str) -> String {
    format!(
        "Scenario : Offline\nMode     : PerformanceOnly\nSamples per second: {samples}\nTokens per second: {tokens}\nResult is : VALID\n\nNo warnings encountered during test.\n\nNo errors encountered during test.\n"
    )
}

/// A Server log: completed and scheduled samples/s, completed tokens/s, the target, the p99
/// latencies and the limits in ns, and the closing lines `tail`.
#[allow(clippy::too_many_arguments)]
fn server(
    completed: &str,
    scheduled: &str,
    tokens: &str,
    target: &str,
    p99_ttft: u64,
    p99_tpot: u64,
    limits: (u64, u64),
    extra: &str,
    tail: &str,
) -> String {
    format!(
        "Scenario : Server\nMode     : PerformanceOnly\nCompleted samples per second    : {completed}\nCompleted tokens per second: {tokens}\nResult is : VALID\n  Performance constraints satisfied : Yes\nScheduled samples per second : {scheduled}\n{extra}99.00 percentile first token latency (ns)   : {p99_ttft}\n99.00 percentile time to output token (ns)   : {p99_tpot}\ntarget_qps : {target}\nttft_latency (ns): {}\ntpot_latency (ns): {}\n{tail}",
        limits.0, limits.1
    )
}

const CLEAN: &str =
    "\nNo warnings encountered during test.\n\nNo errors encountered during test.\n";

fn logs_of(files: &[(String, String)]) -> PairLogs {
    let dir = support::fixture("base");
    let csv = std::fs::read(dir.join("summary.csv")).unwrap();
    let json = std::fs::read(dir.join("summary.json")).unwrap();
    let s = summary::load(&csv, &json, FileNames::default()).unwrap();
    let a = analysis::analyse(&s).unwrap();
    let project = support::project();
    let inputs = Inputs {
        manifest: project.manifest.clone(),
        files: files
            .iter()
            .map(|(path, text)| {
                support::verified(
                    path,
                    InputKind::LoadgenSummary,
                    "example/inference_results_v6.1",
                    path,
                    text.as_bytes(),
                )
            })
            .collect(),
    };
    let order: Vec<String> = a.benchmarks.iter().map(|b| b.benchmark.clone()).collect();
    let logs = &project.rounds.main().logs;
    pair_logs(&s, logs, &a.pairs, &order, &inputs, &project.facts).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn each_pair_is_checked_against_its_logs_and_its_ratio_taken_apart() {
    let logs = logs_of(&[
        // B300 deepseek-r1, rows 0 and 1 (1000 -> 850 tokens/s, ratio 0.85). Offline: 2 samples/s,
        // 500 tokens each. Server scheduled at 1.8 samples/s (target 1.8), completed 1.7, 500
        // tokens each: load 1.8 / 2 = 0.9, drain 1.7 / 1.8, length 1, product 0.85. Its p99
        // TPOT 78 ms is 97.5 % of the 80 ms limit: at the limit; its TTFT 1000 ms is 50 % of 2000.
        (at(B300, "deepseek-r1", "Offline"), offline("2.0", "1000.0")),
        (
            at(B300, "deepseek-r1", "Server"),
            server(
                "1.7",
                "1.8",
                "850.0",
                "1.8",
                1_000_000_000,
                78_000_000,
                (2_000_000_000, 80_000_000),
                "",
                CLEAN,
            ),
        ),
        // B300 gpt-oss-120b, rows 2 and 3 (2000 -> 1900). Offline 4 samples/s (500 tokens each);
        // Server target 4, scheduled 4.0, completed 3.8 (500 tokens each): load 1, drain
        // 0.95, length 1. p99 TTFT 1500 ms of 3000 (50 %), TPOT 40 ms of 80 (50 %). The log ends
        // with two errors and prints a negative minimum first-token latency.
        (at(B300, "gpt-oss-120b", "Offline"), offline("4.0", "2000.0")),
        (
            at(B300, "gpt-oss-120b", "Server"),
            server(
                "3.8",
                "4.0",
                "1900.0",
                "4",
                1_500_000_000,
                40_000_000,
                (3_000_000_000, 80_000_000),
                "Min First Token latency (ns)                : -9223372036854775808\n",
                "\nNo warnings encountered during test.\n\n2 ERRORS encountered. See detailed log.\n",
            ),
        ),
        // B300 llama2-70b-99.9, rows 4 and 5: no log pinned for either.
        // GB200 gpt-oss-120b, rows 6 and 7 (5000 -> 5100). The Server log's rate, 5200.0, is not
        // the summary's 5100.0: reported, both numbers kept. Offline 10 samples/s (500 each);
        // Server scheduled 10.4 at target 10.4, completed 10.4, 500 tokens each.
        (at(GB200, "gpt-oss-120b", "Offline"), offline("10.0", "5000.0")),
        (
            at(GB200, "gpt-oss-120b", "Server"),
            server(
                "10.4",
                "10.4",
                "5200.0",
                "10.4",
                600_000_000,
                20_000_000,
                (3_000_000_000, 80_000_000),
                "",
                CLEAN,
            ),
        ),
    ]);
    // Six rows have logs, of the 20 paired rows of the base fixture (rows 0-7 and 13-24).
    assert_eq!(logs.rows_checked, 6);
    assert_eq!(logs.rows_paired, 20);
    let pair = |id: u32| logs.pair(RowId(id)).unwrap();

    let deepseek = pair(0);
    let f = deepseek
        .factors
        .as_ref()
        .expect("both logs print the factors");
    assert!(close(f.load, 0.9));
    assert!(close(f.drain, 1.7 / 1.8));
    assert!(close(f.drain_free, 0.9));
    assert!(close(f.length, 1.0));
    assert!(close(f.product, 0.85));
    assert!(f.product_agrees);
    assert!(close(f.tpot_share, 0.975));
    assert!(close(f.ttft_share, 0.5));
    assert_eq!(f.binding, Some("TPOT"));
    assert_eq!(f.target_qps, "1.8");
    assert!(!f.whole_target);
    assert!(close(f.unit_share, 1.0 / 1.8));
    let server = deepseek.server.as_ref().unwrap();
    assert!(server.passes() && server.limits_agree == Some(true));
    assert_eq!((server.errors, server.warnings), (Some(0), Some(0)));

    let gptoss = pair(2);
    let server = gptoss.server.as_ref().unwrap();
    assert_eq!(server.errors, Some(2));
    assert!(server.negative_min_ttft);
    // Errors are reported, not failed: the summary keeps the row, and its errors field is 0 for every row.
    assert!(server.passes());
    let f = gptoss.factors.as_ref().unwrap();
    assert!(close(f.load, 1.0) && close(f.drain, 0.95) && close(f.product, 0.95));
    assert_eq!(f.binding, None);
    assert!(f.whole_target);

    // No log: named, never dropped.
    let llama = pair(4);
    assert!(llama.offline.is_none() && llama.server.is_none() && llama.factors.is_none());
    assert!(logs.pairs_without_logs.contains(&RowId(4)));

    // The GB200 Server log's rate disagrees with its row: the check fails and keeps both
    // numbers; its product (1.04) is not the summary's ratio (1.02).
    let gb200 = pair(6);
    let server = gb200.server.as_ref().unwrap();
    assert!(!server.result_agrees && !server.passes());
    assert_eq!(
        (server.log_result.as_str(), server.summary_result.as_str()),
        ("5200.0", "5100.0")
    );
    assert_eq!(logs.rows_failing, vec![RowId(7)]);
    assert!(!gb200.factors.as_ref().unwrap().product_agrees);
    assert_eq!(logs.products_disagreeing, 1);

    assert_eq!(logs.rows_with_errors, vec![RowId(3)]);
    assert_eq!(logs.rows_negative_min_ttft, vec![RowId(3)]);
    assert_eq!((logs.with_factors, logs.near_limit), (3, 1));
    // deepseek-r1's factors are its one pair's.
    let b = logs
        .benchmarks
        .iter()
        .find(|b| b.benchmark == "deepseek-r1")
        .unwrap();
    assert_eq!((b.pairs, b.near_tpot, b.near_ttft), (1, 1, 0));
    assert!(close(b.median_load, 0.9));
    // Its gap in logarithms: ln 0.9 of ln 0.85 from the load, ln(1.7 / 1.8) from the drain.
    let [load, drain, length] = b.log_shares.unwrap();
    assert!(close(load, 0.9f64.ln() / 0.85f64.ln()));
    assert!(close(drain, (1.7f64 / 1.8).ln() / 0.85f64.ln()));
    assert!(length.abs() < 1e-12);
}
