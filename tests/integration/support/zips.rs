//! Zips made byte by byte, as hostile tools would write them: entries with Unix modes (links,
//! devices), and many entries sharing one deflate stream.

/// A stored (uncompressed) zip of `files`, each with its Unix mode in the external attributes,
/// as `zip -y` writes a link (its target as its data) or a device.
pub fn zip_with_modes(files: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, mode, data) in files {
        let offset = out.len() as u32;
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let common = |v: &mut Vec<u8>| {
            v.extend(0u16.to_le_bytes()); // stored
            v.extend([0u8; 4]); // time, date
            v.extend(crc.sum().to_le_bytes());
            v.extend((data.len() as u32).to_le_bytes());
            v.extend((data.len() as u32).to_le_bytes());
            v.extend((name.len() as u16).to_le_bytes());
            v.extend(0u16.to_le_bytes());
        };
        out.extend([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0]);
        common(&mut out);
        out.extend(name.as_bytes());
        out.extend(*data);
        central.extend([0x50, 0x4b, 0x01, 0x02, 20, 3, 20, 0, 0, 0]);
        common(&mut central);
        central.extend([0u8; 6]); // comment length, disk, internal attributes
        central.extend((mode << 16).to_le_bytes());
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0]);
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend([0, 0]);
    out
}

/// A zip of one deflate stream (`size` zero bytes) behind one local header, and `count`
/// central-directory entries that all point at it, named as bundled inputs are (which verify
/// keeps in memory to check): the overlapping-entry zip bomb.
pub fn overlapping_zip(count: usize, size: u32) -> Vec<u8> {
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
