//! `scenario-ratios verify` proves what it says: each way a published folder or bundle can be
//! wrong is made here by hand, and verify must name it, exit 1, never panic, and write nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{self, run, snapshot, stderr};
use scenario_ratios::base::archive;
use scenario_ratios::base::digest::HexDigest;

/// A published folder of the test's own to break: a copy of the binary's one real build.
fn built() -> (tempfile::TempDir, PathBuf) {
    support::built_copy()
}

/// Runs verify on `path`; returns (exit code, stderr lines). Checks that nothing was written.
fn verify(path: &Path) -> (Option<i32>, Vec<String>) {
    let parent = path.parent().unwrap();
    let before = snapshot(parent);
    let o = run(&support::root(), &["verify", path.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(snapshot(parent), before, "verify wrote to disk");
    (o.status.code(), err.lines().map(String::from).collect())
}

fn has(lines: &[String], needle: &str) -> bool {
    lines.iter().any(|l| l.contains(needle))
}

fn write_sums(out: &Path, text: &str) {
    std::fs::write(out.join("SHA256SUMS"), text).unwrap();
}

fn sums(out: &Path) -> String {
    std::fs::read_to_string(out.join("SHA256SUMS")).unwrap()
}

#[test]
fn a_good_build_verifies() {
    let (_tmp, out) = built();
    let (code, lines) = verify(&out);
    assert_eq!(code, Some(0), "{lines:?}");
    let (code, lines) = verify(&out.join("reproducibility.zip"));
    assert_eq!(code, Some(0), "{lines:?}");
}

#[test]
fn an_empty_or_malformed_sums_file_fails() {
    let (_tmp, out) = built();
    let good = sums(&out);
    write_sums(&out, "");
    let (code, lines) = verify(&out);
    assert_eq!(code, Some(1));
    assert!(
        has(&lines, "SHA256SUMS: empty: it lists no file"),
        "{lines:?}"
    );

    write_sums(&out, &good.replacen("  ", " ", 1));
    let (code, lines) = verify(&out);
    assert_eq!(code, Some(1));
    assert!(
        has(&lines, "SHA256SUMS: line 1: expected `<sha256>  <path>`"),
        "{lines:?}"
    );

    write_sums(&out, good.trim_end());
    assert!(has(&verify(&out).1, "the last line has no newline"));
}

#[test]
fn paths_leaving_the_folder_are_refused_not_followed() {
    let (tmp, out) = built();
    // A file outside the folder whose hash is correct: verify must not read it.
    std::fs::write(tmp.path().join("outside.txt"), b"outside").unwrap();
    let h = HexDigest::sha256(b"outside");
    for path in [
        "../outside.txt",
        "/etc/hostname",
        "./article.html",
        "qa//validation.json",
    ] {
        write_sums(&out, &format!("{}{h}  {path}\n", sums(&out)));
        let (code, lines) = verify(&out);
        assert_eq!(code, Some(1), "{path}");
        assert!(
            has(
                &lines,
                &format!("path \"{path}\" is not a relative, normalised path")
            ),
            "{path}: {lines:?}"
        );
        let good: String = sums(&out)
            .lines()
            .filter(|l| !l.ends_with(path))
            .map(|l| format!("{l}\n"))
            .collect();
        write_sums(&out, &good);
    }
}

#[test]
fn missing_and_unlisted_files_are_reported_apart() {
    let (_tmp, out) = built();
    std::fs::remove_file(out.join("pairs.csv")).unwrap();
    std::fs::write(out.join("extra.txt"), b"x").unwrap();
    let (code, lines) = verify(&out);
    assert_eq!(code, Some(1));
    assert!(
        has(&lines, "missing: ") && has(&lines, "pairs.csv (listed in SHA256SUMS)"),
        "{lines:?}"
    );
    assert!(
        has(&lines, "not listed in SHA256SUMS: ") && has(&lines, "extra.txt"),
        "{lines:?}"
    );
    // A listing that leaves out a published file is caught even when that file is gone too.
    let without: String = sums(&out)
        .lines()
        .filter(|l| !l.ends_with("  pairs.csv"))
        .map(|l| format!("{l}\n"))
        .collect();
    write_sums(&out, &without);
    assert!(has(
        &verify(&out).1,
        "does not list pairs.csv, a file every build publishes"
    ));
}

/// A changed published file is one problem, told once: the bundle's copy of it is not reported
/// again as lacking a counterpart.
#[test]
fn a_changed_published_file_is_one_line() {
    let (_tmp, out) = built();
    let mut csv = std::fs::read(out.join("pairs.csv")).unwrap();
    csv[20] ^= 1;
    std::fs::write(out.join("pairs.csv"), csv).unwrap();
    let (code, lines) = verify(&out);
    assert_eq!(code, Some(1));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(has(&lines, "pairs.csv: SHA-256 mismatch"), "{lines:?}");
}

/// An unpacked bundle given to `verify` in place of the published folder is named as such, with
/// the command that checks it.
#[test]
fn an_unpacked_bundle_is_told_apart_from_a_published_folder() {
    let (tmp, out) = built();
    let unpacked = tmp.path().join("unpacked");
    let bytes = std::fs::read(out.join("reproducibility.zip")).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    zip.extract(&unpacked).unwrap();
    let folder = std::fs::read_dir(&unpacked)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let (code, lines) = verify(&folder);
    assert_eq!(code, Some(1));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        has(&lines, "looks like an unpacked bundle")
            && has(&lines, "sha256sum -c INVENTORY.sha256"),
        "{lines:?}"
    );
}

/// Rewrites the bundle with `edit` applied to its entries, and SHA256SUMS to match, so only the
/// property under test is wrong.
fn rewrite_bundle(out: &Path, edit: impl FnOnce(&mut BTreeMap<String, Vec<u8>>)) {
    let zip = out.join("reproducibility.zip");
    let top = scenario_ratios::base::layout::bundle_root();
    // Entries by path inside the bundle's folder, without the inventory (rewritten below).
    let mut entries: BTreeMap<String, Vec<u8>> = archive::read_all(&std::fs::read(&zip).unwrap())
        .unwrap()
        .into_iter()
        .map(|(k, v)| (k.strip_prefix(&top).unwrap().to_string(), v))
        .collect();
    entries.remove(scenario_ratios::base::layout::INVENTORY);
    entries.remove(scenario_ratios::package::ro_crate::RO_CRATE);
    edit(&mut entries);
    // Described afresh, so that the description matches the edited entries.
    let project = support::project();
    let describer = scenario_ratios::package::ro_crate::Describer {
        config: project.config,
        inputs: project.manifest.inputs,
    };
    let bytes = scenario_ratios::package::bundle(&entries, None, 1_795_996_800, Some(describer))
        .unwrap()
        .bytes;
    std::fs::write(&zip, &bytes).unwrap();
    let fixed: String = sums(out)
        .lines()
        .map(|l| {
            if l.ends_with("  reproducibility.zip") {
                format!("{}  reproducibility.zip\n", HexDigest::sha256(&bytes))
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    write_sums(out, &fixed);
}

#[test]
fn published_copies_must_equal_the_folder_files() {
    let (_tmp, out) = built();
    rewrite_bundle(&out, |e| {
        let csv = e.get_mut("published/pairs.csv").unwrap();
        csv[20] ^= 1;
    });
    let (code, lines) = verify(&out);
    assert_eq!(code, Some(1));
    assert!(
        has(
            &lines,
            "published/pairs.csv differs from the folder's pairs.csv"
        ),
        "{lines:?}"
    );
}

#[test]
fn the_notebook_copies_and_nothing_more_must_be_in_the_bundle() {
    let (_tmp, out) = built();
    rewrite_bundle(&out, |e| {
        e.get_mut("analysis.ipynb").unwrap().push(b'\n');
        e.remove("analysis.py").unwrap();
        e.insert("published/extra.txt".into(), b"not published".to_vec());
    });
    let (code, lines) = verify(&out);
    assert_eq!(code, Some(1));
    for needle in [
        "analysis.ipynb differs from the folder's analysis.ipynb",
        "has no scenario-ratios-0.1.0/analysis.py copy",
        "published/extra.txt is not a published file",
    ] {
        assert!(has(&lines, needle), "{needle}: {lines:?}");
    }
}

#[test]
fn bundled_inputs_must_match_the_bundled_pins_and_provenance() {
    let (_tmp, out) = built();
    let zip = out.join("reproducibility.zip");
    // The manifest inside the bundle pins another hash for summary.csv.
    rewrite_bundle(&out, |e| {
        let m = String::from_utf8(e["data/inputs.json"].clone()).unwrap();
        let changed = m.replacen("87980a2d", "87980a2e", 1);
        assert_ne!(m, changed);
        e.insert("data/inputs.json".into(), changed.into_bytes());
    });
    let (code, lines) = verify(&zip);
    assert_eq!(code, Some(1));
    assert!(
        has(&lines, "input `summary.csv` SHA-256 mismatch"),
        "{lines:?}"
    );
    assert!(has(&lines, "disagree on sha256"), "{lines:?}");

    // provenance.json records another commit for an input: the two disagree.
    let (_tmp2, out) = built();
    let zip = out.join("reproducibility.zip");
    rewrite_bundle(&out, |e| {
        let p = String::from_utf8(e["published/provenance.json"].clone()).unwrap();
        let changed = p.replacen(
            "7bf15fd8089655a71fb75c81a744d7ba5a632424",
            "0000000000000000000000000000000000000000",
            1,
        );
        e.insert("published/provenance.json".into(), changed.into_bytes());
    });
    let (code, lines) = verify(&zip);
    assert_eq!(code, Some(1));
    assert!(has(&lines, &format!(
            "input `summary.csv`: {top}published/provenance.json and {top}data/inputs.json disagree on commit",
            top = scenario_ratios::base::layout::bundle_root()
        )), "{lines:?}");

    // An input file that no pin covers.
    let (_tmp3, out) = built();
    let zip = out.join("reproducibility.zip");
    rewrite_bundle(&out, |e| {
        e.insert("data/upstream/extra/file.txt".into(), b"x".to_vec());
    });
    assert!(has(
        &verify(&zip).1,
        "data/upstream/extra/file.txt: sits among the inputs but is not pinned"
    ));
}

/// A zip of entries stored as `data` under `name`, with `method` and the inflated `size` (a
/// zip64 field from 0xFFFFFFFF on) their headers declare, and a CRC-32 of 0.
fn raw_zip(entries: &[(&str, u16, u64, Vec<u8>)]) -> Vec<u8> {
    let entries: Vec<support::Forged> = entries
        .iter()
        .map(|(name, method, size, data)| support::Forged {
            method: *method,
            size: Some(*size),
            crc: Some(0),
            ..support::Forged::new(name, data)
        })
        .collect();
    support::forged_zip(b"", &entries)
}

/// Writes `bytes` as `name` in `dir` and verifies that file.
fn verify_written(dir: &Path, name: &str, bytes: &[u8]) -> (Option<i32>, Vec<String>) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    verify(&path)
}

#[test]
fn hostile_zips_are_refused_without_allocating_what_they_declare() {
    let tmp = tempfile::tempdir().unwrap();
    // A tiny zip declaring a 2^62-byte entry.
    let huge = raw_zip(&[("a.txt", 0, 1 << 62, b"x".to_vec())]);
    assert!(huge.len() < 200, "{} bytes", huge.len());
    let (code, lines) = verify_written(tmp.path(), "huge.zip", &huge);
    assert_eq!(code, Some(1));
    assert!(
        has(&lines, "declares 4611686018427387904 bytes; at most"),
        "{lines:?}"
    );

    // A deflate stream of 1 GiB of zeros (1,024 identical fully-flushed 1 MiB blocks) behind a
    // header that declares 1 MiB: inflation stops at the declared size.
    let mut c = flate2::Compress::new(flate2::Compression::best(), false);
    let zeros = vec![0u8; 1 << 20];
    let mut block = Vec::with_capacity(1 << 16);
    c.compress_vec(&zeros, &mut block, flate2::FlushCompress::Full)
        .unwrap();
    let mut stream = Vec::with_capacity(block.len() * 1024 + 2);
    for _ in 0..1024 {
        stream.extend(&block);
    }
    stream.extend([0x03, 0x00]);
    assert!(stream.len() < 2 << 20, "{} bytes", stream.len());
    let bomb = raw_zip(&[("bomb.bin", 8, 1 << 20, stream)]);
    let (code, lines) = verify_written(tmp.path(), "bomb.zip", &bomb);
    assert_eq!(code, Some(1));
    // The cap at the declared size stops it.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("\"bomb.bin\"") && l.contains("inflates to more than")),
        "{lines:?}"
    );

    // Two entries with one name (the zip crate would merge them silently).
    let dup = raw_zip(&[
        ("a.txt", 0, 1, b"1".to_vec()),
        ("a.txt", 0, 1, b"2".to_vec()),
    ]);
    let (code, lines) = verify_written(tmp.path(), "dup.zip", &dup);
    assert_eq!(code, Some(1));
    assert!(
        has(&lines, "entry \"a.txt\" appears more than once"),
        "{lines:?}"
    );

    // Unsafe names.
    let evil = raw_zip(&[
        ("../evil.txt", 0, 1, b"1".to_vec()),
        ("/abs.txt", 0, 1, b"2".to_vec()),
    ]);
    let (_, lines) = verify_written(tmp.path(), "evil.zip", &evil);
    assert!(
        has(&lines, "entry \"../evil.txt\": unsafe path"),
        "{lines:?}"
    );
    assert!(has(&lines, "entry \"/abs.txt\": unsafe path"), "{lines:?}");

    // Not a zip at all: one problem, so one line.
    let (code, lines) = verify_written(tmp.path(), "garbage.zip", b"this is not a zip file");
    assert_eq!((code, lines.len()), (Some(1), 1), "{lines:?}");
}

#[test]
fn without_a_path_verify_checks_the_dist_of_the_project_it_is_run_in() {
    let tmp = tempfile::tempdir().unwrap();
    let root = support::project_copy(tmp.path());
    let o = support::build_real(&root.join("dist"), &tmp.path().join("cache"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // From a folder inside the project, as `--out` defaults to the project's dist/.
    let o = run(&root.join("content"), &["verify"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    let dist = std::fs::canonicalize(root.join("dist")).unwrap();
    assert!(
        said.starts_with(&format!("{}: ", dist.display())) && said.contains("no problem"),
        "{said}"
    );
    // Outside any project there is no default to check: one line says what to name.
    let outside = tmp.path().join("elsewhere");
    std::fs::create_dir(&outside).unwrap();
    let o = run(&outside, &["verify"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: verify: not inside the project, so there is no default dist/; name a published folder or a reproducibility.zip\n"
    );
}

/// The overlapping-entry zip of the safety review (4.4 MB, 50,000 entries, each declaring
/// 10,000 bytes: 500 MB in all, within the declared-total limit) is refused from its central
/// directory, before anything is inflated, with one line and exit 1, in well under 200 MB.
#[test]
fn overlapping_entries_are_refused_within_a_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let bomb = support::overlapping_zip(50_000, 10_000);
    assert!(
        bomb.len() > 4_000_000 && bomb.len() < 5_000_000,
        "{}",
        bomb.len()
    );
    let path = tmp.path().join("overlap.zip");
    std::fs::write(&path, &bomb).unwrap();
    let (o, code, peak_kib) = support::run_measured(
        Path::new(env!("CARGO_BIN_EXE_scenario-ratios")),
        &["verify".as_ref(), path.as_os_str()],
    );
    let err = stderr(&o);
    println!(
        "verify of a {}-byte overlapping zip: peak {peak_kib} KiB; {err}",
        bomb.len()
    );
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "overlap: their data share bytes of the archive (49999 overlapping pairs in all)"
        ),
        "{err}"
    );
    assert!(peak_kib < 200 * 1024, "peak {peak_kib} KiB");
    drop(bomb);

    // The bomb's twin with a central directory that claims no overlap (one entry per local
    // header), each a 1 MiB stream of zeros: the inflated total is counted as it inflates, and
    // the entries held to be checked stop at their own cap.
    let many: Vec<(String, u32, Vec<u8>)> = (0..80)
        .map(|i| {
            (
                format!(
                    "{}/data/upstream/z{i:03}",
                    scenario_ratios::base::layout::bundle_folder()
                ),
                0o100_644,
                vec![0u8; 1 << 20],
            )
        })
        .collect();
    let files: Vec<(&str, u32, &[u8])> = many
        .iter()
        .map(|(n, m, d)| (n.as_str(), *m, d.as_slice()))
        .collect();
    let held = support::zip_with_modes(&files);
    let path = tmp.path().join("held.zip");
    std::fs::write(&path, &held).unwrap();
    drop((held, files));
    let (o, code, peak_kib) = support::run_measured(
        Path::new(env!("CARGO_BIN_EXE_scenario-ratios")),
        &["verify".as_ref(), path.as_os_str()],
    );
    let err = stderr(&o);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the entries to be checked in memory pass 67108864 bytes together; not read"),
        "{err}"
    );
    println!("verify of an 84 MB zip of inputs: peak {peak_kib} KiB");
    assert!(peak_kib < 200 * 1024, "peak {peak_kib} KiB");
}

/// The flood of the third safety review: a bundle whose inventory holds five million malformed
/// lines (10 MB, deflating to a few kilobytes). verify prints at most 100 of them, then how many
/// it left out, and stays within 200 MB and 10 s (the debug binary; the release one is faster).
#[test]
fn an_inventory_of_five_million_bad_lines_prints_a_bounded_report() {
    let tmp = tempfile::tempdir().unwrap();
    const LINES: usize = 5_000_000;
    let inventory = "x\n".repeat(LINES);
    let name = format!(
        "{}/{}",
        scenario_ratios::base::layout::bundle_folder(),
        scenario_ratios::base::layout::INVENTORY
    );
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    writer
        .start_file(
            name.as_str(),
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
    std::io::Write::write_all(&mut writer, inventory.as_bytes()).unwrap();
    let zip = writer.finish().unwrap().into_inner();
    drop(inventory);
    assert!(zip.len() < 100_000, "{} bytes", zip.len());
    let path = tmp.path().join("flood.zip");
    std::fs::write(&path, &zip).unwrap();
    let started = std::time::Instant::now();
    let (o, code, peak_kib) = support::run_measured(
        Path::new(env!("CARGO_BIN_EXE_scenario-ratios")),
        &["verify".as_ref(), path.as_os_str()],
    );
    let took = started.elapsed();
    let err = stderr(&o);
    println!(
        "verify of a {}-byte zip whose inventory has {LINES} bad lines: {} lines, {} bytes, peak {peak_kib} KiB, {took:?}",
        zip.len(),
        err.lines().count(),
        err.len()
    );
    assert_eq!(code, Some(1), "{err}");
    // 100 malformed lines, the few entries such a bundle lacks, the count of the lines left out,
    // and the closing count of problems.
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.len() <= 110, "{} lines", lines.len());
    assert!(
        lines
            .last()
            .unwrap()
            .ends_with(&format!("{} problems", LINES + 3)),
        "{}",
        lines.last().unwrap()
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("and {} more problems like the above", LINES - 100))),
        "{}",
        lines[lines.len().saturating_sub(3)..].join("\n")
    );
    assert!(err.len() < 100_000, "{} bytes", err.len());
    assert!(peak_kib < 200 * 1024, "peak {peak_kib} KiB");
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
}

/// Entries that unzip would make into something else, or that two file systems would make
/// into one file, are errors.
#[test]
fn links_devices_and_colliding_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for (case, files, expected) in [
        (
            "link",
            vec![("a/lib.rs", 0o120_777, &b"/etc/passwd"[..])],
            "entry \"a/lib.rs\" is a symbolic link (mode 120777), which unzip would make as such; only regular files are accepted",
        ),
        (
            "device",
            vec![("dev", 0o020_644, &b""[..])],
            "entry \"dev\" is a character device (mode 20644)",
        ),
        (
            "fifo",
            vec![("pipe", 0o010_644, &b""[..])],
            "entry \"pipe\" is a named pipe (mode 10644)",
        ),
        (
            "case",
            vec![
                ("src/lib.rs", 0o100_644, &b"a"[..]),
                ("src/LIB.rs", 0o100_644, &b"b"[..]),
            ],
            "entries \"src/lib.rs\" and \"src/LIB.rs\" differ only in case; unpacked on macOS or Windows one would overwrite the other",
        ),
        (
            "nfd",
            vec![
                ("caf\u{e9}.txt", 0o100_644, &b"a"[..]),
                ("cafe\u{301}.txt", 0o100_644, &b"b"[..]),
            ],
            "entries \"caf\u{e9}.txt\" and \"cafe\\u{301}.txt\" are one name in Unicode normalisation (NFC and NFD); unpacked on macOS they would be one file",
        ),
    ] {
        let z = support::zip_with_modes(&files);
        let (code, lines) = verify_written(tmp.path(), &format!("{case}.zip"), &z);
        assert_eq!(code, Some(1), "{case}");
        assert!(has(&lines, expected), "{case}: {lines:?}");
    }
    // A regular file written with its type bits (as zip -X does) and one without are accepted
    // by this check.
    let plain = support::zip_with_modes(&[("a.txt", 0o100_644, b"a"), ("b.txt", 0o644, b"b")]);
    let (_, lines) = verify_written(tmp.path(), "plain.zip", &plain);
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("only regular files") || l.contains("differ only")),
        "{lines:?}"
    );
}

/// What Info-ZIP's unzip and Python's zipfile make of `zip`: for each, whether it unpacks
/// exactly the files the central directory lists, with the bytes it gives them.
fn other_readers(zip: &[u8], expected: &BTreeMap<String, Vec<u8>>) -> (bool, bool) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("forged.zip");
    std::fs::write(&path, zip).unwrap();
    let same = |dir: &Path| -> bool {
        let mut found = BTreeMap::new();
        for e in walkdir::WalkDir::new(dir).min_depth(1) {
            let Ok(e) = e else { return false };
            if e.file_type().is_file() {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.insert(rel, std::fs::read(e.path()).unwrap_or_default());
            }
        }
        &found == expected
    };
    let unzipped = tmp.path().join("unzip");
    let unzip = std::process::Command::new("unzip")
        .args(["-qq", "-o"])
        .arg(&path)
        .arg("-d")
        .arg(&unzipped)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("unzip runs (scripts/test installs it)");
    let unzip_same = unzip.status.success() && same(&unzipped);
    let extracted = tmp.path().join("python");
    let python = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
        ])
        .arg(&path)
        .arg(&extracted)
        .output()
        .expect("python3 runs");
    let python_same = python.status.success() && same(&extracted);
    (unzip_same, python_same)
}

/// One reading of a zip, the strictest: every forged zip of `support::forgeries` is refused by
/// the archive reader `verify` uses, with a line naming its fault, while a clean zip of the same
/// entries passes. Each forgery is one that Info-ZIP or Python's zipfile refuses or unpacks
/// otherwise, or that only a streaming reader (which reads the local headers in order) would
/// read otherwise (the prefix cases, which both of them read past), or Windows (a trailing dot).
/// The real bundle passes all three.
#[test]
fn every_forged_zip_is_refused_and_the_other_readers_disagree_with_it() {
    let control = support::forged_zip(
        b"",
        &[support::Forged::new("src/main.rs", b"fn main() {}\n")],
    );
    assert!(archive::central_directory(&control, &archive::BUNDLE_LIMITS).is_ok());
    let control_files = BTreeMap::from([("src/main.rs".to_string(), b"fn main() {}\n".to_vec())]);
    assert_eq!(
        other_readers(&control, &control_files),
        (true, true),
        "the control zip"
    );
    for (case, zip) in support::forgeries() {
        let problems = archive::central_directory(&zip, &archive::BUNDLE_LIMITS)
            .err()
            .unwrap_or_else(|| panic!("{case}: the strict reading accepts it"));
        assert_eq!(problems.len(), 1, "{case}: {problems:?}");
        // What the central directory says the zip holds: its names, each with the bytes of
        // the entry the forgery started from.
        let names = match case {
            "a file and a folder of one name" => Some(["src", "src/main.rs"]),
            "names that differ by a trailing dot" => Some(["src/main.rs", "src/main.rs."]),
            _ => None,
        };
        let expected: BTreeMap<String, Vec<u8>> = match names {
            Some(names) => names
                .map(|n| (n.to_string(), b"fn main() {}\n".to_vec()))
                .into(),
            None => control_files.clone(),
        };
        let (unzip_same, python_same) = other_readers(&zip, &expected);
        let said = |same| match same {
            true => "unpacks it as listed",
            false => "refuses it or unpacks otherwise",
        };
        println!(
            "{case}: verify: {}; unzip {}; Python {}",
            problems[0],
            said(unzip_same),
            said(python_same)
        );
        // Bytes before the first entry fool only a streaming reader; a trailing dot only
        // Windows, which drops it.
        let elsewhere = matches!(
            case,
            "an orphan entry before the first"
                | "a script before the zip"
                | "names that differ by a trailing dot"
        );
        assert!(
            elsewhere || !(unzip_same && python_same),
            "{case}: both other readers unpack it as listed; the forgery proves nothing"
        );
    }
    // The real bundle: all three read it, and the two others unpack every entry.
    let (_tmp, out) = built();
    let bundle = std::fs::read(out.join("reproducibility.zip")).unwrap();
    let entries = archive::read_all(&bundle).unwrap();
    assert!(entries.len() > 1000);
    assert_eq!(
        other_readers(&bundle, &entries),
        (true, true),
        "the real bundle"
    );
}
