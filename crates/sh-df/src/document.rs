//! The distinct items of one document: an item repeated in a document counts once. Number
//! items are kept as their keys (`mix.rs`), whose low bits index a small open-addressing set
//! made for the document (stamped with the document, so it is never cleared); a document of
//! more than [`SET_LIMIT`] numbers is sorted instead, so that the set stays small. Text items
//! (rare) are sorted.

use sh_core::number::canonical_u64;

use crate::mix::mix;
use crate::partitions::DocumentCounts;

/// The most number items of a document deduplicated by the set (of 2 to 4 slots per item).
const SET_LIMIT: usize = 1 << 16;

/// One document's items, then its distinct ones handed to the counts.
#[derive(Debug, Default)]
pub(crate) struct Document {
    /// The keys of the number items, in order, repeats included.
    numbers: Vec<u64>,
    /// The text items, as ranges of the payload.
    texts: Vec<(usize, usize)>,
    /// The set: keys, and the document each slot was last written for.
    slots: Vec<u64>,
    stamps: Vec<u32>,
    stamp: u32,
}

impl Document {
    /// Takes `item`, a piece of `payload`, as an item of the document.
    #[inline]
    pub(crate) fn push(&mut self, payload: &[u8], item: &[u8]) {
        match canonical_u64(item) {
            Some(value) => self.push_number(value),
            None => self.push_text(payload, item),
        }
    }

    /// Takes `item`, a piece of `payload` that is not a canonical decimal, as a text item.
    #[inline]
    pub(crate) fn push_text(&mut self, payload: &[u8], item: &[u8]) {
        let start = item.as_ptr() as usize - payload.as_ptr() as usize;
        self.texts.push((start, start + item.len()));
    }

    /// Takes the number item `value` (an item that is its canonical decimal).
    #[inline]
    pub(crate) fn push_number(&mut self, value: u64) {
        self.numbers.push(mix(value));
    }

    /// Counts each distinct item taken once into `counts`, and starts the next document.
    pub(crate) fn count_into(&mut self, payload: &[u8], counts: &mut DocumentCounts) {
        if self.numbers.len() <= SET_LIMIT {
            self.distinct_by_set(counts);
        } else {
            self.numbers.sort_unstable();
            self.numbers.dedup();
            for &key in &self.numbers {
                counts.push_number(key);
            }
        }
        self.numbers.clear();
        if !self.texts.is_empty() {
            self.texts.sort_unstable_by(|a, b| payload[a.0..a.1].cmp(&payload[b.0..b.1]));
            self.texts.dedup_by(|a, b| payload[a.0..a.1] == payload[b.0..b.1]);
            for &(start, end) in &self.texts {
                counts.push_text(&payload[start..end]);
            }
            self.texts.clear();
        }
    }

    fn distinct_by_set(&mut self, counts: &mut DocumentCounts) {
        let size = (2 * self.numbers.len()).next_power_of_two().max(16);
        if self.slots.len() < size {
            self.slots.resize(size, 0);
            self.stamps.resize(size, 0);
        }
        self.stamp = match self.stamp.checked_add(1) {
            Some(stamp) => stamp,
            None => {
                self.stamps.fill(0);
                1
            }
        };
        let mask = size - 1;
        let (slots, stamps, stamp) = (&mut self.slots, &mut self.stamps, self.stamp);
        for &key in &self.numbers {
            let mut at = key as usize & mask;
            loop {
                if stamps[at] != stamp {
                    stamps[at] = stamp;
                    slots[at] = key;
                    counts.push_number(key);
                    break;
                }
                if slots[at] == key {
                    break;
                }
                at = (at + 1) & mask;
            }
        }
    }
}
