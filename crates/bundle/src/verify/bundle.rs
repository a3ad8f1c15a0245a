//! The reader's check of a bundle: its central directory and every entry (through the bounded
//! reader), the inventory against the entries, and the bundled inputs against the bundled
//! manifest and `provenance.json`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::Report;
use crate::package::ro_crate::{described_files, RO_CRATE};
use crate::package::{bundle_path, Provenance};
use ratios_base::archive::{self, BUNDLE_LIMITS};
use ratios_base::digest::HexDigest;
use ratios_base::inventory::{self, Discrepancy};
use ratios_base::layout::{
    self, is_log_list, OutputFile, INPUTS_DIR, INVENTORY, MANIFEST, PUBLISHED_DIR,
};
use ratios_base::sums::parse_sums;
use ratios_model::inputs::InputManifest;
use ratios_model::project::config::{ArticleConfig, CONFIG_PATH};

/// What a readable bundle holds that the folder's checks need: the SHA-256 of every entry, and
/// the settings it was built from (for the author's public key).
pub(super) struct Read {
    pub hashes: BTreeMap<String, HexDigest>,
    pub config: Option<ArticleConfig>,
}

/// Checks a bundle; returns the SHA-256 of every entry and its settings when it could be read.
pub(super) fn verify_bundle(name: &str, bytes: &[u8], report: &mut Report) -> Option<Read> {
    let root = layout::bundle_root();
    let keep = |entry: &str| {
        let rel = entry.strip_prefix(root.as_str()).unwrap_or(entry);
        rel == INVENTORY
            || rel == MANIFEST
            || is_log_list(rel)
            || rel == RO_CRATE
            || rel == CONFIG_PATH
            || rel.starts_with(&format!("{INPUTS_DIR}/"))
            || rel == format!("{PUBLISHED_DIR}/{}", OutputFile::Provenance.path())
    };
    let mut hashes: BTreeMap<String, HexDigest> = BTreeMap::new();
    let mut sizes: BTreeMap<String, u64> = BTreeMap::new();
    let mut kept: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    // Only the entries checked below are held in memory; every other one is hashed as it
    // inflates.
    let read = archive::for_each_entry(
        bytes,
        &BUNDLE_LIMITS,
        |entry| keep(&entry.name),
        |entry, inflated| {
            hashes.insert(entry.name.clone(), inflated.sha256);
            sizes.insert(entry.name.clone(), entry.size);
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
    if let Some(text) = kept_text(name, &kept, &at(INVENTORY), report) {
        match parse_sums(&format!("{name}: {}", at(INVENTORY)), text) {
            Err(problems) => report.problems.append(problems),
            Ok(listed) => {
                let entries: BTreeMap<&str, Option<&HexDigest>> =
                    hashes.iter().map(|(k, v)| (k.as_str(), Some(v))).collect();
                let found = inventory::compare(&root, &at(INVENTORY), &listed, &entries);
                for d in &found {
                    report.problem(match d {
                        Discrepancy::Absent(rel) => {
                            format!("{name}: {}: listed in the inventory but absent", at(rel))
                        }
                        Discrepancy::Mismatch {
                            path,
                            listed,
                            actual,
                        } => format!(
                            "{name}: {}: SHA-256 mismatch: inventory {listed}, entry {actual}",
                            at(path)
                        ),
                        Discrepancy::Unlisted(entry) => {
                            format!("{name}: {entry}: not in the inventory")
                        }
                    });
                }
                if found.is_empty() {
                    report.checked += hashes.len();
                }
            }
        }
    }

    check_inputs(name, &kept, &at, report);
    check_description(name, &kept, &hashes, &sizes, &at, report);

    let config = kept_text(name, &kept, &at(CONFIG_PATH), report).and_then(|text| {
        ArticleConfig::parse(&format!("{name}: {}", at(CONFIG_PATH)), text)
            .map_err(|e| report.problem(e.to_string()))
            .ok()
    });
    Some(Read { hashes, config })
}

/// The RO-Crate description names every entry but itself with its true size and SHA-256 (the
/// inventory with its size alone), and nothing else.
fn check_description(
    name: &str,
    kept: &BTreeMap<String, Vec<u8>>,
    hashes: &BTreeMap<String, HexDigest>,
    sizes: &BTreeMap<String, u64>,
    at: &dyn Fn(&str) -> String,
    report: &mut Report,
) {
    let file = at(RO_CRATE);
    let Some(text) = kept.get(&file) else {
        return report.problem(format!("{name}: no {file} entry"));
    };
    let described = match described_files(text) {
        Ok(d) => d,
        Err(e) => return report.problem(format!("{name}: {file}: {e}")),
    };
    let mut seen = BTreeSet::new();
    let mut wrong = 0usize;
    let mut first = None;
    for d in &described {
        let (path, size, sha) = (&d.path, &d.size, &d.sha256);
        let entry = at(path);
        seen.insert(entry.clone());
        let inventory = path == INVENTORY;
        let ok = sizes.get(&entry) == size.as_ref()
            && match (sha, hashes.get(&entry)) {
                (Some(d), Some(h)) => *d == h.to_string(),
                (None, Some(_)) => inventory,
                _ => false,
            };
        if !ok {
            wrong += 1;
            first.get_or_insert_with(|| path.clone());
        }
    }
    if let Some(path) = &first {
        report.problem(format!(
            "{name}: {file}: {wrong} files described with another size or SHA-256 than their entry, or with no entry (the first: {path})"
        ));
    }
    let undescribed: Vec<&String> = hashes
        .keys()
        .filter(|k| **k != file && !seen.contains(*k))
        .collect();
    if let Some(first) = undescribed.first() {
        report.problem(format!(
            "{name}: {file}: {} entries not described (the first: {first})",
            undescribed.len()
        ));
    }
    if first.is_none() && undescribed.is_empty() {
        report.checked += 1;
    }
}

/// The kept entry `entry` as text; a problem line when the bundle has none or it is not UTF-8.
fn kept_text<'k>(
    name: &str,
    kept: &'k BTreeMap<String, Vec<u8>>,
    entry: &str,
    report: &mut Report,
) -> Option<&'k str> {
    match kept.get(entry).map(|b| std::str::from_utf8(b)) {
        None => report.problem(format!("{name}: no {entry} entry")),
        Some(Err(_)) => report.problem(format!("{name}: {entry} is not UTF-8")),
        Some(Ok(text)) => return Some(text),
    }
    None
}

/// Every bundled input matches the pins of the bundled manifest; provenance.json records exactly
/// those inputs with the same facts; nothing else sits among the inputs.
fn check_inputs(
    name: &str,
    kept: &BTreeMap<String, Vec<u8>>,
    at: &dyn Fn(&str) -> String,
    report: &mut Report,
) {
    let Some(text) = kept_text(name, kept, &at(MANIFEST), report) else {
        return;
    };
    let manifest_name = format!("{name}: {}", at(MANIFEST));
    let mut manifest = match InputManifest::parse(&manifest_name, text) {
        Ok(m) => m,
        Err(e) => return report.problem(e.to_string()),
    };
    for list in manifest.lists.clone() {
        let entry = at(&list.path);
        let Some(bytes) = kept.get(&entry) else {
            return report.problem(format!(
                "{name}: no {entry} entry, which {} pins",
                at(MANIFEST)
            ));
        };
        if let Err(e) = manifest.add_list(
            &manifest_name,
            &list.path,
            &format!("{name}: {entry}"),
            bytes,
        ) {
            return report.problem(e.to_string());
        }
    }
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
        let path = at(&bundle_path(pin));
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
                    ratios_base::text::excerpt(&r.name, 200),
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
