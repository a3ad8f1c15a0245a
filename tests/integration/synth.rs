//! `synth` writes only where it may: a new or empty folder, or one it wrote before; someone's
//! folder, a file, or too many rows are refused before anything is written. The checker's source
//! its facts cite is taken from the upstream mirror beside the repository.

use ratios_dev::synth;

#[test]
fn write_claims_only_new_empty_or_its_own_folders() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = scenario_ratios::project::Project::load(root).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let acquire = scenario_ratios::inputs::AcquireOptions {
        cache_dir: tmp.path().join("cache"),
        own_cache: false,
        allow_download: false,
        ..scenario_ratios::inputs::AcquireOptions::for_project(root)
    };
    let write =
        |out: &std::path::Path, rows, seed| synth::write(out, rows, seed, &project, &acquire);
    let out = tmp.path().join("syn");
    let manifest = write(&out, 50, 1).unwrap();
    assert!(manifest.is_file() && out.join(synth::MARKER).is_file());
    // Its own folder again: fine.
    write(&out, 60, 2).unwrap();
    // Someone's folder: refused, the file untouched.
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("inputs.json"), b"mine").unwrap();
    let err = write(&theirs, 50, 1).unwrap_err().to_string();
    assert!(err.contains("did not write"), "{err}");
    assert_eq!(std::fs::read(theirs.join("inputs.json")).unwrap(), b"mine");
    assert!(!theirs.join(synth::MARKER).exists());
    // A file: refused, untouched.
    let file = tmp.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    assert!(write(&file, 50, 1).is_err());
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    // Too many rows: refused before anything is written.
    let big = tmp.path().join("big");
    assert!(write(&big, synth::MAX_ROWS + 1, 1).is_err());
    assert!(!big.exists());
}

/// The example, as README gives it: it writes the rows and prints a command that analyses them,
/// and that command, run as printed, does.
#[test]
fn the_synth_example_prints_a_command_that_analyses_what_it_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("syn");
    let o = crate::support::example("synth")
        .current_dir(crate::support::root())
        .args(["--rows", "200", "--seed", "3", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
    let said = String::from_utf8(o.stdout).unwrap();
    let (_, command) = said
        .trim_end()
        .split_once("analyse with: scenario-ratios ")
        .unwrap_or_else(|| panic!("{said}"));
    assert!(said.starts_with("wrote 200 rows to "), "{said}");
    // The printed paths hold no space here, so the command splits on spaces as a shell would.
    let args: Vec<&str> = command.split(' ').collect();
    let explained = crate::support::run(&crate::support::root(), &args);
    assert!(
        explained.status.success(),
        "{}",
        crate::support::stderr(&explained)
    );
    let text = String::from_utf8(explained.stdout).unwrap();
    let first = text
        .lines()
        .find(|l| l.trim_start().starts_with("All rows of the summary"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        first.trim_end().ends_with(" 200"),
        "the walk-through starts from the 200 rows: {first}"
    );
}
