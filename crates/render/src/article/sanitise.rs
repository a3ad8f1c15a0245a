//! The prose's HTML, sanitised against an allow-list before it reaches the page: the prose may
//! write raw HTML, and what it writes is parsed as a browser parses it (html5ever, through
//! ammonia), so markup hidden in foreign content (`<svg><style>…`), in `<noscript>`,
//! `<template>` or a mis-nested form is seen as the element it becomes, and anything not on the
//! list is dropped (its text kept). The blocks the build makes itself (figures with inline SVG,
//! tables, the downloads) are not the prose's and are put in after, each in place of a marker
//! paragraph the sanitiser keeps.

use std::collections::{HashMap, HashSet};

use ratios_base::error::{Error, Result};

/// Elements the prose may write: text structure, lists, tables, `<details>`, quotations and
/// inline phrasing. Nothing that loads, runs, embeds, styles or submits.
const TAGS: &[&str] = &[
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "q",
    "s",
    "samp",
    "small",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "ul",
    "var",
    "wbr",
];

/// Attributes any allowed element may carry.
const GENERIC_ATTRIBUTES: &[&str] = &["id", "class", "title", "lang", "aria-label"];

/// Attributes allowed on one element.
const TAG_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href"]),
    ("span", &["data-value"]),
    ("td", &["colspan", "rowspan", "style"]),
    ("th", &["colspan", "rowspan", "style", "scope"]),
    ("ol", &["start", "reversed"]),
    ("time", &["datetime"]),
    ("details", &["open"]),
    ("q", &["cite"]),
    ("blockquote", &["cite"]),
];

/// The only style property kept (Markdown tables align their columns with it).
const STYLE_PROPERTIES: &[&str] = &["text-align"];

/// Link schemes allowed besides relative addresses (`#fragment`, `pairs.csv`, `/about/`).
const URL_SCHEMES: &[&str] = &["https", "http", "mailto"];

/// Sanitises the prose's HTML `html`, then puts each block of `blocks` in place of the marker
/// paragraph `<p>{marker}{i}</p>` that stands for it (`i` its index in `blocks`).
pub fn sanitise(html: &str, marker: &str, blocks: &[&str], file: &str) -> Result<String> {
    let attributes: HashMap<&str, HashSet<&str>> = TAG_ATTRIBUTES
        .iter()
        .map(|(tag, attrs)| (*tag, attrs.iter().copied().collect()))
        .collect();
    let clean = ammonia::Builder::empty()
        .add_tags(TAGS)
        .add_generic_attributes(GENERIC_ATTRIBUTES)
        .tag_attributes(attributes)
        .filter_style_properties(STYLE_PROPERTIES.iter().copied().collect())
        .url_schemes(URL_SCHEMES.iter().copied().collect())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .link_rel(None)
        .strip_comments(true)
        .clean(html)
        .to_string();
    let mut out =
        String::with_capacity(clean.len() + blocks.iter().map(|b| b.len()).sum::<usize>());
    let mut rest = clean.as_str();
    for (i, block) in blocks.iter().enumerate() {
        let placeholder = format!("<p>{marker}{i}</p>");
        let at = rest.find(&placeholder).ok_or_else(|| Error::Config {
            file: file.into(),
            message: format!(
                "block {} of the prose ended up inside raw HTML that cannot hold it; write each {{{{block:…}}}} as its own paragraph, outside inline elements",
                i + 1
            ),
        })?;
        out.push_str(&rest[..at]);
        out.push_str(block);
        rest = &rest[at + placeholder.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(html: &str) -> String {
        sanitise(html, "M", &[], "prose").unwrap()
    }

    #[test]
    fn markup_hidden_in_foreign_content_never_reaches_the_page() {
        for hostile in [
            "<div><svg><style><meta http-equiv=\"refresh\" content=\"0;url=http://127.0.0.1:9/x\"></style></svg></div>",
            "<svg><style><img src=x onerror=alert(1)></style></svg>",
            "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
            "<svg><title><a href=\"javascript:alert(1)\">x</a></title></svg>",
            "<svg><use href=\"data:image/svg+xml,<svg id='x'/>#x\"/></svg>",
            "<svg><animate attributeName=href values=\"javascript:alert(1)\"/></svg>",
            "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
            "<template><script>alert(1)</script></template>",
            "<textarea></textarea><script>alert(1)</script>",
            "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
            "<a href=\" jav&#x09;ascript:alert(1)\">x</a>",
            "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
            "<p style=\"background:url(http://x)\">x</p>",
        ] {
            let out = clean(hostile);
            let lower = out.to_ascii_lowercase();
            for bad in [
                "<meta", "<img", "<script", "<svg", "<math", "<style", "<iframe", "<use",
                "<animate", "javascript:", "onerror", "url(", "<template", "<form",
            ] {
                assert!(!lower.contains(bad), "{hostile} -> {out}");
            }
        }
    }

    #[test]
    fn the_prose_s_own_markup_is_kept() {
        let html = "<h2 id=\"downloads\">Files</h2>\n<p>See <a href=\"#downloads\">x</a>, <a href=\"https://e.org/?a=1&amp;b=2\">e</a> and <a href=\"pairs.csv\">csv</a>: <span data-value=\"pairs\">37</span>.</p>\n<details><summary>More</summary><p><em>x</em> <code class=\"language-sh\">cd x</code></p></details>\n<table><thead><tr><th style=\"text-align: right\">a</th></tr></thead><tbody><tr><td style=\"text-align: right\">1</td></tr></tbody></table>\n";
        // The same, but for the style, which is written again without its space.
        assert_eq!(
            clean(html),
            html.replace("text-align: right", "text-align:right")
        );
    }

    #[test]
    fn a_citation_keeps_its_link_id_and_label() {
        let html = "<p>x<sup class=\"cite\"><a href=\"#note-a\" id=\"cite-a\" aria-label=\"Source note 1\">1</a></sup></p>";
        assert_eq!(clean(html), html);
    }

    #[test]
    fn blocks_take_the_place_of_their_markers() {
        let out = sanitise(
            "<p>a</p>\n<p>M0</p>\n<details><p>M1</p></details>",
            "M",
            &["<figure><svg><rect/></svg></figure>", "<table></table>"],
            "prose",
        )
        .unwrap();
        assert_eq!(
            out,
            "<p>a</p>\n<figure><svg><rect/></svg></figure>\n<details><table></table></details>"
        );
        // A marker swallowed by raw HTML (here an attribute) is an error, not a lost block.
        assert!(sanitise("<p title=\"<p>M0</p>\">x</p>", "M", &["<b>"], "prose").is_err());
    }
}
