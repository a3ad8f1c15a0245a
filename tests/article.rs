//! The article rendered from hand-made results: the prose follows the data it is given, every
//! data-derived string is escaped, and the page loads nothing from the network.

mod common;

use scenario_ratios::dist::Dist;
use scenario_ratios::pipeline;

fn build(case: &str) -> Dist {
    let inputs = common::fixture_inputs(case);
    let computed = pipeline::compute(common::project(), &inputs).unwrap();
    pipeline::render(&computed).unwrap()
}

fn text(d: &Dist, name: &str) -> String {
    String::from_utf8(
        d.get(name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .to_vec(),
    )
    .unwrap()
}

/// Strips tags and decodes entities so prose can be searched as a reader sees it.
fn visible(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let decoded = out
        .replace("&lt;", "<")
        .replace("&#60;", "<")
        .replace("&gt;", ">")
        .replace("&#62;", ">")
        .replace("&quot;", "\"")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
        .replace("&#38;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn prose_numbers_follow_a_hand_made_results_set() {
    let d = build("base");
    let page = visible(&text(&d, "article.html"));
    // Base fixture, worked out by hand: 850/1000, 1900/2000, 3920/4000, 5100/5000.
    for expected in [
        "keeps 85.00 % of its Offline rate on deepseek-r1, 95.00 % on gpt-oss-120b and 98.00 % on llama2-70b-99.9",
        "a spread of 13.00 percentage points",
        "The summary lists 12 result rows (11 in the closed division, 1 in the open division)",
        "That leaves 9 rows",
        "all 27 fields other than",
        "The rule yields 4 complete pairs. Exactly one eligible row stays unmatched: ID 10",
        "In 1 of 4 pairs",
        "gives up 15.00 % of its Offline rate (Server 850 against Offline 1,000 tokens/s, rows 1 and 0)",
        "reports 102.00 % on gpt-oss-120b (rows 7 and 6)",
        "from 85.00 % to 102.00 %",
    ] {
        assert!(page.contains(expected), "missing {expected:?} in:\n{page}");
    }
    // None of the real data's figures leak into an article built from other data.
    for real in [
        "85.36", "94.37", "97.87", "12.51", "101.72", "492", "305", "152",
    ] {
        assert!(
            !page.contains(real),
            "{real} appears in an article built from the fixture"
        );
    }
    // The one hand-made log: VALID, 850.0 ≈ 850.0, TTFT 1500 ms < 2000 ms, TPOT 70 ms < 80 ms.
    assert!(page.contains("✓ 1500 ms < 2000 ms"), "{page}");
    assert!(page.contains("✓ 70 ms < 80 ms"), "{page}");
}

#[test]
fn hostile_names_are_escaped_in_html_and_svg() {
    let d = build("hostile_names");
    let html = text(&d, "article.html");
    assert!(!html.contains("<script>alert(1)</script>"));
    assert!(!html.contains("<img src=x"));
    assert!(!html.contains("<script"), "no script element at all");
    // The reader sees the names as text, in the pairs table and in the figure's mark titles.
    let page = visible(&html);
    assert!(
        page.contains("<script>alert(1)</script>"),
        "name shown as text"
    );
    assert!(
        page.contains("\"><img src=x onerror=alert(2)> & Co"),
        "name shown as text"
    );
    let svg = text(&d, "ratios-by-model.svg");
    assert!(!svg.contains("<script"));
    assert!(visible(&svg).contains("<script>alert(1)</script> \"><img src=x"));
    assert!(!svg.contains("<img"));
    // Both SVGs stay well-formed XML with the hostile text inside.
    for name in ["scenario-ratios.svg", "ratios-by-model.svg"] {
        let source = text(&d, name);
        let doc = roxmltree::Document::parse(&source).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
    }
    let csv = text(&d, "pairs.csv");
    assert!(
        csv.contains("<script>alert(1)</script>"),
        "CSV keeps the raw text"
    );
}

#[test]
fn the_page_is_self_contained() {
    let html = text(&build("base"), "article.html");
    assert!(
        html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'")
    );
    for forbidden in [
        "<script",
        "<iframe",
        "<link rel=\"stylesheet\"",
        "@import",
        "url(http",
        "src=\"http",
    ] {
        assert!(!html.contains(forbidden), "{forbidden}");
    }
    assert!(html.contains("<link rel=\"canonical\" href=\"https://"));
    assert!(html.contains("og:title"));
    assert!(html.contains("prefers-color-scheme:dark"));
    assert!(html.contains("@media print"));
    assert!(html.contains("name=\"viewport\""));
    assert_eq!(html.matches("role=\"img\"").count(), 2);
}

#[test]
fn pairs_csv_has_one_row_per_pair() {
    let d = build("base");
    let mut r = csv::Reader::from_reader(d.get("pairs.csv").unwrap());
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(&rows[0][0], "0");
    assert_eq!(&rows[0][1], "1");
    assert_eq!(&rows[0][10], "85.00");
}
