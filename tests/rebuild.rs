//! A reader's rebuild: unpack `reproducibility.zip` into an empty folder, build the project from
//! the source inside it (in a target folder of its own), run it against the inputs inside the bundle only (no mirror, no network), and compare
//! the new results.json and article.html byte for byte with the published ones.
//!
//! This file holds a single test: test binaries run one after another, so the nested cargo build
//! never races other tests for the shared target directory.

mod common;

use std::path::PathBuf;
use std::process::Command;

#[test]
fn the_bundle_rebuilds_the_same_article_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let o = common::build_real(&out, &tmp.path().join("cache"), &[]);
    assert!(o.status.success(), "{}", common::stderr(&o));

    // Unpack into a folder with nothing beside it (no ../shared mirror).
    let unpacked = tmp.path().join("reader/scenario-ratios");
    let bytes = std::fs::read(out.join("reproducibility.zip")).unwrap();
    let entries = scenario_ratios::archive::read_all(&bytes).unwrap();
    for (name, data) in &entries {
        let path = unpacked.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, data).unwrap();
    }

    // Its own target folder: building the bundle's source into the shared one would replace the
    // binary the other tests run (built with every feature) by one built without.
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join("target"))
        .join("reader-rebuild");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = Command::new(cargo)
        .args(["build", "--offline", "--locked", "--quiet"])
        .current_dir(&unpacked)
        .env("CARGO_TARGET_DIR", &target_dir)
        .output()
        .expect("cargo runs");
    assert!(
        build.status.success(),
        "cargo build in the unpacked bundle failed: {}",
        String::from_utf8_lossy(&build.stderr)
    );
    let rebuilt = Command::new(target_dir.join("debug/scenario-ratios"))
        .args(["build", "--offline", "--out", "rebuilt"])
        .current_dir(&unpacked)
        .env_remove("UPSTREAM_MIRROR")
        .env_remove("SCENARIO_RATIOS_DOWNLOAD_BASE")
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("rebuilt binary runs");
    let err = String::from_utf8_lossy(&rebuilt.stderr);
    assert!(rebuilt.status.success(), "{err}");
    assert!(
        err.contains("from the cache, 0 from the mirror, 0 downloaded"),
        "{err}"
    );
    for name in [
        "results.json",
        "article.html",
        "pairs.csv",
        "scenario-ratios.svg",
    ] {
        if let Some(copy) = entries.get(&format!("published/{name}")) {
            assert_eq!(
                &std::fs::read(unpacked.join("rebuilt").join(name)).unwrap(),
                copy,
                "{name} differs after the rebuild"
            );
        }
        assert_eq!(
            std::fs::read(unpacked.join("rebuilt").join(name)).unwrap(),
            std::fs::read(out.join(name)).unwrap(),
            "{name} differs from dist/"
        );
    }
}
