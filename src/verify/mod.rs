//! The reader's check of a published folder or of a reproducibility bundle
//! (`scenario-ratios verify`). It reads only, never writes, trusts nothing it reads, and reports
//! every problem as one line.
//!
//! For a folder: `SHA256SUMS` must be well formed and list only relative paths inside the folder;
//! every listed file must exist and match, every file must be listed, and the bundle inside is
//! then checked too, including that its published copies equal the folder's files. For a bundle:
//! its central directory must be sane (no duplicate or unsafe names, sizes within limits), every
//! entry must inflate to its declared size with a matching CRC and match the inventory, and every
//! bundled input must match the pins of the bundled manifest and `provenance.json`, which must
//! agree with each other.

mod bundle;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::base::digest::HexDigest;
use crate::base::layout::{self, OutputFile, PUBLISHED_DIR};
use crate::base::ownership::MARKER;
use crate::base::sums::parse_sums;
use bundle::verify_bundle;

/// Largest SHA256SUMS or bundle file `verify` reads into memory.
const MAX_SUMS_BYTES: u64 = 1 << 20;
const MAX_BUNDLE_BYTES: u64 = 128 << 20;

/// The outcome of `verify`: what was checked, and one line per problem.
#[derive(Debug, Default)]
pub struct Report {
    pub checked: usize,
    pub problems: Vec<String>,
}

impl Report {
    fn problem(&mut self, p: impl Into<String>) {
        self.problems.push(p.into());
    }
}

/// Verifies a published folder, or a bundle given as a file.
pub fn verify_path(path: &Path) -> Report {
    let mut report = Report::default();
    match fs::symlink_metadata(path) {
        Err(e) => report.problem(format!("{}: {e}", path.display())),
        Ok(m) if m.is_dir() => verify_dir(path, &mut report),
        Ok(m) if m.is_file() => {
            if let Some(bytes) = read_capped(path, MAX_BUNDLE_BYTES, &mut report) {
                verify_bundle(&path.display().to_string(), &bytes, &mut report);
            }
        }
        Ok(_) => report.problem(format!(
            "{}: is neither a folder nor a regular file",
            path.display()
        )),
    }
    report
}

fn read_capped(path: &Path, max: u64, report: &mut Report) -> Option<Vec<u8>> {
    match crate::base::fetch::read_file(path, max) {
        Err(e) => {
            report.problem(format!("{}: {e}", path.display()));
            None
        }
        Ok(None) => {
            report.problem(format!(
                "{}: larger than {max} bytes; not read",
                path.display()
            ));
            None
        }
        Ok(bytes) => bytes,
    }
}

/// SHA-256 of a file, read in pieces (any size, constant memory).
fn sha256_file(path: &Path) -> std::io::Result<HexDigest> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(HexDigest::of_digest(&hasher.finalize()))
}

fn verify_dir(dir: &Path, report: &mut Report) {
    let sums_name = OutputFile::Sums.path();
    let sums_path = dir.join(sums_name);
    let shown = |rel: &str| dir.join(rel).display().to_string();
    match fs::symlink_metadata(&sums_path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return report.problem(format!("{}: is not a regular file", shown(sums_name))),
        Err(e) => return report.problem(format!("{}: {e}", shown(sums_name))),
    }
    let Some(bytes) = read_capped(&sums_path, MAX_SUMS_BYTES, report) else {
        return;
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return report.problem(format!("{}: not UTF-8", shown(sums_name)));
    };
    let listed = match parse_sums(&shown(sums_name), &text) {
        Ok(l) => l,
        Err(problems) => {
            report.problems.extend(problems);
            return;
        }
    };
    let mut hashes: BTreeMap<String, HexDigest> = BTreeMap::new();
    for (rel, expected) in &listed {
        let file = dir.join(rel);
        match fs::symlink_metadata(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                report.problem(format!("missing: {} (listed in {sums_name})", shown(rel)));
            }
            Err(e) => report.problem(format!("{}: {e}", shown(rel))),
            Ok(m) if m.file_type().is_symlink() => report.problem(format!(
                "{}: is a symbolic link; a published file must be a regular file",
                shown(rel)
            )),
            Ok(m) if !m.is_file() => {
                report.problem(format!("{}: is not a regular file", shown(rel)))
            }
            Ok(_) => match sha256_file(&file) {
                Err(e) => report.problem(format!("{}: {e}", shown(rel))),
                Ok(actual) if &actual == expected => {
                    report.checked += 1;
                    hashes.insert(rel.clone(), actual);
                }
                Ok(actual) => report.problem(format!(
                    "{}: SHA-256 mismatch: {sums_name} has {expected}, the file has {actual}",
                    shown(rel)
                )),
            },
        }
    }
    for required in OutputFile::ALL.iter().filter(|f| **f != OutputFile::Sums) {
        if !listed.iter().any(|(p, _)| p == required.path()) {
            report.problem(format!(
                "{}: does not list {}, a file every build publishes",
                shown(sums_name),
                required.path()
            ));
        }
    }
    let listed_paths: BTreeSet<&str> = listed.iter().map(|(p, _)| p.as_str()).collect();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name().min_depth(1) {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                report.problem(format!("{}: {e}", dir.display()));
                continue;
            }
        };
        if entry.file_type().is_dir() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if rel != sums_name && rel != MARKER && !listed_paths.contains(rel.as_str()) {
            report.problem(format!("not listed in {sums_name}: {}", shown(&rel)));
        }
    }

    let bundle_rel = OutputFile::Bundle.path();
    if hashes.contains_key(bundle_rel) {
        let bundle = dir.join(bundle_rel);
        if let Some(bytes) = read_capped(&bundle, MAX_BUNDLE_BYTES, report) {
            if let Some(published) = verify_bundle(&bundle.display().to_string(), &bytes, report) {
                compare_published(&published, &hashes, &bundle.display().to_string(), report);
            }
        }
    }
}

/// The bundle's copies of published files must be exactly the folder's files that a bundle
/// carries (under `published/`, and the notebook and its script at the top).
fn compare_published(
    bundle_hashes: &BTreeMap<String, HexDigest>,
    dist: &BTreeMap<String, HexDigest>,
    bundle: &str,
    report: &mut Report,
) {
    let root = layout::bundle_root();
    // Each copy the bundle must carry (its entry name) and the folder's file it copies.
    let copies: Vec<(String, &str)> = OutputFile::ALL
        .iter()
        .filter_map(|f| f.in_bundle().map(|at| (format!("{root}{at}"), f.path())))
        .collect();
    for (entry, path) in &copies {
        match (bundle_hashes.get(entry), dist.get(*path)) {
            (None, _) => report.problem(format!("{bundle}: has no {entry} copy")),
            (Some(_), None) => report.problem(format!(
                "{bundle}: {entry} has no checked counterpart in the folder"
            )),
            (Some(a), Some(b)) if a == b => report.checked += 1,
            (Some(_), Some(_)) => report.problem(format!(
                "{bundle}: {entry} differs from the folder's {path}"
            )),
        }
    }
    let published = format!("{root}{PUBLISHED_DIR}/");
    for entry in bundle_hashes.keys().filter(|k| k.starts_with(&published)) {
        if !copies.iter().any(|(copy, _)| copy == entry) {
            report.problem(format!("{bundle}: {entry} is not a published file"));
        }
    }
}
