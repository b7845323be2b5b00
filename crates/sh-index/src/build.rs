//! Writing a segment file: the tables, record numbers and names of a batch of records.

use std::io::{self, Write};
use std::path::Path;

use sh_core::{Error, Output, Result};

use crate::format::{
    NameKind, SegmentHeader, TableHeader, BLOCK, PREAMBLE, SEGMENT_MAGIC, SUMS_PER_PAGE,
    TRAILER_MAGIC, VERSION,
};
use crate::layout::{Layout, TableSpec};
use sh_core::threads::spawn_or_run;

/// The names of a batch of records, in record order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Names {
    /// Record r is line `line_base + r + 1`.
    ImplicitLines,
    /// The line number of each record (the line base included).
    Lines(Vec<u64>),
    /// The id of each record: the bytes end to end and where each ends.
    Ids { bytes: Vec<u8>, ends: Vec<u64> },
}

impl Names {
    fn kind(&self) -> NameKind {
        match self {
            Names::ImplicitLines => NameKind::ImplicitLines,
            Names::Lines(_) => NameKind::Lines,
            Names::Ids { .. } => NameKind::Ids,
        }
    }

    fn len(&self) -> u64 {
        match self {
            Names::ImplicitLines => 0,
            Names::Lines(lines) => 8 * lines.len() as u64,
            Names::Ids { bytes, ends } => 8 * (ends.len() as u64 + 1) + bytes.len() as u64,
        }
    }
}

/// A batch of records to become one segment.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The fingerprints in record order.
    pub fingerprints: Vec<u64>,
    pub names: Names,
    /// The number of the first record in the index.
    pub first: u64,
    /// The lines of the inputs before this batch's.
    pub line_base: u64,
}

/// At most this many records in one segment: record numbers are u32.
pub const MAX_SEGMENT_RECORDS: usize = u32::MAX as usize;

/// Writes `batch` as a segment laid out for searches within `k` bits to `path` (through a
/// temporary file, so that `path` appears whole or not at all). Returns the file's length.
pub fn write_segment(path: &Path, batch: &Batch, k: u32) -> Result<u64> {
    write_segment_laid_out(path, batch, k, None)
}

/// [`write_segment`] with the tables of `layout` (with directories for this batch) instead
/// of the chosen ones: for tests of every layout.
pub fn write_segment_laid_out(
    path: &Path,
    batch: &Batch,
    k: u32,
    layout: Option<usize>,
) -> Result<u64> {
    let n = batch.fingerprints.len();
    if n > MAX_SEGMENT_RECORDS {
        return Err(Error::usage(format!("more than {MAX_SEGMENT_RECORDS} records in one batch")));
    }
    // Table 0: every record, by fingerprint and then record number (the sort is stable).
    let mut order: Vec<(u64, u32)> =
        batch.fingerprints.iter().enumerate().map(|(r, &f)| (f, r as u32)).collect();
    radix_sort(&mut order, |&(f, _)| f);
    let mut distinct: Vec<u64> = order.iter().map(|&(f, _)| f).collect();
    distinct.dedup();
    let layout = match layout {
        Some(m) => Layout::even(m, distinct.len() as u64),
        None => Layout::choose(k, n as u64, distinct.len() as u64),
    };

    // Where every section goes.
    let mut at = PREAMBLE;
    let mut tables = Vec::with_capacity(layout.tables.len());
    for (t, &spec) in layout.tables.iter().enumerate() {
        let entries = if t == 0 { n } else { distinct.len() } as u64;
        let mut table = TableHeader { spec, entries, dir_at: at, entries_at: 0 };
        table.entries_at = at + table.dir_len();
        at = table.entries_at + table.entries_len();
        tables.push(table);
    }
    let ordinals_at = at;
    at += 4 * n as u64;
    let names_at = at;
    let names_len = batch.names.len();
    at += names_len;
    let mut header = SegmentHeader {
        records: n as u64,
        distinct: distinct.len() as u64,
        k,
        first: batch.first,
        line_base: batch.line_base,
        names: batch.names.kind(),
        tables,
        ordinals_at,
        names_at,
        names_len,
        data_end: at,
        page_sums: Vec::new(),
    };

    let failed = |e: io::Error| Error::io(format!("cannot write '{}'", path.display()), e);
    let mut out = BlockWriter::new(Output::create(path)?);
    out.write_all(SEGMENT_MAGIC).map_err(failed)?;
    out.write_all(&VERSION.to_le_bytes()).map_err(failed)?;
    out.write_all(&0u32.to_le_bytes()).map_err(failed)?;
    out.start_blocks();
    // Tables 1.. are sorted on a second thread while table 0 is written.
    let others = &header.tables[1..];
    let sorted_others = std::thread::scope(|scope| {
        let sorting = spawn_or_run(scope, || {
            others
                .iter()
                .map(|table| {
                    let mut values: Vec<u64> =
                        distinct.iter().map(|&f| table.spec.rotate(f)).collect();
                    radix_sort(&mut values, |&v| v);
                    values
                })
                .collect::<Vec<Vec<u64>>>()
        });
        let firsts: Vec<u64> = order.iter().map(|&(f, _)| f).collect();
        let written = write_table(&mut out, header.tables[0].spec, &firsts).map_err(failed);
        let sorted = sorting.join();
        written.map(|()| sorted)
    })?;
    for (table, values) in others.iter().zip(sorted_others) {
        write_table(&mut out, table.spec, &values).map_err(failed)?;
    }
    let mut buffer = Vec::with_capacity(1 << 16);
    for chunk in order.chunks(1 << 14) {
        buffer.clear();
        chunk.iter().for_each(|&(_, r)| buffer.extend(r.to_le_bytes()));
        out.write_all(&buffer).map_err(failed)?;
    }
    drop(order);
    write_names(&mut out, &batch.names).map_err(failed)?;
    debug_assert_eq!(out.position, header.data_end);
    let (mut output, sums) = out.finish_blocks();
    let sum_bytes: Vec<u8> = sums.iter().flat_map(|s| s.to_le_bytes()).collect();
    header.page_sums = sum_bytes.chunks(4 * SUMS_PER_PAGE as usize).map(crc32fast::hash).collect();
    output.write_all(&sum_bytes).map_err(failed)?;
    let encoded = header.encode();
    output.write_all(&encoded).map_err(failed)?;
    output.write_all(&(encoded.len() as u64).to_le_bytes()).map_err(failed)?;
    output.write_all(TRAILER_MAGIC).map_err(failed)?;
    output.finish()?;
    Ok(header.file_len(encoded.len() as u64))
}

/// The directory (where each bucket of the top `dir_bits` bits starts, and the end) and the
/// entries of one table of sorted values.
fn write_table(out: &mut impl Write, spec: TableSpec, values: &[u64]) -> io::Result<()> {
    let buckets = 1usize << spec.dir_bits;
    let mut dir = Vec::with_capacity(4 * (buckets + 1));
    let mut next = 0usize;
    for (i, &value) in values.iter().enumerate() {
        let bucket = spec.bucket(value);
        while next <= bucket {
            dir.extend((i as u32).to_le_bytes());
            next += 1;
        }
    }
    while next <= buckets {
        dir.extend((values.len() as u32).to_le_bytes());
        next += 1;
    }
    out.write_all(&dir)?;
    drop(dir);
    let width = spec.entry_bytes();
    let mut buffer = Vec::with_capacity(width << 14);
    for chunk in values.chunks(1 << 14) {
        buffer.clear();
        for &value in chunk {
            buffer.extend_from_slice(&spec.low(value).to_le_bytes()[..width]);
        }
        out.write_all(&buffer)?;
    }
    out.write_all(&[0; 8])
}

fn write_names(out: &mut impl Write, names: &Names) -> io::Result<()> {
    match names {
        Names::ImplicitLines => Ok(()),
        Names::Lines(lines) => {
            let bytes: Vec<u8> = lines.iter().flat_map(|l| l.to_le_bytes()).collect();
            out.write_all(&bytes)
        }
        Names::Ids { bytes, ends } => {
            let mut offsets = Vec::with_capacity(8 * (ends.len() + 1));
            offsets.extend(0u64.to_le_bytes());
            ends.iter().for_each(|e| offsets.extend(e.to_le_bytes()));
            out.write_all(&offsets)?;
            out.write_all(bytes)
        }
    }
}

/// Counts what passes through and keeps a CRC-32 of every [`BLOCK`] bytes from
/// [`BlockWriter::start_blocks`] on.
struct BlockWriter {
    inner: Output,
    position: u64,
    started: bool,
    hasher: crc32fast::Hasher,
    in_block: u64,
    sums: Vec<u32>,
}

impl BlockWriter {
    fn new(inner: Output) -> BlockWriter {
        BlockWriter {
            inner,
            position: 0,
            started: false,
            hasher: crc32fast::Hasher::new(),
            in_block: 0,
            sums: Vec::new(),
        }
    }

    fn start_blocks(&mut self) {
        self.started = true;
    }

    fn finish_blocks(mut self) -> (Output, Vec<u32>) {
        if self.in_block > 0 {
            let hasher = std::mem::take(&mut self.hasher);
            self.sums.push(hasher.finalize());
        }
        (self.inner, self.sums)
    }
}

impl Write for BlockWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)?;
        self.position += buf.len() as u64;
        if !self.started {
            return Ok(());
        }
        while !buf.is_empty() {
            let take = ((BLOCK - self.in_block) as usize).min(buf.len());
            self.hasher.update(&buf[..take]);
            self.in_block += take as u64;
            buf = &buf[take..];
            if self.in_block == BLOCK {
                let hasher = std::mem::take(&mut self.hasher);
                self.sums.push(hasher.finalize());
                self.in_block = 0;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A stable least-significant-digit radix sort by a u64 key, 11 bits at a time (six passes),
/// skipping the digits on which every key agrees.
pub fn radix_sort<T: Copy + Default>(items: &mut Vec<T>, key: impl Fn(&T) -> u64 + Copy) {
    const BITS: u32 = 11;
    const DIGITS: usize = 64usize.div_ceil(BITS as usize);
    const MASK: u64 = (1 << BITS) - 1;
    if items.len() < 64 {
        items.sort_by_key(key);
        return;
    }
    let mut counts = vec![[0usize; 1 << BITS]; DIGITS];
    for item in items.iter() {
        let k = key(item);
        for (digit, count) in counts.iter_mut().enumerate() {
            count[((k >> (BITS as usize * digit)) & MASK) as usize] += 1;
        }
    }
    let mut scratch = vec![T::default(); items.len()];
    for (digit, count) in counts.iter().enumerate() {
        if count.contains(&items.len()) {
            continue;
        }
        let mut starts = vec![0usize; 1 << BITS];
        let mut sum = 0;
        for (start, &c) in starts.iter_mut().zip(count.iter()) {
            *start = sum;
            sum += c;
        }
        let shift = BITS as usize * digit;
        for item in items.iter() {
            let d = ((key(item) >> shift) & MASK) as usize;
            scratch[starts[d]] = *item;
            starts[d] += 1;
        }
        std::mem::swap(items, &mut scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_radix_sort_is_a_stable_sort() {
        let mut state = 7u64;
        let mut items: Vec<(u64, u32)> = (0..5000)
            .map(|i| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((state >> 50) << (i % 3 * 20), i)
            })
            .collect();
        let mut expected = items.clone();
        expected.sort_by_key(|&(k, _)| k);
        radix_sort(&mut items, |&(k, _)| k);
        assert_eq!(items, expected);
    }
}
