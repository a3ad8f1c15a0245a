//! Hand-made summary pairs under `tests/fixtures/`, each with the outcome worked out by hand from
//! its rows (see tests/fixtures/README.md for what each case holds).

use crate::support;
use scenario_ratios::analysis::{self, Analysis, UnmatchedReason};
use scenario_ratios::highlight;
use scenario_ratios::project::config::{ArticleConfig, PairSelector};
use scenario_ratios::summary::{self, FileNames, RowId, Scenario};
use scenario_ratios::{Error, Result};

fn load(case: &str) -> Result<summary::Summary> {
    let dir = support::fixture(case);
    let csv = std::fs::read(dir.join("summary.csv")).unwrap();
    let json = std::fs::read(dir.join("summary.json")).unwrap();
    summary::load(&csv, &json, FileNames::default())
}

fn config() -> ArticleConfig {
    support::project().config
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
    // 25 rows: 24 closed and 1 open; row 8 is open, row 9 preview, row 11 Samples/s, row 12
    // Interactive.
    assert_eq!((c.rows, c.closed, c.open, c.eligible), (25, 24, 1, 21));
    assert_eq!(
        pair_ids(&a),
        vec![
            (0, 1),
            (2, 3),
            (4, 5),
            (6, 7),
            (13, 14),
            (15, 16),
            (17, 18),
            (19, 20),
            (21, 22),
            (23, 24)
        ]
    );
    assert_eq!(unmatched(&a), vec![(10, Scenario::Offline)]);
    assert_eq!(
        a.unmatched[0].reason,
        UnmatchedReason::NoPartner {
            missing: Scenario::Server
        }
    );
    // Availability drops 9, Division 8, Units 11, Scenario the Interactive row 12.
    let steps: Vec<(usize, usize)> = a.steps.iter().map(|s| (s.rows, s.interactive)).collect();
    assert_eq!(
        steps,
        vec![
            (25, 1),
            (24, 1),
            (23, 1),
            (23, 1),
            (23, 1),
            (22, 1),
            (21, 0),
            (21, 0),
            (21, 0),
            (21, 0)
        ]
    );
    // 850/1000, 1900/2000, 3920/4000, 5100/5000, 400/1000, 1920/2000, 700/1000, 800/1000,
    // 750/1000, 3800/5000.
    let ratios: Vec<f64> = a.pairs.iter().map(|p| p.ratio.0).collect();
    let want = [0.85, 0.95, 0.98, 1.02, 0.40, 0.96, 0.70, 0.80, 0.75, 0.76];
    assert_eq!(ratios.len(), want.len());
    for (got, want) in ratios.iter().zip(want) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
    assert_eq!(c.over_100, 1);
    let h = highlight::select(&a, &config()).unwrap();
    assert!((h.span_pp - 13.0).abs() < 1e-9, "span {}", h.span_pp);
    assert_eq!(a.key_fields.len(), 27);
    let labels: Vec<_> = h.highlights.iter().map(|h| h.in_span).collect();
    assert_eq!(labels, vec![true, true, true, false, false]);
    // Medians: llama3.1-8b (0.40, 0.96) 0.68, deepseek-r1 (0.85, 0.70, 0.76) 0.76,
    // llama2-70b-99.9 (0.98, 0.75) 0.865, gpt-oss-120b (0.95, 1.02, 0.80) 0.95.
    let medians: Vec<(&str, f64)> = a
        .benchmarks
        .iter()
        .map(|b| (b.benchmark.as_str(), b.median.0))
        .collect();
    let want = [
        ("llama3.1-8b", 0.68),
        ("deepseek-r1", 0.76),
        ("llama2-70b-99.9", 0.865),
        ("gpt-oss-120b", 0.95),
    ];
    assert_eq!(medians.len(), want.len());
    for ((b, m), (wb, wm)) in medians.iter().zip(want) {
        assert_eq!(*b, wb);
        assert!((m - wm).abs() < 1e-12, "{b} {m} vs {wm}");
    }
}

/// The base fixture's Interactive run (row 12, 3500 tokens/s) pairs with the GB200 Offline row
/// (row 6, 5000) although it carries `inferred` = 1 and the Offline row 0: 70 %.
#[test]
fn interactive_runs_pair_with_their_offline_runs_despite_inferred() {
    let a = analyse("base").unwrap();
    let i = &a.interactive;
    assert_eq!(
        (
            i.counts.interactive_rows,
            i.counts.inferred,
            i.counts.pairs,
            i.counts.unmatched
        ),
        (1, 1, 1, 0)
    );
    let p = &i.pairs[0];
    assert_eq!((p.offline_id.0, p.interactive_id.0), (6, 12));
    assert!((p.ratio.0 - 0.70).abs() < 1e-12, "{}", p.ratio.0);
    assert_eq!(i.key_fields.len(), 26);
    assert!(!i.key_fields.iter().any(|f| f == "inferred"));
    assert_eq!(i.benchmarks.len(), 1);
    assert_eq!(i.benchmarks[0].benchmark, "gpt-oss-120b");
    // The Interactive row leaves the Server scope at the Scenario filter, not at `inferred`.
    let scenario_step = a
        .steps
        .iter()
        .position(|s| s.field.as_deref() == Some("Scenario"))
        .unwrap();
    assert_eq!(a.steps[scenario_step - 1].interactive, 1);
    assert_eq!(a.steps[scenario_step].interactive, 0);
}

/// A second Interactive run of one submission is reported, never paired by guesswork; an
/// Interactive run whose submission has no Offline row is reported as such.
#[test]
fn interactive_runs_without_one_offline_partner_are_unmatched() {
    let s = with_interactive_copies();
    let i = analysis::analyse(&s).unwrap().interactive;
    assert!(i.pairs.is_empty());
    let reasons: Vec<(u32, UnmatchedReason)> = i
        .unmatched
        .iter()
        .map(|u| (u.id.0, u.reason.clone()))
        .collect();
    let dup = UnmatchedReason::DuplicateKey {
        offline: 1,
        partner: Scenario::Interactive,
        partners: 2,
    };
    let alone = UnmatchedReason::NoPartner {
        missing: Scenario::Offline,
    };
    assert_eq!(reasons, vec![(12, dup.clone()), (25, dup), (26, alone)]);
}

/// The robustness figures of the base fixture, worked out by hand: one CPU-only pair (rows
/// 13/14, 40 %, labelled llama3_1-8b), the other organisation's B300-like system on the three
/// highlighted benchmarks, and the groups of one benchmark and hardware from two organisations.
#[test]
fn robustness_figures_follow_a_hand_made_results_set() {
    let a = analyse("base").unwrap();
    let r = &a.robustness;
    assert_eq!(r.cpu_only_pairs, 1);
    let llama = r
        .benchmarks
        .iter()
        .find(|b| b.benchmark == "llama3.1-8b")
        .unwrap();
    assert_eq!(
        (llama.pairs, llama.organizations, llama.cpu_only),
        (2, 2, 1)
    );
    assert!((llama.median.0 - 0.68).abs() < 1e-12);
    assert!((llama.median_without_cpu_only.unwrap().0 - 0.96).abs() < 1e-12);
    assert!((llama.median_cpu_only.unwrap().0 - 0.40).abs() < 1e-12);
    // Every fixture system has one node.
    assert!(r
        .benchmarks
        .iter()
        .all(|b| b.multi_node == 0 && b.median_multi_node.is_none()));
    // Groups: llama2-70b-99.9 (NVIDIA 98 %, Beta 75 %) 23 points, gpt-oss-120b (NVIDIA 95 % and
    // 102 %, Beta 80 %) 22, deepseek-r1 (NVIDIA 85 % and 76 %, Beta 70 %) 15. llama3.1-8b has one
    // accelerated pair, and the CPU-only one names no accelerator.
    let groups: Vec<(&str, usize, f64)> = r
        .noise
        .groups
        .iter()
        .map(|g| (g.benchmark.as_str(), g.pairs, g.spread_pp))
        .collect();
    let want = [
        ("llama2-70b-99.9", 2, 23.0),
        ("gpt-oss-120b", 3, 22.0),
        ("deepseek-r1", 3, 15.0),
    ];
    assert_eq!(groups.len(), want.len());
    for ((b, n, s), (wb, wn, ws)) in groups.iter().zip(want) {
        assert_eq!((*b, *n), (wb, wn));
        assert!((s - ws).abs() < 1e-9, "{b}: {s}");
    }
    assert!((r.noise.median_spread_pp.unwrap() - 22.0).abs() < 1e-9);
    assert!((r.noise.max_spread_pp.unwrap() - 23.0).abs() < 1e-9);
    // The labels of llama3.1-8b: llama3.1-8b (rows 15/16) and llama3_1-8b (rows 13/14).
    assert_eq!(a.merged_labels.len(), 1);
    assert_eq!(
        a.merged_labels[0].labels,
        vec![
            ("llama3.1-8b".to_string(), 1),
            ("llama3_1-8b".to_string(), 1)
        ]
    );
    // The other organisation's system orders the three 70 % < 75 % < 80 %: deepseek-r1 lowest,
    // as on the B300 (85 % < 95 % < 98 %), but llama2-70b-99.9 before gpt-oss-120b. The GB200
    // system ran two of the three, so it is not compared.
    let ag = highlight::select(&a, &config()).unwrap().agreement;
    assert_eq!(
        ag.order,
        vec!["deepseek-r1", "gpt-oss-120b", "llama2-70b-99.9"]
    );
    assert_eq!(
        (ag.systems, ag.same_order, ag.same_lowest, ag.ambiguous),
        (1, 0, 1, 0)
    );
    // Its accelerator, "Fake GPU 270GB"; its one software list, "TensorRT 10", is shared by
    // no second system.
    assert_eq!(ag.accelerators, ["Fake GPU 270GB"]);
    assert_eq!(ag.shared_software, None);
    // A second compared system, Beta's pairs under another organisation, accelerator and
    // software list: the accelerator names gather both, and the one item both lists hold is
    // the shared one.
    let mut two = a.clone();
    let copies: Vec<_> = two
        .pairs
        .iter()
        .filter(|p| p.submission.platform == "B300box")
        .cloned()
        .collect();
    assert_eq!(copies.len(), 3);
    for mut p in copies {
        p.submission.organization = "Gamma".into();
        p.submission.accelerator = Some("Fake GPU 2".into());
        p.submission.framework = "Other 2; TensorRT 10,".into();
        two.pairs.push(p);
    }
    let ag = highlight::select(&two, &config()).unwrap().agreement;
    assert_eq!(ag.systems, 2);
    assert_eq!(ag.accelerators, ["Fake GPU 2", "Fake GPU 270GB"]);
    let shared = ag.shared_software.unwrap();
    assert_eq!(
        (shared.items, shared.systems),
        (vec!["TensorRT 10".to_string()], 2)
    );
}

#[test]
fn crlf_line_endings_and_a_bom_change_nothing() {
    let base = analyse("base").unwrap();
    assert_eq!(analyse("crlf").unwrap(), base);
    assert_eq!(analyse("bom").unwrap(), base);
}

#[test]
fn a_missing_value_spelled_differently_or_one_changed_key_character_breaks_the_pair() {
    // In "missing_spelling_differs", row 0 has notes "" and row 1 notes "None": both null in
    // JSON, but different raw text. In "key_differs_by_one_char", row 3's system is B301.
    for (case, pairs, broken) in [
        ("missing_spelling_differs", [(2, 3), (4, 5), (6, 7)], (0, 1)),
        ("key_differs_by_one_char", [(0, 1), (4, 5), (6, 7)], (2, 3)),
    ] {
        let a = analyse(case).unwrap();
        assert_eq!(pair_ids(&a), pairs, "{case}");
        let expected = [
            (broken.0, Scenario::Offline),
            (broken.1, Scenario::Server),
            (10, Scenario::Offline),
        ];
        assert_eq!(unmatched(&a), expected, "{case}");
    }
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
        partner: Scenario::Server,
        partners: 2,
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
    let dir = support::fixture("base");
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
    let logs = scenario_ratios::evidence::pair_logs::PairLogs::default();
    let f = figure::figures(&a, &h, &logs, &[]).unwrap();
    let note = ">2 values beyond 200&#160;% drawn at the edge (see the table)<";
    for svg in [
        &f.pairs,
        &f.pairs_narrow,
        &f.highlights,
        &f.highlights_narrow,
    ] {
        assert!(svg.0.contains(note), "{}", &svg.0[svg.0.len() - 200..]);
        assert!(svg.0.len() < 100_000, "{} bytes", svg.0.len());
    }
    // With deepseek-r1's two ratios the highest, llama3.1-8b's median is the lowest; no system
    // ran it beside another benchmark, so figure 3 draws no row, says so and clips nothing.
    for svg in [&f.systems, &f.systems_narrow] {
        assert!(
            svg.0
                .contains("No system ran llama3.1-8b beside another benchmark"),
            "{}",
            svg.0
        );
        assert!(!svg.0.contains("drawn at the edge"), "{}", svg.0);
    }
    let unclipped = figure::figures(
        &analyse("base").unwrap(),
        &highlight::select(&analyse("base").unwrap(), &config()).unwrap(),
        &scenario_ratios::evidence::pair_logs::PairLogs::default(),
        &[],
    )
    .unwrap();
    assert!(!unclipped.pairs.0.contains("beyond"));
    assert!(!unclipped.systems.0.contains("beyond"));

    // With the CPU-only llama3.1-8b pair at 400 % (its Offline Result 1000 → 100, rows 13/14)
    // deepseek-r1 has the lowest median, and with the B300's llama2-70b-99.9 Offline Result far
    // too small (4000 → 1) that system's row of figure 3 holds one value beyond the axis: drawn at
    // the edge and counted once.
    let csv = std::fs::read_to_string(dir.join("summary.csv"))
        .unwrap()
        .replacen(
            "\"llama3_1-8b\",\"llama3.1-8b\",\"Offline\",\"1000.0\"",
            "\"llama3_1-8b\",\"llama3.1-8b\",\"Offline\",\"100.0\"",
            1,
        )
        .replacen("\"Offline\",\"4000.0\"", "\"Offline\",\"1.0\"", 1);
    let json = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    // Row 13's Result is the second "Result": 1000.0 of the file.
    let (head, row13) = json
        .match_indices("\"Result\": 1000.0,")
        .nth(1)
        .map(|(at, _)| json.split_at(at))
        .unwrap();
    assert!(head.ends_with("\"Offline\",\n        ") && head.contains("\"13\": {"));
    let json = format!(
        "{head}{}",
        row13.replacen("\"Result\": 1000.0,", "\"Result\": 100.0,", 1)
    )
    .replacen("\"Result\": 4000.0,", "\"Result\": 1.0,", 1);
    let s = summary::load(csv.as_bytes(), json.as_bytes(), FileNames::default()).unwrap();
    let a = analysis::analyse(&s).unwrap();
    assert_eq!(a.benchmarks[0].benchmark, "deepseek-r1");
    let f = figure::figures(&a, &highlight::select(&a, &config()).unwrap(), &logs, &[]).unwrap();
    let note = ">1 value beyond 200&#160;% drawn at the edge (see the table)<";
    for svg in [&f.systems, &f.systems_narrow] {
        assert!(svg.0.contains(note), "{}", svg.0);
    }
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

/// The other rows of an unmatched row's results folder, worked out by hand: the base fixture's
/// unmatched row 10 (Acme's llama2-70b-99.9 Offline) has none; with row 12 copied as row 25 and
/// once more onto a platform of its own as row 26, row 12's folder also holds rows 6 (Offline),
/// 7 (Server) and 25, and row 26's none.
#[test]
fn an_unmatched_row_names_the_other_rows_of_its_folder() {
    let a = analyse("base").unwrap();
    assert_eq!(unmatched(&a), vec![(10, Scenario::Offline)]);
    assert!(a.unmatched[0].siblings.is_empty());
    assert!(!a.unmatched[0].has_sibling(&Scenario::Server));
    let i = analysis::analyse(&with_interactive_copies())
        .unwrap()
        .interactive;
    let siblings: Vec<(u32, Vec<(u32, Scenario)>)> = i
        .unmatched
        .iter()
        .map(|u| {
            (
                u.id.0,
                u.siblings.iter().map(|s| (s.id.0, s.scenario)).collect(),
            )
        })
        .collect();
    assert_eq!(
        siblings,
        vec![
            (
                12,
                vec![
                    (6, Scenario::Offline),
                    (7, Scenario::Server),
                    (25, Scenario::Interactive)
                ]
            ),
            (
                25,
                vec![
                    (6, Scenario::Offline),
                    (7, Scenario::Server),
                    (12, Scenario::Interactive)
                ]
            ),
            (26, vec![]),
        ]
    );
}

/// The base fixture with rows appended: `rows` makes each new row's CSV line and JSON value from
/// the base ones (the CSV lines with their header first, the JSON object by row ID); the new rows
/// take the next IDs, from 25 on.
fn base_plus(
    rows: impl FnOnce(
        &[&str],
        &serde_json::Map<String, serde_json::Value>,
    ) -> Vec<(String, serde_json::Value)>,
) -> summary::Summary {
    let dir = support::fixture("base");
    let mut csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let json = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let mut j: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&json).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let added = rows(&lines, &j);
    for (line, value) in added {
        csv.push_str(&line);
        csv.push('\n');
        j.insert(j.len().to_string(), value);
    }
    summary::load(
        csv.as_bytes(),
        serde_json::to_string(&j).unwrap().as_bytes(),
        FileNames::default(),
    )
    .unwrap()
}

/// The base fixture with row 12 (an Interactive run) copied as row 25, and once more as row 26
/// on a platform that has no Offline row.
fn with_interactive_copies() -> summary::Summary {
    base_plus(|csv, j| {
        let row12 = csv[13];
        let orphan = row12.replace("GB200-NVL72_GB200-186GB_aarch64x72_TRT", "Orphan");
        let v12 = j["12"].clone();
        let mut o = v12.clone();
        o["Platform"] = "Orphan".into();
        o["Location"] = o["Location"]
            .as_str()
            .unwrap()
            .replace("GB200-NVL72_GB200-186GB_aarch64x72_TRT", "Orphan")
            .into();
        vec![(row12.to_string(), v12), (orphan, o)]
    })
}

/// The base fixture with a second Interactive run, Beta's gpt-oss-120b on B300box at 300
/// tokens/s against its Offline 1000 (30 %), as row 25. By hand: gpt-oss-120b's two Interactive
/// pairs (NVIDIA 70 %, Beta 30 %) share one accelerator; the same two submissions' Server pairs
/// are 5100/5000 = 102 % and 800/1000 = 80 %, median 91 %.
#[test]
fn the_interactive_pairs_name_their_hardware_and_the_same_submissions_server_ratios() {
    let s = base_plus(|csv, j| {
        // Row 19 is Beta's gpt-oss-120b Offline row: the new row is it as an Interactive run.
        let row19 = csv[20];
        assert!(row19.contains(r#""Offline","1000.0""#), "{row19}");
        let new = row19
            .replace(r#""Offline","1000.0""#, r#""Interactive","300.0""#)
            .replace("/Offline/", "/Interactive/");
        let mut v = j["19"].clone();
        v["Scenario"] = "Interactive".into();
        v["Result"] = 300.0.into();
        v["Location"] = v["Location"]
            .as_str()
            .unwrap()
            .replace("/Offline/", "/Interactive/")
            .into();
        vec![(new, v)]
    });
    let i = analysis::analyse(&s).unwrap().interactive;
    assert_eq!(i.counts.pairs, 2);
    assert_eq!(i.hardware.len(), 1);
    assert_eq!(i.hardware[0].benchmark, "gpt-oss-120b");
    let g = &i.hardware[0].accelerators;
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].accelerator.as_deref(), Some("Fake GPU 270GB"));
    assert_eq!(g[0].pairs, 2);
    assert_eq!(g[0].organizations, ["Beta", "NVIDIA"]);
    assert!((g[0].min.0 - 0.30).abs() < 1e-12 && (g[0].max.0 - 0.70).abs() < 1e-12);
    let along = &i.server_alongside;
    assert_eq!(along.pairs, 2);
    assert_eq!(along.benchmarks.len(), 1);
    assert!((along.benchmarks[0].median.0 - 0.91).abs() < 1e-12);
    // Their Interactive ratios, 70 % and 30 %: median 50 %.
    assert_eq!(along.interactive.len(), 1);
    assert!((along.interactive[0].median.0 - 0.50).abs() < 1e-12);
}

/// The span system's benchmarks on its own hardware (every accelerated fixture pair is on
/// "Fake GPU 270GB", 8 per node, one node), worked out by hand: deepseek-r1 85 %, 70 % (Beta),
/// 76 % (GB200): median 76 %; gpt-oss-120b 95 %, 102 % (GB200), 80 % (Beta): 95 %;
/// llama2-70b-99.9 98 %, 75 % (Beta): 86.5 %. So deepseek-r1 stays lowest, but llama2-70b-99.9
/// comes before gpt-oss-120b, unlike on the B300 itself (85 < 95 < 98).
#[test]
fn the_span_systems_own_hardware_gives_its_benchmarks_medians() {
    let a = analyse("base").unwrap();
    let own = highlight::select(&a, &config())
        .unwrap()
        .agreement
        .own_hardware
        .unwrap();
    assert_eq!(
        (
            own.accelerator.as_str(),
            own.accelerators_per_node,
            own.nodes
        ),
        ("Fake GPU 270GB", 8, 1)
    );
    let got: Vec<(&str, usize, f64)> = own
        .benchmarks
        .iter()
        .map(|b| (b.benchmark.as_str(), b.pairs, b.median.0))
        .collect();
    let want = [
        ("deepseek-r1", 3, 0.76),
        ("llama2-70b-99.9", 2, 0.865),
        ("gpt-oss-120b", 3, 0.95),
    ];
    assert_eq!(got.len(), want.len());
    for ((b, n, m), (wb, wn, wm)) in got.iter().zip(want) {
        assert_eq!((*b, *n), (wb, wn));
        assert!((m - wm).abs() < 1e-12, "{b}: {m}");
    }
    assert_eq!(
        own.order(),
        ["deepseek-r1", "llama2-70b-99.9", "gpt-oss-120b"]
    );
}
