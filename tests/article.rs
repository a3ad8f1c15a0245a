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
        // As a number of its own: not inside a hash, a byte count or a longer figure.
        let standalone = page.match_indices(real).any(|(at, _)| {
            let before = page[..at].chars().next_back();
            let after = page[at + real.len()..].chars().next();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == ',' || c == '.')
                && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == ',')
        });
        assert!(
            !standalone,
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
    assert_eq!(
        html.matches("<script").count(),
        1,
        "no script element but the JSON-LD block"
    );
    assert_eq!(
        scenario_ratios::validate::page_problems(&html),
        Vec::<String>::new()
    );
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
    assert_eq!(
        html.matches("<script").count(),
        html.matches("<script type=\"application/ld+json\">")
            .count()
    );
    for forbidden in [
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
    // Each figure twice: the wide drawing and the narrow one for phones.
    assert_eq!(html.matches("role=\"img\"").count(), 4);
    assert_eq!(html.matches("class=\"fig fig-narrow\"").count(), 2);
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

#[test]
fn the_page_carries_its_author_identity_and_publisher_metadata() {
    let html = text(&build("base"), "article.html");
    let page = visible(&html);
    assert!(
        page.contains("Released-data analysis and original visualization by Aryan Putta"),
        "byline"
    );
    for needle in [
        "<link rel=\"canonical\" href=\"https://aryanputta.com/articles/server-offline-ratio/article.html\">",
        "<meta property=\"og:url\" content=\"https://aryanputta.com/articles/server-offline-ratio/article.html\">",
        "<meta property=\"og:type\" content=\"article\">",
        "<meta property=\"og:site_name\" content=\"Aryan Putta\">",
        "<meta property=\"article:author\" content=\"https://aryanputta.com/about/\">",
        "<meta property=\"article:published_time\" content=\"2026-11-30\">",
        "<meta name=\"twitter:card\" content=\"summary\">",
        "<meta name=\"author\" content=\"Aryan Putta\">",
        "<a href=\"/about/\" rel=\"author\">Aryan Putta</a>",
        // Google Scholar's citation tags, and the BibTeX entry for citing the page.
        "<meta name=\"citation_title\" content=\"The Server/Offline ratio is workload-specific\">",
        "<meta name=\"citation_author\" content=\"Aryan Putta\">",
        "<meta name=\"citation_publication_date\" content=\"2026/11/30\">",
        "@online{putta2026server,\n  author = {Aryan Putta},\n  title = {{The Server/Offline ratio is workload-specific}},\n  year = {2026},",
        "url = {https://aryanputta.com/articles/server-offline-ratio/article.html}\n}",
    ] {
        assert!(html.contains(needle), "missing {needle}");
    }
    assert!(
        page.contains("Aryan Putta (2026). The Server/Offline ratio is workload-specific."),
        "the reference line"
    );
    // The JSON-LD block is data: it parses, and says who, when, where and from what.
    let start = html.find("<script type=\"application/ld+json\">").unwrap() + 35;
    let end = start + html[start..].find("</script>").unwrap();
    let ld: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
    assert_eq!(ld["@type"], "Article");
    assert_eq!(
        ld["headline"],
        "The Server/Offline ratio is workload-specific"
    );
    assert_eq!(ld["author"]["name"], "Aryan Putta");
    assert_eq!(ld["author"]["url"], "https://aryanputta.com/about/");
    assert_eq!(ld["datePublished"], "2026-11-30");
    assert_eq!(
        ld["url"],
        "https://aryanputta.com/articles/server-offline-ratio/article.html"
    );
    assert!(ld["isBasedOn"]["url"]
        .as_str()
        .unwrap()
        .ends_with("/summary.csv"));
    assert_eq!(ld["license"], "https://www.apache.org/licenses/LICENSE-2.0");
    assert!(page.contains("arXiv:1911.02549"), "Reddi et al. are cited");
    assert!(html.contains("href=\"https://arxiv.org/abs/1911.02549\""));
}

#[test]
fn the_downloads_table_links_every_published_file_with_the_bytes_written() {
    let d = build("base");
    let page = text(&d, "article.html");
    let table = page.find("id=\"downloads-table\"").unwrap();
    let html = &page[table..table + page[table..].find("</table>").unwrap()];
    use scenario_ratios::layout::OutputFile;
    for f in OutputFile::ALL {
        if *f == OutputFile::Article {
            continue;
        }
        let link = format!("<a href=\"{}\"", f.path());
        let at = html
            .find(&link)
            .unwrap_or_else(|| panic!("no link to {}", f.path()));
        let tag = &html[at..at + html[at..].find('>').unwrap() + 1];
        // What a reader saves and runs is a download under its own name (a browser would not
        // add an extension to SHA256SUMS); the rest may open in the browser.
        let saved = matches!(
            f,
            OutputFile::Bundle
                | OutputFile::Sums
                | OutputFile::Notebook
                | OutputFile::NotebookScript
        );
        let want = if saved {
            format!("{link} download>")
        } else {
            format!("{link}>")
        };
        assert_eq!(tag, want, "{}", f.path());
        if let Some(bytes) = d.get(f.path()) {
            // The size and SHA-256 printed are those of the bytes written (sha256sum-compatible).
            let row = &html[at..at + html[at..].find("</tr>").unwrap()];
            let size = bytes.len().to_string();
            let grouped: String = size
                .chars()
                .rev()
                .collect::<Vec<_>>()
                .chunks(3)
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
                .join(",")
                .chars()
                .rev()
                .collect();
            assert!(
                row.contains(&grouped),
                "{}: size {grouped} in {row}",
                f.path()
            );
            let sha = scenario_ratios::inputs::HexDigest::sha256(bytes);
            assert!(row.contains(sha.as_str()), "{}: hash", f.path());
        }
    }
}

#[test]
fn the_ordering_sentence_follows_the_data() {
    // Base fixture, by hand: B300 ratios 85 % (deepseek-r1) < 95 % (gpt-oss-120b) < 98 %
    // (llama2-70b-99.9); medians deepseek-r1 85 %, llama2-70b-99.9 98 %, gpt-oss-120b 98.5 %
    // ((95 + 102) / 2): the medians order gpt-oss-120b last, the system orders it second.
    let page = visible(&text(&build("base"), "article.html"));
    assert!(
        page.contains("On the highlighted system the three workloads do not order as their benchmarks' medians do: by this system's ratio they run deepseek-r1, gpt-oss-120b, llama2-70b-99.9 (lowest first), by median deepseek-r1, llama2-70b-99.9, gpt-oss-120b."),
        "{page}"
    );
    assert!(!page.contains("order the same way"));
}

#[test]
fn a_wrong_value_in_the_lede_fails_the_build_check() {
    let mut d = build("base");
    let html = text(&d, "article.html");
    // The lede says 85.00 % for B300 deepseek-r1 (850 / 1000); make it say 84.00 %, leaving the
    // tables and figures (which also print 85.00 %) as they are.
    let span = "<span data-value=\"hl.b300_deepseek.ratio\">85.00 %</span>";
    assert!(html.contains(span));
    let wrong = html.replacen(
        span,
        "<span data-value=\"hl.b300_deepseek.ratio\">84.00 %</span>",
        1,
    );
    assert!(
        wrong.contains("85.00 %"),
        "the right value still appears elsewhere"
    );
    let mut tampered = Dist::new();
    for (path, bytes) in d.files() {
        let bytes = if path == "article.html" {
            wrong.as_bytes().to_vec()
        } else {
            bytes.to_vec()
        };
        tampered.add(path, bytes).unwrap();
    }
    let summed = tampered.files().map(|(p, _)| p.to_string()).collect();
    let checks = scenario_ratios::validate::validate(&tampered, &summed);
    let c = checks
        .iter()
        .find(|c| c.rule == scenario_ratios::validate::Rule::HighlightsMatchResults)
        .unwrap();
    assert!(!c.passed);
    assert_eq!(
        c.detail,
        "{{hl.b300_deepseek.ratio}} shows \"84.00 %\" but results.json gives \"85.00 %\""
    );
    // The untouched page passes the same check.
    d = build("base");
    let summed = d.files().map(|(p, _)| p.to_string()).collect();
    let checks = scenario_ratios::validate::validate(&d, &summed);
    assert!(checks
        .iter()
        .any(|c| c.rule == scenario_ratios::validate::Rule::HighlightsMatchResults && c.passed));
}

/// A sentence that states a direction ("gives up", "above its own Offline rate") asks for a
/// value that exists only when the data go that way: data that go the other way fail the build
/// with the reason, instead of publishing a false sentence.
#[test]
fn prose_that_states_a_direction_fails_when_the_data_turn() {
    let mut inputs = common::fixture_inputs("base");
    // GB200 gpt-oss-120b: Server 5100 → 4900 (below its 5000 Offline) in both files.
    for f in inputs.files.iter_mut().take(2) {
        let text = String::from_utf8(f.bytes.clone()).unwrap();
        let changed = text.replacen("\"5100.0\"", "\"4900.0\"", 1).replacen(
            "\"Result\": 5100.0",
            "\"Result\": 4900.0",
            1,
        );
        assert_ne!(text, changed);
        f.bytes = changed.into_bytes();
    }
    let computed = pipeline::compute(common::project(), &inputs).unwrap();
    let err = pipeline::render(&computed).unwrap_err().to_string();
    let prose = std::fs::read_to_string(common::root().join("content/article.md")).unwrap();
    let line = 1 + prose
        .lines()
        .position(|l| l.contains("{{hl.gb200_gptoss.gain}}"))
        .expect("the prose uses the gain");
    assert_eq!(
        err,
        format!("content/article.md: line {line}: placeholder {{{{hl.gb200_gptoss.gain}}}} has no value here: GB200 NVL72 · gpt-oss-120b's Server rate is not above its Offline rate")
    );
}

/// A screen reader hears figure 1 through its description: every bar is named by organisation,
/// platform and model, so two bars of one model on different systems are told apart.
#[test]
fn figure_1_describes_each_bar_by_its_system_and_model() {
    let d = build("base");
    let results: serde_json::Value =
        serde_json::from_slice(d.get("results.json").unwrap()).unwrap();
    let highlights = results["highlights"].as_array().unwrap();
    for file in ["article.html", "scenario-ratios.svg"] {
        let svg = text(&d, file);
        let start = svg.find("-desc\">").unwrap() + "-desc\">".len();
        let desc = &svg[start..start + svg[start..].find("</desc>").unwrap()];
        let bars: Vec<&str> = desc
            .split_once("Offline rate. ")
            .unwrap()
            .1
            .trim_end_matches('.')
            .split("; ")
            .map(|b| b.rsplit_once(": ").unwrap().0)
            .collect();
        assert_eq!(bars.len(), highlights.len(), "{file}: {desc}");
        let distinct: std::collections::BTreeSet<_> = bars.iter().collect();
        assert_eq!(
            distinct.len(),
            bars.len(),
            "{file}: bars named alike: {desc}"
        );
        for h in highlights {
            let pair = results["pairs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["offline_id"] == h["offline_id"])
                .unwrap();
            let name = format!(
                "{} {}, {}",
                pair["organization"].as_str().unwrap(),
                pair["platform"].as_str().unwrap(),
                pair["model"].as_str().unwrap()
            );
            assert!(bars.contains(&name.as_str()), "{file}: {name} in {desc}");
        }
    }
}
