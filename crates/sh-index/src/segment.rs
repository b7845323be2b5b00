//! Reading a segment file through a memory map: opening reads the preamble, trailer and
//! header only; every 1 KiB block of data is checked against its CRC-32 the first time a query
//! touches it, so a flipped byte is an error, never a wrong answer.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::Mmap;

use crate::format::{
    corrupt, version_error, NameKind, SegmentHeader, TableHeader, BLOCK, PREAMBLE, SEGMENT_MAGIC,
    SUMS_PER_PAGE, TRAILER, TRAILER_MAGIC, VERSION,
};
use crate::layout::{for_each_key_within, low_bits, top, Layout};

/// One segment, mapped.
#[derive(Debug)]
pub struct Segment {
    path: PathBuf,
    map: Mmap,
    pub header: SegmentHeader,
    /// One bit per data block: checked already.
    blocks_checked: Vec<AtomicU64>,
    /// One bit per page of block sums: checked already.
    pages_checked: Vec<AtomicU64>,
}

/// A record found near a query: its number in the index and its distance.
pub type Found = (u64, u32);

/// Queries searched together: enough probes to keep the memory system busy.
const GROUP: usize = 8;

/// One lookup of a key in a table.
#[derive(Debug, Clone, Copy)]
struct Probe {
    query: u32,
    table: u8,
    bucket: u64,
    /// The key's bits below the directory's.
    want: u64,
    from: u64,
    to: u64,
}

/// Space a search reuses from one batch to the next.
#[derive(Debug, Default)]
pub struct Scratch {
    probes: Vec<Probe>,
}

impl Segment {
    /// Maps the file and checks its preamble, trailer and header.
    pub fn open(path: &Path) -> io::Result<Segment> {
        crate::format::check_regular(path)?;
        let file = File::open(path)?;
        // SAFETY: the map is read-only, and sh-index never changes a segment file once it is
        // in place: files are written under a temporary name and renamed, and replaced or
        // removed only by renaming and unlinking, which leave an open map intact. Another
        // program truncating the file under a running query is outside what the map can guard
        // against (as for any mapped file); every read is bounds-checked against the length
        // checked here.
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(&file)? };
        // Queries read a few scattered entries: reading ahead around them would only fill
        // the page cache with what they do not need (an advice; its failure changes nothing).
        let _ = map.advise(memmap2::Advice::Random);
        let len = map.len() as u64;
        if len < 8 || &map[..8] != SEGMENT_MAGIC {
            return Err(corrupt("not a sh-index segment (no SHIDXSEG at its start)"));
        }
        if len < PREAMBLE + TRAILER {
            return Err(corrupt("cut short"));
        }
        let version = u32::from_le_bytes(map[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(version_error(version));
        }
        if map[12..16] != [0; 4] {
            return Err(corrupt("the preamble's reserved word is not zero"));
        }
        let trailer = &map[(len - TRAILER) as usize..];
        if &trailer[8..] != TRAILER_MAGIC {
            return Err(corrupt("cut short or extended (no SHIDXEND at its end)"));
        }
        let header_len = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
        if header_len > len - TRAILER - PREAMBLE {
            return Err(corrupt("the header's length is out of range"));
        }
        let header_at = (len - TRAILER - header_len) as usize;
        let header = SegmentHeader::decode(&map[header_at..header_at + header_len as usize], len)?;
        let bits = |count: u64| (0..count.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        Ok(Segment {
            path: path.to_path_buf(),
            blocks_checked: bits(header.blocks()),
            pages_checked: bits(header.pages()),
            map,
            header,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The length of the file.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// `len` bytes of data from `at`, their blocks checked.
    fn bytes(&self, at: u64, len: u64) -> io::Result<&[u8]> {
        let end = at.checked_add(len).filter(|&end| at >= PREAMBLE && end <= self.header.data_end);
        let Some(end) = end else {
            return Err(corrupt("a read outside the data"));
        };
        if len > 0 {
            let (first, last) = ((at - PREAMBLE) / BLOCK, (end - 1 - PREAMBLE) / BLOCK);
            for block in first..=last {
                self.check_block(block)?;
            }
        }
        Ok(&self.map[at as usize..end as usize])
    }

    #[inline]
    fn check_block(&self, block: u64) -> io::Result<()> {
        if is_set(&self.blocks_checked, block) {
            return Ok(());
        }
        self.check_block_now(block)
    }

    #[cold]
    fn check_block_now(&self, block: u64) -> io::Result<()> {
        let h = &self.header;
        let page = block / SUMS_PER_PAGE;
        let sums_at = h.data_end as usize;
        if !is_set(&self.pages_checked, page) {
            let from = sums_at + (page * 4 * SUMS_PER_PAGE) as usize;
            let to = (sums_at + h.sums_len() as usize).min(from + 4 * SUMS_PER_PAGE as usize);
            if crc32fast::hash(&self.map[from..to]) != h.page_sums[page as usize] {
                return Err(corrupt(format!("checksum page {page} fails its checksum")));
            }
            set(&self.pages_checked, page);
        }
        let at = sums_at + 4 * block as usize;
        let expected = u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"));
        let from = (PREAMBLE + block * BLOCK) as usize;
        let to = (from + BLOCK as usize).min(h.data_end as usize);
        if crc32fast::hash(&self.map[from..to]) != expected {
            return Err(corrupt(format!("data block {block} fails its checksum")));
        }
        set(&self.blocks_checked, block);
        Ok(())
    }

    /// Checks every block now.
    pub fn check_all(&self) -> io::Result<()> {
        (0..self.header.blocks()).try_for_each(|block| self.check_block(block))
    }

    fn u32_at(&self, at: u64) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.bytes(at, 4)?.try_into().expect("4 bytes")))
    }

    fn u64_at(&self, at: u64) -> io::Result<u64> {
        Ok(u64::from_le_bytes(self.bytes(at, 8)?.try_into().expect("8 bytes")))
    }

    /// Entries `[from, to)` of bucket `bucket` of a table (the directory's word for it).
    fn bucket(&self, table: &TableHeader, bucket: u64) -> io::Result<(u64, u64)> {
        let pair = self.bytes(table.dir_at + 4 * bucket, 8)?;
        let from = u64::from(u32::from_le_bytes(pair[..4].try_into().expect("4 bytes")));
        let to = u64::from(u32::from_le_bytes(pair[4..].try_into().expect("4 bytes")));
        if from > to || to > table.entries {
            return Err(corrupt("a directory entry is out of order"));
        }
        Ok((from, to))
    }

    /// The entries `[from, to)` of a table as bytes, with the padding after the last.
    fn entries(&self, table: &TableHeader, from: u64, to: u64) -> io::Result<&[u8]> {
        let width = table.spec.entry_bytes() as u64;
        self.bytes(table.entries_at + from * width, (to - from) * width + 8)
    }

    /// The record number (within the segment) of entry `i` of table 0.
    fn ordinal(&self, i: u64) -> io::Result<u64> {
        let r = u64::from(self.u32_at(self.header.ordinals_at + 4 * i)?);
        if r >= self.header.records {
            return Err(corrupt("a record number is out of range"));
        }
        Ok(r)
    }

    /// Every record of this segment within `k` bits of `query`, appended to `found` as (record
    /// number in the index, distance).
    pub fn search(&self, query: u64, k: u32, found: &mut Vec<Found>) -> io::Result<()> {
        let mut hits = Vec::new();
        self.search_batch(&[query], k, &mut Scratch::default(), &mut hits)?;
        found.extend(hits.into_iter().map(|(_, r, d)| (r, d)));
        Ok(())
    }

    /// The radius of each table for a search within `k` bits (`None`: not probed).
    fn radii(&self, k: u32) -> Vec<Option<u32>> {
        Layout { tables: self.header.tables.iter().map(|t| t.spec).collect() }.radii(k)
    }

    /// Appends `(q, record, distance)` to `found` for every record of this segment within `k`
    /// bits of `queries[q]`, with record numbers of the index, in no particular order.
    ///
    /// Queries are taken a group at a time, and each step is done for every probe of the group
    /// before the next step: the directory words of all probes are independent loads, and so
    /// are the first entries of their buckets, so their cache misses overlap instead of
    /// following one another.
    pub fn search_batch(
        &self,
        queries: &[u64],
        k: u32,
        scratch: &mut Scratch,
        found: &mut Vec<(u32, u64, u32)>,
    ) -> io::Result<()> {
        if self.header.records == 0 || queries.is_empty() {
            return Ok(());
        }
        let radii = self.radii(k);
        let tables = &self.header.tables;
        for (g, group) in queries.chunks(GROUP).enumerate() {
            let probes = &mut scratch.probes;
            probes.clear();
            for (i, &query) in group.iter().enumerate() {
                let q = (g * GROUP + i) as u32;
                for (t, table) in tables.iter().enumerate() {
                    let Some(radius) = radii[t] else { continue };
                    let spec = table.spec;
                    let below = spec.key_bits - spec.dir_bits;
                    for_each_key_within(spec.key(query), spec.key_bits, radius, &mut |key| {
                        probes.push(Probe {
                            query: q,
                            table: t as u8,
                            bucket: key.checked_shr(below).unwrap_or(0),
                            want: low_bits(key, below),
                            from: 0,
                            to: 0,
                        });
                    });
                }
            }
            // Touch each probe's directory word, then its first entry, with plain loads that
            // do not wait for one another (the checked reads come after, from the cache).
            let map: &[u8] = &self.map;
            let mut touched = 0u8;
            for probe in probes.iter() {
                let table = &tables[probe.table as usize];
                touched ^= touch(map, table.dir_at + 4 * probe.bucket);
            }
            for probe in probes.iter_mut() {
                (probe.from, probe.to) =
                    self.bucket(&tables[probe.table as usize], probe.bucket)?;
            }
            for probe in probes.iter().filter(|p| p.from < p.to) {
                let table = &tables[probe.table as usize];
                let width = table.spec.entry_bytes() as u64;
                let (from, to) = (probe.from * width, probe.to * width);
                // Every cache line of the bucket, up to eight.
                let mut at = table.entries_at + from;
                let end = (table.entries_at + to).min(at + 8 * 64);
                while at < end {
                    touched ^= touch(map, at);
                    at += 64;
                }
                touched ^= touch(map, end - 1);
            }
            std::hint::black_box(touched);
            for probe in probes.iter().filter(|p| p.from < p.to) {
                let query = queries[probe.query as usize];
                self.scan(probe, query, k, &radii, found)?;
            }
        }
        Ok(())
    }

    /// The entries of one probe's bucket whose key is the probe's: each within `k` bits of
    /// `query` and not found by an earlier table is reported.
    #[inline]
    fn scan(
        &self,
        probe: &Probe,
        query: u64,
        k: u32,
        radii: &[Option<u32>],
        found: &mut Vec<(u32, u64, u32)>,
    ) -> io::Result<()> {
        let t = probe.table as usize;
        let table = &self.header.tables[t];
        let spec = table.spec;
        let below = spec.key_bits - spec.dir_bits;
        let low_width = 64 - spec.dir_bits;
        let width = spec.entry_bytes();
        let bytes = self.entries(table, probe.from, probe.to)?;
        for i in 0..(probe.to - probe.from) as usize {
            let raw = u64::from_le_bytes(bytes[i * width..i * width + 8].try_into().expect("8"));
            let low = low_bits(raw, low_width);
            // The key's bits below the directory's, on top of what the entry keeps.
            let sub = if below == 0 { 0 } else { top(low << spec.dir_bits, below) };
            if sub != probe.want {
                if sub > probe.want {
                    break;
                }
                continue;
            }
            let value = if spec.dir_bits == 0 { low } else { (probe.bucket << low_width) | low };
            let fingerprint = spec.unrotate(value);
            let distance = (fingerprint ^ query).count_ones();
            if distance > k || self.found_earlier(radii, t, query, fingerprint) {
                continue;
            }
            if t == 0 {
                let r = self.ordinal(probe.from + i as u64)?;
                found.push((probe.query, self.header.first + r, distance));
            } else {
                self.records_of(fingerprint, probe.query, distance, found)?;
            }
        }
        Ok(())
    }

    /// Whether a table probed before table `t` finds `fingerprint` too (so that it is reported
    /// there, once).
    #[inline]
    fn found_earlier(&self, radii: &[Option<u32>], t: usize, query: u64, fingerprint: u64) -> bool {
        self.header.tables[..t].iter().zip(radii).any(|(table, radius)| {
            let spec = table.spec;
            radius.is_some_and(|r| (spec.key(query) ^ spec.key(fingerprint)).count_ones() <= r)
        })
    }

    /// Appends the records whose fingerprint is `fingerprint`: a run of table 0.
    fn records_of(
        &self,
        fingerprint: u64,
        query: u32,
        distance: u32,
        found: &mut Vec<(u32, u64, u32)>,
    ) -> io::Result<()> {
        let table = &self.header.tables[0];
        let spec = table.spec;
        let (from, to) = self.bucket(table, spec.bucket(fingerprint) as u64)?;
        let bytes = self.entries(table, from, to)?;
        let width = spec.entry_bytes();
        let want = spec.low(fingerprint);
        let mut any = false;
        for i in 0..(to - from) as usize {
            let raw = u64::from_le_bytes(bytes[i * width..i * width + 8].try_into().expect("8"));
            let low = low_bits(raw, 64 - spec.dir_bits);
            if low == want {
                any = true;
                let r = self.ordinal(from + i as u64)?;
                found.push((query, self.header.first + r, distance));
            } else if low > want {
                break;
            }
        }
        if !any {
            return Err(corrupt("a fingerprint of a table is missing from table 0"));
        }
        Ok(())
    }

    /// Every record of the segment: fingerprints in record order.
    pub fn fingerprints(&self) -> io::Result<Vec<u64>> {
        // Read from end to end: reading ahead helps now (an advice; its failure changes nothing).
        let _ = self.map.advise(memmap2::Advice::Sequential);
        let h = &self.header;
        let table = &h.tables[0];
        let mut fingerprints = vec![0u64; h.records as usize];
        let mut seen = vec![false; h.records as usize];
        let buckets = 1u64 << table.spec.dir_bits;
        let width = table.spec.entry_bytes();
        let low_width = 64 - table.spec.dir_bits;
        for bucket in 0..buckets {
            let (from, to) = self.bucket(table, bucket)?;
            if from == to {
                continue;
            }
            let bytes = self.entries(table, from, to)?;
            for i in 0..(to - from) as usize {
                let raw =
                    u64::from_le_bytes(bytes[i * width..i * width + 8].try_into().expect("8"));
                let low = low_bits(raw, low_width);
                let value =
                    if table.spec.dir_bits == 0 { low } else { (bucket << low_width) | low };
                let r = self.ordinal(from + i as u64)? as usize;
                if std::mem::replace(&mut seen[r], true) {
                    return Err(corrupt("a record number appears twice"));
                }
                fingerprints[r] = value;
            }
        }
        if seen.iter().any(|&s| !s) {
            return Err(corrupt("a record is missing from table 0"));
        }
        Ok(fingerprints)
    }

    /// Appends the line numbers of every record to `lines` (an index without ids).
    pub fn all_lines(&self, lines: &mut Vec<u64>) -> io::Result<()> {
        let h = &self.header;
        match h.names {
            NameKind::ImplicitLines => lines.extend((1..=h.records).map(|r| h.line_base + r)),
            NameKind::Lines => {
                let bytes = self.bytes(h.names_at, h.names_len)?;
                lines.extend(
                    bytes.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().expect("8"))),
                );
            }
            NameKind::Ids => {
                return Err(corrupt("records with ids where line numbers were expected"))
            }
        }
        Ok(())
    }

    /// Appends the ids of every record to `bytes`, and where each ends (counted from the start
    /// of `bytes`) to `ends` (an index with ids).
    pub fn all_ids(&self, bytes: &mut Vec<u8>, ends: &mut Vec<u64>) -> io::Result<()> {
        let h = &self.header;
        if h.names != NameKind::Ids {
            return Err(corrupt("records without ids where ids were expected"));
        }
        let offsets = self.bytes(h.names_at, 8 * (h.records + 1))?;
        let base = h.names_at + 8 * (h.records + 1);
        let ids = self.bytes(base, h.names_at + h.names_len - base)?;
        let at = |r: usize| u64::from_le_bytes(offsets[8 * r..8 * r + 8].try_into().expect("8"));
        let before = bytes.len() as u64;
        let mut start = at(0);
        for r in 1..=h.records as usize {
            let end = at(r);
            if start > end || end > ids.len() as u64 {
                return Err(corrupt("an id lies outside the names"));
            }
            bytes.extend_from_slice(&ids[start as usize..end as usize]);
            ends.push(before + end - at(0));
            start = end;
        }
        Ok(())
    }

    /// The name of record `r` of the segment (0-based): its line number or its id.
    pub fn name(&self, r: u64) -> io::Result<Name<'_>> {
        let h = &self.header;
        match h.names {
            NameKind::ImplicitLines => Ok(Name::Line(h.line_base + r + 1)),
            NameKind::Lines => Ok(Name::Line(self.u64_at(h.names_at + 8 * r)?)),
            NameKind::Ids => {
                let start = self.u64_at(h.names_at + 8 * r)?;
                let end = self.u64_at(h.names_at + 8 * (r + 1))?;
                let base = h.names_at + 8 * (h.records + 1);
                // (`end` is made up in a damaged file: compared, not added to.)
                if start > end || end > h.names_len - 8 * (h.records + 1) {
                    return Err(corrupt("an id lies outside the names"));
                }
                Ok(Name::Id(self.bytes(base + start, end - start)?))
            }
        }
    }
}

/// What names a record: a line number or an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name<'a> {
    Line(u64),
    Id(&'a [u8]),
}

/// The byte at `at`, or 0 past the end: a load whose only use is to bring the line into the
/// cache.
#[inline(always)]
fn touch(map: &[u8], at: u64) -> u8 {
    map.get(at as usize).copied().unwrap_or(0)
}

fn is_set(bits: &[AtomicU64], i: u64) -> bool {
    bits[(i / 64) as usize].load(Ordering::Relaxed) >> (i % 64) & 1 == 1
}

fn set(bits: &[AtomicU64], i: u64) {
    bits[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
}
