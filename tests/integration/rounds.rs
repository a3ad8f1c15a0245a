//! A round is data: a third, made-up round in a schema of its own (`tests/fixtures/third_round`),
//! declared beside the project's rounds in `data/rounds.json`, passes through the same pipeline
//! and lands in results.json, pairs.csv and interactive_pairs.csv. Every expected value below is
//! worked out by hand from the fixture's ten rows.

use scenario_ratios::inputs::InputKind;
use scenario_ratios::pipeline;
use scenario_ratios::project::rounds::Rounds;
use serde_json::{json, Value};

use crate::support;

/// The third round's declaration: every field of the schema placed under a name of its own, one
/// absent (`PrivateID`), one further key field (`rack`) and one left out (`energy_j`, which differs
/// between a system's Offline and Server runs).
fn third_round() -> Value {
    json!({
        "round": "v9.9",
        "summary": { "format": "json-array", "file": "v9.9 results.json" },
        "fields": {
            "Organization": "vendor", "Availability": "status", "Division": "division",
            "SystemType": "category", "SystemName": "system_name", "Platform": "system_id",
            "Model": "workload_label", "MlperfModel": "workload", "Scenario": "mode",
            "Result": "throughput", "Accuracy": "quality", "number_of_nodes": "node_count",
            "host_processor_model_name": "cpu", "host_processors_per_node": "cpus_per_node",
            "host_processor_core_count": "cores", "accelerator_model_name": "accelerator",
            "accelerators_per_node": "accelerators_each", "total_accelerators": "accelerators_total",
            "Location": "path", "framework": "stack", "operating_system": "os", "notes": "remarks",
            "compliance": "compliance_ok", "errors": "error_count", "version": "round_name",
            "inferred": "inferred", "has_power": "power", "Units": "unit",
            "weight_data_types": "dtype", "design_power_watts": "declared_power", "PrivateID": null
        },
        "extra_key_fields": ["rack"],
        "ignored_fields": { "energy_j": "an energy measurement, which differs between a system's runs" },
        "missing": [""],
        "logs": { "tree": "inference_results_v9.9", "path": "{location}/mlperf_log_summary.txt" }
    })
}

/// The project with the third round declared after its own, and the fixture inputs with the third
/// round's summary pinned.
fn with_third_round() -> (
    scenario_ratios::project::Project,
    scenario_ratios::inputs::Inputs,
) {
    let mut project = support::project();
    let text = std::fs::read_to_string(support::root().join("data/rounds.json")).unwrap();
    let mut declared: Value = serde_json::from_str(&text).unwrap();
    declared["rounds"]
        .as_array_mut()
        .unwrap()
        .push(third_round());
    project.rounds = Rounds::parse("data/rounds.json", &declared.to_string()).unwrap();
    let mut inputs = support::fixture_inputs("base");
    let third = support::verified(
        "v9.9 results.json",
        InputKind::SummaryArray,
        "example/inference_results_v9.9",
        "results.json",
        &std::fs::read(support::fixture("third_round").join("results.json")).unwrap(),
    );
    inputs.manifest.inputs.push(third.pin.clone());
    inputs.files.push(third);
    (project, inputs)
}

#[test]
fn a_third_round_in_a_schema_of_its_own_passes_through_the_same_pipeline() {
    let (project, inputs) = with_third_round();
    let computed = pipeline::compute(project, &inputs).unwrap();
    assert_eq!(
        computed
            .previous
            .iter()
            .map(|r| r.analysis.round.as_str())
            .collect::<Vec<_>>(),
        ["v5.1", "v9.9"]
    );
    let dist = pipeline::render(&computed).unwrap();
    let results: Value = serde_json::from_slice(dist.get("results.json").unwrap()).unwrap();
    let third = &results["previous_rounds"][1];
    assert_eq!(third["round"], "v9.9");

    // The scope, filter by filter: row 8 is open, row 4 Interactive, row 9 declares its power.
    let steps: Vec<(String, u64, Value)> = third["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["rows"].as_u64().unwrap(),
                s["field"].clone(),
            )
        })
        .collect();
    let counts: Vec<u64> = steps.iter().map(|s| s.1).collect();
    assert_eq!(counts, [10, 10, 9, 9, 9, 9, 8, 8, 8, 7]);
    // Each filter names the field as this round's summary does.
    assert_eq!(steps[2].2, "division");
    assert_eq!(steps[9].2, "declared_power");

    // The key: every field the round has, in its own names, `PrivateID` left out (it has none),
    // then `rack`; not the scenario, result, accuracy or location, and not `energy_j`.
    let keys: Vec<&str> = third["key_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(keys.first(), Some(&"vendor"));
    assert_eq!(keys.last(), Some(&"rack"));
    assert_eq!(keys.len(), 31 - 4 - 1 + 1);
    for left_out in [
        "mode",
        "throughput",
        "quality",
        "path",
        "energy_j",
        "PrivateID",
    ] {
        assert!(!keys.contains(&left_out), "{left_out} is a key field");
    }

    // Three pairs: rack A's two benchmarks (700 / 1000, 1900 / 2000) and rack B's deepseek-r1
    // (320 / 800), which the rack alone keeps apart from rack A's; the gpt-oss-120b Offline row
    // has no Server row.
    let pairs: Vec<(String, String, String, f64)> = third["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["offline_id"].as_str().unwrap().to_string(),
                p["server_id"].as_str().unwrap().to_string(),
                p["benchmark"].as_str().unwrap().to_string(),
                p["ratio"].as_f64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("0", "1", "deepseek-r1", 0.70),
        ("2", "3", "llama3.1-8b", 0.95),
        ("5", "6", "deepseek-r1", 0.40),
    ];
    assert_eq!(pairs.len(), expected.len());
    for (got, want) in pairs.iter().zip(expected) {
        assert_eq!(
            (got.0.as_str(), got.1.as_str(), got.2.as_str()),
            (want.0, want.1, want.2)
        );
        assert!((got.3 - want.3).abs() < 1e-12, "{got:?}");
    }
    assert_eq!(third["unmatched"][0]["id"], "7");
    assert_eq!(third["unmatched"].as_array().unwrap().len(), 1);
    // Its Interactive pair: 1500 / 2000.
    let interactive = &third["interactive"]["pairs"];
    assert_eq!(interactive.as_array().unwrap().len(), 1);
    assert_eq!(interactive[0]["offline_id"], "2");
    assert!((interactive[0]["ratio"].as_f64().unwrap() - 0.75).abs() < 1e-12);

    // pairs.csv and interactive_pairs.csv carry the round's rows under its name.
    let csv_rounds = |name: &str| -> Vec<(String, String)> {
        let mut r = csv::Reader::from_reader(dist.get(name).unwrap());
        let header = r.headers().unwrap().clone();
        let ratio = header.iter().position(|h| h == "ratio_percent").unwrap();
        r.records()
            .map(|x| x.unwrap())
            .filter(|x| &x[0] == "v9.9")
            .map(|x| (x[1].to_string(), x[ratio].to_string()))
            .collect()
    };
    let listed = csv_rounds("pairs.csv");
    assert_eq!(
        listed.iter().map(|x| x.1.as_str()).collect::<Vec<_>>(),
        ["70.00", "95.00", "40.00"]
    );
    assert_eq!(
        csv_rounds("interactive_pairs.csv")
            .iter()
            .map(|x| x.1.as_str())
            .collect::<Vec<_>>(),
        ["75.00"]
    );

    // The article's round is set beside each earlier round, this one included.
    let across: Vec<&str> = results["across_rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["previous"].as_str().unwrap())
        .collect();
    assert_eq!(across, ["v5.1", "v9.9"]);
}

#[test]
fn the_third_round_adds_to_the_outputs_and_changes_none_of_the_article_rounds() {
    // The article's round and the page are the same with or without a further earlier round:
    // the page speaks of the round before the article's.
    let plain = pipeline::render(
        &pipeline::compute(support::project(), &support::fixture_inputs("base")).unwrap(),
    )
    .unwrap();
    let (project, inputs) = with_third_round();
    let more = pipeline::render(&pipeline::compute(project, &inputs).unwrap()).unwrap();
    let results = |d: &scenario_ratios::output::Dist| -> Value {
        serde_json::from_slice(d.get("results.json").unwrap()).unwrap()
    };
    let (a, b) = (results(&plain), results(&more));
    for field in [
        "counts",
        "pairs",
        "unmatched",
        "benchmarks",
        "split",
        "interactive",
    ] {
        assert_eq!(a[field], b[field], "results.json {field}");
    }
    assert_eq!(a["previous_rounds"][0], b["previous_rounds"][0]);
    let v61 = |d: &scenario_ratios::output::Dist| -> Vec<String> {
        String::from_utf8(d.get("pairs.csv").unwrap().to_vec())
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("v9.9,"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(v61(&plain), v61(&more));
}
