//! The page's prose as a reader reads it, from the page's tree (`base::dom`): each paragraph, list
//! item and figure caption, with the citation numbers and the links to headings left out, and
//! whether it belongs to the narrative (from the dek to the heading that opens the Method
//! appendix). Tables, drawings, folded details, code, the contents list, the key numbers and
//! the byline are not prose. The byline's reading time counts the narrative's words; the build's
//! check holds them to their limits (`self_check::prose`).

use ratios_base::dom::{Data, Dom, Name, Namespace};

/// The heading that opens the appendix begins with this word.
pub const APPENDIX: &str = "Method";

/// One paragraph, list item or caption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Whether it lies in the narrative, from the dek to the heading that opens the Method
    /// appendix: the part the reading time counts.
    pub narrative: bool,
    /// Its text as a reader reads it, citation numbers and heading links left out.
    pub text: String,
}

fn element(dom: &Dom, node: usize) -> Option<(&Name, &[(String, String)])> {
    match &dom.nodes[node].data {
        Data::Element { name, attrs } => Some((name, attrs)),
        _ => None,
    }
}

fn has_class(attrs: &[(String, String)], class: &str) -> bool {
    attrs
        .iter()
        .find(|(k, _)| k == "class")
        .is_some_and(|(_, v)| v.split_ascii_whitespace().any(|c| c == class))
}

/// Whether `node` is or lies in a part of the page that is not prose.
fn outside_prose(dom: &Dom, node: usize) -> bool {
    let mut at = Some(node);
    while let Some(n) = at {
        if let Some((name, attrs)) = element(dom, n) {
            let local = name.local.as_str();
            if matches!(
                local,
                "details" | "table" | "svg" | "pre" | "nav" | "header" | "footer" | "code"
            ) || has_class(attrs, "key-numbers")
                || has_class(attrs, "byline")
            {
                return true;
            }
        }
        at = dom.nodes[n].parent;
    }
    false
}

/// The text of `node` as read: citation numbers (`<sup>`) and links to headings (`.anchor`)
/// left out, white space runs made one space.
fn read_text(dom: &Dom, node: usize) -> String {
    let mut out = String::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match &dom.nodes[n].data {
            Data::Text(t) => out.push_str(t),
            Data::Element { name, attrs } => {
                if name.local == "sup" || has_class(attrs, "anchor") || name.local == "svg" {
                    continue;
                }
                stack.extend(dom.nodes[n].children.iter().rev());
            }
            _ => stack.extend(dom.nodes[n].children.iter().rev()),
        }
    }
    // Tabs and line breaks are white space; a no-break space stays, as it joins.
    let mut text = String::with_capacity(out.len());
    let mut space = false;
    // The word joiner keeps a heading's link beside its last word; it is no text.
    for c in out.chars().filter(|&c| c != '\u{2060}') {
        if c.is_whitespace() && c != '\u{a0}' && c != '\u{202f}' {
            space = true;
        } else {
            if space && !text.is_empty() {
                text.push(' ');
            }
            space = false;
            text.push(c);
        }
    }
    text
}

/// The page's prose units, in page order.
pub fn units(dom: &Dom) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut narrative = false;
    for node in dom.descendants(0) {
        let Some((name, attrs)) = element(dom, node) else {
            continue;
        };
        if name.ns != Namespace::Html {
            continue;
        }
        match name.local.as_str() {
            "p" if has_class(attrs, "lede") => narrative = true,
            "h2" if read_text(dom, node).trim_start().starts_with(APPENDIX) => narrative = false,
            _ => {}
        }
        let counts = match name.local.as_str() {
            "p" | "figcaption" => true,
            // A list item whose text stands in paragraphs counts through them.
            "li" => !dom
                .descendants(node)
                .into_iter()
                .skip(1)
                .any(|n| element(dom, n).is_some_and(|(e, _)| e.local == "p")),
            _ => false,
        };
        if counts && !outside_prose(dom, node) {
            let text = read_text(dom, node);
            if !text.trim().is_empty() {
                out.push(Unit { narrative, text });
            }
        }
    }
    out
}
