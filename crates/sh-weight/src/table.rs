//! The table's items as sh-weight holds them: in an open-addressed table of 32-byte slots,
//! found by their bytes' hash ([`ItemHasher`]) and compared by their bytes.
//!
//! With `--idf` the table holds every item of the corpus (hundreds of thousands to millions,
//! tens of megabytes), and finding an item is a miss of every cache. An item of up to
//! [`INLINE`] bytes (a 64-bit hash in decimal has at most 20) is held in its slot with its
//! count, and a slot is half a cache line, aligned: an item found where its hash points costs
//! one read of memory, and [`TableItems::prefetch`] can ask for that line before the item is
//! looked at, so that the reads of several items ahead overlap (`crate::ahead`).

use crate::items::ItemHasher;

/// Items of the table with their document counts.
#[derive(Debug, Default)]
pub(crate) struct TableItems {
    /// A power of two of slots (none before the first insert or reserve), at most 5/8 of them
    /// used.
    slots: Vec<Slot>,
    len: usize,
    /// The hash's bits past the slots' index: the index is `hash >> shift`.
    shift: u32,
    /// A bit per hash of the items held, set by [`TableItems::seal`], so that most items not
    /// held (nearly all, when only the items to leave out are) are found out without a probe
    /// of the table; empty when there is none.
    filter: Vec<u64>,
    /// The bytes of the items too long to be held in their slot.
    arena: Vec<u8>,
    hasher: ItemHasher,
}

/// Why [`TableItems::insert_hashed`] did not take an item in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The item is held already.
    Held,
    /// As many items as the capacity are held.
    Full,
}

/// The most bytes of an item held in its slot (a 64-bit hash in decimal has at most 20).
const INLINE: usize = 20;
/// An empty slot's tag.
const EMPTY: u32 = 0;
/// The low byte of the tag of a slot whose item is in the arena.
const LONG: u32 = 0xff;

/// An item held and its count, or nothing (`tag` [`EMPTY`]). An item of up to [`INLINE`]
/// bytes is in `bytes`, zeros after it; a longer one is in the arena, and `bytes` holds where
/// it starts and its length (two little-endian `u64`s). The tag's low byte is the length plus
/// one, or [`LONG`]; its other 24 bits are bits of the item's hash, so that a probe passes
/// nearly every slot of another item without comparing bytes.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
struct Slot {
    bytes: [u8; INLINE],
    tag: u32,
    count: u64,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 32);

/// The tag of a slot holding `item`, of hash `hash` (never [`EMPTY`]).
#[inline(always)]
fn tag_of(item: &[u8], hash: u64) -> u32 {
    let low = if item.len() <= INLINE { item.len() as u32 + 1 } else { LONG };
    (hash as u32) << 8 | low
}

impl Slot {
    /// Whether the slot holds `item`, whose tag is `tag`.
    #[inline(always)]
    fn holds(&self, item: &[u8], tag: u32, arena: &[u8]) -> bool {
        self.tag == tag
            && if tag & 0xff == LONG { self.long(arena) == item } else { self.inline_is(item) }
    }

    /// Whether the bytes held in the slot start with `item`, of at most [`INLINE`] bytes. From
    /// 8 bytes on, by three words that cover it (its first eight, middle eight and last
    /// eight), without a call.
    #[inline(always)]
    fn inline_is(&self, item: &[u8]) -> bool {
        let n = item.len();
        if n < 8 {
            return self.bytes[..n] == *item;
        }
        let word = |bytes: &[u8], at: usize| {
            u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
        };
        let held = &self.bytes[..n];
        let differ = |at| word(held, at) ^ word(item, at);
        differ(0) | differ(n / 2 - 4) | differ(n - 8) == 0
    }

    /// The item of a slot that is not empty.
    fn item<'a>(&'a self, arena: &'a [u8]) -> &'a [u8] {
        match self.tag & 0xff {
            LONG => self.long(arena),
            low => &self.bytes[..low as usize - 1],
        }
    }

    /// The item of a slot whose item is in the arena.
    fn long<'a>(&self, arena: &'a [u8]) -> &'a [u8] {
        let word = |at: usize| {
            u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes")) as usize
        };
        &arena[word(0)..word(0) + word(8)]
    }
}

/// The table grows past this many items held per eight slots.
const LOAD_EIGHTHS: usize = 5;

impl TableItems {
    /// The items held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The slot where the probe for an item of `hash` starts.
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        // The shift is 64 - log2(slots), so the index is below the slots' number; with no
        // slots (a default table, shift 0) it is never called.
        (hash >> self.shift) as usize
    }

    /// Where `item` (hash `hash`, tag `tag`) is held, or the empty slot where it would go.
    #[inline(always)]
    fn probe(&self, hash: u64, item: &[u8], tag: u32) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(hash);
        loop {
            let slot = &self.slots[at];
            if slot.tag == EMPTY {
                return Err(at);
            }
            if slot.holds(item, tag, &self.arena) {
                return Ok(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// [`TableItems::insert_hashed`], the hash worked out.
    #[cfg(test)]
    pub(crate) fn insert(
        &mut self,
        item: &[u8],
        count: u64,
        capacity: usize,
    ) -> Result<(), Refused> {
        self.insert_hashed(self.hasher.hash(item), item, count, capacity)
    }

    /// Holds `item`, whose hash by [`TableItems::hasher`] is `hash`, with `count`, unless it is
    /// held already or `capacity` items are (nothing then changes).
    pub(crate) fn insert_hashed(
        &mut self,
        hash: u64,
        item: &[u8],
        count: u64,
        capacity: usize,
    ) -> Result<(), Refused> {
        let tag = tag_of(item, hash);
        self.filter = Vec::new(); // until sealed again
        if !self.slots.is_empty() && self.probe(hash, item, tag).is_ok() {
            return Err(Refused::Held);
        }
        if self.len >= capacity {
            return Err(Refused::Full);
        }
        if (self.len + 1) * 8 > self.slots.len() * LOAD_EIGHTHS {
            self.grow();
        }
        let mut slot = Slot { bytes: [0; INLINE], tag, count };
        if tag & 0xff == LONG {
            slot.bytes[..8].copy_from_slice(&(self.arena.len() as u64).to_le_bytes());
            slot.bytes[8..16].copy_from_slice(&(item.len() as u64).to_le_bytes());
            self.arena.extend_from_slice(item);
        } else {
            slot.bytes[..item.len()].copy_from_slice(item);
        }
        let at = self.probe(hash, item, tag).expect_err("the item is not held");
        self.slots[at] = slot;
        self.len += 1;
        Ok(())
    }

    /// Makes room for `items` items in all: the table does not grow again until it holds
    /// them.
    pub(crate) fn reserve(&mut self, items: usize) {
        let mut size = self.slots.len().max(16);
        while items.saturating_mul(8) > size.saturating_mul(LOAD_EIGHTHS) {
            match size.checked_mul(2) {
                Some(twice) => size = twice,
                None => break,
            }
        }
        if size > self.slots.len() {
            self.resize(size);
        }
    }

    /// Twice the slots (16 at first).
    fn grow(&mut self) {
        self.resize((2 * self.slots.len()).max(16));
    }

    /// `size` slots (a power of two, more than the items), every item moved to its place
    /// among them.
    fn resize(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        self.shift = 64 - size.trailing_zeros();
        let mask = size - 1;
        for slot in old.into_iter().filter(|slot| slot.tag != EMPTY) {
            let mut at = self.home(self.hasher.hash(slot.item(&self.arena)));
            while self.slots[at].tag != EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
        }
    }

    /// Ends the inserts: builds the filter, of about 16 bits per item held (none past 2^20
    /// bits, 128 KiB, where it would no longer stay in a cache near the core).
    pub(crate) fn seal(&mut self) {
        let bits = (16 * self.len).next_power_of_two().max(64);
        self.filter = Vec::new();
        if bits > FILTER_BITS_MAX {
            return;
        }
        self.filter = vec![0; bits / 64];
        for slot in self.slots.iter().filter(|slot| slot.tag != EMPTY) {
            let (word, bit) = filter_place(self.hasher.hash(slot.item(&self.arena)), bits);
            self.filter[word] |= bit;
        }
    }

    /// Whether finding items is worth asking for their slots ahead ([`TableItems::prefetch`]):
    /// items are held, and no filter answers for most of them from a cache near the core.
    pub(crate) fn far(&self) -> bool {
        self.len > 0 && self.filter.is_empty()
    }

    /// Asks for the cache line of the slot where an item of `hash` would be found first, so
    /// that [`TableItems::get`] finds it near; no effect on what is found.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if self.slots.is_empty() {
            return;
        }
        let slot: *const Slot = &self.slots[self.home(hash)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch reads nothing that the program sees and cannot fault; the address
        // is that of a slot. SSE, which the instruction needs, is in every x86-64.
        #[allow(unsafe_code, unused_unsafe)]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(slot.cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// The count of `item`, whose hash by [`TableItems::hasher`] is `hash`, if it is held.
    #[inline(always)]
    pub(crate) fn get(&self, hash: u64, item: &[u8]) -> Option<u64> {
        if !self.filter.is_empty() {
            let (word, bit) = filter_place(hash, 64 * self.filter.len());
            if self.filter[word] & bit == 0 {
                return None;
            }
        }
        if self.slots.is_empty() {
            return None;
        }
        self.probe(hash, item, tag_of(item, hash)).ok().map(|at| self.slots[at].count)
    }

    /// The hasher whose hashes [`TableItems::get`] takes.
    pub(crate) fn hasher(&self) -> &ItemHasher {
        &self.hasher
    }
}

/// The most bits of a [`TableItems`] filter.
const FILTER_BITS_MAX: usize = 1 << 20;

/// The word and bit of a filter of `bits` bits (a power of two) for an item of `hash`: from
/// the hash's middle bits, as the slots' index takes its top bits.
#[inline]
fn filter_place(hash: u64, bits: usize) -> (usize, u64) {
    let place = (hash >> 24) as usize & (bits - 1);
    (place / 64, 1 << (place % 64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_bytes() {
        let mut items = TableItems::default();
        for (item, count) in [(&b"7"[..], 3), (b"007", 5), (b"", 1), (b"18446744073709551616", 2)] {
            assert_eq!(items.insert(item, count, 5), Ok(()));
        }
        assert_eq!(items.insert(b"007", 9, 5), Err(Refused::Held));
        assert_eq!(items.insert(b"0007", 9, 4), Err(Refused::Full));
        assert_eq!(items.insert(b"007", 9, 4), Err(Refused::Held), "held, whatever the room");
        let hasher = items.hasher();
        let get = |item: &[u8]| items.get(hasher.hash(item), item);
        assert_eq!(
            [get(b"7"), get(b"007"), get(b"07"), get(b""), get(b"18446744073709551616")],
            [Some(3), Some(5), None, Some(1), Some(2)]
        );
        assert_eq!(items.len(), 4);
    }

    /// Items held in their entries and in the arena, on both sides of the limit, many of
    /// them (the table grows and moves its entries).
    #[test]
    fn short_and_long_items() {
        let item = |n: usize| format!("{n:0>width$}", width = [1, 19, 20, 21, 40, 300][n % 6]);
        let mut items = TableItems::default();
        for n in 0..5000 {
            assert_eq!(items.insert(item(n).as_bytes(), n as u64, usize::MAX), Ok(()));
        }
        for n in 0..5000 {
            assert_eq!(items.insert(item(n).as_bytes(), 0, usize::MAX), Err(Refused::Held));
        }
        let hasher = items.hasher();
        for n in 0..5000 {
            let text = item(n);
            assert_eq!(items.get(hasher.hash(text.as_bytes()), text.as_bytes()), Some(n as u64));
            let longer = format!("{text}x");
            assert_eq!(items.get(hasher.hash(longer.as_bytes()), longer.as_bytes()), None);
        }
        assert_eq!(items.len(), 5000);
    }

    /// Sealed, a table finds what it found before (its filter answers only for items not
    /// held), at sizes with a filter of 64 bits to 2^20 and past it (no filter); inserts after
    /// the seal are found too.
    #[test]
    fn a_sealed_table_finds_the_same_items() {
        let held = |n: u64| n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_string();
        let other = |n: u64| held((n + 1) << 40);
        for size in [0, 1, 3, 100, 3000, 65_536, 70_000] {
            let mut items = TableItems::default();
            for n in 0..size {
                items.insert(held(n).as_bytes(), n + 1, usize::MAX).unwrap();
            }
            items.seal();
            let filtered = !items.filter.is_empty();
            assert_eq!(filtered, 16 * size <= 1 << 20, "{size}");
            let hasher = items.hasher();
            let get = |text: &str| items.get(hasher.hash(text.as_bytes()), text.as_bytes());
            for n in 0..size {
                assert_eq!(get(&held(n)), Some(n + 1));
            }
            let mut passed = 0;
            for n in 0..10_000 {
                let text = other(n);
                assert_eq!(get(&text), None);
                if filtered {
                    let (word, bit) =
                        filter_place(hasher.hash(text.as_bytes()), 64 * items.filter.len());
                    passed += usize::from(items.filter[word] & bit != 0);
                }
            }
            if filtered {
                // About one in 16 items not held passes the filter (the table is then probed).
                assert!(passed < 10_000 / 8, "{size}: {passed} of 10000 passed the filter");
                assert!(!items.far(), "{size}: a filter answers first");
            } else {
                // No filter: every lookup probes the table, whose slots are read ahead.
                assert!(items.far(), "{size}: held past the filter's limit");
            }
            items.insert(b"late", 7, usize::MAX).unwrap();
            assert_eq!(items.get(items.hasher().hash(b"late"), b"late"), Some(7));
        }
    }

    /// A slot holds its item only: not another of the same length whose tag is the same (the
    /// 24 bits of the hash beside it alike), whichever byte differs, for every length a slot
    /// holds and for an item in the arena.
    #[test]
    fn a_slot_holds_its_own_bytes_only() {
        for n in 0..=INLINE + 1 {
            let item: Vec<u8> = (0..n).map(|i| b'0' + (i * 7 % 10) as u8).collect();
            let mut items = TableItems::default();
            items.insert(&item, 1, usize::MAX).unwrap();
            let slot = items.slots.iter().find(|slot| slot.tag != EMPTY).unwrap();
            let (tag, arena) = (slot.tag, &items.arena);
            assert!(slot.holds(&item, tag, arena), "length {n}");
            for at in 0..n {
                let mut other = item.clone();
                other[at] ^= 0x40;
                assert!(!slot.holds(&other, tag, arena), "length {n}, byte {at}");
            }
        }
    }

    /// Room made ahead holds the items without growing, and finds what it held before.
    #[test]
    fn room_made_ahead() {
        let mut items = TableItems::default();
        items.insert(b"12", 3, usize::MAX).unwrap();
        items.reserve(10_000);
        let slots = items.slots.len();
        assert!(slots * LOAD_EIGHTHS >= 10_000 * 8 && slots < 2 * 10_000 * 8 / LOAD_EIGHTHS);
        for n in 0..9_999u64 {
            items.insert((n * 7 + 100).to_string().as_bytes(), n + 1, usize::MAX).unwrap();
        }
        assert_eq!(items.slots.len(), slots);
        let hasher = items.hasher().clone();
        assert_eq!(items.get(hasher.hash(b"12"), b"12"), Some(3));
        assert_eq!(items.get(hasher.hash(b"107"), b"107"), Some(2));
        items.reserve(5);
        assert_eq!(items.slots.len(), slots, "never fewer slots");
    }

    /// The table against a map of the same items: random items of every length around the
    /// slot's limit (many sharing their first bytes or their length), held and asked for,
    /// with the capacity reached; sealed or not.
    mod against_a_map {
        use super::*;
        use proptest::prelude::*;
        use std::collections::HashMap;

        fn item() -> impl Strategy<Value = Vec<u8>> {
            prop_oneof![
                prop::collection::vec(b'0'..=b'3', 0..4),
                prop::collection::vec(b'0'..=b'1', 18..23),
                prop::collection::vec(any::<u8>(), 0..40),
            ]
        }

        proptest! {
            #[test]
            fn finds_what_a_map_finds(
                held in prop::collection::vec((item(), 1u64..1000), 0..300),
                asked in prop::collection::vec(item(), 0..100),
                capacity in 0usize..400,
                sealed: bool,
            ) {
                let mut items = TableItems::default();
                let mut map = HashMap::new();
                for (item, count) in &held {
                    let want = if map.contains_key(item) {
                        Err(Refused::Held)
                    } else if map.len() >= capacity {
                        Err(Refused::Full)
                    } else {
                        map.insert(item.clone(), *count);
                        Ok(())
                    };
                    prop_assert_eq!(items.insert(item, *count, capacity), want);
                }
                if sealed {
                    items.seal();
                }
                prop_assert_eq!(items.len(), map.len());
                let hasher = items.hasher().clone();
                for item in asked.iter().chain(held.iter().map(|(item, _)| item)) {
                    items.prefetch(hasher.hash(item));
                    prop_assert_eq!(items.get(hasher.hash(item), item), map.get(item).copied());
                }
            }
        }
    }
}
