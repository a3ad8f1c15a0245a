//! HTML read token by token: tags with their attributes, text, comments, each at its byte
//! offset; the nesting of elements (which element a run of tags leaves open, or closes out of
//! order); and the escapes the page is written with.
//!
//! The page the build writes closes every element it opens (its templates and pulldown-cmark
//! do), and the prose's raw HTML is held to an allow-list of plain elements, refused otherwise:
//! so the pages are read here by their tags, as WHATWG's tokenizer reads tags, text, comments
//! and the raw text of `<script>` and `<style>`, without the tree-building rules a browser
//! applies to markup that does not nest. A tag out of place can only come from raw HTML in the
//! prose: the prose is checked with [`Nesting`] (naming the line of `content/article.md`), and
//! the finished page again by `self_check` (naming the line of `article.html`). Positions are
//! byte offsets the caller turns into lines. The tests read the pages with html5ever too, as a
//! browser builds them.

use std::borrow::Cow;

/// Elements that have no end tag.
pub const VOID_ELEMENTS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Elements whose content is text up to their end tag, read as written.
const RAW_TEXT: &[&str] = &["script", "style", "xmp", "iframe", "noembed", "noframes"];

/// Elements whose content is text up to their end tag, character references decoded.
const ESCAPABLE_RAW_TEXT: &[&str] = &["textarea", "title"];

/// One token of a run of HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token<'a> {
    /// A start or end tag.
    Tag(TagAt),
    /// Text as written (character references not yet decoded), at its offset; `raw` for the
    /// content of `<script>`, `<style>` and the like, where `&` is only `&`.
    Text {
        /// The run of text, a slice of the input as written.
        text: &'a str,
        /// The byte offset in the input where the run starts.
        at: usize,
        /// Whether the run is the content of a raw-text element, to be read without decoding.
        raw: bool,
    },
    /// A comment, at its offset.
    Comment {
        /// The byte offset of the comment's `<` (of `<!--`, or of a bogus `</…>` comment).
        at: usize,
    },
    /// A doctype or another `<!…>` or `<?…>` declaration, at its offset.
    Declaration {
        /// The byte offset of the declaration's `<`.
        at: usize,
    },
    /// A tag, comment or declaration that the input ends inside, at its offset: a browser drops
    /// it (a comment, with all that follows).
    Unfinished {
        /// The byte offset of the unfinished token's `<`.
        at: usize,
    },
}

/// The first way a run of tags is not nested, with the byte offsets of the tags concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misnesting {
    /// `</end>` at `at` meets `<open>`, opened at `from`, as the innermost open element.
    ClosesAnother {
        /// The element the end tag names, the one it was meant to close.
        end: String,
        /// The byte offset of the end tag's `<`.
        at: usize,
        /// The innermost element open when the end tag comes, the one it closes instead.
        open: String,
        /// The byte offset of that element's start tag.
        from: usize,
    },
    /// `</end>` at `at` with no element open.
    ClosesNothing {
        /// The element the end tag names, which no open element matches.
        end: String,
        /// The byte offset of the end tag's `<`.
        at: usize,
    },
    /// `<open>` at `from` is still open at the end.
    NeverClosed {
        /// The innermost element left open when the tags run out.
        open: String,
        /// The byte offset of its start tag's `<`.
        from: usize,
    },
}

impl Misnesting {
    /// Where the problem is (the offset of the tag to mend) and what it is, any other position
    /// written by `line` (an offset to its line number).
    pub fn describe(&self, line: impl Fn(usize) -> usize) -> (usize, String) {
        // A tag name is whatever the prose wrote: shown short, control characters escaped.
        let name = |s: &str| crate::text::excerpt(&s.escape_debug().to_string(), 40);
        match self {
            Misnesting::ClosesAnother {
                end,
                at,
                open,
                from,
            } => (
                *at,
                format!(
                    "</{}> closes <{}>, opened at line {}",
                    name(end),
                    name(open),
                    line(*from)
                ),
            ),
            Misnesting::ClosesNothing { end, at } => {
                (*at, format!("</{}> closes no open element", name(end)))
            }
            Misnesting::NeverClosed { open, from } => {
                (*from, format!("<{}> is never closed", name(open)))
            }
        }
    }
}

/// The elements open at a point of a run of tags. Names are compared lower-cased.
#[derive(Debug, Default)]
pub struct Nesting {
    open: Vec<(String, usize)>,
    first_problem: Option<Misnesting>,
}

impl Nesting {
    /// A start tag `<name>` at `at`.
    pub fn start(&mut self, name: &str, self_closing: bool, at: usize) {
        if !self_closing && !VOID_ELEMENTS.contains(&name) {
            self.open.push((name.to_string(), at));
        }
    }

    /// An end tag `</name>` at `at`. Only the first problem is kept: after it, every later tag
    /// would be out of step too.
    pub fn end(&mut self, name: &str, at: usize) {
        if self.first_problem.is_some() {
            return;
        }
        self.first_problem = match self.open.pop() {
            Some((open, _)) if open == name => None,
            Some((open, from)) => Some(Misnesting::ClosesAnother {
                end: name.to_string(),
                at,
                open,
                from,
            }),
            None => Some(Misnesting::ClosesNothing {
                end: name.to_string(),
                at,
            }),
        };
    }

    /// Feeds every tag of the HTML fragment `html`, which starts at byte `base` of the whole.
    pub fn feed(&mut self, html: &str, base: usize) {
        for tag in tags(html) {
            if tag.end {
                self.end(&tag.name, base + tag.at);
            } else {
                self.start(&tag.name, tag.self_closing, base + tag.at);
            }
        }
    }

    /// Whether a tag has already closed another, or nothing (the first problem is kept).
    pub fn failed(&self) -> bool {
        self.first_problem.is_some()
    }

    /// The elements open now, the innermost last.
    pub fn open(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.open.iter().map(|(name, _)| name.as_str())
    }

    /// The first problem, or else the innermost element left open.
    pub fn finish(self) -> Option<Misnesting> {
        self.first_problem.or_else(|| {
            self.open
                .last()
                .map(|(open, from)| Misnesting::NeverClosed {
                    open: open.clone(),
                    from: *from,
                })
        })
    }
}

/// A start or end tag of a run of HTML, as a WHATWG tokenizer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagAt {
    /// The tag's name, lower-cased (as the tokenizer gives it).
    pub name: String,
    /// An end tag (`</name>`).
    pub end: bool,
    /// Written `<name/>`.
    pub self_closing: bool,
    /// Its attributes in the order written, a repeated one left out.
    pub attributes: Vec<(String, String)>,
    /// The byte offset of its `<`.
    pub at: usize,
}

/// Every tag of `html`, in order, read as WHATWG's tokenizer reads tags: inside `<style>`,
/// `<textarea>`, `<title>`, `<script>` and the like, text is text up to the element's end tag.
pub fn tags(html: &str) -> Vec<TagAt> {
    tokens(html)
        .into_iter()
        .filter_map(|t| match t {
            Token::Tag(tag) => Some(tag),
            _ => None,
        })
        .collect()
}

/// Every token of `html`, in order. A `<` that begins no tag, comment or declaration is text;
/// a `</>` is nothing; `</` and no name begins a comment; a tag, comment or declaration that
/// the input ends inside is [`Token::Unfinished`].
pub fn tokens<'a>(html: &'a str) -> Vec<Token<'a>> {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    let mut text_from = 0;
    let mut i = 0;
    let flush = |out: &mut Vec<Token<'a>>, from: usize, to: usize| {
        if to > from {
            out.push(Token::Text {
                text: &html[from..to],
                at: from,
                raw: false,
            });
        }
    };
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let next = bytes.get(i + 1).copied();
        if html[i..].starts_with("<!--") {
            flush(&mut out, text_from, i);
            // `<!-->` and `<!--->` end at once; otherwise at `-->` or `--!>`, or never.
            let body = i + 4;
            let end = if html[body..].starts_with('>') {
                Some(body + 1)
            } else if html[body..].starts_with("->") {
                Some(body + 2)
            } else {
                let closes = [("-->", 3), ("--!>", 4)];
                closes
                    .iter()
                    .filter_map(|(close, len)| html[body..].find(close).map(|e| body + e + len))
                    .min()
            };
            out.push(match end {
                Some(_) => Token::Comment { at: i },
                None => Token::Unfinished { at: i },
            });
            i = end.unwrap_or(bytes.len());
            text_from = i;
        } else if matches!(next, Some(b'!' | b'?'))
            || (next == Some(b'/')
                && bytes
                    .get(i + 2)
                    .is_some_and(|b| !b.is_ascii_alphabetic() && *b != b'>'))
        {
            // A declaration, or `</` and no name: a bogus comment, up to the next `>`.
            flush(&mut out, text_from, i);
            let end = html[i..].find('>').map(|end| i + end + 1);
            out.push(match (end, next) {
                (None, _) => Token::Unfinished { at: i },
                (Some(_), Some(b'/')) => Token::Comment { at: i },
                (Some(_), _) => Token::Declaration { at: i },
            });
            i = end.unwrap_or(bytes.len());
            text_from = i;
        } else if next == Some(b'/') && bytes.get(i + 2) == Some(&b'>') {
            flush(&mut out, text_from, i);
            i += 3;
            text_from = i;
        } else if next.is_some_and(|b| b.is_ascii_alphabetic())
            || (next == Some(b'/') && bytes.get(i + 2).is_some_and(u8::is_ascii_alphabetic))
        {
            flush(&mut out, text_from, i);
            let Some((tag, end)) = read_tag(html, i, next == Some(b'/')) else {
                out.push(Token::Unfinished { at: i });
                return out;
            };
            let (name, start) = (tag.name.clone(), !tag.end);
            out.push(Token::Tag(tag));
            i = end;
            text_from = i;
            let raw = RAW_TEXT.contains(&name.as_str());
            if start && (raw || ESCAPABLE_RAW_TEXT.contains(&name.as_str())) {
                // The content runs to `</name` followed by a space, `/` or `>`.
                let close = raw_text_end(html, i, &name);
                if close > i {
                    out.push(Token::Text {
                        text: &html[i..close],
                        at: i,
                        raw,
                    });
                }
                i = close;
                text_from = i;
            }
        } else {
            i += 1;
        }
    }
    flush(&mut out, text_from, bytes.len());
    out
}

/// Where the raw text that starts at `from` ends: at the first `</name` (any case) followed by
/// white space, `/` or `>`, or at the end of the input.
fn raw_text_end(html: &str, from: usize, name: &str) -> usize {
    let bytes = html.as_bytes();
    let mut at = from;
    while let Some(found) = html[at..].find("</") {
        let start = at + found;
        let after = start + 2 + name.len();
        if bytes
            .get(start + 2..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && bytes
                .get(after)
                .is_some_and(|b| b.is_ascii_whitespace() || matches!(b, b'/' | b'>'))
        {
            return start;
        }
        at = start + 2;
    }
    bytes.len()
}

/// Reads the tag whose `<` is at `at`: its name (lower-cased), its attributes (names
/// lower-cased, values decoded, a repeated one left out) and whether it ends `/>`; with the
/// offset after its `>`. None when the input ends inside it.
fn read_tag(html: &str, at: usize, end: bool) -> Option<(TagAt, usize)> {
    let bytes = html.as_bytes();
    let stops = |b: u8| b.is_ascii_whitespace() || b == b'/' || b == b'>';
    let from = at + if end { 2 } else { 1 };
    let mut i = skip(bytes, from, |b| !stops(b));
    let name = html[from..i].to_ascii_lowercase();
    let mut attributes: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut self_closing = false;
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            self_closing = bytes[i] == b'/';
            i += 1;
        }
        match bytes.get(i) {
            None => return None,
            Some(b'>') => break,
            Some(_) => {}
        }
        self_closing = false;
        // An attribute's name runs to white space, `/`, `>` or `=` (a leading `=` is its own).
        let from = i;
        i = skip(bytes, i + 1, |b| !stops(b) && b != b'=');
        let key = html[from..i].to_ascii_lowercase();
        i = skip(bytes, i, |b| b.is_ascii_whitespace());
        let mut value = String::new();
        if bytes.get(i) == Some(&b'=') {
            i = skip(bytes, i + 1, |b| b.is_ascii_whitespace());
            match bytes.get(i) {
                Some(&q) if q == b'"' || q == b'\'' => {
                    let close = html[i + 1..].find(q as char)? + i + 1;
                    value = decode(&html[i + 1..close]).into_owned();
                    i = close + 1;
                }
                _ => {
                    let from = i;
                    i = skip(bytes, i, |b| !b.is_ascii_whitespace() && b != b'>');
                    value = decode(&html[from..i]).into_owned();
                }
            }
        }
        if seen.insert(key.clone()) {
            attributes.push((key, value));
        }
    }
    Some((
        TagAt {
            name,
            end,
            self_closing,
            attributes,
            at,
        },
        i + 1,
    ))
}

/// The offset of the first byte at or after `from` that `keep` refuses, or the end of `bytes`.
fn skip(bytes: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    from + bytes.iter().skip(from).take_while(|&&b| keep(b)).count()
}

/// The named character references the build decodes: those its templates, pulldown-cmark and
/// the escapes below write. Any other is left as written.
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
];

/// A character reference at the start of `text` (just after its `&`): the character it stands
/// for and how many bytes it takes, its `;` included.
pub fn reference(text: &str) -> Option<(char, usize)> {
    // The longest reference read is `&#x10FFFF;`: the `;` is looked for that far, not further.
    let end = text.bytes().take(12).position(|b| b == b';')?;
    let body = &text[..end];
    let c = if let Some(number) = body.strip_prefix('#') {
        let (digits, radix) = match number.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16),
            None => (number, 10),
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let code = u32::from_str_radix(digits, radix).ok()?;
        match code {
            // A browser reads these C1 codes as the characters Windows-1252 puts there.
            0x80..=0x9f => WINDOWS_1252[(code - 0x80) as usize],
            // And NUL, a surrogate and a code point past Unicode as U+FFFD.
            _ => char::from_u32(code)
                .filter(|&c| c != '\0')
                .unwrap_or('\u{fffd}'),
        }
    } else {
        NAMED.iter().find(|(n, _)| *n == body)?.1
    };
    Some((c, end + 1))
}

/// What a browser reads `&#128;` to `&#159;` as (HTML's table of Windows-1252): the code itself
/// where Windows-1252 leaves it undefined.
const WINDOWS_1252: [char; 32] = [
    '\u{20ac}', '\u{81}', '\u{201a}', '\u{192}', '\u{201e}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2c6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8d}', '\u{17d}', '\u{8f}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201c}', '\u{201d}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2dc}', '\u{2122}', '\u{161}', '\u{203a}', '\u{153}', '\u{9d}', '\u{17e}', '\u{178}',
];

/// `text` with its character references decoded ([`reference()`]).
pub fn decode(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        match reference(&rest[at + 1..]) {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[at + 1 + len..];
            }
            None => {
                out.push('&');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// A URL as a browser reads it from an attribute: without leading and trailing spaces and
/// controls, and without the tabs and line breaks a browser strips anywhere inside.
pub fn url_as_read(value: &str) -> String {
    value
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// Text escaped as html5ever's serializer escapes an element's text: `&`, `<`, `>` and the
/// no-break space.
pub fn escape_text(text: &str, out: &mut String) {
    escape(text, false, out);
}

/// An attribute's value escaped as html5ever's serializer escapes it: `&`, `"`, `<`, `>` and
/// the no-break space.
pub fn escape_attribute(value: &str, out: &mut String) {
    escape(value, true, out);
}

fn escape(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// The 1-based line of byte offset `at` of `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(html: &str) -> Option<String> {
        let mut n = Nesting::default();
        n.feed(html, 0);
        n.finish().map(|m| {
            let (at, what) = m.describe(|at| line_of(html, at));
            format!("line {}: {what}", line_of(html, at))
        })
    }

    #[test]
    fn void_self_closing_and_foreign_elements_need_no_end_tag() {
        assert_eq!(
            check("<p>a<br><img alt=\"\"/></p>\n<svg><rect/><text>t</text></svg><DIV></div>"),
            None
        );
    }

    #[test]
    fn the_first_misnesting_is_named_with_its_lines() {
        assert_eq!(
            check("<div>\n<span>\n</div></span>").as_deref(),
            Some("line 3: </div> closes <span>, opened at line 2")
        );
        assert_eq!(
            check("<p></p>\n</p>").as_deref(),
            Some("line 2: </p> closes no open element")
        );
        assert_eq!(
            check("<main>\n<details>\n<summary>s</summary>").as_deref(),
            Some("line 2: <details> is never closed")
        );
    }

    #[test]
    fn odd_tag_names_are_shown_short_and_escaped() {
        let long = format!("<x{}\u{1b}>", "y".repeat(100));
        let said = check(&long).unwrap();
        assert!(
            said.starts_with("line 1: <xyyy") && said.ends_with("is never closed"),
            "{said}"
        );
        assert!(said.len() < 120, "{said}");
        assert_eq!(
            check("<a\u{1b}b>").as_deref(),
            Some("line 1: <a\\u{1b}b> is never closed")
        );
    }

    #[test]
    fn tags_inside_raw_text_elements_are_text() {
        assert_eq!(
            check("<style>a::after{content:\"<b>\"}</style><textarea><p></textarea>"),
            None
        );
    }

    /// Every tag at its `<`, however what comes before it was read: a `<` read twice, a `</>`
    /// dropped, a character reference, a `<` inside a value, raw text, a comment.
    #[test]
    fn each_tag_is_placed_at_its_less_than_sign() {
        let at = |html: &str| -> Vec<(String, usize)> {
            tags(html)
                .into_iter()
                .map(|t| (format!("{}{}", if t.end { "/" } else { "" }, t.name), t.at))
                .collect()
        };
        let expect = |v: &[(&str, usize)]| -> Vec<(String, usize)> {
            v.iter().map(|(n, a)| (n.to_string(), *a)).collect()
        };
        assert_eq!(at("a<<p>x</p>"), expect(&[("p", 2), ("/p", 6)]));
        assert_eq!(
            at("<p title=\"<b>\" id='</i>'>x</P >"),
            expect(&[("p", 0), ("/p", 26)])
        );
        assert_eq!(at("</><i>&amp<b>"), expect(&[("i", 3), ("b", 10)]));
        assert_eq!(
            at("<style>x</b><i></style\r\n><!--<a>--><u>"),
            expect(&[("style", 0), ("/style", 15), ("u", 35)])
        );
        assert_eq!(at("é<b\n id=\"é\"\n>"), expect(&[("b", 2)]));
    }

    /// References as a browser reads them: Windows-1252 for the C1 codes, no sign, digits only,
    /// the `;` looked for nearby only.
    #[test]
    fn references_are_read_as_a_browser_reads_them() {
        assert_eq!(
            decode("&#150; &#146;s &#128; &#x41; &#0; &#xD800;"),
            "\u{2013} \u{2019}s \u{20ac} A \u{fffd} \u{fffd}"
        );
        assert_eq!(
            decode("&#+65; &#x+41; &#65 &amp &copy;"),
            "&#+65; &#x+41; &#65 &amp &copy;"
        );
        let far = format!("&{};", "a".repeat(20));
        assert_eq!(decode(&far), far);
    }

    /// `</` and no name is a comment to the next `>`; `--!>` ends a comment as `-->` does; a
    /// tag or comment the input ends inside is unfinished.
    #[test]
    fn bogus_and_unfinished_comments_are_read_as_a_browser_reads_them() {
        let kinds = |html: &str| -> Vec<String> {
            tokens(html)
                .iter()
                .map(|t| match t {
                    Token::Tag(t) => format!("tag {}", t.name),
                    Token::Text { text, .. } => format!("text {text}"),
                    Token::Comment { .. } => "comment".into(),
                    Token::Declaration { .. } => "declaration".into(),
                    Token::Unfinished { .. } => "unfinished".into(),
                })
                .collect()
        };
        assert_eq!(kinds("a </ b> c"), ["text a ", "comment", "text  c"]);
        assert_eq!(
            kinds("x <!-- a --!> seen"),
            ["text x ", "comment", "text  seen"]
        );
        assert_eq!(kinds("x <!-- never"), ["text x ", "unfinished"]);
        assert_eq!(kinds("x <div\nclass=\"a"), ["text x ", "unfinished"]);
    }

    #[test]
    fn fragments_fed_at_their_offsets_make_one_run() {
        let whole = "<details>\n<p>text</p>\n</details>";
        let mut n = Nesting::default();
        n.feed("<details>", 0);
        n.feed("</details>", whole.find("</details>").unwrap());
        assert_eq!(n.finish(), None);
    }
}
