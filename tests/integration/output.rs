//! The output folder under every mistake: the guard refuses what the tool did not write, a build
//! killed at any moment leaves the previous or the new output complete (never none, never a mix),
//! the next build cleans up, and concurrent builds into one folder are serialised.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{self, mirror, snapshot, stderr};

/// A throwaway project folder (the guard only needs its Cargo.toml and source folders).
fn project(base: &Path) -> PathBuf {
    let root = base.join("project");
    for dir in ["src", "content", "templates", "data"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::fs::write(root.join(dir).join("keep.txt"), dir).unwrap();
    }
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"scenario-ratios\"\n",
    )
    .unwrap();
    root
}

fn binary() -> Command {
    let mut c = support::binary();
    c.env_remove("UPSTREAM_MIRROR")
        .env_remove("SCENARIO_RATIOS_DOWNLOAD_BASE")
        .env_remove("SOURCE_DATE_EPOCH");
    c
}

#[test]
fn the_guard_refuses_and_leaves_everything_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    let root = project(base);
    let home = base.join("home");
    std::fs::create_dir_all(home.join("docs")).unwrap();
    std::fs::write(home.join("docs/letter.txt"), b"dear").unwrap();
    std::fs::write(base.join("notes.txt"), b"my notes").unwrap();
    std::fs::create_dir_all(base.join("photos")).unwrap();
    std::fs::write(base.join("photos/a.jpg"), b"jpeg").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(base.join("photos"), base.join("photos-link")).unwrap();
    let before = snapshot(base);

    let cases: Vec<(String, &str)> = vec![
        (".".into(), "is or contains the project folder"),
        (
            root.display().to_string(),
            "is or contains the project folder",
        ),
        ("..".into(), "is or contains the project folder"),
        ("src".into(), "is inside the project's source `src`"),
        (
            "content/out".into(),
            "is inside the project's source `content`",
        ),
        ("/".into(), "is the root folder"),
        (home.display().to_string(), "is your home folder"),
        ("../notes.txt".into(), "is a file, not a folder"),
        ("../photos".into(), "did not write"),
        #[cfg(unix)]
        ("../photos-link".into(), "is a symbolic link"),
    ];
    for (out, expected) in &cases {
        let o = binary()
            .current_dir(&root)
            .env("HOME", &home)
            .args(["build", "--offline", "--mirror"])
            .arg(mirror())
            .args(["--out", out])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "--out {out}: {err}");
        assert_eq!(err.lines().count(), 1, "--out {out}: {err}");
        assert!(
            err.starts_with(&format!("error: {out}: ")),
            "--out {out}: {err}"
        );
        assert!(err.contains(expected), "--out {out}: {err}");
        assert_eq!(snapshot(base), before, "--out {out} changed something");
    }
}

/// Builds once into `out` with the given epoch and returns the snapshot.
fn build(out: &Path, cache: &Path, epoch: &str) -> Snapshot {
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let o = build_command(out, cache, epoch).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    support::snapshot_without_marker(out)
}

fn build_command(out: &Path, cache: &Path, epoch: &str) -> Command {
    let mut c = binary();
    c.current_dir(support::root())
        .args(["build", "--offline", "--mirror"])
        .arg(mirror())
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out)
        .args(["--source-date-epoch", epoch]);
    c
}

/// Names beside the output folder other than the folder itself and its lock file.
fn leftovers(parent: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "dist" && n != ".dist.lock")
        .collect();
    names.sort();
    names
}

/// A folder's files and their bytes, as `support::snapshot_without_marker` gives them.
type Snapshot = Vec<(PathBuf, Vec<u8>)>;

const EPOCHS: [&str; 2] = ["1796083200", "1700000000"];

/// The outputs a folder may hold after any of the builds below: one finished build per entry of
/// [`EPOCHS`], each in its own folder under `dir`; and the time of the fastest of those builds.
fn reference_outputs(dir: &Path, cache: &Path) -> (Vec<Snapshot>, Duration) {
    let mut fastest = Duration::MAX;
    let outputs = EPOCHS
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let started = Instant::now();
            let output = build(&dir.join(format!("ref-{i}/dist")), cache, e);
            fastest = fastest.min(started.elapsed());
            output
        })
        .collect();
    (outputs, fastest)
}

/// Builds killed by the test below: half at a random moment, half during the swap.
const RUNS: usize = 24;

#[test]
fn a_build_killed_at_any_moment_leaves_a_complete_output() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    // The two outputs the folder may hold: the same build with two zip timestamps. The time of
    // one whole build is the fastest of these two builds and the first one into the folder.
    let (expected, mut full) = reference_outputs(tmp.path(), &cache);
    assert_ne!(expected[0], expected[1]);
    let parent = tmp.path().join("out");
    std::fs::create_dir(&parent).unwrap();
    let out = parent.join("dist");
    let started = Instant::now();
    assert_eq!(build(&out, &cache, EPOCHS[0]), expected[0]);
    full = full.min(started.elapsed());

    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut current = 0;
    let mut kills = 0;
    let mut left_behind = 0;
    for run in 0..RUNS {
        let next = 1 - current;
        // Even runs: a kill at a random moment of the whole build. Odd runs: a kill within a few
        // milliseconds of the moment the build creates its temporary folder, i.e. while it
        // writes, reads back and swaps.
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let u = ((state >> 33) % 1000) as f64 / 1000.0;
        let mut child = build_command(&out, &cache, EPOCHS[next])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let delay = if run % 2 == 0 {
            full.mul_f64(u)
        } else {
            let tmp_dir = parent.join(format!("dist.tmp-{}", child.id()));
            let start = Instant::now();
            while !tmp_dir.exists() && start.elapsed() < full * 3 {
                std::hint::spin_loop();
            }
            Duration::from_micros((u * 4000.0) as u64)
        };
        std::thread::sleep(delay);
        let finished = child.try_wait().unwrap().is_some();
        if !finished {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
        let now = support::snapshot_without_marker(&out);
        assert!(
            now == expected[current] || now == expected[next],
            "run {run} (killed after {delay:?}): the output is neither the old nor the new build"
        );
        if !leftovers(&parent).is_empty() {
            left_behind += 1;
        }
        // The next build repairs and cleans up whatever the killed one left.
        assert_eq!(
            build(&out, &cache, EPOCHS[next]),
            expected[next],
            "run {run}"
        );
        assert_eq!(leftovers(&parent), Vec::<String>::new(), "run {run}");
        current = next;
    }
    println!("{kills} of {RUNS} builds killed; {left_behind} left a temporary folder for the next build to remove");
    assert!(
        kills >= RUNS * 3 / 8,
        "only {kills} of {RUNS} builds were killed mid-way"
    );
    assert!(
        left_behind > 0,
        "no kill landed while a temporary folder existed"
    );
}

#[test]
fn four_builds_into_one_folder_at_once_are_serialised() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let (expected, _) = reference_outputs(tmp.path(), &cache);
    let parent = tmp.path().join("out");
    std::fs::create_dir(&parent).unwrap();
    let out = parent.join("dist");
    let children: Vec<_> = (0..4)
        .map(|i| {
            build_command(&out, &cache, EPOCHS[i % 2])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let now = support::snapshot_without_marker(&out);
    assert!(now == expected[0] || now == expected[1]);
    assert_eq!(leftovers(&parent), Vec::<String>::new());
    // A lock that is held makes the next build wait, then succeed.
    let lock = std::fs::File::open(parent.join(".dist.lock")).unwrap();
    lock.lock().unwrap();
    let mut child = build_command(&out, &cache, EPOCHS[0])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The build reaches the lock only when it writes: wait until it says it is waiting.
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !said.contains("waiting for another build") && Instant::now() < deadline {
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut err, &mut line).unwrap() == 0 {
            break;
        }
        said.push_str(&line);
    }
    assert!(said.contains("waiting for another build"), "{said}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        child.try_wait().unwrap().is_none(),
        "still waits for the lock"
    );
    lock.unlock().unwrap();
    assert!(child.wait().unwrap().success());
}

/// Whatever the umask, the published files are readable by a web server (0644, folders 0755);
/// and a temporary folder that a killed build left behind, made read-only since, is removed by
/// the next build instead of blocking it.
#[test]
fn published_modes_ignore_the_umask_and_a_read_only_leftover_is_removed() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let parent = tmp.path().join("out");
    std::fs::create_dir(&parent).unwrap();
    let out = parent.join("dist");
    // The build run under `umask 077`, through the shell.
    let o = support::after_shell("umask 077", &build_command(&out, &cache, EPOCHS[0]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let mut seen = 0;
    for entry in walkdir::WalkDir::new(&out) {
        let entry = entry.unwrap();
        let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_dir() {
            assert_eq!(mode, 0o755, "{}", entry.path().display());
        } else if name != scenario_ratios::base::ownership::MARKER {
            assert_eq!(mode, 0o644, "{}", entry.path().display());
            seen += 1;
        }
    }
    assert!(seen > 10, "{seen} files");

    // A build killed once its temporary folder exists leaves that folder; made read-only (files
    // 0444, folders 0555), it is still the build's own, and the next build removes it.
    let mut left = None;
    for _ in 0..10 {
        let mut child = build_command(&out, &cache, EPOCHS[1])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Killed once its temporary folder holds a folder with a file in it.
        let tmp_dir = parent.join(format!("dist.tmp-{}", child.id()));
        let nested = || {
            walkdir::WalkDir::new(&tmp_dir)
                .min_depth(2)
                .into_iter()
                .flatten()
                .next()
                .is_some()
        };
        let start = Instant::now();
        while !nested() && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(1));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        if nested() {
            left = Some(tmp_dir);
            break;
        }
    }
    let left = left.expect("no build was killed while its temporary folder existed");
    let entries: Vec<_> = walkdir::WalkDir::new(&left)
        .contents_first(true)
        .into_iter()
        .map(|e| e.unwrap())
        .collect();
    for e in &entries {
        let mode = if e.file_type().is_dir() { 0o555 } else { 0o444 };
        std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    assert_eq!(leftovers(&parent).len(), 1);
    // Root ignores permission bits: as root, the build runs without that power (setpriv drops
    // CAP_DAC_OVERRIDE), so the read-only folder stops it as it would stop any user.
    let build = build_command(&out, &cache, EPOCHS[0]);
    let uid = Command::new("id").arg("-u").output().unwrap();
    let mut rebuild = if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        let mut c = Command::new("setpriv");
        c.args(["--bounding-set=-dac_override,-dac_read_search", "--"]);
        support::wrapped(c, &build)
    } else {
        build
    };
    let o = rebuild.output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(leftovers(&parent), Vec::<String>::new());
}
