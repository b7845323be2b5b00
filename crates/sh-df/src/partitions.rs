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
use sh_core::number::push_u64;

use crate::counts::{ItemCounts, SortedItems};
use crate::cut::nth_largest;
use crate::mix::{digit_key, unmix};

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
    /// Scratch for the reductions.
    survivors: Vec<Number>,
    large: Vec<u64>,
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
            survivors: Vec::new(),
            large: Vec::new(),
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
        self.reduce_if_over();
    }

    fn reduce_if_over(&mut self) {
        if self.held() <= self.capacity {
            return;
        }
        let numbers = self.tables.iter().flat_map(HashTable::iter).map(|n| n.count);
        let counts = numbers.chain(self.texts.counts());
        let cut = nth_largest(counts, self.capacity + 1, &mut self.large);
        self.undercount = self.undercount.saturating_add(cut);
        for table in &mut self.tables {
            // Rebuilt rather than thinned in place: erasing most entries would leave
            // tombstones that later lookups probe through. The table keeps its room.
            self.survivors.clear();
            self.survivors.extend(table.drain().filter_map(|n| {
                let count = n.count.saturating_sub(cut);
                (count > 0).then_some(Number { count, ..n })
            }));
            for &n in &self.survivors {
                table.insert_unique(table_hash(n.key), n, |n| table_hash(n.key));
            }
        }
        self.texts.lower_all(cut);
    }

    /// Adds the counts of `other` (other documents: a part of the input), its undercount too,
    /// and reduces to the capacity. Each partition of `other` is let go once added.
    pub(crate) fn absorb(&mut self, mut other: DocumentCounts) {
        self.flush();
        other.flush();
        for (table, theirs) in self.tables.iter_mut().zip(&mut other.tables) {
            for n in std::mem::take(theirs) {
                add(table, n.key, n.count);
            }
        }
        other.texts.for_each(|text, count| self.texts.add(text, count));
        self.undercount = self.undercount.saturating_add(other.undercount);
        self.reduce_if_over();
    }

    /// The table: every item with its count, by decreasing count, then by item bytes; and the
    /// undercount.
    pub fn finish(mut self) -> (SortedItems, u64) {
        self.flush();
        // Sorted as [!count, key, key, value]: by decreasing count, then by the decimal's bytes.
        let mut numbers: Vec<[u64; 4]> = Vec::with_capacity(self.held());
        for table in std::mem::take(&mut self.tables) {
            numbers.extend(table.into_iter().map(|n| {
                let value = unmix(n.key);
                let (high, low) = digit_key(value);
                [!n.count, high, low, value]
            }));
        }
        numbers.sort_unstable();
        let texts = self.texts.sorted();
        // The two lists merged: no text is a canonical decimal, so none equals a number.
        let mut all = SortedItems::with_capacity(numbers.len() + texts.len());
        let mut digits = Vec::with_capacity(20);
        let mut next_text = 0;
        for [count, _, _, value] in numbers {
            let count = !count;
            if next_text < texts.len() {
                digits.clear();
                push_u64(&mut digits, value);
                while let Some((text, text_count)) = texts.get(next_text) {
                    if text_count < count || (text_count == count && text > &digits[..]) {
                        break;
                    }
                    all.push(text, text_count);
                    next_text += 1;
                }
            }
            all.push_number(value, count);
        }
        while let Some((text, count)) = texts.get(next_text) {
            all.push(text, count);
            next_text += 1;
        }
        (all, self.undercount)
    }
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
