//! Writing zip archives as the build needs them, and nothing more: every entry deflated (flate2,
//! the level given), stamped with one time, a regular file of mode 0644, with no extra field,
//! no data descriptor and no zip64; an archive is its entries' records one after the other,
//! then its central directory and end record. An entry compressed once is a [`Record`] (its local
//! header, then its data), which any number of archives take as it is. The layout is the one the
//! strict reader ([`super::central_directory`]) accepts, up to 65,534 entries and sizes below
//! 4 GiB (what no zip64 field is needed for), and the one the `zip` crate writes for the same
//! options (a test compares the two byte for byte).

use std::io::Write;

use super::DosTime;

/// "Version made by": zip 2.0 on Unix, so that readers take the mode from the upper half of the
/// external attributes.
const MADE_BY: u16 = (3 << 8) | 20;
/// The version a reader needs for deflate.
const NEEDED: u16 = 20;
/// Deflate.
const DEFLATE: u16 = 8;
/// A regular file, `rw-r--r--`, in the upper half of the external attributes.
const REGULAR_0644: u32 = 0o100_644 << 16;
/// General-purpose flag bit 11: the name is UTF-8.
const UTF8_NAME: u16 = 1 << 11;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const END_SIGNATURE: u32 = 0x0605_4b50;

/// A size or offset as a zip without zip64 stores it: below 0xFFFFFFFF, which means "see the
/// zip64 field" to a reader.
fn small(n: usize) -> Option<u32> {
    u32::try_from(n).ok().filter(|&n| n < u32::MAX)
}

/// One entry compressed: its local header, then its deflated data, as it lies in an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record(Vec<u8>);

impl Record {
    /// `data` under `name`, deflated at `level` (0 to 9) and stamped with `time`. Refused when
    /// the name or the sizes do not fit a zip without zip64.
    pub fn deflate(name: &str, data: &[u8], level: u32, time: DosTime) -> Result<Record, String> {
        let name_len = u16::try_from(name.len())
            .map_err(|_| format!("entry {name:?}: its name is too long for a zip"))?;
        let size = small(data.len())
            .ok_or_else(|| format!("entry {name:?}: too large for a zip without zip64"))?;
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let flags = if name.is_ascii() { 0 } else { UTF8_NAME };
        let mut bytes = Vec::with_capacity(30 + name.len() + data.len() / 2 + 64);
        bytes.extend_from_slice(&LOCAL_SIGNATURE.to_le_bytes());
        for half in [NEEDED, flags, DEFLATE, time.time, time.date] {
            bytes.extend_from_slice(&half.to_le_bytes());
        }
        // CRC-32, then the sizes: the compressed size is filled in once known.
        bytes.extend_from_slice(&crc.sum().to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&name_len.to_le_bytes());
        bytes.extend_from_slice(&0u16.to_le_bytes());
        bytes.extend_from_slice(name.as_bytes());
        let start = bytes.len();
        let mut encoder =
            flate2::write::DeflateEncoder::new(bytes, flate2::Compression::new(level));
        let deflated = encoder.write_all(data).and_then(|()| encoder.finish());
        let mut bytes = deflated.map_err(|e| format!("entry {name:?}: cannot deflate: {e}"))?;
        let compressed = small(bytes.len() - start)
            .ok_or_else(|| format!("entry {name:?}: too large for a zip without zip64"))?;
        bytes[18..22].copy_from_slice(&compressed.to_le_bytes());
        Ok(Record(bytes))
    }

    /// The local header and data, as they lie in an archive.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The entry's name.
    pub fn name(&self) -> &str {
        let len = usize::from(u16::from_le_bytes([self.0[26], self.0[27]]));
        std::str::from_utf8(&self.0[30..30 + len]).unwrap_or_default()
    }
}

/// An archive being written: the records so far, and their central directory.
#[derive(Debug)]
pub struct Writer {
    bytes: Vec<u8>,
    central: Vec<u8>,
    entries: u16,
}

impl Writer {
    /// An empty archive, written into `bytes` (cleared: its capacity is the room kept).
    pub fn new(mut bytes: Vec<u8>) -> Writer {
        bytes.clear();
        Writer {
            bytes,
            central: Vec::new(),
            entries: 0,
        }
    }

    /// The archive `zip` (one this module wrote) opened to take more entries after its last:
    /// its end record is dropped and its central directory kept, so the bytes before that
    /// directory stay as they are.
    pub fn append_to(mut zip: Vec<u8>) -> Result<Writer, String> {
        let tail = super::tail(&zip)?;
        let entries = u16::try_from(tail.entries)
            .ok()
            .filter(|&n| n < u16::MAX)
            .ok_or("holds more entries than a zip without zip64")?;
        // The end record is the last 22 bytes (the reader refuses a comment), and the directory
        // it declares must end where it starts.
        let end = zip.len().saturating_sub(22);
        let central = end
            .checked_sub(tail.dir_start)
            .filter(|&n| n as u64 == tail.dir_size)
            .and_then(|_| zip.get(tail.dir_start..end))
            .ok_or("its central directory does not end at its end record")?
            .to_vec();
        zip.truncate(tail.dir_start);
        Ok(Writer {
            bytes: zip,
            central,
            entries,
        })
    }

    /// How many bytes the entries written so far take.
    pub fn position(&self) -> usize {
        self.bytes.len()
    }

    /// Adds `record` after the entries written so far.
    pub fn add(&mut self, record: &Record) -> Result<(), String> {
        let offset = small(self.bytes.len())
            .ok_or_else(|| format!("entry {:?}: past 4 GiB into the zip", record.name()))?;
        // 0xFFFF entries would mean "see the zip64 record" too.
        self.entries = self
            .entries
            .checked_add(1)
            .filter(|&n| n < u16::MAX)
            .ok_or_else(|| format!("entry {:?}: one entry too many for a zip", record.name()))?;
        let local = &record.0;
        let name_len = usize::from(u16::from_le_bytes([local[26], local[27]]));
        self.central
            .extend_from_slice(&CENTRAL_SIGNATURE.to_le_bytes());
        self.central.extend_from_slice(&MADE_BY.to_le_bytes());
        // From the version needed to the extra field's length, as the local header has them.
        self.central.extend_from_slice(&local[4..30]);
        // No comment, disk 0, no internal attributes.
        self.central.extend_from_slice(&[0; 6]);
        self.central.extend_from_slice(&REGULAR_0644.to_le_bytes());
        self.central.extend_from_slice(&offset.to_le_bytes());
        self.central.extend_from_slice(&local[30..30 + name_len]);
        self.bytes.extend_from_slice(local);
        Ok(())
    }

    /// The whole archive: the entries, the central directory and its end record.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        let Writer {
            mut bytes,
            central,
            entries,
        } = self;
        let too_large = || "too large for a zip without zip64".to_string();
        let offset = small(bytes.len()).ok_or_else(too_large)?;
        let size = small(central.len()).ok_or_else(too_large)?;
        bytes.extend_from_slice(&central);
        bytes.extend_from_slice(&END_SIGNATURE.to_le_bytes());
        // This disk, the directory's disk, the entries on this disk and in all.
        for half in [0, 0, entries, entries] {
            bytes.extend_from_slice(&half.to_le_bytes());
        }
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&offset.to_le_bytes());
        bytes.extend_from_slice(&0u16.to_le_bytes());
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};

    /// `entries` as the zip crate writes them with the options the build uses.
    fn by_the_zip_crate(entries: &[(&str, &[u8])], level: i64, epoch: i64) -> Vec<u8> {
        let t = crate::archive::zip_time(epoch).unwrap();
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(level))
            .last_modified_time(zip::DateTime::try_from_msdos(t.date, t.time).unwrap())
            .unix_permissions(0o644);
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, data) in entries {
            w.start_file(*name, options).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn by_us(entries: &[(&str, &[u8])], level: u32, epoch: i64) -> Vec<u8> {
        let time = crate::archive::zip_time(epoch).unwrap();
        let mut w = Writer::new(Vec::new());
        for (name, data) in entries {
            w.add(&Record::deflate(name, data, level, time).unwrap())
                .unwrap();
        }
        w.finish().unwrap()
    }

    fn sample() -> Vec<(&'static str, Vec<u8>)> {
        let text: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("line {i}: {}\n", i % 7).into_bytes())
            .collect();
        let noise: Vec<u8> = (0..5_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        vec![
            ("p/a.txt", b"aaaa".to_vec()),
            ("p/empty", Vec::new()),
            ("p/é/naïve.md", "non-ASCII name".as_bytes().to_vec()),
            ("p/long.txt", text),
            ("p/noise.bin", noise),
        ]
    }

    #[test]
    fn archives_are_the_bytes_the_zip_crate_writes() {
        let owned = sample();
        let entries: Vec<(&str, &[u8])> = owned.iter().map(|(n, d)| (*n, d.as_slice())).collect();
        for (level, epoch) in [(1, 1_795_996_800), (6, 315_532_800), (9, 4_354_819_198)] {
            assert_eq!(
                by_us(&entries, level, epoch),
                by_the_zip_crate(&entries, i64::from(level), epoch),
                "level {level}, time {epoch}"
            );
        }
        assert_eq!(
            by_us(&[], 1, 1_795_996_800),
            by_the_zip_crate(&[], 1, 1_795_996_800)
        );
    }

    #[test]
    fn appending_gives_the_archive_written_in_one_go() {
        let owned = sample();
        let entries: Vec<(&str, &[u8])> = owned.iter().map(|(n, d)| (*n, d.as_slice())).collect();
        let whole = by_us(&entries, 6, 1_795_996_800);
        let first = by_us(&entries[..2], 6, 1_795_996_800);
        let dir_start = crate::archive::tail(&first).unwrap().dir_start;
        let mut w = Writer::append_to(first.clone()).unwrap();
        assert_eq!(w.position(), dir_start);
        let time = crate::archive::zip_time(1_795_996_800).unwrap();
        for (name, data) in &entries[2..] {
            w.add(&Record::deflate(name, data, 6, time).unwrap())
                .unwrap();
        }
        assert_eq!(w.finish().unwrap(), whole);
        // What the strict reader reads back is what went in.
        let back = crate::archive::read_all(&whole).unwrap();
        assert_eq!(back.len(), entries.len());
        for (name, data) in &entries {
            assert_eq!(back[*name], *data, "{name}");
        }
        assert!(Writer::append_to(b"not a zip".to_vec()).is_err());
    }

    #[test]
    fn what_the_strict_reader_refuses_around_a_sound_archive() {
        let time = crate::archive::zip_time(1_795_996_800).unwrap();
        let refused = |zip: &[u8]| {
            crate::archive::read_all(zip)
                .err()
                .map(|p| p.join("; "))
                .unwrap_or_default()
        };
        let sound = by_us(&[("p/a.txt", b"aaaa aaaa aaaa")], 6, 1_795_996_800);
        assert_eq!(refused(&sound), "");
        // Bytes after the deflate stream, inside the entry's compressed size.
        let mut record = Record::deflate("p/a.txt", b"aaaa aaaa aaaa", 6, time).unwrap();
        let compressed = u32::from_le_bytes(record.0[18..22].try_into().unwrap());
        record.0.extend_from_slice(b"SECRET");
        record.0[18..22].copy_from_slice(&(compressed + 6).to_le_bytes());
        let mut w = Writer::new(Vec::new());
        w.add(&record).unwrap();
        let why = refused(&w.finish().unwrap());
        assert!(why.contains("its deflate stream ends after"), "{why}");
        // A directory declared 22 bytes longer: it runs into the end record.
        let mut longer = sound.clone();
        let n = longer.len();
        let size = u32::from_le_bytes(longer[n - 10..n - 6].try_into().unwrap());
        longer[n - 10..n - 6].copy_from_slice(&(size + 22).to_le_bytes());
        let why = refused(&longer);
        assert!(why.contains("runs into its end record"), "{why}");
        let why = Writer::append_to(longer).err().unwrap_or_default();
        assert!(why.contains("does not end at its end record"), "{why}");
        // A zip64 locator before an end record that needs none.
        let mut located = sound[..n - 22].to_vec();
        located.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
        located.extend_from_slice(&[0; 16]);
        located.extend_from_slice(&sound[n - 22..]);
        let why = refused(&located);
        assert!(why.contains("zip64 locator"), "{why}");
        // An archive comment.
        let mut commented = sound.clone();
        commented[n - 2..].copy_from_slice(&3u16.to_le_bytes());
        commented.extend_from_slice(b"hi!");
        let why = refused(&commented);
        assert!(why.contains("archive comment of 3 bytes"), "{why}");
        assert!(Writer::append_to(commented).is_err());
    }

    #[test]
    fn what_a_zip_without_zip64_cannot_hold_is_refused() {
        let time = crate::archive::zip_time(1_795_996_800).unwrap();
        let long = "n".repeat(usize::from(u16::MAX) + 1);
        assert!(Record::deflate(&long, b"", 1, time).is_err());
        let one = Record::deflate("a", b"", 1, time).unwrap();
        assert_eq!(one.name(), "a");
        let mut w = Writer::new(Vec::new());
        for _ in 1..u16::MAX {
            w.add(&one).unwrap();
        }
        let err = w.add(&one).unwrap_err();
        assert!(err.contains("one entry too many"), "{err}");
        // The most a zip without zip64 holds, 65,534, reads back.
        let zip = w.finish().unwrap();
        assert_eq!(crate::archive::tail(&zip).unwrap().entries, 65_534);
        assert!(Writer::append_to(zip).is_ok());
    }
}
