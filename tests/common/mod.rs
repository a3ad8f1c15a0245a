//! Helpers shared by the end-to-end tests: the upstream mirror, fixture manifests, running the
//! binary, and a tiny HTTP server on 127.0.0.1.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use scenario_ratios::inputs::HexDigest;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The read-only upstream mirror beside the repository.
pub fn mirror() -> PathBuf {
    let m = root().join("../shared/upstream");
    assert!(
        m.is_dir(),
        "the upstream mirror {} is required by the tests",
        m.display()
    );
    m
}

/// The project as the build loads it from the repository.
pub fn project() -> scenario_ratios::project::Project {
    scenario_ratios::project::Project::load(&root()).unwrap()
}

pub fn fixture(case: &str) -> PathBuf {
    root().join("tests/fixtures").join(case)
}

/// Runs the built binary in `dir` with `args`, never with a download base inherited from outside.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    binary()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("binary runs")
}

/// The built binary, with nothing inherited that points it elsewhere, and the repository's
/// crate cache (so builds in project copies reuse its vendor fragment).
pub fn binary() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_scenario-ratios"));
    c.env("SCENARIO_RATIOS_CRATE_CACHE", root().join("data/crates"))
        .env_remove("UPSTREAM_MIRROR")
        .env_remove("SCENARIO_RATIOS_DOWNLOAD_BASE")
        .env_remove("SOURCE_DATE_EPOCH");
    c
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A previous build's output folder as a later build finds it: the tool's marker and `files`.
pub fn previous_output(out: &Path, files: &[(&str, &[u8])]) {
    std::fs::create_dir_all(out).unwrap();
    let names = files.iter().map(|(name, _)| *name);
    let marker = scenario_ratios::dist::marker_text(None, names);
    std::fs::write(out.join(scenario_ratios::dist::MARKER), marker).unwrap();
    for (name, bytes) in files {
        let path = out.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// [`snapshot`] less the output folder's marker, which names the build that wrote the folder
/// (its process, start time and a random token), so two builds' folders differ only there.
pub fn snapshot_without_marker(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = snapshot(dir);
    files.retain(|(p, _)| p != Path::new(scenario_ratios::dist::MARKER));
    files
}

/// Every file under `dir` with its bytes, sorted: a snapshot to compare before and after.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
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

/// Lays out the summary pair of fixture `case` as a mirror under `dir/mirror` and writes a manifest
/// pinning it (hashes computed here from the fixture bytes). Returns the manifest path.
pub fn fixture_manifest(case: &str, dir: &Path) -> PathBuf {
    let csv = std::fs::read(fixture(case).join("summary.csv")).unwrap();
    let json = std::fs::read(fixture(case).join("summary.json")).unwrap();
    manifest_for(&csv, &json, dir)
}

/// The hand-made VALID LoadGen log of the fixtures' B300 deepseek-r1 Server row (ID 1, 850.0).
pub const FIXTURE_SERVER_LOG: &str = "Scenario : Server\nMode : PerformanceOnly\nCompleted tokens per second: 850.0\nResult is : VALID\n99.00 percentile first token latency (ns) : 1500000000\n99.00 percentile time to output token (ns) : 70000000\n";
/// Where that log sits in a copy of the v6.1 results tree.
pub const FIXTURE_SERVER_LOG_PATH: &str =
    "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/deepseek-r1/Server/performance/run_1/mlperf_log_summary.txt";
/// The hand-made VALID LoadGen log of the fixtures' B300 llama2-70b-99.9 Server row (ID 5,
/// 3920.0): p99 TTFT 1000 ms and TPOT 150 ms, under 2000 and 200 ms.
pub const FIXTURE_LLAMA_LOG: &str = "Scenario : Server\nMode : PerformanceOnly\nCompleted tokens per second: 3920.0\nResult is : VALID\n99.00 percentile first token latency (ns) : 1000000000\n99.00 percentile time to output token (ns) : 150000000\n";
/// Where that log sits in a copy of the v6.1 results tree.
pub const FIXTURE_LLAMA_LOG_PATH: &str =
    "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/llama2-70b-99.9/Server/performance/run_1/mlperf_log_summary.txt";

/// Lays out a summary pair (and the hand-made Server log) as a mirror under `dir/mirror` and
/// writes `dir/inputs.json` pinning them.
pub fn manifest_for(csv: &[u8], json: &[u8], dir: &Path) -> PathBuf {
    use scenario_ratios::inputs::InputKind;
    let files = [
        verified(
            "summary.csv",
            InputKind::SummaryCsv,
            "example/fixtures",
            "summary.csv",
            csv,
        ),
        verified(
            "summary.json",
            InputKind::SummaryJson,
            "example/fixtures",
            "summary.json",
            json,
        ),
        verified(
            "hand-made server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            FIXTURE_SERVER_LOG_PATH,
            FIXTURE_SERVER_LOG.as_bytes(),
        ),
        verified(
            "hand-made llama2 server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            FIXTURE_LLAMA_LOG_PATH,
            FIXTURE_LLAMA_LOG.as_bytes(),
        ),
    ];
    // Every build checks the checker facts and the claims against the sources they cite.
    let files: Vec<_> = files.into_iter().chain(cited_sources()).collect();
    let mut inputs = Vec::new();
    for f in &files {
        let target = dir.join("mirror").join(&f.pin.repository).join(&f.pin.path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, &f.bytes).unwrap();
        inputs.push(serde_json::to_value(&f.pin).unwrap());
    }
    let manifest = serde_json::json!({
        "about": "test inputs",
        "source_date": "2026-11-30T00:00:00Z",
        "inputs": inputs,
    });
    let path = dir.join("inputs.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    path
}

/// A copy of the project's own files (what a build reads and bundles) under `dir/project`.
pub fn project_copy(dir: &Path) -> PathBuf {
    let to = dir.join("project");
    for top in scenario_ratios::layout::SOURCE_PATHS {
        let from = root().join(top);
        for e in walkdir::WalkDir::new(&from) {
            let e = e.unwrap();
            let target = to.join(e.path().strip_prefix(root()).unwrap());
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::copy(e.path(), &target).unwrap();
            }
        }
    }
    to
}

/// A minimal HTTP/1.1 server on 127.0.0.1 serving `<owner>/<repo>/<commit>/<path>` from a mirror
/// laid out as `<owner>/<repo>/<path>`. `tamper` may rewrite a body before it is sent.
pub struct FileServer {
    pub base: String,
    pub requests: Arc<AtomicUsize>,
}

pub fn serve(mirror: PathBuf, tamper: fn(&str, Vec<u8>) -> Vec<u8>) -> FileServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            counter.fetch_add(1, Ordering::SeqCst);
            let path = request_line.split_whitespace().nth(1).unwrap_or("/");
            let parts: Vec<&str> = path.trim_start_matches('/').splitn(4, '/').collect();
            let body = (parts.len() == 4)
                .then(|| mirror.join(parts[0]).join(parts[1]).join(parts[3]))
                .and_then(|p| std::fs::read(p).ok())
                .map(|b| tamper(path, b));
            let response = match body {
                Some(b) => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        b.len()
                    )
                    .into_bytes();
                    r.extend(b);
                    r
                }
                None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&response);
        }
    });
    FileServer { base, requests }
}

/// A verified input made in memory (for tests that bypass acquisition).
pub fn verified(
    name: &str,
    kind: scenario_ratios::inputs::InputKind,
    repository: &str,
    path: &str,
    bytes: &[u8],
) -> scenario_ratios::inputs::VerifiedInput {
    use scenario_ratios::inputs::{Origin, PinnedInput, VerifiedInput};
    let commit = "0123456789abcdef0123456789abcdef01234567".to_string();
    VerifiedInput {
        pin: PinnedInput {
            name: name.into(),
            kind,
            local: path.into(),
            repository: repository.into(),
            url: format!("https://example.org/{repository}/{commit}/{path}"),
            commit,
            path: path.into(),
            size: bytes.len() as u64,
            sha256: HexDigest::sha256(bytes),
            git_blob_sha1: HexDigest::git_blob_sha1(bytes),
            license: "Apache-2.0".into(),
            acquired: "2026-11-30".into(),
        },
        bytes: bytes.to_vec(),
        origin: Origin::Download("memory".into()),
        sha256: HexDigest::sha256(bytes),
        git_blob_sha1: HexDigest::git_blob_sha1(bytes),
    }
}

/// Every pinned input the checker facts and the claims register cite, as the project pins it,
/// read from the mirror and verified: every build checks the facts and claims against them.
pub fn cited_sources() -> Vec<scenario_ratios::inputs::VerifiedInput> {
    use scenario_ratios::inputs::{Origin, VerifiedInput};
    let project = project();
    let facts = project.facts.source.pin_in(&project.manifest).cloned();
    let mut pins: Vec<_> = project
        .manifest
        .inputs
        .iter()
        .filter(|p| project.claims.claims.iter().any(|c| c.input == p.name))
        .cloned()
        .collect();
    pins.extend(facts.filter(|f| !pins.iter().any(|p| p.name == f.name)));
    pins.into_iter()
        .map(|pin| {
            let file = mirror().join(&pin.repository).join(&pin.path);
            let bytes = std::fs::read(&file).unwrap();
            VerifiedInput::new(pin, bytes, Origin::Mirror(file.clone()), &file).unwrap()
        })
        .collect()
}

/// The submission checker's source that the checker facts cite, as the project pins it, read from
/// the mirror and verified: every build checks the facts against it.
pub fn checker_source() -> scenario_ratios::inputs::VerifiedInput {
    use scenario_ratios::inputs::{Origin, VerifiedInput};
    let project = project();
    let src = &project.facts.source;
    let pin = src
        .pin_in(&project.manifest)
        .expect("the manifest pins the facts' source")
        .clone();
    let file = mirror().join(&pin.repository).join(&pin.path);
    let bytes = std::fs::read(&file).unwrap();
    VerifiedInput::new(pin, bytes, Origin::Mirror(file.clone()), &file).unwrap()
}

/// The inputs of fixture `case`: its two summaries, plus a hand-made VALID Server log for the
/// B300 deepseek-r1 Server row (so the evidence section has a log to cite), and the checker's
/// source.
pub fn fixture_inputs(case: &str) -> scenario_ratios::inputs::Inputs {
    use scenario_ratios::inputs::InputKind;
    let dir = fixture(case);
    let files = vec![
        verified(
            "summary.csv",
            InputKind::SummaryCsv,
            "example/inference_results_v6.1",
            "summary.csv",
            &std::fs::read(dir.join("summary.csv")).unwrap(),
        ),
        verified(
            "summary.json",
            InputKind::SummaryJson,
            "example/inference_results_v6.1",
            "summary.json",
            &std::fs::read(dir.join("summary.json")).unwrap(),
        ),
        verified(
            "hand-made server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            FIXTURE_SERVER_LOG_PATH,
            FIXTURE_SERVER_LOG.as_bytes(),
        ),
        verified(
            "hand-made llama2 server log",
            InputKind::LoadgenSummary,
            "example/inference_results_v6.1",
            FIXTURE_LLAMA_LOG_PATH,
            FIXTURE_LLAMA_LOG.as_bytes(),
        ),
    ];
    inputs_of(files.into_iter().chain(cited_sources()).collect())
}

/// Inputs whose manifest pins exactly `files`.
pub fn inputs_of(
    files: Vec<scenario_ratios::inputs::VerifiedInput>,
) -> scenario_ratios::inputs::Inputs {
    let mut manifest = project().manifest;
    manifest.inputs = files.iter().map(|f| f.pin.clone()).collect();
    scenario_ratios::inputs::Inputs { manifest, files }
}

/// Runs `scenario-ratios build` from the project folder against the real mirror, offline, with the
/// given cache and output folders and any extra arguments.
pub fn build_real(out: &Path, cache: &Path, extra: &[&str]) -> Output {
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

/// Where the browser checks run: node, the chromium binary, and the folder of the scripts with
/// their installed packages (`npm ci` in tests/browser, as scripts/test does). Missing pieces fail the
/// test with what to install, unless SCENARIO_RATIOS_SKIP_BROWSER=1 asks to skip it (which the
/// test then says).
pub struct Browser {
    pub node: PathBuf,
    pub chromium: PathBuf,
    pub scripts: PathBuf,
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

pub fn browser() -> Option<Browser> {
    let scripts = root().join("tests/browser");
    let chromium = std::env::var_os("CHROMIUM").map(PathBuf::from).or_else(|| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find_map(|n| on_path(n))
    });
    let node = on_path("node");
    let installed = scripts.join("node_modules/puppeteer-core").is_dir();
    match (chromium, node, installed) {
        (Some(chromium), Some(node), true) => Some(Browser {
            node,
            chromium,
            scripts,
        }),
        missing => {
            let what = format!(
                "chromium {}, node {}, tests/browser/node_modules {}",
                if missing.0.is_some() {
                    "found"
                } else {
                    "missing (apt-get install chromium)"
                },
                if missing.1.is_some() {
                    "found"
                } else {
                    "missing"
                },
                if missing.2 {
                    "found"
                } else {
                    "missing (cd tests/browser && npm ci)"
                },
            );
            if std::env::var_os("SCENARIO_RATIOS_SKIP_BROWSER").is_some_and(|v| v == "1") {
                eprintln!("SKIPPED (SCENARIO_RATIOS_SKIP_BROWSER=1): {what}");
                None
            } else {
                panic!("the browser checks need {what}; scripts/test installs them");
            }
        }
    }
}

impl Browser {
    /// Runs `script` with node; returns its stdout, after checking that it succeeded.
    pub fn run(&self, script: &str, args: &[&str]) -> String {
        let o = Command::new(&self.node)
            .arg(self.scripts.join(script))
            .args(args)
            .env("CHROMIUM", &self.chromium)
            .current_dir(&self.scripts)
            .output()
            .expect("node runs");
        assert!(
            o.status.success(),
            "{script} failed: {}\n{}",
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(&o.stdout)
        );
        String::from_utf8(o.stdout).unwrap()
    }
}

/// The text of every code block (`<pre>`) of the built article's "Reproduce it" section, in
/// the order the reader meets them, as an HTML parser reads it.
pub fn reproduce_blocks(html: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let heading = scraper::Selector::parse("h2#reproduce").unwrap();
    let h2 = doc
        .select(&heading)
        .next()
        .expect("the article has a Reproduce section");
    let pre = scraper::Selector::parse("pre").unwrap();
    let mut blocks = Vec::new();
    for node in h2.next_siblings() {
        let Some(el) = scraper::ElementRef::wrap(node) else {
            continue;
        };
        if el.value().name() == "h2" {
            break;
        }
        let own = el.value().name() == "pre";
        for p in std::iter::once(el).filter(|_| own).chain(el.select(&pre)) {
            blocks.push(p.text().collect::<String>());
        }
    }
    assert!(!blocks.is_empty(), "the Reproduce section has code blocks");
    blocks
}

/// The code block of the Reproduce section that contains `command`; panics unless exactly one does.
pub fn reproduce_block(html: &str, command: &str) -> String {
    let found: Vec<String> = reproduce_blocks(html)
        .into_iter()
        .filter(|b| b.contains(command))
        .collect();
    assert_eq!(found.len(), 1, "one Reproduce block runs `{command}`");
    found.into_iter().next().unwrap()
}

/// Runs `program` with `args` to its end and returns its output, its exit code and its peak
/// resident set size in KiB, as the kernel counted it for that one process (`ru_maxrss` of
/// `wait4`). The program is started by a small Python process (fork, then exec): a process
/// started straight from this test binary would count the test binary's own memory too, since
/// the kernel carries the high-water mark of the address space a process is born in.
pub fn run_measured(program: &Path, args: &[&std::ffi::OsStr]) -> (Output, Option<i32>, u64) {
    const MEASURE: &str = "import os, sys\n\
pid = os.fork()\n\
if pid == 0:\n    os.execv(sys.argv[2], sys.argv[2:])\n\
_, status, usage = os.wait4(pid, 0)\n\
open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n\
sys.exit(os.waitstatus_to_exitcode(status))\n";
    let report = tempfile::NamedTempFile::new().unwrap();
    let output = Command::new("python3")
        .arg("-c")
        .arg(MEASURE)
        .arg(report.path())
        .arg(program)
        .args(args)
        .env("SCENARIO_RATIOS_CRATE_CACHE", root().join("data/crates"))
        .env_remove("UPSTREAM_MIRROR")
        .env_remove("SCENARIO_RATIOS_DOWNLOAD_BASE")
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("python3 runs");
    let peak: u64 = std::fs::read_to_string(report.path())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let code = output.status.code();
    (output, code, peak)
}

/// A stored (uncompressed) zip of `files`, each with its Unix mode in the external attributes,
/// as `zip -y` writes a link (its target as its data) or a device.
pub fn zip_with_modes(files: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, mode, data) in files {
        let offset = out.len() as u32;
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let common = |v: &mut Vec<u8>| {
            v.extend(0u16.to_le_bytes()); // stored
            v.extend([0u8; 4]); // time, date
            v.extend(crc.sum().to_le_bytes());
            v.extend((data.len() as u32).to_le_bytes());
            v.extend((data.len() as u32).to_le_bytes());
            v.extend((name.len() as u16).to_le_bytes());
            v.extend(0u16.to_le_bytes());
        };
        out.extend([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0]);
        common(&mut out);
        out.extend(name.as_bytes());
        out.extend(*data);
        central.extend([0x50, 0x4b, 0x01, 0x02, 20, 3, 20, 0, 0, 0]);
        common(&mut central);
        central.extend([0u8; 6]); // comment length, disk, internal attributes
        central.extend((mode << 16).to_le_bytes());
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend([0, 0]);
    out
}

/// A zip of one deflate stream (`size` zero bytes) behind one local header, and `count`
/// central-directory entries that all point at it, named as bundled inputs are (which verify
/// keeps in memory to check): the overlapping-entry zip bomb.
pub fn overlapping_zip(count: usize, size: u32) -> Vec<u8> {
    let zeros = vec![0u8; size as usize];
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut enc, &zeros).unwrap();
    let stream = enc.finish().unwrap();
    let mut crc = flate2::Crc::new();
    crc.update(&zeros);
    let folder = scenario_ratios::layout::bundle_folder();
    let first = format!("{folder}/data/upstream/f0000000");
    let fields = |v: &mut Vec<u8>, name_len: usize| {
        v.extend(8u16.to_le_bytes()); // deflate
        v.extend([0u8; 4]);
        v.extend(crc.sum().to_le_bytes());
        v.extend((stream.len() as u32).to_le_bytes());
        v.extend(size.to_le_bytes());
        v.extend((name_len as u16).to_le_bytes());
        v.extend(0u16.to_le_bytes());
    };
    let mut out = vec![0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0];
    fields(&mut out, first.len());
    out.extend(first.as_bytes());
    out.extend(&stream);
    let cd_offset = out.len() as u32;
    let mut central = Vec::new();
    for i in 0..count {
        let name = format!("{folder}/data/upstream/f{i:07}");
        central.extend([0x50, 0x4b, 0x01, 0x02, 20, 3, 20, 0, 0, 0]);
        fields(&mut central, name.len());
        central.extend([0u8; 6]);
        central.extend((0o100_644u32 << 16).to_le_bytes());
        central.extend(0u32.to_le_bytes()); // every entry at the one local header
        central.extend(name.as_bytes());
    }
    out.extend(&central);
    // zip64 end records: 50,000 entries do not fit the classic 16-bit count.
    let z64_at = out.len() as u64;
    out.extend([0x50, 0x4b, 0x06, 0x06]);
    out.extend(44u64.to_le_bytes());
    out.extend([45, 3, 45, 0]);
    out.extend([0u8; 8]); // disks
    out.extend((count as u64).to_le_bytes());
    out.extend((count as u64).to_le_bytes());
    out.extend((central.len() as u64).to_le_bytes());
    out.extend(u64::from(cd_offset).to_le_bytes());
    out.extend([0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0]);
    out.extend(z64_at.to_le_bytes());
    out.extend(1u32.to_le_bytes());
    out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend([0xFF; 4]);
    out.extend([0xFF; 8]);
    out.extend([0, 0]);
    out
}
