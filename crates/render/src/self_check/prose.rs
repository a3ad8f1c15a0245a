//! The limits the page's prose must meet, checked on its units as a reader reads them
//! (`article::narrative`).

use ratios_base::readability::{measure, sentences, words, Readability};

pub use crate::article::narrative::{units, Unit, APPENDIX};

/// The longest sentence the narrative may hold, in words.
pub(crate) const NARRATIVE_LONGEST: usize = 30;
/// The longest sentence anywhere on a page.
pub(crate) const PAGE_LONGEST: usize = 45;
/// The narrative's mean sentence, in words, at most.
pub(crate) const NARRATIVE_MEAN: f64 = 18.0;
/// At most one sentence in this many may run over 30 words.
pub(crate) const OVER_30_ONE_IN: usize = 20;
/// The narrative's words, at most.
pub(crate) const NARRATIVE_WORDS: usize = 1200;

/// The narrative's figures, and every way the page's prose breaks the limits above, one line
/// each, quoting the sentence's first words.
pub fn check(units: &[Unit]) -> (Option<Readability>, Vec<String>) {
    let narrative: Vec<&str> = units
        .iter()
        .filter(|u| u.narrative)
        .map(|u| u.text.as_str())
        .collect();
    let figures = measure(narrative.iter().copied());
    let mut problems = Vec::new();
    let quote = |s: &str| {
        let w: Vec<&str> = words(s).collect();
        let head = w.iter().take(8).copied().collect::<Vec<_>>().join(" ");
        format!("“{head} …”")
    };
    for u in units {
        for s in sentences(&u.text) {
            let n = words(s).count();
            let limit = if u.narrative {
                NARRATIVE_LONGEST
            } else {
                PAGE_LONGEST
            };
            if n > limit {
                problems.push(format!(
                    "a sentence of {n} words (at most {limit} {}): {}",
                    if u.narrative {
                        "in the narrative"
                    } else {
                        "on the page"
                    },
                    quote(s)
                ));
            }
        }
    }
    for u in units.iter().filter(|u| u.narrative) {
        for p in precise_percents(&u.text) {
            problems.push(format!(
                "a percentage with more than one decimal in the narrative, {p}: round it, or keep it in a figure or table"
            ));
        }
    }
    if let Some(f) = &figures {
        if f.mean_words > NARRATIVE_MEAN {
            problems.push(format!(
                "the narrative's sentences run {:.1} words on average (at most {NARRATIVE_MEAN})",
                f.mean_words
            ));
        }
        if f.over_30 * OVER_30_ONE_IN > f.sentences {
            problems.push(format!(
                "{} of the narrative's {} sentences run over 30 words (at most one in {OVER_30_ONE_IN})",
                f.over_30, f.sentences
            ));
        }
        if f.words > NARRATIVE_WORDS {
            problems.push(format!(
                "the narrative holds {} words (at most {NARRATIVE_WORDS})",
                f.words
            ));
        }
    }
    (figures, problems)
}

/// The percentages in `text` written with more than one decimal (`85.36 %`), but those from
/// 100 % to 101 %, where the digits are the point (a ratio just over 100 %).
fn precise_percents(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit()
            || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '.'))
        {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == ',') {
            i += 1;
        }
        let mut decimals = 0;
        if chars.get(i) == Some(&'.') {
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                decimals += 1;
                i += 1;
            }
        }
        let mut j = i;
        while chars
            .get(j)
            .is_some_and(|c| matches!(c, ' ' | '\u{a0}' | '\u{202f}'))
        {
            j += 1;
        }
        if decimals > 1 && chars.get(j) == Some(&'%') {
            let written: String = chars[start..i].iter().collect();
            let value: f64 = written.replace(',', "").parse().unwrap_or(0.0);
            if !(100.0..=101.0).contains(&value) {
                out.push(format!("{written}\u{a0}%"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use ratios_base::dom::Dom;

    #[test]
    fn a_percentage_with_two_decimals_is_found_but_not_one_just_over_a_hundred() {
        assert_eq!(
            super::precise_percents(
                "kept 85.36\u{a0}% and 94.4 %, 100.13 %, v6.1 and 12.51 points"
            ),
            vec!["85.36\u{a0}%".to_string()]
        );
        assert!(super::precise_percents("87 % of 1,024.5 tries").is_empty());
    }

    use super::*;

    #[test]
    fn the_narrative_runs_from_the_dek_to_the_method_and_leaves_out_what_is_not_prose() {
        let dom = Dom::parse(
            "<h1>T</h1><p class=\"byline\">By A. Writer.</p><p class=\"lede\">The dek.</p>\
             <ul class=\"key-numbers\"><li><strong>1</strong> number</li></ul>\
             <p>One<sup>1</sup> claim.&#8288;<a class=\"anchor\" href=\"#x\">§</a></p>\
             <details><p>Folded.</p></details><table><tr><td><p>Cell.</p></td></tr></table>\
             <ul><li>An item.</li><li><p>A paragraph item.</p></li></ul>\
             <figure><figcaption>A caption.</figcaption></figure>\
             <h2>Method: how<a class=\"anchor\">§</a></h2><p>Appendix text.</p>",
        );
        let u = units(&dom);
        let texts: Vec<(bool, &str)> = u.iter().map(|u| (u.narrative, u.text.as_str())).collect();
        assert_eq!(
            texts,
            [
                (true, "The dek."),
                (true, "One claim."),
                (true, "An item."),
                (true, "A paragraph item."),
                (true, "A caption."),
                (false, "Appendix text."),
            ]
        );
    }

    #[test]
    fn a_sentence_over_the_limit_is_named_with_its_first_words() {
        let long = vec!["word"; 31].join(" ") + ".";
        let units = [
            Unit {
                narrative: true,
                text: long.clone(),
            },
            Unit {
                narrative: false,
                text: long.clone(),
            },
        ];
        let (figures, problems) = check(&units);
        assert_eq!(figures.unwrap().longest, 31);
        assert_eq!(
            problems[0],
            "a sentence of 31 words (at most 30 in the narrative): “word word word word word word word word …”"
        );
        // 31 words are allowed outside the narrative, up to 45.
        assert!(problems.iter().all(|p| !p.contains("on the page")));
        assert!(problems.iter().any(|p| p.contains("31.0 words on average")));
    }
}
