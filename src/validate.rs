//! Stage 8 of the pipeline: the build checks its own output before publishing it, and readers
//! check a published folder or bundle with `scenario-ratios verify`.
//!
//! [`validate`] runs static checks on the in-memory output (no script or external resource in the
//! article, CSP present, SVGs well-formed, highlighted percentages equal to results.json, safe zip
//! paths, SHA256SUMS coverage); any failure stops the build. [`verify_path`] re-checks a written
//! `dist/` folder or a `reproducibility.zip` from the bytes on disk.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::dist::Dist;
use crate::error::{Error, Result};
use crate::format::percent;
use crate::inputs::HexDigest;
use crate::package::{self, INVENTORY_NAME, PUBLISHED_DIR, SUMS_NAME, ZIP_NAME};

/// Path of the validation report inside `dist/`.
pub const REPORT_PATH: &str = "qa/validation.json";

/// One static check of the output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

fn check(name: &str, problems: Vec<String>, ok_detail: String) -> Validation {
    Validation {
        name: name.to_string(),
        passed: problems.is_empty(),
        detail: if problems.is_empty() {
            ok_detail
        } else {
            problems.join("; ")
        },
    }
}

fn text<'a>(dist: &'a Dist, path: &str) -> std::result::Result<&'a str, String> {
    let bytes = dist.get(path).ok_or_else(|| format!("{path} is missing"))?;
    std::str::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8"))
}

/// Resource references a page could load: `src`/`srcset` attributes, `<link>` other than the
/// canonical link, CSS `url(` and `@import`, and embedding elements.
pub fn external_resources(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    for needle in [
        "<script", "<iframe", "<object", "<embed", "<frame", "@import", "url(", "srcset=",
    ] {
        if lower.contains(needle) {
            found.push(needle.to_string());
        }
    }
    let mut rest = lower.as_str();
    while let Some(i) = rest.find(" src=") {
        let value = rest[i + 5..].trim_start_matches(['"', '\'']);
        if !value.starts_with("data:") {
            found.push(format!(
                "src={}",
                value.chars().take(40).collect::<String>()
            ));
        }
        rest = &rest[i + 5..];
    }
    let mut rest = lower.as_str();
    while let Some(i) = rest.find("<link") {
        let tag: String = rest[i..].chars().take_while(|&c| c != '>').collect();
        if !tag.contains("rel=\"canonical\"") {
            found.push(tag);
        }
        rest = &rest[i + 5..];
    }
    found
}

/// The static checks of the build output. `will_be_summed` lists the files SHA256SUMS will cover.
pub fn validate(dist: &Dist, will_be_summed: &BTreeSet<String>) -> Vec<Validation> {
    let mut out = Vec::new();
    let article = text(dist, "article.html");

    out.push(match &article {
        Err(e) => check("article-self-contained", vec![e.clone()], String::new()),
        Ok(html) => check(
            "article-self-contained",
            external_resources(html),
            "no <script>, no embedded frame or object, no src/srcset/url()/@import, no <link> but the canonical one".into(),
        ),
    });
    out.push(match &article {
        Err(e) => check("csp-meta", vec![e.clone()], String::new()),
        Ok(html) => {
            let csp = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';";
            check(
                "csp-meta",
                if html.contains(csp) {
                    vec![]
                } else {
                    vec!["no Content-Security-Policy meta with default-src 'none'".into()]
                },
                "Content-Security-Policy meta with default-src 'none'".into(),
            )
        }
    });
    for svg in [
        crate::pipeline::FIGURE_HIGHLIGHTS,
        crate::pipeline::FIGURE_PAIRS,
    ] {
        let problems = match text(dist, svg) {
            Err(e) => vec![e],
            Ok(s) => match roxmltree::Document::parse(s) {
                Err(e) => vec![format!("{svg}: not well-formed XML: {e}")],
                Ok(doc) => {
                    let root = doc.root_element();
                    let mut p = Vec::new();
                    if root.tag_name().name() != "svg" {
                        p.push(format!("{svg}: root element is not <svg>"));
                    }
                    if root.attribute("role") != Some("img") {
                        p.push(format!("{svg}: no role=\"img\""));
                    }
                    for child in ["title", "desc"] {
                        if !root.children().any(|c| c.tag_name().name() == child) {
                            p.push(format!("{svg}: no <{child}>"));
                        }
                    }
                    p
                }
            },
        };
        out.push(check(
            &format!("svg-well-formed {svg}"),
            problems,
            "parses as XML; <svg role=\"img\"> with <title> and <desc>".into(),
        ));
    }

    // Every highlighted percentage, recomputed from results.json, appears in the article and figure.
    let mut problems = Vec::new();
    let mut shown = Vec::new();
    match text(dist, "results.json").and_then(|t| {
        serde_json::from_str::<serde_json::Value>(t).map_err(|e| format!("results.json: {e}"))
    }) {
        Err(e) => problems.push(e),
        Ok(results) => {
            let highlights = results["highlights"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if highlights.is_empty() {
                problems.push("results.json has no highlights".into());
            }
            for h in highlights {
                let Some(ratio) = h["ratio"].as_f64() else {
                    problems.push(format!("highlight {} has no ratio", h["label"]));
                    continue;
                };
                let p = percent(crate::analysis::Ratio(ratio));
                for file in ["article.html", crate::pipeline::FIGURE_HIGHLIGHTS] {
                    if !text(dist, file).is_ok_and(|t| t.contains(&p)) {
                        problems.push(format!("{p} ({}) missing from {file}", h["label"]));
                    }
                }
                shown.push(p);
            }
        }
    }
    out.push(check(
        "highlights-match-results",
        problems,
        format!("{} found in article.html and figure 1", shown.join(", ")),
    ));

    out.push(match dist.get(ZIP_NAME) {
        None => check(
            "zip-paths-safe",
            vec![format!("{ZIP_NAME} is missing")],
            String::new(),
        ),
        Some(bytes) => match zip_listing_problems(bytes) {
            Err(e) => check("zip-paths-safe", vec![e.to_string()], String::new()),
            Ok((n, problems)) => check(
                "zip-paths-safe",
                problems,
                format!("{n} entries, all relative without `..`, each listed in {INVENTORY_NAME}"),
            ),
        },
    });

    let files: BTreeSet<String> = dist
        .files()
        .map(|(p, _)| p.to_string())
        .chain([REPORT_PATH.to_string()])
        .collect();
    let missing: Vec<String> = files
        .symmetric_difference(will_be_summed)
        .map(|p| format!("{p} not covered"))
        .collect();
    out.push(check(
        "sha256sums-cover-dist",
        missing,
        format!("{SUMS_NAME} lists all {} other files of dist/", files.len()),
    ));
    out
}

/// Checks the names of a zip's entries (from its central directory) and that the inventory lists
/// each of them; entry data is checked by `verify`.
fn zip_listing_problems(bytes: &[u8]) -> Result<(usize, Vec<String>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| Error::invalid(ZIP_NAME, format!("not a readable zip: {e}")))?;
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.map(|n| n.to_string()))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::invalid(ZIP_NAME, e.to_string()))?;
    let mut problems: Vec<String> = names
        .iter()
        .filter(|n| !crate::inputs::is_safe_relative(n))
        .map(|n| format!("unsafe entry path {n:?}"))
        .collect();
    let mut inventory = String::new();
    archive
        .by_name(INVENTORY_NAME)
        .map_err(|e| Error::invalid(ZIP_NAME, format!("{INVENTORY_NAME}: {e}")))?
        .read_to_string(&mut inventory)
        .map_err(|e| Error::invalid(ZIP_NAME, format!("{INVENTORY_NAME}: {e}")))?;
    let listed = package::parse_sums(INVENTORY_NAME, &inventory)?;
    problems.extend(inventory_coverage(
        names.iter().map(String::as_str),
        &listed,
    ));
    Ok((names.len(), problems))
}

/// Entries missing from the inventory, and inventory lines naming no entry.
fn inventory_coverage<'a>(
    names: impl Iterator<Item = &'a str>,
    listed: &[(String, String)],
) -> Vec<String> {
    let names: BTreeSet<&str> = names.filter(|n| *n != INVENTORY_NAME).collect();
    let listed: BTreeSet<&str> = listed.iter().map(|(p, _)| p.as_str()).collect();
    let absent = listed
        .difference(&names)
        .map(|p| format!("{ZIP_NAME}: {p}: listed in the inventory but absent"));
    let unlisted = names
        .difference(&listed)
        .map(|p| format!("{ZIP_NAME}: {p}: not in the inventory"));
    absent.chain(unlisted).collect()
}

/// Checks a zip's inventory against its entries: returns the entry count and the problems.
fn inventory_problems(entries: &BTreeMap<String, Vec<u8>>) -> Result<(usize, Vec<String>)> {
    let inventory = entries
        .get(INVENTORY_NAME)
        .ok_or_else(|| Error::invalid(ZIP_NAME, format!("no {INVENTORY_NAME} entry")))?;
    let listed = package::parse_sums(
        &format!("{ZIP_NAME}: {INVENTORY_NAME}"),
        std::str::from_utf8(inventory)
            .map_err(|_| Error::invalid(ZIP_NAME, format!("{INVENTORY_NAME} is not UTF-8")))?,
    )?;
    let mut problems = inventory_coverage(entries.keys().map(String::as_str), &listed);
    for (path, hex) in &listed {
        if let Some(b) = entries.get(path) {
            let actual = HexDigest::sha256(b);
            if actual.as_str() != hex {
                problems.push(format!(
                    "{ZIP_NAME}: {path}: SHA-256 mismatch: inventory {hex}, actual {actual}"
                ));
            }
        }
    }
    Ok((entries.len(), problems))
}

/// The outcome of `verify`: one line per checked item.
#[derive(Debug, Default)]
pub struct Report {
    pub ok: Vec<String>,
    pub problems: Vec<String>,
}

impl Report {
    fn merge(&mut self, other: Report) {
        self.ok.extend(other.ok);
        self.problems.extend(other.problems);
    }
}

/// Verifies a `dist/` folder (SHA256SUMS, then the bundle inside) or a `reproducibility.zip`.
pub fn verify_path(path: &Path) -> Result<Report> {
    if path.is_dir() {
        verify_dir(path)
    } else {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        verify_zip(&path.display().to_string(), &bytes)
    }
}

/// Checks `SHA256SUMS` of a folder, then the bundle inside it.
pub fn verify_dir(dir: &Path) -> Result<Report> {
    let mut report = verify_sums(dir)?;
    let zip = dir.join(ZIP_NAME);
    if zip.is_file() {
        let bytes = std::fs::read(&zip).map_err(|e| Error::io(&zip, e))?;
        report.merge(verify_zip(&zip.display().to_string(), &bytes)?);
    }
    Ok(report)
}

/// Checks `SHA256SUMS` of a folder: every listed file matches, every file is listed.
pub fn verify_sums(dir: &Path) -> Result<Report> {
    let sums_path = dir.join(SUMS_NAME);
    let text = std::fs::read_to_string(&sums_path).map_err(|e| Error::io(&sums_path, e))?;
    let listed = package::parse_sums(&sums_path.display().to_string(), &text)?;
    let mut report = Report::default();
    let mut seen = BTreeSet::new();
    for (rel, hex) in &listed {
        seen.insert(rel.clone());
        let file = dir.join(rel);
        match std::fs::read(&file) {
            Err(e) => report.problems.push(format!(
                "{}: listed in {SUMS_NAME} but unreadable: {e}",
                file.display()
            )),
            Ok(bytes) => {
                let actual = HexDigest::sha256(&bytes);
                if actual.as_str() == hex {
                    report
                        .ok
                        .push(format!("{rel}: SHA-256 matches {SUMS_NAME}"));
                } else {
                    report.problems.push(format!(
                        "{}: SHA-256 mismatch: {SUMS_NAME} has {hex}, file has {actual}",
                        file.display()
                    ));
                }
            }
        }
    }
    for (rel, path) in crate::dist::files_under(dir)? {
        if rel != SUMS_NAME && !seen.contains(&rel) {
            report
                .problems
                .push(format!("{}: not listed in {SUMS_NAME}", path.display()));
        }
    }
    Ok(report)
}

/// Checks a bundle: readable entries (CRC), the inventory, and the inputs against provenance.json.
pub fn verify_zip(name: &str, bytes: &[u8]) -> Result<Report> {
    let mut report = Report::default();
    let entries = match package::read_zip(name, bytes) {
        Ok(e) => e,
        Err(e) => {
            report.problems.push(e.to_string());
            return Ok(report);
        }
    };
    match inventory_problems(&entries) {
        Err(e) => report.problems.push(e.to_string()),
        Ok((n, problems)) => {
            if problems.is_empty() {
                report
                    .ok
                    .push(format!("{name}: all {n} entries match {INVENTORY_NAME}"));
            }
            report
                .problems
                .extend(problems.into_iter().map(|p| p.replacen(ZIP_NAME, name, 1)));
        }
    }
    let prov_path = format!("{PUBLISHED_DIR}/provenance.json");
    let Some(prov) = entries.get(&prov_path) else {
        report
            .problems
            .push(format!("{name}: {prov_path}: missing"));
        return Ok(report);
    };
    let prov: serde_json::Value = match serde_json::from_slice(prov) {
        Ok(v) => v,
        Err(e) => {
            report.problems.push(format!("{name}: {prov_path}: {e}"));
            return Ok(report);
        }
    };
    for input in prov["inputs"].as_array().cloned().unwrap_or_default() {
        let path = input["bundle_path"].as_str().unwrap_or_default();
        let Some(data) = entries.get(path) else {
            report.problems.push(format!(
                "{name}: {path}: input listed in provenance.json is absent"
            ));
            continue;
        };
        let mut wrong = Vec::new();
        if input["size"].as_u64() != Some(data.len() as u64) {
            wrong.push(format!("size {} vs {}", input["size"], data.len()));
        }
        let sha = HexDigest::sha256(data);
        if input["sha256"].as_str() != Some(sha.as_str()) {
            wrong.push(format!("SHA-256 {} vs {sha}", input["sha256"]));
        }
        let blob = HexDigest::git_blob_sha1(data);
        if input["git_blob_sha1"].as_str() != Some(blob.as_str()) {
            wrong.push(format!(
                "git blob SHA-1 {} vs {blob}",
                input["git_blob_sha1"]
            ));
        }
        if wrong.is_empty() {
            report
                .ok
                .push(format!("{name}: {path}: matches provenance.json"));
        } else {
            report.problems.push(format!(
                "{name}: {path}: does not match provenance.json: {}",
                wrong.join(", ")
            ));
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventory_problems_name_each_entry() {
        let h = |b: &[u8]| HexDigest::sha256(b).to_string();
        let mut e = BTreeMap::new();
        e.insert("a.txt".to_string(), b"a".to_vec());
        e.insert("b.txt".to_string(), b"b".to_vec());
        e.insert("c.txt".to_string(), b"c".to_vec());
        let inventory = format!(
            "{}  a.txt\n{}  c.txt\n{}  gone.txt\n",
            h(b"a"),
            h(b"x"),
            h(b"g")
        );
        e.insert(INVENTORY_NAME.to_string(), inventory.into_bytes());
        let (n, problems) = inventory_problems(&e).unwrap();
        assert_eq!(n, 4);
        assert_eq!(
            problems,
            [
                "reproducibility.zip: gone.txt: listed in the inventory but absent".to_string(),
                "reproducibility.zip: b.txt: not in the inventory".to_string(),
                format!(
                    "reproducibility.zip: c.txt: SHA-256 mismatch: inventory {}, actual {}",
                    h(b"x"),
                    h(b"c")
                ),
            ]
        );
    }

    #[test]
    fn external_resources_are_found() {
        assert!(
            external_resources("<p>hi</p><link rel=\"canonical\" href=\"https://x\">").is_empty()
        );
        assert!(
            external_resources("<a href=\"https://x\">x</a>").is_empty(),
            "links are not loads"
        );
        assert_eq!(external_resources("<img src=\"http://x/a.png\">").len(), 1);
        assert!(external_resources("<img src=\"data:image/png;base64,AA\">").is_empty());
        assert_eq!(external_resources("<SCRIPT>1</SCRIPT>"), ["<script"]);
        assert_eq!(
            external_resources("<style>@import 'x.css'</style>"),
            ["@import"]
        );
        assert_eq!(
            external_resources("<link rel=\"stylesheet\" href=\"a.css\">").len(),
            1
        );
        assert_eq!(
            external_resources("<div style=\"background:url(http://x)\">").len(),
            1
        );
    }
}
