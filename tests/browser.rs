//! The published pages in a real browser and a real HTML checker. Debian's chromium, driven by
//! puppeteer-core (tests/browser/article-check.mjs), loads the built article at fourteen widths
//! from 320 to 1440 px, light, and at 390 and 1280 px also dark; the data page at the widths
//! around its breakpoints. On a 390 × 844 phone the article's first screen holds its title, its
//! standfirst and the start of figure 1, and the whole page, its appendices closed, is at most 20
//! screens. At every width, with every <details> open, axe-core must
//! find no violation, the page must never scroll sideways (a wide table scrolls inside its own
//! focusable, labelled region), each displayed figure (the article's five, the data page's one)
//! must fit its column
//! with every label inside the drawing, at least 10 CSS px and 4.5:1 against what is under it, no
//! chart line may cross a label, and the page must log nothing and request nothing. Printed,
//! closed <details> must show their content and links their addresses; the PDFs' own text is
//! checked with pdftotext: every SHA-256 the pages show is printed whole (no column cut off at
//! the page's edge), and no page but the last is left mostly empty. The Nu Html Checker must
//! report no error for either page or either SVG. Screenshots and the PDFs are kept under
//! target/browser/. Lighthouse's scores of the pages have a binary of their own
//! (tests/lighthouse.rs); here Lighthouse only shows that it catches a bad page.

// The helpers of the integration tests (tests/integration/support/); this binary uses a few of
// them, so those it leaves unused are not reported here (the integration binary uses them all).
#[allow(dead_code, unused_imports)]
#[path = "integration/support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

/// The data page's widths: a small phone, the phone, just past the breakpoint where its tables
/// stop reflowing (640 px) and the desktop (it has no figure, so the 760 px one does not apply).
const DATA_WIDTHS: &str = "320,390,641,1280";

/// The text of a PDF as `pdftotext` reads it with `mode` (`-layout`, `-raw`, `-bbox`).
fn pdf_text(pdf: &Path, mode: &str) -> String {
    let o = Command::new("pdftotext")
        .args([mode, pdf.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext runs (apt-get install poppler-utils; scripts/test installs it)");
    assert!(o.status.success(), "pdftotext {mode} {}", pdf.display());
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_pages_pass_axe_fit_phones_print_whole_and_validate() {
    let Some(browser) = support::browser() else {
        return;
    };
    let out = support::built();
    let shots = support::root().join("target/browser");
    let article = out.join("article.html");
    let data = format!("{}:{DATA_WIDTHS}", out.join("data.html").display());
    let report = browser.check(
        "pages",
        &[shots.to_str().unwrap(), article.to_str().unwrap(), &data],
    );
    let r: Value = serde_json::from_str(report.trim()).unwrap();
    let results: Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let pages = r["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 2);
    let (article_report, data_report) = (&pages[0], &pages[1]);
    let widths = |p: &Value| -> Vec<u64> {
        p["views"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["width"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        widths(article_report),
        [320, 360, 390, 390, 480, 600, 641, 700, 760, 761, 768, 900, 1024, 1280, 1280, 1440],
        "every width, 390 and 1280 px also dark"
    );
    assert_eq!(widths(data_report), [320, 390, 390, 641, 1280, 1280]);

    // The finding is on a phone's first screen: the title and the standfirst end within 844 px,
    // and figure 1, every system, begins there.
    let phone = article_report["views"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["width"] == 390 && v["scheme"] == "light")
        .unwrap();
    for what in ["title_bottom", "standfirst_bottom", "figure_1_top"] {
        assert!(
            phone[what].as_u64().unwrap() <= 844,
            "{what} on the phone's first screen: {phone}"
        );
    }
    // The whole page, every appendix closed, is at most 20 phone screens.
    assert!(
        phone["page_height"].as_u64().unwrap() <= 20 * 844,
        "the page on a phone, appendices closed: {phone}"
    );

    for (p, figures) in [(article_report, 5), (data_report, 1)] {
        let page = p["page"].as_str().unwrap();
        for v in p["views"].as_array().unwrap() {
            let at = format!("{page} at {} px {}", v["width"], v["scheme"]);
            println!(
                "{at}: page {} px tall, title ends at {} px, standfirst at {} px, figure 1 begins at {} px",
                v["page_height"], v["title_bottom"], v["standfirst_bottom"], v["figure_1_top"]
            );
            check_view(v, &at, figures);
        }
    }

    // The standalone SVGs carry their own background: opened directly, in either colour
    // scheme, every label keeps at least 4.5:1 against what is drawn under it.
    let standalone = r["standalone"].as_array().unwrap();
    assert_eq!(standalone.len(), 4, "2 figures × 2 colour schemes");
    for s in standalone {
        assert_eq!(s["low_contrast"], json!([]), "{s}");
        assert!(s["lowest_contrast"].as_f64().unwrap() >= 4.5, "{s}");
    }

    // Print: closed <details> show their content, links their addresses (a relative link the
    // published address it stands for).
    let folder = "https://aryanputta.com/articles/server-offline-ratio/";
    for p in pages {
        let print = &p["print"];
        assert_eq!(print["details_hidden_in_print"], json!([]), "{print}");
        let link = print["link"].as_str().unwrap();
        assert_eq!(print["link_after"], format!("\" <{link}>\""), "{print}");
        let relative = print["relative_link"].as_str().unwrap();
        assert_eq!(
            print["relative_link_after"],
            format!("\" <{folder}{relative}>\""),
            "{print}"
        );
    }
    assert!(
        article_report["print"]["closed_details"].as_u64().unwrap() >= 1,
        "the article folds its BibTeX entry"
    );
    let article_pdf = Path::new(article_report["print"]["pdf"].as_str().unwrap());
    let data_pdf = Path::new(data_report["print"]["pdf"].as_str().unwrap());
    let flat = |text: String| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let article_text = flat(pdf_text(article_pdf, "-layout"));
    let data_text = flat(pdf_text(data_pdf, "-layout"));
    assert!(
        article_text.contains("@online{"),
        "the BibTeX entry, in a closed <details>, is printed"
    );
    assert!(
        article_text.contains("https://arxiv.org/abs/1911.02549"),
        "link addresses are printed"
    );
    // The data page prints its long tables whole: the last pair's system and row id.
    let last_pair = results["pairs"].as_array().unwrap().last().unwrap();
    let system = last_pair["system_name"].as_str().unwrap();
    let first_word = system.split_whitespace().next().unwrap();
    assert!(
        data_text.contains(first_word),
        "the all-pairs table is printed ({system})"
    );
    assert!(data_text.contains(last_pair["server_id"].as_str().unwrap()));
    assert!(
        data_text.contains("summary.json"),
        "the inputs table is printed"
    );

    // Nothing is cut off at the page's edge, read in content order: every hand-picked input's
    // SHA-256 and those of the pinned lists of logs (the data page's inputs table), and every
    // download's (the article's downloads table).
    let raw = |pdf: &Path| -> String {
        pdf_text(pdf, "-raw")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    let (article_raw, data_raw) = (raw(article_pdf), raw(data_pdf));
    let pins: Value =
        serde_json::from_slice(&std::fs::read(support::root().join("data/inputs.json")).unwrap())
            .unwrap();
    let mut pinned: Vec<&str> = pins["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["sha256"].as_str().unwrap())
        .collect();
    for list in pins["lists"].as_array().unwrap() {
        pinned.push(list["sha256"].as_str().unwrap());
    }
    assert!(pinned.len() > 10);
    for h in pinned {
        assert!(data_raw.contains(h), "input SHA-256 {h} is printed whole");
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
        assert!(
            article_raw.contains(h),
            "the SHA-256 of {f} is printed whole"
        );
    }
    // No page but the last is left half empty: the lines of text cover at least 30 % of each
    // page's height (a full page of prose or tables covers 40-60 %).
    for pdf in [article_pdf, data_pdf] {
        let coverage = page_coverage(&pdf_text(pdf, "-bbox"));
        assert!(coverage.len() >= 5, "{coverage:?}");
        for (i, c) in coverage[..coverage.len() - 1].iter().enumerate() {
            assert!(
                *c >= 0.30,
                "page {} of {} is left mostly empty ({:.0} % of its height holds text): {coverage:?}",
                i + 1,
                pdf.display(),
                c * 100.0
            );
        }
    }

    // The Nu Html Checker, in one run: no error in the pages or the standalone figures.
    let vnu = browser
        .scripts
        .join("node_modules/vnu-jar/build/dist/vnu.jar");
    let files = [
        "article.html",
        "data.html",
        "scenario-ratios.svg",
        "ratios-by-model.svg",
    ];
    let o = Command::new("java")
        .arg("-jar")
        .arg(&vnu)
        .args(["--errors-only", "--exit-zero-always", "--also-check-svg"])
        .args(files.map(|f| out.join(f)))
        .output()
        .expect("java runs the Nu Html Checker (apt-get install default-jre-headless; scripts/test installs it)");
    let messages = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{messages}");
    assert_eq!(messages.trim(), "", "Nu Html Checker on {files:?}");
    println!("screenshots and the printed PDFs: {}", shots.display());
}

/// One view's checks: axe, sideways scrolling, scrolling regions, reflowed labels, console and
/// network, and each of the `figures` displayed figures' fit, labels and contrast.
fn check_view(v: &Value, at: &str, figures: usize) {
    for region in v["scrolling_regions"].as_array().unwrap() {
        assert_eq!(
            region["ok"], true,
            "a scrolling table that is not a focusable, labelled region at {at}: {region}"
        );
    }
    assert_eq!(v["axe"], json!([]), "axe at {at}");
    assert_eq!(
        v["document_width"], v["viewport"],
        "sideways scroll at {at}"
    );
    assert_eq!(v["overflowing"], json!([]), "overflow at {at}");
    assert_eq!(v["labels_cut"], json!([]), "reflowed labels cut at {at}");
    assert_eq!(v["console"], json!([]), "console at {at}");
    assert_eq!(v["requests"], json!([]), "network at {at}");
    let shown = v["figures"].as_array().unwrap();
    assert_eq!(shown.len(), figures, "figures shown at {at}");
    // The narrow drawings serve up to 760 px (templates/page-style.html).
    let narrow = v["width"].as_u64().unwrap() <= 760;
    for f in shown {
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
        assert_eq!(f["labels_outside"], json!([]), "{id} at {at}");
        assert_eq!(
            f["lines_crossing_labels"],
            json!([]),
            "{id} at {at}: a chart line crosses a label"
        );
        assert_eq!(f["low_contrast"], json!([]), "{id} at {at}");
        assert!(
            f["lowest_contrast"].as_f64().unwrap() >= 4.5,
            "{id} at {at}: {f}"
        );
    }
    if let Some(shot) = v["screenshot"].as_str() {
        assert!(std::fs::metadata(shot).unwrap().len() > 10_000, "{shot}");
    }
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
/// unlabelled form field, a page without a description, chart lines across labels and a reflowed
/// cell too short for its label is caught by each of them, Lighthouse included.
#[test]
fn the_browser_checks_catch_a_bad_page() {
    let Some(browser) = support::browser() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // Beside it, a standalone figure whose dark style lightens its text but draws no background
    // of its own (the fault of issue 11): light on the white a browser gives a file.
    let bad = support::fixture("bad_page").join("bad.html");
    // Every check at once, Lighthouse's too: its accessibility and SEO audits do not depend on
    // the machine's load.
    let report = browser.check(
        "all",
        &[
            tmp.path().join("shots").to_str().unwrap(),
            &format!("{}:390", bad.display()),
        ],
    );
    let r: Value = serde_json::from_str(report.trim()).unwrap();
    let page = &r["pages"][0];
    let phone = &page["views"][0];
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
    // A path of two ticks crosses the label on one of them, not the one between them.
    assert_eq!(
        phone["figures"][0]["lines_crossing_labels"],
        json!(["grid × \"tiny\"", "ticks × \"crossed\""]),
        "{phone}"
    );
    assert_eq!(
        phone["scrolling_regions"][0]["ok"], false,
        "a box that scrolls sideways without role, tabindex and label: {phone}"
    );
    // Without print styles a closed <details> prints its summary only.
    assert_eq!(
        page["print"]["details_hidden_in_print"],
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
    // Lighthouse sees the unlabelled field and the missing description.
    let lh = &page["lighthouse"];
    assert!(
        lh["scores"]["accessibility"].as_f64().unwrap() < 1.0,
        "{lh}"
    );
    assert!(
        lh["failing"]["seo"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().starts_with("meta-description:")),
        "{lh}"
    );
}
