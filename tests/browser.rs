//! A real browser renders the article: Debian's chromium, headless. The test saves a screenshot
//! under `target/browser/`, checks the DOM Chromium built (both figures, the pairs table), and
//! checks from Chromium's own network log and console that the page requested nothing from the
//! network and logged no error. A missing chromium fails the test (see `common::browser`).

mod common;

use std::path::Path;
use std::process::Command;

struct Run {
    dom: String,
    console: Vec<String>,
    page_requests: Vec<String>,
}

/// Loads `page` headless with a fresh profile; returns the DOM, console lines and the network
/// requests the page itself made (Chromium's background requests carry no page origin).
fn load(chrome: &Path, page: &Path, work: &Path, screenshot: Option<(&Path, &Path)>) -> Run {
    let profile = work.join(format!(
        "profile-{}",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let netlog = work.join(format!(
        "netlog-{}.json",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let url = format!("file://{}", page.display());
    let common_args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--window-size=1280,2200",
    ];
    let out = Command::new(chrome)
        .args(common_args)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--enable-logging=stderr")
        .arg("--v=0")
        .arg(format!("--log-net-log={}", netlog.display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some((shot_page, shot)) = screenshot {
        let s = Command::new(chrome)
            .args(common_args)
            .arg("--window-size=1280,16000")
            .arg(format!("--user-data-dir={}-shot", profile.display()))
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("file://{}", shot_page.display()))
            .output()
            .expect("chromium runs");
        assert!(s.status.success(), "screenshot failed");
        assert!(
            std::fs::metadata(shot).unwrap().len() > 10_000,
            "screenshot written"
        );
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let console = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    let log: serde_json::Value = serde_json::from_slice(&std::fs::read(&netlog).unwrap()).unwrap();
    let start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
        .as_i64()
        .unwrap();
    let page_requests = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"].as_i64() == Some(start_job))
        .filter(|e| {
            e["params"]["initiator"]
                .as_str()
                .is_some_and(|i| i != "not an origin")
        })
        .filter_map(|e| e["params"]["url"].as_str().map(String::from))
        .filter(|u| !u.starts_with("file:") && !u.starts_with("data:"))
        .collect();
    Run {
        dom: String::from_utf8(out.stdout).unwrap(),
        console,
        page_requests,
    }
}

#[test]
fn chromium_renders_the_article_offline() {
    let Some(browser) = common::browser() else {
        return;
    };
    let chrome = browser.chromium;
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("dist");
    let o = common::build_real(&out, &work.path().join("cache"), &[]);
    assert!(o.status.success(), "{}", common::stderr(&o));

    // The detector works: a page loading a remote image without a CSP is caught.
    let control = work.path().join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><title>c</title><img src=\"http://127.0.0.1:9/x.png\">",
    )
    .unwrap();
    let c = load(&chrome, &control, work.path(), None);
    assert_eq!(
        c.page_requests,
        ["http://127.0.0.1:9/x.png"],
        "control page"
    );

    let shots = common::root().join("target/browser");
    std::fs::create_dir_all(&shots).unwrap();
    let shot = shots.join("article.png");
    // The screenshot shows the whole page with the pairs table opened (a copy whose only change
    // is the `open` attribute of that <details>).
    let page = out.join("article.html");
    let opened = work.path().join("article-open.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<details id=\"all-pairs\">"));
    std::fs::write(
        &opened,
        html.replace(
            "<details id=\"all-pairs\">",
            "<details id=\"all-pairs\" open>",
        ),
    )
    .unwrap();
    let run = load(&chrome, &page, work.path(), Some((&opened, &shot)));
    assert!(
        run.page_requests.is_empty(),
        "network requests: {:?}",
        run.page_requests
    );
    assert!(
        run.console.is_empty(),
        "console messages: {:?}",
        run.console
    );

    let dom = scraper::Html::parse_document(&run.dom);
    let sel = |s: &str| scraper::Selector::parse(s).unwrap();
    let title: String = dom.select(&sel("h1")).next().unwrap().text().collect();
    assert_eq!(title, "The Server/Offline ratio is workload-specific");
    let figures: Vec<_> = dom.select(&sel("figure svg[role=img]")).collect();
    assert_eq!(figures.len(), 2, "both figures in the DOM");
    for f in &figures {
        assert!(f.select(&sel("title")).next().is_some());
        assert!(f.select(&sel("desc")).next().is_some());
    }
    // Figure 1: one bar per highlight (4 configured); figure 2: one mark per pair.
    assert_eq!(
        figures[0]
            .select(&sel("g > rect.sr-bar, g > rect.sr-bar-over"))
            .count(),
        4
    );
    let rows = dom
        .select(&sel("details#all-pairs table#pairs-table tbody tr"))
        .count();
    assert_eq!(rows, 152, "the 152 pairs of the acceptance figures");
    assert_eq!(
        figures[1]
            .select(&sel("circle[cy]"))
            .filter(|c| c.select(&sel("title")).next().is_some())
            .count(),
        152
    );
    println!("screenshot: {}", shot.display());
}
