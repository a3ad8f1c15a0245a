//! The bad-input matrix of docs/bad-input.md: each case is made here, run through the binary, and
//! the one line it prints must be the line the document promises. A refused build leaves the
//! previous output folder byte-identical.
//!
//! A binary of its own on libtest-mimic's harness, so that each documented case is a test of its
//! own (`every_documented_bad_input_prints_its_documented_line::<case>`): a failure names its
//! case, the cases run in parallel, and one case runs alone with
//! `cargo test --test bad_input -- '<case>'`.

// The helpers of the integration tests (tests/integration/support/); this binary uses a few of
// them, so those it leaves unused are not reported here.
#[allow(dead_code, unused_imports)]
#[path = "integration/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use scenario_ratios::base::digest::HexDigest;
use support::inputs::manifest_for;
use support::{snapshot, stderr};

/// (case, documented line) from the tables of docs/bad-input.md, in order.
fn documented() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(support::root().join("docs/bad-input.md")).unwrap();
    doc.lines()
        .filter(|l| l.starts_with("| ") && l.trim_end().ends_with(" `` |"))
        .map(|l| {
            let case = l[2..l[2..].find(" |").unwrap() + 2].to_string();
            let start = l.find("| `` ").unwrap() + 5;
            let end = l.rfind(" `` |").unwrap();
            (case, l[start..end].to_string())
        })
        .collect()
}

fn base(name: &str) -> String {
    std::fs::read_to_string(support::fixture("base").join(name)).unwrap()
}

/// Replaces the first `n` occurrences of `from` (which must occur).
fn replace(text: &str, from: &str, to: &str, n: usize) -> String {
    assert!(text.contains(from), "{from:?} not found");
    text.replacen(from, to, n)
}

/// One case's sandbox: a copy of the project, a previous output of this tool, and a place for
/// a mirror and a cache.
struct Sandbox {
    tmp: PathBuf,
    root: PathBuf,
    out: PathBuf,
}

impl Sandbox {
    fn new(tmp: &Path) -> Sandbox {
        let root = support::project_copy(tmp);
        let out = tmp.join("dist");
        support::previous_output(&out, &[("article.html", b"previous")]);
        Sandbox {
            tmp: tmp.to_path_buf(),
            root,
            out,
        }
    }

    /// The binary, run in the sandbox's folder on its project copy.
    fn command(&self) -> Command {
        let mut c = support::binary();
        c.current_dir(&self.tmp)
            .env_remove("UPSTREAM_MIRROR")
            .env_remove("SCENARIO_RATIOS_DOWNLOAD_BASE")
            .env_remove("SOURCE_DATE_EPOCH");
        c
    }

    /// A build into `dist` (unless `extra` gives `--out`).
    fn build(&self, extra: &[&str]) -> Output {
        self.build_command(extra).output().unwrap()
    }

    /// The command [`Sandbox::build`] runs, to add to before it runs.
    fn build_command(&self, extra: &[&str]) -> Command {
        let mut c = self.command();
        c.arg("build")
            .arg("--root")
            .arg(&self.root)
            .arg("--offline");
        if !extra.contains(&"--cache") {
            c.args(["--cache", "cache"]);
        }
        if !extra.contains(&"--out") {
            c.args(["--out", "dist"]);
        }
        c.args(extra);
        c
    }

    /// A build on the given summaries (pinned by a test manifest).
    fn build_summaries(&self, csv: &[u8], json: &[u8]) -> Output {
        let manifest = manifest_for(csv, json, &self.tmp);
        self.build(&[
            "--manifest",
            manifest.to_str().unwrap(),
            "--mirror",
            "mirror",
        ])
    }

    /// A build on the base summaries with the earlier round's summary `previous` (and further
    /// inputs `extra`), all pinned by a test manifest.
    fn build_previous(
        &self,
        previous: &[u8],
        extra: Vec<scenario_ratios::inputs::VerifiedInput>,
    ) -> Output {
        let p = support::inputs::previous_round();
        let previous = support::verified(
            &p.pin.name,
            p.pin.kind,
            &p.pin.repository,
            &p.pin.path,
            previous,
        );
        let manifest = support::inputs::manifest_with(
            base("summary.csv").as_bytes(),
            base("summary.json").as_bytes(),
            previous,
            extra,
            &self.tmp,
        );
        self.build(&[
            "--manifest",
            manifest.to_str().unwrap(),
            "--mirror",
            "mirror",
        ])
    }

    /// A build on the real mirror, copied under `mirror/` and changed by `edit` first.
    fn build_real_mirror(&self, edit: impl FnOnce(&Path)) -> Output {
        let m = self.tmp.join("mirror");
        support::copy_tree(&support::mirror(), &m);
        edit(&m);
        self.build(&["--mirror", "mirror"])
    }

    /// Refused: exit 1, one line, and the previous output as it was.
    fn refused(&self, run: impl FnOnce(&Sandbox) -> Output) -> String {
        let before = snapshot(&self.out);
        let o = run(self);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_eq!(snapshot(&self.out), before, "the previous output changed");
        stderr(&o)
    }

    fn built(&self, o: &Output) {
        assert!(o.status.success(), "{}", stderr(o));
    }
}

const SUMMARY_CSV: &str = "mlcommons/inference_results_v6.1/summary.csv";
/// One of the LoadGen logs data/loadgen-logs.json lists, in the mirror.
const AMD_OFFLINE_LOG: &str = "intel-ai-tce/inference_results_v6.1/closed/AMD/results/8xMI355X_2xEPYC_9575F/gpt-oss-120b/Offline/performance/run_1/mlperf_log_summary.txt";

/// Flips bit 0 of byte 100 of the file at `path`: the same size, another SHA-256.
fn flip_bit_0_of_byte_100(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[100] ^= 1;
    std::fs::write(path, bytes).unwrap();
}

/// Makes one case and returns the line the user sees.
/// The earlier round's fixture summary, its rows as JSON values to edit.
fn previous_rows() -> Vec<serde_json::Value> {
    serde_json::from_slice(
        &std::fs::read(support::fixture("previous_round").join("summary_results.json")).unwrap(),
    )
    .unwrap()
}

/// The hand-made v5.1 logs of the fixture GB200's deepseek-r1 pair (rows 0 and 1: 4000 and
/// 2000 tokens/s), the Server log's rate `server` as printed.
fn previous_logs(server: &str) -> Vec<scenario_ratios::inputs::VerifiedInput> {
    let at = |scenario: &str| {
        format!("closed/NVIDIA/results/GB200-NVL72_GB200-186GB_aarch64x72_TRT/deepseek-r1/{scenario}/performance/run_1/mlperf_log_summary.txt")
    };
    let offline = "Scenario : Offline\nMode     : PerformanceOnly\nSamples per second: 1.0\nTokens per second: 4000.0\nResult is : VALID\n";
    let server = format!("Scenario : Server\nMode     : PerformanceOnly\nCompleted samples per second    : 0.5\nCompleted tokens per second: {server}\nResult is : VALID\nScheduled samples per second : 0.5\n99.00 percentile first token latency (ns)   : 1000000000\n99.00 percentile time to output token (ns)   : 60000000\ntarget_qps : 0.5\nttft_latency (ns): 2000000000\ntpot_latency (ns): 80000000\n");
    [("Offline", offline.to_string()), ("Server", server)]
        .into_iter()
        .map(|(scenario, text)| {
            support::verified(
                &format!("v5.1/NVIDIA/GB200/deepseek-r1/{scenario}/mlperf_log_summary.txt"),
                scenario_ratios::inputs::InputKind::LoadgenSummary,
                "example/inference_results_v5.1",
                &at(scenario),
                text.as_bytes(),
            )
        })
        .collect()
}

fn make(case: &str, s: &Sandbox) -> String {
    let csv = base("summary.csv");
    let json = base("summary.json");
    let previous = |rows: Vec<serde_json::Value>| {
        s.refused(|s| s.build_previous(&serde_json::to_vec_pretty(&rows).unwrap(), Vec::new()))
    };
    let result_both = |value_csv: &str, value_json: &str| {
        let c = replace(&csv, "\"1000.0\"", &format!("\"{value_csv}\""), 1);
        let j = replace(
            &json,
            "\"Result\": 1000.0",
            &format!("\"Result\": {value_json}"),
            1,
        );
        (c, j)
    };
    let summaries =
        |c: String, j: String| s.refused(|s| s.build_summaries(c.as_bytes(), j.as_bytes()));
    let edit_config = |from: &str, to: &str| {
        let p = s.root.join("content/article.json");
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, replace(&text, from, to, 1)).unwrap();
    };
    let verify = |path: &str| {
        let o = s.command().args(["verify", path]).output().unwrap();
        assert_eq!(o.status.code(), Some(1));
        assert!(!stderr(&o).contains("panicked"));
        stderr(&o)
    };
    match case {
        "truncated CSV" => {
            let cut = csv
                .find("\"deepseek-r1\",\"deepseek-r1\",\"Server\"")
                .unwrap()
                + "\"deepseek-r1\",\"de".len();
            summaries(csv[..cut].to_string(), json)
        }
        "truncated JSON" => {
            let cut = json.find("\n    },\n").unwrap() + "\n    },\n".len();
            summaries(csv, json[..cut].to_string())
        }
        "missing column" => summaries(replace(&csv, ",notes", "", 1), json),
        "duplicate IDs" => summaries(csv, replace(&json, "\"2\": {", "\"1\": {", 1)),
        "another round" | "two rounds in one summary" => {
            // Every row (or only row 0) of both files set to round v6.0.
            let n = if case == "another round" {
                usize::MAX
            } else {
                1
            };
            summaries(
                replace(&csv, "\"v6.1\"", "\"v6.0\"", n),
                replace(&json, "\"version\": \"v6.1\"", "\"version\": \"v6.0\"", n),
            )
        }
        "NaN Result" => {
            let (c, j) = result_both("NaN", "\"NaN\"");
            summaries(c, j)
        }
        "inf Result" => {
            let (c, j) = result_both("inf", "\"inf\"");
            summaries(c, j)
        }
        "negative Result" => {
            let (c, j) = result_both("-1000.0", "-1000.0");
            summaries(c, j)
        }
        "huge field" => {
            let big = "x".repeat(2 << 20);
            summaries(
                replace(
                    &csv,
                    "\"Ubuntu 24.04\",\"\",",
                    &format!("\"Ubuntu 24.04\",\"{big}\","),
                    1,
                ),
                replace(
                    &json,
                    "\"notes\": null",
                    &format!("\"notes\": \"{big}\""),
                    1,
                ),
            )
        }
        "invalid UTF-8" => {
            let mut bytes = csv.clone().into_bytes();
            let at = csv.find("NVIDIA DGX B300").unwrap() + "NVIDIA DGX B300".len();
            bytes.insert(at, 0xFF);
            let json = json.clone();
            s.refused(|s| s.build_summaries(&bytes, json.as_bytes()))
        }
        "control character" => summaries(
            replace(&csv, "NVIDIA DGX B300", "NVIDIA DGX B300\u{7}", 1),
            replace(&json, "NVIDIA DGX B300", "NVIDIA DGX B300\\u0007", 1),
        ),
        "40 MB value in an error" => {
            let big = "x".repeat(40 << 20);
            summaries(
                csv,
                replace(
                    &json,
                    "\"notes\": null",
                    &format!("\"notes\": \"{big}\""),
                    1,
                ),
            )
        }
        "absurd Result" => {
            // The GB200 gpt-oss-120b Offline row (5000.0 in the fixture).
            let c = replace(&csv, "\"5000.0\"", "\"0.0001\"", 1);
            let j = replace(&json, "\"Result\": 5000.0", "\"Result\": 0.0001", 1);
            s.built(&s.build_summaries(c.as_bytes(), j.as_bytes()));
            let svg = std::fs::read_to_string(s.out.join("ratios-by-model.svg")).unwrap();
            let fig1 = std::fs::read_to_string(s.out.join("scenario-ratios.svg")).unwrap();
            assert!(
                svg.len() < 200_000 && fig1.len() < 50_000,
                "bounded drawings"
            );
            let note = |svg: &str| {
                svg.lines()
                    .find(|l| l.contains("drawn at the edge"))
                    .map(|l| {
                        l.split('>')
                            .nth(1)
                            .unwrap()
                            .split('<')
                            .next()
                            .unwrap()
                            // The no-break space before `%`, as a reader sees it.
                            .replace("&#160;", " ")
                    })
                    .unwrap()
            };
            assert_eq!(
                note(&fig1),
                "1 value beyond 200 % drawn at the edge (see the table)"
            );
            note(&svg)
        }
        "formula in a name" => {
            let evil = "=HYPERLINK(\"https://evil.example\",\"B300\")";
            let c = replace(
                &csv,
                "\"NVIDIA DGX B300\"",
                &format!("\"{}\"", evil.replace('"', "\"\"")),
                2,
            );
            let j = replace(
                &json,
                "\"NVIDIA DGX B300\"",
                &serde_json::to_string(evil).unwrap(),
                2,
            );
            s.built(&s.build_summaries(c.as_bytes(), j.as_bytes()));
            let mut r = csv::Reader::from_path(s.out.join("pairs.csv")).unwrap();
            let column = r
                .headers()
                .unwrap()
                .iter()
                .position(|h| h == "system_name")
                .unwrap();
            let row = r.records().next().unwrap().unwrap();
            row[column].to_string()
        }
        "hash mismatch" => {
            s.refused(|s| s.build_real_mirror(|m| flip_bit_0_of_byte_100(&m.join(SUMMARY_CSV))))
        }
        "wrong size" => s.refused(|s| {
            s.build_real_mirror(|m| {
                let p = m.join(SUMMARY_CSV);
                let mut bytes = std::fs::read(&p).unwrap();
                bytes.push(b'\n');
                std::fs::write(&p, bytes).unwrap();
            })
        }),
        "a changed LoadGen log" => {
            s.refused(|s| s.build_real_mirror(|m| flip_bit_0_of_byte_100(&m.join(AMD_OFFLINE_LOG))))
        }
        "mirror folder missing" => s.refused(|s| s.build(&["--mirror", "missing-mirror"])),
        "mirror entry is a folder" => s.refused(|s| {
            s.build_real_mirror(|m| {
                let p = m.join(SUMMARY_CSV);
                std::fs::remove_file(&p).unwrap();
                std::fs::create_dir(&p).unwrap();
            })
        }),
        "mirror entry is a FIFO" => s.refused(|s| {
            s.build_real_mirror(|m| {
                let p = m.join(SUMMARY_CSV);
                std::fs::remove_file(&p).unwrap();
                let ok = Command::new("mkfifo").arg(&p).status().unwrap();
                assert!(ok.success());
            })
        }),
        "corrupt cache entry" | "truncated cache entry" => {
            // A first build fills the cache; then one byte of a cached file changes, or the
            // file loses its second half.
            s.built(&s.build_real_mirror(|_| {}));
            let cached = s.tmp.join("cache/summary.csv");
            let mut bytes = std::fs::read(&cached).unwrap();
            if case == "corrupt cache entry" {
                bytes[100] ^= 1;
            } else {
                bytes.truncate(bytes.len() / 2);
            }
            std::fs::write(&cached, bytes).unwrap();
            let o = s.build(&["--mirror", "mirror"]);
            s.built(&o);
            assert_eq!(
                std::fs::read(&cached).unwrap(),
                std::fs::read(support::mirror().join(SUMMARY_CSV)).unwrap(),
                "acquired again"
            );
            stderr(&o)
                .lines()
                .find(|l| l.starts_with("warning:"))
                .unwrap()
                .to_string()
        }
        "an edited input in an unpacked bundle" => {
            // The project's own cache folder holds the inputs but no cache marker, as an
            // unzipped bundle's data/upstream/ does; the reader edits one of them.
            let cache = s.root.join("data/upstream");
            for pin in support::project().manifest.inputs {
                let to = cache.join(pin.cache_path());
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(support::mirror().join(pin.mirror_path()), &to).unwrap();
            }
            let edited = cache.join("summary.csv");
            let mut bytes = std::fs::read(&edited).unwrap();
            bytes.extend_from_slice(b"x\n");
            std::fs::write(&edited, &bytes).unwrap();
            let line = s.refused(|s| {
                s.command()
                    .args(["build", "--offline", "--out", "dist", "--root"])
                    .arg(&s.root)
                    .output()
                    .unwrap()
            });
            assert_eq!(
                std::fs::read(&edited).unwrap(),
                bytes,
                "the edited file is kept"
            );
            assert!(
                !cache.join(scenario_ratios::inputs::CACHE_MARKER).exists(),
                "the reader's folder is not marked as the tool's"
            );
            line
        }
        "a file added to the output" => {
            // A build writes dist/; then the author adds a file the site needs beside the page.
            s.built(&s.build_real_mirror(|_| {}));
            std::fs::write(s.out.join("CNAME"), b"example.org\n").unwrap();
            s.refused(|s| s.build(&["--mirror", "mirror"]))
        }
        "corrupt vendor fragment" => {
            // A crate cache of the sandbox's own, holding the fragment a build made; then one
            // byte of the fragment's zip changes.
            let crates = s.tmp.join("crates");
            let build = || {
                s.build_command(&["--mirror", support::mirror().to_str().unwrap()])
                    .env("SCENARIO_RATIOS_CRATE_CACHE", &crates)
                    .output()
                    .unwrap()
            };
            s.built(&build());
            let zip = std::fs::read_dir(&crates)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.extension().is_some_and(|x| x == "zip"))
                .unwrap();
            let good = std::fs::read(&zip).unwrap();
            let mut bad = good.clone();
            bad[1000] ^= 1;
            std::fs::write(&zip, &bad).unwrap();
            let o = build();
            s.built(&o);
            assert_eq!(std::fs::read(&zip).unwrap(), good, "made again, as it was");
            let key = zip.file_stem().unwrap().to_str().unwrap();
            let mut line = stderr(&o)
                .lines()
                .find(|l| l.starts_with("warning:"))
                .unwrap()
                .replace(key, "vendor-<key>");
            for digest in [HexDigest::sha256(&good), HexDigest::sha256(&bad)] {
                line = line.replace(digest.as_str(), "<sha256>");
            }
            line
        }
        "a manifest that never ends" => s.refused(|s| s.build(&["--manifest", "/dev/zero"])),
        "a manifest that is a pipe" => {
            let fifo = s.tmp.join("manifest.fifo");
            let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
            assert!(made.success());
            s.refused(|s| s.build(&["--manifest", "manifest.fifo"]))
        }
        "absurd manifest size" | "path leaving the mirror" => {
            let text = std::fs::read_to_string(s.root.join("data/inputs.json")).unwrap();
            let changed = if case == "absurd manifest size" {
                replace(
                    &text,
                    "\"size\": 297581",
                    "\"size\": 18446744073709551615",
                    1,
                )
            } else {
                replace(
                    &text,
                    "\"path\": \"summary.csv\"",
                    "\"path\": \"../../etc/passwd\"",
                    1,
                )
            };
            std::fs::write(s.tmp.join("inputs.json"), changed).unwrap();
            s.refused(|s| s.build(&["--manifest", "inputs.json"]))
        }
        "unwritable output" => {
            std::fs::write(s.tmp.join("blocker"), b"a file, not a folder").unwrap();
            let out = s.tmp.join("blocker/dist");
            s.refused(|s| s.build(&["--out", out.to_str().unwrap()]))
        }
        "the project folder" | "a folder above the project" | "a source folder" => {
            let out = match case {
                "the project folder" => ".",
                "a folder above the project" => "..",
                _ => "src",
            };
            let before = snapshot(&s.tmp);
            let o = s
                .command()
                .current_dir(&s.root)
                .args(["build", "--offline", "--out", out])
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1));
            assert_eq!(snapshot(&s.tmp), before, "nothing changed");
            stderr(&o)
        }
        "someone's folder as the cache" => {
            // A folder of the user's own files, one of them named like an input, of its size.
            let theirs = s.tmp.join("Downloads");
            std::fs::create_dir_all(&theirs).unwrap();
            let size = std::fs::metadata(support::mirror().join(SUMMARY_CSV))
                .unwrap()
                .len();
            std::fs::write(theirs.join("summary.csv"), vec![b'x'; size as usize]).unwrap();
            let before = snapshot(&theirs);
            let line = s.refused(|s| s.build(&["--cache", "Downloads"]));
            assert_eq!(snapshot(&theirs), before, "their files are untouched");
            line
        }
        "synth over a project's files" | "synth of an absurd size" => {
            let (rows, out) = match case {
                "synth over a project's files" => ("10", "data"),
                _ => ("100000000", "big"),
            };
            let before = snapshot(&s.tmp);
            let o = support::example("synth")
                .current_dir(&s.root)
                .args(["--rows", rows, "--out", out])
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1));
            assert_eq!(snapshot(&s.tmp), before, "nothing changed");
            assert!(!s.root.join("big").exists());
            stderr(&o)
        }
        "a file"
        | "someone else's folder"
        | "a symbolic link"
        | "the home folder"
        | "the root folder" => {
            std::fs::write(s.tmp.join("notes.txt"), b"my notes").unwrap();
            std::fs::create_dir_all(s.tmp.join("photos")).unwrap();
            std::fs::write(s.tmp.join("photos/a.jpg"), b"jpeg").unwrap();
            std::fs::create_dir_all(s.tmp.join("home/docs")).unwrap();
            #[cfg(unix)]
            std::os::unix::fs::symlink(s.tmp.join("photos"), s.tmp.join("link")).unwrap();
            let home = s.tmp.join("home");
            let home_arg = home.display().to_string();
            let out = match case {
                "a file" => "notes.txt",
                "someone else's folder" => "photos",
                "a symbolic link" => "link",
                "the home folder" => home_arg.as_str(),
                _ => "/",
            };
            let before = snapshot(&s.tmp);
            let o = s
                .command()
                .env("HOME", &home)
                .arg("build")
                .arg("--root")
                .arg(&s.root)
                .args(["--offline", "--out", out])
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1));
            assert_eq!(snapshot(&s.tmp), before, "nothing changed");
            stderr(&o)
        }
        "timestamp out of range" => s.refused(|s| s.build(&["--source-date-epoch", "100"])),
        "odd timestamp" => s.refused(|s| s.build(&["--source-date-epoch", "1795996801"])),
        "two highlights, one pair" => {
            edit_config(
                "\n  ],\n  \"span\"",
                ",\n    { \"id\": \"twin\", \"label\": \"twin\", \"organization\": \"NVIDIA\", \"platform\": \"B300-SXM-270GBx8_TRT\", \"model\": \"deepseek-r1\" }\n  ],\n  \"span\"",
            );
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "backslash in a link" => {
            edit_config(
                "\"author_url\": \"/about/\"",
                "\"author_url\": \"/\\\\evil.example/\"",
            );
            s.refused(|s| s.build(&[]))
        }
        "protocol-relative link" => {
            edit_config(
                "\"author_url\": \"/about/\"",
                "\"author_url\": \"//evil.example/\"",
            );
            s.refused(|s| s.build(&[]))
        }
        "an impossible publication date" => {
            edit_config(
                "\"published\": \"2026-12-01\"",
                "\"published\": \"2026-02-30\"",
            );
            s.refused(|s| s.build(&[]))
        }
        "a folder as the canonical address" => {
            edit_config(
                "/articles/server-offline-ratio/article.html\"",
                "/articles/server-offline-ratio/\"",
            );
            s.refused(|s| s.build(&[]))
        }
        "control character in a setting" => {
            let p = s.root.join("content/article.json");
            let text = std::fs::read_to_string(&p).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let label = v["highlights"][0]["label"].as_str().unwrap();
            let with = serde_json::to_string(&format!("{label}\u{1b}")).unwrap();
            std::fs::write(&p, replace(&text, &format!("\"{label}\""), &with, 1)).unwrap();
            s.refused(|s| s.build(&[]))
        }
        "a checker fact the source does not bear out" => {
            let p = s.root.join("sources/mlperf-checker-facts.json");
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v["models"]["deepseek-r1"]["server_latency_limits"]["tpot_ns"] = 90_000_000.into();
            std::fs::write(&p, v.to_string()).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "a claim whose words are not at its lines"
        | "a claim whose line range moved"
        | "a claim wider than its words"
        | "a claim of an input the manifest does not pin"
        | "a claim the prose never cites" => {
            let p = s.root.join("sources/claims.json");
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let claims = v["claims"].as_array_mut().unwrap();
            let at = claims
                .iter()
                .position(|c| c["id"] == "offline-one-query")
                .unwrap();
            match case {
                "a claim whose words are not at its lines" => {
                    claims[at]["words"][0] =
                        "Sends all N samples to the SUT inside of two queries.".into()
                }
                "a claim whose line range moved" => {
                    claims[at]["lines"] = serde_json::json!([72, 72])
                }
                "a claim wider than its words" => claims[at]["lines"] = serde_json::json!([70, 71]),
                "a claim of an input the manifest does not pin" => {
                    claims[at]["input"] = "nope".into()
                }
                _ => {
                    let mut unused = claims[at].clone();
                    unused["id"] = "unused".into();
                    claims.push(unused);
                }
            }
            std::fs::write(&p, v.to_string()).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "a setting naming another round" => {
            edit_config(
                "MLPerf Inference v6.1 results",
                "MLPerf Inference v6.0 results",
            );
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "an empty title" => {
            let p = s.root.join("content/article.json");
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v["title"] = "".into();
            std::fs::write(&p, v.to_string()).unwrap();
            s.refused(|s| s.build(&[]))
        }
        "the downloads deleted" => {
            let p = s.root.join("content/article.md");
            let text = std::fs::read_to_string(&p).unwrap();
            std::fs::write(&p, replace(&text, "{{block:downloads}}\n", "", 1)).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "a huge file among the sources" => {
            std::fs::write(s.root.join("content/video.mp4"), vec![0u8; 5 << 20]).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "a link to nowhere"
        | "unknown placeholder"
        | "raw HTML left open"
        | "a refresh hidden in an SVG style"
        | "a javascript: link hidden in an SVG title"
        | "a javascript: link in the prose"
        | "a block within a line of text"
        | "a heading id given twice"
        | "an id given twice"
        | "a citation of an unknown claim" => {
            let sentence = match case {
                "a citation of an unknown claim" => "A sentence citing {{cite:nope}}.",
                "a link to nowhere" => "See [the files](#download) and [the table](pairs.cvs).",
                "raw HTML left open" => "<details><summary>More",
                "a refresh hidden in an SVG style" => "<div id=\"hidden-refresh\"><svg><style><meta http-equiv=\"refresh\" content=\"0;url=http://127.0.0.1:9/x\"></style></svg></div>",
                "a javascript: link hidden in an SVG title" => "<p id=\"hidden-link\"><svg><title><a href=\"javascript:alert(1)\">x</a></title></svg></p>",
                "a javascript: link in the prose" => "See [this](javascript:alert(1)).",
                "a block within a line of text" => "Text <div>block</div> more.",
                "a heading id given twice" => "## Files {#downloads}",
                "an id given twice" => "## Figure {#figure-1}",
                _ => "A sentence with {{no_such_value}}.",
            };
            let p = s.root.join("content/article.md");
            let mut text = std::fs::read_to_string(&p).unwrap();
            // The line of the prose's own downloads heading, which the document writes <first>.
            let first = text
                .lines()
                .position(|l| l.ends_with("{#downloads}"))
                .unwrap()
                + 1;
            text.push_str(&format!("\n{sentence}\n"));
            // The sentence is the last line; the document writes its number as <last>.
            let last = text.lines().count();
            std::fs::write(&p, text).unwrap();
            let line = s
                .refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
                .replace(&format!(": line {last}: "), ": line <last>: ")
                .replace(
                    &format!("already used at line {first}"),
                    "already used at line <first>",
                );
            // A line of the page, which moves with every edit of the prose, is written <n>.
            match line.split_once("article.html line ") {
                Some((head, tail)) => {
                    let rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
                    assert_ne!(rest.len(), tail.len(), "{line}");
                    format!("{head}article.html line <n>{rest}")
                }
                None => line,
            }
        }
        "a sentence of 31 words in the narrative" => {
            let p = s.root.join("content/article.md");
            let text = std::fs::read_to_string(&p).unwrap();
            // In place of a paragraph of the story of about its length (so that the narrative
            // stays within its count of words), a paragraph of one sentence.
            let sentence = "This sentence was added to test the limit on how long a sentence in \
                            the narrative may run, and it goes on still until it holds \
                            thirty-one words, one too many.";
            assert_eq!(sentence.split(' ').count(), 31);
            let old = "Each row reports one run, so differences of a point or two may be noise. So the story rounds to\nwhole numbers; the figures, tables and files keep every digit.\n";
            assert!(text.contains(old), "the paragraph the case replaces");
            let text = text.replacen(old, &format!("{sentence}\n"), 1);
            std::fs::write(&p, text).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "empty SHA256SUMS" | "a path leaving the folder" => {
            s.built(&s.build(&["--mirror", support::mirror().to_str().unwrap()]));
            let sums = s.out.join("SHA256SUMS");
            if case == "empty SHA256SUMS" {
                std::fs::write(&sums, "").unwrap();
            } else {
                std::fs::write(s.tmp.join("outside.txt"), b"outside").unwrap();
                let mut text = std::fs::read_to_string(&sums).unwrap();
                text.push_str(&format!(
                    "{}  ../outside.txt\n",
                    HexDigest::sha256(b"outside")
                ));
                std::fs::write(&sums, text).unwrap();
            }
            verify("dist")
        }
        "duplicate zip entries" => {
            // Two entries `a.txt` and `b.txt`, then the second renamed in both of its headers.
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            for (n, b) in [("a.txt", b"1"), ("b.txt", b"2")] {
                w.start_file(n, zip::write::SimpleFileOptions::default())
                    .unwrap();
                std::io::Write::write_all(&mut w, b).unwrap();
            }
            let mut z = w.finish().unwrap().into_inner();
            let hits: Vec<usize> = z
                .windows(5)
                .enumerate()
                .filter(|(_, w)| *w == b"b.txt")
                .map(|(i, _)| i)
                .collect();
            for i in hits {
                z[i] = b'a';
            }
            std::fs::write(s.tmp.join("dup.zip"), z).unwrap();
            verify("dup.zip")
        }
        "a 2^62-byte entry" => {
            let name = b"a.txt";
            let mut z = Vec::new();
            let extra = [
                &1u16.to_le_bytes()[..],
                &16u16.to_le_bytes(),
                &(1u64 << 62).to_le_bytes(),
                &1u64.to_le_bytes(),
            ]
            .concat();
            let fields = |v: &mut Vec<u8>| {
                v.extend([0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // method, time, date, crc
                v.extend(0xFFFF_FFFFu32.to_le_bytes());
                v.extend(0xFFFF_FFFFu32.to_le_bytes());
                v.extend((name.len() as u16).to_le_bytes());
                v.extend((extra.len() as u16).to_le_bytes());
            };
            z.extend([0x50, 0x4b, 0x03, 0x04, 45, 0, 0, 0]);
            fields(&mut z);
            z.extend(name);
            z.extend(&extra);
            z.push(b'x');
            let cd_at = z.len() as u32;
            let mut cd = vec![0x50, 0x4b, 0x01, 0x02, 45, 3, 45, 0, 0, 0];
            fields(&mut cd);
            cd.extend([0u8; 14]); // comment length, disk, attributes, local header offset 0
            cd.extend(name);
            cd.extend(&extra);
            z.extend(&cd);
            z.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 1, 0, 1, 0]);
            z.extend((cd.len() as u32).to_le_bytes());
            z.extend(cd_at.to_le_bytes());
            z.extend([0, 0]);
            assert!(z.len() <= 160, "{} bytes", z.len());
            std::fs::write(s.tmp.join("huge.zip"), z).unwrap();
            verify("huge.zip")
        }
        "a Result of 1e-308" => {
            let (c, j) = result_both("1e-308", "1e-308");
            summaries(c, j)
        }
        "a Result of 1e308" => {
            let (c, j) = result_both("1e308", "1e308");
            summaries(c, j)
        }
        "one name in NFC and NFD" | "a zero-width space in one file" => {
            // The CSV writes the name one way, the JSON another that prints alike.
            let (in_csv, in_json) = if case == "one name in NFC and NFD" {
                ("NVIDIA DGX B300 Caf\u{e9}", "NVIDIA DGX B300 Cafe\u{301}")
            } else {
                ("NVIDIA DGX B300", "NVIDIA DGX\u{200b} B300")
            };
            summaries(
                replace(&csv, "NVIDIA DGX B300", in_csv, 1),
                replace(&json, "NVIDIA DGX B300", in_json, 1),
            )
        }
        "a Cyrillic letter in a name" => summaries(
            replace(&csv, "NVIDIA DGX B300", "NVIDI\u{410} DGX B300", 1),
            replace(&json, "NVIDIA DGX B300", "NVIDI\u{410} DGX B300", 1),
        ),
        "a trailing no-break space in a name" => summaries(
            replace(&csv, "NVIDIA DGX B300", "NVIDIA DGX B300\u{a0}", 1),
            replace(&json, "NVIDIA DGX B300", "NVIDIA DGX B300\u{a0}", 1),
        ),
        "a v5.1 field renamed" => {
            let mut rows = previous_rows();
            let row = rows[0].as_object_mut().unwrap();
            let result = row.remove("Performance_Result").unwrap();
            row.insert("Result".into(), result);
            previous(rows)
        }
        "a v5.1 row without its result" => {
            let mut rows = previous_rows();
            rows[0]
                .as_object_mut()
                .unwrap()
                .remove("Performance_Result");
            previous(rows)
        }
        "a v5.1 result that is not a number" => {
            let mut rows = previous_rows();
            rows[0]["Performance_Result"] = serde_json::json!("fast");
            previous(rows)
        }
        "a v5.1 row twice" => {
            let mut rows = previous_rows();
            rows.push(rows[1].clone());
            previous(rows)
        }
        "a v5.1 log that disagrees with its row" => {
            let rows = previous_rows();
            let o = s.build_previous(
                &serde_json::to_vec_pretty(&rows).unwrap(),
                previous_logs("2100.0"),
            );
            s.built(&o);
            let page = std::fs::read_to_string(s.out.join("article.html")).unwrap();
            let marker = "data-value=\"previous_logs_sentence\">";
            let start = page.find(marker).unwrap() + marker.len();
            let end = start + page[start..].find("</span>").unwrap();
            page[start..end].replace("&#39;", "'")
        }
        "a declaration naming a field the summary lacks" => {
            let path = s.root.join("data/rounds.json");
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(
                &path,
                replace(
                    &text,
                    "\"Performance_Result\"",
                    "\"Performance_Resultx\"",
                    1,
                ),
            )
            .unwrap();
            s.refused(|s| {
                s.build_previous(
                    &serde_json::to_vec_pretty(&previous_rows()).unwrap(),
                    Vec::new(),
                )
            })
        }
        "a Hangul filler in a name" => summaries(
            replace(&csv, "NVIDIA DGX B300", "NVIDIA DGX\u{3164}B300", 1),
            replace(&json, "NVIDIA DGX B300", "NVIDIA DGX\u{3164}B300", 1),
        ),
        "a hard-linked lock file" => {
            let notes = s.tmp.join("notes.txt");
            std::fs::write(&notes, b"the user's notes").unwrap();
            std::fs::hard_link(&notes, s.tmp.join(".dist.lock")).unwrap();
            let line = s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]));
            assert_eq!(std::fs::read(&notes).unwrap(), b"the user's notes");
            line
        }
        "an output name that is not UTF-8" => {
            use std::os::unix::ffi::OsStrExt;
            let name = std::ffi::OsStr::from_bytes(b"dist\xff");
            let line = s.refused(|s| {
                // `--out` last, its value the name that is not UTF-8.
                s.build_command(&["--mirror", support::mirror().to_str().unwrap(), "--out"])
                    .arg(name)
                    .output()
                    .unwrap()
            });
            // Nothing was written under the name or under its lossy spelling.
            assert!(!s.tmp.join(name).exists());
            assert!(!s.tmp.join("dist\u{fffd}").exists());
            line
        }
        "a full standard output" | "help to a full standard output" => s.refused(|s| {
            let mut c = s.command();
            if case == "a full standard output" {
                c.arg("explain")
                    .arg("--root")
                    .arg(&s.root)
                    .args(["--offline", "--mirror"])
                    .arg(support::mirror());
            } else {
                c.arg("--help");
            }
            c.stdout(std::fs::File::create("/dev/full").unwrap());
            c.output().unwrap()
        }),
        "a file-size limit" => s.refused(|s| {
            let mirror = support::mirror();
            let build = s.build_command(&["--mirror", mirror.to_str().unwrap()]);
            support::after_shell("ulimit -f 2000", &build)
                .output()
                .unwrap()
        }),
        "a strict umask" => {
            // The build run under `umask 077`: every published folder and file keeps the modes a
            // web server can read (the ownership marker aside, which is the tool's own).
            use std::os::unix::fs::PermissionsExt;
            let mirror = support::mirror();
            let build = s.build_command(&["--mirror", mirror.to_str().unwrap()]);
            s.built(&support::after_shell("umask 077", &build).output().unwrap());
            let ls = |mode: u32, dir: bool| -> String {
                let bits = ["r", "w", "x"];
                let mut text = String::from(if dir { "d" } else { "-" });
                for i in (0..9).rev() {
                    text.push_str(if mode & (1 << i) != 0 {
                        bits[2 - i % 3]
                    } else {
                        "-"
                    });
                }
                text
            };
            let (mut folders, mut files) = (
                std::collections::BTreeSet::new(),
                std::collections::BTreeSet::new(),
            );
            for entry in walkdir::WalkDir::new(&s.out) {
                let entry = entry.unwrap();
                let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
                if entry.file_type().is_dir() {
                    folders.insert(ls(mode, true));
                } else if entry.file_name() != scenario_ratios::base::ownership::MARKER {
                    files.insert(ls(mode, false));
                }
            }
            let join = |set: std::collections::BTreeSet<String>| {
                set.into_iter().collect::<Vec<_>>().join(", ")
            };
            format!("folders {}; files {}", join(folders), join(files))
        }
        "a wrong password for the signing key" => {
            let key = support::fixture("encrypted_signing_key").join("author.key");
            std::fs::copy(&key, s.tmp.join("author.key")).unwrap();
            s.refused(|s| {
                s.build_command(&["--mirror", support::mirror().to_str().unwrap()])
                    .env("SCENARIO_RATIOS_MINISIGN_KEY", s.tmp.join("author.key"))
                    .env("SCENARIO_RATIOS_MINISIGN_PASSWORD", "not the password")
                    .output()
                    .unwrap()
            })
        }
        "a bidirectional control in the prose" => {
            let p = s.root.join("content/article.md");
            let prose = std::fs::read_to_string(&p).unwrap();
            std::fs::write(&p, format!("By Aryan \u{202e}attuP.\n\n{prose}")).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "a NUL in a notebook cell" => {
            let p = s.root.join("content/analysis.ipynb");
            let mut nb: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let cell = nb["cells"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|c| c["cell_type"] == "code")
                .unwrap();
            let source = cell["source"].as_array_mut().unwrap();
            source.push("\n# \u{0}".into());
            std::fs::write(&p, nb.to_string()).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "a bidirectional control in a name" => summaries(
            replace(&csv, "NVIDIA DGX B300", "NVIDIA DGX \u{202e}003B", 1),
            replace(&json, "NVIDIA DGX B300", "NVIDIA DGX \u{202e}003B", 1),
        ),
        "a named pipe in the cache" => {
            // A cache the tool made (its marker inside), where summary.csv is now a FIFO.
            let cache = s.tmp.join("cache");
            std::fs::create_dir_all(&cache).unwrap();
            std::fs::write(cache.join(scenario_ratios::inputs::CACHE_MARKER), b"").unwrap();
            let made = Command::new("mkfifo")
                .arg(cache.join("summary.csv"))
                .status()
                .unwrap();
            assert!(made.success());
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "the cache marker as an input's place" | "an odd source_date" => {
            let text = std::fs::read_to_string(s.root.join("data/inputs.json")).unwrap();
            let changed = if case == "an odd source_date" {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                let date = v["source_date"].as_str().unwrap();
                let odd = format!("{}01Z", &date[..date.len() - 3]);
                replace(&text, date, &odd, 1)
            } else {
                replace(
                    &text,
                    "\"local\": \"summary.csv\"",
                    "\"local\": \".scenario-ratios-cache\"",
                    1,
                )
            };
            std::fs::write(s.tmp.join("inputs.json"), changed).unwrap();
            let line = s.refused(|s| s.build(&["--manifest", "inputs.json"]));
            assert!(!s.tmp.join("cache").exists(), "no cache was made");
            line
        }
        "a named pipe as the lock file" => {
            // The build used to wait forever on it: this one must answer within a minute.
            let made = Command::new("mkfifo")
                .arg(s.tmp.join(".dist.lock"))
                .status()
                .unwrap();
            assert!(made.success());
            s.refused(|s| {
                let mut c = s.build_command(&["--mirror", support::mirror().to_str().unwrap()]);
                c.stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                let mut child = c.spawn().unwrap();
                let started = std::time::Instant::now();
                while child.try_wait().unwrap().is_none() {
                    if started.elapsed() > std::time::Duration::from_secs(60) {
                        let _ = child.kill();
                        panic!("the build still waits on the FIFO after a minute");
                    }
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                child.wait_with_output().unwrap()
            })
        }
        "a bare marker in a site's folder" => {
            // A site's folder holding an empty marker (copied from somewhere, or made by hand).
            let site = s.tmp.join("site");
            std::fs::create_dir_all(site.join("img")).unwrap();
            std::fs::write(site.join(scenario_ratios::base::ownership::MARKER), b"").unwrap();
            std::fs::write(site.join("index.html"), b"<p>my site</p>").unwrap();
            std::fs::write(site.join("img/logo.png"), b"png").unwrap();
            let before = snapshot(&site);
            let line = s.refused(|s| s.build(&["--out", "site"]));
            assert_eq!(snapshot(&site), before, "the site's files are kept");
            line
        }
        "backups named like leftovers" => {
            // A build writes dist/; the user copies it twice under names a build once used for
            // its own leftovers, and moves it away under a third; the next build keeps all three.
            s.built(&s.build(&["--mirror", support::mirror().to_str().unwrap()]));
            let copy = |to: &str| {
                let ok = Command::new("cp")
                    .arg("-a")
                    .arg(&s.out)
                    .arg(s.tmp.join(to))
                    .status()
                    .unwrap();
                assert!(ok.success());
            };
            copy("dist.old-20261130");
            copy("dist.tmp-1");
            std::fs::rename(&s.out, s.tmp.join("dist.old-1")).unwrap();
            let kept: Vec<_> = ["dist.old-20261130", "dist.tmp-1", "dist.old-1"]
                .iter()
                .map(|n| (n.to_string(), snapshot(&s.tmp.join(n))))
                .collect();
            s.built(&s.build(&["--mirror", support::mirror().to_str().unwrap()]));
            for (name, files) in &kept {
                assert_eq!(
                    &snapshot(&s.tmp.join(name)),
                    files,
                    "{name} is kept as it was"
                );
            }
            let mut names: Vec<String> = std::fs::read_dir(&s.tmp)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("dist"))
                .collect();
            names.sort();
            names.join(" ")
        }
        "a mount point as the output" | "a read-only folder for the output" => {
            // In a mount namespace of its own (root), so nothing outside the test sees it.
            let dir = s.tmp.join("mnt");
            std::fs::create_dir_all(&dir).unwrap();
            let (setup, out) = if case == "a mount point as the output" {
                ("mount -t tmpfs tmpfs \"$1\"", "mnt")
            } else {
                (
                    "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\"",
                    "mnt/dist",
                )
            };
            s.refused(|s| {
                let mut c = s.command();
                c.arg("--mount")
                    .arg("sh")
                    .arg("-c")
                    .arg(format!("{setup} && shift && exec \"$@\""))
                    .arg("sh")
                    .arg(&dir)
                    .arg(env!("CARGO_BIN_EXE_scenario-ratios"))
                    .arg("build")
                    .arg("--root")
                    .arg(&s.root)
                    .args(["--offline", "--cache", "cache", "--out", out, "--mirror"])
                    .arg(support::mirror());
                let mut unshare = Command::new("unshare");
                unshare.current_dir(&s.tmp).args(c.get_args());
                for (k, v) in c.get_envs() {
                    match v {
                        Some(v) => unshare.env(k, v),
                        None => unshare.env_remove(k),
                    };
                }
                unshare.output().unwrap()
            })
        }
        "an over-long output name" => {
            let name = "d".repeat(201);
            s.refused(|s| s.build(&["--out", &name]))
                .replace(&name, "<201 times d>")
        }
        "a newline and an ESC in an output name" => {
            // An existing file under a name that would forge a second line and recolour the
            // terminal, were it printed as it is.
            let name = "notes\nerror: all is well\u{1b}[32m.txt";
            std::fs::write(s.tmp.join(name), b"my notes").unwrap();
            let line = s.refused(|s| s.build(&["--out", name]));
            assert_eq!(std::fs::read(s.tmp.join(name)).unwrap(), b"my notes");
            line
        }
        "a 1 MB title" | "a bidirectional control in a setting" => {
            let p = s.root.join("content/article.json");
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            if case == "a 1 MB title" {
                v["title"] = "t".repeat(1 << 20).into();
            } else {
                v["author"] = "Aryan \u{202e}attuP".into();
            }
            std::fs::write(&p, v.to_string()).unwrap();
            s.refused(|s| s.build(&[]))
        }
        "a symbolic link as the prose" | "a symbolic link among the sources" => {
            let content = s.root.join("content");
            let (link, target) = if case == "a symbolic link as the prose" {
                let real = s.tmp.join("article.md");
                std::fs::rename(content.join("article.md"), &real).unwrap();
                (content.join("article.md"), real)
            } else {
                let real = s.tmp.join("notes.md");
                std::fs::write(&real, b"notes").unwrap();
                (content.join("notes.md"), real)
            };
            #[cfg(unix)]
            std::os::unix::fs::symlink(&target, &link).unwrap();
            s.refused(|s| s.build(&["--mirror", support::mirror().to_str().unwrap()]))
        }
        "a byte-order mark in SHA256SUMS" => {
            s.built(&s.build(&["--mirror", support::mirror().to_str().unwrap()]));
            let sums = s.out.join("SHA256SUMS");
            let mut text = "\u{feff}".to_string();
            text.push_str(&std::fs::read_to_string(&sums).unwrap());
            std::fs::write(&sums, text).unwrap();
            verify("dist")
        }
        "overlapping zip entries" => {
            std::fs::write(s.tmp.join("overlap.zip"), support::overlapping_zip(3, 100)).unwrap();
            verify("overlap.zip")
        }
        "a symbolic link in a zip"
        | "a device in a zip"
        | "names that differ only in case"
        | "names that differ only in normalisation" => {
            let files: Vec<(&str, u32, &[u8])> = match case {
                "a symbolic link in a zip" => vec![("a/lib.rs", 0o120_777, b"/etc/passwd")],
                "a device in a zip" => vec![("dev", 0o020_644, b"")],
                "names that differ only in case" => vec![
                    ("src/lib.rs", 0o100_644, b"a"),
                    ("src/LIB.rs", 0o100_644, b"b"),
                ],
                _ => vec![
                    ("caf\u{e9}.txt", 0o100_644, b"a"),
                    ("cafe\u{301}.txt", 0o100_644, b"b"),
                ],
            };
            std::fs::write(s.tmp.join("odd.zip"), support::zip_with_modes(&files)).unwrap();
            verify("odd.zip")
        }
        "a second zip in the archive comment"
        | "a symbolic link marked as made on another host"
        | "a name that is not ASCII without the UTF-8 flag"
        | "more central records than the end record counts"
        | "a comment on an entry"
        | "names nested hundreds of folders deep" => {
            let ok = || support::Forged::new("src/main.rs", b"fn main() {}\n");
            let zip = match case {
                "a second zip in the archive comment" => {
                    // The end record's comment holds a whole zip, which readers that take the
                    // last end record open instead.
                    let hidden = support::forged_zip(
                        b"",
                        &[support::Forged::new("README.md", b"run ./setup.sh")],
                    );
                    let mut zip = support::forged_zip(b"", &[ok()]);
                    let n = zip.len();
                    zip[n - 2..].copy_from_slice(&(hidden.len() as u16).to_le_bytes());
                    zip.extend(hidden);
                    zip
                }
                "a symbolic link marked as made on another host" => {
                    let mut link = support::Forged::new("src/main.rs", b"../../../../etc/passwd");
                    (link.made_on, link.mode) = (16, 0o120_777);
                    support::forged_zip(b"", &[link])
                }
                "a name that is not ASCII without the UTF-8 flag" => {
                    let mut e = support::Forged::new("src/caf\u{e9}.rs", b"");
                    e.flags = 0;
                    support::forged_zip(b"", &[e])
                }
                "more central records than the end record counts" => {
                    // Two records, counted as one: the second is seen only by a reader that
                    // walks the directory by its size.
                    let mut zip =
                        support::forged_zip(b"", &[ok(), support::Forged::new("src/lib.rs", b"")]);
                    let n = zip.len();
                    zip[n - 14..n - 10].copy_from_slice(&[1, 0, 1, 0]);
                    zip
                }
                "a comment on an entry" => {
                    let mut e = ok();
                    e.comment = b"PK\x05\x06".to_vec();
                    support::forged_zip(b"", &[e])
                }
                _ => {
                    // 150 entries, each 400 folders deep.
                    let deep = "a/".repeat(400);
                    let entries: Vec<support::Forged> = (0..150)
                        .map(|i| support::Forged::new(&format!("d{i:03}/{deep}f"), b""))
                        .collect();
                    support::forged_zip(b"", &entries)
                }
            };
            std::fs::write(s.tmp.join("odd.zip"), zip).unwrap();
            verify("odd.zip")
        }
        "data that do not match their CRC-32" => {
            // Both headers agree on a CRC-32 that is not the data's: only inflating finds it.
            let mut entry = support::Forged::new("src/main.rs", b"fn main() {}\n");
            entry.crc = Some(0x1234_5678);
            let zip = support::forged_zip(b"", &[entry]);
            std::fs::write(s.tmp.join("crc.zip"), zip).unwrap();
            verify("crc.zip")
        }
        forgery
            if support::forgeries()
                .iter()
                .any(|(name, _)| *name == forgery) =>
        {
            let (_, zip) = support::forgeries()
                .into_iter()
                .find(|(name, _)| *name == forgery)
                .unwrap();
            std::fs::write(s.tmp.join("forged.zip"), zip).unwrap();
            verify("forged.zip")
        }
        other => panic!("docs/bad-input.md lists a case this test cannot make: {other}"),
    }
}

/// The name of a case's test: its words joined by underscores, nothing but ASCII letters and
/// digits, so that it can be typed as a filter.
fn test_name(case: &str) -> String {
    let words: Vec<String> = case
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    format!(
        "every_documented_bad_input_prints_its_documented_line::{}",
        words.join("_")
    )
}

/// Makes `case` in a sandbox of its own and compares the line it prints with `line`.
fn check(case: &str, line: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new(tmp.path());
    let seen = make(case, &sandbox);
    assert!(!seen.contains("panicked"), "{case}: {seen}");
    assert_eq!(seen.lines().count(), 1, "{case}: one line, got {seen}");
    let tmp_name = std::fs::canonicalize(tmp.path()).unwrap();
    let seen = seen
        .trim_end()
        .replace(tmp_name.to_str().unwrap(), "<tmp>")
        .replace(tmp.path().to_str().unwrap(), "<tmp>");
    assert_eq!(seen, line, "{case}");
}

fn main() -> std::process::ExitCode {
    let args = libtest_mimic::Arguments::from_args();
    let cases = documented();
    let count = cases.len();
    let mut names = std::collections::BTreeSet::new();
    let mut trials = vec![libtest_mimic::Trial::test(
        "the_documented_cases_are_counted_in_the_readme_and_named_apart",
        move || {
            assert!(count >= 30, "{count} cases documented");
            let readme = std::fs::read_to_string(support::root().join("README.md")).unwrap();
            assert!(
                readme.contains(&format!("lists {count} bad inputs")),
                "README gives the number of documented cases ({count})"
            );
            Ok(())
        },
    )];
    for (case, line) in cases {
        let name = test_name(&case);
        assert!(
            names.insert(name.clone()),
            "two cases of docs/bad-input.md have one test name: {name}"
        );
        // Signing is a feature of its own: without it, the case that opens a key is reported
        // as ignored, not as passed.
        let ignored = case.contains("signing key") && !cfg!(feature = "sign");
        trials.push(
            libtest_mimic::Trial::test(name, move || {
                check(&case, &line);
                Ok(())
            })
            .with_ignored_flag(ignored),
        );
    }
    libtest_mimic::run(&args, trials).exit_code()
}
