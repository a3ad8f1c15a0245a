//! The nesting of HTML elements: which element a run of tags leaves open, or closes out of order.
//!
//! The page the build writes closes every element it opens (its templates and pulldown-cmark
//! do), so a tag out of place can only come from raw HTML in the prose. The prose is checked
//! with it (naming the line of `content/article.md`), and the finished page again by `validate`
//! (naming the line of `article.html`). Positions are byte offsets the caller turns into lines.

use html5gum::{Token, Tokenizer};

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
        let name = |s: &str| crate::base::text::excerpt(&s.escape_debug().to_string(), 40);
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
        let mut emitter = html5gum::emitters::default::DefaultEmitter::<usize>::new_with_span();
        // Inside <style>, <textarea>, <title> and the like, text is text (as a browser reads it).
        emitter.naively_switch_states(true);
        for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
            match token {
                Token::StartTag(tag) => self.start(
                    &String::from_utf8_lossy(&tag.name).to_ascii_lowercase(),
                    tag.self_closing,
                    base + tag.span.start,
                ),
                Token::EndTag(tag) => self.end(
                    &String::from_utf8_lossy(&tag.name).to_ascii_lowercase(),
                    base + tag.span.start,
                ),
                _ => {}
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

    #[test]
    fn fragments_fed_at_their_offsets_make_one_run() {
        let whole = "<details>\n<p>text</p>\n</details>";
        let mut n = Nesting::default();
        n.feed("<details>", 0);
        n.feed("</details>", whole.find("</details>").unwrap());
        assert_eq!(n.finish(), None);
    }
}
