//! How readable prose is: its sentences, their lengths in words, and the Flesch-Kincaid grade.
//!
//! A sentence ends at `.`, `?` or `!` (a closing quote or bracket may follow) when white space
//! and then a letter of either case (a model's name starts a sentence in lower case), a digit,
//! an opening quote or the end of the text follow, and the word before it is not an
//! abbreviation such as `e.g.`, `i.e.`, `et al.` or `vs.`. So a
//! decimal point (`85.36`), a version (`v6.1`) or a file name (`pairs.csv`) ends nothing. A word
//! is a run of characters between white space that holds a letter or a digit; a no-break space
//! joins a number to its unit (`85.36 %` is one word), and a symbol standing alone (`×`, `%`,
//! `÷`, `–`) is no word. Syllables are counted per word as groups of vowels (`a e i o u y`), less
//! a final silent `e`, at least one; a word without letters (a number) counts as one.

/// The abbreviations whose full stop ends no sentence, in lower case, without that stop.
const ABBREVIATIONS: [&str; 8] = ["e.g", "i.e", "al", "vs", "cf", "etc", "fig", "no"];

/// White space that separates words: any but the no-break spaces, which join a number to its
/// unit.
fn separates(c: char) -> bool {
    c.is_whitespace() && c != '\u{a0}' && c != '\u{202f}' && c != '\u{2007}'
}

/// The words of `text`.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(separates)
        .filter(|w| w.chars().any(char::is_alphanumeric))
}

/// The sentences of `text`, trimmed, each with at least one word.
pub fn sentences(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if matches!(c, '.' | '?' | '!') {
            // Closing quotes and brackets stay with the sentence.
            let mut end = i + 1;
            while end < chars.len() && matches!(chars[end].1, '"' | '”' | '’' | '\'' | ')' | ']')
            {
                end += 1;
            }
            let mut next = end;
            while next < chars.len() && separates(chars[next].1) {
                next += 1;
            }
            let spaced = next > end || next == chars.len();
            let opens = next == chars.len() || {
                let n = chars[next].1;
                // A model's name starts a sentence in lower case (`deepseek-r1 keeps …`).
                n.is_alphanumeric() || matches!(n, '"' | '“' | '‘' | '(' | '`')
            };
            let before = text[start..at]
                .rsplit(separates)
                .next()
                .unwrap_or("")
                .trim_start_matches(['(', '"', '“'])
                .to_lowercase();
            let abbreviation = c == '.' && ABBREVIATIONS.contains(&before.as_str());
            if spaced && opens && !abbreviation {
                let byte_end = chars.get(end).map_or(text.len(), |(b, _)| *b);
                out.push(text[start..byte_end].trim());
                start = byte_end;
                i = end;
                continue;
            }
        }
        i += 1;
        let _ = at;
    }
    out.push(text[start..].trim());
    out.retain(|s| words(s).next().is_some());
    out
}

/// The syllables of one word, as the module's summary counts them.
pub(crate) fn syllables(word: &str) -> usize {
    let letters: Vec<char> = word
        .chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    if letters.is_empty() {
        return 1;
    }
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let mut groups = 0;
    let mut previous = false;
    for &c in &letters {
        let v = vowel(c);
        if v && !previous {
            groups += 1;
        }
        previous = v;
    }
    let n = letters.len();
    if n > 2 && letters[n - 1] == 'e' && !vowel(letters[n - 2]) && letters[n - 2] != 'l' {
        groups -= 1;
    }
    groups.max(1)
}

/// The figures of a body of prose.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Readability {
    /// How many words the prose holds, over all its sentences.
    pub words: usize,
    /// How many sentences it holds (each with at least one word).
    pub sentences: usize,
    /// The mean length of a sentence, in words.
    pub mean_words: f64,
    /// The length of the longest sentence, in words.
    pub longest: usize,
    /// Sentences of more than 30 words.
    pub over_30: usize,
    /// 0.39 × words per sentence + 11.8 × syllables per word − 15.59.
    pub flesch_kincaid_grade: f64,
}

/// The figures of the prose units `units` (paragraphs, list items, captions), each split into
/// its sentences; `None` when they hold no sentence.
pub fn measure<'a>(units: impl IntoIterator<Item = &'a str>) -> Option<Readability> {
    let mut lengths = Vec::new();
    let mut syllable_count = 0;
    for unit in units {
        for s in sentences(unit) {
            let w: Vec<&str> = words(s).collect();
            syllable_count += w.iter().map(|w| syllables(w)).sum::<usize>();
            lengths.push(w.len());
        }
    }
    if lengths.is_empty() {
        return None;
    }
    let words: usize = lengths.iter().sum();
    let sentences = lengths.len();
    let per_sentence = words as f64 / sentences as f64;
    Some(Readability {
        words,
        sentences,
        mean_words: per_sentence,
        longest: lengths.iter().copied().max().unwrap_or(0),
        over_30: lengths.iter().filter(|&&n| n > 30).count(),
        flesch_kincaid_grade: 0.39 * per_sentence + 11.8 * syllable_count as f64 / words as f64
            - 15.59,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_where_a_reader_ends_them() {
        let text =
            "It kept 85.36\u{a0}% on deepseek-r1, e.g. on v6.1 runs. See pairs.csv for more! \
                    Load × completion × length is the ratio. Why? “Quoted.” (A bracket.) The end";
        assert_eq!(
            sentences(text),
            [
                "It kept 85.36\u{a0}% on deepseek-r1, e.g. on v6.1 runs.",
                "See pairs.csv for more!",
                "Load × completion × length is the ratio.",
                "Why?",
                "“Quoted.”",
                "(A bracket.)",
                "The end"
            ]
        );
        // An abbreviation before a capital ends nothing; a lone symbol is no sentence.
        assert_eq!(
            sentences("Reddi et al. Wrote it."),
            ["Reddi et al. Wrote it."]
        );
        assert_eq!(
            sentences("It runs, e.g. fast. llama2-70b-99.9 keeps more."),
            ["It runs, e.g. fast.", "llama2-70b-99.9 keeps more."]
        );
        assert_eq!(sentences("× ÷"), Vec::<&str>::new());
    }

    #[test]
    fn words_join_a_number_to_its_unit_and_skip_lone_symbols() {
        let w: Vec<&str> = words("load × completion is 85.36\u{a0}% – of 16 queries").collect();
        assert_eq!(
            w,
            [
                "load",
                "completion",
                "is",
                "85.36\u{a0}%",
                "of",
                "16",
                "queries"
            ]
        );
    }

    #[test]
    fn syllables_are_vowel_groups_less_a_silent_e() {
        for (word, n) in [
            ("ratio", 2),
            ("scheduled", 3),
            ("workload", 2),
            ("made", 1),
            ("table", 2),
            ("throughput", 2),
            ("16", 1),
            ("a", 1),
        ] {
            assert_eq!(syllables(word), n, "{word}");
        }
    }

    #[test]
    fn the_figures_are_counted_over_every_sentence() {
        // Two sentences of 3 and 5 words; 12 syllables.
        let r = measure(["The load wins. Completion and length stay near."]).unwrap();
        assert_eq!((r.words, r.sentences, r.longest, r.over_30), (8, 2, 5, 0));
        assert!((r.mean_words - 4.0).abs() < 1e-12);
        let syl: usize = [
            "the",
            "load",
            "wins",
            "completion",
            "and",
            "length",
            "stay",
            "near",
        ]
        .iter()
        .map(|w| syllables(w))
        .sum();
        let grade = 0.39 * 4.0 + 11.8 * syl as f64 / 8.0 - 15.59;
        assert!((r.flesch_kincaid_grade - grade).abs() < 1e-12);
        assert_eq!(measure(["", " × "]), None);
    }
}
