//! Stage 8 of the pipeline: the build checks its own output before publishing it. Any failed
//! check stops the build, and the report is written to `qa/validation.json`.
//!
//! The article is checked as a browser reads it, token by token (html5gum, a WHATWG tokenizer),
//! never by searching its text: no executable script (a JSON-LD data block is the one script
//! element allowed), no refresh, no event-handler attribute, no `javascript:` or `data:` link, no
//! protocol-relative or backslash URL, nothing loaded from anywhere; a strict Content-Security-
//! Policy; every element closed in order and every `id` given once; both SVGs well-formed; the
//! bundle's entry names safe and inventoried; SHA256SUMS covering every other file.

use std::collections::BTreeSet;
use std::fmt;

use html5gum::{Token, Tokenizer};
use serde::Serialize;

use crate::archive::{self, BUNDLE_LIMITS};
use crate::dist::Dist;
use crate::layout::{OutputFile, INVENTORY};
use crate::markup;

/// One rule the output must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    PageSafe,
    CspStrict,
    SvgWellFormed(OutputFile),
    HighlightsMatchResults,
    BundleNamesSafe,
    SumsCoverOutput,
    LinksResolve,
    PageWellFormed,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::PageSafe => f.write_str("page-safe"),
            Rule::CspStrict => f.write_str("csp-strict"),
            Rule::SvgWellFormed(file) => write!(f, "svg-well-formed {}", file.path()),
            Rule::HighlightsMatchResults => f.write_str("highlights-match-results"),
            Rule::BundleNamesSafe => f.write_str("bundle-names-safe"),
            Rule::SumsCoverOutput => f.write_str("sha256sums-cover-output"),
            Rule::LinksResolve => f.write_str("links-resolve"),
            Rule::PageWellFormed => f.write_str("page-well-formed"),
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
    pub rule: Rule,
    pub passed: bool,
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

fn text(dist: &Dist, file: OutputFile) -> Result<&str, String> {
    let bytes = dist
        .get(file.path())
        .ok_or_else(|| format!("{} is missing", file.path()))?;
    std::str::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", file.path()))
}

/// Attributes whose value is a URL a browser may follow or load.
const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "poster",
    "data",
    "cite",
    "background",
    "ping",
    "manifest",
    "codebase",
    "longdesc",
    "icon",
    "usemap",
    "lowsrc",
    "dynsrc",
    "srcset",
    "imagesrcset",
];

/// Elements that load or embed something, or change how URLs resolve.
const LOADING_ELEMENTS: &[&str] = &[
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "base",
    "img",
    "picture",
    "audio",
    "video",
    "source",
    "track",
    "portal",
    "fencedframe",
    "image",
];

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A URL as a browser sees it: without leading and trailing spaces and controls, and without
/// the tabs and newlines a browser strips anywhere inside.
fn normalised_url(value: &str) -> String {
    value
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// Why a URL in an attribute is not allowed, if it is not.
fn url_problem(attribute: &str, value: &str) -> Option<String> {
    let url = normalised_url(value);
    let lower = url.to_ascii_lowercase();
    if url.contains('\\') {
        return Some("contains a backslash (browsers read it as `/`)".into());
    }
    if url.starts_with("//") {
        return Some("is protocol-relative (`//host`)".into());
    }
    for scheme in ["javascript:", "vbscript:", "data:", "blob:", "file:"] {
        if lower.starts_with(scheme) {
            return Some(format!("uses the `{scheme}` scheme"));
        }
    }
    if attribute != "href" {
        return Some("loads a resource (only links are allowed)".into());
    }
    None
}

/// What one pass of the tokenizer finds in the page.
#[derive(Debug, Default)]
pub struct PageScan {
    /// Every way the page could run code, refresh, or load something, one line each.
    pub problems: Vec<String>,
    /// The content of each Content-Security-Policy `<meta>`.
    pub policies: Vec<String>,
    /// Each `<span data-value="name">` with its text: the values the prose shows.
    pub values: Vec<(String, String)>,
    /// Every `id` of the page, and every `<a href>` in page order.
    pub ids: BTreeSet<String>,
    pub links: Vec<String>,
    /// How the page's markup is not well formed: an `id` given twice, the first element closed
    /// out of order or never, each with its line of the page.
    pub structure: Vec<String>,
}

/// Every way `html` could run code, refresh, or load something, as one line each.
pub fn page_problems(html: &str) -> Vec<String> {
    scan(html).problems
}

/// Reads the page once, token by token, as a browser would.
pub fn scan(html: &str) -> PageScan {
    let mut problems = Vec::new();
    let mut policies = Vec::new();
    let mut values = Vec::new();
    let mut open_value: Option<(String, String)> = None;
    let mut emitter = html5gum::emitters::default::DefaultEmitter::<usize>::new_with_span();
    emitter.naively_switch_states(true);
    let mut open_script: Option<String> = None;
    let mut in_style = false;
    let mut ids = BTreeSet::new();
    let mut links = Vec::new();
    let mut structure = Vec::new();
    let mut nesting = markup::Nesting::default();
    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        match token {
            Token::StartTag(tag) => {
                let name = lossy(&tag.name).to_ascii_lowercase();
                nesting.start(&name, tag.self_closing, tag.span.start);
                if name == "span" {
                    open_value = tag
                        .attributes
                        .iter()
                        .find(|(k, _)| lossy(k) == "data-value")
                        .map(|(_, v)| (lossy(v), String::new()));
                }
                let attr = |n: &str| {
                    tag.attributes
                        .iter()
                        .find(|(k, _)| lossy(k).eq_ignore_ascii_case(n))
                        .map(|(_, v)| lossy(v))
                };
                if let Some(id) = attr("id") {
                    if ids.contains(&id) {
                        structure.push(format!(
                            "{} line {}: id {:?} is given a second time",
                            OutputFile::Article.path(),
                            markup::line_of(html, tag.span.start),
                            crate::format::excerpt(&id, 80)
                        ));
                    }
                    ids.insert(id);
                }
                if name == "a" {
                    links.extend(attr("href"));
                }
                for (key, value) in &tag.attributes {
                    let key = lossy(key).to_ascii_lowercase();
                    let value = lossy(value);
                    if key.starts_with("on") {
                        problems.push(format!("<{name}> has an event-handler attribute `{key}`"));
                    }
                    if URL_ATTRIBUTES.contains(&key.as_str()) {
                        if let Some(why) = url_problem(&key, &value) {
                            problems.push(format!(
                                "<{name} {key}={:?}> {why}",
                                crate::format::excerpt(&value, 80)
                            ));
                        }
                    }
                    if key == "style" && css_loads(&value) {
                        problems.push(format!(
                            "<{name}> has a style attribute that loads a resource"
                        ));
                    }
                }
                match name.as_str() {
                    "script" => {
                        let kind = attr("type").unwrap_or_default();
                        if kind.trim().eq_ignore_ascii_case("application/ld+json") {
                            open_script = Some(String::new());
                        } else {
                            problems.push(format!(
                                "<script type={kind:?}>: only a JSON-LD data block (type=\"application/ld+json\") is allowed"
                            ));
                            open_script = None;
                        }
                    }
                    "style" => in_style = true,
                    "meta" => {
                        let equiv = attr("http-equiv").unwrap_or_default();
                        if equiv.trim().eq_ignore_ascii_case("refresh") {
                            problems.push("<meta http-equiv=refresh> would navigate away".into());
                        }
                        if equiv.trim().eq_ignore_ascii_case("content-security-policy") {
                            policies.push(attr("content").unwrap_or_default());
                        }
                    }
                    "link"
                        if attr("rel")
                            .is_none_or(|r| !r.trim().eq_ignore_ascii_case("canonical")) =>
                    {
                        problems.push(format!(
                            "<link rel={:?}> (only rel=\"canonical\" is allowed)",
                            attr("rel").unwrap_or_default()
                        ));
                    }
                    n if LOADING_ELEMENTS.contains(&n) => {
                        problems.push(format!("<{n}> loads or embeds content"));
                    }
                    _ => {}
                }
            }
            Token::String(s) => {
                if let Some(buf) = open_script.as_mut() {
                    buf.push_str(&lossy(&s));
                } else if in_style && css_loads(&lossy(&s)) {
                    problems.push("a <style> block loads a resource (url() or @import)".into());
                }
                if let Some((_, text)) = open_value.as_mut() {
                    text.push_str(&lossy(&s));
                }
            }
            Token::EndTag(tag) => {
                let name = lossy(&tag.name).to_ascii_lowercase();
                nesting.end(&name, tag.span.start);
                match name.as_str() {
                    "span" => values.extend(open_value.take()),
                    "script" => {
                        if let Some(json) = open_script.take() {
                            if let Err(e) = serde_json::from_str::<serde_json::Value>(&json) {
                                problems.push(format!("the JSON-LD block is not valid JSON: {e}"));
                            }
                        }
                    }
                    "style" => in_style = false,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    structure.extend(nesting.finish().map(|m| {
        let (at, what) = m.describe(|at| markup::line_of(html, at));
        format!(
            "{} line {}: {what}",
            OutputFile::Article.path(),
            markup::line_of(html, at)
        )
    }));
    PageScan {
        problems,
        policies,
        values,
        ids,
        links,
        structure,
    }
}

/// Links of the page that lead nowhere: a `#fragment` that no element's `id` carries, or a
/// relative address that names no published file (`files`); and published files no link leads
/// to, which a reader of the page could not download. Site-root and absolute links are the
/// site's and the web's, not checked here.
fn broken_links(page: &PageScan, files: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for href in &page.links {
        let broken = if let Some(fragment) = href.strip_prefix('#') {
            !fragment.is_empty() && !page.ids.contains(fragment)
        } else if href.starts_with('/') || href.contains(':') {
            false
        } else {
            let path = href.split(['#', '?']).next().unwrap_or_default();
            !files.contains(path)
        };
        if broken {
            let what = if href.starts_with('#') {
                "names no element of the page"
            } else {
                "names no published file"
            };
            problems.push(format!(
                "<a href={:?}> {what}",
                crate::format::excerpt(href, 80)
            ));
        }
    }
    problems.dedup();
    let linked: BTreeSet<&str> = page
        .links
        .iter()
        .map(|href| href.split(['#', '?']).next().unwrap_or_default())
        .collect();
    let unlinked: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| *f != OutputFile::Article.path() && !linked.contains(f))
        .collect();
    if !unlinked.is_empty() {
        problems.push(format!(
            "no link of the page leads to {} of the files published with it ({}; the block {{{{block:downloads}}}} links them all)",
            unlinked.len(),
            unlinked.join(", ")
        ));
    }
    problems
}

fn css_loads(css: &str) -> bool {
    let lower = css.to_ascii_lowercase();
    lower.contains("url(") || lower.contains("@import") || lower.contains("image-set(")
}

/// The Content-Security-Policy of the page: a `<meta>` whose policy starts `default-src 'none'`
/// and allows no script source.
pub fn csp_problems(html: &str) -> Vec<String> {
    policy_problems(&scan(html).policies)
}

fn policy_problems(policies: &[String]) -> Vec<String> {
    match policies {
        [] => vec!["no Content-Security-Policy <meta>".into()],
        [policy] => {
            let directives: Vec<&str> = policy.split(';').map(str::trim).collect();
            let mut p = Vec::new();
            if directives.first() != Some(&"default-src 'none'") {
                p.push(format!(
                    "the policy does not start with default-src 'none': {policy:?}"
                ));
            }
            if directives.iter().any(|d| d.starts_with("script-src")) {
                p.push("the policy allows a script source".into());
            }
            p
        }
        _ => vec!["more than one Content-Security-Policy <meta>".into()],
    }
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
    // core while the page and the figures are.
    let bundle = OutputFile::Bundle.path();
    let (mut out, article, listing) = std::thread::scope(|scope| {
        let listing = scope.spawn(|| dist.get(bundle).map(bundle_listing_problems));
        let mut out = Vec::new();
        let article = text(dist, OutputFile::Article).map(scan);
        out.push(match &article {
            Err(e) => outcome(Rule::PageSafe, vec![e.clone()], ""),
            Ok(page) => outcome(
                Rule::PageSafe,
                page.problems.clone(),
                "no executable script, refresh, event handler, javascript:/data: or protocol-relative link, and nothing loaded",
            ),
        });
        out.push(match &article {
            Err(e) => outcome(Rule::CspStrict, vec![e.clone()], ""),
            Ok(page) => outcome(
                Rule::CspStrict,
                policy_problems(&page.policies),
                "one Content-Security-Policy <meta>, default-src 'none', no script source",
            ),
        });
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
        (out, article, listing)
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
    out.push(match &article {
        Err(e) => outcome(Rule::LinksResolve, vec![e.clone()], ""),
        Ok(page) => outcome(
            Rule::LinksResolve,
            broken_links(page, &published),
            &format!(
                "{} links; every #fragment names an element of the page, every relative link a published file, every published file is linked",
                page.links.len()
            ),
        ),
    });
    out.push(match &article {
        Err(e) => outcome(Rule::PageWellFormed, vec![e.clone()], ""),
        Ok(page) => outcome(
            Rule::PageWellFormed,
            page.structure.clone(),
            &format!(
                "every element closed in order, {} ids each given once",
                page.ids.len()
            ),
        ),
    });
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

/// The values the prose shows, as rendered: each `<span data-value="name">` with its text.
pub fn rendered_values(html: &str) -> Vec<(String, String)> {
    scan(html).values
}

/// The values results.json implies for the prose's placeholders, formatted as the article formats
/// them: each highlight's ratio (and its loss or gain), the span, and the counts.
fn expected_values(results: &serde_json::Value) -> Result<Vec<(String, String)>, String> {
    use crate::format::{percent, points};
    let mut expected = Vec::new();
    let highlights = results["highlights"]
        .as_array()
        .filter(|h| !h.is_empty())
        .ok_or("results.json has no highlights")?;
    for h in highlights {
        let (Some(id), Some(ratio)) = (h["id"].as_str(), h["ratio"].as_f64()) else {
            return Err(format!("highlight {} has no id or ratio", h["label"]));
        };
        let r = crate::analysis::Ratio(ratio);
        expected.push((format!("hl.{id}.ratio"), percent(r)));
        expected.push((
            format!("hl.{id}.loss"),
            format!("{:.2} %", 100.0 - r.percent()),
        ));
        expected.push((
            format!("hl.{id}.gain"),
            format!("{:.2} %", r.percent() - 100.0),
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
        expected.push(("all_min".into(), percent(crate::analysis::Ratio(min))));
        expected.push(("all_max".into(), percent(crate::analysis::Ratio(max))));
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
            expected.push((
                format!("median_{end}"),
                percent(crate::analysis::Ratio(median)),
            ));
            expected.push((format!("median_{end}_benchmark"), name.into()));
        }
    }
    for count in [
        "rows",
        "closed",
        "open",
        "eligible",
        "pairs",
        "unmatched",
        "over_100",
    ] {
        if let Some(n) = results["counts"][count].as_u64() {
            expected.push((count.into(), n.to_string()));
        }
    }
    Ok(expected)
}

/// Every value the article renders that results.json determines must equal it (so a wrong lede
/// fails the build, wherever else the number appears), and every highlighted percentage must be
/// drawn in figure 1.
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
                if let Some((_, want)) = expected.iter().find(|(n, _)| n == name) {
                    compared += 1;
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
                    problems.push(format!("{want} ({name}) is not drawn in figure 1"));
                }
            }
        }
    }
    outcome(
        Rule::HighlightsMatchResults,
        problems,
        &format!("{compared} rendered values equal results.json; every highlighted ratio is drawn in figure 1"),
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
    let root = crate::layout::bundle_root();
    let inventory_name = format!("{root}{INVENTORY}");
    let inventory = match archive::read_entry(bytes, &entries, &inventory_name) {
        Ok(i) => i,
        Err(p) => return (entries.len(), p),
    };
    let Some(inventory) = inventory.and_then(|b| String::from_utf8(b).ok()) else {
        return (entries.len(), vec![format!("no readable {inventory_name}")]);
    };
    let listed = match crate::package::parse_sums(&inventory_name, &inventory) {
        Ok(l) => l,
        Err(p) => return (entries.len(), p),
    };
    // Both sides by path inside the bundle's folder: a name outside it is never listed.
    fn inside<'a>(e: &'a archive::RawEntry, root: &str, inventory: &str) -> Option<&'a str> {
        e.name.strip_prefix(root).filter(|_| e.name != inventory)
    }
    let names: std::collections::HashSet<&str> = entries
        .iter()
        .filter_map(|e| inside(e, &root, &inventory_name))
        .collect();
    let listed: std::collections::HashSet<&str> = listed.iter().map(|(p, _)| p.as_str()).collect();
    let mut problems: Vec<String> = listed
        .iter()
        .filter(|p| !names.contains(*p))
        .map(|p| format!("{root}{p}: listed in the inventory but absent"))
        .collect();
    let mut unlisted: Vec<String> = entries
        .iter()
        .filter(|e| {
            e.name != inventory_name
                && inside(e, &root, &inventory_name).is_none_or(|rel| !listed.contains(rel))
        })
        .map(|e| format!("{}: not in the inventory", e.name))
        .collect();
    problems.sort();
    unlisted.sort();
    problems.append(&mut unlisted);
    (entries.len(), problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> String {
        format!("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"></head><body>{body}</body></html>")
    }

    #[test]
    fn the_bundle_listing_must_match_its_inventory_both_ways() {
        use std::io::Write;
        let root = crate::layout::bundle_root();
        let sum = crate::inputs::HexDigest::sha256(b"x");
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
    fn links_must_lead_somewhere_on_the_page_or_among_the_files() {
        let page = scan(
            "<h2 id=\"downloads\">D</h2><a href=\"#downloads\">ok</a><a href=\"#\">top</a>\
             <a href=\"pairs.csv\">ok</a><a href=\"pairs.csv#row-3\">ok</a><a href=\"/about/\">site</a>\
             <a href=\"https://example.org/x\">web</a><a href=\"#download\">typo</a>\
             <a href=\"pairs.cvs\">typo</a><a href=\"qa/\">folder</a>",
        );
        let files: BTreeSet<String> = ["article.html", "pairs.csv", "qa/validation.json"]
            .map(String::from)
            .into();
        assert_eq!(
            broken_links(&page, &files),
            [
                "<a href=\"#download\"> names no element of the page",
                "<a href=\"pairs.cvs\"> names no published file",
                "<a href=\"qa/\"> names no published file",
                // The page need not link itself; every other file must be linked.
                "no link of the page leads to 1 of the files published with it (qa/validation.json; the block {{block:downloads}} links them all)",
            ]
        );
    }

    #[test]
    fn a_plain_page_with_links_and_json_ld_passes() {
        let html = page(
            "<p>See <a href=\"https://example.org/x?a=1&amp;b=2\">x</a>, <a href=\"/about/\">me</a>, \
             <a href=\"pairs.csv\">csv</a>, <a href=\"#fig\">fig</a>.</p>\
             <p>Data may say src=\"http://x\" or onload=1 as text.</p>\
             <script type=\"application/ld+json\">{\"@type\": \"Article\", \"x\": \"<\\/script>\"}</script>\
             <link rel=\"canonical\" href=\"https://example.org/a/\">",
        );
        assert_eq!(page_problems(&html), Vec::<String>::new());
        assert_eq!(csp_problems(&html), Vec::<String>::new());
    }

    #[test]
    fn markup_must_close_what_it_opens_in_order_and_give_each_id_once() {
        let well_formed = page(
            "<p id=\"a\">x<br><img alt=\"\"/></p>\n<svg><rect width=\"1\"/><text>t</text></svg>\n<details id=\"b\"><summary>s</summary>d</details>",
        );
        assert_eq!(scan(&well_formed).structure, Vec::<String>::new());
        // `page` puts the body on line 1; each case's problem is on the line written here.
        for (body, expected) in [
            (
                "<p>\n<details><summary>x\n</p>",
                "article.html line 3: </p> closes <summary>, opened at line 2",
            ),
            (
                "<p>x</p>\n</div>",
                "article.html line 2: </div> closes <body>, opened at line 1",
            ),
            (
                "<h2 id=\"d\">a</h2>\n<h2 id=\"d\">b</h2>",
                "article.html line 2: id \"d\" is given a second time",
            ),
        ] {
            assert_eq!(
                scan(&page(body)).structure,
                vec![expected.to_string()],
                "{body}"
            );
        }
        assert_eq!(
            scan("<html><body>\n<main>").structure,
            vec!["article.html line 2: <main> is never closed".to_string()]
        );
        assert_eq!(
            scan("<p></p></p>").structure,
            vec!["article.html line 1: </p> closes no open element".to_string()]
        );
    }

    #[test]
    fn every_way_to_run_code_or_load_is_found() {
        for (body, expected) in [
            ("<script>alert(1)</script>", "only a JSON-LD"),
            ("<SCRIPT type=module src=x></SCRIPT>", "only a JSON-LD"),
            (
                "<meta http-equiv=\"Refresh\" content=\"0;url=https://evil\">",
                "refresh",
            ),
            (
                "<p onclick=\"x()\">a</p>",
                "event-handler attribute `onclick`",
            ),
            ("<svg><g onload=\"x()\"></g></svg>", "event-handler"),
            ("<a href=\"javascript:alert(1)\">x</a>", "`javascript:`"),
            ("<a href=\" jav\tascript:alert(1)\">x</a>", "`javascript:`"),
            ("<a href=\"JaVaScRiPt:alert(1)\">x</a>", "`javascript:`"),
            (
                "<a href=\"data:text/html,<script>x</script>\">x</a>",
                "`data:`",
            ),
            ("<a href=\"//evil.example/\">x</a>", "protocol-relative"),
            ("<a href=\"/\\evil.example/\">x</a>", "backslash"),
            ("<img src=\"http://x/a.png\">", "loads"),
            ("<iframe></iframe>", "loads or embeds"),
            ("<base href=\"https://evil/\">", "loads or embeds"),
            (
                "<link rel=\"stylesheet\" href=\"a.css\">",
                "only rel=\"canonical\"",
            ),
            ("<style>@import 'x.css';</style>", "<style> block"),
            (
                "<div style=\"background:url(http://x)\">",
                "style attribute",
            ),
            (
                "<script type=\"application/ld+json\">{not json</script>",
                "not valid JSON",
            ),
        ] {
            let problems = page_problems(&page(body));
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{body}: {problems:?}"
            );
        }
    }

    #[test]
    fn rendered_values_are_read_from_their_spans() {
        let html = "<p>keeps <span data-value=\"hl.a.ratio\">85.36 %</span> and <em><span data-value=\"rows\">492</span></em> <span>x</span></p>";
        assert_eq!(
            rendered_values(html),
            [
                ("hl.a.ratio".to_string(), "85.36 %".to_string()),
                ("rows".to_string(), "492".to_string())
            ]
        );
    }

    #[test]
    fn a_weak_or_missing_policy_is_found() {
        assert_eq!(
            csp_problems("<p>x</p>"),
            ["no Content-Security-Policy <meta>"]
        );
        let weak = "<meta http-equiv=content-security-policy content=\"default-src *\">";
        assert!(csp_problems(weak)[0].contains("does not start"));
        let script = "<meta http-equiv=content-security-policy content=\"default-src 'none'; script-src 'self'\">";
        assert_eq!(csp_problems(script), ["the policy allows a script source"]);
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
