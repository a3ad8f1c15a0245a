//! Zip archives. Reading one without trusting it, as strictly as the strictest reader: the raw
//! central directory is parsed first (so duplicate entry names, which the zip crate merges, are
//! seen), every count and size is checked against fixed limits before anything is allocated,
//! every local header must repeat its central record (name, version, flags, method, time, CRC-32,
//! sizes, no extra field), and the entries must tile the file from its first byte to the central
//! directory, which must end where its end record starts: a streaming reader, which reads the
//! local headers in order, and a reader of the central directory then see the same files; the
//! directory holds exactly the records its end record counts, and no comment can hide a second
//! end record or zip64 locator that other readers would follow. What the build never writes
//! (encryption, data descriptors, extra fields, comments, entries made on a host other than Unix,
//! a non-ASCII name without the UTF-8 flag, versions past deflate's 2.0, methods other than
//! stored and deflate, bytes after a deflate stream) is refused, as are names that one platform
//! would unpack onto one another. Each entry is inflated through a cap that stops at its declared size,
//! and its CRC-32 checked. Writing one ([`mod@write`]): the timestamp every entry is stamped with,
//! refused rather than changed when a zip cannot store it.

use std::io::Read;

use crate::calendar::civil_from_epoch;
use crate::digest::HexDigest;
use crate::error::{Error, Result};
use crate::layout;
use crate::text::{excerpt, quoted};

pub mod write;

/// Limits on what an archive may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most entries the end-of-central-directory record may declare.
    pub max_entries: usize,
    /// The longest entry name accepted, in bytes of UTF-8.
    pub max_name_bytes: usize,
    /// The most bytes one entry may declare as its inflated size.
    pub max_entry_bytes: u64,
    /// The most bytes all entries may declare, and inflate to, together (counted as they
    /// inflate, whatever they declare).
    pub max_total_bytes: u64,
    /// The most bytes of inflated entries held in memory at once (the entries a caller keeps).
    pub max_held_bytes: u64,
}

/// Limits for a reproducibility bundle: far above what a build writes (about 4,400 entries,
/// 60 MB inflated, 1.2 MB of them inputs held to be checked), far below what could hurt.
pub const BUNDLE_LIMITS: Limits = Limits {
    max_entries: 50_000,
    max_name_bytes: 1024,
    max_entry_bytes: 64 << 20,
    max_total_bytes: 512 << 20,
    max_held_bytes: 64 << 20,
};

/// One entry as the central directory records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    /// The entry's path inside the archive: UTF-8, relative, normalised and unique.
    pub name: String,
    /// The compression method: 0 for stored, 8 for deflate (the only two accepted).
    pub method: u16,
    /// The bytes its data take in the archive, from its zip64 extra field when it has one.
    pub compressed_size: u64,
    /// The bytes it inflates to, as declared; reading checks the data against it.
    pub size: u64,
    /// The CRC-32 of its inflated bytes, as declared; reading checks the data against it.
    pub crc32: u32,
    /// Where the entry's local header starts.
    pub local_offset: u64,
}

/// What a central record declares that its local header must repeat, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Declared<'a> {
    version_needed: u16,
    flags: u16,
    method: u16,
    time: u16,
    date: u16,
    crc32: u32,
    compressed_size: u32,
    size: u32,
    name: &'a [u8],
    extra: &'a [u8],
}

impl<'a> Declared<'a> {
    /// The fields at their offsets in a central record (`at` 6) or a local header (`at` 4),
    /// with the name and extra field that follow.
    fn read(header: &[u8], at: usize, name: &'a [u8], extra: &'a [u8]) -> Self {
        Declared {
            version_needed: le16(header, at),
            flags: le16(header, at + 2),
            method: le16(header, at + 4),
            time: le16(header, at + 6),
            date: le16(header, at + 8),
            crc32: le32(header, at + 10),
            compressed_size: le32(header, at + 14),
            size: le32(header, at + 18),
            name,
            extra,
        }
    }
}

/// The version a reader needs for deflate: what every entry the build writes declares.
const DEFLATE_VERSION: u16 = 20;

/// General-purpose flags the build may set: the deflate options (bits 1 and 2) and UTF-8 names
/// (bit 11). Encryption (bit 0), data descriptors (bit 3), strong encryption (bit 6) and masked
/// headers (bit 13) are never written.
const ALLOWED_FLAGS: u16 = 0b0000_1000_0000_0110;

/// Why the central record `d` of `name` declares what the build never writes, if it does.
fn unwritten(name: &str, d: &Declared<'_>) -> Option<String> {
    let shown = || quoted(name, 200);
    if d.flags & 1 != 0 || d.flags & (1 << 6) != 0 {
        return Some(format!(
            "entry {} is encrypted; the build never encrypts",
            shown()
        ));
    }
    if d.flags & (1 << 3) != 0 {
        return Some(format!(
            "entry {} keeps its sizes in a data descriptor after its data; the build writes them in its header",
            shown()
        ));
    }
    if d.flags & !ALLOWED_FLAGS != 0 {
        return Some(format!(
            "entry {} sets general-purpose flags {:#06x}, which the build never sets",
            shown(),
            d.flags
        ));
    }
    if d.version_needed > DEFLATE_VERSION {
        return Some(format!(
            "entry {} needs zip version {}.{} to extract; the build writes {}.{} (deflate)",
            shown(),
            d.version_needed / 10,
            d.version_needed % 10,
            DEFLATE_VERSION / 10,
            DEFLATE_VERSION % 10
        ));
    }
    if !d.extra.is_empty() {
        let mut ids = Vec::new();
        let mut p = 0;
        while p + 4 <= d.extra.len() && ids.len() < 5 {
            ids.push(format!("{:#06x}", le16(d.extra, p)));
            p += 4 + le16(d.extra, p + 2) as usize;
        }
        return Some(format!(
            "entry {} carries extra fields ({}); the build writes none, and readers differ on what some mean (0x7075 renames an entry for some readers only)",
            shown(),
            if ids.is_empty() { "unreadable".to_string() } else { ids.join(", ") }
        ));
    }
    None
}

/// Unix file-type bits of an entry's external attributes, as `unzip` reads them.
const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;

/// What a Unix file type other than a regular file is, for a problem line.
fn file_type_name(mode: u32) -> &'static str {
    match mode & S_IFMT {
        0o120_000 => "a symbolic link",
        0o040_000 => "a folder",
        0o020_000 => "a character device",
        0o060_000 => "a block device",
        0o010_000 => "a named pipe",
        0o140_000 => "a socket",
        _ => "not a regular file",
    }
}

/// The central directory of an archive, checked against `limits`: every name is UTF-8, safe,
/// unique and within the limits, and the declared sizes fit them. Any problem is one line.
pub fn central_directory(bytes: &[u8], limits: &Limits) -> Result<Vec<RawEntry>, Vec<String>> {
    let end = end_of_central_directory(bytes).map_err(|e| vec![e])?;
    let (count, cd_offset, cd_size) = (end.entries, end.dir_offset, end.dir_size);
    let cd_end = cd_offset
        .checked_add(cd_size)
        .filter(|&end| end <= bytes.len() as u64)
        .ok_or_else(|| vec!["the central directory lies outside the file".to_string()])?;
    if cd_end > end.records_at {
        return Err(vec![
            "the central directory runs into its end record".to_string()
        ]);
    }
    if count > limits.max_entries as u64 {
        return Err(vec![format!(
            "declares {count} entries; at most {} are accepted",
            limits.max_entries
        )]);
    }
    if count.saturating_mul(46) > cd_size {
        return Err(vec![format!(
            "declares {count} entries in a central directory of {cd_size} bytes"
        )]);
    }
    let cd = &bytes[cd_offset as usize..cd_end as usize];
    let mut entries = Vec::with_capacity(count as usize);
    let mut declared = Vec::with_capacity(count as usize);
    let mut problems = Vec::new();
    let mut names = std::collections::HashSet::with_capacity(count.min(1 << 16) as usize);
    let mut collisions = Collisions::default();
    let mut total: u64 = 0;
    let mut oversized = false;
    let mut p = 0usize;
    for i in 0..count {
        let Some(header) = cd.get(p..p + 46) else {
            return Err(vec![format!(
                "entry {i}: the central directory is truncated"
            )]);
        };
        if le32(header, 0) != 0x0201_4b50 {
            return Err(vec![format!("entry {i}: bad central directory signature")]);
        }
        let method = le16(header, 10);
        let crc32 = le32(header, 16);
        let mut compressed_size = u64::from(le32(header, 20));
        let mut size = u64::from(le32(header, 24));
        let local_offset = u64::from(le32(header, 42));
        let made_on = header[5];
        let mode = le32(header, 38) >> 16;
        let (name_len, extra_len, comment_len) = (
            le16(header, 28) as usize,
            le16(header, 30) as usize,
            le16(header, 32) as usize,
        );
        let Some(name) = cd.get(p + 46..p + 46 + name_len) else {
            return Err(vec![format!(
                "entry {i}: name runs past the central directory"
            )]);
        };
        let Some(extra) = cd.get(p + 46 + name_len..p + 46 + name_len + extra_len) else {
            return Err(vec![format!(
                "entry {i}: extra field runs past the central directory"
            )]);
        };
        let record = Declared::read(header, 6, name, extra);
        let utf8_flag = record.flags & (1 << 11) != 0;
        if size == 0xFFFF_FFFF || compressed_size == 0xFFFF_FFFF {
            let (s, c) = zip64_sizes(extra, size, compressed_size)
                .ok_or_else(|| vec![format!("entry {i}: missing or short zip64 extra field")])?;
            (size, compressed_size) = (s, c);
        }
        p += 46 + name_len + extra_len + comment_len;
        let name = match std::str::from_utf8(name) {
            Ok(n) => n,
            Err(_) => {
                problems.push(format!("entry {i}: name is not UTF-8"));
                continue;
            }
        };
        // How a problem quotes the name (made only for a problem: most entries have none).
        let shown = || excerpt(name, 200);
        if !name.is_ascii() && !utf8_flag {
            problems.push(format!(
                "entry {:?}: its name is not ASCII and lacks the UTF-8 flag (bit 11), so readers decode it each their own way",
                shown()
            ));
        }
        if name.len() > limits.max_name_bytes {
            problems.push(format!(
                "entry {i}: name of {} bytes is too long",
                name.len()
            ));
        } else if !layout::is_safe_relative(name) {
            problems.push(format!(
                "entry {:?}: unsafe path (absolute, `..`, backslash or not normalised)",
                shown()
            ));
        }
        if !names.insert(name) {
            problems.push(format!("entry {:?} appears more than once", shown()));
        } else {
            collisions.add(name, &mut problems);
        }
        if comment_len != 0 {
            problems.push(format!(
                "entry {:?} carries a comment of {comment_len} bytes; the build writes none, and a comment can hide records that some readers take",
                shown()
            ));
        }
        if made_on != 3 {
            problems.push(format!(
                "entry {:?} is marked as made on host {made_on}, not Unix (3); unzip reads the mode of some hosts as a symbolic link, and the build writes Unix entries only",
                shown()
            ));
        } else if mode & S_IFMT != 0 && mode & S_IFMT != S_IFREG {
            problems.push(format!(
                "entry {:?} is {} (mode {mode:o}), which unzip would make as such; only regular files are accepted",
                shown(),
                file_type_name(mode)
            ));
        }
        // One problem per entry's header: its size first (a zip64 size also needs zip 4.5),
        // then its method, then what else the build never writes.
        if size > limits.max_entry_bytes {
            problems.push(format!(
                "entry {:?} declares {size} bytes; at most {} are accepted",
                shown(),
                limits.max_entry_bytes
            ));
            oversized = true;
        } else if method != 0 && method != 8 {
            problems.push(format!(
                "entry {:?}: compression method {method} (only stored and deflate are used)",
                shown()
            ));
        } else if let Some(why) = unwritten(name, &record) {
            problems.push(why);
        }
        total = total.saturating_add(size);
        declared.push(record);
        entries.push(RawEntry {
            name: name.to_string(),
            method,
            compressed_size,
            size,
            crc32,
            local_offset,
        });
    }
    // Without a problem no record has a comment, so the records read end inside the directory.
    if problems.is_empty() && p < cd.len() {
        return Err(vec![format!(
            "the central directory holds {} bytes after its {count} declared entries; readers that walk it by size see more",
            cd.len() - p
        )]);
    }
    // An entry over its own limit already says why; the total is news only without one.
    if total > limits.max_total_bytes && !oversized {
        problems.push(format!(
            "entries declare {total} bytes in all; at most {} are accepted",
            limits.max_total_bytes
        ));
    }
    if problems.is_empty() {
        problems.extend(tiling(
            bytes,
            &entries,
            &declared,
            cd_offset,
            cd_end,
            end.records_at,
        ));
    }
    if problems.is_empty() {
        Ok(entries)
    } else {
        Err(problems)
    }
}

/// Names that unpack to one file where file names ignore case (macOS, Windows), normalise
/// Unicode (macOS) or drop a name's trailing dots and spaces (Windows): `src/lib.rs` beside
/// `src/LIB.rs` or `src/lib.rs.`, or `é` written composed (NFC) beside `e` + U+0301 (NFD); and a
/// file whose name is also a folder of other entries (`a` beside `a/b`), which no file system
/// can unpack. Each such pair is one problem.
#[derive(Default)]
struct Collisions<'a> {
    folded: std::collections::HashMap<String, &'a str>,
    normalised: std::collections::HashMap<String, &'a str>,
    /// Every folder some entry lies in, folded, with the first such entry.
    folders: std::collections::HashMap<String, &'a str>,
    /// The bytes of the folder names looked up so far: a name 500 folders deep has 500 of
    /// them, so deeply nested names are bounded together ([`MAX_FOLDER_BYTES`]).
    folder_bytes: usize,
}

/// The most bytes of folder names (each entry's every enclosing folder, one by one) the
/// collision check reads: the bundle's take about a megabyte; a zip of names nested hundreds
/// deep would take gigabytes.
const MAX_FOLDER_BYTES: usize = 16 << 20;

/// A name as the most folding platform sees it: lower case, each part without its trailing
/// dots and spaces.
fn fold(nfc: &str) -> String {
    without_trailing_dots(&nfc.to_lowercase())
}

/// `name` with each part's trailing dots and spaces dropped, as Windows drops them.
fn without_trailing_dots(name: &str) -> String {
    name.split('/')
        .map(|part| part.trim_end_matches(['.', ' ']))
        .collect::<Vec<_>>()
        .join("/")
}

impl<'a> Collisions<'a> {
    fn add(&mut self, name: &'a str, problems: &mut Vec<String>) {
        let quote = |n: &str| quoted(n, 200);
        let nfc = crate::text::nfc(name);
        if let Some(first) = self.normalised.insert(nfc.clone(), name) {
            problems.push(format!(
                "entries {} and {} are one name in Unicode normalisation (NFC and NFD); unpacked on macOS they would be one file",
                quote(first),
                quote(name)
            ));
            return;
        }
        let folded = fold(&nfc);
        if let Some(first) = self.folders.get(&folded) {
            problems.push(format!(
                "entry {} is a file, but entry {} lies inside a folder of that name; no file system can unpack both",
                quote(name),
                quote(first)
            ));
            return;
        }
        let folder_bytes: usize = folded.match_indices('/').map(|(at, _)| at).sum();
        let before = self.folder_bytes;
        self.folder_bytes = before.saturating_add(folder_bytes);
        if self.folder_bytes > MAX_FOLDER_BYTES {
            // Told once, at the entry that passes the bound.
            if before > MAX_FOLDER_BYTES {
                return;
            }
            problems.push(format!(
                "entry {}: the entries' folder names pass {MAX_FOLDER_BYTES} bytes together (names nested this deep are not read)",
                quote(name)
            ));
            return;
        }
        let mut at = 0;
        while let Some(slash) = folded[at..].find('/') {
            let folder = &folded[..at + slash];
            if let Some(file) = self.folded.get(folder) {
                problems.push(format!(
                    "entry {} is a file, but entry {} lies inside a folder of that name; no file system can unpack both",
                    quote(file),
                    quote(name)
                ));
                return;
            }
            self.folders.entry(folder.to_string()).or_insert(name);
            at += slash + 1;
        }
        if let Some(first) = self.folded.insert(folded, name) {
            let how = if first.to_lowercase() == name.to_lowercase() {
                "differ only in case; unpacked on macOS or Windows one would overwrite the other"
            } else if without_trailing_dots(first) == without_trailing_dots(name) {
                "differ only in trailing dots or spaces, which Windows drops; unpacked there one would overwrite the other"
            } else {
                "differ only in case and in trailing dots or spaces; unpacked on Windows one would overwrite the other"
            };
            problems.push(format!(
                "entries {} and {} {how}",
                quote(first),
                quote(name)
            ));
        }
    }
}

/// The local headers against their central records, and the layout of the file: each local
/// header must repeat its record ([`Declared`]); the entries, in the order of their offsets, must
/// start at byte 0 and follow one another with no overlap (a zip bomb's trick: thousands of
/// entries inflating one stream) and no gap (a prefix such as a shell script, or an orphan entry
/// that only a streaming reader would see); the last must end where the central directory
/// starts, and the central directory where its end record does. One problem: an overlap first,
/// then a disagreeing header, then a gap.
fn tiling(
    bytes: &[u8],
    entries: &[RawEntry],
    declared: &[Declared<'_>],
    cd_offset: u64,
    cd_end: u64,
    records_at: u64,
) -> Option<String> {
    let mut spans: Vec<(u64, u64, usize)> = Vec::with_capacity(entries.len());
    // The first local header that disagrees with its record, told after any overlap (the
    // overlapping entries of a zip bomb share one local header, which names only the first).
    let mut disagreement = None;
    for (i, (e, central)) in entries.iter().zip(declared).enumerate() {
        let at = e.local_offset;
        let shown = || quoted(&e.name, 200);
        let header = usize::try_from(at)
            .ok()
            .and_then(|a| bytes.get(a..a.checked_add(30)?))
            .filter(|h| le32(h, 0) == 0x0403_4b50);
        let Some(header) = header else {
            return Some(format!(
                "entry {}: no local header at its offset {at}",
                shown()
            ));
        };
        let (name_len, extra_len) = (le16(header, 26) as usize, le16(header, 28) as usize);
        let name_at = at as usize + 30;
        let local_name = bytes.get(name_at..name_at + name_len).unwrap_or_default();
        let local_extra = bytes
            .get(name_at + name_len..name_at + name_len + extra_len)
            .unwrap_or_default();
        let local = Declared::read(header, 4, local_name, local_extra);
        if local != *central && disagreement.is_none() {
            let what = if local.name != central.name {
                format!(
                    "names it {}",
                    quoted(&String::from_utf8_lossy(local.name), 200)
                )
            } else if local.crc32 != central.crc32 {
                "gives another CRC-32 than the central directory".to_string()
            } else if (local.compressed_size, local.size) != (central.compressed_size, central.size)
            {
                "gives other sizes than the central directory".to_string()
            } else if local.extra != central.extra {
                "carries other extra fields than the central directory".to_string()
            } else {
                "gives another version, flags, method or time than the central directory"
                    .to_string()
            };
            disagreement = Some(format!(
                "entry {}: its local header {what}; readers that follow local headers and readers that follow the central directory would unpack different files",
                shown()
            ));
        }
        let end = at
            .saturating_add(30)
            .saturating_add((name_len + extra_len) as u64)
            .saturating_add(e.compressed_size);
        spans.push((at, end, i));
    }
    spans.sort_unstable();
    let mut first: Option<(usize, usize)> = None;
    let mut count = 0usize;
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            count += 1;
            first.get_or_insert((w[0].2, w[1].2));
        }
    }
    if let Some((a, b)) = first {
        let more = match count {
            1 => String::new(),
            n => format!(" ({n} overlapping pairs in all)"),
        };
        return Some(format!(
            "entries {} and {} overlap: their data share bytes of the archive{more}; each entry must have its own",
            quoted(&entries[a].name, 200),
            quoted(&entries[b].name, 200)
        ));
    }
    if let Some(&(_, end, i)) = spans.iter().find(|(_, end, _)| *end > cd_offset) {
        return Some(format!(
            "entry {}: its data run to byte {end}, into the central directory at {cd_offset}",
            quoted(&entries[i].name, 200)
        ));
    }
    if disagreement.is_some() {
        return disagreement;
    }
    let unclaimed = |from: u64, to: u64, place: String| {
        Some(format!(
            "bytes {from} to {} ({} bytes), {place}, belong to no entry; a reader that walks the file from its start would read them as something else",
            to - 1,
            to - from
        ))
    };
    match spans.first() {
        None if cd_offset > 0 => {
            return unclaimed(0, cd_offset, "before the central directory".into())
        }
        Some(&(start, _, i)) if start > 0 => {
            return unclaimed(
                0,
                start,
                format!("before the first entry {}", quoted(&entries[i].name, 200)),
            )
        }
        _ => {}
    }
    for w in spans.windows(2) {
        if w[1].0 > w[0].1 {
            return unclaimed(
                w[0].1,
                w[1].0,
                format!(
                    "between entries {} and {}",
                    quoted(&entries[w[0].2].name, 200),
                    quoted(&entries[w[1].2].name, 200)
                ),
            );
        }
    }
    if let Some(&(_, end, _)) = spans.last() {
        if end < cd_offset {
            return unclaimed(end, cd_offset, "after the last entry".into());
        }
    }
    if cd_end < records_at {
        return unclaimed(cd_end, records_at, "after the central directory".into());
    }
    None
}

/// An entry's data as [`for_each_entry`] reads it: stored, or a deflate stream, whose decoder
/// tells how much of the data it took.
enum Stream<'a> {
    Stored(&'a [u8]),
    Deflated(flate2::read::DeflateDecoder<&'a [u8]>),
}

impl Read for Stream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Stored(data) => data.read(buf),
            Stream::Deflated(decoder) => decoder.read(buf),
        }
    }
}

/// What streaming an entry's data found: how many bytes it inflated to (at most the cap plus
/// one), their CRC-32, and for a deflate stream how many of the data it took.
struct Streamed {
    size: u64,
    crc32: u32,
    deflate_took: Option<u64>,
}

/// Streams the data of `raw` (an entry [`central_directory`] passed) to `sink`, inflating at
/// most `cap` + 1 bytes through `buf`.
fn stream(
    bytes: &[u8],
    raw: &RawEntry,
    cap: u64,
    buf: &mut [u8],
    mut sink: impl FnMut(&[u8]),
) -> Result<Streamed, String> {
    // Each local header repeats its record and the entries tile the file, so the data lie right
    // after the header, inside the archive.
    let data = entry_data(bytes, raw)?;
    let mut file = match raw.method {
        0 => Stream::Stored(data),
        8 => Stream::Deflated(flate2::read::DeflateDecoder::new(data)),
        m => return Err(format!("compression method {m}")),
    };
    let mut reader = (&mut file).take(cap + 1);
    let mut crc = flate2::Crc::new();
    let mut size: u64 = 0;
    loop {
        let n = reader
            .read(buf)
            .map_err(|e| format!("cannot inflate: {e}"))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        crc.update(&buf[..n]);
        sink(&buf[..n]);
    }
    Ok(Streamed {
        size,
        crc32: crc.sum(),
        deflate_took: match &file {
            Stream::Deflated(d) => Some(d.total_in()),
            Stream::Stored(_) => None,
        },
    })
}

/// Whether what [`stream`] found is what `raw` declares: its size, a deflate stream that ends
/// where its data do, and its CRC-32, in that order.
fn declared_as_streamed(raw: &RawEntry, s: &Streamed) -> Result<(), String> {
    if s.size != raw.size {
        return Err(format!(
            "inflates to {}{} bytes, but declares {}",
            if s.size > raw.size { "more than " } else { "" },
            s.size.min(raw.size),
            raw.size
        ));
    }
    if let Some(took) = s.deflate_took.filter(|&took| took != raw.compressed_size) {
        return Err(format!(
            "its deflate stream ends after {took} of its {} bytes; the bytes after it belong to nothing",
            raw.compressed_size
        ));
    }
    if s.crc32 != raw.crc32 {
        return Err("its data do not match its CRC-32".into());
    }
    Ok(())
}

/// One inflated entry as [`for_each_entry`] hands it over: its SHA-256 and, when the caller
/// keeps it, its bytes.
pub struct Inflated {
    /// The SHA-256 of the entry's inflated bytes, hashed as they streamed.
    pub sha256: HexDigest,
    /// The inflated bytes, when the caller's `keep` asked for them; `None` otherwise.
    pub bytes: Option<Vec<u8>>,
}

/// Calls `visit` with each entry, in central-directory order: its SHA-256, and its bytes when
/// `keep` asks for them. Only an archive whose central directory passed [`central_directory`]
/// is read; each entry is inflated through a cap at its declared size, its CRC is checked, and
/// the bytes inflated so far are counted against `limits.max_total_bytes` as they arrive. An
/// entry not kept is hashed as it streams, never held whole; the kept ones may hold at most
/// `limits.max_held_bytes` together. Stops at the first problem.
pub fn for_each_entry(
    bytes: &[u8],
    limits: &Limits,
    keep: impl Fn(&RawEntry) -> bool,
    mut visit: impl FnMut(&RawEntry, Inflated),
) -> Result<usize, Vec<String>> {
    use sha2::Digest;
    let entries = central_directory(bytes, limits)?;
    let mut inflated: u64 = 0;
    let mut held: u64 = 0;
    let mut buf = vec![0u8; 1 << 16];
    for raw in &entries {
        let shown = excerpt(&raw.name, 200);
        let kept = keep(raw);
        if kept {
            held = held.saturating_add(raw.size);
            if held > limits.max_held_bytes {
                return Err(vec![format!(
                    "entry {shown:?}: the entries to be checked in memory pass {} bytes together; not read",
                    limits.max_held_bytes
                )]);
            }
        }
        let fail = |m: String| vec![format!("entry {shown:?}: {m}")];
        // What this entry may still inflate to: its declared size, and what the total leaves.
        let room = raw
            .size
            .min(limits.max_total_bytes.saturating_sub(inflated));
        let mut hasher = sha2::Sha256::new();
        // Grows as the data arrives; never sized by a declared number beyond a small start.
        let mut data = kept.then(|| Vec::with_capacity(raw.size.min(1 << 20) as usize));
        let streamed = stream(bytes, raw, room, &mut buf, |chunk| {
            hasher.update(chunk);
            if let Some(d) = data.as_mut() {
                d.extend_from_slice(chunk);
            }
        })
        .map_err(fail)?;
        inflated = inflated.saturating_add(streamed.size);
        if streamed.size > room && room < raw.size {
            return Err(fail(format!(
                "the entries inflate to more than {} bytes together",
                limits.max_total_bytes
            )));
        }
        declared_as_streamed(raw, &streamed).map_err(fail)?;
        visit(
            raw,
            Inflated {
                sha256: HexDigest::of_digest(&hasher.finalize()),
                bytes: data,
            },
        );
    }
    Ok(entries.len())
}

/// What the end-of-central-directory record of a zip declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZipTail {
    /// How many entries the record (or its zip64 record) says the central directory holds.
    pub entries: u64,
    /// Where the central directory starts: every byte before it belongs to the entries.
    pub dir_start: usize,
    /// How many bytes the record (or its zip64 record) says the central directory takes.
    pub dir_size: u64,
}

/// The [`ZipTail`] of the zip `bytes`.
pub fn tail(bytes: &[u8]) -> Result<ZipTail, String> {
    let end = end_of_central_directory(bytes)?;
    let (entries, dir_start, dir_size) = (end.entries, end.dir_offset, end.dir_size);
    match usize::try_from(dir_start) {
        Ok(dir_start) if dir_start <= bytes.len() => Ok(ZipTail {
            entries,
            dir_start,
            dir_size,
        }),
        _ => Err("its central directory starts past its end".into()),
    }
}

/// The bytes of the one entry named `name`, inflated through a cap at its declared size, its CRC
/// checked; `entries` is what [`central_directory`] returned for `bytes`. Read straight from the
/// entry's local header, without parsing the archive again.
pub fn read_entry(
    bytes: &[u8],
    entries: &[RawEntry],
    name: &str,
) -> Result<Option<Vec<u8>>, Vec<String>> {
    let Some(raw) = entries.iter().find(|e| e.name == name) else {
        return Ok(None);
    };
    let fail = |m: String| vec![format!("entry {name:?}: {m}")];
    let mut out = Vec::with_capacity(raw.size.min(1 << 20) as usize);
    let mut buf = vec![0u8; 1 << 16];
    let streamed = stream(bytes, raw, raw.size, &mut buf, |chunk| {
        out.extend_from_slice(chunk)
    })
    .map_err(fail)?;
    declared_as_streamed(raw, &streamed).map_err(fail)?;
    Ok(Some(out))
}

/// The stored or deflated data of `raw`, right after its local header.
fn entry_data<'a>(bytes: &'a [u8], raw: &RawEntry) -> Result<&'a [u8], &'static str> {
    let at = usize::try_from(raw.local_offset).map_err(|_| "bad offset")?;
    let header = bytes
        .get(at..at.saturating_add(30))
        .filter(|h| le32(h, 0) == 0x0403_4b50)
        .ok_or("no local header at its offset")?;
    let start = at + 30 + le16(header, 26) as usize + le16(header, 28) as usize;
    usize::try_from(raw.compressed_size)
        .ok()
        .and_then(|n| bytes.get(start..start.checked_add(n)?))
        .ok_or("its data runs past the archive")
}

/// Every entry of a bundle with its bytes, read as [`for_each_entry`] reads them.
pub fn read_all(bytes: &[u8]) -> Result<std::collections::BTreeMap<String, Vec<u8>>, Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    let limits = Limits {
        max_held_bytes: BUNDLE_LIMITS.max_total_bytes,
        ..BUNDLE_LIMITS
    };
    for_each_entry(
        bytes,
        &limits,
        |_| true,
        |e, d| {
            out.insert(e.name.clone(), d.bytes.unwrap_or_default());
        },
    )?;
    Ok(out)
}

/// A zip timestamp from Unix seconds (UTC). A zip entry stores a local date from 1980-01-01 to
/// 2107-12-31 in steps of two seconds; any other value is refused rather than silently changed,
/// so the bundle and provenance.json always state the same time.
pub fn zip_time(epoch: i64) -> Result<DosTime> {
    if let Some(why) = zip_time_problem(epoch) {
        return Err(Error::ZipTime {
            epoch,
            why,
            range: ZIP_RANGE,
        });
    }
    let ((year, month, day), (hh, mm, ss)) = civil_from_epoch(epoch);
    // In range: the year is 1980 to 2107 and the seconds even (checked above).
    Ok(DosTime {
        date: (((year - 1980) as u16) << 9) | ((month as u16) << 5) | day as u16,
        time: ((hh as u16) << 11) | ((mm as u16) << 5) | (ss / 2) as u16,
    })
}

/// A time as a zip entry stores it (MS-DOS format, local time: the build stamps UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DosTime {
    /// Years since 1980 (7 bits), month (4 bits), day (5 bits).
    pub date: u16,
    /// Hours (5 bits), minutes (6 bits), seconds halved (5 bits).
    pub time: u16,
}

/// What a zip can store, for the lines that refuse a time.
pub const ZIP_RANGE: &str =
    "a zip stores even seconds from 1980-01-01 to 2107-12-31 (315532800 to 4354819198)";

/// Why a zip cannot store the time `epoch` (Unix seconds), if it cannot.
pub fn zip_time_problem(epoch: i64) -> Option<&'static str> {
    let (date, (_, _, ss)) = civil_from_epoch(epoch);
    if !(1980..=2107).contains(&date.0) {
        return Some("is outside the zip date range");
    }
    if ss % 2 != 0 {
        return Some("is an odd number of seconds");
    }
    None
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le64(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// What the end-of-central-directory record (and its zip64 form where the classic fields
/// overflow) declares, and where those records start.
struct EndRecord {
    entries: u64,
    dir_offset: u64,
    dir_size: u64,
    /// Where the end records start: the central directory must end there.
    records_at: u64,
}

fn end_of_central_directory(bytes: &[u8]) -> Result<EndRecord, String> {
    const EOCD: usize = 22;
    if bytes.len() < EOCD {
        return Err("not a zip: too short".into());
    }
    let earliest = bytes.len().saturating_sub(EOCD + 0xFFFF);
    let mut ends = (earliest..=bytes.len() - EOCD).rev().filter(|&i| {
        le32(bytes, i) == 0x0605_4b50 && i + EOCD + le16(bytes, i + 20) as usize == bytes.len()
    });
    let at = ends
        .next()
        .ok_or("not a zip: no end-of-central-directory record")?;
    // A second end record whose comment holds the first: a zip hidden in a comment.
    if ends.next().is_some() {
        return Err("it has two end records, the last inside the other's comment; readers differ on which to take".into());
    }
    let e = &bytes[at..];
    if le16(e, 4) != 0 || le16(e, 6) != 0 {
        return Err("multi-disk archives are not accepted".into());
    }
    if le16(e, 20) != 0 {
        return Err(format!(
            "it carries an archive comment of {} bytes; the build writes none, and other readers may take a second zip hidden in one",
            le16(e, 20)
        ));
    }
    let (count, size, offset) = (
        u64::from(le16(e, 10)),
        u64::from(le32(e, 12)),
        u64::from(le32(e, 16)),
    );
    if count != 0xFFFF && size != 0xFFFF_FFFF && offset != 0xFFFF_FFFF {
        if u64::from(le16(e, 8)) != count {
            return Err("entry counts of the end record disagree".into());
        }
        if at >= 20 && le32(bytes, at - 20) == 0x0706_4b50 {
            return Err("a zip64 locator stands before an end record that needs none; readers differ on which of the two to follow".into());
        }
        return Ok(EndRecord {
            entries: count,
            dir_offset: offset,
            dir_size: size,
            records_at: at as u64,
        });
    }
    // zip64: a locator just before the classic record points at the zip64 record.
    let loc = at
        .checked_sub(20)
        .filter(|&l| le32(bytes, l) == 0x0706_4b50)
        .ok_or("zip64 locator missing")?;
    let z = usize::try_from(le64(bytes, loc + 8))
        .ok()
        .filter(|&z| z.checked_add(56).is_some_and(|end| end <= loc))
        .ok_or("zip64 end record lies outside the file")?;
    if le32(bytes, z) != 0x0606_4b50 {
        return Err("bad zip64 end record signature".into());
    }
    Ok(EndRecord {
        entries: le64(bytes, z + 32),
        dir_offset: le64(bytes, z + 48),
        dir_size: le64(bytes, z + 40),
        records_at: z as u64,
    })
}

/// Sizes from a zip64 extended-information extra field: uncompressed then compressed, each
/// present only where the classic field is 0xFFFFFFFF.
fn zip64_sizes(extra: &[u8], size: u64, compressed: u64) -> Option<(u64, u64)> {
    let mut p = 0;
    while p + 4 <= extra.len() {
        let (id, len) = (le16(extra, p), le16(extra, p + 2) as usize);
        let body = extra.get(p + 4..p + 4 + len)?;
        if id == 0x0001 {
            let mut q = 0;
            let mut next = |classic: u64| -> Option<u64> {
                if classic != 0xFFFF_FFFF {
                    return Some(classic);
                }
                let v = body.get(q..q + 8).map(|b| le64(b, 0));
                q += 8;
                v
            };
            let s = next(size)?;
            let c = next(compressed)?;
            return Some((s, c));
        }
        p += 4 + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let o = zip::write::SimpleFileOptions::default();
        for (n, b) in entries {
            w.start_file(*n, o).unwrap();
            w.write_all(b).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn sizes_over_the_limits_are_one_problem_each() {
        let limits = Limits {
            max_entry_bytes: 10,
            max_total_bytes: 15,
            ..BUNDLE_LIMITS
        };
        // Each entry within its limit, together over the total: the total is the problem.
        let z = zip_of(&[("a", b"12345678"), ("b", b"12345678")]);
        assert_eq!(
            central_directory(&z, &limits).unwrap_err(),
            ["entries declare 16 bytes in all; at most 15 are accepted"]
        );
        // One entry over its own limit: that is the problem, not the total it also breaks.
        let z = zip_of(&[("a", b"12345678901234567890")]);
        assert_eq!(
            central_directory(&z, &limits).unwrap_err(),
            ["entry \"a\" declares 20 bytes; at most 10 are accepted"]
        );
    }

    #[test]
    fn a_clean_archive_is_read_whole() {
        let z = zip_of(&[("a.txt", b"alpha"), ("b/c.txt", b"")]);
        let mut seen = Vec::new();
        let n = for_each_entry(
            &z,
            &BUNDLE_LIMITS,
            |_| true,
            |e, d| seen.push((e.name.clone(), d.bytes.unwrap())),
        )
        .unwrap();
        assert_eq!(n, 2);
        assert_eq!(seen[0], ("a.txt".to_string(), b"alpha".to_vec()));
    }

    #[test]
    fn duplicate_names_are_seen_in_the_raw_directory() {
        // Two entries named `a.txt`: write `a.txt` and `b.txt`, then rename the second in both
        // headers (same length), as a hostile tool would.
        let mut z = zip_of(&[("a.txt", b"1"), ("b.txt", b"2")]);
        let hits: Vec<usize> = z
            .windows(5)
            .enumerate()
            .filter(|(_, w)| w == b"b.txt")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(hits.len(), 2);
        for i in hits {
            z[i] = b'a';
        }
        let problems = central_directory(&z, &BUNDLE_LIMITS).unwrap_err();
        assert_eq!(problems, ["entry \"a.txt\" appears more than once"]);
    }

    #[test]
    fn absurd_declared_sizes_are_refused_before_reading() {
        let mut z = zip_of(&[("a.txt", b"alpha")]);
        // The central directory claims 4 GiB - 2 bytes for a 5-byte entry.
        let cd = z
            .windows(4)
            .position(|w| w == [0x50, 0x4b, 0x01, 0x02])
            .unwrap();
        z[cd + 24..cd + 28].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
        let problems = central_directory(&z, &BUNDLE_LIMITS).unwrap_err();
        assert!(
            problems[0].contains("declares 4294967294 bytes"),
            "{problems:?}"
        );
        assert!(for_each_entry(&z, &BUNDLE_LIMITS, |_| false, |_, _| {}).is_err());
    }

    #[test]
    fn an_entry_inflating_past_its_declared_size_is_stopped() {
        let data = vec![b'x'; 100_000];
        let mut z = zip_of(&[("big.txt", &data)]);
        // Declare 10 bytes in both headers: inflation must stop there, not run to 100 kB.
        let cd = z
            .windows(4)
            .position(|w| w == [0x50, 0x4b, 0x01, 0x02])
            .unwrap();
        z[cd + 24..cd + 28].copy_from_slice(&10u32.to_le_bytes());
        z[22..26].copy_from_slice(&10u32.to_le_bytes());
        let err = for_each_entry(&z, &BUNDLE_LIMITS, |_| false, |_, _| {}).unwrap_err();
        assert!(err[0].contains("big.txt"), "{err:?}");
    }

    #[test]
    fn zip_time_matches_the_calendar() {
        // 2026-11-30T00:00:00Z = 1795996800 (`date -u -d 2026-11-30 +%s`).
        // Each against the zip crate's packing of the same calendar fields.
        let dos = |y, mo, d, h, mi, s| {
            let t = zip::DateTime::from_date_and_time(y, mo, d, h, mi, s).unwrap();
            DosTime {
                date: t.datepart(),
                time: t.timepart(),
            }
        };
        assert_eq!(zip_time(1_795_996_800).unwrap(), dos(2026, 11, 30, 0, 0, 0));
        // 2000-02-29T01:01:02Z
        assert_eq!(
            zip_time(951_782_400 + 3662).unwrap(),
            dos(2000, 2, 29, 1, 1, 2)
        );
        // 2107-12-31T23:59:58Z, the last time a zip stores.
        assert_eq!(
            zip_time(4_354_819_198).unwrap(),
            dos(2107, 12, 31, 23, 59, 58)
        );
        // What a zip cannot store is refused, not clamped or rounded.
        for bad in [
            0,
            315_532_799,
            4_354_819_200,
            1_795_996_801,
            i64::MAX,
            i64::MIN,
        ] {
            assert!(zip_time(bad).is_err(), "{bad}");
        }
        assert!(zip_time(315_532_800).is_ok() && zip_time(4_354_819_198).is_ok());
    }

    #[test]
    fn garbage_is_a_one_line_problem() {
        for bytes in [&b""[..], b"PK", &[0u8; 100]] {
            let p = central_directory(bytes, &BUNDLE_LIMITS).unwrap_err();
            assert_eq!(p.len(), 1);
        }
    }
}
