//! A list of problem lines whose size is bounded whatever the input: each line is cut to
//! [`MAX_LINE_CHARS`] characters, and past [`MAX_PER_SOURCE`] lines from one source (the file a
//! line names before its first `: `) the rest are only counted, then summed up in one closing
//! line per source. Five million malformed lines of an inventory make 101 lines, not 659 MB.

use std::collections::BTreeMap;

use crate::text::excerpt;

/// The most lines kept from one source.
pub const MAX_PER_SOURCE: usize = 100;

/// The longest line kept, in characters.
pub const MAX_LINE_CHARS: usize = 2_000;

/// Problem lines, bounded (see the module's comment).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Problems {
    /// The lines kept, each with its source.
    lines: Vec<(String, String)>,
    /// Lines kept and lines left out, by source.
    counts: BTreeMap<String, (usize, usize)>,
}

/// `source` cut to at most 300 bytes, at a character boundary, so the counts stay small.
fn key(source: &str) -> &str {
    let mut end = source.len().min(300);
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    &source[..end]
}

impl Problems {
    /// Adds `line`, whose source is the text before its first `: `, or counts it when that
    /// source has given [`MAX_PER_SOURCE`] already.
    pub fn push(&mut self, line: impl Into<String>) {
        let line = line.into();
        let source = line.split_once(": ").map_or("", |(s, _)| s).to_string();
        self.push_from(&source, || line);
    }

    /// Adds the line `make` writes for `source`, calling it only when the line is kept: past
    /// [`MAX_PER_SOURCE`], a flood of problems costs one count each and no formatting.
    pub fn push_from(&mut self, source: &str, make: impl FnOnce() -> String) {
        let source = key(source);
        if let Some((kept, left)) = self.counts.get_mut(source) {
            if *kept >= MAX_PER_SOURCE {
                *left += 1;
                return;
            }
            *kept += 1;
        } else {
            self.counts.insert(source.to_string(), (1, 0));
        }
        self.lines
            .push((source.to_string(), excerpt(&make(), MAX_LINE_CHARS)));
    }

    /// Adds every problem of `other`, kept lines and counted ones, under the same bounds.
    pub fn append(&mut self, other: Problems) {
        for (source, line) in other.lines {
            self.push_from(&source, || line);
        }
        for (source, (_, left)) in other.counts {
            if left > 0 {
                self.counts.entry(source).or_default().1 += left;
            }
        }
    }

    /// Whether no problem was added: the check passed.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// How many problems there were, counted ones included.
    pub fn total(&self) -> usize {
        self.counts.values().map(|(k, l)| k + l).sum()
    }

    /// The lines kept, then one line per source whose further lines were only counted.
    pub fn into_lines(self) -> Vec<String> {
        let mut lines: Vec<String> = self.lines.into_iter().map(|(_, l)| l).collect();
        for (source, (_, left)) in self.counts {
            if left > 0 {
                lines.push(format!(
                    "{source}: and {left} more problem{} like the above, not listed",
                    if left == 1 { "" } else { "s" }
                ));
            }
        }
        lines
    }
}

impl Extend<String> for Problems {
    fn extend<T: IntoIterator<Item = String>>(&mut self, iter: T) {
        for line in iter {
            self.push(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 250 lines from one file and 3 from another keep 100 and 3, then say how many more the
    /// first had; a line of 10,000 characters is cut, saying its length.
    #[test]
    fn lines_are_bounded_by_source_and_by_length() {
        let mut p = Problems::default();
        for i in 0..250 {
            p.push(format!("a.txt: line {i}: bad"));
        }
        for i in 0..3 {
            p.push(format!("b.txt: line {i}: bad"));
        }
        p.push(format!("c.txt: {}", "x".repeat(10_000)));
        assert_eq!(p.total(), 254);
        let lines = p.into_lines();
        assert_eq!(lines.len(), 100 + 3 + 1 + 1);
        assert_eq!(lines[99], "a.txt: line 99: bad");
        assert_eq!(lines[100], "b.txt: line 0: bad");
        assert!(
            lines[103].starts_with("c.txt: xxx") && lines[103].ends_with("(10007 bytes in all)")
        );
        assert_eq!(
            lines[104],
            "a.txt: and 150 more problems like the above, not listed"
        );
    }

    /// Two bounded lists merged keep the counts of both: 150 lines in one and 70 in the other,
    /// from one source, keep 100 lines and count 120 more; a line past the bound is never made.
    #[test]
    fn merged_lists_keep_every_count_and_unkept_lines_are_never_made() {
        let mut a = Problems::default();
        let mut b = Problems::default();
        for i in 0..150 {
            a.push_from("s", || format!("s: a{i}"));
        }
        for i in 0..70 {
            b.push_from("s", || format!("s: b{i}"));
        }
        b.push_from("t", || "t: one".to_string());
        let mut made = 0;
        for _ in 0..1000 {
            a.push_from("s", || {
                made += 1;
                String::new()
            });
        }
        assert_eq!(made, 0);
        a.append(b);
        assert_eq!(a.total(), 150 + 1000 + 70 + 1);
        let lines = a.into_lines();
        assert_eq!(lines.len(), 100 + 1 + 1);
        assert_eq!(lines[100], "t: one");
        assert_eq!(
            lines[101],
            "s: and 1120 more problems like the above, not listed"
        );
    }
}
