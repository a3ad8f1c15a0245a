//! The nesting of HTML elements: which element a run of tags leaves open, or closes out of order.
//!
//! The page the build writes closes every element it opens (its templates and pulldown-cmark
//! do), so a tag out of place can only come from raw HTML in the prose. The prose is checked
//! with it (naming the line of `content/article.md`), and the finished page again by `self_check`
//! (naming the line of `article.html`). Positions are byte offsets the caller turns into lines.

use std::cell::{Cell, RefCell};

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// Elements that have no end tag.
pub const VOID_ELEMENTS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// The first way a run of tags is not nested, with the byte offsets of the tags concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misnesting {
    /// `</end>` at `at` meets `<open>`, opened at `from`, as the innermost open element.
    ClosesAnother {
        end: String,
        at: usize,
        open: String,
        from: usize,
    },
    /// `</end>` at `at` with no element open.
    ClosesNothing { end: String, at: usize },
    /// `<open>` at `from` is still open at the end.
    NeverClosed { open: String, from: usize },
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

/// Every tag of `html`, in order, read as a browser's tokenizer reads it (html5ever's): inside
/// `<style>`, `<textarea>`, `<title>`, `<script>` and the like, text is text, since after such a
/// start tag the tokenizer switches to the state its content is read in (as a browser's tree
/// builder would tell it to; here by the tag's name alone, whatever encloses it).
pub fn tags(html: &str) -> Vec<TagAt> {
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(html));
    let tokenizer = Tokenizer::new(
        TagSink {
            html,
            queue: &queue,
            read: Cell::new(0),
            tags: RefCell::new(Vec::new()),
        },
        TokenizerOpts::default(),
    );
    // The whole input is queued, so the tokenizer reads it all (but for a few characters that
    // may await what follows, which `end` reads).
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    tokenizer.sink.tags.into_inner()
}

/// Collects the tags, each with its offset. html5ever's tokenizer tells no offsets, but it reads
/// from `queue`, so what is left there tells how far it has read when it hands over a token.
/// Between two tokens it hands over, the tokenizer reads no tag but the next one's: so a tag
/// begins at the first `<` and name (`</` and name for an end tag) from where the token
/// before it was handed over, less the one character the tokenizer may have read ahead and
/// must read again.
struct TagSink<'a> {
    html: &'a str,
    queue: &'a BufferQueue,
    /// How far the tokenizer had read when it handed over the last token (parse errors aside).
    read: Cell<usize>,
    tags: RefCell<Vec<TagAt>>,
}

impl TagSink<'_> {
    /// How many bytes of the input the tokenizer has read so far.
    fn read_so_far(&self) -> usize {
        let left = self.queue.clone();
        let mut unread = 0;
        while let Some(chunk) = left.pop_front() {
            unread += chunk.len();
        }
        self.html.len().saturating_sub(unread)
    }

    /// The offset of the `<` that begins a tag, the tokenizer having read up to `from` when it
    /// handed over the token before: the first `<` and letter (`</` and letter for an end tag)
    /// from `from` less one on.
    fn tag_start(&self, from: usize, end: bool) -> usize {
        let bytes = self.html.as_bytes();
        let starts_tag = |i: usize| {
            let name = if end {
                if bytes.get(i + 1) != Some(&b'/') {
                    return false;
                }
                i + 2
            } else {
                i + 1
            };
            bytes[i] == b'<' && bytes.get(name).is_some_and(u8::is_ascii_alphabetic)
        };
        (from.saturating_sub(1)..bytes.len())
            .find(|&i| starts_tag(i))
            .unwrap_or(from)
    }
}

impl TokenSink for TagSink<'_> {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut next = TokenSinkResult::Continue;
        match token {
            Token::ParseError(_) => return next,
            Token::TagToken(tag) => {
                let end = tag.kind == TagKind::EndTag;
                let name = tag.name.to_string();
                if !end {
                    // The list html5gum, the tokenizer used before, switched by (`noframe` so
                    // spelled there): the markup checked stays read as it was.
                    next = match &*name {
                        "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
                        "plaintext" => TokenSinkResult::Plaintext,
                        "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                        "style" | "iframe" | "xmp" | "noembed" | "noframe" | "noscript" => {
                            TokenSinkResult::RawData(RawKind::Rawtext)
                        }
                        _ => TokenSinkResult::Continue,
                    };
                }
                self.tags.borrow_mut().push(TagAt {
                    at: self.tag_start(self.read.get(), end),
                    name,
                    end,
                    self_closing: tag.self_closing,
                    attributes: tag
                        .attrs
                        .into_iter()
                        .map(|a| (a.name.local.to_string(), a.value.to_string()))
                        .collect(),
                });
            }
            _ => {}
        }
        self.read.set(self.read_so_far());
        next
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

    #[test]
    fn fragments_fed_at_their_offsets_make_one_run() {
        let whole = "<details>\n<p>text</p>\n</details>";
        let mut n = Nesting::default();
        n.feed("<details>", 0);
        n.feed("</details>", whole.find("</details>").unwrap());
        assert_eq!(n.finish(), None);
    }
}
