//! The walk-through notebook as a reader meets it: the bundle is unzipped into a folder holding
//! nothing else, and there `python3 analysis.py` (isolated: no site-packages, no environment)
//! must pass, and `pytest --nbval analysis.ipynb` must re-run every code cell and find every
//! stored output unchanged. With one ratio of the unzipped results.json changed, both must fail,
//! naming that pair. The notebook and the script may import only the standard library and must
//! parse as Python 3.9 (tests/notebook/imports.py). Re-executing the stored notebook with the
//! documented command (tests/notebook/execute.py) must rewrite the same bytes. The article's
//! quick check is run as written.
//!
//! nbval and ipykernel come from tests/notebook/requirements.txt (scripts/test installs them). The
//! interpreter that has them is `SCENARIO_RATIOS_NBVAL_PYTHON`, else `python3`; without them the
//! nbval tests fail saying what to install.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::support;
use serde_json::Value;

/// The binary's one real build: its output folder.
fn built() -> &'static Path {
    support::built()
}

/// A fresh folder holding only the unzipped bundle (as `unzip -q reproducibility.zip` leaves
/// it); returns the holder and the bundle folder inside it.
fn unzipped() -> (tempfile::TempDir, PathBuf) {
    let holder = tempfile::tempdir().unwrap();
    let o = Command::new("unzip")
        .arg("-q")
        .arg(built().join("reproducibility.zip"))
        .current_dir(holder.path())
        .output()
        .expect("unzip runs (apt-get install unzip)");
    assert!(o.status.success(), "{}", support::stderr(&o));
    let folders: Vec<PathBuf> = std::fs::read_dir(holder.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(folders.len(), 1, "the bundle unzips into one folder");
    let folder = folders.into_iter().next().unwrap();
    (holder, folder)
}

/// `python3 -I -S analysis.py` in `folder`: isolated mode and no `site`, so nothing installed
/// can be imported and no PYTHON* variable applies.
fn run_script(folder: &Path) -> Output {
    Command::new("python3")
        .args(["-I", "-S", "analysis.py"])
        .current_dir(folder)
        .output()
        .expect("python3 runs")
}

/// The interpreter that has nbval, ipykernel and pytest, probed once for the whole file.
fn nbval_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        support::python_with(
            "SCENARIO_RATIOS_NBVAL_PYTHON",
            &["nbval", "ipykernel", "pytest"],
            "install tests/notebook/requirements.txt (scripts/test does, into a venv under ~/.cache/scenario-ratios)",
        )
    })
}

/// `pytest --nbval analysis.ipynb` in `folder`, writing no cache into the bundle.
fn run_nbval(folder: &Path) -> Output {
    Command::new(nbval_python())
        .args([
            "-m",
            "pytest",
            "--nbval",
            "analysis.ipynb",
            "-p",
            "no:cacheprovider",
            "-q",
        ])
        .current_dir(folder)
        .output()
        .expect("pytest runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The number of code cells of a notebook, read from its JSON.
fn code_cells(notebook: &Path) -> usize {
    let nb: Value = serde_json::from_slice(&std::fs::read(notebook).unwrap()).unwrap();
    nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cell_type"] == "code")
        .count()
}

/// Changes the ratio of the pair in the middle of results.json by one part in a million (far
/// beyond the notebook's 1e-12); returns that pair as the notebook names it, "pair O/S".
fn change_one_ratio(folder: &Path) -> String {
    let path = folder.join("published/results.json");
    let mut results: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let pairs = results["pairs"].as_array_mut().unwrap();
    let n = pairs.len();
    let pair = &mut pairs[n / 2];
    let ratio = pair["ratio"].as_f64().unwrap();
    pair["ratio"] = serde_json::json!(ratio * (1.0 + 1e-6));
    let name = format!(
        "pair {}/{}",
        pair["offline_id"].as_str().unwrap(),
        pair["server_id"].as_str().unwrap()
    );
    std::fs::write(&path, serde_json::to_vec_pretty(&results).unwrap()).unwrap();
    name
}

#[test]
fn analysis_py_passes_in_the_unzipped_bundle_with_nothing_installed() {
    let (_holder, folder) = unzipped();
    let o = run_script(&folder);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("results.json, pairs.csv and interactive_pairs.csv agree with this notebook"),
        "{out}"
    );
    // It wrote nothing into the bundle (no __pycache__, no output file).
    let (_fresh, pristine) = unzipped();
    assert_eq!(support::snapshot(&folder), support::snapshot(&pristine));
    // Run from the folder of the downloads (the bundle's parent), it finds its bundle all the same.
    let name = folder.file_name().unwrap().to_str().unwrap();
    let o = Command::new("python3")
        .args(["-I", "-S", &format!("{name}/analysis.py")])
        .current_dir(folder.parent().unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("agree with this notebook"));
}

/// Run by a Python older than the 3.9 it needs (simulated: `sys.version_info` set to 3.8 before
/// the script runs), or with `-O` (which strips its asserts), the script refuses in one line.
#[test]
fn analysis_py_refuses_an_old_python_and_optimised_mode_in_one_line() {
    let (_holder, folder) = unzipped();
    let refuses = |args: &[&str], line: &str| {
        let o = Command::new("python3")
            .args(["-I", "-S"])
            .args(args)
            .current_dir(&folder)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), line, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}: it stops before any step");
    };
    refuses(
        &[
            "-c",
            "import sys; sys.version_info = (3, 8, 18); sys.version = '3.8.18 (simulated)'; \
             sys.argv = ['analysis.py']; exec(compile(open('analysis.py').read(), 'analysis.py', 'exec'))",
        ],
        "analysis.py: needs Python 3.9 or later; this is 3.8.18\n",
    );
    refuses(
        &["-O", "analysis.py"],
        "analysis.py: run it without -O (its checks are assert statements)\n",
    );
}

#[test]
fn the_stored_outputs_are_what_a_fresh_run_prints() {
    let (_holder, folder) = unzipped();
    let cells = code_cells(&folder.join("analysis.ipynb"));
    assert!(cells >= 6, "{cells} code cells");
    let o = run_nbval(&folder);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(&format!("{cells} passed")),
        "nbval ran every code cell: {out}"
    );
}

#[test]
fn a_stored_output_that_differs_from_a_fresh_run_fails_nbval() {
    let (_holder, folder) = unzipped();
    let path = folder.join("analysis.ipynb");
    let mut nb: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let cell = nb["cells"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["cell_type"] == "code" && !c["outputs"].as_array().unwrap().is_empty())
        .unwrap();
    let output = &mut cell["outputs"][0];
    let lines = output["text"].as_array_mut().unwrap();
    lines.push(serde_json::json!("a line no fresh run prints\n"));
    std::fs::write(&path, serde_json::to_vec_pretty(&nb).unwrap()).unwrap();
    let o = run_nbval(&folder);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(
        out.contains("mismatch 'stdout'") && out.contains("1 failed"),
        "nbval names the one changed output: {out}"
    );
}

#[test]
fn re_executing_the_stored_notebook_rewrites_the_same_bytes() {
    let (_holder, folder) = unzipped();
    let path = folder.join("analysis.ipynb");
    let stored = std::fs::read(&path).unwrap();
    let execute = |folder: &Path| {
        Command::new(nbval_python())
            .arg(support::root().join("tests/notebook/execute.py"))
            .arg("analysis.ipynb")
            .current_dir(folder)
            .output()
            .unwrap()
    };
    let o = execute(&folder);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        std::fs::read(&path).unwrap() == stored,
        "the documented re-execution changed the stored notebook"
    );
    // A run that fails stores nothing: the notebook keeps its bytes.
    change_one_ratio(&folder);
    let o = execute(&folder);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(std::fs::read(&path).unwrap() == stored);
}

/// A cell whose printing the kernel flushes in two pieces (here a second apart, as a busy
/// machine does within one) is stored as one stream: the stored bytes do not depend on timing.
#[test]
fn re_execution_stores_a_cells_printed_lines_as_one_stream() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("t.ipynb");
    let nb = serde_json::json!({
        "cells": [{"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {},
                   "outputs": [], "source": ["import time\n", "print(1)\n", "time.sleep(1)\n", "print(2)"]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5
    });
    std::fs::write(&path, serde_json::to_vec(&nb).unwrap()).unwrap();
    let o = Command::new(nbval_python())
        .arg(support::root().join("tests/notebook/execute.py"))
        .arg("t.ipynb")
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let stored: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        stored["cells"][0]["outputs"],
        serde_json::json!([{"name": "stdout", "output_type": "stream", "text": ["1\n", "2\n"]}])
    );
}

#[test]
fn one_changed_ratio_fails_the_script_and_the_notebook_naming_the_pair() {
    let (_holder, folder) = unzipped();
    let pair = change_one_ratio(&folder);

    let o = run_script(&folder);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(&pair), "{pair} named: {stderr}");

    let o = run_nbval(&folder);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains(&pair), "{pair} named: {}", text(&o));
}

/// A results.json of another round than the rows' fails the script in one line naming both.
#[test]
fn a_results_file_of_another_round_fails_the_script() {
    let (_holder, folder) = unzipped();
    let path = folder.join("published/results.json");
    let mut results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let round = results["round"].as_str().unwrap().to_string();
    results["round"] = "v0.9".into();
    std::fs::write(&path, serde_json::to_vec_pretty(&results).unwrap()).unwrap();
    let o = run_script(&folder);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "analysis.py: mismatch: results.json is of round 'v0.9', the rows of ['{round}']\n"
        )
    );
}

#[test]
fn the_notebook_and_the_script_import_only_the_standard_library() {
    let (_holder, folder) = unzipped();
    let check = support::root().join("tests/notebook/imports.py");
    let python = scenario_ratios::notebook::min_python();
    let o = Command::new("python3")
        .arg(&check)
        .args(["--python", &python])
        .arg(folder.join("analysis.ipynb"))
        .arg(folder.join("analysis.py"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let modules = String::from_utf8_lossy(&o.stdout);
    assert!(modules.lines().any(|m| m == "hashlib"), "{modules}");

    // The check itself refuses a third-party import and newer syntax.
    let tmp = tempfile::tempdir().unwrap();
    let newer = format!("not Python {python} syntax");
    for (case, src, says) in [
        (
            "third_party.py",
            "import numpy as np\n",
            "imports numpy, not in",
        ),
        (
            "from_third_party.py",
            "from pandas import read_csv\n",
            "imports pandas, not in",
        ),
        (
            "newer_syntax.py",
            "match 1:\n    case 1:\n        pass\n",
            newer.as_str(),
        ),
        ("magic.py", "%time 1\n", "line 1: an IPython magic"),
    ] {
        let p = tmp.path().join(case);
        std::fs::write(&p, src).unwrap();
        let o = Command::new("python3")
            .arg(&check)
            .args(["--python", &python])
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{case}: {}", text(&o));
        assert!(
            text(&o).contains(case) && text(&o).contains(says),
            "{case}: {}",
            text(&o)
        );
    }
}

#[test]
fn the_published_notebook_is_the_project_s_and_the_script_its_code_cells() {
    let dist = built();
    let (_holder, folder) = unzipped();
    let project = std::fs::read(support::root().join("content/analysis.ipynb")).unwrap();
    assert_eq!(std::fs::read(dist.join("analysis.ipynb")).unwrap(), project);
    assert_eq!(
        std::fs::read(folder.join("analysis.ipynb")).unwrap(),
        project
    );
    let script = std::fs::read_to_string(dist.join("analysis.py")).unwrap();
    assert_eq!(
        std::fs::read_to_string(folder.join("analysis.py")).unwrap(),
        script
    );
    // Every code cell appears in the script, in order, and nothing of the Markdown cells does.
    let nb: Value = serde_json::from_slice(&project).unwrap();
    let mut at = 0;
    for cell in nb["cells"].as_array().unwrap() {
        let src: String = cell["source"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        if cell["cell_type"] == "code" {
            let found = script[at..]
                .find(src.trim_end())
                .expect("code cell in order");
            at += found + src.trim_end().len();
        } else {
            let first = src.lines().find(|l| !l.trim().is_empty()).unwrap();
            assert!(!script.contains(first), "Markdown in the script: {first}");
        }
    }
}

#[test]
fn the_article_quick_check_runs_as_written_from_the_two_downloads() {
    let dist = built();
    let html = std::fs::read_to_string(dist.join("article.html")).unwrap();
    // The section's first step (check and unpack), then the quick check, in one shell.
    let first = support::reproduce_blocks(&html).remove(0);
    let block = format!(
        "{first}{}",
        support::reproduce_block(&html, "python3 analysis.py")
    );
    let reader = tempfile::tempdir().unwrap();
    for f in ["reproducibility.zip", "SHA256SUMS"] {
        std::fs::copy(dist.join(f), reader.path().join(f)).unwrap();
    }
    let o = Command::new("sh")
        .args(["-c", &format!("set -eu\n{block}")])
        .current_dir(reader.path())
        .env_remove("PYTHONPATH")
        .output()
        .unwrap();
    let out = text(&o);
    assert!(o.status.success(), "{block}\n{out}");
    assert!(out.contains("reproducibility.zip: OK"), "{out}");
    assert!(
        out.contains("results.json, pairs.csv and interactive_pairs.csv agree with this notebook"),
        "{out}"
    );
}

/// The pinned tools that re-run the notebook install on the Python the bundled README names:
/// the highest `Requires-Python` lower bound of every package installed with them.
#[test]
fn the_python_the_notebook_tools_need_is_the_one_the_readme_names() {
    let script = r#"
import importlib.metadata as m, re
best = (0, 0)
for d in m.distributions():
    name = (d.metadata.get("Name") or "").lower()
    if name in ("pip", "setuptools", "wheel"):
        continue
    for major, minor in re.findall(r">=\s*(\d+)\.(\d+)", d.metadata.get("Requires-Python") or ""):
        best = max(best, (int(major), int(minor)))
print("%d.%d" % best)
"#;
    let o = Command::new(nbval_python())
        .args(["-c", script])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let needed = String::from_utf8_lossy(&o.stdout).trim().to_string();
    assert_eq!(needed, scenario_ratios::notebook::NBVAL_MIN_PYTHON);
    let (_tmp, folder) = unzipped();
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!(
            "with Python {needed} or later (the pinned Jupyter kernel\nneeds it)"
        )),
        "{readme}"
    );
}
