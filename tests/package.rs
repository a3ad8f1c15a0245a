//! The published folder and its bundle: byte-identical rebuilds, coreutils-compatible SHA256SUMS,
//! a zip that independent tools accept, and `verify` catching a changed byte.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{mirror, run, snapshot, stderr};

fn build(out: &Path, cache: &Path, extra: &[&str]) {
    let o = common::build_real(out, cache, extra);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn built() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    build(&out, &tmp.path().join("cache"), &[]);
    (tmp, out)
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
    assert_eq!(snapshot(&a), snapshot(&b));
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
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
assert bad is None, f"corrupt entry {bad}"
names = [i.filename for i in z.infolist()]
assert names == sorted(names), "entries sorted"
for i in z.infolist():
    assert not i.filename.startswith("/") and ".." not in i.filename.split("/"), i.filename
    assert i.date_time == (2026, 11, 30, 0, 0, 0), (i.filename, i.date_time)
    assert (i.external_attr >> 16) & 0o777 == 0o644, (i.filename, oct(i.external_attr >> 16))
for required in ["Cargo.toml", "Cargo.lock", "README.md", "src/main.rs", "templates/article.html",
                 "content/article.md", "data/inputs.json", "INVENTORY.sha256",
                 "published/results.json", "published/selected_rows.json", "published/pairs.csv",
                 "published/provenance.json",
                 "published/scenario-ratios.svg", "published/ratios-by-model.svg"]:
    assert required in names, required
assert not any(n.startswith(("target/", "dist/", "data/cache/") ) and n.endswith(".rs") for n in names)
inputs = [n for n in names if n.startswith("data/cache/")]
assert any(n.endswith("/summary.csv") for n in inputs) and any(n.endswith("/LICENSE.md") for n in inputs)
assert not any(n.startswith(("target/", "dist/")) for n in names)
assert "published/article.html" not in names, "the page lists the bundle's hash, so the bundle cannot hold the page"
print(len(names))
"#;
    let o = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(out.join("reproducibility.zip"))
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn provenance_records_every_input_with_hashes_from_the_bytes() {
    let (_tmp, out) = built();
    let p: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("provenance.json")).unwrap()).unwrap();
    let manifest = common::project().manifest;
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
        assert_eq!(entry["acquired"], "2026-11-30");
        assert_eq!(entry["license"], "Apache-2.0");
        assert!(entry["url"]
            .as_str()
            .unwrap()
            .starts_with("https://raw.githubusercontent.com/"));
    }
    assert_eq!(p["project"]["name"], "scenario-ratios");
}

#[test]
fn verify_accepts_the_build_and_names_a_changed_file() {
    let (tmp, out) = built();
    let ok = run(&common::root(), &["verify", out.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", stderr(&ok));

    // One byte changed inside the zip: the entry's CRC no longer matches.
    let zip = tmp.path().join("changed.zip");
    let mut bytes = std::fs::read(out.join("reproducibility.zip")).unwrap();
    let i = bytes.len() / 2;
    bytes[i] ^= 0x01;
    std::fs::write(&zip, &bytes).unwrap();
    let bad = run(&common::root(), &["verify", zip.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    let err = stderr(&bad);
    assert!(err.contains("changed.zip"), "{err}");
    assert!(err.lines().last().unwrap().starts_with("error: "), "{err}");

    // One byte changed in a published file: SHA256SUMS names it.
    let page = out.join("pairs.csv");
    let mut csv = std::fs::read(&page).unwrap();
    csv[10] ^= 0x01;
    std::fs::write(&page, &csv).unwrap();
    let bad = run(&common::root(), &["verify", out.to_str().unwrap()]);
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
    let bad = run(&common::root(), &["verify", out.to_str().unwrap()]);
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
