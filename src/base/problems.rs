//! A list of problem lines whose size is bounded whatever the input: each line is cut to
//! [`MAX_LINE_CHARS`] characters, and past [`MAX_PER_SOURCE`] lines from one source (the file a
//! line names before its first `: `) the rest are only counted, then summed up in one closing
//! line per source. Five million malformed lines of an inventory make 101 lines, not 659 MB.

use std::collections::BTreeMap;

use crate::base::text::excerpt;

/// The most lines kept from one source.
pub const MAX_PER_SOURCE: usize = 100;

/// The longest line kept, in characters.
pub const MAX_LINE_CHARS: usize = 2_000;

/// Problem lines, bounded (see the module's comment).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Problems {
    lines: Vec<String>,
    /// Lines kept and lines left out, by source.
    counts: BTreeMap<String, (usize, usize)>,
}

impl Problems {
    /// Adds `line`, or counts it when its source has given [`MAX_PER_SOURCE`] already.
    pub fn push(&mut self, line: impl Into<String>) {
        let line = line.into();
        let source = line.split_once(": ").map_or("", |(s, _)| s);
        // A source name is itself bounded, so the counts stay small too.
        let source = excerpt(source, 300);
        let (kept, left) = self.counts.entry(source).or_default();
        if *kept < MAX_PER_SOURCE {
            *kept += 1;
            self.lines.push(excerpt(&line, MAX_LINE_CHARS));
        } else {
            *left += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// How many problems there were, counted ones included.
    pub fn total(&self) -> usize {
        self.counts.values().map(|(k, l)| k + l).sum()
    }

    /// The lines kept, then one line per source whose further lines were only counted.
    pub fn into_lines(self) -> Vec<String> {
        let mut lines = self.lines;
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
}
