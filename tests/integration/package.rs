//! The published folder and its bundle: byte-identical rebuilds, coreutils-compatible SHA256SUMS,
//! a zip that independent tools accept, and `verify` catching a changed byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{self, mirror, run, snapshot, stderr};

fn build(out: &Path, cache: &Path, extra: &[&str]) {
    let o = support::build_real(out, cache, extra);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A published folder of the test's own: a copy of the binary's one real build.
fn built() -> (tempfile::TempDir, PathBuf) {
    support::built_copy()
}

#[test]
fn two_builds_are_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    build(&a, &tmp.path().join("cache-a"), &[]);
    // The second build starts from an empty cache too, so it reads the mirror again.
    build(&b, &tmp.path().join("cache-b"), &[]);
    assert_eq!(
        std::fs::read(a.join("SHA256SUMS")).unwrap(),
        std::fs::read(b.join("SHA256SUMS")).unwrap()
    );
    // Every file, the marker too: a finished build's marker lists the files and names no build.
    assert_eq!(support::snapshot(&a), support::snapshot(&b));
    // SOURCE_DATE_EPOCH changes the zip's timestamps, and so its bytes.
    let c = tmp.path().join("c");
    build(
        &c,
        &tmp.path().join("cache-a"),
        &["--source-date-epoch", "1700000000"],
    );
    assert_ne!(
        std::fs::read(a.join("reproducibility.zip")).unwrap(),
        std::fs::read(c.join("reproducibility.zip")).unwrap()
    );
}

#[test]
fn coreutils_sha256sum_accepts_the_sums_file() {
    let (_tmp, out) = built();
    let o = Command::new("sha256sum")
        .args(["-c", "--strict", "SHA256SUMS"])
        .current_dir(&out)
        .output()
        .expect("sha256sum (coreutils) runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let listed = String::from_utf8(o.stdout).unwrap().lines().count();
    let files = snapshot(&out).len();
    assert_eq!(
        listed,
        files - 2,
        "every file but SHA256SUMS itself and the tool's marker is listed"
    );
}

/// Python's zipfile (an independent reader) checks every CRC and reports names, dates and modes.
#[test]
fn the_bundle_is_a_clean_deterministic_zip() {
    let (_tmp, out) = built();
    let script = r#"
import json, os, sys, zipfile
path, folder, manifest = sys.argv[1], sys.argv[2], sys.argv[3]
# Every entry is stamped with the manifest's source_date, read here from the manifest itself.
day = json.load(open(manifest))["source_date"][:10]
stamp = tuple(int(x) for x in day.split("-")) + (0, 0, 0)
z = zipfile.ZipFile(path)
bad = z.testzip()
assert bad is None, f"corrupt entry {bad}"
names = [i.filename for i in z.infolist()]
vendored = [n for n in names if n.startswith(folder + "/vendor/")]
assert vendored and names[:len(vendored)] == sorted(vendored), "the vendored crates first, sorted"
rest = names[len(vendored):]
assert rest == sorted(rest) and not any(n.startswith(folder + "/vendor/") for n in rest), \
    "then every other entry, sorted"
# 14.6 MB: the page check and the sanitiser parse HTML with html5ever; ammonia brings url and idna,
# whose adapter is pinned to the unicode-rs tables (Cargo.toml says why).
assert os.path.getsize(path) <= 20 * 2**20, f"{os.path.getsize(path)} bytes, more than 20 MiB"
top = {n.split("/")[0] for n in names}
assert top == {folder}, f"one top-level folder, found {sorted(top)[:5]}"
longest = max(names, key=len)
assert len(longest) <= 160, f"{len(longest)} characters: {longest}"
for i in z.infolist():
    assert not i.filename.startswith("/") and ".." not in i.filename.split("/"), i.filename
    assert i.date_time == stamp, (i.filename, i.date_time, stamp)
    assert (i.external_attr >> 16) & 0o777 == 0o644, (i.filename, oct(i.external_attr >> 16))
rel = [n[len(folder) + 1:] for n in names]
for required in ["Cargo.toml", "Cargo.lock", "README.md", ".cargo/config.toml", "src/main.rs",
                 "templates/article.html", "content/article.md", "data/inputs.json",
                 "data/vendor.json", "INVENTORY.sha256",
                 "data/upstream/summary.csv", "data/upstream/summary.json", "data/upstream/LICENSE.md",
                 "data/upstream/sources/submission_checker/constants.py",
                 "data/upstream/sources/loadgen/test_settings.h",
                 "data/upstream/sources/inference/README.md",
                 "published/results.json", "published/selected_rows.json", "published/pairs.csv",
                 "published/provenance.json",
                 "published/scenario-ratios.svg", "published/ratios-by-model.svg",
                 "analysis.ipynb", "analysis.py", "tests/notebook/requirements.txt"]:
    assert required in rel, required
assert not any(n.startswith(("target/", "dist/", ".ci/", "docs/")) for n in rel)
# Of the tests, only the notebook's tools travel (no Rust test, no fixture, no node_modules).
assert all(n.startswith("tests/notebook/") for n in rel if n.startswith("tests/")), \
    [n for n in rel if n.startswith("tests/") and not n.startswith("tests/notebook/")]
assert "BENCHMARKS.md" not in rel
assert "published/article.html" not in rel, "the page lists the bundle's hash, so the bundle cannot hold the page"
vendored = {n.split("/")[1] for n in rel if n.startswith("vendor/")}
assert len(vendored) > 50, len(vendored)
for d in vendored:
    assert f"vendor/{d}/.cargo-checksum.json" in rel and f"vendor/{d}/Cargo.toml" in rel, d
# The README speaks of what the bundle holds: every path it names in backquotes exists.
readme = z.read(f"{folder}/README.md").decode()
import re
for named in re.findall(r"`([A-Za-z0-9_.\-/]+/?)`", readme):
    if "/" in named or "." in named:
        hit = any(r == named or r.startswith(named.rstrip("/") + "/") for r in rel)
        # Named but made by the reader: the downloads beside the bundle and what the rebuild writes.
        if not hit and named not in ("SHA256SUMS", "reproducibility.zip", "dist/"):
            raise AssertionError(f"README names {named}, which the bundle does not hold")
print(len(names), os.path.getsize(path), len(longest))
"#;
    let o = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(out.join("reproducibility.zip"))
        .arg(scenario_ratios::base::layout::bundle_folder())
        .arg(support::root().join("data/inputs.json"))
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    println!(
        "entries, bytes, longest path: {}",
        String::from_utf8_lossy(&o.stdout).trim()
    );
    // The size README.md gives the bundle is its size, to the 0.1 MB it is written with.
    let bytes = std::fs::metadata(out.join("reproducibility.zip"))
        .unwrap()
        .len();
    let readme = std::fs::read_to_string(support::root().join("README.md")).unwrap();
    let stated = format!("`reproducibility.zip` ({:.1} MB)", bytes as f64 / 1e6);
    assert!(readme.contains(&stated), "README.md should say {stated}");
}

#[test]
fn provenance_records_every_input_with_hashes_from_the_bytes() {
    let (_tmp, out) = built();
    let p: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("provenance.json")).unwrap()).unwrap();
    let manifest = support::project().manifest;
    let inputs = p["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), manifest.inputs.len());
    for (entry, pin) in inputs.iter().zip(&manifest.inputs) {
        // Hash the mirror's copy here, independently of the pipeline.
        let bytes = std::fs::read(mirror().join(pin.mirror_path())).unwrap();
        let mut blob = format!("blob {}\0", bytes.len()).into_bytes();
        blob.extend(&bytes);
        let sha1 = Command::new("sha1sum")
            .arg("-")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(&blob)?;
                c.wait_with_output()
            })
            .expect("sha1sum runs");
        let sha1 = String::from_utf8(sha1.stdout).unwrap();
        assert_eq!(
            entry["git_blob_sha1"].as_str().unwrap(),
            sha1.split_whitespace().next().unwrap(),
            "{}",
            pin.name
        );
        assert_eq!(entry["size"].as_u64().unwrap(), bytes.len() as u64);
        assert!(entry["acquired"].as_str().unwrap().starts_with("2026-1"));
        assert_eq!(entry["license"], "Apache-2.0");
        assert!(entry["url"]
            .as_str()
            .unwrap()
            .starts_with("https://raw.githubusercontent.com/"));
        assert_eq!(
            entry["bundle_path"].as_str().unwrap(),
            format!("data/upstream/{}", pin.local)
        );
    }
    assert_eq!(p["project"]["name"], "scenario-ratios");
}

#[test]
fn verify_accepts_the_build_and_names_a_changed_file() {
    let (tmp, out) = built();
    let ok = run(&support::root(), &["verify", out.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", stderr(&ok));

    // One byte changed inside the zip: the entry's CRC no longer matches.
    let zip = tmp.path().join("changed.zip");
    let mut bytes = std::fs::read(out.join("reproducibility.zip")).unwrap();
    let i = bytes.len() / 2;
    bytes[i] ^= 0x01;
    std::fs::write(&zip, &bytes).unwrap();
    let bad = run(&support::root(), &["verify", zip.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    let err = stderr(&bad);
    assert!(err.contains("changed.zip"), "{err}");
    assert!(err.lines().last().unwrap().starts_with("error: "), "{err}");

    // One byte changed in a published file: SHA256SUMS names it.
    let page = out.join("pairs.csv");
    let mut csv = std::fs::read(&page).unwrap();
    csv[10] ^= 0x01;
    std::fs::write(&page, &csv).unwrap();
    let bad = run(&support::root(), &["verify", out.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("pairs.csv: SHA-256 mismatch"),
        "{}",
        stderr(&bad)
    );

    // An extra file not covered by SHA256SUMS is reported too.
    std::fs::write(&page, &{
        csv[10] ^= 0x01;
        csv
    })
    .unwrap();
    std::fs::write(out.join("stray.txt"), b"x").unwrap();
    let bad = run(&support::root(), &["verify", out.to_str().unwrap()]);
    assert!(
        stderr(&bad).contains("not listed in SHA256SUMS: ") && stderr(&bad).contains("stray.txt"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn validation_report_lists_passing_checks() {
    let (_tmp, out) = built();
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("qa/validation.json")).unwrap()).unwrap();
    assert_eq!(v["failed"], 0);
    let names: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["rule"].as_str().unwrap())
        .collect();
    for expected in [
        "page-safe",
        "csp-strict",
        "highlights-match-results",
        "bundle-names-safe",
        "sha256sums-cover-output",
    ] {
        assert!(names.contains(&expected), "{expected}");
    }
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("svg-well-formed"))
            .count(),
        2
    );
}

/// Every fact the checks apply appears at its recorded line of the checker's source as the
/// bundle carries it, so a reviewer can check each threshold offline.
#[test]
fn every_checker_fact_is_at_its_line_of_the_bundled_source() {
    let (_tmp, out) = built();
    let bundle = scenario_ratios::base::archive::read_all(
        &std::fs::read(out.join("reproducibility.zip")).unwrap(),
    )
    .unwrap();
    let top = scenario_ratios::base::layout::bundle_root();
    let facts_text =
        String::from_utf8(bundle[&format!("{top}sources/mlperf-checker-facts.json")].clone())
            .unwrap();
    let constants = String::from_utf8(
        bundle[&format!("{top}data/upstream/sources/submission_checker/constants.py")].clone(),
    )
    .unwrap();
    let lines: Vec<&str> = constants.lines().collect();
    let facts: serde_json::Value = serde_json::from_str(&facts_text).unwrap();
    // The number literals of a line (294.45, 0.999, 9999, 8167644): a value must be one of them
    // whole, so 0.99 is not found in `0.999`.
    let has_number = |line: &str, x: &serde_json::Value| {
        let x = x.as_f64().unwrap();
        line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .any(|t| t.parse::<f64>() == Ok(x))
    };
    let line = |n: &serde_json::Value| lines[n.as_u64().unwrap() as usize - 1];
    let mut checked = 0;
    // A model only the earlier round ran has its latency limits alone.
    let bounds = |mf: &serde_json::Value, key: &str| -> Vec<serde_json::Value> {
        mf[key].as_array().cloned().unwrap_or_default()
    };
    for (model, mf) in facts["models"].as_object().unwrap() {
        for b in bounds(mf, "accuracy_targets")
            .iter()
            .chain(&bounds(mf, "accuracy_upper_limits"))
        {
            let at = line(&b["line"]);
            let before = lines[b["line"].as_u64().unwrap() as usize - 2];
            assert!(
                has_number(at, &b["reference"]),
                "{model} {}: line {} is {at:?}",
                b["metric"],
                b["line"]
            );
            if !b["multiplier"].is_null() {
                assert!(has_number(at, &b["multiplier"]), "{model}: {at:?}");
                // The recorded value is the product, as Python computes it in double precision.
                let product = b["reference"].as_f64().unwrap() * b["multiplier"].as_f64().unwrap();
                assert_eq!(
                    product,
                    b["value"].as_f64().unwrap(),
                    "{model} {}",
                    b["metric"]
                );
            }
            let metric = format!("\"{}\"", b["metric"].as_str().unwrap());
            assert!(
                at.contains(&metric) || before.contains(&metric),
                "{model}: {metric} at or before line {}",
                b["line"]
            );
            checked += 1;
        }
        let l = &mf["server_latency_limits"];
        let at = line(&l["line"]);
        for key in ["ttft", "tpot"] {
            let ms = l[format!("{key}_ns")].as_u64().unwrap() / 1_000_000;
            assert!(
                // `* 1000000` whole: not the start of `* 10000000`.
                at.match_indices(&format!("\"{key}\": {ms} * 1000000"))
                    .any(|(i, m)| !at[i + m.len()..].starts_with(|c: char| c.is_ascii_digit())),
                "{model} {key}: {at:?}"
            );
        }
        assert!(
            lines[l["line"].as_u64().unwrap() as usize - 2].contains("\"Server\""),
            "{model}"
        );
        checked += 1;
        let fields = mf["throughput_log_field"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (scenario, field) in &fields {
            let at = line(&field["line"]);
            assert!(
                at.contains(&format!(
                    "\"{scenario}\": \"{}\"",
                    field["field"].as_str().unwrap()
                )),
                "{model}: {at:?}"
            );
            checked += 1;
        }
    }
    for k in facts["accuracy_report_keys"].as_array().unwrap() {
        let at = line(&k["line"]);
        assert!(
            at.contains(&format!("\"{}\"", k["metric"].as_str().unwrap()))
                && at.contains(&format!("'{}'", k["key"].as_str().unwrap())),
            "{at:?}"
        );
        checked += 1;
    }
    assert!(checked > 30, "{checked} facts checked");
}

/// What editors and tools leave beside the sources (Jupyter's checkpoints, editor backups and
/// swap files, Python's caches, Finder's .DS_Store) never reaches the bundle: a build of a tree
/// holding them writes the same bytes as a build of the clean tree.
#[test]
fn scratch_files_beside_the_sources_never_change_the_output() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = support::project_copy(tmp.path());
    let crates = support::root().join(scenario_ratios::vendoring::DEFAULT_CRATE_CACHE);
    let build_copy = |out: &str| {
        let o = support::run(
            tmp.path(),
            &[
                "build",
                "--root",
                copy.to_str().unwrap(),
                "--mirror",
                mirror().to_str().unwrap(),
                "--cache",
                tmp.path().join("cache").to_str().unwrap(),
                "--crate-cache",
                crates.to_str().unwrap(),
                "--out",
                out,
                "--offline",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        support::snapshot(&tmp.path().join(out))
    };
    let clean = build_copy("clean");
    for (path, bytes) in [
        (
            "content/.ipynb_checkpoints/analysis-checkpoint.ipynb",
            &b"{}"[..],
        ),
        ("content/article.md~", b"an editor's backup"),
        ("content/#article.md#", b"an autosave"),
        ("content/.article.md.swp", b"a swap file"),
        ("templates/.DS_Store", b"\0\0\0\x01Bud1"),
        (
            "tests/notebook/__pycache__/imports.cpython-311.pyc",
            b"\x0d\x0d",
        ),
        ("src/stray.pyc", b"\x0d\x0d"),
    ] {
        let p = copy.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let differing = |other: &[(PathBuf, Vec<u8>)]| -> Vec<String> {
        clean
            .iter()
            .zip(other)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a.0.display().to_string())
            .collect()
    };
    let messy = build_copy("messy");
    assert!(
        messy == clean,
        "scratch files changed the output: {:?}",
        differing(&messy)
    );
    // A file that is not scratch does reach it (the comparison can fail).
    std::fs::write(copy.join("content/notes.md"), b"a real file").unwrap();
    assert!(build_copy("noted") != clean);
}

#[test]
fn the_bundle_readme_gives_every_column_of_pairs_csv_its_unit() {
    let out = support::built();
    let csv = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    let zip = std::fs::read(out.join("reproducibility.zip")).unwrap();
    let entries = scenario_ratios::base::archive::read_all(&zip).unwrap();
    let readme = String::from_utf8(
        entries[&format!("{}README.md", scenario_ratios::base::layout::bundle_root())].clone(),
    )
    .unwrap();
    // The table of columns: each row's first cell names its columns in backticks.
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("## The columns of `published/pairs.csv`"))
        .filter(|l| l.starts_with("| `"))
        .collect();
    let missing: Vec<&str> = header
        .split(',')
        .filter(|c| {
            !table.iter().any(|row| {
                row.split(" | ")
                    .next()
                    .unwrap_or("")
                    .contains(&format!("`{c}`"))
            })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "README.md gives no unit for {missing:?}"
    );
    assert!(header.split(',').count() >= 40, "{header}");
}
