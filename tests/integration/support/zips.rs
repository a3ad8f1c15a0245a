//! Zips made byte by byte, as hostile tools would write them: entries with Unix modes (links,
//! devices), and many entries sharing one deflate stream.

/// A stored (uncompressed) zip of `files`, each with its Unix mode in the external attributes,
/// as `zip -y` writes a link (its target as its data) or a device.
pub(crate) fn zip_with_modes(files: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let entries: Vec<Forged> = files
        .iter()
        .map(|&(name, mode, data)| Forged {
            mode,
            ..Forged::new(name, data)
        })
        .collect();
    forged_zip(b"", &entries)
}

/// A zip of one deflate stream (`size` zero bytes) behind one local header, and `count`
/// central-directory entries that all point at it, named as bundled inputs are (which verify
/// keeps in memory to check): the overlapping-entry zip bomb.
pub(crate) fn overlapping_zip(count: usize, size: u32) -> Vec<u8> {
    let zeros = vec![0u8; size as usize];
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut enc, &zeros).unwrap();
    let stream = enc.finish().unwrap();
    let mut crc = flate2::Crc::new();
    crc.update(&zeros);
    let folder = scenario_ratios::base::layout::bundle_folder();
    let first = format!("{folder}/data/upstream/f0000000");
    let fields = |v: &mut Vec<u8>, name_len: usize| {
        v.extend(8u16.to_le_bytes()); // deflate
        v.extend([0u8; 4]);
        v.extend(crc.sum().to_le_bytes());
        v.extend((stream.len() as u32).to_le_bytes());
        v.extend(size.to_le_bytes());
        v.extend((name_len as u16).to_le_bytes());
        v.extend(0u16.to_le_bytes());
    };
    let mut out = vec![0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0];
    fields(&mut out, first.len());
    out.extend(first.as_bytes());
    out.extend(&stream);
    let cd_offset = out.len() as u32;
    let mut central = Vec::new();
    for i in 0..count {
        let name = format!("{folder}/data/upstream/f{i:07}");
        central.extend([0x50, 0x4b, 0x01, 0x02, 20, 3, 20, 0, 0, 0]);
        fields(&mut central, name.len());
        central.extend([0u8; 6]);
        central.extend((0o100_644u32 << 16).to_le_bytes());
        central.extend(0u32.to_le_bytes()); // every entry at the one local header
        central.extend(name.as_bytes());
    }
    out.extend(&central);
    // zip64 end records: 50,000 entries do not fit the classic 16-bit count.
    let z64_at = out.len() as u64;
    out.extend([0x50, 0x4b, 0x06, 0x06]);
    out.extend(44u64.to_le_bytes());
    out.extend([45, 3, 45, 0]);
    out.extend([0u8; 8]); // disks
    out.extend((count as u64).to_le_bytes());
    out.extend((count as u64).to_le_bytes());
    out.extend((central.len() as u64).to_le_bytes());
    out.extend(u64::from(cd_offset).to_le_bytes());
    out.extend([0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0]);
    out.extend(z64_at.to_le_bytes());
    out.extend(1u32.to_le_bytes());
    out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend([0xFF; 4]);
    out.extend([0xFF; 8]);
    out.extend([0, 0]);
    out
}

/// One entry of a [`forged_zip`]: what its central record says, and how its local header or
/// its place in the file departs from it.
#[derive(Clone)]
pub(crate) struct Forged {
    pub name: String,
    pub data: Vec<u8>,
    /// Version needed to extract, general-purpose flags and method, in both headers.
    pub version: u16,
    pub flags: u16,
    pub method: u16,
    /// Extra field, in both headers.
    pub extra: Vec<u8>,
    /// The CRC-32 both headers state, when it is not the data's.
    pub crc: Option<u32>,
    /// The size both headers declare inflated, when it is not the data's length; from
    /// 0xFFFFFFFF on, in a zip64 field (zip 4.5).
    pub size: Option<u64>,
    /// The local header's own name and CRC-32, when they differ from the central record's.
    pub local_name: Option<String>,
    pub local_crc: Option<u32>,
    /// Written as a local entry only, with no central record (what a streaming reader sees).
    pub orphan: bool,
    /// The host the central record says made it (3: Unix), and the Unix mode it gives.
    pub made_on: u8,
    pub mode: u32,
    /// The central record's comment.
    pub comment: Vec<u8>,
}

impl Forged {
    /// A stored entry whose two headers agree, its name flagged UTF-8 (bit 11) when it is not
    /// ASCII, as writers flag it.
    pub(crate) fn new(name: &str, data: &[u8]) -> Forged {
        Forged {
            name: name.to_string(),
            data: data.to_vec(),
            version: 20,
            flags: if name.is_ascii() { 0 } else { 1 << 11 },
            method: 0,
            extra: Vec::new(),
            crc: None,
            size: None,
            local_name: None,
            local_crc: None,
            orphan: false,
            made_on: 3,
            mode: 0o100_644,
            comment: Vec::new(),
        }
    }
}

/// A zip of `entries`, written byte by byte, after `prefix` (bytes no entry claims, as a
/// self-extracting script puts before a zip); offsets count from the file's start.
pub(crate) fn forged_zip(prefix: &[u8], entries: &[Forged]) -> Vec<u8> {
    let mut out = prefix.to_vec();
    let mut central = Vec::new();
    let mut count = 0u16;
    for e in entries {
        let offset = out.len() as u32;
        let crc = e.crc.unwrap_or_else(|| {
            let mut crc = flate2::Crc::new();
            crc.update(&e.data);
            crc.sum()
        });
        let size = e.size.unwrap_or(e.data.len() as u64);
        let zip64 = size >= 0xFFFF_FFFF;
        let extra: Vec<u8> = if zip64 {
            let field = [size.to_le_bytes(), (e.data.len() as u64).to_le_bytes()].concat();
            [&1u16.to_le_bytes()[..], &16u16.to_le_bytes(), &field].concat()
        } else {
            e.extra.clone()
        };
        let (version, size32, csize32) = match zip64 {
            true => (45, 0xFFFF_FFFF, 0xFFFF_FFFF),
            false => (e.version, size as u32, e.data.len() as u32),
        };
        let fields = |v: &mut Vec<u8>, name: &str, crc: u32| {
            v.extend(version.to_le_bytes());
            v.extend(e.flags.to_le_bytes());
            v.extend(e.method.to_le_bytes());
            v.extend([0u8; 4]); // time, date
            v.extend(crc.to_le_bytes());
            v.extend(csize32.to_le_bytes());
            v.extend(size32.to_le_bytes());
            v.extend((name.len() as u16).to_le_bytes());
            v.extend((extra.len() as u16).to_le_bytes());
        };
        let local_name = e.local_name.as_deref().unwrap_or(&e.name);
        out.extend([0x50, 0x4b, 0x03, 0x04]);
        fields(&mut out, local_name, e.local_crc.unwrap_or(crc));
        out.extend(local_name.as_bytes());
        out.extend(&extra);
        out.extend(&e.data);
        if e.orphan {
            continue;
        }
        count += 1;
        central.extend([0x50, 0x4b, 0x01, 0x02, 20, e.made_on]);
        fields(&mut central, &e.name, crc);
        central.extend((e.comment.len() as u16).to_le_bytes());
        central.extend([0u8; 4]); // disk, internal attributes
        central.extend((e.mode << 16).to_le_bytes());
        central.extend(offset.to_le_bytes());
        central.extend(e.name.as_bytes());
        central.extend(&extra);
        central.extend(&e.comment);
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend([0, 0]);
    out
}

/// The forged zips of the strict reading, by case: each one that `verify` must refuse, and
/// that Info-ZIP or Python's zipfile refuses or unpacks otherwise than its central directory
/// says.
pub(crate) fn forgeries() -> Vec<(&'static str, Vec<u8>)> {
    let ok = |n: &str| Forged::new(n, b"fn main() {}\n");
    let with = |n: &str, f: &dyn Fn(&mut Forged)| {
        let mut e = ok(n);
        f(&mut e);
        e
    };
    // A Unicode path extra field (0x7075): version 1, the CRC-32 of the header's name, then the
    // name some readers take instead.
    let unicode_path = {
        let mut crc = flate2::Crc::new();
        crc.update(b"src/main.rs");
        let mut v = vec![0x75, 0x70];
        let body: Vec<u8> = [&[1u8][..], &crc.sum().to_le_bytes(), b"src/evil.rs"].concat();
        v.extend((body.len() as u16).to_le_bytes());
        v.extend(body);
        v
    };
    vec![
        (
            "a local header naming another file",
            forged_zip(
                b"",
                &[with("src/main.rs", &|e| {
                    e.local_name = Some("src/MAIX.rs".into())
                })],
            ),
        ),
        (
            "an orphan entry before the first",
            forged_zip(
                b"",
                &[with("src/evil.rs", &|e| e.orphan = true), ok("src/main.rs")],
            ),
        ),
        (
            "a script before the zip",
            forged_zip(b"#!/bin/sh\nexec unzip \"$0\"\n", &[ok("src/main.rs")]),
        ),
        (
            "a local CRC that lies",
            forged_zip(
                b"",
                &[with("src/main.rs", &|e| e.local_crc = Some(0x1234_5678))],
            ),
        ),
        (
            "a file and a folder of one name",
            forged_zip(b"", &[ok("src"), ok("src/main.rs")]),
        ),
        (
            "an entry needing zip 6.3",
            forged_zip(b"", &[with("src/main.rs", &|e| e.version = 63)]),
        ),
        (
            "an encrypted entry",
            forged_zip(b"", &[with("src/main.rs", &|e| e.flags = 1)]),
        ),
        (
            "a data descriptor",
            forged_zip(b"", &[with("src/main.rs", &|e| e.flags = 8)]),
        ),
        (
            "a Unicode path extra field",
            forged_zip(
                b"",
                &[with("src/main.rs", &|e| e.extra = unicode_path.clone())],
            ),
        ),
        (
            "names that differ by a trailing dot",
            forged_zip(b"", &[ok("src/main.rs"), ok("src/main.rs.")]),
        ),
        (
            "a bzip2 entry",
            forged_zip(b"", &[with("src/main.rs", &|e| e.method = 12)]),
        ),
    ]
}
