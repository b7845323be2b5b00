//! Items found by their bytes. sh-weight never needs an item's value, only whether two items are
//! the same bytes: each item is hashed once, as bytes (no decimal is parsed), and that hash finds
//! it both in the table's items and among the items seen earlier in the document.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use hashbrown::hash_table::{Entry, HashTable};

/// The hasher of items: fixed, so that runs are reproducible (the output never depends on it;
/// only speed could).
#[derive(Debug, Clone)]
pub(crate) struct ItemHasher(FixedState);

impl Default for ItemHasher {
    fn default() -> ItemHasher {
        ItemHasher(FixedState::with_seed(0x5348_2d77_7466_0002))
    }
}

impl ItemHasher {
    /// The hash of `item`'s bytes. Items of 8 to 24 bytes (a hash's decimal has up to 20) are
    /// hashed from three words that cover their bytes, without a call: foldhash takes a loop
    /// past 16 bytes, and such items are nearly all of sh-weight's input.
    #[inline(always)]
    pub(crate) fn hash(&self, item: &[u8]) -> u64 {
        let n = item.len();
        if !(8..=24).contains(&n) {
            return self.0.hash_one(item);
        }
        let word = |at: usize| {
            u64::from_le_bytes(item[at..at + 8].try_into().expect("eight bytes of the item"))
        };
        // Bytes 0..8, the middle eight and the last eight: every byte of the item, for
        // 8 <= n <= 24.
        let (a, b, c) = (word(0), word(n / 2 - 4), word(n - 8));
        let h = folded_multiply(a ^ 0x243f_6a88_85a3_08d3, b ^ 0x1319_8a2e_0370_7344)
            ^ folded_multiply(c ^ 0xa409_3822_299f_31d0, n as u64 ^ 0x082e_fa98_ec4e_6c89);
        folded_multiply(h, 0x4528_21e6_38d0_1377)
    }
}

/// The two halves of the 128-bit product of `x` and `y`, XORed: a fast mix of both words.
#[inline]
fn folded_multiply(x: u64, y: u64) -> u64 {
    let product = u128::from(x) * u128::from(y);
    (product as u64) ^ ((product >> 64) as u64)
}

/// One document's items on their way through [`crate::Weights::apply`], how often each has
/// occurred (for the --max-tf limit), and a run of common items held for --min-run: the
/// scratch of `apply`, kept from document to document so that its buffers are allocated once.
///
/// For a document of up to 256 KiB, `apply` notes the items that the rule keeps, in order,
/// then asks which occurrences are within the limit. Most documents repeat few items, and most
/// items not past the limit; so the occurrences are first counted in a sketch, a small array of
/// counters indexed by some bits of the items' hashes, where an item's counter is never below
/// its own count. Only the items of a counter over the limit are counted exactly, in a table.
/// A longer document (whose notes, 64 bytes an item, could take many times its size) is
/// weighed in one pass, each occurrence counted exactly in the table.
#[derive(Debug, Default)]
pub struct Repeats {
    found: Vec<Found>,
    /// A run of common items not yet known to be long enough to leave out (--min-run).
    pub(crate) common_run: Vec<Found>,
    sketch: Vec<u8>,
    /// Where each distinct item counted exactly is in the payload, and its occurrences.
    table: HashTable<Seen>,
}

/// An item found in the document: one that the table keeps, or a common one held in a run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Found {
    /// The item in the payload.
    pub start: usize,
    pub len: usize,
    /// The length of its ITEM (up to the `:` with --weighted).
    pub key_len: usize,
    pub hash: u64,
    /// Its count in the table.
    pub count: Option<u64>,
    /// Its own weight (--weighted); with --idf too, once the item is decided, that weight
    /// times its IDF.
    pub weight: Option<f64>,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    start: usize,
    len: usize,
    count: u32,
}

/// A document's sketch has a counter for about every 4 bytes of its payload (5 for an item of
/// a hash's 20 digits), between these bounds (`apply` sketches documents of up to 256 KiB).
const SKETCH_MIN: usize = 1 << 6;
const SKETCH_MAX: usize = 1 << 20;

impl Repeats {
    /// Starts a document of `len` bytes.
    pub(crate) fn start(&mut self, len: usize) {
        self.start_with((len / 4).next_power_of_two().clamp(SKETCH_MIN, SKETCH_MAX));
    }

    /// Starts a document with a sketch of `counters` counters (a power of two).
    fn start_with(&mut self, counters: usize) {
        self.found.clear();
        self.table.clear();
        self.sketch.clear();
        self.sketch.resize(counters, 0);
    }

    /// Notes the next item that the table keeps.
    #[inline]
    pub(crate) fn note(&mut self, found: Found) {
        let at = sketch_place(found.hash, self.sketch.len());
        let counter = &mut self.sketch[at];
        *counter = counter.saturating_add(1);
        self.found.push(found);
    }

    /// Hands `keep` the items noted, in order, but for the occurrences of an item after the
    /// `max`-th.
    pub(crate) fn within_limit(
        &mut self,
        payload: &[u8],
        hasher: &ItemHasher,
        max: u32,
        mut keep: impl FnMut(&Found),
    ) {
        for found in &self.found {
            let counter = self.sketch[sketch_place(found.hash, self.sketch.len())];
            // A full counter may stand for any count.
            if counter == u8::MAX || u32::from(counter) > max {
                let key = &payload[found.start..found.start + found.key_len];
                if count_in(&mut self.table, payload, key, found.hash, hasher) > max {
                    continue;
                }
            }
            keep(found);
        }
    }

    /// Forgets the items counted exactly.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }

    /// Counts one more occurrence of `item`, a part of `payload` whose hash by `hasher` is
    /// `hash`, exactly, and returns its occurrences so far (since the last clear).
    #[inline]
    pub(crate) fn count(
        &mut self,
        payload: &[u8],
        item: &[u8],
        hash: u64,
        hasher: &ItemHasher,
    ) -> u32 {
        count_in(&mut self.table, payload, item, hash, hasher)
    }
}

/// The counter of the sketch of `len` counters (a power of two) for an item of `hash`: from its
/// high bits, as the table of exact counts takes its low bits.
#[inline]
fn sketch_place(hash: u64, len: usize) -> usize {
    (hash >> 40) as usize & (len - 1)
}

/// [`Repeats::count`] in `table`.
#[inline]
fn count_in(
    table: &mut HashTable<Seen>,
    payload: &[u8],
    item: &[u8],
    hash: u64,
    hasher: &ItemHasher,
) -> u32 {
    let bytes = |seen: &Seen| &payload[seen.start..seen.start + seen.len];
    match table.entry(hash, |seen| bytes(seen) == item, |seen| hasher.hash(bytes(seen))) {
        Entry::Occupied(mut seen) => {
            let seen = seen.get_mut();
            seen.count = seen.count.saturating_add(1);
            seen.count
        }
        Entry::Vacant(slot) => {
            let start = item.as_ptr() as usize - payload.as_ptr() as usize;
            slot.insert(Seen { start, len: item.len(), count: 1 });
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Items of every length up to 40 are hashed from every byte: changing any one changes
    /// the hash (the short path reads three words, which must cover the item).
    #[test]
    fn every_byte_of_an_item_counts_in_its_hash() {
        let hasher = ItemHasher::default();
        for len in 0..=40 {
            let item: Vec<u8> = (0..len).map(|i| b'0' + (i * 7 % 10) as u8).collect();
            let hash = hasher.hash(&item);
            assert_eq!(hash, hasher.hash(&item.clone()));
            for at in 0..len {
                let mut other = item.clone();
                other[at] ^= 1;
                assert_ne!(hasher.hash(&other), hash, "length {len}, byte {at}");
            }
            let mut longer = item.clone();
            longer.push(b'0');
            assert_ne!(hasher.hash(&longer), hash, "length {len} and one more");
        }
    }

    /// Notes every item of `payload`, as `apply` notes those the table keeps.
    fn note_all(repeats: &mut Repeats, payload: &str, hasher: &ItemHasher) {
        for item in sh_core::record::items(payload.as_bytes()) {
            let start = item.as_ptr() as usize - payload.as_ptr() as usize;
            let (len, hash) = (item.len(), hasher.hash(item));
            repeats.note(Found { start, len, key_len: len, hash, count: None, weight: None });
        }
    }

    proptest! {
        /// The occurrences within the limit are the first `max` of each item, in order, from
        /// sketches of one counter (every item shares it: all counted exactly) to many; items
        /// that differ by a leading zero, or only past a hash's 20 digits, are other items.
        #[test]
        fn within_the_limit_are_the_first_occurrences(
            words in prop::collection::vec(
                prop_oneof![
                    (0u64..6).prop_map(|n| (n * n).to_string()),
                    (0u64..3).prop_map(|n| format!("0{n}")),
                    (0u64..3).prop_map(|n| format!("1844674407370955161{n}x")),
                    "[ab]{1,2}",
                ],
                0..80,
            ),
            max in 1u32..6,
            counters_log in 0u32..8,
        ) {
            let payload = words.join(" ");
            let hasher = ItemHasher::default();
            let mut repeats = Repeats::default();
            repeats.start_with(1 << counters_log);
            note_all(&mut repeats, &payload, &hasher);
            let mut kept = Vec::new();
            repeats.within_limit(payload.as_bytes(), &hasher, max, |found| {
                kept.push(&payload[found.start..found.start + found.len]);
            });
            let mut seen = std::collections::HashMap::new();
            let want: Vec<&str> = words.iter().map(String::as_str).filter(|word| {
                let n = seen.entry(*word).or_insert(0u32);
                *n += 1;
                *n <= max
            }).collect();
            prop_assert_eq!(&kept, &want);
        }
    }

    /// A counter full at 255 stands for any count: past it, items are counted exactly, so a
    /// limit above 255 still holds.
    #[test]
    fn a_full_counter_is_counted_exactly() {
        let payload = vec!["7"; 600].join(" ");
        let hasher = ItemHasher::default();
        for (counters, max, want) in [(1, 300, 300), (64, 300, 300), (64, 254, 254), (1, 1000, 600)]
        {
            let mut repeats = Repeats::default();
            repeats.start_with(counters);
            note_all(&mut repeats, &payload, &hasher);
            let mut kept = 0;
            repeats.within_limit(payload.as_bytes(), &hasher, max, |_| kept += 1);
            assert_eq!(kept, want, "{counters} counters, limit {max}");
        }
    }

    #[test]
    fn repeats_count_equal_bytes() {
        let payload = b"7 007 7 7 0x7 007";
        let hasher = ItemHasher::default();
        let mut repeats = Repeats::default();
        let counts: Vec<u32> = sh_core::record::items(payload)
            .map(|item| repeats.count(payload, item, hasher.hash(item), &hasher))
            .collect();
        assert_eq!(counts, [1, 1, 2, 3, 1, 2]);
        repeats.clear();
        assert_eq!(repeats.count(payload, &payload[..1], hasher.hash(b"7"), &hasher), 1);
    }
}
