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

use bundle::verify_bundle;
use ratios_base::digest::HexDigest;
use ratios_base::layout::{self, OutputFile, PUBLISHED_DIR};
use ratios_base::minisign::PublicKey;
use ratios_base::ownership::MARKER;
use ratios_base::problems::Problems;
use ratios_base::sums::parse_sums;
use ratios_base::text::path as shown_path;
use ratios_model::project::config::ArticleConfig;

/// Largest SHA256SUMS or bundle file `verify` reads into memory.
const MAX_SUMS_BYTES: u64 = 1 << 20;
const MAX_BUNDLE_BYTES: u64 = 128 << 20;

/// The outcome of `verify`: what was checked, one line per problem, and what it found of the
/// author's signature (for a folder).
#[derive(Debug, Default)]
pub struct Report {
    /// How many items passed: files against SHA256SUMS, bundle entries, published copies, the
    /// signature; the count `verify` prints.
    pub checked: usize,
    /// One line per problem, bounded in number and length (`base::problems`).
    pub problems: Problems,
    /// The line saying who signed SHA256SUMS, with which key, or that it is unsigned; `None`
    /// for a bundle, or when the signature is a problem.
    pub signature: Option<String>,
}

impl Report {
    fn problem(&mut self, p: impl Into<String>) {
        self.problems.push(p.into());
    }
}

/// Verifies a published folder, or a bundle given as a file. A folder's signature is checked
/// against `key` when given (the author's key as the reader found it), else against the key the
/// bundle's settings declare.
pub fn verify_path(path: &Path, key: Option<&PublicKey>) -> Report {
    let mut report = Report::default();
    match fs::symlink_metadata(path) {
        Err(e) => report.problem(format!("{}: {e}", shown_path(path))),
        Ok(m) if m.is_dir() => verify_dir(path, key, &mut report),
        Ok(m) if m.is_file() && key.is_some() => report.problem(format!(
            "{}: --public-key checks a published folder's SHA256SUMS.minisig; a bundle alone carries no signature: verify the folder holding it and SHA256SUMS",
            shown_path(path)
        )),
        Ok(m) if m.is_file() => {
            if let Some(bytes) = read_capped(path, MAX_BUNDLE_BYTES, &mut report) {
                verify_bundle(&shown_path(path), &bytes, &mut report);
            }
        }
        Ok(_) => report.problem(format!(
            "{}: is neither a folder nor a regular file",
            shown_path(path)
        )),
    }
    report
}

fn read_capped(path: &Path, max: u64, report: &mut Report) -> Option<Vec<u8>> {
    match ratios_base::fetch::read_file(path, max) {
        Err(e) => {
            report.problem(format!("{}: {e}", shown_path(path)));
            None
        }
        Ok(None) => {
            report.problem(format!(
                "{}: larger than {max} bytes; not read",
                shown_path(path)
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

fn verify_dir(dir: &Path, key: Option<&PublicKey>, report: &mut Report) {
    let sums_name = OutputFile::Sums.path();
    let sums_path = dir.join(sums_name);
    let shown = |rel: &str| shown_path(&dir.join(rel));
    match fs::symlink_metadata(&sums_path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return report.problem(format!("{}: is not a regular file", shown(sums_name))),
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && dir.join(ratios_base::layout::INVENTORY).is_file() =>
        {
            return report.problem(format!(
                "{}: not found; {} looks like an unpacked bundle, which `sha256sum -c {}` checks inside it (verify takes the published folder or the zip)",
                shown(sums_name),
                shown_path(dir),
                ratios_base::layout::INVENTORY
            ))
        }
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
            report.problems.append(problems);
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
                report.problem(format!("{}: {e}", shown_path(dir)));
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
        let signature = OutputFile::Signature.path();
        if rel != sums_name
            && rel != MARKER
            && rel != signature
            && !listed_paths.contains(rel.as_str())
        {
            report.problem(format!("not listed in {sums_name}: {}", shown(&rel)));
        }
    }

    let bundle_rel = OutputFile::Bundle.path();
    if hashes.contains_key(bundle_rel) {
        let bundle = dir.join(bundle_rel);
        if let Some(bytes) = read_capped(&bundle, MAX_BUNDLE_BYTES, report) {
            if let Some(read) = verify_bundle(&shown_path(&bundle), &bytes, report) {
                compare_published(&read.hashes, &hashes, &shown_path(&bundle), report);
                let declared = read.config.as_ref().and_then(ArticleConfig::public_key);
                check_signature(dir, &text, declared.as_ref(), key, report);
            }
        }
    }
}

/// The author's signature of SHA256SUMS (`sums`), against the key the reader gave, else the one
/// the bundle declares: a valid signature by that key, or, when no key is declared nor given,
/// no signature at all.
fn check_signature(
    dir: &Path,
    sums: &str,
    declared: Option<&PublicKey>,
    given: Option<&PublicKey>,
    report: &mut Report,
) {
    let sig_name = OutputFile::Signature.path();
    let sig_path = dir.join(sig_name);
    let shown = shown_path(&sig_path);
    if let (Some(d), Some(g)) = (declared, given) {
        if d != g {
            return report.problem(format!(
                "{shown}: the bundle's settings declare key {}, not the key you gave ({})",
                d.id(),
                g.id()
            ));
        }
    }
    let expected = given.or(declared);
    // A key read from the folder itself proves only that the folder agrees with itself: a
    // reader must compare it with the key the author publishes elsewhere.
    let trust = if given.is_some() {
        "the key you gave".to_string()
    } else {
        "the key the bundle itself declares: compare it with the key the author publishes elsewhere, or give that key with --public-key".to_string()
    };
    let text = match fs::symlink_metadata(&sig_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match expected {
                None => {
                    report.signature = Some(format!(
                        "{sums_name}: unsigned (no {sig_name}, and the bundle declares no key; if the author signs, give the key with --public-key to require the signature)",
                        sums_name = OutputFile::Sums.path()
                    ))
                }
                Some(k) => report.problem(format!(
                    "{shown}: missing, but the article's key is {}: this folder's SHA256SUMS is not signed by its author",
                    k.id()
                )),
            }
        }
        Err(e) => return report.problem(format!("{shown}: {e}")),
        Ok(m) if !m.is_file() => {
            return report.problem(format!("{shown}: is not a regular file"))
        }
        Ok(_) => match read_capped(&sig_path, 4096, report).map(String::from_utf8) {
            None => return,
            Some(Err(_)) => return report.problem(format!("{shown}: not UTF-8")),
            Some(Ok(t)) => t,
        },
    };
    let Some(key) = expected else {
        return report.problem(format!(
            "{shown}: a signature, but the article declares no key to check it with (give the author's key with --public-key)"
        ));
    };
    match ratios_base::minisign::verify(key, &text, sums.as_bytes()) {
        Ok(signed) => {
            report.checked += 1;
            report.signature = Some(format!(
                "{}: signed by key {}, {trust} (trusted comment: {})",
                OutputFile::Sums.path(),
                signed.key,
                ratios_base::text::excerpt(&signed.trusted_comment, 300)
            ));
        }
        Err(refusal) => report.problem(format!("{shown}: {refusal}")),
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
            // The folder's file is missing, unlisted or changed: a problem reported above
            // already, which a second line would only repeat.
            (Some(_), None) => {}
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
