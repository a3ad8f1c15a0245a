//! The reader's rebuild, as the article tells it: the code blocks of the built article's
//! "Reproduce it" section (check and unpack, the Python quick check, the full rebuild) are run as
//! written, one after another in one `sh`, in a folder holding only the two downloads
//! (reproducibility.zip and SHA256SUMS), with an empty cargo home, a fresh target folder and the
//! network cut (`unshare -n`). Its own last line checks every rebuilt file against the downloaded
//! SHA256SUMS; the test compares them byte for byte too, and runs the macOS spelling of the two
//! check lines (`shasum -a 256`). It reports the wall time.
//!
//! This file holds a single test: test binaries run one after another, so the nested cargo build
//! (release, from scratch) never competes with other tests for the cores.

// The helpers of the integration tests (tests/integration/support/); this binary uses a few of
// them, so those it leaves unused are not reported here (the integration binary uses them all).
#[allow(dead_code, unused_imports)]
#[path = "integration/support/mod.rs"]
mod support;

use std::process::Command;
use std::time::Instant;

fn can_cut_the_network() -> bool {
    Command::new("unshare")
        .args(["-n", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn the_article_reproduce_block_rebuilds_everything_offline_from_the_downloads() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let o = support::build_real(&out, &tmp.path().join("cache"), &[]);
    assert!(o.status.success(), "{}", support::stderr(&o));

    let html = std::fs::read_to_string(out.join("article.html")).unwrap();
    // The reader's whole path, as the section tells it: its blocks in order, in one shell
    // (check and unpack, the Python quick check, the full rebuild).
    let blocks = support::reproduce_blocks(&html);
    assert!(
        blocks[0].starts_with(
            "sha256sum --ignore-missing -c SHA256SUMS\nunzip -q reproducibility.zip\n"
        ),
        "the first step checks and unpacks the downloads: {blocks:?}"
    );
    let rebuild = support::reproduce_block(&html, "cargo run --profile reader --offline --locked");
    assert_eq!(
        blocks.last(),
        Some(&rebuild),
        "the full rebuild is the last step"
    );
    assert!(
        blocks.iter().any(|b| b.contains("python3 analysis.py")),
        "{blocks:?}"
    );
    let block = blocks.concat();

    // The reader's folder: the two downloads, nothing else; an empty cargo home.
    let reader = tmp.path().join("reader");
    let home = tmp.path().join("empty-cargo-home");
    std::fs::create_dir_all(&reader).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    for f in ["reproducibility.zip", "SHA256SUMS"] {
        std::fs::copy(out.join(f), reader.join(f)).unwrap();
    }
    std::fs::write(tmp.path().join("reproduce.sh"), format!("set -eu\n{block}")).unwrap();

    assert!(
        can_cut_the_network(),
        "`unshare -n` is needed to cut the network (CI runs as root); this test does not run without it"
    );
    // The toolchain stays where rustup put it; only cargo's home (registry, caches) is empty.
    let cargo = std::env::var_os("CARGO")
        .map(std::path::PathBuf::from)
        .unwrap();
    let path = format!(
        "{}:{}",
        cargo.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = Instant::now();
    let run = Command::new("unshare")
        .args(["-n", "sh"])
        .arg(tmp.path().join("reproduce.sh"))
        .current_dir(&reader)
        .env_clear()
        .env("PATH", &path)
        .env("HOME", tmp.path())
        .env("CARGO_HOME", &home)
        .env(
            "RUSTUP_HOME",
            std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| {
                std::path::PathBuf::from(std::env::var_os("HOME").unwrap())
                    .join(".rustup")
                    .into()
            }),
        )
        .env("SOURCE_DATE_EPOCH", "1000000000")
        .output()
        .unwrap();
    let took = started.elapsed();
    let log = format!(
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "the reproduce block failed:\n{log}");
    println!(
        "the article's reproduce block ran in {:.1} s",
        took.as_secs_f64()
    );
    assert!(
        log.contains("results.json, pairs.csv and interactive_pairs.csv agree with this notebook"),
        "the quick check ran: {log}"
    );
    assert!(log.contains("no problem"), "verify ran: {log}");
    assert!(
        log.contains("SOURCE_DATE_EPOCH=1000000000 in the environment is ignored"),
        "an ambient SOURCE_DATE_EPOCH is reported and ignored: {log}"
    );

    // Every rebuilt file is byte-identical to the published one.
    let folder = reader.join(scenario_ratios::base::layout::bundle_folder());
    // The bundle's README gives the same rebuild commands as the article.
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```sh\n{rebuild}```")),
        "the bundled README's rebuild block is the article's:\n{rebuild}"
    );
    // Every file, the marker too.
    let rebuilt = support::snapshot(&folder.join("dist"));
    let published = support::snapshot(&out);
    assert_eq!(
        rebuilt, published,
        "the rebuilt output differs from the published one"
    );

    // The reader's binary is built without the live preview: its help lists no `serve`, and asked
    // for one it says in one line how to build a binary that has it.
    let bin = folder.join("target/reader/scenario-ratios");
    let help = Command::new(&bin).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        !help.lines().any(|l| l.trim_start().starts_with("serve ")),
        "{help}"
    );
    let serve = Command::new(&bin).arg("serve").output().unwrap();
    assert_eq!(serve.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&serve.stderr),
        "error: serve: this binary was built without the live preview; run: cargo run --release --features serve -- serve\n"
    );
    // Nothing was downloaded: the cargo home is still empty of crates.
    assert!(!home.join("registry").exists(), "cargo used its registry");

    // The macOS spelling of the two check lines works too (Perl's shasum has --ignore-missing).
    if Command::new("shasum").arg("--version").output().is_ok() {
        let mac = Command::new("sh")
            .arg("-c")
            .arg("shasum -a 256 --ignore-missing -c SHA256SUMS && cd scenario-ratios-*/dist && shasum -a 256 -c ../../SHA256SUMS")
            .current_dir(&reader)
            .output()
            .unwrap();
        assert!(
            mac.status.success(),
            "{}",
            String::from_utf8_lossy(&mac.stdout)
        );
    }

    // Where `unzip` is missing, the article's alternative unpacks the same files.
    assert!(
        html.contains("<code>python3 -m zipfile -e reproducibility.zip ./</code>"),
        "the article offers the Python alternative to unzip"
    );
    let other = tmp.path().join("python-unzip");
    std::fs::create_dir_all(&other).unwrap();
    let o = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(reader.join("reproducibility.zip"))
        .arg("./")
        .current_dir(&other)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fresh = tmp.path().join("unzip-again");
    std::fs::create_dir_all(&fresh).unwrap();
    let o = Command::new("unzip")
        .args(["-q"])
        .arg(reader.join("reproducibility.zip"))
        .current_dir(&fresh)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        support::snapshot(&other) == support::snapshot(&fresh),
        "python3 -m zipfile -e and unzip unpack different files"
    );
}
