//! The bytes of an index: the segment file's preamble, header and trailer, and the manifest.
//! docs/INDEX.md describes the format for readers in other languages; this file is its
//! reference.
//!
//! All integers are little-endian. A segment file is
//!
//! ```text
//! preamble   "SHIDXSEG", version u32, 0 u32                       16 bytes
//! data       tables (directory, entries), record numbers, names   from byte 16
//! sums       a CRC-32 of every 1 KiB block of the data
//! header     see SegmentHeader::encode; ends with its own CRC-32
//! trailer    header length u64, "SHIDXEND"                        16 bytes
//! ```
//!
//! and the manifest is one small file, `MANIFEST`, see [`Manifest::encode`].

use std::io;
use std::path::Path;

use crate::layout::{TableSpec, MAX_DIR_BITS, MAX_TABLES};

pub const SEGMENT_MAGIC: &[u8; 8] = b"SHIDXSEG";
pub const TRAILER_MAGIC: &[u8; 8] = b"SHIDXEND";
pub const MANIFEST_MAGIC: &[u8; 8] = b"SHIDXMAN";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;
pub const PREAMBLE: u64 = 16;
pub const TRAILER: u64 = 16;
/// Data blocks of 1 KiB, each with its CRC-32: small, so that checking a block a query
/// touches for the first time costs it about a tenth of a microsecond.
pub const BLOCK: u64 = 1024;
/// The checksums of 1,024 blocks (4 KiB of them) are one page, whose own CRC-32 is in the
/// header.
pub const SUMS_PER_PAGE: u64 = 1024;

/// How the records of a segment are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// Record r (0-based in the segment) is line `line_base + r + 1`.
    ImplicitLines,
    /// A u64 line number for each record.
    Lines,
    /// An id for each record: n + 1 u64 offsets, then the bytes.
    Ids,
}

impl NameKind {
    fn code(self) -> u32 {
        match self {
            NameKind::ImplicitLines => 0,
            NameKind::Lines => 1,
            NameKind::Ids => 2,
        }
    }

    fn from_code(code: u32) -> Option<NameKind> {
        Some(match code {
            0 => NameKind::ImplicitLines,
            1 => NameKind::Lines,
            2 => NameKind::Ids,
            _ => return None,
        })
    }
}

/// One table as the header describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableHeader {
    pub spec: TableSpec,
    pub entries: u64,
    pub dir_at: u64,
    pub entries_at: u64,
}

impl TableHeader {
    pub fn dir_len(&self) -> u64 {
        4 * ((1u64 << self.spec.dir_bits) + 1)
    }

    /// The entries and 8 bytes of padding, so that every entry can be read as a u64.
    pub fn entries_len(&self) -> u64 {
        self.entries * self.spec.entry_bytes() as u64 + 8
    }
}

/// What the header of a segment says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentHeader {
    pub records: u64,
    pub distinct: u64,
    /// The K the segment was laid out for.
    pub k: u32,
    /// The number of the segment's first record in the index.
    pub first: u64,
    /// The lines of the inputs before this segment's.
    pub line_base: u64,
    pub names: NameKind,
    pub tables: Vec<TableHeader>,
    pub ordinals_at: u64,
    pub names_at: u64,
    pub names_len: u64,
    /// Where the data ends and the block sums begin.
    pub data_end: u64,
    /// The CRC-32 of each page of block sums.
    pub page_sums: Vec<u32>,
}

/// An index file that is not what it should be, worded for the user.
pub fn corrupt(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// An error when `path` exists but is not a regular file (after links): a named pipe there
/// would make the open wait for a writer forever, a device would be read without end. A
/// missing file passes, for the open to report.
pub fn check_regular(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(corrupt("not a regular file")),
        _ => Ok(()),
    }
}

impl SegmentHeader {
    /// The number of data blocks.
    pub fn blocks(&self) -> u64 {
        (self.data_end - PREAMBLE).div_ceil(BLOCK)
    }

    pub fn sums_len(&self) -> u64 {
        4 * self.blocks()
    }

    pub fn pages(&self) -> u64 {
        self.blocks().div_ceil(SUMS_PER_PAGE)
    }

    /// The length of the whole file.
    pub fn file_len(&self, header_len: u64) -> u64 {
        self.data_end + self.sums_len() + header_len + TRAILER
    }

    /// The header's CRC-32, the last field of its encoding: the manifest keeps it, so that
    /// another segment file in this one's place (of another index, of the same size) is found
    /// out. It covers the page sums, so it stands for the whole file.
    pub fn sum(&self) -> u32 {
        let encoded = self.encode();
        let (_, sum) = encoded.split_last_chunk::<4>().expect("a CRC-32 at the end");
        u32::from_le_bytes(*sum)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + 40 * self.tables.len());
        for value in [self.records, self.distinct] {
            out.extend(value.to_le_bytes());
        }
        for value in [self.k, self.names.code(), self.tables.len() as u32, 0] {
            out.extend(value.to_le_bytes());
        }
        for value in [self.first, self.line_base, self.ordinals_at, self.names_at, self.names_len] {
            out.extend(value.to_le_bytes());
        }
        out.extend(self.data_end.to_le_bytes());
        for table in &self.tables {
            let spec = table.spec;
            for value in [spec.offset, spec.key_bits, spec.dir_bits, 0] {
                out.extend(value.to_le_bytes());
            }
            for value in [table.entries, table.dir_at, table.entries_at] {
                out.extend(value.to_le_bytes());
            }
        }
        out.extend((self.page_sums.len() as u32).to_le_bytes());
        for sum in &self.page_sums {
            out.extend(sum.to_le_bytes());
        }
        let crc = crc32fast::hash(&out);
        out.extend(crc.to_le_bytes());
        out
    }

    /// Decodes and checks a header; `file_len` is the length of the whole file.
    pub fn decode(bytes: &[u8], file_len: u64) -> io::Result<SegmentHeader> {
        let Some((body, crc)) = bytes.split_last_chunk::<4>() else {
            return Err(corrupt("the header is cut short"));
        };
        if crc32fast::hash(body) != u32::from_le_bytes(*crc) {
            return Err(corrupt("the header fails its checksum"));
        }
        let mut r = Reader { bytes: body, at: 0 };
        let (records, distinct) = (r.u64()?, r.u64()?);
        let (k, names, tables, _) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
        let (first, line_base, ordinals_at, names_at, names_len) =
            (r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?);
        let data_end = r.u64()?;
        let names = NameKind::from_code(names).ok_or_else(|| corrupt("unknown kind of names"))?;
        if tables == 0 || tables as usize > MAX_TABLES {
            return Err(corrupt(format!("{tables} tables")));
        }
        let mut specs = Vec::with_capacity(tables as usize);
        let mut key_total = 0;
        for _ in 0..tables {
            let (offset, key_bits, dir_bits, _) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
            let (entries, dir_at, entries_at) = (r.u64()?, r.u64()?, r.u64()?);
            if offset != key_total
                || key_bits == 0
                || key_bits > 64
                || dir_bits > key_bits.min(MAX_DIR_BITS)
            {
                return Err(corrupt("a table's key or directory is out of range"));
            }
            key_total += key_bits;
            let spec = TableSpec { offset, key_bits, dir_bits };
            specs.push(TableHeader { spec, entries, dir_at, entries_at });
        }
        if key_total != 64 {
            return Err(corrupt("the tables' keys do not cover 64 bits"));
        }
        let pages = r.u32()?;
        let page_sums = (0..pages).map(|_| r.u32()).collect::<io::Result<Vec<u32>>>()?;
        if r.at != body.len() {
            return Err(corrupt("the header is longer than its fields"));
        }
        let header = SegmentHeader {
            records,
            distinct,
            k,
            first,
            line_base,
            names,
            tables: specs,
            ordinals_at,
            names_at,
            names_len,
            data_end,
            page_sums,
        };
        header.check(bytes.len() as u64, file_len)?;
        Ok(header)
    }

    /// Every section lies inside the data, and the sizes agree with the counts.
    fn check(&self, header_len: u64, file_len: u64) -> io::Result<()> {
        let bad = |what: &str| Err(corrupt(what.to_string()));
        if self.data_end < PREAMBLE || self.data_end > file_len {
            return bad("the data runs past the end of the file");
        }
        if self.page_sums.len() as u64 != self.pages() {
            return bad("the number of checksum pages does not fit the data");
        }
        if self.file_len(header_len) != file_len {
            return bad("the file's length does not fit its header (cut short or extended)");
        }
        if self.records > u64::from(u32::MAX) || self.distinct > self.records {
            return bad("impossible record counts");
        }
        if (self.records == 0) != (self.distinct == 0) {
            return bad("impossible record counts");
        }
        // Record numbers (first + r) and line numbers (line_base + r + 1) stay below 2^64.
        if self.first.checked_add(self.records).is_none()
            || self.line_base.checked_add(self.records).is_none()
        {
            return bad("record or line numbers past 2^64");
        }
        let inside = |at: u64, len: u64| {
            at >= PREAMBLE && at.checked_add(len).is_some_and(|end| end <= self.data_end)
        };
        for (t, table) in self.tables.iter().enumerate() {
            let entries = if t == 0 { self.records } else { self.distinct };
            if table.entries != entries {
                return bad("a table's entries do not fit the record counts");
            }
            if !inside(table.dir_at, table.dir_len())
                || !inside(table.entries_at, table.entries_len())
            {
                return bad("a table lies outside the data");
            }
        }
        if !inside(self.ordinals_at, 4 * self.records) || !inside(self.names_at, self.names_len) {
            return bad("the record numbers or names lie outside the data");
        }
        let names_ok = match self.names {
            NameKind::ImplicitLines => self.names_len == 0,
            NameKind::Lines => self.names_len == 8 * self.records,
            NameKind::Ids => self.names_len >= 8 * (self.records + 1),
        };
        if !names_ok {
            return bad("the names do not fit the record count");
        }
        Ok(())
    }
}

/// One segment as the manifest lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentEntry {
    /// The file is `seg-NUMBER` (eight digits).
    pub number: u64,
    pub records: u64,
    pub first: u64,
    pub line_base: u64,
    pub file_len: u64,
    /// The CRC-32 of its header ([`SegmentHeader::sum`]).
    pub header_sum: u32,
}

impl SegmentEntry {
    pub fn file_name(&self) -> String {
        segment_file_name(self.number)
    }
}

pub fn segment_file_name(number: u64) -> String {
    format!("seg-{number:08}")
}

/// Whether the index names records by ids or by line numbers (unknown while it holds none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexNames {
    Unknown,
    Lines,
    Ids,
}

/// The manifest: what the index holds and in which segments, in record order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The largest K a query may use.
    pub k: u32,
    pub names: IndexNames,
    pub records: u64,
    /// Lines of input read so far: the line numbers of the next `add` follow them.
    pub lines: u64,
    /// The number of the next segment file.
    pub next_segment: u64,
    pub segments: Vec<SegmentEntry>,
}

impl Manifest {
    pub fn new(k: u32) -> Manifest {
        Manifest {
            k,
            names: IndexNames::Unknown,
            records: 0,
            lines: 0,
            next_segment: 1,
            segments: Vec::new(),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(MANIFEST_MAGIC);
        let names = match self.names {
            IndexNames::Unknown => 0u32,
            IndexNames::Lines => 1,
            IndexNames::Ids => 2,
        };
        for value in [VERSION, self.k, names, self.segments.len() as u32] {
            out.extend(value.to_le_bytes());
        }
        for value in [self.records, self.lines, self.next_segment] {
            out.extend(value.to_le_bytes());
        }
        for s in &self.segments {
            for value in [s.number, s.records, s.first, s.line_base, s.file_len] {
                out.extend(value.to_le_bytes());
            }
            for value in [s.header_sum, 0] {
                out.extend(value.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend(crc.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> io::Result<Manifest> {
        if bytes.len() < 12 || &bytes[..8] != MANIFEST_MAGIC {
            return Err(corrupt("not a sh-index manifest"));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(version_error(version));
        }
        let Some((body, crc)) = bytes.split_last_chunk::<4>() else {
            return Err(corrupt("the manifest is cut short"));
        };
        if crc32fast::hash(body) != u32::from_le_bytes(*crc) {
            return Err(corrupt("the manifest fails its checksum"));
        }
        let mut r = Reader { bytes: body, at: 12 };
        let (k, names, count) = (r.u32()?, r.u32()?, r.u32()?);
        let (records, lines, next_segment) = (r.u64()?, r.u64()?, r.u64()?);
        if k > 63 {
            // (build's -k is at most 63; a query at a made-up K of thousands would not end.)
            return Err(corrupt(format!("a K of {k}, above 63")));
        }
        let names = match names {
            0 => IndexNames::Unknown,
            1 => IndexNames::Lines,
            2 => IndexNames::Ids,
            _ => return Err(corrupt("unknown kind of names")),
        };
        let mut segments = Vec::new();
        let mut first = 0u64;
        for _ in 0..count {
            let entry = SegmentEntry {
                number: r.u64()?,
                records: r.u64()?,
                first: r.u64()?,
                line_base: r.u64()?,
                file_len: r.u64()?,
                header_sum: r.u32()?,
            };
            let _reserved = r.u32()?;
            if entry.first != first || entry.number >= next_segment {
                return Err(corrupt("the segments' record numbers do not follow each other"));
            }
            first = first.checked_add(entry.records).ok_or_else(|| corrupt("too many records"))?;
            segments.push(entry);
        }
        if r.at != body.len() {
            return Err(corrupt("the manifest is longer than its fields"));
        }
        if first != records || (records > 0 && names == IndexNames::Unknown) {
            return Err(corrupt("the manifest's record count does not fit its segments"));
        }
        Ok(Manifest { k, names, records, lines, next_segment, segments })
    }
}

pub fn version_error(version: u32) -> io::Error {
    corrupt(format!(
        "format version {version}, but this sh-index reads version {VERSION} (rebuild the index \
         with this version)"
    ))
}

/// Reads little-endian integers from a byte slice, failing at its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let chunk = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or_else(|| corrupt("the header is cut short"))?;
        self.at += N;
        Ok(chunk.try_into().expect("N bytes"))
    }

    fn u32(&mut self) -> io::Result<u32> {
        self.take::<4>().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> io::Result<u64> {
        self.take::<8>().map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_round_trips_and_refuses_a_flipped_byte() {
        let mut manifest = Manifest::new(3);
        manifest.names = IndexNames::Ids;
        manifest.records = 7;
        manifest.lines = 9;
        manifest.next_segment = 3;
        manifest.segments = vec![
            SegmentEntry {
                number: 1,
                records: 5,
                first: 0,
                line_base: 0,
                file_len: 100,
                header_sum: 7,
            },
            SegmentEntry {
                number: 2,
                records: 2,
                first: 5,
                line_base: 6,
                file_len: 90,
                header_sum: 8,
            },
        ];
        let bytes = manifest.encode();
        assert_eq!(Manifest::decode(&bytes).unwrap(), manifest);
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(Manifest::decode(&bad).is_err(), "byte {at}");
        }
        for len in 0..bytes.len() {
            assert!(Manifest::decode(&bytes[..len]).is_err(), "length {len}");
        }
    }
}
