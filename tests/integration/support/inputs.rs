//! Inputs made by hand: fixture summaries laid out as a mirror with a manifest pinning them, and
//! verified inputs built in memory (the real sources the checker facts and claims cite, read from
//! the mirror).

use std::path::{Path, PathBuf};

use scenario_ratios::base::digest::HexDigest;

use super::{fixture, mirror, project};

/// Lays out the summary pair of fixture `case` as a mirror under `dir/mirror` and writes a manifest
/// pinning it (hashes computed here from the fixture bytes). Returns the manifest path.
pub(crate) fn fixture_manifest(case: &str, dir: &Path) -> PathBuf {
    let csv = std::fs::read(fixture(case).join("summary.csv")).unwrap();
    let json = std::fs::read(fixture(case).join("summary.json")).unwrap();
    manifest_for(&csv, &json, dir)
}

/// The hand-made VALID LoadGen log of the fixtures' B300 deepseek-r1 Server row (ID 1, 850.0).
pub(crate) const FIXTURE_SERVER_LOG: &str = "Scenario : Server\nMode : PerformanceOnly\nCompleted tokens per second: 850.0\nResult is : VALID\n99.00 percentile first token latency (ns) : 1500000000\n99.00 percentile time to output token (ns) : 70000000\n";
/// Where that log sits in a copy of the v6.1 results tree.
pub(crate) const FIXTURE_SERVER_LOG_PATH: &str =
    "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/deepseek-r1/Server/performance/run_1/mlperf_log_summary.txt";
/// The hand-made VALID LoadGen log of the fixtures' B300 llama2-70b-99.9 Server row (ID 5,
/// 3920.0): p99 TTFT 1000 ms and TPOT 150 ms, under 2000 and 200 ms.
pub(crate) const FIXTURE_LLAMA_LOG: &str = "Scenario : Server\nMode : PerformanceOnly\nCompleted tokens per second: 3920.0\nResult is : VALID\n99.00 percentile first token latency (ns) : 1000000000\n99.00 percentile time to output token (ns) : 150000000\n";
/// Where that log sits in a copy of the v6.1 results tree.
pub(crate) const FIXTURE_LLAMA_LOG_PATH: &str =
    "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/llama2-70b-99.9/Server/performance/run_1/mlperf_log_summary.txt";

/// The hand-made summary of the earlier round `data/rounds.json` declares (v5.1's schema, one
/// JSON array; `tests/fixtures/previous_round`), under the input name the declaration reads.
pub(crate) fn previous_round() -> scenario_ratios::inputs::VerifiedInput {
    verified(
        "v5.1 summary_results.json",
        scenario_ratios::inputs::InputKind::SummaryArray,
        "example/inference_results_v5.1",
        "summary_results.json",
        &std::fs::read(fixture("previous_round").join("summary_results.json")).unwrap(),
    )
}

/// Lays out a summary pair (and the hand-made Server log) as a mirror under `dir/mirror` and
/// writes `dir/inputs.json` pinning them.
/// The two hand-made LoadGen logs every fixture build cites.
fn hand_made_logs() -> [scenario_ratios::inputs::VerifiedInput; 2] {
    use scenario_ratios::inputs::InputKind;
    [
        verified(
            "hand-made server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            FIXTURE_SERVER_LOG_PATH,
            FIXTURE_SERVER_LOG.as_bytes(),
        ),
        verified(
            "hand-made llama2 server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            FIXTURE_LLAMA_LOG_PATH,
            FIXTURE_LLAMA_LOG.as_bytes(),
        ),
    ]
}

pub(crate) fn manifest_for(csv: &[u8], json: &[u8], dir: &Path) -> PathBuf {
    manifest_with(csv, json, previous_round(), Vec::new(), dir)
}

/// As [`manifest_for`], with the earlier round's summary `previous` and further inputs `extra`
/// (its logs, say) pinned beside the summaries.
pub(crate) fn manifest_with(
    csv: &[u8],
    json: &[u8],
    previous: scenario_ratios::inputs::VerifiedInput,
    extra: Vec<scenario_ratios::inputs::VerifiedInput>,
    dir: &Path,
) -> PathBuf {
    use scenario_ratios::inputs::InputKind;
    let files = [
        verified(
            "summary.csv",
            InputKind::SummaryCsv,
            "example/fixtures",
            "summary.csv",
            csv,
        ),
        verified(
            "summary.json",
            InputKind::SummaryJson,
            "example/fixtures",
            "summary.json",
            json,
        ),
    ];
    // Every build checks the checker facts and the claims against the sources they cite, and
    // reads the earlier round.
    let files: Vec<_> = files
        .into_iter()
        .chain([previous])
        .chain(extra)
        .chain(hand_made_logs())
        .chain(cited_sources())
        .collect();
    let mut inputs = Vec::new();
    for f in &files {
        let target = dir.join("mirror").join(&f.pin.repository).join(&f.pin.path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, &f.bytes).unwrap();
        inputs.push(serde_json::to_value(&f.pin).unwrap());
    }
    let manifest = serde_json::json!({
        "about": "test inputs",
        "source_date": "2026-11-30T00:00:00Z",
        "inputs": inputs,
    });
    let path = dir.join("inputs.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    path
}

/// A verified input made in memory (for tests that bypass acquisition).
pub(crate) fn verified(
    name: &str,
    kind: scenario_ratios::inputs::InputKind,
    repository: &str,
    path: &str,
    bytes: &[u8],
) -> scenario_ratios::inputs::VerifiedInput {
    use scenario_ratios::inputs::{Origin, PinnedInput, VerifiedInput};
    let commit = "0123456789abcdef0123456789abcdef01234567".to_string();
    VerifiedInput {
        pin: PinnedInput {
            name: name.into(),
            kind,
            local: path.into(),
            repository: repository.into(),
            url: format!("https://example.org/{repository}/{commit}/{path}"),
            commit,
            path: path.into(),
            size: bytes.len() as u64,
            sha256: HexDigest::sha256(bytes),
            git_blob_sha1: HexDigest::git_blob_sha1(bytes),
            license: "Apache-2.0".into(),
            acquired: "2026-11-30".into(),
        },
        bytes: bytes.to_vec(),
        origin: Origin::Download("memory".into()),
        sha256: HexDigest::sha256(bytes),
        git_blob_sha1: HexDigest::git_blob_sha1(bytes),
    }
}

/// Every pinned input the checker facts and the claims register cite, as the project pins it,
/// read from the mirror and verified: every build checks the facts and claims against them.
pub(crate) fn cited_sources() -> Vec<scenario_ratios::inputs::VerifiedInput> {
    use scenario_ratios::inputs::{Origin, VerifiedInput};
    let project = project();
    let facts = project.facts.source.pin_in(&project.manifest).cloned();
    let mut pins: Vec<_> = project
        .manifest
        .inputs
        .iter()
        .filter(|p| project.claims.claims.iter().any(|c| c.input == p.name))
        .cloned()
        .collect();
    pins.extend(facts.filter(|f| !pins.iter().any(|p| p.name == f.name)));
    pins.into_iter()
        .map(|pin| {
            let file = mirror().join(&pin.repository).join(&pin.path);
            let bytes = std::fs::read(&file).unwrap();
            VerifiedInput::new(pin, bytes, Origin::Mirror(file.clone()), &file).unwrap()
        })
        .collect()
}

/// The submission checker's source that the checker facts cite, as the project pins it, read from
/// the mirror and verified: every build checks the facts against it.
pub(crate) fn checker_source() -> scenario_ratios::inputs::VerifiedInput {
    use scenario_ratios::inputs::{Origin, VerifiedInput};
    let project = project();
    let src = &project.facts.source;
    let pin = src
        .pin_in(&project.manifest)
        .expect("the manifest pins the facts' source")
        .clone();
    let file = mirror().join(&pin.repository).join(&pin.path);
    let bytes = std::fs::read(&file).unwrap();
    VerifiedInput::new(pin, bytes, Origin::Mirror(file.clone()), &file).unwrap()
}

/// The inputs of fixture `case`: its two summaries, plus a hand-made VALID Server log for the
/// B300 deepseek-r1 Server row (so the evidence section has a log to cite), and the checker's
/// source.
pub(crate) fn fixture_inputs(case: &str) -> scenario_ratios::inputs::Inputs {
    use scenario_ratios::inputs::InputKind;
    let dir = fixture(case);
    let files = vec![
        verified(
            "summary.csv",
            InputKind::SummaryCsv,
            "example/inference_results_v6.1",
            "summary.csv",
            &std::fs::read(dir.join("summary.csv")).unwrap(),
        ),
        verified(
            "summary.json",
            InputKind::SummaryJson,
            "example/inference_results_v6.1",
            "summary.json",
            &std::fs::read(dir.join("summary.json")).unwrap(),
        ),
    ];
    inputs_of(
        files
            .into_iter()
            .chain([previous_round()])
            .chain(hand_made_logs())
            .chain(cited_sources())
            .collect(),
    )
}

/// Inputs whose manifest pins exactly `files`.
pub(crate) fn inputs_of(
    files: Vec<scenario_ratios::inputs::VerifiedInput>,
) -> scenario_ratios::inputs::Inputs {
    let mut manifest = project().manifest;
    manifest.inputs = files.iter().map(|f| f.pin.clone()).collect();
    scenario_ratios::inputs::Inputs { manifest, files }
}
