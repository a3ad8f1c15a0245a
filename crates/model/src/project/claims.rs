//! The claims register, read at run time from `sources/claims.json`: every statement of fact the
//! prose makes that is not computed from the results (how a scenario sends queries, which
//! scenarios exist, a benchmark's dataset, what makes a run valid) names the pinned input that
//! bears it out, the lines, and the exact words at those lines. Every build checks each claim
//! against the verified bytes of its input and refuses one whose words are not at its lines; the
//! prose cites a claim with `{{cite:id}}`, which renders a numbered source note linking those
//! lines at the pinned commit.
//!
//! The words are compared with the lines as a reader sees them: each line trimmed, a leading
//! comment marker (`///`, `//`, `#`) and list bullet (`+`, `-`, `*`) dropped, the lines joined
//! with one space and every run of white space taken as one space. A claim's words are one or more
//! fragments that must stand in that text in order, the first starting on the first line of the
//! range and the last ending on its last line, so the range is exactly as wide as the words.

use serde::{Deserialize, Serialize};

use crate::inputs::{InputKind, InputManifest, Inputs, PinnedInput};
use ratios_base::error::{Error, Result};
use ratios_base::text::excerpt;

/// Where the register lives in the project.
pub const CLAIMS_PATH: &str = "sources/claims.json";

/// Widest line range a claim may cite.
pub const MAX_LINES: u32 = 12;

/// The id of a claim, as the prose cites it (`{{cite:offline-one-query}}`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClaimId(pub String);

impl std::fmt::Display for ClaimId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One claim of the register.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The claim's id, as the prose cites it.
    pub id: ClaimId,
    /// What the prose says, in the register's own words (for reviewers; not printed).
    pub says: String,
    /// The `name` of a pinned input of `data/inputs.json`.
    pub input: String,
    /// First and last line (1-based, inclusive).
    pub lines: [u32; 2],
    /// The words at those lines, as one or more fragments in order.
    pub words: Vec<String>,
}

/// The register file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRegister {
    /// A paragraph on what the register holds, for the reader of the JSON file; not used by the
    /// build.
    pub about: String,
    /// The claims the prose may cite, each with the input and the lines that bear it out.
    pub claims: Vec<Claim>,
}

/// A claim checked against its pinned input: what a source note prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The claim's id, as the prose cites it.
    pub id: ClaimId,
    /// What the prose says, in the register's own words.
    pub says: String,
    /// The GitHub repository of the pinned input (`<owner>/<repo>`).
    pub repository: String,
    /// The full commit hash the input is pinned at.
    pub commit: String,
    /// The input's path in that repository.
    pub path: String,
    /// The pinned input's name in `data/inputs.json`.
    pub input: String,
    /// The first line cited, 1-based.
    pub first_line: u32,
    /// The last line cited, 1-based and inclusive.
    pub last_line: u32,
    /// The words found at those lines, fragment by fragment, as the claim gives them.
    pub words: Vec<String>,
    /// The lines at the pinned commit on GitHub.
    pub url: String,
}

fn err(message: String) -> Error {
    Error::Config {
        file: CLAIMS_PATH.into(),
        message,
    }
}

impl ClaimRegister {
    /// Parses the register; `file` names it in errors. Ids must be unique, short and plain;
    /// ranges ordered and at most [`MAX_LINES`] lines; words non-empty.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let register: ClaimRegister = serde_json::from_str(text).map_err(|e| Error::Config {
            file: file.into(),
            message: e.to_string(),
        })?;
        let mut seen = std::collections::BTreeSet::new();
        for c in &register.claims {
            let bad = |why: &str| Error::Config {
                file: file.into(),
                message: format!("claim {:?}: {why}", excerpt(&c.id.0, 40)),
            };
            let id_ok = !c.id.0.is_empty()
                && c.id.0.len() <= 40
                && c.id
                    .0
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-');
            if !id_ok {
                return Err(bad(
                    "an id is 1 to 40 characters of a-z, 0-9 and '-' (the prose cites it as {{cite:id}})",
                ));
            }
            if !seen.insert(&c.id) {
                return Err(bad("given twice; each claim has one id"));
            }
            let [first, last] = c.lines;
            if first == 0 || last < first {
                return Err(bad(&format!(
                    "lines [{first}, {last}]: the first line is 1 or more and the last not before it"
                )));
            }
            if last - first >= MAX_LINES {
                return Err(bad(&format!(
                    "lines [{first}, {last}] span {} lines; a claim cites at most {MAX_LINES}",
                    last - first + 1
                )));
            }
            if c.words.is_empty() || c.words.iter().any(|w| normalise(w).is_empty()) {
                return Err(bad("words must be one or more non-empty fragments"));
            }
        }
        Ok(register)
    }

    /// The claim named `id`.
    pub fn get(&self, id: &str) -> Option<&Claim> {
        self.claims.iter().find(|c| c.id.0 == id)
    }

    /// Checks every claim against the verified bytes of its input; the notes in register order.
    pub fn check(&self, inputs: &Inputs) -> Result<Vec<Note>> {
        self.claims
            .iter()
            .map(|c| {
                let input = inputs
                    .files
                    .iter()
                    .find(|f| f.pin.name == c.input)
                    .ok_or_else(|| not_pinned(c))?;
                let text = std::str::from_utf8(&input.bytes).map_err(|_| {
                    err(format!(
                        "claim {}: input {} is not UTF-8 text",
                        c.id, input.pin.name
                    ))
                })?;
                check_words(c, &input.pin, text)?;
                Ok(note(c, &input.pin))
            })
            .collect()
    }

    /// Checks that every claim names a pinned input of `manifest`, and that every pinned source
    /// backs something: a claim, or the checker facts (`backs_facts`). A source pinned for
    /// nothing would be listed on the page as evidence of no sentence.
    pub fn check_inputs(
        &self,
        manifest: &InputManifest,
        backs_facts: impl Fn(&PinnedInput) -> bool,
    ) -> Result<()> {
        for c in &self.claims {
            if !manifest.inputs.iter().any(|p| p.name == c.input) {
                return Err(not_pinned(c));
            }
        }
        let unused = manifest
            .of_kind(InputKind::Source)
            .find(|p| !backs_facts(p) && !self.claims.iter().any(|c| c.input == p.name));
        match unused {
            Some(p) => Err(err(format!(
                "the source {:?} pinned in {} backs no claim and no checker fact: cite it in a claim or unpin it",
                excerpt(&p.name, 80),
                crate::inputs::MANIFEST_PATH
            ))),
            None => Ok(()),
        }
    }
}

/// The error of a claim whose input the manifest does not pin.
fn not_pinned(c: &Claim) -> Error {
    err(format!(
        "claim {}: input {:?} is not pinned in {}",
        c.id,
        excerpt(&c.input, 80),
        crate::inputs::MANIFEST_PATH
    ))
}

fn note(c: &Claim, pin: &PinnedInput) -> Note {
    let [first, last] = c.lines;
    // GitHub shows a Markdown file rendered unless asked for its text, and only the text has
    // line anchors.
    let plain = if pin.path.ends_with(".md") {
        "?plain=1"
    } else {
        ""
    };
    let anchor = if first == last {
        format!("#L{first}")
    } else {
        format!("#L{first}-L{last}")
    };
    Note {
        id: c.id.clone(),
        says: c.says.clone(),
        repository: pin.repository.clone(),
        commit: pin.commit.clone(),
        path: pin.path.clone(),
        input: pin.name.clone(),
        first_line: first,
        last_line: last,
        words: c.words.clone(),
        url: format!(
            "https://github.com/{}/blob/{}/{}{plain}{anchor}",
            pin.repository,
            pin.commit,
            ratios_base::text::url_path(&pin.path)
        ),
    }
}

/// A line as a reader sees it: trimmed, without a leading comment marker or list bullet.
fn reader_line(line: &str) -> &str {
    let mut l = line.trim();
    for prefixes in [["///", "//", "#"], ["+ ", "- ", "* "]] {
        if let Some(rest) = prefixes.iter().find_map(|p| l.strip_prefix(p)) {
            l = rest.trim_start();
        }
    }
    l.trim_end()
}

/// Every run of white space as one space, trimmed.
fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks that the claim's words stand at its lines of `text`, tightly.
fn check_words(c: &Claim, pin: &PinnedInput, text: &str) -> Result<()> {
    let [first, last] = c.lines;
    let all: Vec<&str> = text.lines().collect();
    let fail = |why: String| {
        err(format!(
            "claim {}: {} ({}) {why}",
            c.id,
            pin.path,
            excerpt(&pin.name, 80)
        ))
    };
    if last as usize > all.len() {
        return Err(fail(format!(
            "has {} lines, so lines {first}-{last} are not there",
            all.len()
        )));
    }
    // The joined text, with where each line's part ends in it.
    let mut joined = String::new();
    let mut ends = Vec::new();
    for line in &all[first as usize - 1..last as usize] {
        let part = normalise(reader_line(line));
        if !joined.is_empty() && !part.is_empty() {
            joined.push(' ');
        }
        joined.push_str(&part);
        ends.push(joined.len());
    }
    let first_end = ends[0];
    let last_start = if ends.len() > 1 {
        ends[ends.len() - 2]
    } else {
        0
    };
    let (range, hold) = if first == last {
        (format!("line {first}"), "does not hold")
    } else {
        (format!("lines {first}-{last}"), "do not hold")
    };
    let mut at = 0;
    for (k, fragment) in c.words.iter().map(|w| normalise(w)).enumerate() {
        let Some(found) = joined[at..].find(&fragment).map(|i| i + at) else {
            return Err(fail(format!(
                "{range} {hold} {:?} (it reads: {:?})",
                excerpt(&fragment, 80),
                excerpt(&joined, 160)
            )));
        };
        if k == 0 && found >= first_end {
            return Err(fail(format!(
                "{range}: the words start after line {first}; the range must begin where they do"
            )));
        }
        at = found + fragment.len();
        if k + 1 == c.words.len() && at <= last_start {
            return Err(fail(format!(
                "{range}: the words end before line {last}; the range must end where they do"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made source file: a comment block and a table line.
    const SOURCE: &str = "/// * **Offline**\n///  + Sends all N samples to the SUT inside of a single query.\n///  + The samples of the query are guaranteed to be contiguous.\n| llama2-70b | x | pytorch | OpenOrca | datacenter |\n";

    fn pin() -> PinnedInput {
        serde_json::from_value(serde_json::json!({
            "name": "settings", "kind": "source", "local": "s.h", "repository": "o/r",
            "commit": "0".repeat(40), "path": "loadgen/test_settings.h",
            "url": "https://example.org/s.h", "size": SOURCE.len(),
            "sha256": "0".repeat(64), "git_blob_sha1": "0".repeat(40),
            "license": "Apache-2.0", "acquired": "2026-12-01"
        }))
        .unwrap()
    }

    fn claim(lines: [u32; 2], words: &[&str]) -> Claim {
        Claim {
            id: ClaimId("offline-one-query".into()),
            says: "Offline sends one query.".into(),
            input: "settings".into(),
            lines,
            words: words.iter().map(|w| w.to_string()).collect(),
        }
    }

    #[test]
    fn every_pinned_source_must_back_a_claim_or_the_facts() {
        let mut readme = pin();
        readme.name = "readme".into();
        readme.local = "r.md".into();
        let manifest = InputManifest {
            about: String::new(),
            source_date: "2026-12-01T00:00:00Z".into(),
            lists: Vec::new(),
            inputs: vec![pin(), readme],
            listed: 0,
            listed_by: Vec::new(),
        };
        let register = ClaimRegister {
            about: String::new(),
            claims: vec![claim([2, 2], &["x"])],
        };
        let e = register
            .check_inputs(&manifest, |_| false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"readme\"") && e.contains("backs no claim"),
            "{e}"
        );
        register
            .check_inputs(&manifest, |p| p.name == "readme")
            .unwrap();
        // A claim naming an input the manifest does not pin.
        let mut stray = claim([2, 2], &["x"]);
        stray.input = "gone".into();
        let e = ClaimRegister {
            about: String::new(),
            claims: vec![stray],
        }
        .check_inputs(&manifest, |_| true)
        .unwrap_err()
        .to_string();
        assert!(e.contains("\"gone\" is not pinned"), "{e}");
    }

    #[test]
    fn words_must_stand_at_their_lines_exactly() {
        let ok = |c: Claim| check_words(&c, &pin(), SOURCE);
        ok(claim(
            [2, 2],
            &["Sends all N samples to the SUT inside of a single query."],
        ))
        .unwrap();
        // Across lines, with the comment markers and bullets dropped and lines joined by a space.
        ok(claim([2, 3], &["a single query. The samples of the query"])).unwrap();
        // Fragments in order on one table line.
        ok(claim([4, 4], &["| llama2-70b |", "| OpenOrca |"])).unwrap();
        let fails = |c: Claim, says: &str| {
            let e = ok(c).unwrap_err().to_string();
            assert!(e.starts_with("sources/claims.json: claim offline-one-query: loadgen/test_settings.h (settings) "), "{e}");
            assert!(e.contains(says), "{says}: {e}");
        };
        // A changed word.
        fails(
            claim([2, 2], &["Sends all N samples in a single query."]),
            "line 2 does not hold",
        );
        // A range that moved.
        fails(
            claim([3, 3], &["Sends all N samples"]),
            "line 3 does not hold",
        );
        // A range wider than the words, at either end.
        fails(
            claim([1, 2], &["Sends all N samples"]),
            "the words start after line 1",
        );
        fails(
            claim([2, 3], &["Sends all N samples"]),
            "the words end before line 3",
        );
        // Fragments out of order.
        fails(
            claim([4, 4], &["| OpenOrca |", "| llama2-70b |"]),
            "line 4 does not hold",
        );
        fails(
            claim([2, 3], &["Sends all N samples in a query."]),
            "lines 2-3 do not hold",
        );
        // Lines past the end of the file.
        fails(
            claim([4, 9], &["x"]),
            "has 4 lines, so lines 4-9 are not there",
        );
    }

    #[test]
    fn the_register_refuses_odd_ids_ranges_and_words() {
        let parse = |claims: serde_json::Value| {
            ClaimRegister::parse(
                "claims.json",
                &serde_json::json!({"about": "t", "claims": claims}).to_string(),
            )
        };
        let one = |id: &str, lines: [u32; 2], words: &[&str]| serde_json::json!([{"id": id, "says": "s", "input": "i", "lines": lines, "words": words}]);
        assert!(parse(one("a-1", [1, 1], &["x"])).is_ok());
        for (claims, says) in [
            (one("A", [1, 1], &["x"]), "an id is 1 to 40 characters"),
            (one("a", [0, 1], &["x"]), "the first line is 1 or more"),
            (one("a", [3, 2], &["x"]), "the first line is 1 or more"),
            (
                one("a", [1, 20], &["x"]),
                "span 20 lines; a claim cites at most 12",
            ),
            (one("a", [1, 1], &[]), "one or more non-empty fragments"),
            (one("a", [1, 1], &[" "]), "one or more non-empty fragments"),
        ] {
            let e = parse(claims).unwrap_err().to_string();
            assert!(e.contains(says), "{says}: {e}");
        }
        let twice = serde_json::json!([
            {"id": "a", "says": "s", "input": "i", "lines": [1, 1], "words": ["x"]},
            {"id": "a", "says": "s", "input": "i", "lines": [2, 2], "words": ["y"]}
        ]);
        assert!(parse(twice)
            .unwrap_err()
            .to_string()
            .contains("given twice"));
    }

    #[test]
    fn notes_link_the_lines_at_the_pinned_commit() {
        let n = note(&claim([2, 3], &["x"]), &pin());
        assert_eq!(
            n.url,
            format!(
                "https://github.com/o/r/blob/{}/loadgen/test_settings.h#L2-L3",
                "0".repeat(40)
            )
        );
        let mut md = pin();
        md.path = "language/llama2-70b/README.md".into();
        assert!(note(&claim([4, 4], &["x"]), &md)
            .url
            .ends_with("/language/llama2-70b/README.md?plain=1#L4"));
    }
}
