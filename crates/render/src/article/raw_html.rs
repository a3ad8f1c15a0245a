//! The prose's HTML, held to an allow-list. The prose may write raw HTML, of plain elements
//! only: what it writes is checked at the Markdown events ([`check_raw`]), and an element, an
//! attribute, a link or a character reference outside the list is refused with its line, never
//! passed on or silently dropped. Nothing that loads, runs, embeds, styles or submits is on the
//! list, nor any element (`<svg>`, `<math>`, `<noscript>`, `<template>`, `<textarea>`) inside
//! which a browser reads markup otherwise than by its tags. The rendered prose is then written
//! out tag by tag ([`normalise`]) as html5ever's serializer writes a tree, comments left out;
//! the blocks the build makes itself (figures with inline SVG, tables, the downloads) are not
//! the prose's and are put in after, each in place of a marker paragraph.

use ratios_base::error::{Error, Result};
use ratios_base::markup::{self, Token, VOID_ELEMENTS};

/// The elements the prose may write besides phrasing ([`PHRASING`]) and a table's parts
/// ([`TABLE_PARTS`]): text structure, lists, tables, `<details>` and quotations. Nothing that
/// loads, runs, embeds, styles or submits.
const BLOCKS: &[&str] = &[
    "blockquote",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "li",
    "ol",
    "p",
    "pre",
    "summary",
    "table",
    "ul",
];

/// Whether the prose may write the element `name`.
fn allowed_tag(name: &str) -> bool {
    [PHRASING, TABLE_PARTS, BLOCKS]
        .iter()
        .any(|list| list.contains(&name))
}

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

/// Whether a link address is one the prose may write: relative (`#fragment`, `pairs.csv`,
/// `/about/`) or with the scheme `https`, `http` or `mailto`. A browser strips tabs and line breaks
/// anywhere in an address, and spaces and controls around it, before it reads the scheme.
pub(crate) fn allowed_url(url: &str) -> bool {
    let url = markup::url_as_read(url);
    if url.starts_with("//") || url.contains('\\') {
        return false;
    }
    match url.split_once(':') {
        Some((scheme, _)) if !scheme.contains(['/', '?', '#']) => {
            URL_SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme))
        }
        _ => true,
    }
}

/// Whether `element` may carry the attribute `name`.
fn allowed_attribute(element: &str, name: &str) -> bool {
    GENERIC_ATTRIBUTES.contains(&name)
        || TAG_ATTRIBUTES
            .iter()
            .any(|(tag, attrs)| *tag == element && attrs.contains(&name))
}

/// The declarations of a `style` attribute the page keeps: those of [`STYLE_PROPERTIES`], each
/// a single word, written `name:value` and joined by `;`. None when one is anything else.
fn style(value: &str) -> Option<String> {
    let mut kept = Vec::new();
    for declaration in value.split(';').map(str::trim).filter(|d| !d.is_empty()) {
        let (name, value) = declaration.split_once(':')?;
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if !STYLE_PROPERTIES.contains(&name.as_str())
            || value.is_empty()
            || !value.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        {
            return None;
        }
        kept.push(format!("{name}:{value}"));
    }
    Some(kept.join(";"))
}

/// What is wrong with the tag `tag` of the prose's HTML, if anything.
fn tag_problem(tag: &markup::TagAt) -> Option<String> {
    let name = || ratios_base::text::excerpt(&tag.name.escape_debug().to_string(), 40);
    if !allowed_tag(&tag.name) {
        return Some(format!(
            "<{}> is not one of the elements the prose may write (text, lists, tables, details, quotations and inline phrasing)",
            name()
        ));
    }
    if tag.self_closing && !tag.end && !VOID_ELEMENTS.contains(&tag.name.as_str()) {
        return Some(format!(
            "<{}/> does not close itself in HTML (only a void element such as <br> has no end tag); write <{0}></{0}>",
            name()
        ));
    }
    for (key, value) in &tag.attributes {
        let key_shown = || ratios_base::text::excerpt(&key.escape_debug().to_string(), 40);
        if !allowed_attribute(&tag.name, key) {
            return Some(format!(
                "<{} {}> is not an attribute the prose may write there",
                name(),
                key_shown()
            ));
        }
        if matches!(key.as_str(), "href" | "cite") && !allowed_url(value) {
            return Some(format!(
                "<{} {}={:?}> links where the prose may not (an address relative to the page, or https:, http: or mailto:)",
                name(),
                key_shown(),
                ratios_base::text::excerpt(value, 60)
            ));
        }
        if key == "style" && style(value).is_none() {
            return Some(format!(
                "<{} style={:?}> sets more than text-align",
                name(),
                ratios_base::text::excerpt(value, 60)
            ));
        }
    }
    None
}

/// An `&` of `text` that begins a word or a `#` but no character reference the build reads
/// (`&mdash;`, `&copy`, `&#106avascript`), if any: only `&amp;`, `&lt;`, `&gt;`, `&quot;`,
/// `&apos;`, `&nbsp;` and numeric ones ending in `;` are read, and a browser reads some others,
/// without their `;` too. An `&` before a space or a sign (`Q & A`) is an ampersand.
fn unknown_reference(text: &str) -> Option<&str> {
    text.match_indices('&').find_map(|(at, _)| {
        let rest = &text[at + 1..];
        let begins = rest
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '#');
        (begins && markup::reference(rest).is_none()).then(|| {
            // The word the `&` begins, with its `;` when it has one.
            let word = rest
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '#')
                .unwrap_or(rest.len());
            let len = word + usize::from(rest[word..].starts_with(';'));
            &text[at..at + 1 + len]
        })
    })
}

/// The elements that a line of text may hold (phrasing content): the others are
/// blocks, before which a browser ends a paragraph.
const PHRASING: &[&str] = &[
    "a", "abbr", "b", "br", "cite", "code", "del", "dfn", "em", "i", "ins", "kbd", "mark", "q",
    "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr",
];

/// The first start tag of `html` that is a block element, not phrasing content, if any.
pub fn block_element(html: &str) -> Option<String> {
    markup::tags(html)
        .into_iter()
        .find(|t| !t.end && !PHRASING.contains(&t.name.as_str()))
        .map(|t| ratios_base::text::excerpt(&t.name.escape_debug().to_string(), 40))
}

/// The parts of a table, which a browser drops outside one.
const TABLE_PARTS: &[&str] = &[
    "caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr",
];

/// Why the start tag of `name` stands where a browser would not build it as written, given the
/// elements `open` around it (the innermost last), if it does: a table's part outside a table,
/// a link directly inside a link, or a block element inside a paragraph or an inline element,
/// which a browser ends before it.
pub fn out_of_place<'a>(
    name: &str,
    mut open: impl DoubleEndedIterator<Item = &'a str>,
) -> Option<String> {
    let shown = || ratios_base::text::excerpt(&name.escape_debug().to_string(), 40);
    let innermost = open.next_back();
    if TABLE_PARTS.contains(&name)
        && innermost != Some("table")
        && !open.chain(innermost).any(|e| e == "table")
    {
        return Some(format!(
            "<{}> outside a <table>, where a browser leaves it out",
            shown()
        ));
    }
    if name == "a" && innermost == Some("a") {
        return Some("a link inside a link, which a browser splits".into());
    }
    let inline = innermost.is_some_and(|e| e == "p" || PHRASING.contains(&e));
    (inline && !PHRASING.contains(&name)).then(|| {
        format!(
            "<{}> inside <{}>, which a browser ends before it; write it on lines of its own",
            shown(),
            innermost.unwrap_or_default()
        )
    })
}

/// Checks one run of the prose's raw HTML (a Markdown HTML event): every tag on the allow-list
/// with its attributes and links, no declaration, every character reference one the build
/// reads. The first problem, as a message for the line it is on.
pub fn check_raw(html: &str) -> std::result::Result<(), String> {
    for token in markup::tokens(html) {
        match token {
            Token::Tag(tag) => {
                if let Some(problem) = tag_problem(&tag) {
                    return Err(problem);
                }
            }
            Token::Declaration { .. } => {
                return Err(
                    "a declaration (`<!…>` or `<?…>`) is not HTML the prose may write".into(),
                )
            }
            Token::Unfinished { .. } => {
                return Err(
                    "a tag or comment that does not end where it begins; write each tag whole on one line, and close each comment (-->) in its block".into(),
                )
            }
            Token::Text { .. } | Token::Comment { .. } => {}
        }
    }
    match unknown_reference(html) {
        Some(reference) => Err(format!(
            "{} is not a character reference the build reads; write the character itself",
            ratios_base::text::excerpt(reference, 40)
        )),
        None => Ok(()),
    }
}

/// Writes the prose's rendered HTML `html` as html5ever's serializer writes the tree it parses
/// (start tags with their attributes in double quotes, no end tag for a void element, text and
/// values escaped, comments left out), then puts each block of `blocks` in place of the marker
/// paragraph `<p>{marker}{i}</p>` that stands for it (`i` its index in `blocks`). A tag off the
/// allow-list, which [`check_raw`] refused in raw HTML, is refused here too.
pub fn normalise(html: &str, marker: &str, blocks: &[&str], file: &str) -> Result<String> {
    let refuse = |message: String| Error::Config {
        file: file.into(),
        message,
    };
    let mut clean = String::with_capacity(html.len() + html.len() / 8);
    // After `<pre>`, a browser drops one line break that opens its text.
    let mut after_pre = false;
    for token in markup::tokens(html) {
        match token {
            Token::Tag(tag) if tag.end => {
                after_pre = false;
                if !VOID_ELEMENTS.contains(&tag.name.as_str()) {
                    if !allowed_tag(&tag.name) {
                        return Err(refuse(format!(
                            "</{}> is not HTML the prose may write",
                            tag.name
                        )));
                    }
                    clean.push_str("</");
                    clean.push_str(&tag.name);
                    clean.push('>');
                }
            }
            Token::Tag(tag) => {
                if let Some(problem) = tag_problem(&tag) {
                    return Err(refuse(problem));
                }
                clean.push('<');
                clean.push_str(&tag.name);
                for (key, value) in &tag.attributes {
                    clean.push(' ');
                    clean.push_str(key);
                    clean.push_str("=\"");
                    let value = if key == "style" {
                        style(value).unwrap_or_default()
                    } else {
                        value.clone()
                    };
                    markup::escape_attribute(&value, &mut clean);
                    clean.push('"');
                }
                clean.push('>');
                after_pre = tag.name == "pre";
            }
            Token::Text { text, .. } => {
                // A browser leaves NUL out of the text.
                let text = markup::decode(text).replace('\0', "");
                // And drops a line break that opens a `<pre>`'s text: a second one must then be
                // written for the one the text holds.
                let text = match text.strip_prefix('\n') {
                    Some(rest) if after_pre && !rest.starts_with('\n') => rest,
                    _ => &text,
                };
                markup::escape_text(text, &mut clean);
                after_pre = false;
            }
            Token::Comment { .. } | Token::Unfinished { .. } => {}
            Token::Declaration { .. } => {
                return Err(refuse(
                    "a declaration (`<!…>` or `<?…>`) is not HTML the prose may write".into(),
                ))
            }
        }
    }
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
        normalise(html, "M", &[], "prose").unwrap()
    }

    #[test]
    fn markup_off_the_list_is_refused_with_what_it_is() {
        for (hostile, said) in [
            (
                "<div><svg><style><meta http-equiv=\"refresh\"></style></svg></div>",
                "<svg> is not one of the elements",
            ),
            ("<math><mtext><table><mglyph>", "<math> is not one"),
            (
                "<noscript><p title=\"</noscript><img src=x>\"></noscript>",
                "<noscript> is not one",
            ),
            (
                "<template><script>alert(1)</script></template>",
                "<template> is not one",
            ),
            (
                "<a href=\" jav&#x09;ascript:alert(1)\">x</a>",
                "links where the prose may not",
            ),
            (
                "<a href=\"//e.org/x\">x</a>",
                "links where the prose may not",
            ),
            (
                "<p onclick=\"x()\">t</p>",
                "<p onclick> is not an attribute",
            ),
            (
                "<td style=\"background:url(http://x)\">x</td>",
                "sets more than text-align",
            ),
            ("<p>a &mdash; b</p>", "&mdash; is not a character reference"),
            ("<!DOCTYPE html>", "a declaration"),
            // A browser reads these as `javascript:` even without the `;`.
            (
                "<a href=\"&#106avascript:alert(1)\">x</a>",
                "&#106avascript",
            ),
            ("<a href=\"javascript&#58alert(1)\">x</a>", "&#58alert"),
            ("<p>&copy 2024</p>", "&copy"),
            ("&#65\u{a0}", "&#65 is not"),
            ("&#65\u{2060}x", "&#65 is not"),
            ("&mdash;", "&mdash; is not"),
            ("<a href=\"#x\"/>", "<a/> does not close itself"),
            ("<div\nclass=\"x", "does not end where it begins"),
            ("<!-- a note", "does not end where it begins"),
        ] {
            let problem = check_raw(hostile).unwrap_err();
            assert!(problem.contains(said), "{hostile}: {problem}");
            assert!(
                normalise(hostile, "M", &[], "prose").is_err()
                    || said.starts_with('&')
                    || said.contains("does not end"),
                "{hostile}"
            );
        }
        assert_eq!(
            check_raw("<details class=\"appendix\" id=\"m\"><summary>x</summary>"),
            Ok(())
        );
        assert_eq!(
            check_raw("10<sup>−12</sup> <!-- a note --> &amp; &#8288;"),
            Ok(())
        );
    }

    /// Written as html5ever writes the tree it parses: the style without its space, the void
    /// element without its slash, references decoded and escaped again, the comment left out.
    #[test]
    fn the_prose_s_own_markup_is_written_as_a_serializer_writes_it() {
        let html = "<h2 id=\"downloads\">Files</h2>\n<p>See <a href=\"#downloads\">x</a>, <a href=\"https://e.org/?a=1&amp;b=2\">e</a> and <a href=\"pairs.csv\">csv</a>: <span data-value=\"pairs\">37</span>.</p>\n<details><summary>More</summary><p><em>x</em> <code class=\"language-sh\">cd x</code></p></details>\n<table><thead><tr><th style=\"text-align: right\">a</th></tr></thead><tbody><tr><td style=\"text-align: right\">1</td></tr></tbody></table>\n";
        assert_eq!(
            clean(html),
            html.replace("text-align: right", "text-align:right")
        );
        assert_eq!(
            clean("<p>a&nbsp;b \u{a0}&quot;c&quot; &#8288;<br />d<!-- x --></p><pre>\nx\n</pre>"),
            "<p>a&nbsp;b &nbsp;\"c\" \u{2060}<br>d</p><pre>x\n</pre>"
        );
        assert_eq!(
            clean("<span title=\"a &quot;b&quot; &lt;c&gt;\u{a0}\">x</span>"),
            "<span title=\"a &quot;b&quot; &lt;c&gt;&nbsp;\">x</span>"
        );
    }

    /// A `<pre>`'s text keeps its opening blank line, and NUL is left out, as in the tree a
    /// browser builds.
    #[test]
    fn a_pre_keeps_its_blank_line_and_nul_is_left_out() {
        assert_eq!(clean("<pre>\nx</pre>"), "<pre>x</pre>");
        assert_eq!(clean("<pre>\n\n  x</pre>"), "<pre>\n\n  x</pre>");
        assert_eq!(clean("<p>a\0b</p>"), "<p>ab</p>");
    }

    #[test]
    fn a_citation_keeps_its_link_id_and_label() {
        let html = "<p>x<sup class=\"cite\"><a href=\"#note-a\" id=\"cite-a\" aria-label=\"Source note 1\">1</a></sup></p>";
        assert_eq!(clean(html), html);
    }

    #[test]
    fn blocks_take_the_place_of_their_markers() {
        let out = normalise(
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
        assert!(normalise("<p title=\"<p>M0</p>\">x</p>", "M", &["<b>"], "prose").is_err());
    }
}
