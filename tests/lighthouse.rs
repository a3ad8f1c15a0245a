//! Lighthouse (mobile, its default simulated throttling) on the published pages, served over
//! HTTP and gzipped as a web host serves them (tests/browser/article-check.mjs with
//! `CHECKS=lighthouse`): full marks for accessibility and best practices for each page, SEO full
//! marks but for robots.txt (which the page's Content-Security-Policy keeps Lighthouse from
//! fetching; crawlers fetch it themselves), and at least 90 for performance, a score that varies
//! with the machine's load (it prints each, the median of three runs, or of two that agree).
//!
//! A binary of its own, which `scripts/test` runs when no other test does, since Lighthouse's
//! performance score measures the machine's load along with the page. That Lighthouse catches a
//! bad page is tested with the other browser checks (tests/browser.rs).

// The helpers of the integration tests (tests/integration/support/); this binary uses a few of
// them, so those it leaves unused are not reported here (the integration binary uses them all).
#[allow(dead_code, unused_imports)]
#[path = "integration/support/mod.rs"]
mod support;

use serde_json::Value;

#[test]
fn the_pages_score_full_marks_in_lighthouse() {
    let Some(browser) = support::browser() else {
        return;
    };
    let out = support::built();
    let shots = support::root().join("target/browser");
    let report = browser.check(
        "lighthouse",
        &[
            shots.to_str().unwrap(),
            out.join("article.html").to_str().unwrap(),
            out.join("data.html").to_str().unwrap(),
        ],
    );
    let r: Value = serde_json::from_str(report.trim()).unwrap();
    let pages = r["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 2);
    for p in pages {
        check_lighthouse(&p["lighthouse"], p["page"].as_str().unwrap());
    }
}

/// Lighthouse's verdict on `page`: full marks for accessibility and best practices, SEO's only
/// failing audit robots.txt, performance at least 0.9.
fn check_lighthouse(lh: &Value, page: &str) {
    println!(
        "Lighthouse on {page}: {} (failing audits {}; metrics {})",
        lh["scores"], lh["failing"], lh["metrics"]
    );
    assert_eq!(lh["scores"]["accessibility"], 1, "{page}: {lh}");
    assert_eq!(lh["scores"]["best-practices"], 1, "{page}: {lh}");
    let seo: Vec<&str> = lh["failing"]["seo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        seo.iter().all(|a| a.starts_with("robots-txt:")),
        "{page}: SEO audits fail: {seo:?}"
    );
    // The median of three runs (article-check.mjs): one run's score moves by 0.15 on this
    // shared machine (the data page scored 1, 0.85 and 1 in three runs in a row). Two runs that
    // agree fix the median, so the third is then left out.
    let runs: Vec<f64> = lh["performance_runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_f64().unwrap())
        .collect();
    assert!(
        runs.len() == 3 || (runs.len() == 2 && runs[0] == runs[1]),
        "{page}: {lh}"
    );
    let mut sorted = runs.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(
        lh["scores"]["performance"].as_f64(),
        Some(sorted[1]),
        "{page}: the score is not the median of {runs:?}"
    );
    assert!(
        lh["scores"]["performance"].as_f64().unwrap() >= 0.9,
        "{page}: {lh}"
    );
    assert_eq!(lh["metrics"]["cumulative-layout-shift"], 0, "{page}: {lh}");
}
