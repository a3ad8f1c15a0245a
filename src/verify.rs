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

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::archive::{self, BUNDLE_LIMITS};
use crate::dist::MARKER;
use crate::inputs::{HexDigest, InputManifest};
use crate::layout::{self, OutputFile, INPUTS_DIR, INVENTORY, MANIFEST, PUBLISHED_DIR};
use crate::package::{self, Provenance};

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
    match crate::fetch::read_file(path, max) {
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
    let listed = match package::parse_sums(&shown(sums_name), &text) {
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

/// Checks a bundle; returns the SHA-256 of every entry when the bundle could be read.
fn verify_bundle(
    name: &str,
    bytes: &[u8],
    report: &mut Report,
) -> Option<BTreeMap<String, HexDigest>> {
    let root = layout::bundle_root();
    let keep = |entry: &str| {
        let rel = entry.strip_prefix(root.as_str()).unwrap_or(entry);
        rel == INVENTORY
            || rel == MANIFEST
            || rel.starts_with(&format!("{INPUTS_DIR}/"))
            || rel == format!("{PUBLISHED_DIR}/{}", OutputFile::Provenance.path())
    };
    let mut hashes: BTreeMap<String, HexDigest> = BTreeMap::new();
    let mut kept: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    // Only the entries checked below are held in memory; every other one is hashed as it
    // inflates.
    let read = archive::for_each_entry(
        bytes,
        &BUNDLE_LIMITS,
        |entry| keep(&entry.name),
        |entry, inflated| {
            hashes.insert(entry.name.clone(), inflated.sha256);
            if let Some(data) = inflated.bytes {
                kept.insert(entry.name.clone(), data);
            }
        },
    );
    if let Err(problems) = read {
        report
            .problems
            .extend(problems.into_iter().map(|p| format!("{name}: {p}")));
        return None;
    }
    for entry in hashes.keys() {
        if !entry.starts_with(root.as_str()) {
            report.problem(format!(
                "{name}: {entry}: outside the bundle's folder {root}"
            ));
        }
    }
    let at = |rel: &str| format!("{root}{rel}");

    // The inventory lists every other entry with its SHA-256.
    match kept.get(&at(INVENTORY)).map(|b| std::str::from_utf8(b)) {
        None => report.problem(format!("{name}: no {} entry", at(INVENTORY))),
        Some(Err(_)) => report.problem(format!("{name}: {} is not UTF-8", at(INVENTORY))),
        Some(Ok(text)) => match package::parse_sums(&format!("{name}: {}", at(INVENTORY)), text) {
            Err(problems) => report.problems.extend(problems),
            Ok(listed) => {
                let mut mismatches = 0;
                for (rel, expected) in &listed {
                    match hashes.get(&at(rel)) {
                        None => {
                            report.problem(format!(
                                "{name}: {}: listed in the inventory but absent",
                                at(rel)
                            ));
                            mismatches += 1;
                        }
                        Some(actual) if actual != expected => {
                            report.problem(format!(
                                "{name}: {}: SHA-256 mismatch: inventory {expected}, entry {actual}",
                                at(rel)
                            ));
                            mismatches += 1;
                        }
                        Some(_) => {}
                    }
                }
                let listed: BTreeSet<String> = listed.iter().map(|(p, _)| at(p)).collect();
                for entry in hashes.keys() {
                    if *entry != at(INVENTORY) && !listed.contains(entry) {
                        report.problem(format!("{name}: {entry}: not in the inventory"));
                        mismatches += 1;
                    }
                }
                if mismatches == 0 {
                    report.checked += hashes.len();
                }
            }
        },
    }

    check_inputs(name, &kept, &at, report);

    Some(hashes)
}

/// Every bundled input matches the pins of the bundled manifest; provenance.json records exactly
/// those inputs with the same facts; nothing else sits among the inputs.
fn check_inputs(
    name: &str,
    kept: &BTreeMap<String, Vec<u8>>,
    at: &dyn Fn(&str) -> String,
    report: &mut Report,
) {
    let manifest = match kept.get(&at(MANIFEST)).map(|b| std::str::from_utf8(b)) {
        None => return report.problem(format!("{name}: no {} entry", at(MANIFEST))),
        Some(Err(_)) => return report.problem(format!("{name}: {} is not UTF-8", at(MANIFEST))),
        Some(Ok(text)) => match InputManifest::parse(&format!("{name}: {}", at(MANIFEST)), text) {
            Ok(m) => m,
            Err(e) => return report.problem(e.to_string()),
        },
    };
    let prov_rel = format!("{PUBLISHED_DIR}/{}", OutputFile::Provenance.path());
    let provenance: Option<Provenance> = match kept.get(&at(&prov_rel)) {
        None => {
            report.problem(format!("{name}: no {} entry", at(&prov_rel)));
            None
        }
        Some(b) => match serde_json::from_slice(b) {
            Ok(p) => Some(p),
            Err(e) => {
                report.problem(format!("{name}: {}: {e}", at(&prov_rel)));
                None
            }
        },
    };
    let mut pinned_paths = BTreeSet::new();
    for pin in &manifest.inputs {
        let path = at(&package::bundle_path(pin));
        pinned_paths.insert(path.clone());
        match kept.get(&path) {
            None => report.problem(format!(
                "{name}: {path}: input `{}` pinned by {} is absent",
                pin.name,
                at(MANIFEST)
            )),
            Some(data) => match pin.verify(Path::new(&path), data) {
                Ok(_) => report.checked += 1,
                Err(e) => {
                    report.problem(format!("{name}: {e} (against the pin in {})", at(MANIFEST)))
                }
            },
        }
        let Some(prov) = &provenance else { continue };
        match prov.inputs.iter().find(|r| r.name == pin.name) {
            None => report.problem(format!(
                "{name}: {}: has no record of input `{}`",
                at(&prov_rel),
                pin.name
            )),
            Some(r) => {
                let disagree: Vec<&str> = [
                    ("repository", r.repository == pin.repository),
                    ("commit", r.commit == pin.commit),
                    ("path", r.path == pin.path),
                    ("url", r.url == pin.url),
                    ("size", r.size == pin.size),
                    ("sha256", r.sha256 == pin.sha256),
                    ("git_blob_sha1", r.git_blob_sha1 == pin.git_blob_sha1),
                    ("bundle_path", at(&r.bundle_path) == path),
                ]
                .into_iter()
                .filter(|(_, same)| !same)
                .map(|(f, _)| f)
                .collect();
                if disagree.is_empty() {
                    report.checked += 1;
                } else {
                    report.problem(format!(
                        "{name}: input `{}`: {} and {} disagree on {}",
                        pin.name,
                        at(&prov_rel),
                        at(MANIFEST),
                        disagree.join(", ")
                    ));
                }
            }
        }
    }
    if let Some(prov) = &provenance {
        for r in &prov.inputs {
            if !manifest.inputs.iter().any(|p| p.name == r.name) {
                report.problem(format!(
                    "{name}: {}: records input `{}`, which {} does not pin",
                    at(&prov_rel),
                    crate::format::excerpt(&r.name, 200),
                    at(MANIFEST)
                ));
            }
        }
    }
    let inputs_prefix = at(&format!("{INPUTS_DIR}/"));
    for entry in kept.keys() {
        if entry.starts_with(&inputs_prefix) && !pinned_paths.contains(entry) {
            report.problem(format!(
                "{name}: {entry}: sits among the inputs but is not pinned by {}",
                at(MANIFEST)
            ));
        }
    }
}
