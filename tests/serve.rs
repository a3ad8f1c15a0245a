//! The author's live preview, followed as the author does it: `serve` on a copy of the project,
//! the page open in chromium (through CDP, by puppeteer-core), a sentence saved into
//! content/article.md, the page showing it by itself. A broken edit shows its error in the page
//! and the server survives; a fix recovers; no output folder is written.
#![cfg(feature = "serve")]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `serve` on a free port for the project at `root`; returns the process, its standard
/// output after the first line, and the address it serves.
fn start(root: &Path, tmp: &Path) -> (Child, BufReader<ChildStdout>, String) {
    let mut server = common::binary()
        .args(["serve", "--port", "0", "--offline", "--root"])
        .arg(root)
        .arg("--mirror")
        .arg(common::mirror())
        .arg("--cache")
        .arg(tmp.join("cache"))
        .env_remove("UPSTREAM_MIRROR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(server.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let Some(url) = line
        .strip_prefix("serving ")
        .and_then(|r| r.split_whitespace().next())
        .map(String::from)
    else {
        let _ = server.kill();
        let o = server.wait_with_output().unwrap();
        panic!(
            "unexpected first line {line:?}; stderr: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    (server, out, url)
}

#[test]
fn a_saved_edit_shows_in_the_open_page_by_itself() {
    let Some(browser) = common::browser() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = common::project_copy(tmp.path());
    let before = common::snapshot(&root);
    let (mut server, mut out, url) = start(&root, tmp.path());
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "binds to 127.0.0.1: {url}"
    );

    let report = browser.run(
        "serve-reload.mjs",
        &[&url, root.join("content/article.md").to_str().unwrap()],
    );
    let r: serde_json::Value = serde_json::from_str(report.trim()).unwrap();
    let delays: Vec<u64> = r["reload_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    println!("saved edit shown after {delays:?} ms");
    assert_eq!(delays.len(), 5);
    assert!(delays.iter().all(|&d| d < 1000), "{delays:?} ms");
    assert_eq!(r["error_shown"], true, "{r}");
    assert!(
        r["error_text"]
            .as_str()
            .unwrap()
            .contains("unknown placeholder {{no_such_value}}"),
        "{r}"
    );
    assert_eq!(r["recovered"], true, "{r}");

    // The server survived the broken edit, and stops cleanly on Ctrl-C.
    assert!(
        server.try_wait().unwrap().is_none(),
        "the server is still running"
    );
    let pid = server.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let status = server.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(status.success(), "exit {status:?}");
    assert!(rest.contains("stopped"), "{rest}");
    // Nothing was written into the project (the prose is back as it was, no dist/).
    assert_eq!(common::snapshot(&root), before);
    assert!(!root.join("dist").exists());
}

/// Sends one raw HTTP/1.1 request and reads the answer until the server closes or `wait` passes.
fn send(addr: &str, request: &str, wait: Duration) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    (stream, String::from_utf8_lossy(&answer).into_owned())
}

/// GETs `path` and returns the answer, which must be a 200.
fn get_ok(addr: &str, path: &str) -> String {
    let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let (_, answer) = send(addr, &request, Duration::from_secs(5));
    let start: String = answer.chars().take(200).collect();
    assert!(answer.starts_with("HTTP/1.1 200"), "GET {path}: {start}");
    answer
}

/// The preview answers only what a browser asks of a static site, and a flood of open reload
/// polls neither starts a thread each nor starves the page and its files; once a build answers
/// the polls, new ones are taken again.
#[test]
fn the_preview_answers_get_and_head_only_and_bounds_its_open_polls() {
    let tmp = tempfile::tempdir().unwrap();
    let root = common::project_copy(tmp.path());
    let (mut server, _out, url) = start(&root, tmp.path());
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let short = Duration::from_secs(5);

    let page = get_ok(&addr, "/");
    let version: String = page
        .split("reload.js?v=")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();

    let (_, post) = send(
        &addr,
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        short,
    );
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
    assert!(post.contains("Allow: GET, HEAD"), "{post}");
    let (_, head) = send(
        &addr,
        "HEAD /pairs.csv HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        short,
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.ends_with("\r\n\r\n"),
        "a HEAD answer has no body: {head:?}"
    );

    // 100 polls for the current build: some are held open, the rest answered 503 at once.
    let poll =
        format!("GET /__live/wait?v={version} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let mut held = Vec::new();
    let mut busy = 0;
    for _ in 0..100 {
        let (stream, answer) = send(&addr, &poll, Duration::from_millis(150));
        if answer.starts_with("HTTP/1.1 503") {
            busy += 1;
        } else {
            assert_eq!(answer, "", "a poll for the current build waits");
            held.push(stream);
        }
    }
    assert!(
        busy > 0 && !held.is_empty(),
        "held {}, busy {busy}",
        held.len()
    );
    // The page and its files are still served while the polls are full.
    get_ok(&addr, "/pairs.csv");

    // A saved edit rebuilds; the held polls are answered with the new build's number (a poll
    // the server refused later than the first read waited for is skipped).
    let prose = root.join("content/article.md");
    let mut text = std::fs::read_to_string(&prose).unwrap();
    text.push_str("\nOne more sentence.\n");
    std::fs::write(&prose, text).unwrap();
    let mut answered = 0;
    for mut stream in held {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        if answer.starts_with("HTTP/1.1 503") {
            continue; // refused, but later than the first read waited for
        }
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(!answer.ends_with(&format!("\r\n\r\n{version}")), "{answer}");
        answered += 1;
    }
    assert!(answered > 0, "no poll was answered by the rebuild");
    // The answered polls free their places: a new poll is taken again, not refused.
    let started = Instant::now();
    loop {
        let (_, answer) = send(&addr, &poll, Duration::from_millis(150));
        if !answer.starts_with("HTTP/1.1 503") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "polls stay refused"
        );
    }
    let _ = server.kill();
    let _ = server.wait();
}
