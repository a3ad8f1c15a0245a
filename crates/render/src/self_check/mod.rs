//! The build checks its own output before publishing it. Any failed
//! check stops the build, and the report is written to `qa/validation.json`.
//!
//! The article is checked on the tree its tags write ([`page`]), never by searching its text: no executable script (a JSON-LD data block is the one script
//! element allowed), no refresh, no event-handler attribute, no `javascript:` or `data:` link, no
//! protocol-relative or backslash URL, nothing loaded from anywhere; a strict Content-Security-
//! Policy; every element closed in order and every `id` given once; both SVGs well-formed; the
//! bundle's entry names safe and inventoried; SHA256SUMS covering every other file. The outcome is
//! published as `qa/validation.json` ([`report`]).

use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;

use ratios_base::archive::{self, BUNDLE_LIMITS};
use ratios_base::dist::Dist;
use ratios_base::inventory::{self, Discrepancy};
use ratios_base::layout::{OutputFile, INVENTORY};

pub mod page;
pub mod prose;
pub mod report;

use page::{broken_links, policy_problems};
pub use page::{csp_problems, page_problems, rendered_values, scan, PageScan};

/// One rule the output must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `page-safe`: the page's tree holds no executable script, refresh, event handler,
    /// `javascript:`, `data:` or protocol-relative link, and loads nothing.
    PageSafe(OutputFile),
    /// `csp-strict`: the page has one Content-Security-Policy `<meta>`, `default-src 'none'`,
    /// with no script source.
    CspStrict(OutputFile),
    /// `svg-well-formed`: the standalone figure parses as XML, is an `<svg role="img">` with a
    /// `<title>` and a `<desc>`, and holds no script.
    SvgWellFormed(OutputFile),
    /// `highlights-match-results`: every value the article renders that `results.json`
    /// determines equals it, and figure 3 draws every highlighted ratio.
    HighlightsMatchResults,
    /// `bundle-names-safe`: the bundle's entry names are unique, relative without `..`, and
    /// each listed in its `INVENTORY.sha256`.
    BundleNamesSafe,
    /// `sha256sums-cover-output`: SHA256SUMS lists every other published file, and nothing else.
    SumsCoverOutput,
    /// `links-resolve`: every `#fragment` names an element of its page, every relative link a
    /// published file, and the article links every published file.
    LinksResolve(OutputFile),
    /// `page-well-formed`: every element of the page is closed in order and every `id` given
    /// once.
    PageWellFormed(OutputFile),
    /// The narrative's sentences and length within the limits of [`prose`].
    Readable(OutputFile),
}

/// The article's rules are named alone; the data page's carry its name.
fn page_rule(f: &mut fmt::Formatter<'_>, rule: &str, file: &OutputFile) -> fmt::Result {
    match file {
        OutputFile::Article => f.write_str(rule),
        other => write!(f, "{rule} {}", other.path()),
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::PageSafe(file) => page_rule(f, "page-safe", file),
            Rule::CspStrict(file) => page_rule(f, "csp-strict", file),
            Rule::SvgWellFormed(file) => write!(f, "svg-well-formed {}", file.path()),
            Rule::HighlightsMatchResults => f.write_str("highlights-match-results"),
            Rule::BundleNamesSafe => f.write_str("bundle-names-safe"),
            Rule::SumsCoverOutput => f.write_str("sha256sums-cover-output"),
            Rule::LinksResolve(file) => page_rule(f, "links-resolve", file),
            Rule::PageWellFormed(file) => page_rule(f, "page-well-formed", file),
            Rule::Readable(file) => page_rule(f, "readable", file),
        }
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The outcome of one rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    /// The rule checked, written by its name (`page-safe`, `links-resolve data.html`).
    pub rule: Rule,
    /// Whether the output meets it; one failed rule stops the build.
    pub passed: bool,
    /// What was found: on a pass, what the rule verified (with its counts); on a failure,
    /// every problem, joined by `; `.
    pub detail: String,
}

fn outcome(rule: Rule, problems: Vec<String>, ok_detail: &str) -> Validation {
    Validation {
        rule,
        passed: problems.is_empty(),
        detail: if problems.is_empty() {
            ok_detail.to_string()
        } else {
            problems.join("; ")
        },
    }
}

/// The outcome of `rule` on a page: what `check` finds in it, or why it could not be read.
fn of_page(
    rule: Rule,
    page: &Result<PageScan, String>,
    check: impl FnOnce(&PageScan) -> (Vec<String>, String),
) -> Validation {
    match page {
        Err(e) => outcome(rule, vec![e.clone()], ""),
        Ok(page) => {
            let (problems, detail) = check(page);
            outcome(rule, problems, &detail)
        }
    }
}

fn text(dist: &Dist, file: OutputFile) -> Result<&str, String> {
    let bytes = dist
        .get(file.path())
        .ok_or_else(|| format!("{} is missing", file.path()))?;
    std::str::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", file.path()))
}

fn svg_problems(file: OutputFile, source: &str) -> Vec<String> {
    let name = file.path();
    match roxmltree::Document::parse(source) {
        Err(e) => vec![format!("{name}: not well-formed XML: {e}")],
        Ok(doc) => {
            let root = doc.root_element();
            let mut p = Vec::new();
            if root.tag_name().name() != "svg" {
                p.push(format!("{name}: root element is not <svg>"));
            }
            if root.attribute("role") != Some("img") {
                p.push(format!("{name}: no role=\"img\""));
            }
            for child in ["title", "desc"] {
                if !root.children().any(|c| c.tag_name().name() == child) {
                    p.push(format!("{name}: no <{child}>"));
                }
            }
            if doc.descendants().any(|n| {
                n.tag_name().name().eq_ignore_ascii_case("script")
                    || n.attributes()
                        .any(|a| a.name().to_ascii_lowercase().starts_with("on"))
            }) {
                p.push(format!("{name}: holds a script or an event handler"));
            }
            p
        }
    }
}

/// The static checks of the build output. `will_be_summed` lists the files SHA256SUMS will cover.
pub fn validate(dist: &Dist, will_be_summed: &BTreeSet<String>) -> Vec<Validation> {
    // The bundle's listing (a 4,400-entry directory and its inventory) is checked on a second
    // core while the pages and the figures are.
    let bundle = OutputFile::Bundle.path();
    let pages = [OutputFile::Article, OutputFile::DataPage];
    let (mut out, scans, listing) = std::thread::scope(|scope| {
        let listing = scope.spawn(|| dist.get(bundle).map(bundle_listing_problems));
        let mut out = Vec::new();
        let scans: Vec<(OutputFile, Result<PageScan, String>)> = pages
            .iter()
            .map(|&file| {
                (
                    file,
                    text(dist, file).map(|html| page::scan_page(html, file)),
                )
            })
            .collect();
        for (file, page) in &scans {
            out.push(of_page(Rule::PageSafe(*file), page, |page| {
                (
                    page.problems.clone(),
                    "the page's tree holds no executable script, refresh, event handler, javascript:/data: or protocol-relative link, and nothing loaded".into(),
                )
            }));
            out.push(of_page(Rule::CspStrict(*file), page, |page| {
                (
                    policy_problems(&page.policies),
                    "one Content-Security-Policy <meta>, default-src 'none', no script source"
                        .into(),
                )
            }));
        }
        for file in [OutputFile::FigureHighlights, OutputFile::FigurePairs] {
            let problems = match text(dist, file) {
                Err(e) => vec![e],
                Ok(s) => svg_problems(file, s),
            };
            out.push(outcome(
                Rule::SvgWellFormed(file),
                problems,
                "parses as XML; <svg role=\"img\"> with <title> and <desc>; no script",
            ));
        }
        let article = &scans[0].1;
        out.push(highlights_match_results(
            dist,
            article.as_ref().map(|p| p.values.as_slice()),
        ));
        let listing = listing.join().unwrap_or_else(|_| {
            Some((
                0,
                vec!["the check of the bundle's listing failed".to_string()],
            ))
        });
        (out, scans, listing)
    });
    out.push(match listing {
        None => outcome(
            Rule::BundleNamesSafe,
            vec![format!("{bundle} is missing")],
            "",
        ),
        Some((n, problems)) => outcome(
            Rule::BundleNamesSafe,
            problems,
            &format!("{n} entries, unique and relative without `..`, each listed in {INVENTORY}"),
        ),
    });

    let files: BTreeSet<String> = dist
        .files()
        .map(|(p, _)| p.to_string())
        .chain([OutputFile::Validation.path().to_string()])
        .collect();
    let missing: Vec<String> = files
        .symmetric_difference(will_be_summed)
        .map(|p| format!("{p} not covered"))
        .collect();
    let published: BTreeSet<String> = files
        .iter()
        .cloned()
        .chain([OutputFile::Sums.path().to_string()])
        .collect();
    // The ids of each page, for a link from one page to a section of the other.
    let ids: Vec<(&str, &BTreeSet<String>)> = scans
        .iter()
        .filter_map(|(file, page)| Some((file.path(), &page.as_ref().ok()?.ids)))
        .collect();
    for (file, page) in &scans {
        let article = *file == OutputFile::Article;
        out.push(of_page(Rule::LinksResolve(*file), page, |page| {
            (
                broken_links(page, &published, &ids, article),
                format!(
                    "{} links; every #fragment names an element of its page, every relative link a published file{}",
                    page.links.len(),
                    if article {
                        ", every published file is linked"
                    } else {
                        ""
                    }
                ),
            )
        }));
        out.push(of_page(Rule::PageWellFormed(*file), page, |page| {
            (
                page.structure.clone(),
                format!(
                    "every element closed in order, {} ids each given once",
                    page.ids.len()
                ),
            )
        }));
        // Only the article has a narrative; every sentence of either page is held to the
        // page's limit.
        out.push(of_page(Rule::Readable(*file), page, |page| {
            let units: Vec<prose::Unit> = page
                .prose
                .iter()
                .map(|u| prose::Unit {
                    narrative: u.narrative && article,
                    text: u.text.clone(),
                })
                .collect();
            let (figures, problems) = prose::check(&units);
            let detail = match figures {
                Some(f) => format!(
                    "narrative: {} words, {} sentences, {:.1} words a sentence, the longest {}, {} over 30; Flesch-Kincaid grade {:.1}",
                    f.words, f.sentences, f.mean_words, f.longest, f.over_30, f.flesch_kincaid_grade
                ),
                None => format!(
                    "no sentence longer than {} words",
                    prose::PAGE_LONGEST
                ),
            };
            (problems, detail)
        }));
    }
    out.push(outcome(
        Rule::SumsCoverOutput,
        missing,
        &format!(
            "{} lists all {} other files",
            OutputFile::Sums.path(),
            files.len()
        ),
    ));
    out
}

/// The values results.json implies for the prose's placeholders, formatted as the article formats
/// them: each highlight's ratio (and its loss or gain), the span, and the counts.
fn expected_values(results: &serde_json::Value) -> Result<Vec<(String, String)>, String> {
    use ratios_base::number::{percent, points};
    let mut expected = Vec::new();
    let highlights = results["highlights"]
        .as_array()
        .filter(|h| !h.is_empty())
        .ok_or("results.json has no highlights")?;
    for h in highlights {
        let (Some(id), Some(ratio)) = (h["id"].as_str(), h["ratio"].as_f64()) else {
            return Err(format!("highlight {} has no id or ratio", h["label"]));
        };
        let pct = ratio * 100.0;
        expected.push((format!("hl.{id}.ratio"), percent(ratio)));
        expected.push((
            format!("hl.{id}.loss"),
            ratios_base::number::percent_value(100.0 - pct),
        ));
        expected.push((
            format!("hl.{id}.gain"),
            ratios_base::number::percent_value(pct - 100.0),
        ));
    }
    if let Some(span) = results["span_pp"].as_f64() {
        expected.push(("span_pp".into(), points(span)));
    }
    if let Some(round) = results["round"].as_str() {
        expected.push(("round".into(), round.into()));
    }
    // The range of all ratios, and the lowest and highest per-benchmark medians (results.json
    // orders the benchmarks by median).
    let ratios: Vec<f64> = results["pairs"]
        .as_array()
        .map(|p| p.iter().filter_map(|p| p["ratio"].as_f64()).collect())
        .unwrap_or_default();
    if let (Some(min), Some(max)) = (
        ratios.iter().copied().reduce(f64::min),
        ratios.iter().copied().reduce(f64::max),
    ) {
        expected.push(("all_min".into(), percent(min)));
        expected.push(("all_max".into(), percent(max)));
    }
    let benchmarks = results["benchmarks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (end, b) in [("low", benchmarks.first()), ("high", benchmarks.last())] {
        if let (Some(name), Some(median)) = (
            b.and_then(|b| b["benchmark"].as_str()),
            b.and_then(|b| b["median"].as_f64()),
        ) {
            expected.push((format!("median_{end}"), percent(median)));
            expected.push((format!("median_{end}_benchmark"), name.into()));
        }
    }
    // The counts, the Interactive pairing, the robustness figures and the other systems' order.
    for (name, pointer) in [
        ("rows", "/counts/rows"),
        ("closed", "/counts/closed"),
        ("open", "/counts/open"),
        ("eligible", "/counts/eligible"),
        ("pairs", "/counts/pairs"),
        ("unmatched", "/counts/unmatched"),
        ("over_100", "/counts/over_100"),
        ("interactive_rows", "/interactive/counts/interactive_rows"),
        ("interactive_inferred", "/interactive/counts/inferred"),
        ("interactive_pairs", "/interactive/counts/pairs"),
        ("interactive_unmatched", "/interactive/counts/unmatched"),
        ("cpu_pairs", "/robustness/cpu_only_pairs"),
        ("agree_systems", "/agreement/systems"),
        ("agree_same_order", "/agreement/same_order"),
        ("agree_same_lowest", "/agreement/same_lowest"),
    ] {
        if let Some(n) = results.pointer(pointer).and_then(serde_json::Value::as_u64) {
            expected.push((name.into(), n.to_string()));
        }
    }
    let ipairs = results["interactive"]["pairs"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for h in highlights {
        let (Some(id), Some(offline)) = (h["id"].as_str(), h["offline_id"].as_str()) else {
            continue;
        };
        if let Some(r) = ipairs
            .iter()
            .find(|p| p["offline_id"].as_str() == Some(offline))
            .and_then(|p| p["ratio"].as_f64())
        {
            expected.push((format!("hl.{id}.interactive_ratio"), percent(r)));
        }
    }
    let robustness = &results["robustness"];
    for (name, field) in [
        ("noise_median", "median_spread_pp"),
        ("noise_max", "max_spread_pp"),
    ] {
        if let Some(x) = robustness["noise"][field].as_f64() {
            expected.push((name.into(), points(x)));
        }
    }
    if let Some(n) = robustness["noise"]["groups"].as_array().map(Vec::len) {
        expected.push(("noise_groups".into(), n.to_string()));
    }
    Ok(expected)
}

/// Every value the article renders that results.json determines must equal it (so a wrong lede
/// fails the build, wherever else the number appears), and every highlighted percentage must be
/// drawn in figure 3.
fn highlights_match_results(
    dist: &Dist,
    rendered: std::result::Result<&[(String, String)], &String>,
) -> Validation {
    let mut problems = Vec::new();
    let mut compared = 0;
    let parsed = text(dist, OutputFile::Results).and_then(|t| {
        serde_json::from_str::<serde_json::Value>(t).map_err(|e| format!("results.json: {e}"))
    });
    match (parsed.and_then(|r| expected_values(&r)), rendered) {
        (Err(e), _) => problems.push(e),
        (_, Err(e)) => problems.push(e.clone()),
        (Ok(expected), Ok(rendered)) => {
            for (name, shown) in rendered {
                // A `name|whole` value is the named value with its numbers rounded.
                let (base, whole) = ratios_base::number::without_whole(name);
                if let Some((_, want)) = expected.iter().find(|(n, _)| n == base) {
                    compared += 1;
                    let want = ratios_base::number::shown(want, whole);
                    if shown.trim() != want.as_str() {
                        problems.push(format!(
                            "{{{{{name}}}}} shows {shown:?} but results.json gives {want:?}"
                        ));
                    }
                }
            }
            if compared == 0 {
                problems.push("the article renders no value that results.json determines".into());
            }
            let figure = text(dist, OutputFile::FigureHighlights).unwrap_or_default();
            for (name, want) in expected.iter().filter(|(n, _)| n.ends_with(".ratio")) {
                if !figure.contains(want.as_str()) {
                    problems.push(format!("{want} ({name}) is not drawn in figure 3"));
                }
            }
        }
    }
    outcome(
        Rule::HighlightsMatchResults,
        problems,
        &format!("{compared} rendered values equal results.json; every highlighted ratio is drawn in figure 3"),
    )
}

/// Checks the bundle's entry names from its raw central directory (unique, safe, within the
/// limits, all in the bundle's folder and at most 160 characters long) and that the inventory
/// lists each of them; the other entries' data are checked by `verify`.
fn bundle_listing_problems(bytes: &[u8]) -> (usize, Vec<String>) {
    let entries = match archive::central_directory(bytes, &BUNDLE_LIMITS) {
        Ok(e) => e,
        Err(problems) => return (0, problems),
    };
    let root = ratios_base::layout::bundle_root();
    let inventory_name = format!("{root}{INVENTORY}");
    let inventory = match archive::read_entry(bytes, &entries, &inventory_name) {
        Ok(i) => i,
        Err(p) => return (entries.len(), p),
    };
    let Some(inventory) = inventory.and_then(|b| String::from_utf8(b).ok()) else {
        return (entries.len(), vec![format!("no readable {inventory_name}")]);
    };
    let listed = match ratios_base::sums::parse_sums(&inventory_name, &inventory) {
        Ok(l) => l,
        Err(p) => return (entries.len(), p.into_lines()),
    };
    // The entries by name, the inventory aside; the central directory gives no digests.
    let names: std::collections::BTreeMap<&str, Option<&ratios_base::digest::HexDigest>> = entries
        .iter()
        .filter(|e| e.name != inventory_name)
        .map(|e| (e.name.as_str(), None))
        .collect();
    let mut problems = Vec::new();
    let mut unlisted = Vec::new();
    for d in inventory::compare(&root, &inventory_name, &listed, &names) {
        match d {
            Discrepancy::Absent(p) => {
                problems.push(format!("{root}{p}: listed in the inventory but absent"))
            }
            Discrepancy::Unlisted(name) => unlisted.push(format!("{name}: not in the inventory")),
            // Without digests, no entry can differ from its line.
            Discrepancy::Mismatch { .. } => {}
        }
    }
    problems.sort();
    unlisted.sort();
    problems.append(&mut unlisted);
    (entries.len(), problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_listing_must_match_its_inventory_both_ways() {
        use std::io::Write;
        let root = ratios_base::layout::bundle_root();
        let sum = ratios_base::digest::HexDigest::sha256(b"x");
        // `stray.txt` is listed, and an entry of that name exists, but outside the folder.
        let inventory = format!("{sum}  a.txt\n{sum}  c.txt\n{sum}  stray.txt\n");
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, body) in [
            (format!("{root}a.txt"), "x"),
            (format!("{root}b.txt"), "x"),
            ("stray.txt".to_string(), "x"),
            (format!("{root}{INVENTORY}"), inventory.as_str()),
        ] {
            w.start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(body.as_bytes()).unwrap();
        }
        let zip = w.finish().unwrap().into_inner();
        assert_eq!(
            bundle_listing_problems(&zip),
            (
                4,
                vec![
                    format!("{root}c.txt: listed in the inventory but absent"),
                    format!("{root}stray.txt: listed in the inventory but absent"),
                    format!("{root}b.txt: not in the inventory"),
                    "stray.txt: not in the inventory".to_string(),
                ]
            )
        );
    }

    #[test]
    fn the_values_results_json_determines_include_the_round_range_and_medians() {
        let results = serde_json::json!({
            "round": "v6.1",
            "highlights": [{"id": "a", "ratio": 0.8536, "label": "A"}],
            "pairs": [{"ratio": 0.5}, {"ratio": 1.02}, {"ratio": 0.75}],
            "benchmarks": [{"benchmark": "x", "median": 0.8}, {"benchmark": "y", "median": 0.9}],
            "counts": {"pairs": 3},
        });
        let expected = expected_values(&results).unwrap();
        // Percentages are joined to their sign by a no-break space.
        let expected: Vec<(String, String)> = expected
            .into_iter()
            .map(|(n, v)| (n, v.replace('\u{a0}', " ")))
            .collect();
        for (name, want) in [
            ("round", "v6.1"),
            ("hl.a.ratio", "85.36 %"),
            ("all_min", "50.00 %"),
            ("all_max", "102.00 %"),
            ("median_low", "80.00 %"),
            ("median_low_benchmark", "x"),
            ("median_high", "90.00 %"),
            ("median_high_benchmark", "y"),
            ("pairs", "3"),
        ] {
            assert!(
                expected.iter().any(|(n, v)| n == name && v == want),
                "{name} = {want:?} in {expected:?}"
            );
        }
    }
}
