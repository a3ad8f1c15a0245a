//! The published page in a real browser and a real HTML checker. Debian's chromium, driven by
//! puppeteer-core (tests/browser/article-check.mjs), loads the built article at twelve widths
//! from 320 to 1440 px, light, and at 390 and 1280 px also dark. On a 390 × 844 phone the first
//! screen holds the first highlighted number and the top of figure 1. At every width, with every
//! <details> open, axe-core must find no violation, the page must never scroll sideways (a wide
//! table scrolls inside its own focusable, labelled region), each displayed figure must fit its
//! column with every label inside the drawing, at least 10 CSS px and 4.5:1 against what is under
//! it, no chart line may cross a label, and the page must log nothing and request nothing.
//! Printed, closed <details> must show their content and links their addresses; the PDF's own
//! text is checked with pdftotext: every SHA-256 the page shows is printed whole (no column cut
//! off at the page's edge), and no page but the last is left mostly empty. The Nu Html Checker
//! must report no error for the page and both SVGs. Screenshots and the PDF are kept under
//! target/browser/.

use std::process::Command;

use crate::support;
use serde_json::Value;

#[test]
fn the_page_passes_axe_fits_phones_prints_whole_and_validates() {
    let Some(browser) = support::browser() else {
        return;
    };
    let out = support::built();
    let shots = support::root().join("target/browser");
    let article = out.join("article.html");
    let report = browser.run(
        "article-check.mjs",
        &[article.to_str().unwrap(), shots.to_str().unwrap()],
    );
    let r: Value = serde_json::from_str(report.trim()).unwrap();
    let views = r["views"].as_array().unwrap();
    let widths: Vec<u64> = views.iter().map(|v| v["width"].as_u64().unwrap()).collect();
    assert_eq!(
        widths,
        [320, 360, 390, 390, 480, 600, 641, 700, 760, 761, 768, 900, 1024, 1280, 1280, 1440],
        "every width, 390 and 1280 px also dark"
    );
    // The finding is on a phone's first screen: the first highlighted number and the top of
    // figure 1 within 844 px.
    let phone = views
        .iter()
        .find(|v| v["width"] == 390 && v["height"] == 844)
        .unwrap();
    assert!(
        phone["first_value"].as_str().unwrap().ends_with('%'),
        "{phone}"
    );
    assert!(
        phone["first_value_bottom"].as_u64().unwrap() <= 844,
        "{phone}"
    );
    assert!(phone["figure_1_top"].as_u64().unwrap() < 844, "{phone}");
    for v in views {
        let at = format!("{} px {}", v["width"], v["scheme"]);
        println!(
            "{at}: page {} px tall, first number ends at {} px, figure 1 starts at {} px",
            v["page_height"], v["first_value_bottom"], v["figure_1_top"]
        );
        for region in v["scrolling_regions"].as_array().unwrap() {
            assert_eq!(
                region["ok"], true,
                "a scrolling table that is not a focusable, labelled region at {at}: {region}"
            );
        }
        assert_eq!(v["axe"], serde_json::json!([]), "axe at {at}");
        assert_eq!(
            v["document_width"], v["viewport"],
            "sideways scroll at {at}"
        );
        assert_eq!(v["overflowing"], serde_json::json!([]), "overflow at {at}");
        assert_eq!(
            v["labels_cut"],
            serde_json::json!([]),
            "reflowed labels cut at {at}"
        );
        assert_eq!(v["console"], serde_json::json!([]), "console at {at}");
        assert_eq!(v["requests"], serde_json::json!([]), "network at {at}");
        let figures = v["figures"].as_array().unwrap();
        assert_eq!(figures.len(), 2, "both figures shown at {at}");
        // The narrow drawings serve up to 760 px (templates/article.html).
        let narrow = v["width"].as_u64().unwrap() <= 760;
        for f in figures {
            let id = f["id"].as_str().unwrap();
            assert_eq!(id.contains("n-title"), narrow, "the layout for {at}: {id}");
            assert!(
                f["width"].as_f64() <= f["container"].as_f64(),
                "{id} fits at {at}"
            );
            // Neither too small to read nor, scaled up, larger than the body's text.
            let smallest = f["smallest_label_px"].as_f64().unwrap();
            assert!(
                (10.0..=16.0).contains(&smallest),
                "{id} at {at}: smallest label {} px ({})",
                f["smallest_label_px"],
                f["smallest_label"]
            );
            assert_eq!(f["labels_outside"], serde_json::json!([]), "{id} at {at}");
            assert_eq!(
                f["lines_crossing_labels"],
                serde_json::json!([]),
                "{id} at {at}: a chart line crosses a label"
            );
            assert_eq!(f["low_contrast"], serde_json::json!([]), "{id} at {at}");
            assert!(
                f["lowest_contrast"].as_f64().unwrap() >= 4.5,
                "{id} at {at}: {f}"
            );
        }
        assert!(
            std::fs::metadata(v["screenshot"].as_str().unwrap())
                .unwrap()
                .len()
                > 10_000
        );
    }

    // The standalone SVGs carry their own background: opened directly, in either colour
    // scheme, every label keeps at least 4.5:1 against what is drawn under it.
    let standalone = r["standalone"].as_array().unwrap();
    assert_eq!(standalone.len(), 4, "2 figures × 2 colour schemes");
    for s in standalone {
        assert_eq!(s["low_contrast"], serde_json::json!([]), "{s}");
        assert!(s["lowest_contrast"].as_f64().unwrap() >= 4.5, "{s}");
    }

    // Print: closed <details> show their content, links their addresses.
    let p = &r["print"];
    assert!(p["closed_details"].as_u64().unwrap() >= 3, "{p}");
    assert_eq!(p["details_hidden_in_print"], serde_json::json!([]), "{p}");
    assert_eq!(
        p["link_after"], "\" <https://arxiv.org/abs/1911.02549>\"",
        "{p}"
    );
    assert!(
        p["relative_link_after"]
            .as_str()
            .unwrap()
            .contains("https://aryanputta.com/articles/server-offline-ratio/pairs.csv"),
        "{p}"
    );
    // The PDF itself holds what the closed <details> hold: the last pair's system, the last
    // input's name, the last check's numbers.
    let pdf = p["pdf"].as_str().unwrap();
    let text = Command::new("pdftotext")
        .args(["-layout", pdf, "-"])
        .output()
        .expect("pdftotext runs (apt-get install poppler-utils; scripts/test installs it)");
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let results: Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let last_pair = results["pairs"].as_array().unwrap().last().unwrap();
    let system = last_pair["system_name"].as_str().unwrap();
    let first_word = system.split_whitespace().next().unwrap();
    assert!(
        text.contains(first_word),
        "the all-pairs table is printed ({system})"
    );
    assert!(text.contains(&last_pair["server_id"].as_str().unwrap().to_string()));
    assert!(text.contains("summary.json"), "the inputs table is printed");
    assert!(
        text.contains("@online{"),
        "the BibTeX entry, in a closed <details>, is printed"
    );
    assert!(
        text.contains("https://arxiv.org/abs/1911.02549"),
        "link addresses are printed"
    );

    // Nothing is cut off at the page's edge: every pinned input's SHA-256 (the inputs table's
    // last column) and every download's is in the PDF, read in content order.
    let raw = Command::new("pdftotext")
        .args(["-raw", pdf, "-"])
        .output()
        .unwrap();
    let raw: String = String::from_utf8_lossy(&raw.stdout)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let provenance: Value =
        serde_json::from_slice(&std::fs::read(out.join("provenance.json")).unwrap()).unwrap();
    let pinned: Vec<&str> = provenance["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["sha256"].as_str().unwrap())
        .collect();
    assert!(pinned.len() > 10);
    for h in pinned {
        assert!(raw.contains(h), "input SHA-256 {h} is printed whole");
    }
    for f in [
        "reproducibility.zip",
        "results.json",
        "pairs.csv",
        "analysis.py",
    ] {
        let sum = Command::new("sha256sum").arg(out.join(f)).output().unwrap();
        let sum = String::from_utf8_lossy(&sum.stdout);
        let h = sum.split_whitespace().next().unwrap();
        assert!(raw.contains(h), "the SHA-256 of {f} is printed whole");
    }
    // No page but the last is left half empty: the lines of text cover at least 30 % of each
    // page's height (a full page of prose or tables covers 40-60 %).
    let bbox = Command::new("pdftotext")
        .args(["-bbox", pdf, "-"])
        .output()
        .unwrap();
    let coverage = page_coverage(&String::from_utf8_lossy(&bbox.stdout));
    assert!(coverage.len() >= 5, "{coverage:?}");
    for (i, c) in coverage[..coverage.len() - 1].iter().enumerate() {
        assert!(
            *c >= 0.30,
            "page {} of the PDF is left mostly empty ({:.0} % of its height holds text): {coverage:?}",
            i + 1,
            c * 100.0
        );
    }

    // The Nu Html Checker: no error in the page or the standalone figures.
    let vnu = browser
        .scripts
        .join("node_modules/vnu-jar/build/dist/vnu.jar");
    for (file, extra) in [
        ("article.html", None),
        ("scenario-ratios.svg", Some("--svg")),
        ("ratios-by-model.svg", Some("--svg")),
    ] {
        let o = Command::new("java")
            .arg("-jar")
            .arg(&vnu)
            .args(["--errors-only", "--exit-zero-always"])
            .args(extra)
            .arg(out.join(file))
            .output()
            .expect("java runs the Nu Html Checker (apt-get install default-jre-headless; scripts/test installs it)");
        let messages = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{file}: {messages}");
        assert_eq!(messages.trim(), "", "Nu Html Checker on {file}");
    }
    println!("screenshots and the printed PDF: {}", shots.display());
}

/// For each page of `pdftotext -bbox` output, the share of its height covered by words (the
/// union of their vertical extents).
fn page_coverage(bbox: &str) -> Vec<f64> {
    let attr = |tag: &str, name: &str| -> f64 {
        let at = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        tag[at..at + tag[at..].find('"').unwrap()].parse().unwrap()
    };
    let mut pages = Vec::new();
    for page in bbox.split("<page ").skip(1) {
        let height = attr(page, "height");
        let mut spans: Vec<(f64, f64)> = page
            .split("<word ")
            .skip(1)
            .map(|w| (attr(w, "yMin"), attr(w, "yMax")))
            .collect();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut covered, mut end) = (0.0, f64::MIN);
        for (lo, hi) in spans {
            if hi > end {
                covered += hi - lo.max(end);
                end = hi;
            }
        }
        pages.push(covered / height);
    }
    pages
}

/// The detectors are not vacuous: a page with a remote image, a figure too wide for a phone, an
/// unlabelled form field and a reflowed cell too short for its label is caught by each of them.
#[test]
fn the_browser_checks_catch_a_bad_page() {
    let Some(browser) = support::browser() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html lang=\"en\"><head><title>bad</title><meta name=\"viewport\" content=\"width=device-width\"></head><body>\
         <main><img src=\"http://127.0.0.1:9/x.png\" alt=\"x\"><input type=\"text\">\
         <figure><div><svg viewBox=\"0 0 760 100\" width=\"760\" height=\"100\" aria-labelledby=\"t\"><title id=\"t\">t</title><text x=\"5\" y=\"50\" font-size=\"6\">tiny</text><line x1=\"6\" x2=\"6\" y1=\"40\" y2=\"55\" stroke=\"#000\" class=\"grid\"/><text x=\"5\" y=\"80\" font-size=\"14\" fill=\"#dddddd\">faint</text></svg></div></figure>\
         <div style=\"overflow-x:auto\"><div style=\"width:2000px\">a wide table, scrolling in an unlabelled box</div></div>\
         <details id=\"closed\"><summary>s</summary><table><tr><td>hidden</td></tr></table></details>\
         <style>td.r{display:block;position:relative;padding-left:60px}td.r::before{content:attr(data-label);position:absolute;left:0;width:50px}</style>\
         <table><tr><td class=\"r\" data-label=\"Log rate ≈ summary of the row\">1</td></tr></table></main></body></html>",
    )
    .unwrap();
    // A standalone figure whose dark style lightens its text but draws no background of its
    // own (the fault of issue 11): light on the white a browser gives a file.
    std::fs::write(
        tmp.path().join("scenario-ratios.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 200 40\" width=\"200\" height=\"40\">\
         <style>text{fill:#1f2328}@media (prefers-color-scheme:dark){text{fill:#e6edf3}}</style>\
         <text x=\"5\" y=\"25\" font-size=\"14\">label</text></svg>",
    )
    .unwrap();
    let report = browser.run(
        "article-check.mjs",
        &[
            bad.to_str().unwrap(),
            tmp.path().join("shots").to_str().unwrap(),
        ],
    );
    let r: Value = serde_json::from_str(report.trim()).unwrap();
    let phone = &r["views"][0];
    assert!(
        phone["axe"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["id"] == "label"),
        "{phone}"
    );
    assert_ne!(
        phone["document_width"], phone["viewport"],
        "the 760 px figure overflows"
    );
    assert_eq!(
        phone["requests"],
        serde_json::json!(["http://127.0.0.1:9/x.png"])
    );
    assert!(phone["figures"][0]["smallest_label_px"].as_f64().unwrap() < 10.0);
    assert!(
        phone["figures"][0]["low_contrast"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("faint: 1.")),
        "{phone}"
    );
    assert!(
        phone["figures"][0]["lines_crossing_labels"][0]
            .as_str()
            .is_some_and(|l| l.contains("tiny")),
        "{phone}"
    );
    assert_eq!(
        phone["scrolling_regions"][0]["ok"], false,
        "a box that scrolls sideways without role, tabindex and label: {phone}"
    );
    // Without print styles a closed <details> prints its summary only.
    assert_eq!(
        r["print"]["details_hidden_in_print"],
        serde_json::json!(["closed"])
    );
    let standalone = r["standalone"].as_array().unwrap();
    let scheme = |s: &str| standalone.iter().find(|v| v["scheme"] == s).unwrap();
    assert_eq!(scheme("light")["low_contrast"], serde_json::json!([]));
    assert!(
        scheme("dark")["low_contrast"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("label: 1.")),
        "{standalone:?}"
    );
    assert!(
        phone["labels_cut"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("Log rate ≈ summary of the row:")),
        "{phone}"
    );
}
