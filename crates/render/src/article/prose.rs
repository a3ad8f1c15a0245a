//! The prose: Markdown with named placeholders, rendered by pulldown-cmark.
//!
//! `{{name}}` inside text is replaced by the escaped value, wrapped in
//! `<span data-value="name">` so the build's own checks can find each rendered value;
//! inside code and link destinations the value is inserted bare. `{{block:name}}` standing alone
//! as a paragraph is replaced by an HTML block. `{{cite:id}}` cites a claim of
//! `sources/claims.json`: a numbered link to its source note, numbered in the order of first
//! citation; `{{block:notes}}` places the notes. A name the results do not provide fails the build
//! with its name (and the reason, where the data cannot provide it); so does a highlight that
//! `content/article.json` declares and the prose never uses, and a claim the prose never cites.
//! The prose may leave out any other value or block, so a writer can delete a section without
//! touching code.

use std::collections::{BTreeMap, BTreeSet};

use pulldown_cmark::utils::TextMergeWithOffset;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratios_base::markup::Nesting;

use super::catalogue::{Blocks, Values};
use ratios_base::error::{Error, Result};
use ratios_model::project::claims::{ClaimId, Note, CLAIMS_PATH};
use ratios_model::project::config::CONFIG_PATH;
use ratios_model::project::PROSE_PATH;

/// The name of the block that places the source notes.
pub(crate) const NOTES_BLOCK: &str = "notes";

/// The name of the block that places the page's contents (its sections, with links).
pub(crate) const CONTENTS_BLOCK: &str = "contents";

/// The blocks made from the whole prose once its events are read: the contents from its
/// headings, the notes from its citations. Each stands once.
const ONCE: [&str; 2] = [CONTENTS_BLOCK, NOTES_BLOCK];

/// The prose as HTML, its blocks in place, with the claims it cites in the order of their first
/// citation (the notes' numbers) and its sections: each level-2 heading with an id, and its
/// text as HTML, collected from the Markdown events as they are rendered.
#[derive(Debug)]
pub struct Rendered {
    /// The prose as HTML, every placeholder replaced and every block in place.
    pub html: String,
    /// The ids of the claims it cites, in the order of their first citation: note 1 first.
    pub cited: Vec<ClaimId>,
    /// Each level-2 heading with an id, as (id, its text escaped for HTML), in order.
    pub sections: Vec<(String, String)>,
}

/// A block the prose places: made before the prose is read, or from the whole prose after.
enum Placed<'a> {
    Made(&'a str),
    Once(&'static str),
}

/// The citations met so far: each claim's number is its place in the order of first citation.
struct Citations<'a> {
    notes: &'a [Note],
    cited: Vec<ClaimId>,
}

impl Citations<'_> {
    /// The HTML of one citation of `id`: a superscript number linking its note. Its first
    /// citation carries the id the note links back to.
    fn cite(&mut self, id: &str, line: usize) -> Result<String> {
        let Some(note) = self.notes.iter().find(|n| n.id.0 == id) else {
            return Err(err_at(
                line,
                format!(
                    "unknown claim {{{{cite:{}}}}}: {CLAIMS_PATH} has no claim with that id",
                    near(id)
                ),
            ));
        };
        let (n, first) = match self.cited.iter().position(|c| *c == note.id) {
            Some(k) => (k + 1, false),
            None => {
                self.cited.push(note.id.clone());
                (self.cited.len(), true)
            }
        };
        let id = ratios_base::text::html_escape(&note.id.0);
        Ok(format!(
            "<sup class=\"cite\"><a href=\"#note-{id}\"{} aria-label=\"Source note {n}\">{n}</a></sup>",
            if first {
                format!(" id=\"cite-{id}\"")
            } else {
                String::new()
            }
        ))
    }
}

fn err(message: impl Into<String>) -> Error {
    Error::Config {
        file: PROSE_PATH.into(),
        message: message.into(),
    }
}

/// An error at `line` of the prose.
fn err_at(line: usize, message: impl std::fmt::Display) -> Error {
    err(format!("line {line}: {message}"))
}

/// Line numbers of byte offsets in the prose.
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Lines {
        Lines(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// The 1-based line holding byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset)
    }
}

fn near(s: &str) -> String {
    ratios_base::text::excerpt(s, 30)
}

/// One piece of a text after substitution.
enum Piece<'a> {
    Text(&'a str),
    Value { name: String, value: String },
    Cite(String),
}

/// Splits `text`, which starts at `line` of the prose, at its placeholders, looking each one up;
/// records the names used.
fn substitute<'a>(
    text: &'a str,
    line: usize,
    values: &Values,
    used: &mut BTreeSet<String>,
) -> Result<Vec<Piece<'a>>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        pieces.push(Piece::Text(&rest[..start]));
        let at = line
            + text[..text.len() - rest.len() + start]
                .matches('\n')
                .count();
        let after = &rest[start + 2..];
        let unclosed = || {
            err_at(
                at,
                format!("unclosed placeholder near {:?}", near(&rest[start..])),
            )
        };
        let end = after.find("}}").ok_or_else(unclosed)?;
        if after[..end].contains("{{") || after[..end].contains('\n') {
            return Err(unclosed());
        }
        let name = after[..end].trim();
        if let Some(id) = name.strip_prefix("cite:") {
            pieces.push(Piece::Cite(id.trim().to_string()));
            rest = &after[end + 2..];
            continue;
        }
        if name.starts_with("block:") {
            return Err(err_at(
                at,
                format!("placeholder {{{{{name}}}}} must stand alone in its own paragraph, with a blank line before and after it"),
            ));
        }
        // `{{name|whole}}`: the value with every number in it rounded to whole units, for
        // the story, which claims no more precision than one run allows.
        let (base, whole) = ratios_base::number::without_whole(name);
        let value = values.get(base).ok_or_else(|| unknown(at, base, values))?;
        used.insert(base.to_string());
        pieces.push(Piece::Value {
            name: if whole {
                format!("{base}{}", ratios_base::number::WHOLE)
            } else {
                base.to_string()
            },
            value: ratios_base::number::shown(value, whole),
        });
        rest = &after[end + 2..];
    }
    pieces.push(Piece::Text(rest));
    Ok(pieces)
}

fn unknown(line: usize, name: &str, values: &Values) -> Error {
    let family = name.rsplit_once('.').map(|(f, _)| format!("{f}.*"));
    let why = values
        .unavailable
        .get(name)
        .or_else(|| family.and_then(|f| values.unavailable.get(&f)));
    match why {
        Some(why) => err_at(
            line,
            format!(
                "placeholder {{{{{}}}}} has no value here: {why}",
                near(name)
            ),
        ),
        None => err_at(
            line,
            format!(
                "unknown placeholder {{{{{}}}}}: the results provide no such value",
                near(name)
            ),
        ),
    }
}

/// Substitutes into a text that cannot hold markup (code, a link destination).
fn substitute_bare(
    text: &str,
    line: usize,
    values: &Values,
    used: &mut BTreeSet<String>,
) -> Result<String> {
    substitute(text, line, values, used)?
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => Ok(t.to_string()),
            Piece::Value { value, .. } => Ok(value),
            Piece::Cite(id) => Err(err_at(
                line,
                format!(
                    "{{{{cite:{}}}}} cannot stand in code or a link address; cite in the text",
                    near(&id)
                ),
            )),
        })
        .collect()
}

/// Renders the prose to HTML. `highlights` are the ids `content/article.json` declares; each must
/// be used (any `hl.<id>.` value counts). `notes` are the checked claims; each must be cited.
pub fn render_prose(
    markdown: &str,
    values: &Values,
    blocks: &Blocks,
    highlights: &[String],
    notes: &[Note],
) -> Result<Rendered> {
    render_page_prose(PROSE_PATH, markdown, values, blocks, highlights, notes)
}

/// [`render_prose`] of the prose at `path` (the article's, or the data page's), whose errors
/// name that file.
pub(crate) fn render_page_prose(
    path: &str,
    markdown: &str,
    values: &Values,
    blocks: &Blocks,
    highlights: &[String],
    notes: &[Note],
) -> Result<Rendered> {
    render_any(markdown, values, blocks, highlights, notes).map_err(|e| match e {
        Error::Config { file, message } if file == PROSE_PATH => Error::Config {
            file: path.to_string(),
            message: message.replace(PROSE_PATH, path),
        },
        other => other,
    })
}

/// The element a Markdown event opens (`true`) or closes, for the nesting check.
fn markdown_element(event: &Event) -> Option<(&'static str, bool)> {
    const HEADINGS: [&str; 6] = ["h1", "h2", "h3", "h4", "h5", "h6"];
    let (end, opens) = match event {
        Event::Start(tag) => (tag.to_end(), true),
        Event::End(tag) => (*tag, false),
        _ => return None,
    };
    let name = match end {
        TagEnd::Paragraph => "p",
        TagEnd::Heading(level) => HEADINGS[level as usize - 1],
        TagEnd::BlockQuote(_) => "blockquote",
        TagEnd::CodeBlock => "pre",
        TagEnd::List(true) => "ol",
        TagEnd::List(false) => "ul",
        TagEnd::Item => "li",
        TagEnd::Table => "table",
        TagEnd::Emphasis => "em",
        TagEnd::Strong => "strong",
        TagEnd::Strikethrough => "del",
        TagEnd::Link => "a",
        _ => return None,
    };
    Some((name, opens))
}

/// Opens the element `name` (its tag at byte `at`, line `line`) on `nesting`, unless a browser
/// would not build it where it stands ([`super::raw_html::out_of_place`]); after a tag out of
/// order, the first problem is the one to name, at the end.
fn open_element(
    name: &str,
    self_closing: bool,
    at: usize,
    line: usize,
    nesting: &mut Nesting,
) -> Result<()> {
    if !nesting.failed() {
        if let Some(what) = super::raw_html::out_of_place(name, nesting.open()) {
            return Err(err_at(line, format!("raw HTML: {what}")));
        }
    }
    nesting.start(name, self_closing, at);
    Ok(())
}

/// Feeds the tags of one run of the prose's raw HTML, which starts at byte `at` of the prose
/// (line `line`), to `nesting`.
fn nest_raw(html: &str, at: usize, line: usize, nesting: &mut Nesting) -> Result<()> {
    for tag in ratios_base::markup::tags(html) {
        if tag.end {
            nesting.end(&tag.name, at + tag.at);
        } else {
            open_element(&tag.name, tag.self_closing, at + tag.at, line, nesting)?;
        }
    }
    Ok(())
}

/// Checks one run of the prose's raw HTML against the allow-list, then nests its tags.
fn raw_html(html: &str, at: usize, line: usize, nesting: &mut Nesting) -> Result<()> {
    super::raw_html::check_raw(html).map_err(|what| err_at(line, format!("raw HTML: {what}")))?;
    nest_raw(html, at, line, nesting)
}

fn render_any(
    markdown: &str,
    values: &Values,
    blocks: &Blocks,
    highlights: &[String],
    notes: &[Note],
) -> Result<Rendered> {
    let mut used = BTreeSet::new();
    let mut citations = Citations {
        notes,
        cited: Vec::new(),
    };
    // The blocks of [`ONCE`] placed so far.
    let mut placed_once = BTreeSet::new();
    // The id of the heading being rendered, for the link to it that ends the heading.
    let mut heading: Option<String> = None;
    let lines = Lines::of(markdown);
    let parser = TextMergeWithOffset::new(
        Parser::new_ext(
            markdown,
            Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES,
        )
        .into_offset_iter(),
    );
    let (events, starts): (Vec<Event>, Vec<usize>) =
        parser.map(|(event, range)| (event, range.start)).unzip();
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut in_code_block = false;
    // The HTML block being read: its lines so far, where it starts and its first line.
    let mut html_block: Option<(String, usize, usize)> = None;
    let mut nesting = Nesting::default();
    let mut heading_ids: BTreeMap<String, usize> = BTreeMap::new();
    // Stands for a block until the prose is written out: a text the prose cannot hold, since it
    // ends in the SHA-256 of the prose itself.
    let marker = format!(
        "scenario-ratios-block-{}-",
        &ratios_base::digest::HexDigest::sha256(markdown.as_bytes()).as_str()[..32]
    );
    let mut placed: Vec<Placed> = Vec::new();
    // The level-2 headings with an id, and the text of the one being read.
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut section: Option<(String, usize)> = None;
    let mut i = 0;
    while i < events.len() {
        // A paragraph holding only `{{block:name}}` becomes the block's HTML.
        if let (
            Event::Start(Tag::Paragraph),
            Some(Event::Text(t)),
            Some(Event::End(TagEnd::Paragraph)),
        ) = (&events[i], events.get(i + 1), events.get(i + 2))
        {
            let line = lines.line(starts[i]);
            if let Some(name) = t
                .trim()
                .strip_prefix("{{")
                .and_then(|s| s.strip_suffix("}}"))
                .map(str::trim)
                .and_then(|s| s.strip_prefix("block:"))
            {
                // The contents and the notes are made from the whole rendered prose (its
                // headings, the citations' numbers): placed as a marker paragraph, which passes
                // the allow-list, and filled in afterwards. Each stands once.
                let block = if let Some(&once) = ONCE.iter().find(|block| **block == name) {
                    if !placed_once.insert(name) {
                        return Err(err_at(
                            line,
                            format!("{{{{block:{name}}}}} is placed twice; the {name} stand once"),
                        ));
                    }
                    Placed::Once(once)
                } else {
                    Placed::Made(blocks.get(name).ok_or_else(|| {
                        err_at(line, format!("unknown block {{{{block:{}}}}}", near(name)))
                    })?)
                };
                // A marker paragraph now; the block goes in after the prose is written out.
                out.push(Event::Html(CowStr::from(format!(
                    "<p>{marker}{}</p>\n",
                    placed.len()
                ))));
                placed.push(block);
                i += 3;
                continue;
            }
        }
        let line = lines.line(starts[i]);
        // The elements Markdown writes nest with the raw HTML's: `<b>` opened in one paragraph
        // and closed in the next is found at its line.
        match markdown_element(&events[i]) {
            Some((name, true)) => open_element(name, false, starts[i], line, &mut nesting)?,
            Some((name, false)) => nesting.end(name, starts[i]),
            None => {}
        }
        match &events[i] {
            // An image would load something; a figure of the page is a block.
            Event::Start(Tag::Image { .. }) => {
                return Err(err_at(
                    line,
                    "an image: the page loads nothing, and its figures are blocks ({{block:…}})",
                ))
            }
            Event::Start(Tag::Heading { attrs, .. }) if !attrs.is_empty() => {
                return Err(err_at(
                    line,
                    "a heading may carry an {#id} and .classes, no other attribute",
                ))
            }
            _ => {}
        }
        match &events[i] {
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code_block = true;
                out.push(Event::Start(Tag::CodeBlock(kind.clone())));
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                out.push(Event::End(TagEnd::CodeBlock));
            }
            // Inside a code block a value is inserted bare: a reader copies the commands.
            Event::Text(t) if in_code_block => {
                out.push(Event::Text(
                    substitute_bare(t, line, values, &mut used)?.into(),
                ));
            }
            Event::Text(t) => {
                // Every number is joined to the unit after it by a no-break space.
                let mut after_value = false;
                for piece in substitute(t, line, values, &mut used)? {
                    let value = matches!(piece, Piece::Value { .. });
                    match piece {
                        Piece::Text("") => {}
                        Piece::Text(t) => out.push(Event::Text(
                            ratios_base::text::join_units(t, after_value).into(),
                        )),
                        Piece::Value { name, value } => {
                            // A short name with hyphens (llama2-70b-99.9) is kept on one line.
                            let token = value.contains('-')
                                && !value.chars().any(char::is_whitespace)
                                && value.chars().count() <= 32;
                            out.push(Event::InlineHtml(
                                format!(
                                    "<span data-value=\"{}\"{}>",
                                    ratios_base::text::html_escape(&name),
                                    if token { " class=\"token\"" } else { "" }
                                )
                                .into(),
                            ));
                            let text = ratios_base::text::join_units(&value, false);
                            if token {
                                out.push(Event::Text(text.into()));
                            } else {
                                // In a longer value, each short hyphenated word (a model's name
                                // in a sentence) is kept on one line too.
                                for (k, word) in text.split(' ').enumerate() {
                                    if k > 0 {
                                        out.push(Event::Text(" ".into()));
                                    }
                                    if word.contains('-')
                                        && word.chars().any(char::is_alphanumeric)
                                        && word.chars().count() <= 32
                                    {
                                        out.push(Event::InlineHtml(
                                            "<span class=\"token\">".into(),
                                        ));
                                        out.push(Event::Text(word.to_string().into()));
                                        out.push(Event::InlineHtml("</span>".into()));
                                    } else {
                                        out.push(Event::Text(word.to_string().into()));
                                    }
                                }
                            }
                            out.push(Event::InlineHtml("</span>".into()));
                        }
                        Piece::Cite(id) => {
                            out.push(Event::InlineHtml(citations.cite(&id, line)?.into()));
                        }
                    }
                    after_value = value;
                }
            }
            Event::Code(t) => out.push(Event::Code(
                substitute_bare(t, line, values, &mut used)?.into(),
            )),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let dest_url = substitute_bare(dest_url, line, values, &mut used)?;
                if !super::raw_html::allowed_url(&dest_url) {
                    return Err(err_at(
                        line,
                        format!(
                            "a link to {:?}: the prose links to an address relative to the page, or with https:, http: or mailto:",
                            ratios_base::text::excerpt(&dest_url, 60)
                        ),
                    ));
                }
                out.push(Event::Start(Tag::Link {
                    link_type: *link_type,
                    dest_url: dest_url.into(),
                    title: title.clone(),
                    id: id.clone(),
                }))
            }
            Event::Start(Tag::Heading {
                id: Some(id),
                level,
                ..
            }) => {
                if let Some(first) = heading_ids.insert(id.to_string(), line) {
                    return Err(err_at(
                        line,
                        format!(
                            "heading id {{#{}}} is already used at line {first}",
                            near(id)
                        ),
                    ));
                }
                heading = Some(id.to_string());
                out.push(events[i].clone());
                if *level == HeadingLevel::H2 {
                    section = Some((id.to_string(), out.len()));
                }
            }
            // A heading with an id ends in a visible link to itself, joined to its last word
            // (a word joiner, U+2060: the link never wraps onto a line of its own).
            Event::End(TagEnd::Heading(_)) => {
                // The section's name: the heading's text as rendered, its tags aside.
                if let Some((id, from)) = section.take() {
                    let text: String = out[from..]
                        .iter()
                        .filter_map(|e| match e {
                            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                            _ => None,
                        })
                        .collect();
                    let mut name = String::new();
                    ratios_base::markup::escape_text(&text, &mut name);
                    sections.push((id, name.trim().to_string()));
                }
                if let Some(id) = heading.take() {
                    let id = ratios_base::text::html_escape(&id);
                    out.push(Event::InlineHtml(
                        format!(
                            "&#8288;<a class=\"anchor\" href=\"#{id}\" aria-label=\"Link to this section\">§</a>"
                        )
                        .into(),
                    ));
                }
                out.push(events[i].clone());
            }
            // Raw HTML passes through as written, held to the allow-list; its tags must nest,
            // across blocks too.
            // An HTML block comes line by line: it is checked whole, at its end, so that a tag
            // or a comment spanning lines is read as a browser reads it.
            Event::Start(Tag::HtmlBlock) => {
                html_block = Some((String::new(), starts[i], line));
                out.push(events[i].clone());
            }
            Event::Html(h) => {
                if let Some((block, _, _)) = html_block.as_mut() {
                    block.push_str(h);
                } else {
                    raw_html(h, starts[i], line, &mut nesting)?;
                }
                out.push(events[i].clone());
            }
            Event::End(TagEnd::HtmlBlock) => {
                if let Some((block, at, first)) = html_block.take() {
                    raw_html(&block, at, first, &mut nesting)?;
                }
                out.push(events[i].clone());
            }
            // Raw HTML within a line of text is phrasing only: a browser ends the paragraph
            // before a block element.
            Event::InlineHtml(h) => {
                super::raw_html::check_raw(h)
                    .map_err(|what| err_at(line, format!("raw HTML: {what}")))?;
                if let Some(block) = super::raw_html::block_element(h) {
                    return Err(err_at(
                        line,
                        format!("raw HTML: <{block}> within a line of text, where a browser ends the paragraph before it; write it on lines of its own, with a blank line before"),
                    ));
                }
                nest_raw(h, starts[i], line, &mut nesting)?;
                out.push(events[i].clone());
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    if let Some(m) = nesting.finish() {
        let (at, what) = m.describe(|at| lines.line(at));
        return Err(err_at(lines.line(at), format!("raw HTML: {what}")));
    }
    let unused: Vec<String> = highlights
        .iter()
        .filter(|id| {
            let prefix = format!("hl.{id}.");
            !used.iter().any(|u| u.starts_with(&prefix))
        })
        .map(|id| format!("{{{{hl.{id}.*}}}}"))
        .collect();
    if !unused.is_empty() {
        return Err(Error::Config {
            file: CONFIG_PATH.into(),
            message: format!(
                "highlights declared here but not used by {PROSE_PATH}: {}",
                unused.join(", ")
            ),
        });
    }
    let uncited: Vec<&str> = notes
        .iter()
        .filter(|n| !citations.cited.contains(&n.id))
        .map(|n| n.id.0.as_str())
        .collect();
    if !uncited.is_empty() {
        return Err(Error::Config {
            file: CLAIMS_PATH.into(),
            message: format!(
                "claims never cited by {PROSE_PATH}: {}; cite each with {{{{cite:id}}}} or remove it",
                uncited.join(", ")
            ),
        });
    }
    if !citations.cited.is_empty() && !placed_once.contains(NOTES_BLOCK) {
        return Err(err(
            "the prose cites claims but never places their notes; add {{block:notes}}",
        ));
    }
    let mut html = String::with_capacity(markdown.len() * 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    // The contents and the notes, made from the whole prose, stand where the prose placed them.
    let contents = super::blocks::contents(&sections)?;
    let notes_html = if placed_once.contains(NOTES_BLOCK) {
        super::blocks::notes(notes, &citations.cited)?
    } else {
        String::new()
    };
    let placed: Vec<&str> = placed
        .iter()
        .map(|p| match p {
            Placed::Made(html) => html,
            Placed::Once(CONTENTS_BLOCK) => contents.as_str(),
            Placed::Once(_) => notes_html.as_str(),
        })
        .collect();
    let html = super::raw_html::normalise(&html, &marker, &placed, PROSE_PATH)?;
    Ok(Rendered {
        html,
        cited: citations.cited,
        sections,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(pairs: &[(&str, &str)]) -> Values {
        let mut v = Values::default();
        for (k, val) in pairs {
            v.values.insert(k.to_string(), val.to_string());
        }
        v
    }

    #[test]
    fn values_are_escaped_and_marked_and_blocks_inserted_raw() {
        let v = vals(&[("org", "<script>alert(1)</script>")]);
        let b: Blocks = [("fig".to_string(), "<figure>x</figure>".to_string())].into();
        let html = render_prose("Org {{org}}.\n\n{{block:fig}}\n", &v, &b, &[], &[])
            .unwrap()
            .html;
        assert!(
            html.contains(
                "Org <span data-value=\"org\">&lt;script&gt;alert(1)&lt;/script&gt;</span>."
            ),
            "{html}"
        );
        assert!(html.contains("<figure>x</figure>"));
        assert!(!html.contains("<script>"));
    }

    #[test]
    fn errors_name_the_line_of_the_prose() {
        let v = vals(&[("a", "1")]);
        let line_of = |md: &str| {
            let e = render_prose(md, &v, &Blocks::new(), &[], &[])
                .unwrap_err()
                .to_string();
            let rest = e.strip_prefix("content/article.md: line ").unwrap_or(&e);
            (rest.split(':').next().unwrap_or("").to_string(), e)
        };
        for (md, line, says) in [
            (
                "One {{a}} and\n{{b}} two.\n",
                "2",
                "unknown placeholder {{b}}",
            ),
            (
                "x\n\n```sh\necho {{a}}\necho {{c}}\n```\n",
                "5",
                "unknown placeholder {{c}}",
            ),
            ("x\n\n[x](#{{d}})\n", "3", "unknown placeholder {{d}}"),
            ("x\n\n{{block:e}}\n", "3", "unknown block {{block:e}}"),
            ("x\n\nOpen {{a} here {{a}}.\n", "3", "unclosed placeholder"),
            ("x\n\nOpen {{a\n", "3", "unclosed placeholder"),
            (
                "x\n\n<details><summary>More\n\ny\n",
                "3",
                "raw HTML: <summary> is never closed",
            ),
            (
                "x\n\n<div>\n\n*y*\n\n</span>\n",
                "7",
                "raw HTML: </span> closes <div>, opened at line 3",
            ),
            (
                "x <b>y</b></b>\n",
                "1",
                "raw HTML: </b> closes <p>, opened at line 1",
            ),
            (
                "## A {#a}\n\ntext\n\n## B {#a}\n",
                "5",
                "heading id {#a} is already used at line 1",
            ),
        ] {
            let (got, e) = line_of(md);
            assert_eq!(got, line, "{md:?}: {e}");
            assert!(e.contains(says), "{md:?}: {e}");
        }
    }

    #[test]
    fn unknown_placeholders_and_unused_highlights_fail_with_their_names() {
        let mut v = vals(&[("a", "1"), ("hl.x.r", "1"), ("hl.y.r", "2")]);
        v.unavailable.insert("logs".into(), "no log".into());
        let e = render_prose("{{a}} {{zzz}}", &v, &Blocks::new(), &[], &[]).unwrap_err();
        assert!(e.to_string().contains("unknown placeholder {{zzz}}"), "{e}");
        let e = render_prose("{{logs}}", &v, &Blocks::new(), &[], &[]).unwrap_err();
        assert!(
            e.to_string().contains("{{logs}} has no value here: no log"),
            "{e}"
        );
        // Values and blocks may go unused; declared highlights may not.
        let ids = ["x".to_string(), "y".to_string()];
        assert!(render_prose("{{hl.x.r}} {{hl.y.r}}", &v, &Blocks::new(), &ids, &[]).is_ok());
        let e = render_prose("{{hl.x.r}}", &v, &Blocks::new(), &ids, &[]).unwrap_err();
        assert!(
            e.to_string()
                .contains("not used by content/article.md: {{hl.y.*}}"),
            "{e}"
        );
        let e = render_prose("{{a}} {{block:x}}", &v, &Blocks::new(), &[], &[]).unwrap_err();
        assert!(e.to_string().contains("must stand alone"), "{e}");
        let e = render_prose("{{a}} {{b", &v, &Blocks::new(), &[], &[]).unwrap_err();
        assert!(e.to_string().contains("unclosed placeholder"), "{e}");
        let e = render_prose("{{block:nope}}", &v, &Blocks::new(), &[], &[]).unwrap_err();
        assert!(
            e.to_string().contains("unknown block {{block:nope}}"),
            "{e}"
        );
    }

    fn note(id: &str) -> Note {
        Note {
            id: ClaimId(id.into()),
            says: "s".into(),
            repository: "o/r".into(),
            commit: "0".repeat(40),
            path: "p.h".into(),
            input: "p".into(),
            first_line: 1,
            last_line: 1,
            words: vec!["w".into()],
            url: "https://example.org/".into(),
        }
    }

    /// Raw HTML is read as a browser reads it: an HTML block whole, across its lines; a block
    /// element never inside a line of text.
    #[test]
    fn raw_html_is_checked_as_a_browser_reads_it() {
        let fails = |md: &str| {
            render_prose(md, &vals(&[]), &Blocks::new(), &[], &[])
                .unwrap_err()
                .to_string()
        };
        // Each markup with the line it is refused with. A tag across two lines is read whole:
        // the first is never closed.
        for (md, line) in [
            (
                "Intro.\n\n<div\nclass=\"x\">\n\nNext.\n",
                "line 3: raw HTML: <div> is never closed",
            ),
            (
                "Intro.\n\n<div\nid=\"x\"\n\nNext.\n",
                "line 3: raw HTML: a tag or comment that does not end",
            ),
            (
                "Intro.\n\n- <!--\n\nAfter the list.\n",
                "raw HTML: a tag or comment that does not end",
            ),
            (
                "Intro <b>bold.\n\nNext</b> paragraph.\n",
                "line 1: raw HTML: </p> closes <b>, opened at line 1",
            ),
            (
                "Intro.\n\n<td>cell</td>\n",
                "line 3: raw HTML: <td> outside a <table>",
            ),
            (
                "Intro.\n\n<p><h6>x</h6></p>\n",
                "line 3: raw HTML: <h6> inside <p>",
            ),
            (
                "Intro.\n\n<a>\n\n## Head\n\n</a>\n",
                "line 5: raw HTML: <h2> inside <a>",
            ),
            (
                "Text <div>block</div> more.\n",
                "line 1: raw HTML: <div> within a line of text",
            ),
        ] {
            let e = fails(md);
            assert!(e.contains(line), "{md:?}: {e}");
        }
        // A block spanning lines, written whole, passes.
        let ok = render_prose(
            "<details\nid=\"x\">\n<summary>More</summary>\n\nText.\n\n</details>\n",
            &vals(&[]),
            &Blocks::new(),
            &[],
            &[],
        )
        .unwrap();
        assert!(ok.html.starts_with("<details id=\"x\">"), "{}", ok.html);
    }

    /// The contents are made from the headings' events: each level-2 heading with an id, named by
    /// its text as rendered (a value, code), without its link to itself.
    #[test]
    fn the_contents_name_each_section_by_its_heading() {
        let r = render_prose(
            "{{block:contents}}\n\n## Why `x` keeps {{v}} & more {#a}\n\nText.\n\n### Deeper {#c}\n\n## Second {#b}\n",
            &vals(&[("v", "50 %")]),
            &Blocks::new(),
            &[],
            &[],
        )
        .unwrap();
        assert_eq!(
            r.sections,
            [
                (
                    "a".to_string(),
                    "Why x keeps 50&nbsp;% &amp; more".to_string()
                ),
                ("b".to_string(), "Second".to_string())
            ]
        );
        assert!(
            r.html.starts_with("<nav class=\"contents\"")
                && r.html
                    .contains("<li><a href=\"#a\">Why x keeps 50&nbsp;% &amp; more</a></li>"),
            "{}",
            r.html
        );
    }

    #[test]
    fn citations_are_numbered_by_first_use_and_every_claim_is_cited() {
        let notes = [note("a"), note("b")];
        let r = render_prose(
            "X{{cite:b}} y{{cite:a}} z{{cite:b}}.\n\n{{block:notes}}\n",
            &vals(&[]),
            &Blocks::new(),
            &[],
            &notes,
        )
        .unwrap();
        assert_eq!(r.cited, [ClaimId("b".into()), ClaimId("a".into())]);
        assert!(r.html.contains("X<sup class=\"cite\"><a href=\"#note-b\" id=\"cite-b\" aria-label=\"Source note 1\">1</a></sup>"), "{}", r.html);
        assert!(r.html.contains("y<sup class=\"cite\"><a href=\"#note-a\" id=\"cite-a\" aria-label=\"Source note 2\">2</a></sup>"), "{}", r.html);
        // A second citation links the same note and carries no id of its own.
        assert!(
            r.html.contains(
                "z<sup class=\"cite\"><a href=\"#note-b\" aria-label=\"Source note 1\">1</a></sup>"
            ),
            "{}",
            r.html
        );
        // The notes stand where the prose placed them, in the order of first citation.
        let (b, a) = (
            r.html.find("id=\"note-b\"").unwrap(),
            r.html.find("id=\"note-a\"").unwrap(),
        );
        assert!(r.html.find("z<sup").unwrap() < b && b < a, "{}", r.html);
        let fails = |md: &str, says: &str| {
            let e = render_prose(md, &vals(&[]), &Blocks::new(), &[], &notes)
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{md:?}: {e}");
        };
        fails(
            "{{cite:a}}\n\n{{block:notes}}\n",
            "sources/claims.json: claims never cited by content/article.md: b",
        );
        fails(
            "{{cite:a}} {{cite:b}} {{cite:c}}",
            "line 1: unknown claim {{cite:c}}",
        );
        fails(
            "{{cite:a}} {{cite:b}}",
            "never places their notes; add {{block:notes}}",
        );
        fails(
            "`{{cite:a}}` {{cite:b}}",
            "cannot stand in code or a link address",
        );
        fails(
            "{{cite:a}} {{cite:b}}\n\n{{block:notes}}\n\n{{block:notes}}\n",
            "line 5: {{block:notes}} is placed twice",
        );
    }

    #[test]
    fn raw_html_that_nests_across_blocks_passes_through() {
        let md = "<details>\n<summary>More</summary>\n\nSome *text* <br> and <span>x</span>.\n\n</details>\n";
        let html = render_prose(md, &vals(&[]), &Blocks::new(), &[], &[])
            .unwrap()
            .html;
        assert!(
            html.contains("<details>") && html.contains("</details>"),
            "{html}"
        );
    }

    #[test]
    fn values_in_code_blocks_are_bare() {
        let v = vals(&[("dir", "folder-1.0")]);
        let html = render_prose("```sh\ncd {{dir}}\n```\n", &v, &Blocks::new(), &[], &[])
            .unwrap()
            .html;
        assert!(
            html.contains("<code class=\"language-sh\">cd folder-1.0\n</code>"),
            "{html}"
        );
    }

    #[test]
    fn placeholders_work_in_links_code_and_emphasis() {
        let v = vals(&[("url", "https://e.org/?a=1&b=2"), ("c", "abc"), ("n", "12")]);
        let html = render_prose("[x]({{url}}) `{{c}}` *{{n}}*", &v, &Blocks::new(), &[], &[])
            .unwrap()
            .html;
        assert!(
            html.contains("href=\"https://e.org/?a=1&amp;b=2\""),
            "{html}"
        );
        assert!(html.contains("<code>abc</code>"));
        assert!(html.contains("<em><span data-value=\"n\">12</span></em>"));
    }

    #[test]
    fn a_short_hyphenated_value_stays_on_one_line() {
        let v = vals(&[
            ("m", "llama2-70b-99.9"),
            ("s", "a well-known sentence"),
            ("n", "85.36 %"),
        ]);
        let html = render_prose("{{m}}, {{s}}, {{n}}", &v, &Blocks::new(), &[], &[])
            .unwrap()
            .html;
        assert!(
            html.contains("<span data-value=\"m\" class=\"token\">llama2-70b-99.9</span>"),
            "{html}"
        );
        // In a longer value, the hyphenated word alone is kept on one line.
        assert!(
            html.contains(
                "<span data-value=\"s\">a <span class=\"token\">well-known</span> sentence</span>"
            ),
            "{html}"
        );
        assert!(html.contains("<span data-value=\"n\">85.36"), "{html}");
    }

    #[test]
    fn a_whole_placeholder_rounds_every_number_of_its_value_and_keeps_names() {
        let v = vals(&[("s", "llama3.1-8b kept 93.84 % and 12.51 points")]);
        let html = render_prose("{{s|whole}} / {{s}}", &v, &Blocks::new(), &[], &[])
            .unwrap()
            .html;
        assert!(html.contains("<span data-value=\"s|whole\">"), "{html}");
        assert!(html.contains("kept 94&nbsp;% and 13&nbsp;points"), "{html}");
        assert!(html.contains("93.84&nbsp;%"), "{html}");
        assert!(html.contains("llama3.1-8b"), "{html}");
        // An unknown name is named without its filter.
        let e = render_prose("{{t|whole}}", &v, &Blocks::new(), &[], &[]).unwrap_err();
        assert!(e.to_string().contains("{{t}}"), "{e}");
    }
}
