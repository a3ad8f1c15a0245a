//! The author's live preview, followed as the author does it: `serve` on a copy of the project,
//! the page open in chromium (through CDP, by puppeteer-core), a sentence saved into
//! content/article.md, the page showing it by itself. A broken edit shows its error in the page
//! and the server survives; a fix recovers; no output folder is written.
#![cfg(feature = "serve")]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn a_saved_edit_shows_in_the_open_page_by_itself() {
    let Some(browser) = common::browser() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = common::project_copy(tmp.path());
    let before = common::snapshot(&root);
    let mut server = common::binary()
        .args(["serve", "--port", "0", "--offline", "--root"])
        .arg(&root)
        .arg("--mirror")
        .arg(common::mirror())
        .arg("--cache")
        .arg(tmp.path().join("cache"))
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
