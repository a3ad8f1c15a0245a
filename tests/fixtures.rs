//! Hand-made summary pairs under `tests/fixtures/`, each with the outcome worked out by hand from
//! its rows (see tests/fixtures/README.md for what each case holds).

mod common;

use scenario_ratios::analysis::{self, Analysis, UnmatchedReason};
use scenario_ratios::config::{ArticleConfig, PairSelector};
use scenario_ratios::highlight;
use scenario_ratios::summary::{self, FileNames, RowId, Scenario};
use scenario_ratios::{Error, Result};

fn load(case: &str) -> Result<summary::Summary> {
    let dir = common::fixture(case);
    let csv = std::fs::read(dir.join("summary.csv")).unwrap();
    let json = std::fs::read(dir.join("summary.json")).unwrap();
    summary::load(&csv, &json, FileNames::default())
}

fn config() -> ArticleConfig {
    common::project().config
}

fn analyse(case: &str) -> Result<Analysis> {
    analysis::analyse(&load(case)?)
}

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
    let a = analyse("base").unwrap();
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
    let h = highlight::select(&a, &config()).unwrap();
    assert!((h.span_pp - 13.0).abs() < 1e-9, "span {}", h.span_pp);
    assert_eq!(a.key_fields.len(), 27);
    let labels: Vec<_> = h.highlights.iter().map(|h| h.in_span).collect();
    assert_eq!(labels, vec![true, true, true, false]);
}

#[test]
fn crlf_line_endings_and_a_bom_change_nothing() {
    let base = analyse("base").unwrap();
    assert_eq!(analyse("crlf").unwrap(), base);
    assert_eq!(analyse("bom").unwrap(), base);
}

#[test]
fn different_missing_value_spellings_do_not_match() {
    // Row 0 has notes "" and row 1 notes "None": both null in JSON, but different raw text.
    let a = analyse("missing_spelling_differs").unwrap();
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
    let a = analyse("key_differs_by_one_char").unwrap();
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
    let a = analyse("two_server_rows").unwrap();
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
    let dup = UnmatchedReason::DuplicateKey {
        offline: 1,
        server: 2,
    };
    assert!(a.unmatched[..3].iter().all(|u| u.reason == dup));
}

#[test]
fn a_server_row_without_offline_is_reported() {
    let a = analyse("server_without_offline").unwrap();
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
    let err: Error = analyse(case).unwrap_err();
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
    let mut c = config();
    c.highlights.push(PairSelector {
        id: "nothing".into(),
        label: "nothing".into(),
        organization: "NVIDIA".into(),
        platform: "B300-SXM-270GBx8_TRT".into(),
        model: "resnet".into(),
    });
    let a = analyse("base").unwrap();
    let err = highlight::select(&a, &c).unwrap_err();
    assert!(err.to_string().contains("selects no pairs"), "{err}");
}

#[test]
fn two_highlights_selecting_one_pair_is_an_error() {
    let mut c = config();
    let mut twin = c.highlights[0].clone();
    twin.id = "twin".into();
    c.highlights.push(twin);
    let a = analyse("base").unwrap();
    let err = highlight::select(&a, &c).unwrap_err().to_string();
    assert!(
        err.contains(
            "highlights \"b300_deepseek\" and \"twin\" select the same pair (rows 0 and 1)"
        ),
        "{err}"
    );
}

#[test]
fn pairs_are_sorted_and_lookup_by_offline_id_works() {
    let a = analyse("base").unwrap();
    assert!(a
        .pairs
        .windows(2)
        .all(|w| w[0].offline_id < w[1].offline_id));
    assert_eq!(a.pair(RowId(4)).unwrap().server_id, RowId(5));
    assert!(a.pair(RowId(5)).is_none());
}

/// Two Offline Results far too small (the B300 deepseek-r1's 1000 → 1 and the GB200's 5000 → 1,
/// ratios of 85,000 % and 510,000 %, both highlighted): each figure draws both at its edge and
/// counts them in its note, in both layouts, and no drawing grows with the values.
#[test]
fn ratios_beyond_the_axis_are_drawn_at_the_edge_and_counted() {
    use scenario_ratios::figure;
    let dir = common::fixture("base");
    let csv = std::fs::read_to_string(dir.join("summary.csv"))
        .unwrap()
        .replacen("\"Offline\",\"1000.0\"", "\"Offline\",\"1.0\"", 1)
        .replacen("\"Offline\",\"5000.0\"", "\"Offline\",\"1.0\"", 1);
    let json = std::fs::read_to_string(dir.join("summary.json"))
        .unwrap()
        .replacen("\"Result\": 1000.0,", "\"Result\": 1.0,", 1)
        .replacen("\"Result\": 5000.0,", "\"Result\": 1.0,", 1);
    let s = summary::load(csv.as_bytes(), json.as_bytes(), FileNames::default()).unwrap();
    let a = analysis::analyse(&s).unwrap();
    let h = highlight::select(&a, &config()).unwrap();
    let f = figure::figures(&a, &h).unwrap();
    let note = ">2 values beyond 200 % drawn at the edge (see the table)<";
    for svg in [
        &f.pairs,
        &f.pairs_narrow,
        &f.highlights,
        &f.highlights_narrow,
    ] {
        assert!(svg.0.contains(note), "{}", &svg.0[svg.0.len() - 200..]);
        assert!(svg.0.len() < 100_000, "{} bytes", svg.0.len());
    }
    let unclipped = figure::figures(
        &analyse("base").unwrap(),
        &highlight::select(&analyse("base").unwrap(), &config()).unwrap(),
    )
    .unwrap();
    assert!(!unclipped.pairs.0.contains("beyond"));
}

/// The round is the one `version` all rows share: v6.1 in the base fixture, and a summary with no
/// rows has none.
#[test]
fn the_round_is_the_version_every_row_shares() {
    let s = load("base").unwrap();
    assert_eq!(s.round().unwrap(), "v6.1");
    assert_eq!(analysis::analyse(&s).unwrap().round, "v6.1");
    let mut empty = s.clone();
    empty.rows.clear();
    assert_eq!(
        empty.round().unwrap_err().to_string(),
        "summary.csv: holds no result rows"
    );
}
