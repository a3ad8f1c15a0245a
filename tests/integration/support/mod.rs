//! Helpers shared by the end-to-end tests: the project and the upstream mirror, running the
//! binary, and snapshots of folders (here); hand-made inputs ([`inputs`]), a tiny HTTP server on
//! 127.0.0.1 ([`server`]), the browser checks' tools ([`browser`]), the article's reproduce
//! blocks ([`reproduce`]), a child's peak memory ([`measure`]) and hand-made zips ([`zips`]).

// The browser checks' tools serve the browser and preview binaries, not this one.
#[allow(dead_code)]
pub(crate) mod browser;
pub(crate) mod inputs;
pub(crate) mod measure;
pub(crate) mod reproduce;
pub(crate) mod server;
pub(crate) mod zips;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[allow(unused_imports)]
pub(crate) use browser::browser;
pub(crate) use inputs::{checker_source, fixture_inputs, fixture_manifest, verified};
pub(crate) use measure::run_measured;
pub(crate) use reproduce::{reproduce_block, reproduce_blocks};
pub(crate) use server::serve;
pub(crate) use zips::{forged_zip, forgeries, overlapping_zip, zip_with_modes, Forged};

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The read-only upstream mirror beside the repository.
pub(crate) fn mirror() -> PathBuf {
    let m = root().join("../shared/upstream");
    assert!(
        m.is_dir(),
        "the upstream mirror {} is required by the tests",
        m.display()
    );
    m
}

/// The project as the build loads it from the repository.
pub(crate) fn project() -> scenario_ratios::project::Project {
    scenario_ratios::project::Project::load(&root()).unwrap()
}

pub(crate) fn fixture(case: &str) -> PathBuf {
    root().join("tests/fixtures").join(case)
}

/// Runs the built binary in `dir` with `args`, never with a download base inherited from outside.
pub(crate) fn run(dir: &Path, args: &[&str]) -> Output {
    binary()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("binary runs")
}

/// `inner` run through `outer` (`sh -c 'ulimit -f 2000 && exec "$@"' sh`, `setpriv …`, whose
/// arguments end where the command's begin): `outer` given `inner`'s program, arguments,
/// environment changes and working folder.
pub(crate) fn wrapped(mut outer: Command, inner: &Command) -> Command {
    outer.arg(inner.get_program()).args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => outer.env(k, v),
            None => outer.env_remove(k),
        };
    }
    if let Some(dir) = inner.get_current_dir() {
        outer.current_dir(dir);
    }
    outer
}

/// `inner` run by the shell after `setup` (`umask 077`, `ulimit -f 2000`): the shell's limits
/// and mask, then `exec` of `inner` as [`wrapped`] passes it.
pub(crate) fn after_shell(setup: &str, inner: &Command) -> Command {
    let mut sh = Command::new("sh");
    sh.args(["-c", &format!("{setup} && exec \"$@\""), "sh"]);
    wrapped(sh, inner)
}

/// The built binary, with nothing inherited that points it elsewhere, and the repository's
/// crate cache (so builds in project copies reuse its vendor fragment).
pub(crate) fn binary() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_scenario-ratios"));
    c.env("SCENARIO_RATIOS_CRATE_CACHE", root().join("data/crates"))
        .env_remove("UPSTREAM_MIRROR")
        .env_remove("SCENARIO_RATIOS_DOWNLOAD_BASE")
        .env_remove("SOURCE_DATE_EPOCH");
    c
}

/// The example `name` (test tooling such as `synth`, not part of the published binary), built
/// first, in the dev profile and with the features of this test build (so that it reuses the
/// library the tests were built with), and run from the path cargo reports for it: never a copy
/// older than the library, whatever profile built an earlier one.
pub(crate) fn example(name: &str) -> Command {
    static BUILT: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let known = built
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p.clone());
    let bin = known.unwrap_or_else(|| {
        // Every feature of Cargo.toml's [features], as this test build has it.
        let features: Vec<&str> = [
            ("serve", cfg!(feature = "serve")),
            ("sign", cfg!(feature = "sign")),
        ]
        .into_iter()
        .filter_map(|(f, on)| on.then_some(f))
        .collect();
        let o = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["build", "--quiet", "--offline", "--message-format=json"])
            .args(["--example", name, "--features", &features.join(",")])
            .current_dir(root())
            .output()
            .expect("cargo runs");
        assert!(
            o.status.success(),
            "cargo build --example {name}: {}",
            stderr(&o)
        );
        let path = String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .unwrap_or_else(|| panic!("cargo built no executable for example {name}"));
        built.push((name.to_string(), path.clone()));
        path
    });
    let mut c = Command::new(bin);
    c.env_remove("UPSTREAM_MIRROR");
    c
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A previous build's output folder as a later build finds it: the tool's marker and `files`.
pub(crate) fn previous_output(out: &Path, files: &[(&str, &[u8])]) {
    std::fs::create_dir_all(out).unwrap();
    let names = files.iter().map(|(name, _)| *name);
    let marker = scenario_ratios::base::ownership::marker_text(None, names);
    std::fs::write(out.join(scenario_ratios::base::ownership::MARKER), marker).unwrap();
    for (name, bytes) in files {
        let path = out.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// [`snapshot`] less the output folder's marker, which names the build that wrote the folder
/// (its process, start time and a random token), so two builds' folders differ only there.
pub(crate) fn snapshot_without_marker(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = snapshot(dir);
    files.retain(|(p, _)| p != Path::new(scenario_ratios::base::ownership::MARKER));
    files
}

/// Every file under `dir` with its bytes, sorted: a snapshot to compare before and after.
pub(crate) fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The Python interpreter named by the environment variable `var` (else `python3`), checked to
/// import every module of `modules`; the failure says how to get them (`setup`, which
/// scripts/test runs) and which variable names another interpreter.
pub(crate) fn python_with(var: &str, modules: &[&str], setup: &str) -> PathBuf {
    let python = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| "python3".into());
    let probe = Command::new(&python)
        .args(["-c", &format!("import {}", modules.join(", "))])
        .output();
    assert!(
        probe.is_ok_and(|o| o.status.success()),
        "{} cannot import {}: {setup} or set {var}",
        python.display(),
        modules.join(", ")
    );
    python
}

/// A copy of the file or folder `from` at `to`, folders made as needed.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        // `from` itself (a file, when it is one) goes to `to`, not to `to/`.
        let target = if rel.as_os_str().is_empty() {
            to.to_path_buf()
        } else {
            to.join(rel)
        };
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A copy of the project's own files (what a build reads and bundles) under `dir/project`.
pub(crate) fn project_copy(dir: &Path) -> PathBuf {
    let to = dir.join("project");
    for top in scenario_ratios::base::layout::SOURCE_PATHS {
        copy_tree(&root().join(top), &to.join(top));
    }
    to
}

/// One real build of the project (against the mirror, offline) for every test of this test
/// binary that only reads its output: the output folder. A test that changes the folder takes
/// a [`built_copy`] instead.
pub(crate) fn built() -> &'static Path {
    static BUILT: std::sync::OnceLock<(tempfile::TempDir, PathBuf)> = std::sync::OnceLock::new();
    &BUILT
        .get_or_init(|| {
            let tmp = tempfile::tempdir().unwrap();
            let out = tmp.path().join("dist");
            let o = build_real(&out, &tmp.path().join("cache"), &[]);
            assert!(o.status.success(), "{}", stderr(&o));
            (tmp, out)
        })
        .1
}

/// A copy of [`built`]'s output folder, the test's own to change: its holder (a temporary
/// folder, removed when dropped) and the copy, `dist` inside it.
pub(crate) fn built_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    copy_tree(built(), &out);
    (tmp, out)
}

/// Runs `scenario-ratios build` from the project folder against the real mirror, offline, with the
/// given cache and output folders and any extra arguments.
pub(crate) fn build_real(out: &Path, cache: &Path, extra: &[&str]) -> Output {
    let m = mirror();
    let mut args = vec![
        "build",
        "--mirror",
        m.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--offline",
    ];
    args.extend(extra);
    run(&root(), &args)
}
