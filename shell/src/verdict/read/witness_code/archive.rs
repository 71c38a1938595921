//! A zip archive of a few small files, stored as they are (no compression): what Python's import
//! system reads a module from when the path entry is the archive (`zipimport`), and
//! `importlib.metadata` a distribution's metadata. Written by hand, since stored files and the
//! fields below are all it needs: the format is PKWARE's APPNOTE (a local header and the data
//! of each file, the central directory, its end record), every number little-endian.

use flate2::Crc;

/// The archive's signatures, "PK" and the record's kind.
const LOCAL_HEADER: u32 = 0x0403_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END_OF_CENTRAL_DIRECTORY: u32 = 0x0605_4b50;
/// Version 2.0: what stored files need to be read.
const VERSION: u16 = 20;
/// The one flag set: the names are UTF-8 (bit 11). Without it Python's `zipfile`, which
/// `importlib.metadata` reads the archive with as pytest looks for plugins, decodes them as
/// code page 437 and imports that codec for it, which costs a run more than any check of a
/// test does. (The names are ASCII: either reads them the same.)
const UTF8_NAMES: u16 = 1 << 11;
/// 1980-01-01 00:00, the first time a zip can name: nothing reads it, and the same archive is
/// then the same bytes every time.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = (1 << 5) | 1;

/// The archive holding each `(name, data)`, in order; `None` when any is too large for the
/// fields (4 GiB, 64 KiB names, 65,535 files), far beyond what mend hands over.
pub(super) fn stored(files: &[(&str, &[u8])]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut directory = Vec::new();
    for (name, data) in files {
        let name_length = u16::try_from(name.len()).ok()?;
        let size = u32::try_from(data.len()).ok()?;
        let mut crc = Crc::new();
        crc.update(data);
        let crc = crc.sum();
        // The fields a local header and a central one share, from the version needed on.
        let common = |out: &mut Vec<u8>| {
            put16(out, VERSION);
            put16(out, UTF8_NAMES);
            put16(out, 0); // stored
            put16(out, DOS_TIME);
            put16(out, DOS_DATE);
            put32(out, crc);
            put32(out, size); // compressed
            put32(out, size);
            put16(out, name_length);
            put16(out, 0); // no extra field
        };
        let local_header_at = u32::try_from(out.len()).ok()?;
        put32(&mut out, LOCAL_HEADER);
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        put32(&mut directory, CENTRAL_HEADER);
        put16(&mut directory, VERSION); // made by
        common(&mut directory);
        put16(&mut directory, 0); // no comment
        put16(&mut directory, 0); // first disk
        put16(&mut directory, 0); // internal attributes
        put32(&mut directory, 0); // external attributes
        put32(&mut directory, local_header_at);
        directory.extend_from_slice(name.as_bytes());
    }
    let count = u16::try_from(files.len()).ok()?;
    let directory_at = u32::try_from(out.len()).ok()?;
    let directory_size = u32::try_from(directory.len()).ok()?;
    out.extend_from_slice(&directory);
    put32(&mut out, END_OF_CENTRAL_DIRECTORY);
    put16(&mut out, 0); // this disk
    put16(&mut out, 0); // the directory's disk
    put16(&mut out, count); // entries on this disk
    put16(&mut out, count);
    put32(&mut out, directory_size);
    put32(&mut out, directory_at);
    put16(&mut out, 0); // no comment
    Some(out)
}

fn put16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}
