//! The LoadGen log parser on real logs of several shapes, and the checks on hand-made evidence.

mod common;

use scenario_ratios::analysis;
use scenario_ratios::config::ArticleConfig;
use scenario_ratios::evidence::{self, CheckerFacts, LogScenario, Status};
use scenario_ratios::inputs::{InputKind, InputManifest, Inputs, PinnedInput};
use scenario_ratios::summary::{self, FileNames};

fn read(rel: &str) -> String {
    std::fs::read_to_string(common::mirror().join(rel)).unwrap()
}

/// Every pinned LoadGen summary log of the mirror parses, and each says VALID.
#[test]
fn every_pinned_real_summary_log_parses() {
    let m = InputManifest::committed().unwrap();
    let logs: Vec<&PinnedInput> = m.of_kind(InputKind::LoadgenSummary).collect();
    assert!(logs.len() >= 12, "8 highlighted + AMD + v5.1 sample logs");
    for pin in logs {
        let text = read(&pin.mirror_path().to_string_lossy());
        let log = evidence::parse_summary_log(&pin.name, &text).unwrap();
        assert!(log.is_valid(), "{}", pin.name);
        assert!(log.throughput.value > 0.0, "{}", pin.name);
        assert_eq!(log.mode, "PerformanceOnly", "{}", pin.name);
    }
}

/// The v5.1 sample has both log shapes for one run; they must tell the same story.
#[test]
fn detail_and_summary_logs_of_one_run_agree() {
    let base = "mlcommons/inference/tools/submission/directory_structure_samples/sample_1/closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99.9";
    for scenario in ["Offline", "Server"] {
        let dir = format!("{base}/{scenario}/performance/run_1");
        let s =
            evidence::parse_summary_log("summary", &read(&format!("{dir}/mlperf_log_summary.txt")))
                .unwrap();
        let d =
            evidence::parse_detail_log("detail", &read(&format!("{dir}/mlperf_log_detail.txt")))
                .unwrap();
        assert_eq!(s.scenario, d.scenario);
        assert_eq!(s.result, d.result);
        assert_eq!(s.mode, d.mode);
        // Each log rounds the throughput to its own printed digits (24593.77 vs 24593.8).
        let tol = evidence::half_unit_of_last_digit(&s.throughput.text)
            .max(evidence::half_unit_of_last_digit(&d.throughput.text));
        assert!(
            (s.throughput.value - d.throughput.value).abs() <= tol,
            "{scenario}"
        );
        assert_eq!(s.p99_ttft_ns, d.p99_ttft_ns);
        assert_eq!(s.p99_tpot_ns, d.p99_tpot_ns);
        if scenario == "Server" {
            assert_eq!(s.ttft_limit_ns, d.ttft_limit_ns);
            assert_eq!(s.tpot_limit_ns, d.tpot_limit_ns);
        }
    }
}

#[test]
fn an_interactive_run_reports_the_server_scenario() {
    let text = read("intel-ai-tce/inference_results_v6.1/closed/AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99.9/Interactive/performance/run_1/mlperf_log_summary.txt");
    let log = evidence::parse_summary_log("interactive", &text).unwrap();
    assert_eq!(log.scenario, LogScenario::Server);
    // LoadGen ran it with the tighter Interactive limits (450 ms / 40 ms).
    assert_eq!(log.ttft_limit_ns, Some(450_000_000));
    assert_eq!(log.tpot_limit_ns, Some(40_000_000));
}

const SERVER_LOG: &str = "\
Scenario : Server
Mode     : PerformanceOnly
Completed tokens per second: 850.04
Result is : VALID
99.00 percentile first token latency (ns)   : 1999999999
99.00 percentile time to output token (ns)   : 80000000
";

/// Checks of the base fixture's highlighted rows, with `log` pinned as the LoadGen summary of the
/// B300 deepseek-r1 Server row (ID 1) and no other evidence.
fn base_checks_with_server_log(log: &str) -> evidence::Checks {
    let dir = common::fixture("base");
    let s = summary::load(
        &std::fs::read(dir.join("summary.csv")).unwrap(),
        &std::fs::read(dir.join("summary.json")).unwrap(),
        FileNames::default(),
    )
    .unwrap();
    let a = analysis::analyse(&s, &ArticleConfig::committed().unwrap()).unwrap();
    let inputs = Inputs {
        manifest: InputManifest::committed().unwrap(),
        files: vec![common::verified(
            "server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/deepseek-r1/Server/performance/run_1/mlperf_log_summary.txt",
            log.as_bytes(),
        )],
    };
    evidence::check(&s, &a, &inputs, &CheckerFacts::committed().unwrap()).unwrap()
}

/// The base fixture's B300 deepseek-r1 Server row (ID 1, Result 850.0) with a hand-made log whose
/// p99 TPOT equals the 80 ms limit: the checker requires strictly below, so that check fails.
#[test]
fn p99_equal_to_the_limit_fails_and_missing_logs_are_not_checked() {
    let checks = base_checks_with_server_log(SERVER_LOG);
    let of = |row: u32, name: &str| {
        checks
            .items
            .iter()
            .find(|c| c.row.0 == row && c.name == name)
            .unwrap_or_else(|| panic!("check {name} of row {row}"))
    };
    assert_eq!(of(1, "result-valid").status, Status::Pass);
    assert_eq!(
        of(1, "throughput").status,
        Status::Pass,
        "{}",
        of(1, "throughput").detail
    );
    assert_eq!(of(1, "p99-ttft").status, Status::Pass);
    let tpot = of(1, "p99-tpot");
    assert_eq!(tpot.status, Status::Fail);
    assert!(
        tpot.detail.contains("80 ms is not below limit 80 ms"),
        "{}",
        tpot.detail
    );
    // No log is pinned for the Offline row: not checked, never a silent pass.
    assert_eq!(of(0, "result-valid").status, Status::NotChecked);
    // Fixture accuracy "exact_match: 87.1" meets deepseek-r1's 80.544618; no token count reported.
    assert_eq!(of(1, "accuracy exact_match target").status, Status::Pass);
    assert_eq!(
        of(1, "accuracy TOKENS_PER_SAMPLE target").status,
        Status::NotChecked
    );
    assert_eq!(checks.fail, 1);
    assert_eq!(
        checks.pass + checks.fail + checks.not_checked,
        checks.items.len()
    );
}

#[test]
fn an_invalid_log_fails_its_check() {
    let bad = SERVER_LOG
        .replace(": VALID", ": INVALID")
        .replace("850.04", "900");
    let checks = base_checks_with_server_log(&bad);
    let status = |name: &str| {
        checks
            .items
            .iter()
            .find(|c| c.row.0 == 1 && c.name == name)
            .unwrap()
            .status
    };
    assert_eq!(status("result-valid"), Status::Fail);
    assert_eq!(status("throughput"), Status::Fail);
}
