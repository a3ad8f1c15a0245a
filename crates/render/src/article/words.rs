//! Words the prose and its sentences share: a small count in words, and a list as prose writes it
//! (`templates/text/count.txt`, `templates/text/list.txt`).

use askama::Template;

use super::template;
use ratios_base::error::Result;

#[derive(Template)]
#[template(path = "text/count.txt")]
struct CountWord {
    n: usize,
}

/// A small count in words, as prose writes it ("three"), else in digits
/// (`templates/text/count.txt`).
pub fn count_word(n: usize) -> Result<String> {
    template(&CountWord { n }, "text/count.txt")
}

#[derive(Template)]
#[template(path = "text/list.txt")]
struct ListWords<'a> {
    items: &'a [String],
}

/// Items as prose lists them ("a, b and c"; `templates/text/list.txt`).
pub(crate) fn list_words(items: &[String]) -> Result<String> {
    template(&ListWords { items }, "text/list.txt")
}
