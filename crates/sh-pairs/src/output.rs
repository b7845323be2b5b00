//! Writing pairs of records: which pairs ([`Selection`]), in what order, and how each line
//! looks ([`Format`], [`PairWriter`]).
//!
//! Pairs come out sorted by the input position of the first record, then of the second. Records
//! are visited in input order; for each, the records after it in its own group and in the
//! groups of its near neighbours are merged, so identical fingerprints stream out in bounded
//! memory however many share one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use clap::ValueEnum;
use sh_core::fingerprint::{Fingerprint, Width};
use sh_core::number::{push_u64, write_u64};

use crate::index::{GroupIndex, Index, Neighbours, RecordIndex, RecordSet};
use sh_core::records::{RecordName, RecordNames};

mod parallel;

pub use parallel::emit_pairs_on_threads;

/// How a pair is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// ID_A<TAB>ID_B<TAB>DISTANCE
    Tsv,
    /// One JSON array per line: without ids `[FP_A, FP_B]`, the two fingerprints, smaller
    /// first (what seomoz's simhash-find-all prints; wide ones as "0x..." strings); with ids
    /// `["ID_A", "ID_B", DISTANCE]`, bytes of an id that are not UTF-8 replaced by U+FFFD (so
    /// ids that differ only there print alike; the TSV output keeps them as they came)
    Json,
}

/// Which pairs of records are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Every pair of records within K bits.
    All,
    /// Only pairs of a query record (the first `queries` records) with a corpus record.
    Against { queries: RecordIndex },
    /// Enough pairs to connect the same clusters: a chain through the records of each
    /// fingerprint, and one pair (their first records) for two near fingerprints.
    Sparse,
}

impl Selection {
    /// Whether a pair of groups can give a selected pair. With a corpus, only if one group holds
    /// a query and the other a corpus record: members are ascending, so the first and last
    /// member tell.
    pub fn useful(self, index: &Index, g: GroupIndex, h: GroupIndex) -> bool {
        let Selection::Against { queries } = self else {
            return true;
        };
        let has_query = |g| index.members(g)[0] < queries;
        let has_corpus = |g| index.members(g).last().is_some_and(|&r| r >= queries);
        (has_query(g) && has_corpus(h)) || (has_query(h) && has_corpus(g))
    }
}

/// Where the pairs go: `(a, b, distance)`, `a` before `b` in the input.
pub trait PairSink {
    fn pair(&mut self, a: RecordIndex, b: RecordIndex, distance: u32) -> io::Result<()>;
}

/// Visits every selected pair in (a, b) order; returns how many there were. `paired` holds the
/// records that can be in a pair (from [`Index::note_partners`]): the loop passes over the
/// others in input order without looking up their groups, which are scattered in memory.
pub fn emit_pairs(
    index: &Index,
    neighbours: &Neighbours,
    paired: &RecordSet,
    selection: Selection,
    sink: &mut impl PairSink,
) -> io::Result<u64> {
    let mut emitter = Emitter::new(index, neighbours, sink);
    emitter.pairs_of_records(paired.range(0, firsts(index, selection)), selection)?;
    Ok(emitter.count)
}

/// Records whose data is loaded together before their pairs are found ([`Emitter::warm`]).
const BATCH: usize = 16;

/// Near groups of a record loaded ahead.
const WARM_NEAR: usize = 4;

/// The records that can be the first of a selected pair are those below this one.
fn firsts(index: &Index, selection: Selection) -> RecordIndex {
    match selection {
        Selection::Against { queries } => queries,
        Selection::All | Selection::Sparse => index.records() as RecordIndex,
    }
}

struct Emitter<'a, S> {
    index: &'a Index,
    neighbours: &'a Neighbours,
    sink: &'a mut S,
    count: u64,
    /// Reused for each record: the sorted candidate lists with their distance.
    lists: Vec<(&'a [RecordIndex], u32)>,
    heap: BinaryHeap<Reverse<(RecordIndex, usize)>>,
    candidates: Vec<(RecordIndex, u32)>,
}

impl<'a, S: PairSink> Emitter<'a, S> {
    fn new(index: &'a Index, neighbours: &'a Neighbours, sink: &'a mut S) -> Emitter<'a, S> {
        Emitter {
            index,
            neighbours,
            sink,
            count: 0,
            lists: Vec::new(),
            heap: BinaryHeap::new(),
            candidates: Vec::new(),
        }
    }

    /// Loads what finding the pairs of `records` reads: their groups' members, near groups
    /// and fingerprints, and the near groups' members and fingerprints, scattered in memory.
    /// The loads of one level do not wait for each other, so a batch waits for memory about
    /// as long as one record would; its pairs are then found in cache.
    fn warm(&self, records: &[RecordIndex]) {
        let (index, neighbours) = (self.index, self.neighbours);
        let mut groups = [0; BATCH];
        let groups = &mut groups[..records.len().min(BATCH)];
        let mut touched = 0u64;
        for (g, &a) in groups.iter_mut().zip(records) {
            *g = index.group_of(a);
            touched ^= index.members(*g).len() as u64 ^ neighbours.of(*g).len() as u64;
        }
        for &g in groups.iter() {
            touched ^= u64::from(index.members(g)[0]) ^ index.word(g, 0);
            for &h in neighbours.of(g).iter().take(WARM_NEAR) {
                touched ^= index.members(h).len() as u64 ^ index.word(h, 0);
            }
        }
        for &g in groups.iter() {
            for &h in neighbours.of(g).iter().take(WARM_NEAR) {
                touched ^= u64::from(index.members(h)[0]);
            }
        }
        std::hint::black_box(touched);
    }

    /// The selected pairs of each of `records` in turn, in batches whose data is loaded first.
    fn pairs_of_records(
        &mut self,
        mut records: impl Iterator<Item = RecordIndex>,
        selection: Selection,
    ) -> io::Result<()> {
        let mut batch: Vec<RecordIndex> = Vec::with_capacity(BATCH);
        loop {
            batch.clear();
            batch.extend(records.by_ref().take(BATCH));
            if batch.is_empty() {
                return Ok(());
            }
            self.warm(&batch);
            batch.iter().try_for_each(|&a| self.pairs_of(a, selection))?;
        }
    }

    /// The selected pairs whose first record is `a`, in order of the second.
    fn pairs_of(&mut self, a: RecordIndex, selection: Selection) -> io::Result<()> {
        match selection {
            Selection::All => self.all_after(a, a + 1),
            Selection::Against { queries } => self.all_after(a, queries),
            Selection::Sparse => self.sparse(a),
        }
    }

    fn emit(&mut self, a: RecordIndex, b: RecordIndex, distance: u32) -> io::Result<()> {
        self.count += 1;
        self.sink.pair(a, b, distance)
    }

    fn distance(&self, g: GroupIndex, h: GroupIndex) -> u32 {
        self.index.distance(g, h)
    }

    /// Pairs of `a` with every record from `from` on in its group and its neighbours' groups.
    fn all_after(&mut self, a: RecordIndex, from: RecordIndex) -> io::Result<()> {
        let index = self.index;
        let g = index.group_of(a);
        let same = records_from(index.members(g), from);
        let near = self.neighbours.of(g);
        if near.is_empty() {
            for &b in same {
                self.emit(a, b, 0)?;
            }
            return Ok(());
        }
        self.lists.clear();
        self.lists.push((same, 0));
        for &h in near {
            let rest = records_from(index.members(h), from);
            if !rest.is_empty() {
                let d = self.distance(g, h);
                self.lists.push((rest, d));
            }
        }
        self.merge(a)
    }

    /// Writes the pairs of `a` with the heads of all lists, in order of the second record.
    fn merge(&mut self, a: RecordIndex) -> io::Result<()> {
        self.heap.clear();
        for (list, (records, _)) in self.lists.iter().enumerate() {
            if let Some(&b) = records.first() {
                self.heap.push(Reverse((b, list)));
            }
        }
        while let Some(Reverse((b, list))) = self.heap.pop() {
            let distance = self.lists[list].1;
            self.emit(a, b, distance)?;
            let rest = &self.lists[list].0[1..];
            self.lists[list].0 = rest;
            if let Some(&next) = rest.first() {
                self.heap.push(Reverse((next, list)));
            }
        }
        Ok(())
    }

    fn sparse(&mut self, a: RecordIndex) -> io::Result<()> {
        let index = self.index;
        let g = index.group_of(a);
        let members = index.members(g);
        let mut pairs = std::mem::take(&mut self.candidates);
        pairs.clear();
        let position = members.partition_point(|&r| r < a);
        if let Some(&next) = members.get(position + 1) {
            pairs.push((next, 0));
        }
        if position == 0 {
            for &h in self.neighbours.of(g) {
                let first = index.members(h)[0];
                if first > a {
                    pairs.push((first, self.distance(g, h)));
                }
            }
        }
        pairs.sort_unstable();
        let written = pairs.iter().try_for_each(|&(b, distance)| self.emit(a, b, distance));
        self.candidates = pairs;
        written
    }
}

/// The records of an ascending list from `from` on.
fn records_from(records: &[RecordIndex], from: RecordIndex) -> &[RecordIndex] {
    &records[records.partition_point(|&r| r < from)..]
}

/// What a [`PairWriter`] needs besides where it writes: a writer for each thread is made from
/// it.
#[derive(Debug, Clone, Copy)]
pub struct PairLines<'a> {
    pub format: Format,
    pub index: &'a Index,
    pub query_names: &'a RecordNames,
    pub corpus_names: Option<&'a RecordNames>,
    pub queries: RecordIndex,
}

impl<'a> PairLines<'a> {
    /// A writer of these lines to `out`.
    pub fn writer<'b, W>(&self, out: &'b mut W) -> PairWriter<'b, W>
    where
        'a: 'b,
    {
        let PairLines { format, index, query_names, corpus_names, queries } = *self;
        PairWriter::new(out, format, index, query_names, corpus_names, queries)
    }
}

/// Writes each pair as a line of the chosen format.
#[derive(Debug)]
pub struct PairWriter<'a, W> {
    out: &'a mut W,
    format: Format,
    index: &'a Index,
    query_names: &'a RecordNames,
    corpus_names: Option<&'a RecordNames>,
    /// Records from this one on are the corpus's.
    queries: RecordIndex,
    /// A TSV line is put together here and written at once.
    buffer: Vec<u8>,
}

impl<'a, W> PairWriter<'a, W> {
    /// Writes to `out`; records are named by `query_names`, and, with a corpus, by
    /// `corpus_names` from record `queries` on.
    pub fn new(
        out: &'a mut W,
        format: Format,
        index: &'a Index,
        query_names: &'a RecordNames,
        corpus_names: Option<&'a RecordNames>,
        queries: RecordIndex,
    ) -> PairWriter<'a, W> {
        PairWriter { out, format, index, query_names, corpus_names, queries, buffer: Vec::new() }
    }

    fn name(&self, r: RecordIndex) -> RecordName<'a> {
        match self.corpus_names {
            Some(corpus) if r >= self.queries => corpus.get((r - self.queries) as usize),
            _ => self.query_names.get(r as usize),
        }
    }

    fn has_named_ids(&self) -> bool {
        self.query_names.are_named() || self.corpus_names.is_some_and(RecordNames::are_named)
    }
}

impl<W: Write> PairSink for PairWriter<'_, W> {
    fn pair(&mut self, a: RecordIndex, b: RecordIndex, distance: u32) -> io::Result<()> {
        match self.format {
            Format::Tsv => {
                let (name_a, name_b) = (self.name(a), self.name(b));
                let buffer = &mut self.buffer;
                buffer.clear();
                name_a.push_text(buffer);
                buffer.push(b'\t');
                name_b.push_text(buffer);
                buffer.push(b'\t');
                push_u64(buffer, u64::from(distance));
                buffer.push(b'\n');
                return self.out.write_all(buffer);
            }
            Format::Json if !self.has_named_ids() => {
                // Groups ascend with their fingerprints.
                let (g, h) = (self.index.group_of(a), self.index.group_of(b));
                let (low, high) = (g.min(h), g.max(h));
                let out = &mut *self.out;
                out.write_all(b"[")?;
                write_json_fingerprint(out, self.index.fingerprint(low))?;
                out.write_all(b", ")?;
                write_json_fingerprint(out, self.index.fingerprint(high))?;
                out.write_all(b"]")?;
            }
            Format::Json => {
                let (name_a, name_b) = (self.name(a), self.name(b));
                let out = &mut *self.out;
                out.write_all(b"[")?;
                name_a.write_json(out)?;
                out.write_all(b", ")?;
                name_b.write_json(out)?;
                out.write_all(b", ")?;
                write_u64(out, u64::from(distance))?;
                out.write_all(b"]")?;
            }
        }
        self.out.write_all(b"\n")
    }
}

/// A 64-bit fingerprint as a JSON number (as seomoz's tools print it); a wide one as a JSON
/// string of its hex form, which no JSON number type holds exactly.
fn write_json_fingerprint<W: Write>(out: &mut W, fingerprint: Fingerprint) -> io::Result<()> {
    match fingerprint.width() {
        Width::Bits64 => write_u64(out, fingerprint.words()[0]),
        _ => {
            out.write_all(b"\"")?;
            fingerprint.write_to(out)?;
            out.write_all(b"\"")
        }
    }
}
