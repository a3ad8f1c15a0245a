//! Hand-made summary pairs under `tests/fixtures/`, each with the outcome worked out by hand from
//! its rows (see tests/fixtures/README.md for what each case holds).

mod common;

use scenario_ratios::analysis::{self, Analysis, Scenario, UnmatchedReason};
use scenario_ratios::config::{ArticleConfig, PairSelector};
use scenario_ratios::summary::{self, FileNames, RowId};
use scenario_ratios::{Error, Result};

fn load(case: &str) -> Result<summary::Summary> {
    let dir = common::fixture(case);
    let csv = std::fs::read(dir.join("summary.csv")).unwrap();
    let json = std::fs::read(dir.join("summary.json")).unwrap();
    summary::load(&csv, &json, FileNames::default())
}

/// The committed configuration, keeping only the highlights whose model is in `models`.
fn config(models: &[&str]) -> ArticleConfig {
    let mut c = ArticleConfig::committed().unwrap();
    c.highlights.retain(|h| models.contains(&h.model.as_str()));
    c
}

fn analyse(case: &str, models: &[&str]) -> Result<Analysis> {
    analysis::analyse(&load(case)?, &config(models))
}

const ALL: &[&str] = &["deepseek-r1", "gpt-oss-120b", "llama2-70b-99.9"];

fn unmatched(a: &Analysis) -> Vec<(u32, Scenario)> {
    a.unmatched.iter().map(|u| (u.id.0, u.scenario)).collect()
}

fn pair_ids(a: &Analysis) -> Vec<(u32, u32)> {
    a.pairs
        .iter()
        .map(|p| (p.offline_id.0, p.server_id.0))
        .collect()
}

#[test]
fn base_fixture_gives_the_hand_counted_outcome() {
    let a = analyse("base", ALL).unwrap();
    let c = &a.counts;
    // 12 rows: 11 closed and 1 open; row 8 is open, row 9 preview, row 11 Samples/s.
    assert_eq!((c.rows, c.closed, c.open, c.eligible), (12, 11, 1, 9));
    assert_eq!(pair_ids(&a), vec![(0, 1), (2, 3), (4, 5), (6, 7)]);
    assert_eq!(unmatched(&a), vec![(10, Scenario::Offline)]);
    assert_eq!(
        a.unmatched[0].reason,
        UnmatchedReason::NoPartner {
            missing: Scenario::Server
        }
    );
    let steps: Vec<usize> = a.steps.iter().map(|s| s.rows).collect();
    assert_eq!(steps, vec![12, 11, 10, 10, 10, 10, 9, 9, 9, 9]);
    // 850/1000, 1900/2000, 3920/4000, 5100/5000.
    let ratios: Vec<f64> = a.pairs.iter().map(|p| p.ratio.0).collect();
    for (got, want) in ratios.iter().zip([0.85, 0.95, 0.98, 1.02]) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
    assert_eq!(c.over_100, 1);
    assert!((a.span_pp - 13.0).abs() < 1e-9, "span {}", a.span_pp);
    assert_eq!(a.key_fields.len(), 27);
    let labels: Vec<_> = a.highlights.iter().map(|h| h.in_span).collect();
    assert_eq!(labels, vec![true, true, true, false]);
}

#[test]
fn crlf_line_endings_and_a_bom_change_nothing() {
    let base = analyse("base", ALL).unwrap();
    assert_eq!(analyse("crlf", ALL).unwrap(), base);
    assert_eq!(analyse("bom", ALL).unwrap(), base);
}

#[test]
fn different_missing_value_spellings_do_not_match() {
    // Row 0 has notes "" and row 1 notes "None": both null in JSON, but different raw text.
    let a = analyse(
        "missing_spelling_differs",
        &["gpt-oss-120b", "llama2-70b-99.9"],
    )
    .unwrap();
    assert_eq!(pair_ids(&a), vec![(2, 3), (4, 5), (6, 7)]);
    assert_eq!(
        unmatched(&a),
        vec![
            (0, Scenario::Offline),
            (1, Scenario::Server),
            (10, Scenario::Offline)
        ]
    );
}

#[test]
fn one_character_in_a_key_field_breaks_the_pair() {
    let a = analyse(
        "key_differs_by_one_char",
        &["deepseek-r1", "llama2-70b-99.9"],
    )
    .unwrap();
    assert_eq!(pair_ids(&a), vec![(0, 1), (4, 5), (6, 7)]);
    assert_eq!(
        unmatched(&a),
        vec![
            (2, Scenario::Offline),
            (3, Scenario::Server),
            (10, Scenario::Offline)
        ]
    );
}

#[test]
fn two_server_rows_for_one_key_are_reported_not_paired() {
    let a = analyse("two_server_rows", &["deepseek-r1", "gpt-oss-120b"]).unwrap();
    assert_eq!(pair_ids(&a), vec![(0, 1), (2, 3), (7, 8)]);
    assert_eq!(
        unmatched(&a),
        vec![
            (4, Scenario::Offline),
            (5, Scenario::Server),
            (6, Scenario::Server),
            (11, Scenario::Offline)
        ]
    );
    let dup = UnmatchedReason::Duplicate {
        offline: 1,
        server: 2,
    };
    assert!(a.unmatched[..3].iter().all(|u| u.reason == dup));
    assert!(a.unmatched[0].reason.to_string().contains("not paired"));
}

#[test]
fn a_server_row_without_offline_is_reported() {
    let a = analyse("server_without_offline", ALL).unwrap();
    assert_eq!(a.counts.pairs, 4);
    assert_eq!(
        unmatched(&a),
        vec![(10, Scenario::Offline), (12, Scenario::Server)]
    );
    assert_eq!(
        a.unmatched[1].reason,
        UnmatchedReason::NoPartner {
            missing: Scenario::Offline
        }
    );
}

fn error(case: &str) -> String {
    let err: Error = analyse(case, ALL).unwrap_err();
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "one line: {msg}");
    msg
}

#[test]
fn csv_and_json_disagreeing_is_an_error_naming_row_field_and_values() {
    assert_eq!(
        error("csv_json_disagree"),
        "summary.csv vs summary.json: row 5, field `Result`: CSV has \"3920.0\", JSON has 3921.0"
    );
}

#[test]
fn zero_or_non_numeric_offline_result_is_an_error() {
    let zero = error("offline_result_zero");
    assert!(
        zero.starts_with("summary.csv row 0, field Result"),
        "{zero}"
    );
    assert!(zero.contains("\"0.0\""), "{zero}");
    let text = error("offline_result_not_numeric");
    assert!(
        text.starts_with("summary.csv row 0, field Result"),
        "{text}"
    );
    assert!(text.contains("\"n/a\""), "{text}");
}

#[test]
fn wrong_column_count_names_line_and_row() {
    assert_eq!(
        error("wrong_column_count"),
        "summary.csv: line 2 (row 0): expected 31 fields, found 30"
    );
}

#[test]
fn truncated_json_names_the_position() {
    let msg = error("truncated_json");
    assert!(msg.starts_with("summary.json: line "), "{msg}");
    assert!(msg.contains("EOF"), "{msg}");
}

#[test]
fn json_ids_out_of_csv_order_are_an_error() {
    assert_eq!(
        error("json_ids_out_of_order"),
        "summary.json: row 2: expected row ID \"2\" (the CSV order), found \"3\""
    );
}

#[test]
fn a_selector_matching_no_pair_is_an_error() {
    let mut c = config(ALL);
    c.highlights.push(PairSelector {
        id: "nothing".into(),
        label: "nothing".into(),
        organization: "NVIDIA".into(),
        platform: "B300-SXM-270GBx8_TRT".into(),
        model: "resnet".into(),
    });
    let err = analysis::analyse(&load("base").unwrap(), &c).unwrap_err();
    assert!(err.to_string().contains("selects no pairs"), "{err}");
}

#[test]
fn pairs_are_sorted_and_lookup_by_offline_id_works() {
    let a = analyse("base", ALL).unwrap();
    assert!(a
        .pairs
        .windows(2)
        .all(|w| w[0].offline_id < w[1].offline_id));
    assert_eq!(a.pair(RowId(4)).unwrap().server_id, RowId(5));
    assert!(a.pair(RowId(5)).is_none());
}
