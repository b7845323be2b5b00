//! What sh-weight does to one document's items, given the document-frequency table.

use std::hash::BuildHasher;
use std::io::Write;
use std::path::Path;

use foldhash::fast::FixedState;
use hashbrown::hash_table::{Entry, HashTable};
use sh_core::number::{parse_weight, split_weight, WEIGHT_ERROR};
use sh_core::record::items;
use sh_core::{Error, Result};
use sh_df::{read_table, ItemCounts, ItemKey};

/// What is done to the items: drop the common ones, weigh by IDF, or both; and count at most
/// so many occurrences of an item in one document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// Leave out items found in more than this fraction of the documents...
    pub max_df: Option<f64>,
    /// ... but never one found in at most this many documents.
    pub floor: u64,
    /// Weigh every item kept by log(N / df).
    pub idf: bool,
    /// Leave out the occurrences of an item after this many in one document (`None`: keep
    /// them all).
    pub max_tf: Option<u32>,
}

impl Rule {
    /// The rule of the flags --max-df, --df-floor, --idf and --max-tf (0: no limit): with
    /// neither --max-df nor --idf, the default rule with the floor given.
    pub fn from_flags(max_df: Option<f64>, floor: u64, idf: bool, max_tf: u32) -> Rule {
        let max_tf = (max_tf > 0).then_some(max_tf);
        if max_df.is_none() && !idf {
            Rule { floor, max_tf, ..crate::DEFAULT_RULE }
        } else {
            Rule { max_df, floor, idf, max_tf }
        }
    }
}

/// How often each item has occurred so far in one document: the scratch of
/// [`Weights::apply`] for the --max-tf limit, kept from document to document so that its tables
/// are allocated once.
#[derive(Debug)]
pub struct Repeats {
    /// Items that are canonical decimal numbers (nearly all: sh-hash's output), each with its
    /// occurrences.
    numbers: HashTable<(u64, u32)>,
    /// Where each other distinct item of the document is in its payload, and its occurrences.
    table: HashTable<Seen>,
    hasher: FixedState,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    start: usize,
    len: usize,
    count: u32,
}

impl Default for Repeats {
    fn default() -> Repeats {
        Repeats {
            numbers: HashTable::new(),
            table: HashTable::new(),
            hasher: FixedState::with_seed(0x5348_2d77_7466_0001),
        }
    }
}

impl Repeats {
    /// Forgets the document before.
    fn clear(&mut self) {
        self.numbers.clear();
        self.table.clear();
    }

    /// Counts one more occurrence of `key`, a part of `payload` whose [`ItemKey`] is
    /// `item_key`, and returns its occurrences in the document so far.
    fn count(&mut self, payload: &[u8], key: &[u8], item_key: ItemKey<'_>) -> u32 {
        if let ItemKey::Number(value) = item_key {
            let hasher = &self.hasher;
            let hash = hasher.hash_one(value);
            let slot =
                self.numbers.entry(hash, |seen| seen.0 == value, |seen| hasher.hash_one(seen.0));
            return match slot {
                Entry::Occupied(mut seen) => {
                    let seen = seen.get_mut();
                    seen.1 = seen.1.saturating_add(1);
                    seen.1
                }
                Entry::Vacant(slot) => {
                    slot.insert((value, 1));
                    1
                }
            };
        }
        let start = key.as_ptr() as usize - payload.as_ptr() as usize;
        let text = |seen: &Seen| &payload[seen.start..seen.start + seen.len];
        let hasher = &self.hasher;
        let hash = hasher.hash_one(key);
        match self.table.entry(hash, |seen| text(seen) == key, |seen| hasher.hash_one(text(seen))) {
            Entry::Occupied(mut seen) => {
                let seen = seen.get_mut();
                seen.count = seen.count.saturating_add(1);
                seen.count
            }
            Entry::Vacant(slot) => {
                slot.insert(Seen { start, len: key.len(), count: 1 });
                1
            }
        }
    }
}

/// The table as the rule needs it.
#[derive(Debug)]
pub struct Weights {
    rule: Rule,
    /// Items and their document counts: with IDF every item of the table, otherwise only those
    /// to leave out.
    counts: ItemCounts,
    documents: u64,
    /// Counts above this are left out.
    drop_above: u64,
    /// The weight of an item not in the table: that of the table's rarest items.
    unseen_weight: f64,
}

impl Weights {
    /// Reads the table in `path`, holding at most `capacity` items.
    pub fn load(path: &Path, rule: Rule, capacity: usize) -> Result<Weights> {
        let mut counts = ItemCounts::new(capacity);
        let mut rarest = u64::MAX;
        let header = read_table(path, |header, line, item, count| {
            rarest = rarest.min(count);
            if !rule.idf && count <= drop_above(rule, header.documents) {
                return Ok(()); // kept as it is: nothing to remember
            }
            if counts.get(item).is_some() {
                return Err(Error::input(line, "item listed twice", item));
            }
            if !counts.add_if_room(item, count, line) {
                let what = format!(
                    "the table holds more than {capacity} items (raise --capacity, or use \
                     --max-df without --idf, which holds only the items to leave out)"
                );
                return Err(Error::input(line, what, item));
            }
            Ok(())
        })?;
        Ok(Weights {
            rule,
            counts,
            documents: header.documents,
            drop_above: drop_above(rule, header.documents),
            unseen_weight: idf(header.documents, if rarest == u64::MAX { 1 } else { rarest }),
        })
    }

    /// The number of documents the table counts.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Writes the items of `payload` that the rule keeps, weighted when it weighs, to `out`;
    /// when it would keep none, every item as it is (up to the rule's --max-tf occurrences
    /// each). `weighted`: items are `ITEM:WEIGHT`. `repeats`: scratch, reused from call to
    /// call.
    pub fn apply(
        &self,
        payload: &[u8],
        weighted: bool,
        line: u64,
        out: &mut Vec<u8>,
        repeats: &mut Repeats,
    ) -> Result<()> {
        let mut kept = false;
        repeats.clear();
        for item in items(payload) {
            let (key, weight) = if weighted {
                let (key, weight) = split_weight(item)
                    .ok_or_else(|| Error::input(line, "weighted item has no ':WEIGHT'", item))?;
                let weight =
                    parse_weight(weight).ok_or_else(|| Error::input(line, WEIGHT_ERROR, item))?;
                (key, Some(weight))
            } else {
                (item, None)
            };
            // The item read once, for both the table and the count of repeats.
            let item_key = ItemKey::of(key);
            let count = self.counts.get_key(item_key);
            if count.is_some_and(|count| count > self.drop_above) {
                continue;
            }
            if self.rule.max_tf.is_some_and(|max| repeats.count(payload, key, item_key) > max) {
                continue; // the item has occurred often enough in this document
            }
            if !self.rule.idf {
                separate(out, &mut kept);
                out.extend_from_slice(item);
                continue;
            }
            let idf = count.map_or(self.unseen_weight, |count| idf(self.documents, count));
            let weight = idf * weight.unwrap_or(1.0);
            let start = out.len();
            separate(out, &mut kept);
            out.extend_from_slice(key);
            out.push(b':');
            if !push_weight(out, weight) {
                // Weight 0 changes nothing in the sum: the item is left out.
                out.truncate(start);
                kept = start > 0;
            }
        }
        if !kept {
            // Nothing would be left: the document keeps all its items, as they came, so that
            // documents made only of common text still match each other.
            out.clear();
            repeats.clear();
            for item in items(payload) {
                let key =
                    if weighted { split_weight(item).map_or(item, |(key, _)| key) } else { item };
                let over = |max| repeats.count(payload, key, ItemKey::of(key)) > max;
                if self.rule.max_tf.is_some_and(over) {
                    continue;
                }
                separate(out, &mut kept);
                out.extend_from_slice(item);
            }
        }
        Ok(())
    }
}

fn separate(out: &mut Vec<u8>, kept: &mut bool) {
    if *kept {
        out.push(b' ');
    }
    *kept = true;
}

/// The largest count kept: items in more than `max_df` of the documents go, unless they are
/// in at most `floor` documents.
fn drop_above(rule: Rule, documents: u64) -> u64 {
    match rule.max_df {
        Some(fraction) => ((fraction * documents as f64).floor() as u64).max(rule.floor),
        None => u64::MAX,
    }
}

/// log(N / df), natural logarithm.
fn idf(documents: u64, count: u64) -> f64 {
    (documents as f64 / count as f64).ln()
}

/// Writes `weight` with four decimals; false (and nothing written) when that rounds to 0.
fn push_weight(out: &mut Vec<u8>, weight: f64) -> bool {
    const SCALE: f64 = 10_000.0;
    let scaled = (weight.abs() * SCALE).round();
    if scaled == 0.0 {
        return false;
    }
    if weight < 0.0 {
        out.push(b'-');
    }
    if scaled >= 1e18 {
        // Beyond exact integers: the plain decimal form (sh-compute reads it).
        let _ = write!(out, "{}", weight.abs());
        return true;
    }
    let scaled = scaled as u64;
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(digits.format(scaled / 10_000).as_bytes());
    let fraction = scaled % 10_000;
    out.push(b'.');
    let fraction = digits.format(fraction + 10_000);
    out.extend_from_slice(&fraction.as_bytes()[1..]);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_have_four_decimals() {
        for (weight, text) in [
            (1.0, "1.0000"),
            (0.54931, "0.5493"),
            (12.00005, "12.0001"),
            (-2.5, "-2.5000"),
            (0.00004, ""),
            (1e30, "1000000000000000000000000000000"),
        ] {
            let mut out = Vec::new();
            assert_eq!(push_weight(&mut out, weight), !text.is_empty(), "{weight}");
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
    }
}
