//! The article read by its tags: the tree they write (`base::dom`) tells what could run code,
//! refresh or load something, the Content-Security-Policy, the ids, the links and the values the
//! prose shows; its tags, token by token (`base::markup`), tell whether it closes each element in
//! order and gives each id once. The tests read the same pages with html5ever, as a browser
//! builds them, and hold them to the same rules (`tests/integration/page_safety.rs`).

use std::collections::BTreeSet;

use ratios_base::dom::{Data, Dom, Name, Namespace};
use ratios_base::layout::OutputFile;
use ratios_base::markup;

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

/// A tag or attribute name as the page wrote it, for a problem line: short, control characters
/// escaped.
fn shown(name: &str) -> String {
    ratios_base::text::excerpt(&name.escape_debug().to_string(), 40)
}

/// Why a URL in an attribute is not allowed, if it is not.
fn url_problem(attribute: &str, value: &str) -> Option<String> {
    let url = markup::url_as_read(value);
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

/// True for the page's icon: a `<link rel="icon">` whose address is an SVG drawing held in the
/// page itself (`data:image/svg+xml,…`) that can neither run, nor link, nor load anything: after
/// percent-decoding it names no script, no link, no `url()` and no event handler. The
/// Content-Security-Policy's `img-src data:` lets a browser show exactly this.
fn is_inert_icon(name: &str, attr: &dyn Fn(&str) -> Option<String>) -> bool {
    if name != "link" || attr("rel").is_none_or(|r| !r.trim().eq_ignore_ascii_case("icon")) {
        return false;
    }
    let Some(href) = attr("href") else {
        return false;
    };
    let Some(payload) = href.strip_prefix("data:image/svg+xml,") else {
        return false;
    };
    // Percent-decoding, byte by byte; anything but an escape is kept as it is.
    let bytes = payload.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                decoded.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    let svg = String::from_utf8_lossy(&decoded).to_ascii_lowercase();
    let compact: String = svg.chars().filter(|c| !c.is_whitespace()).collect();
    svg.starts_with("<svg")
        && ![
            "script",
            "href",
            "url(",
            "@import",
            "foreignobject",
            "<image",
            "<use",
            "<a",
        ]
        .iter()
        .any(|bad| compact.contains(bad))
        && !svg
            .split(|c: char| c.is_whitespace() || c == '<')
            .any(|token| token.starts_with("on"))
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
    /// The `href` of every `<a>`, character references decoded, in page order.
    pub links: Vec<String>,
    /// How the page's markup is not well formed: an `id` given twice, the first element closed
    /// out of order or never, each with its line of the page.
    pub structure: Vec<String>,
    /// The page's prose, paragraph by paragraph, as a reader reads it.
    pub prose: Vec<super::prose::Unit>,
}

/// Every way `html` could run code, refresh, or load something, as one line each.
pub fn page_problems(html: &str) -> Vec<String> {
    scan(html).problems
}

/// Reads the page. What it holds (what could run, refresh or load; the policies; the ids, links
/// and shown values) is read from the tree its tags write; how it is written (each element
/// closed in order, each `id` given once, with its line) from its tags, token by token.
pub fn scan(html: &str) -> PageScan {
    scan_page(html, OutputFile::Article)
}

/// [`scan`] of the published page `file`, whose lines the structure problems name.
pub(crate) fn scan_page(html: &str, file: OutputFile) -> PageScan {
    let structure = written_structure(html, file.path());
    let dom = Dom::parse(html);
    let mut page = PageScan {
        structure,
        ..PageScan::default()
    };
    for node in dom.descendants(0) {
        inspect(&dom, node, &mut page);
    }
    page.prose = super::prose::units(&dom);
    page
}

/// The namespace of an element, for a problem line: SVG and MathML elements are named so.
fn qualified(element: &Name) -> String {
    let name = shown(&element.local);
    match element.ns {
        Namespace::Svg => format!("svg:{name}"),
        Namespace::MathMl => format!("math:{name}"),
        Namespace::Html => name,
    }
}

/// An attribute's local name: `xlink:href` is `href`.
fn local(key: &str) -> &str {
    key.rsplit(':').next().unwrap_or(key)
}

/// One element of the tree: what it could run, refresh or load, and what it holds for the
/// other checks.
fn inspect(dom: &Dom, node: usize, page: &mut PageScan) {
    let Data::Element {
        name: element,
        attrs,
    } = &dom.nodes[node].data
    else {
        return;
    };
    let html_ns = element.ns == Namespace::Html;
    let svg_ns = element.ns == Namespace::Svg;
    let name = element.local.clone();
    let qname = qualified(element);
    let problems = &mut page.problems;
    let attr = |n: &str| {
        attrs
            .iter()
            .find(|(k, _)| local(k).eq_ignore_ascii_case(n))
            .map(|(_, v)| v.to_string())
    };
    let text = || dom.text(node);
    if let Some(id) = attr("id") {
        page.ids.insert(id);
    }
    if name == "a" {
        page.links.extend(attr("href"));
    }
    if name == "span" {
        if let Some(value) = attr("data-value") {
            page.values.push((value, text()));
        }
    }
    // Each attribute by its local name: `xlink:href` on an SVG element is `href`.
    for (key, value) in attrs {
        let key = local(key).to_ascii_lowercase();
        if key.starts_with("on") {
            problems.push(format!(
                "<{qname}> has an event-handler attribute `{}`",
                shown(&key)
            ));
        }
        let link = URL_ATTRIBUTES.contains(&key.as_str())
            && !(key == "href" && is_inert_icon(&name, &attr));
        // An SVG animation can set a link to any of these values.
        let animated = svg_ns && matches!(key.as_str(), "values" | "from" | "to" | "by");
        let why = match (link, animated) {
            (true, _) => url_problem(&key, value),
            (_, true) => url_problem("href", value),
            _ => None,
        };
        if let Some(why) = why {
            problems.push(format!(
                "<{qname} {key}={:?}> {why}",
                ratios_base::text::excerpt(value, 80)
            ));
        }
        if key == "style" && css_loads(value) {
            problems.push(format!(
                "<{qname}> has a style attribute that loads a resource"
            ));
        }
    }
    match name.as_str() {
        "script" => {
            let kind = attr("type").unwrap_or_default();
            if html_ns && kind.trim().eq_ignore_ascii_case("application/ld+json") {
                if let Err(e) = serde_json::from_str::<serde_json::Value>(&text()) {
                    problems.push(format!("the JSON-LD block is not valid JSON: {e}"));
                }
            } else {
                problems.push(format!(
                    "<{qname} type={kind:?}>: only a JSON-LD data block (type=\"application/ld+json\") is allowed"
                ));
            }
        }
        "style" if css_loads(&text()) => {
            problems.push(format!(
                "a <{qname}> block loads a resource (url() or @import)"
            ));
        }
        "meta" => {
            let equiv = attr("http-equiv").unwrap_or_default();
            if equiv.trim().eq_ignore_ascii_case("refresh") {
                problems.push("<meta http-equiv=refresh> would navigate away".into());
            }
            if equiv.trim().eq_ignore_ascii_case("content-security-policy") {
                let in_head = dom.nodes[node].parent.is_some_and(|p| {
                    matches!(&dom.nodes[p].data, Data::Element { name, .. } if name.local == "head")
                });
                if in_head {
                    page.policies.push(attr("content").unwrap_or_default());
                } else {
                    problems.push(
                        "a Content-Security-Policy <meta> outside <head>, which browsers ignore"
                            .into(),
                    );
                }
            }
        }
        "link" if is_inert_icon(&name, &attr) => {}
        "link" if attr("rel").is_none_or(|r| !r.trim().eq_ignore_ascii_case("canonical")) => {
            problems.push(format!(
                "<link rel={:?}> (only rel=\"canonical\" is allowed)",
                attr("rel").unwrap_or_default()
            ));
        }
        n if html_ns && LOADING_ELEMENTS.contains(&n) => {
            problems.push(format!("<{n}> loads or embeds content"));
        }
        // `<use href="#id">` repeats a shape of the page; any other reference loads one.
        "use" if svg_ns && attr("href").is_none_or(|h| !h.trim().starts_with('#')) => {
            problems.push(format!("<{qname}> loads or embeds content"));
        }
        n if svg_ns && SVG_LOADING_ELEMENTS.contains(&n) => {
            problems.push(format!("<{qname}> loads or embeds content"));
        }
        n if svg_ns
            && SVG_ANIMATIONS.contains(&n)
            && attr("attributename").is_some_and(|a| a.to_ascii_lowercase().ends_with("href")) =>
        {
            problems.push(format!("<{qname}> animates a link"));
        }
        _ => {}
    }
}

/// SVG elements that load or embed something (besides `<use>` with a reference outside the page).
const SVG_LOADING_ELEMENTS: &[&str] = &["image", "feimage"];

/// SVG elements that animate an attribute, a link's among them.
const SVG_ANIMATIONS: &[&str] = &["animate", "set", "animatemotion", "animatetransform"];

/// How the page is written, tag by tag: the first element closed out of order or never, and
/// each `id` given a second time, with their lines of the page.
fn written_structure(html: &str, name: &str) -> Vec<String> {
    let mut ids = BTreeSet::new();
    let mut structure = Vec::new();
    let mut nesting = markup::Nesting::default();
    for tag in markup::tags(html) {
        if tag.end {
            nesting.end(&tag.name, tag.at);
            continue;
        }
        nesting.start(&tag.name, tag.self_closing, tag.at);
        let id = tag
            .attributes
            .into_iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("id"))
            .map(|(_, v)| v);
        if let Some(id) = id {
            if ids.contains(&id) {
                structure.push(format!(
                    "{name} line {}: id {:?} is given a second time",
                    markup::line_of(html, tag.at),
                    ratios_base::text::excerpt(&id, 80)
                ));
            }
            ids.insert(id);
        }
    }
    structure.extend(nesting.finish().map(|m| {
        let (at, what) = m.describe(|at| markup::line_of(html, at));
        format!("{name} line {}: {what}", markup::line_of(html, at))
    }));
    structure
}

/// The file a relative link names: its address without a `#fragment` or `?query`.
fn link_path(href: &str) -> &str {
    href.split(['#', '?']).next().unwrap_or_default()
}

/// Links of the page that lead nowhere: a `#fragment` that no element's `id` carries, or a
/// relative address that names no published file (`files`); and published files no link leads
/// to, which a reader of the page could not download. Site-root and absolute links are the
/// site's and the web's, not checked here.
pub(super) fn broken_links(
    page: &PageScan,
    files: &BTreeSet<String>,
    pages: &[(&str, &BTreeSet<String>)],
    links_every_file: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    for href in &page.links {
        let broken = if let Some(fragment) = href.strip_prefix('#') {
            !fragment.is_empty() && !page.ids.contains(fragment)
        } else if href.starts_with('/') || href.contains(':') {
            false
        } else {
            // The author's signature is made after this check, when the build signs.
            let path = link_path(href);
            let fragment = href.split_once('#').map(|(_, f)| f);
            // A link to a section of the other page must name one of its elements.
            let section_missing = fragment.is_some_and(|f| {
                pages
                    .iter()
                    .find(|(p, _)| *p == path)
                    .is_some_and(|(_, ids)| !ids.contains(f))
            });
            (!files.contains(path) && path != OutputFile::Signature.path()) || section_missing
        };
        if broken {
            let what = if href.starts_with('#') {
                "names no element of the page"
            } else if href.contains('#') && files.contains(link_path(href)) {
                "names no element of that page"
            } else {
                "names no published file"
            };
            problems.push(format!(
                "<a href={:?}> {what}",
                ratios_base::text::excerpt(href, 80)
            ));
        }
    }
    problems.dedup();
    if !links_every_file {
        return problems;
    }
    let linked: BTreeSet<&str> = page.links.iter().map(|href| link_path(href)).collect();
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

pub(super) fn policy_problems(policies: &[String]) -> Vec<String> {
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

/// The values the prose shows, as rendered: each `<span data-value="name">` with its text.
pub fn rendered_values(html: &str) -> Vec<(String, String)> {
    scan(html).values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> String {
        format!("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"></head><body>{body}</body></html>")
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
            broken_links(&page, &files, &[], true),
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

    /// The page is read by its tags: inside SVG an element is SVG's (a `<use>`, an animation, a
    /// script), and the content of `<style>`, `<textarea>` and `<title>` is text. (The prose
    /// cannot write SVG or MathML, where a browser reads some of these otherwise; the tests hold
    /// the published pages to html5ever's reading too.)
    #[test]
    fn foreign_elements_are_read_as_theirs_and_raw_text_as_text() {
        for (body, expected) in [
            (
                "<svg><use href=\"https://e.org/x.svg#a\"/></svg>",
                "<svg:use> loads",
            ),
            (
                "<svg><animate attributeName=\"href\" values=\"javascript:alert(1)\"/></svg>",
                "`javascript:`",
            ),
            (
                "<svg><set attributeName=\"xlink:href\" to=\"#x\"/></svg>",
                "animates a link",
            ),
            ("<svg><script>alert(1)</script></svg>", "only a JSON-LD"),
            ("<svg><image href=\"x.png\"/></svg>", "<svg:image> loads"),
        ] {
            let problems = page_problems(&page(body));
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{body}: {problems:?}"
            );
        }
        for body in [
            "<style>p::after{content:\"<img src=x>\"}</style>",
            "<textarea><img src=x></textarea>",
            "<p title=\"<img src=x>\">x</p>",
            "<svg><use href=\"#shape\"/></svg>",
        ] {
            assert_eq!(page_problems(&page(body)), Vec::<String>::new(), "{body}");
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
        let weak =
            "<head><meta http-equiv=content-security-policy content=\"default-src *\"></head>";
        assert!(csp_problems(weak)[0].contains("does not start"));
        let script = "<head><meta http-equiv=content-security-policy content=\"default-src 'none'; script-src 'self'\"></head>";
        assert_eq!(csp_problems(script), ["the policy allows a script source"]);
    }
}
