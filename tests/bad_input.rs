//! The bad-input matrix of docs/bad-input.md: each case is made here, run through the binary, and
//! the one line it prints must be the line the document promises; `dist/` stays untouched.

mod common;

use std::path::Path;

use common::{manifest_for, run, snapshot, stderr};

/// (case, documented line) from the table of docs/bad-input.md.
fn documented() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(common::root().join("docs/bad-input.md")).unwrap();
    doc.lines()
        .filter(|l| l.starts_with("| ") && l.contains("`` error: "))
        .map(|l| {
            let case = l[2..l[2..].find(" |").unwrap() + 2].to_string();
            let start = l.find("`` ").unwrap() + 3;
            let end = l.rfind(" ``").unwrap();
            (case, l[start..end].to_string())
        })
        .collect()
}

fn base(name: &str) -> String {
    std::fs::read_to_string(common::fixture("base").join(name)).unwrap()
}

/// Replaces the first occurrence of `from` (which must exist).
fn once(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} not found");
    text.replacen(from, to, 1)
}

/// Runs a build in `dir` on the given summaries; returns stderr.
fn build_summaries(dir: &Path, csv: &[u8], json: &[u8]) -> String {
    let manifest = manifest_for(csv, json, dir);
    let out = dir.join("dist");
    common::previous_output(&out, &[("article.html", b"previous")]);
    let before = snapshot(&out);
    let o = run(
        dir,
        &[
            "--manifest",
            manifest.to_str().unwrap(),
            "--mirror",
            "mirror",
            "--cache",
            "cache",
            "--offline",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(snapshot(&out), before, "dist/ untouched");
    stderr(&o)
}

/// Makes one case in a fresh folder and returns what the binary printed.
fn make(case: &str, tmp: &Path) -> String {
    let csv = base("summary.csv");
    let json = base("summary.json");
    let result_both = |value_csv: &str, value_json: &str| {
        build_summaries(
            tmp,
            once(&csv, "\"1000.0\"", &format!("\"{value_csv}\"")).as_bytes(),
            once(
                &json,
                "\"Result\": 1000.0",
                &format!("\"Result\": {value_json}"),
            )
            .as_bytes(),
        )
    };
    match case {
        "truncated CSV" => {
            let cut = csv
                .find("\"deepseek-r1\",\"deepseek-r1\",\"Server\"")
                .unwrap()
                + "\"deepseek-r1\",\"de".len();
            build_summaries(tmp, &csv.as_bytes()[..cut], json.as_bytes())
        }
        "truncated JSON" => {
            let cut = json.find("\n    },\n").unwrap() + "\n    },\n".len();
            build_summaries(tmp, csv.as_bytes(), &json.as_bytes()[..cut])
        }
        "hash mismatch" => {
            let rel = "mlcommons/inference_results_v6.1/summary.csv";
            let mut bytes = std::fs::read(common::mirror().join(rel)).unwrap();
            bytes[100] ^= 1;
            let target = tmp.join("mirror").join(rel);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, bytes).unwrap();
            let o = run(
                tmp,
                &["--mirror", "mirror", "--cache", "cache", "--offline"],
            );
            assert_eq!(o.status.code(), Some(1));
            stderr(&o)
        }
        "missing column" => {
            build_summaries(tmp, once(&csv, ",notes", "").as_bytes(), json.as_bytes())
        }
        "duplicate IDs" => build_summaries(
            tmp,
            csv.as_bytes(),
            once(&json, "\"2\": {", "\"1\": {").as_bytes(),
        ),
        "NaN Result" => result_both("NaN", "\"NaN\""),
        "inf Result" => result_both("inf", "\"inf\""),
        "negative Result" => result_both("-1000.0", "-1000.0"),
        "huge field" => {
            let big = "x".repeat(2 << 20);
            build_summaries(
                tmp,
                once(
                    &csv,
                    "\"Ubuntu 24.04\",\"\",",
                    &format!("\"Ubuntu 24.04\",\"{big}\","),
                )
                .as_bytes(),
                once(&json, "\"notes\": null", &format!("\"notes\": \"{big}\"")).as_bytes(),
            )
        }
        "invalid UTF-8" => {
            let mut bytes = csv.clone().into_bytes();
            let at = csv.find("NVIDIA DGX B300").unwrap() + "NVIDIA DGX B300".len();
            bytes.insert(at, 0xFF);
            build_summaries(tmp, &bytes, json.as_bytes())
        }
        "mirror folder missing" => {
            let o = run(tmp, &["--mirror", "missing-mirror", "--offline"]);
            assert_eq!(o.status.code(), Some(1));
            stderr(&o)
        }
        "unwritable dist" => {
            std::fs::write(tmp.join("blocker"), b"a file, not a folder").unwrap();
            let o = common::build_real(&tmp.join("blocker/dist"), &tmp.join("cache"), &[]);
            assert_eq!(o.status.code(), Some(1));
            stderr(&o).replace(tmp.to_str().unwrap(), "<tmp>")
        }
        other => panic!("docs/bad-input.md lists a case this test cannot make: {other}"),
    }
}

#[test]
fn every_documented_bad_input_prints_its_documented_line() {
    let cases = documented();
    let required = [
        "truncated CSV",
        "truncated JSON",
        "hash mismatch",
        "missing column",
        "duplicate IDs",
        "NaN Result",
        "inf Result",
        "negative Result",
        "huge field",
        "invalid UTF-8",
        "mirror folder missing",
        "unwritable dist",
    ];
    let names: Vec<&str> = cases.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(names, required, "the matrix covers every case, in order");
    for (case, line) in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let err = make(case, tmp.path());
        assert!(!err.contains("panicked"), "{case}: {err}");
        assert_eq!(err.lines().count(), 1, "{case}: one line, got {err}");
        assert_eq!(err.trim_end(), line, "{case}");
    }
}
