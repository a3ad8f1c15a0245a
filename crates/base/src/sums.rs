//! The listing format of coreutils `sha256sum` (`<64 lowercase hex>  <path>` a line): SHA256SUMS
//! of the output folder, the bundle's inventory, and the digest kept beside a vendor fragment.
//! Written sorted by path; read strictly, every problem a line naming the file and the line.

use crate::digest::HexDigest;
use crate::layout::is_safe_relative;
use crate::problems::Problems;
use crate::text::quoted;

/// The length in bytes of the listing's line for `path` (64 hex digits, two spaces, the path,
/// a newline): a listing's size is known before the digests are.
pub fn line_len(path: &str) -> usize {
    64 + 2 + path.len() + 1
}

/// The sha256sum-format listing of `files` (sorted by path).
pub fn sums<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let digests: Vec<(&str, HexDigest)> = files
        .into_iter()
        .map(|(p, b)| (p, HexDigest::sha256(b)))
        .collect();
    sums_listing(digests.iter().map(|(p, d)| (*p, d)))
}

/// The sha256sum-format listing of paths whose SHA-256 is known (sorted by path).
pub fn sums_listing<'a>(items: impl IntoIterator<Item = (&'a str, &'a HexDigest)>) -> String {
    let mut lines: Vec<(&str, &HexDigest)> = items.into_iter().collect();
    lines.sort();
    lines
        .into_iter()
        .map(|(p, h)| format!("{h}  {p}\n"))
        .collect()
}

/// Parses a listing in the format `sha256sum` writes (`<64 lowercase hex>  <path>` per line,
/// each ending in a newline), strictly: an empty listing, a malformed line, a path that is not
/// relative and normalised, and a path listed twice are each a problem naming `file` and the line.
pub fn parse_sums(
    file: &str,
    text: &str,
) -> std::result::Result<Vec<(String, HexDigest)>, Problems> {
    let mut listed = Vec::new();
    let mut problems = Problems::default();
    let mut seen = std::collections::HashSet::new();
    if text.is_empty() {
        problems.push_from(file, || format!("{file}: empty: it lists no file"));
        return Err(problems);
    }
    if text.starts_with('\u{feff}') {
        // An editor's byte-order mark, which sha256sum would read as part of the first digest.
        problems.push_from(file, || format!(
            "{file}: starts with a byte-order mark (U+FEFF), which sha256sum -c cannot read; save it again without one"
        ));
        return Err(problems);
    }
    if !text.ends_with('\n') {
        problems.push_from(file, || {
            format!("{file}: the last line has no newline (truncated?)")
        });
    }
    for (i, line) in text.lines().enumerate() {
        let at = |m: &str| format!("{file}: line {}: {m}", i + 1);
        let Some((hex, path)) = line.split_once("  ") else {
            problems.push_from(file, || at("expected `<sha256>  <path>`"));
            continue;
        };
        let digest = HexDigest::parse_sha256(hex);
        let Some(digest) = digest else {
            problems.push_from(file, || at("expected 64 lowercase hexadecimal digits"));
            continue;
        };
        if !is_safe_relative(path) {
            problems.push_from(file, || {
                at(&format!(
                    "path {} is not a relative, normalised path inside the folder",
                    quoted(path, 200)
                ))
            });
            continue;
        }
        if !seen.insert(path) {
            problems.push_from(file, || {
                at(&format!("{} is listed twice", quoted(path, 200)))
            });
            continue;
        }
        listed.push((path.to_string(), digest));
    }
    if problems.is_empty() {
        Ok(listed)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_as_long_as_the_listing_writes_it() {
        let d = HexDigest::sha256(b"x");
        for path in ["a", "published/pairs.csv"] {
            assert_eq!(line_len(path), sums_listing([(path, &d)]).len());
        }
    }

    #[test]
    fn malformed_listings_are_refused_line_by_line() {
        let h = HexDigest::sha256(b"").to_string();
        assert_eq!(
            parse_sums("S", "").map_err(Problems::into_lines),
            Err(vec!["S: empty: it lists no file".to_string()])
        );
        let text = format!(
            "{h}  a\n{h}  ../b\n{h} c\nxyz  d\n{h}  /e\n{h}  a\n{}  f\n",
            h.to_uppercase()
        );
        let problems = parse_sums("S", &text).unwrap_err().into_lines();
        assert_eq!(problems.len(), 6, "{problems:?}");
        assert!(problems[0].starts_with("S: line 2: path \"../b\""));
        assert!(problems[1].starts_with("S: line 3: expected `<sha256>  <path>`"));
        assert!(problems[4].contains("\"a\" is listed twice"));
        assert!(
            parse_sums("S", &format!("{h}  a")).is_err(),
            "no final newline"
        );
    }

    #[test]
    fn sums_use_the_sha256sum_format() {
        let s = sums([("b", &b""[..]), ("a", &b"abc"[..])]);
        assert_eq!(
            s,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a\n\
             e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b\n"
        );
    }
}
