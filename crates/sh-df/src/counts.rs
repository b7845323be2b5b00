//! Counts per item in bounded memory: exact while the distinct items fit in the capacity, and a
//! Misra-Gries summary beyond it, whose counts are never above the truth and at most
//! [`ItemCounts::undercount`] below it.
//!
//! Items are byte strings. Nearly all are 64-bit hashes in plain decimal (sh-hash's output):
//! those are held as numbers, compared and hashed as such; any other item's text lives in one
//! arena that the entries point into, so no item costs an allocation of its own. Entries keep
//! no hash: a number's is cheap to compute again, and a text's is needed only when the table
//! grows or is rebuilt.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use hashbrown::hash_table::{Entry as Slot, HashTable};
use sh_core::number::{canonical_u64, write_u64};

pub use crate::sorted::SortedItems;

/// An item as looked up: a number, or text not in the arena.
#[derive(Debug, Clone, Copy)]
enum Probe<'a> {
    /// An item that is the canonical decimal of this number (no leading zero).
    Number(u64),
    Text(&'a [u8]),
}

impl<'a> Probe<'a> {
    #[inline]
    fn of(item: &'a [u8]) -> Probe<'a> {
        match canonical_u64(item) {
            Some(value) => Probe::Number(value),
            None => Probe::Text(item),
        }
    }

    #[inline]
    fn hash(self, hasher: &FixedState) -> u64 {
        match self {
            Probe::Number(value) => hasher.hash_one(value),
            Probe::Text(text) => hasher.hash_one(text),
        }
    }

    #[inline]
    fn matches(self, entry: &Entry, arena: &[u8]) -> bool {
        match self {
            Probe::Number(value) => !entry.is_text && entry.value == value,
            Probe::Text(text) => entry.is_text && stored_text(arena, entry.value) == text,
        }
    }
}

/// An item held and its count: 32 bytes, so that two share a cache line and none straddles
/// two (the table is the working set of sh-df; its misses are most of the time).
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The number, or where the text is in the arena (an 8-byte length, then the bytes).
    value: u64,
    count: u64,
    /// The last document (or table, when merging) that counted this item: an item counts once
    /// per document however often it occurs there.
    last_seen: u64,
    is_text: bool,
}

impl Entry {
    fn rehash(&self, hasher: &FixedState, arena: &[u8]) -> u64 {
        match self.is_text {
            false => hasher.hash_one(self.value),
            true => hasher.hash_one(stored_text(arena, self.value)),
        }
    }

    /// Bytes the item takes in the arena.
    fn arena_bytes(&self, arena: &[u8]) -> usize {
        match self.is_text {
            false => 0,
            true => LEN_BYTES + stored_text(arena, self.value).len(),
        }
    }
}

/// The length in front of each text in the arena.
const LEN_BYTES: usize = 8;

fn stored_text(arena: &[u8], at: u64) -> &[u8] {
    let at = at as usize;
    let len = u64::from_le_bytes(arena[at..at + LEN_BYTES].try_into().expect("8 bytes")) as usize;
    &arena[at + LEN_BYTES..at + LEN_BYTES + len]
}

/// Counts of items, at most `capacity` of them held at once.
#[derive(Debug)]
pub struct ItemCounts {
    table: HashTable<Entry>,
    arena: Vec<u8>,
    /// Bytes of the arena that belong to items still held.
    live_bytes: usize,
    capacity: usize,
    hasher: FixedState,
    undercount: u64,
    /// Scratch for the reductions: the counts whose order statistic is taken, and the entries
    /// that stay.
    counts: Vec<u64>,
    survivors: Vec<Entry>,
}

/// The seed of the item hash: fixed, so that runs are reproducible (the output never depends
/// on it; only speed could).
const SEED: u64 = 0x5348_2d64_6600_0001;

impl ItemCounts {
    /// An empty set of counts holding at most `capacity` items (at least 1).
    pub fn new(capacity: usize) -> ItemCounts {
        ItemCounts {
            table: HashTable::new(),
            arena: Vec::new(),
            live_bytes: 0,
            capacity: capacity.max(1),
            hasher: FixedState::with_seed(SEED),
            undercount: 0,
            counts: Vec::new(),
            survivors: Vec::new(),
        }
    }

    /// The items held.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when no item is held.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The most by which a count may be below the true count; also the most that an item
    /// missing from the counts may have. 0 while every item has fitted: the counts are exact.
    pub fn undercount(&self) -> u64 {
        self.undercount
    }

    /// Adds to the undercount what the counts taken in from elsewhere (a merged table) owe.
    pub fn add_undercount(&mut self, amount: u64) {
        self.undercount = self.undercount.saturating_add(amount);
    }

    fn find(&self, item: &[u8]) -> Option<&Entry> {
        let probe = Probe::of(item);
        let hash = probe.hash(&self.hasher);
        self.table.find(hash, |e| probe.matches(e, &self.arena))
    }

    /// The count of `item`, if it is held.
    #[inline]
    pub fn get(&self, item: &[u8]) -> Option<u64> {
        self.find(item).map(|e| e.count)
    }

    /// The last document (or table) that counted `item`, if it is held.
    pub fn last_seen(&self, item: &[u8]) -> Option<u64> {
        self.find(item).map(|e| e.last_seen)
    }

    /// Counts `item` once for `seen` (a document or table number, increasing): adds `amount`
    /// unless the item was counted for `seen` already. Returns false when the item is not held
    /// and there is no room for it; the caller then hands it to [`ItemCounts::add_overflow`]
    /// once the rest of `seen` is counted.
    #[inline]
    pub fn add_if_room(&mut self, item: &[u8], amount: u64, seen: u64) -> bool {
        self.add_probe_if_room(Probe::of(item), amount, seen)
    }

    #[inline]
    fn add_probe_if_room(&mut self, probe: Probe<'_>, amount: u64, seen: u64) -> bool {
        let hash = probe.hash(&self.hasher);
        let (arena, hasher) = (&self.arena, &self.hasher);
        let full = self.table.len() >= self.capacity;
        let slot = self.table.entry(hash, |e| probe.matches(e, arena), |e| e.rehash(hasher, arena));
        match slot {
            Slot::Occupied(mut occupied) => {
                count_once(occupied.get_mut(), amount, seen);
                true
            }
            Slot::Vacant(_) if full => false,
            Slot::Vacant(vacant) => {
                let (value, is_text) = store(&mut self.arena, &mut self.live_bytes, probe);
                vacant.insert(Entry { value, count: amount, last_seen: seen, is_text });
                true
            }
        }
    }

    /// Counts an item that found no room: it goes in over the capacity, and the summary is
    /// reduced back to the capacity (Misra-Gries: every count drops by the count of the first
    /// item beyond the capacity, in decreasing order, and items left at zero go). Each item must
    /// come here at most once for `seen`.
    pub fn add_overflow(&mut self, item: &[u8], amount: u64, seen: u64) {
        self.add_probe_overflow(Probe::of(item), amount, seen)
    }

    fn add_probe_overflow(&mut self, probe: Probe<'_>, amount: u64, seen: u64) {
        let hash = probe.hash(&self.hasher);
        match self.table.find_mut(hash, |e| probe.matches(e, &self.arena)) {
            Some(entry) => count_once(entry, amount, seen),
            None => {
                let (value, is_text) = store(&mut self.arena, &mut self.live_bytes, probe);
                let entry = Entry { value, count: amount, last_seen: seen, is_text };
                let (arena, hasher) = (&self.arena, &self.hasher);
                self.table.insert_unique(hash, entry, |e| e.rehash(hasher, arena));
            }
        }
        if self.table.len() > self.capacity {
            self.reduce();
        }
    }

    /// Adds `amount` to the count of `item`, taking it in whatever the capacity: for a caller
    /// that sees to the capacity and to counting each document once itself.
    pub(crate) fn add(&mut self, item: &[u8], amount: u64) {
        let probe = Probe::of(item);
        let hash = probe.hash(&self.hasher);
        let (arena, hasher) = (&self.arena, &self.hasher);
        let slot = self.table.entry(hash, |e| probe.matches(e, arena), |e| e.rehash(hasher, arena));
        match slot {
            Slot::Occupied(mut occupied) => {
                let entry = occupied.get_mut();
                entry.count = entry.count.saturating_add(amount);
            }
            Slot::Vacant(vacant) => {
                let (value, is_text) = store(&mut self.arena, &mut self.live_bytes, probe);
                vacant.insert(Entry { value, count: amount, last_seen: 0, is_text });
            }
        }
    }

    /// Every count held, in no order.
    pub(crate) fn counts(&self) -> impl Iterator<Item = u64> + '_ {
        self.table.iter().map(|e| e.count)
    }

    /// Every item held with its count, in no order (numbers written out).
    pub(crate) fn for_each(&self, mut each: impl FnMut(&[u8], u64)) {
        let mut number = Vec::new();
        for entry in self.table.iter() {
            match entry.is_text {
                false => {
                    number.clear();
                    write_u64(&mut number, entry.value).expect("writing to a Vec");
                    each(&number, entry.count);
                }
                true => each(stored_text(&self.arena, entry.value), entry.count),
            }
        }
    }

    /// Adds every count of `other` (a table of other documents), as one source numbered
    /// `seen`, and its undercount.
    pub fn add_counts(&mut self, other: &ItemCounts, seen: u64) {
        for entry in other.table.iter() {
            let probe = match entry.is_text {
                false => Probe::Number(entry.value),
                true => Probe::Text(stored_text(&other.arena, entry.value)),
            };
            if !self.add_probe_if_room(probe, entry.count, seen) {
                self.add_probe_overflow(probe, entry.count, seen);
            }
        }
        self.add_undercount(other.undercount());
    }

    /// Brings the table back to at most `capacity` items: with v the (capacity + 1)-th largest
    /// count, every count drops by v and those at zero go. Every true count is then at most
    /// `undercount` above the count held (or above 0 for an item that went).
    fn reduce(&mut self) {
        self.counts.clear();
        self.counts.extend(self.table.iter().map(|e| e.count));
        let at = self.capacity;
        let (_, &mut cut, _) = self.counts.select_nth_unstable_by(at, |a, b| b.cmp(a));
        self.undercount = self.undercount.saturating_add(cut);
        self.lower_all(cut);
    }

    /// Lowers every count by `cut`; items at or below it go. The undercount is the caller's.
    pub(crate) fn lower_all(&mut self, cut: u64) {
        // Rebuilt rather than thinned in place: erasing most entries would leave tombstones
        // that every later lookup of a new item probes through.
        let mut freed = 0;
        self.survivors.clear();
        for entry in self.table.drain() {
            match entry.count.saturating_sub(cut) {
                0 => freed += entry.arena_bytes(&self.arena),
                count => self.survivors.push(Entry { count, ..entry }),
            }
        }
        let (arena, hasher) = (&self.arena, &self.hasher);
        for &entry in &self.survivors {
            self.table
                .insert_unique(entry.rehash(hasher, arena), entry, |e| e.rehash(hasher, arena));
        }
        self.live_bytes -= freed;
        if self.arena.len() > 2 * self.live_bytes + (1 << 20) {
            self.compact_arena();
        }
    }

    /// Moves the text of the items held to a new arena, leaving out that of items gone.
    fn compact_arena(&mut self) {
        // Hashes do not change: the text does not, only where it is.
        let mut arena = Vec::with_capacity(self.live_bytes);
        for entry in self.table.iter_mut().filter(|e| e.is_text) {
            let from = entry.value as usize;
            let bytes = entry.arena_bytes(&self.arena);
            entry.value = arena.len() as u64;
            arena.extend_from_slice(&self.arena[from..from + bytes]);
        }
        self.arena = arena;
    }

    /// Every item with its count, by decreasing count, then by item bytes: the table's order.
    pub fn sorted(&self) -> SortedItems {
        let mut text = Vec::new();
        let mut items = Vec::with_capacity(self.table.len());
        for entry in self.table.iter() {
            let start = text.len();
            match entry.is_text {
                false => write_u64(&mut text, entry.value).expect("writing to a Vec"),
                true => text.extend_from_slice(stored_text(&self.arena, entry.value)),
            }
            items.push((start, text.len(), entry.count));
        }
        items.sort_unstable_by(|a, b| {
            b.2.cmp(&a.2).then_with(|| text[a.0..a.1].cmp(&text[b.0..b.1]))
        });
        SortedItems { text, items }
    }
}

#[inline]
fn count_once(entry: &mut Entry, amount: u64, seen: u64) {
    if entry.last_seen != seen {
        entry.last_seen = seen;
        entry.count = entry.count.saturating_add(amount);
    }
}

/// The value and kind of a new entry, its text copied into the arena when it is no number.
fn store(arena: &mut Vec<u8>, live_bytes: &mut usize, probe: Probe<'_>) -> (u64, bool) {
    match probe {
        Probe::Number(value) => (value, false),
        Probe::Text(text) => {
            let at = arena.len() as u64;
            arena.extend_from_slice(&(text.len() as u64).to_le_bytes());
            arena.extend_from_slice(text);
            *live_bytes += LEN_BYTES + text.len();
            (at, true)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;

    use super::*;

    /// Counts documents the way sh-df does: items held first, those without room after.
    fn count(docs: &[Vec<u16>], capacity: usize) -> ItemCounts {
        let mut counts = ItemCounts::new(capacity);
        for (n, doc) in docs.iter().enumerate() {
            let mut overflow = BTreeSet::new();
            for item in doc {
                let text = format!("i{item}");
                if !counts.add_if_room(text.as_bytes(), 1, n as u64) {
                    overflow.insert(text);
                }
            }
            for text in overflow {
                counts.add_overflow(text.as_bytes(), 1, n as u64);
            }
        }
        counts
    }

    fn exact(docs: &[Vec<u16>]) -> BTreeMap<String, u64> {
        let mut df = BTreeMap::new();
        for doc in docs {
            for item in doc.iter().collect::<BTreeSet<_>>() {
                *df.entry(format!("i{item}")).or_insert(0) += 1;
            }
        }
        df
    }

    fn docs(vocabulary: u16) -> impl Strategy<Value = Vec<Vec<u16>>> {
        // Skewed item choice (the square of a uniform value), so that some items are heavy.
        let item =
            (0..vocabulary).prop_map(move |x| ((x as u32 * x as u32) / vocabulary as u32) as u16);
        prop::collection::vec(prop::collection::vec(item, 0..30), 0..120)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// While everything fits, the counts are the exact document frequencies.
        #[test]
        fn exact_while_within_capacity(docs in docs(200)) {
            let truth = exact(&docs);
            let counts = count(&docs, truth.len().max(1));
            prop_assert_eq!(counts.undercount(), 0);
            let got: BTreeMap<String, u64> = counts.sorted().iter()
                .map(|(t, c)| (String::from_utf8(t.to_vec()).unwrap(), c)).collect();
            prop_assert_eq!(got, truth);
        }

        /// Beyond the capacity: at most `capacity` items; no count above the truth or more than
        /// the undercount below it; every item whose true count exceeds the undercount is held;
        /// and the undercount is at most the Misra-Gries bound, occurrences / (capacity + 1).
        #[test]
        fn heavy_hitters_within_the_error_bound(docs in docs(300), capacity in 1usize..40) {
            let truth = exact(&docs);
            let counts = count(&docs, capacity);
            let held: BTreeMap<String, u64> = counts.sorted().iter()
                .map(|(t, c)| (String::from_utf8(t.to_vec()).unwrap(), c)).collect();
            prop_assert!(held.len() <= capacity);
            let e = counts.undercount();
            let occurrences: u64 = truth.values().sum();
            prop_assert!(e <= occurrences / (capacity as u64 + 1), "{} > {}", e, occurrences);
            for (item, &true_count) in &truth {
                match held.get(item) {
                    Some(&c) => prop_assert!(c <= true_count && c + e >= true_count,
                        "{}: held {} true {} undercount {}", item, c, true_count, e),
                    None => prop_assert!(true_count <= e, "{} missing with {} > {}", item, true_count, e),
                }
            }
            for item in held.keys() {
                prop_assert!(truth.contains_key(item));
            }
        }
    }

    #[test]
    fn repeats_in_one_document_count_once_and_the_arena_stays_small() {
        let mut counts = ItemCounts::new(3);
        let docs = 100_000u64;
        for doc in 0..docs {
            // Two heavy items in every document (one of them twice), and a new light one.
            for item in [&b"heavy-a"[..], b"heavy-b", b"heavy-a"] {
                assert!(counts.add_if_room(item, 1, doc), "heavy items stay held");
            }
            let light = format!("light-{doc}-{}", "x".repeat(40));
            if !counts.add_if_room(light.as_bytes(), 1, doc) {
                counts.add_overflow(light.as_bytes(), 1, doc);
            }
        }
        let e = counts.undercount();
        assert!(e > 0 && e <= 3 * docs / 4, "undercount {e}");
        for heavy in [&b"heavy-a"[..], b"heavy-b"] {
            let held = counts.get(heavy).unwrap();
            assert!(held <= docs && held + e >= docs, "held {held}, undercount {e}");
        }
        assert!(counts.len() <= 3);
        assert!(counts.arena.len() < (1 << 21), "arena holds {} bytes", counts.arena.len());
        assert_eq!(counts.get(b"light-5"), None);
    }
}
