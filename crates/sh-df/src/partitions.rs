//! Counting documents a cache's worth at a time. The distinct items of each document (see
//! `document.rs`) are not looked up at once in one table of every item, which fits no cache and
//! costs a miss per item: a number item's key (`mix.rs`) is appended to one of [`PARTITIONS`]
//! buffers by its top bits, and when the buffers hold `budget` items, each buffer is counted
//! into its partition's table, a table of 1/[`PARTITIONS`] of the items that stays in cache
//! while its buffer is read. Items that are no canonical decimal go to one [`ItemCounts`]
//! beside the partitions, by the same buffering.
//!
//! Every buffered item is a (document, distinct item) occurrence, so counting adds 1: while the
//! distinct items fit in the capacity, the counts are exact. After a flush that leaves more
//! than `capacity` items held, the Misra-Gries reduction is made over all of them at once:
//! with v the (capacity + 1)-th largest count, every count drops by v, items at zero go, and
//! the undercount grows by v. Each cut removes at least (capacity + 1) · v from the counts held,
//! so the bounds of a reduction per item hold as they are (docs/DESIGN.md, "Bounded memory"):
//! no count above the truth, none more than the undercount below it, and an undercount of at
//! most the occurrences / (capacity + 1). Between reductions at most `budget` more items are
//! held: memory is bounded by capacity + budget items, whatever the vocabulary.

use hashbrown::hash_table::{Entry as Slot, HashTable};

use crate::counts::ItemCounts;
use crate::cut::Tally;
use crate::mix::{row, unmix};
use crate::sorted::CountedTable;
use sh_core::threads::spawn_or_run;

/// The number of partitions: 64, so that the default capacity of a million items (and the
/// budget beside it) makes tables of about 25,000 items, 400 KB, each.
pub(crate) const PARTITIONS: usize = 64;
const SHIFT: u32 = 64 - PARTITIONS.trailing_zeros();

/// A number item held: its key ([`crate::mix::mix`] of its value) and its count.
#[derive(Debug, Clone, Copy)]
struct Number {
    key: u64,
    count: u64,
}

/// The hash of a key in its partition's table: its middle bits, since the top ones are the
/// partition's (the same for all its keys) and the low ones index the per-document sets.
#[inline]
fn table_hash(key: u64) -> u64 {
    key.rotate_right(32)
}

/// The items buffered between flushes, by default: half the capacity, from 64 Ki to 1 Mi items
/// (8 MB of buffer at the most).
fn default_budget(capacity: usize) -> usize {
    (capacity / 2).clamp(1 << 16, 1 << 20)
}

/// The document frequencies of the items counted so far, in bounded memory.
#[derive(Debug)]
pub struct DocumentCounts {
    capacity: usize,
    budget: usize,
    tables: Vec<HashTable<Number>>,
    /// The keys buffered for each partition.
    pending: Vec<Vec<u64>>,
    /// The texts buffered, one after another, and where each ends.
    pending_text: Vec<u8>,
    pending_text_ends: Vec<usize>,
    /// Buffered: the items, and a text's bytes by eights, against the budget.
    pending_weight: usize,
    texts: ItemCounts,
    undercount: u64,
}

impl DocumentCounts {
    /// Counts holding at most `capacity` items (at least 1) once every flush is reduced.
    pub fn new(capacity: usize) -> DocumentCounts {
        DocumentCounts::with_budget(capacity, default_budget(capacity))
    }

    /// Counts that buffer at most `budget` items (at least 1) between flushes.
    pub fn with_budget(capacity: usize, budget: usize) -> DocumentCounts {
        // Room made at once for what a flush may bring the tables to (up to 2 Mi items, 32 MB
        // of which only the pages used are touched), so that they are not rebuilt as they grow.
        let room = capacity.saturating_add(budget).min(1 << 21) / PARTITIONS;
        DocumentCounts {
            capacity: capacity.max(1),
            budget: budget.max(1),
            tables: (0..PARTITIONS).map(|_| HashTable::with_capacity(room)).collect(),
            pending: vec![Vec::new(); PARTITIONS],
            pending_text: Vec::new(),
            pending_text_ends: Vec::new(),
            pending_weight: 0,
            texts: ItemCounts::new(usize::MAX),
            undercount: 0,
        }
    }

    /// Counts once the number item of key `key`: one of a document's distinct items.
    #[inline]
    pub(crate) fn push_number(&mut self, key: u64) {
        self.pending[(key >> SHIFT) as usize].push(key);
        self.pending_weight += 1;
        if self.pending_weight >= self.budget {
            self.flush();
        }
    }

    /// Counts once a text item: one of a document's distinct items.
    pub(crate) fn push_text(&mut self, text: &[u8]) {
        self.pending_text.extend_from_slice(text);
        self.pending_text_ends.push(self.pending_text.len());
        self.pending_weight += 1 + text.len() / 8;
        if self.pending_weight >= self.budget {
            self.flush();
        }
    }

    /// The items held (the buffered ones not included).
    fn held(&self) -> usize {
        self.tables.iter().map(HashTable::len).sum::<usize>() + self.texts.len()
    }

    /// Counts what is buffered, then reduces to the capacity when the items held are more.
    pub(crate) fn flush(&mut self) {
        self.flush_on(1);
    }

    /// [`DocumentCounts::flush`], a reduction made on up to `threads` threads.
    fn flush_on(&mut self, threads: usize) {
        for (table, pending) in self.tables.iter_mut().zip(&mut self.pending) {
            for key in pending.drain(..) {
                add(table, key, 1);
            }
        }
        let mut start = 0;
        for &end in &self.pending_text_ends {
            self.texts.add(&self.pending_text[start..end], 1);
            start = end;
        }
        self.pending_text.clear();
        self.pending_text_ends.clear();
        self.pending_weight = 0;
        self.reduce_if_over(threads);
    }

    /// The Misra-Gries reduction, when more than the capacity is held: the partitions tallied
    /// and then rebuilt on up to `threads` threads.
    fn reduce_if_over(&mut self, threads: usize) {
        if self.held() <= self.capacity {
            return;
        }
        let tally = on_partitions(&mut self.tables, threads, |tables| {
            Tally::of(tables.iter().flat_map(HashTable::iter).map(|n| n.count))
        })
        .into_iter()
        .fold(Tally::of(self.texts.counts()), Tally::add);
        let cut = tally.nth_largest(self.capacity + 1);
        self.undercount = self.undercount.saturating_add(cut);
        on_partitions(&mut self.tables, threads, |tables| {
            let mut survivors = Vec::new();
            for table in tables {
                // Rebuilt rather than thinned in place: erasing most entries would leave
                // tombstones that later lookups probe through. The table keeps its room.
                survivors.clear();
                survivors.extend(table.drain().filter_map(|n| {
                    let count = n.count.saturating_sub(cut);
                    (count > 0).then_some(Number { count, ..n })
                }));
                for &n in &survivors {
                    table.insert_unique(table_hash(n.key), n, |n| table_hash(n.key));
                }
            }
        });
        self.texts.lower_all(cut);
    }

    /// Adds the counts of `other` (other documents: a part of the input), its undercount too,
    /// and reduces to the capacity. Each partition of `other` is let go once added; the
    /// partitions are added on up to `threads` threads.
    pub(crate) fn absorb(&mut self, mut other: DocumentCounts, threads: usize) {
        self.flush();
        other.flush();
        let chunk = PARTITIONS.div_ceil(threads.clamp(1, PARTITIONS));
        std::thread::scope(|scope| {
            let mine = self.tables.chunks_mut(chunk);
            for (tables, theirs) in mine.zip(other.tables.chunks_mut(chunk)) {
                spawn_or_run(scope, move || {
                    for (table, theirs) in tables.iter_mut().zip(theirs) {
                        for n in std::mem::take(theirs) {
                            add(table, n.key, n.count);
                        }
                    }
                });
            }
        });
        other.texts.for_each(|text, count| self.texts.add(text, count));
        self.undercount = self.undercount.saturating_add(other.undercount);
        self.reduce_if_over(threads);
    }

    /// The table: every item with its count, by decreasing count, then by item bytes; and the
    /// undercount. The items are sorted on up to `threads` threads.
    pub fn finish(mut self, threads: usize) -> (CountedTable, u64) {
        self.flush_on(threads);
        let numbers = sorted_numbers(std::mem::take(&mut self.tables), threads);
        (CountedTable { numbers, texts: self.texts.sorted() }, self.undercount)
    }
}

/// `work` done on the partitions' tables, dealt in equal runs to up to `threads` threads (on
/// this one when there is one run); what each run gives, in order.
fn on_partitions<T: Send>(
    tables: &mut [HashTable<Number>],
    threads: usize,
    work: impl Fn(&mut [HashTable<Number>]) -> T + Sync,
) -> Vec<T> {
    let run = tables.len().div_ceil(threads.clamp(1, PARTITIONS)).max(1);
    if run >= tables.len() {
        return vec![work(tables)];
    }
    let work = &work;
    std::thread::scope(|scope| {
        let runs: Vec<_> = tables
            .chunks_mut(run)
            .map(|tables| spawn_or_run(scope, move || work(tables)))
            .collect();
        runs.into_iter().map(|run| run.join()).collect()
    })
}

/// Below this many items the table is sorted on one thread.
const PARALLEL_SORT_FROM: usize = 1 << 16;

/// The number items of `tables` as [`row`]s, sorted: by decreasing count, then by the decimal's
/// bytes. The partitions are dealt in equal numbers to up to `threads` threads
/// (their sizes alike, as the keys spread evenly), each of which writes its partitions' rows,
/// letting each table go once it is read, and sorts them; the sorted runs are then merged by a
/// sort that finds them as runs (with a scratch of half the rows).
fn sorted_numbers(tables: Vec<HashTable<Number>>, threads: usize) -> Vec<u128> {
    let total: usize = tables.iter().map(HashTable::len).sum();
    let threads = threads.clamp(1, (total / PARALLEL_SORT_FROM).max(1));
    let mut numbers = vec![0u128; total];
    let per_thread = tables.len().div_ceil(threads).max(1);
    let mut tables = tables.into_iter();
    std::thread::scope(|scope| {
        let mut rest = &mut numbers[..];
        loop {
            let mine: Vec<HashTable<Number>> = tables.by_ref().take(per_thread).collect();
            if mine.is_empty() {
                break;
            }
            let len = mine.iter().map(HashTable::len).sum();
            let (run, tail) = std::mem::take(&mut rest).split_at_mut(len);
            rest = tail;
            spawn_or_run(scope, move || {
                let mut rows = run.iter_mut();
                for table in mine {
                    // The table first: zip asks it first, so no row is taken for nothing.
                    for (n, place) in table.into_iter().zip(rows.by_ref()) {
                        *place = row(unmix(n.key), n.count);
                    }
                }
                run.sort_unstable();
            });
        }
    });
    if threads > 1 {
        numbers.sort();
    }
    numbers
}

#[inline]
fn add(table: &mut HashTable<Number>, key: u64, amount: u64) {
    match table.entry(table_hash(key), |n| n.key == key, |n| table_hash(n.key)) {
        Slot::Occupied(mut occupied) => {
            let n = occupied.get_mut();
            n.count = n.count.saturating_add(amount);
        }
        Slot::Vacant(vacant) => {
            vacant.insert(Number { key, count: amount });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mix::mix;

    /// Any number of threads makes the same table: runs of every size, equal counts that span
    /// the runs' edges, values from one end of the range to the other.
    #[test]
    fn the_table_is_the_same_on_any_number_of_threads() {
        let tables: Vec<_> = [1, 2, 3, 4, 8, 1000]
            .into_iter()
            .map(|threads| {
                let mut counts = DocumentCounts::new(1 << 20);
                let mut state = 0x9e37_79b9_7f4a_7c15u64;
                for document in 0..4 * PARALLEL_SORT_FROM as u64 {
                    state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    let value = [document, u64::MAX - document, state][document as usize % 3];
                    for _ in 0..1 + (state >> 62) {
                        counts.push_number(mix(value));
                    }
                }
                let (items, undercount) = counts.finish(threads);
                assert_eq!(undercount, 0);
                let items: Vec<(Vec<u8>, u64)> =
                    items.iter().map(|(item, count)| (item.to_vec(), count)).collect();
                items
            })
            .collect();
        assert!(tables[0].len() > 3 * PARALLEL_SORT_FROM);
        assert!(tables[0].windows(2).all(|w| (!w[0].1, &w[0].0) < (!w[1].1, &w[1].0)));
        for (table, threads) in tables.iter().zip([1, 2, 3, 4, 8, 1000]) {
            assert!(*table == tables[0], "{threads} threads");
        }
    }

    /// A reduction made on threads (here the one when the buffered items are counted at the
    /// end) is the one made on one: the same cut, over number and text items alike, so the same
    /// summary and undercount.
    #[test]
    fn a_reduction_is_the_same_on_any_number_of_threads() {
        let summaries: Vec<_> = [1, 2, 3, 8, 64, 1000]
            .into_iter()
            .map(|threads| {
                // Nothing counted before the end: one reduction, at `finish`.
                let mut counts = DocumentCounts::with_budget(50, usize::MAX);
                let mut state = 0x2545_f491_4f6c_dd1du64;
                for document in 0..3000u64 {
                    state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    counts.push_number(mix(document % 97 + (state >> 60)));
                    counts.push_text(format!("w{}", document % 13).as_bytes());
                    if document % 5 == 0 {
                        counts.push_text(format!("0{}", state >> 61).as_bytes());
                    }
                }
                let (items, undercount) = counts.finish(threads);
                let items: Vec<(Vec<u8>, u64)> =
                    items.iter().map(|(item, count)| (item.to_vec(), count)).collect();
                (items, undercount)
            })
            .collect();
        let (items, undercount) = &summaries[0];
        assert!(*undercount > 0 && items.len() <= 50, "a reduction was made");
        assert!(items.iter().any(|(item, _)| item[0] == b'w'), "text items are held");
        for (summary, threads) in summaries.iter().zip([1, 2, 3, 8, 64, 1000]) {
            assert!(*summary == summaries[0], "{threads} threads");
        }
    }
}
