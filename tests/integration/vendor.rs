//! What `cargo metadata` says about the locked crates, against what the project declares: the
//! stubs of data/vendor.json are exactly the crates a default build for Linux and macOS does not
//! compile, and Cargo.toml's rust-version is at least every locked crate's.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use crate::support;
use serde_json::Value;

fn metadata(extra: &[&str]) -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let o = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(extra)
        .current_dir(support::root())
        .output()
        .expect("cargo runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `name version` of every registry crate a default build for `target` compiles: normal and
/// build dependencies reachable from the package, features as resolved.
fn compiled_for(target: &str) -> BTreeSet<String> {
    let m = metadata(&["--filter-platform", target]);
    let packages: BTreeMap<&str, &Value> = m["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let nodes: BTreeMap<&str, &Value> = m["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let mut seen = BTreeSet::new();
    let mut stack = vec![m["resolve"]["root"].as_str().unwrap()];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let built = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if built {
                stack.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    seen.iter()
        .map(|id| packages[id])
        .filter(|p| !p["source"].is_null())
        .map(|p| {
            format!(
                "{} {}",
                p["name"].as_str().unwrap(),
                p["version"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn the_stubs_are_exactly_the_crates_no_linux_or_macos_build_compiles() {
    let plan: Value =
        serde_json::from_slice(&std::fs::read(support::root().join("data/vendor.json")).unwrap())
            .unwrap();
    let mut compiled = BTreeSet::new();
    for target in plan["platforms"].as_array().unwrap() {
        compiled.extend(compiled_for(target.as_str().unwrap()));
    }
    let locked: BTreeSet<String> = scenario_ratios::vendoring::locked_crates(
        &std::fs::read_to_string(support::root().join("Cargo.lock")).unwrap(),
    )
    .unwrap()
    .iter()
    .map(|c| c.id())
    .collect();
    let expected: BTreeSet<String> = locked.difference(&compiled).cloned().collect();
    let declared: BTreeSet<String> = plan["stubs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        declared,
        expected,
        "data/vendor.json is out of date; its stubs should be: {}",
        serde_json::to_string_pretty(&expected).unwrap()
    );
    assert!(
        compiled.iter().any(|c| c.starts_with("libc ")),
        "sanity: libc is compiled"
    );
    assert!(
        declared.iter().any(|c| c.starts_with("windows-sys ")),
        "sanity: windows-sys is a stub"
    );
}

#[test]
fn rust_version_is_at_least_every_locked_crates() {
    let m = metadata(&[]);
    let version = |s: &str| -> Vec<u64> { s.split('.').map(|p| p.parse().unwrap()).collect() };
    let ours = m["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["source"].is_null())
        .unwrap()["rust_version"]
        .as_str()
        .unwrap()
        .to_string();
    let (highest, by) = m["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["source"].is_null())
        .filter_map(|p| {
            Some((
                version(p["rust_version"].as_str()?),
                p["name"].as_str().unwrap(),
            ))
        })
        .max()
        .unwrap();
    assert!(
        version(&ours) >= highest,
        "rust-version {ours} is below {by}'s {highest:?}"
    );
    assert_eq!(ours, env!("CARGO_PKG_RUST_VERSION"));
}
