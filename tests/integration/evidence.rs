//! The LoadGen log parser on real logs of several shapes, and the checks on hand-made evidence.

use crate::support;
use scenario_ratios::analysis;
use scenario_ratios::evidence::loadgen::{parse_summary_log, Validity};
use scenario_ratios::evidence::{self, CheckKind, Status};
use scenario_ratios::highlight;
use scenario_ratios::inputs::{InputKind, Inputs};
use scenario_ratios::summary::{self, FileNames, Scenario};

fn read(rel: &str) -> String {
    std::fs::read_to_string(support::mirror().join(rel)).unwrap()
}

/// Every LoadGen summary log in the mirror (the highlighted rows, AMD's, and the checker's v5.1
/// sample) parses, and each says VALID in PerformanceOnly mode.
#[test]
fn every_real_summary_log_in_the_mirror_parses() {
    let logs: Vec<_> = walkdir::WalkDir::new(support::mirror())
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() == "mlperf_log_summary.txt")
        .collect();
    assert!(logs.len() >= 12, "8 highlighted + AMD + v5.1 sample logs");
    for e in logs {
        let name = e.path().display().to_string();
        let log = parse_summary_log(&name, &std::fs::read_to_string(e.path()).unwrap()).unwrap();
        assert_eq!(log.result, Validity::Valid, "{name}");
        assert!(log.throughput.value > 0.0, "{name}");
        assert_eq!(log.mode.as_str(), "PerformanceOnly", "{name}");
    }
}

#[test]
fn an_interactive_run_reports_the_server_scenario() {
    let text = read("intel-ai-tce/inference_results_v6.1/closed/AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99.9/Interactive/performance/run_1/mlperf_log_summary.txt");
    let log = parse_summary_log("interactive", &text).unwrap();
    assert_eq!(log.scenario, Scenario::Server);
    // LoadGen ran it with the tighter Interactive limits (450 ms / 40 ms).
    assert_eq!(log.ttft_limit_ns, Some(450_000_000));
    assert_eq!(log.tpot_limit_ns, Some(40_000_000));
}

const SERVER_LOG: &str = "\
Scenario : Server
Mode     : PerformanceOnly
Completed tokens per second: 850.0004
Result is : VALID
99.00 percentile first token latency (ns)   : 1999999999
99.00 percentile time to output token (ns)   : 80000000
";

/// Checks of the base fixture's highlighted rows, with `log` pinned as the LoadGen summary of the
/// B300 deepseek-r1 Server row (ID 1) and no other evidence.
fn base_checks_with_server_log(log: &str) -> evidence::Checks {
    let dir = support::fixture("base");
    let s = summary::load(
        &std::fs::read(dir.join("summary.csv")).unwrap(),
        &std::fs::read(dir.join("summary.json")).unwrap(),
        FileNames::default(),
    )
    .unwrap();
    let project = support::project();
    let a = analysis::analyse(&s).unwrap();
    let h = highlight::select(&a, &project.config).unwrap();
    let inputs = Inputs {
        manifest: project.manifest.clone(),
        files: vec![
            support::verified(
            "server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/deepseek-r1/Server/performance/run_1/mlperf_log_summary.txt",
                log.as_bytes(),
            ),
            support::checker_source(),
        ],
    };
    evidence::check(&s, &a.round, &h, &inputs, &project.facts).unwrap()
}

/// The base fixture's B300 deepseek-r1 Server row (ID 1, Result 850.0) with a hand-made log whose
/// p99 TPOT equals the 80 ms limit: the checker requires strictly below, so that check fails.
#[test]
fn p99_equal_to_the_limit_fails_and_missing_logs_are_not_checked() {
    let checks = base_checks_with_server_log(SERVER_LOG);
    let of = |row: u32, kind: CheckKind| {
        checks
            .items
            .iter()
            .find(|c| c.row.0 == row && c.kind == kind)
            .unwrap_or_else(|| panic!("check {kind} of row {row}"))
    };
    assert_eq!(of(1, CheckKind::ResultValid).status, Status::Pass);
    assert_eq!(
        of(1, CheckKind::Throughput).status,
        Status::Pass,
        "{}",
        of(1, CheckKind::Throughput).detail
    );
    assert_eq!(of(1, CheckKind::P99Ttft).status, Status::Pass);
    let tpot = of(1, CheckKind::P99Tpot);
    assert_eq!(tpot.status, Status::Fail);
    assert!(
        tpot.detail.contains("80 ms is not below limit 80 ms"),
        "{}",
        tpot.detail
    );
    // No log is pinned for the Offline row: not checked, never a silent pass.
    assert_eq!(of(0, CheckKind::ResultValid).status, Status::NotChecked);
    // Fixture accuracy "exact_match: 87.1" meets deepseek-r1's 80.544618; no token count reported.
    assert_eq!(
        of(1, CheckKind::AccuracyTarget("exact_match".into())).status,
        Status::Pass
    );
    assert_eq!(
        of(1, CheckKind::AccuracyTarget("TOKENS_PER_SAMPLE".into())).status,
        Status::NotChecked
    );
    // The log lists no condition under its verdict: not checked.
    assert_eq!(of(1, CheckKind::RunConditions).status, Status::NotChecked);
    assert_eq!(checks.fail, 1);
    assert_eq!(
        checks.pass + checks.fail + checks.not_checked,
        checks.items.len()
    );
}

/// The summary's 850.0 prints two significant digits, so it is read as the log's rate rounded to
/// six: 850.000. A log of 850.0004 agrees (half a unit of 0.001 plus half of 0.0001 is 0.00055);
/// one of 850.04, which six figures would have printed as 850.04, does not.
#[test]
fn the_rate_check_reads_the_summary_as_rounded_to_six_significant_figures() {
    let status = |log: &str| {
        let checks = base_checks_with_server_log(log);
        let c = checks
            .items
            .iter()
            .find(|c| c.row.0 == 1 && c.kind == CheckKind::Throughput)
            .unwrap()
            .clone();
        (c.status, c.detail)
    };
    let (ok, detail) = status(SERVER_LOG);
    assert_eq!(ok, Status::Pass, "{detail}");
    assert!(
        detail.contains("at most 0.00055; they differ by 0.0004"),
        "{detail}"
    );
    let (bad, detail) = status(&SERVER_LOG.replace("850.0004", "850.04"));
    assert_eq!(bad, Status::Fail, "{detail}");
    assert!(
        detail.contains("at most 0.0055; they differ by 0.04"),
        "{detail}"
    );
}

/// The conditions a log lists under its verdict: all met passes, one "No" fails naming it, and a
/// Server log that leaves out the latency constraints fails naming what is not listed.
#[test]
fn the_run_conditions_are_read_from_under_the_verdict() {
    let conditions = "  Performance constraints satisfied : Yes\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: Yes\n";
    let with =
        |c: &str| SERVER_LOG.replace("Result is : VALID\n", &format!("Result is : VALID\n{c}"));
    let check = |log: String| {
        base_checks_with_server_log(&log)
            .items
            .into_iter()
            .find(|c| c.row.0 == 1 && c.kind == CheckKind::RunConditions)
            .unwrap()
    };
    let all = check(with(conditions));
    assert_eq!(all.status, Status::Pass, "{}", all.detail);
    assert_eq!(all.short, "4 of 4 conditions met");
    let no = check(with(
        &conditions.replace("Min queries satisfied : Yes", "Min queries satisfied : No"),
    ));
    assert_eq!(no.status, Status::Fail);
    assert!(
        no.detail.contains("not met: Min queries satisfied"),
        "{}",
        no.detail
    );
    let without = check(with(
        &conditions.replace("  Performance constraints satisfied : Yes\n", ""),
    ));
    assert_eq!(without.status, Status::Fail);
    assert!(
        without
            .detail
            .contains("not listed: Performance constraints satisfied"),
        "{}",
        without.detail
    );
}

#[test]
fn an_invalid_log_fails_its_check() {
    let bad = SERVER_LOG
        .replace(": VALID", ": INVALID")
        .replace("850.0004", "900");
    let checks = base_checks_with_server_log(&bad);
    let status = |kind: CheckKind| {
        checks
            .items
            .iter()
            .find(|c| c.row.0 == 1 && c.kind == kind)
            .unwrap()
            .status
    };
    assert_eq!(status(CheckKind::ResultValid), Status::Fail);
    assert_eq!(status(CheckKind::Throughput), Status::Fail);
}
