//! Interning ids: every distinct id becomes a node number `0, 1, 2, …` in order of first
//! appearance, and is stored once.
//!
//! An id that is a canonical decimal u64 (digits only, no leading zero unless it is `0`) is kept
//! as its value, with no bytes stored: `7` and `007` are different ids, `007` being text. Small
//! values (sh-pairs prints line numbers when its input has no ids) go through a directly indexed
//! array; the rest through a hash table. Other ids are stored once in a byte arena and found
//! through a hash table that holds only their node number.
//!
//! Memory per distinct id:
//! - every id: 8 bytes (its value, or its place in the arena) and one bit (number or text);
//! - a number found through the direct array: that array holds at most
//!   [`DENSE_SLOTS_PER_ID`] slots of 4 bytes per distinct id (plus a fixed 256 KiB), fewer when
//!   the numbers are dense (4 bytes per id for the line numbers 1..n);
//! - a number found through the hash table: 13 bytes per slot at between 7/16 and 7/8 load,
//!   so 15 to 30 bytes;
//! - a text id: its bytes plus a 1- to 5-byte length, and 5 bytes per slot of its table (6 to
//!   12 bytes per id).
//!
//! With the union-find's 8 bytes per node that makes about 20 bytes per id for line numbers,
//! 30 to 50 for scattered 64-bit numbers (the hash table briefly holds old and new slots while it
//! grows), and 25 to 30 plus the text for other ids.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;

/// One id, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeName<'a> {
    /// A canonical decimal u64.
    Number(u64),
    /// Any other id.
    Text(&'a [u8]),
}

/// More distinct ids than node numbers (`u32`) can count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyIds;

/// The most distinct ids: node numbers and `node + 1` both fit a `u32`, with `u32::MAX` left
/// free as a marker.
pub const MAX_IDS: usize = u32::MAX as usize - 1;

/// The direct array may grow to this many slots per distinct id (plus [`DENSE_SLACK`]); beyond
/// that density a number goes to the hash table. At 1/8 density the array costs 32 bytes per id,
/// about what the hash table would, and it is several times faster.
pub const DENSE_SLOTS_PER_ID: usize = 8;
const DENSE_SLACK: usize = 1 << 16;
const DENSE_FIRST: usize = 1 << 12;

/// The ids seen so far, without the tables that find them: what printing needs.
#[derive(Debug, Default)]
pub struct Names {
    /// Per node: the number, or where the text's length and bytes start in `arena`.
    keys: Vec<u64>,
    /// Per node, one bit: set for a text id.
    is_text: Vec<u64>,
    /// Text ids, each a LEB128 length and the bytes.
    arena: Vec<u8>,
}

impl Names {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// The id of `node`, which must be below `len()`.
    #[inline]
    pub fn get(&self, node: u32) -> NodeName<'_> {
        let node = node as usize;
        if self.is_text[node / 64] >> (node % 64) & 1 == 1 {
            NodeName::Text(self.text_at(self.keys[node] as usize))
        } else {
            NodeName::Number(self.keys[node])
        }
    }

    #[inline]
    fn text_at(&self, start: usize) -> &[u8] {
        let mut len = 0usize;
        let mut shift = 0;
        let mut at = start;
        loop {
            let byte = self.arena[at];
            at += 1;
            len |= usize::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        &self.arena[at..at + len]
    }

    fn push(&mut self, key: u64, is_text: bool) -> Result<u32, TooManyIds> {
        let node = self.keys.len();
        if node >= MAX_IDS {
            return Err(TooManyIds);
        }
        if node.is_multiple_of(64) {
            self.is_text.push(0);
        }
        if is_text {
            self.is_text[node / 64] |= 1 << (node % 64);
        }
        self.keys.push(key);
        Ok(node as u32)
    }

    fn push_text(&mut self, text: &[u8]) -> Result<u32, TooManyIds> {
        let start = self.arena.len();
        let node = self.push(start as u64, true)?;
        let mut len = text.len();
        while len >= 0x80 {
            self.arena.push(len as u8 | 0x80);
            len >>= 7;
        }
        self.arena.push(len as u8);
        self.arena.extend_from_slice(text);
        Ok(node)
    }
}

/// A number in the hash table: its value (as two halves, so an entry takes 12 bytes, not 16) and
/// its node.
#[derive(Debug, Clone, Copy)]
struct NumberEntry {
    low: u32,
    high: u32,
    node: u32,
}

impl NumberEntry {
    fn value(&self) -> u64 {
        u64::from(self.high) << 32 | u64::from(self.low)
    }
}

/// Gives each distinct id a node number, in order of first appearance.
#[derive(Debug, Default)]
pub struct Interner {
    names: Names,
    /// `dense[v]` is the node of the number `v` plus one, or 0 when `v` was not seen.
    dense: Vec<u32>,
    numbers: HashTable<NumberEntry>,
    /// The nodes of the text ids.
    texts: HashTable<u32>,
    hasher: RandomState,
}

impl Interner {
    /// How many distinct ids were seen.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The id of `node`.
    #[cfg(test)]
    pub fn get(&self, node: u32) -> NodeName<'_> {
        self.names.get(node)
    }

    /// Drops the look-up tables and keeps the ids.
    pub fn into_names(self) -> Names {
        self.names
    }

    /// The node of the id spelled `text`: a number if it is a canonical decimal u64.
    #[cfg(test)]
    pub fn intern(&mut self, text: &[u8]) -> Result<u32, TooManyIds> {
        match sh_core::number::canonical_u64(text) {
            Some(value) => self.intern_number(value),
            None => self.intern_text(text),
        }
    }

    /// The node of a numeric id.
    #[inline]
    pub fn intern_number(&mut self, value: u64) -> Result<u32, TooManyIds> {
        if value < self.dense.len() as u64 || self.grow_dense_to_hold(value) {
            let slot = self.dense[value as usize];
            if slot != 0 {
                return Ok(slot - 1);
            }
            let node = self.names.push(value, false)?;
            self.dense[value as usize] = node + 1;
            return Ok(node);
        }
        let hash = self.hasher.hash_one(value);
        let found = self.numbers.find(hash, |e| e.value() == value);
        if let Some(entry) = found {
            return Ok(entry.node);
        }
        let node = self.names.push(value, false)?;
        let entry = NumberEntry { low: value as u32, high: (value >> 32) as u32, node };
        let hasher = &self.hasher;
        self.numbers.insert_unique(hash, entry, |e| hasher.hash_one(e.value()));
        Ok(node)
    }

    /// Looks `value` up without adding it, and returns something computed from what was found:
    /// for bringing the places of many numbers into the cache with independent reads before
    /// interning them one by one.
    #[inline]
    pub fn touch_number(&self, value: u64) -> u32 {
        if value < self.dense.len() as u64 {
            return self.dense[value as usize];
        }
        let hash = self.hasher.hash_one(value);
        self.numbers.find(hash, |e| e.value() == value).map_or(0, |e| e.node)
    }

    /// Grows the direct array to hold `value` if that keeps it within its bound, moving the
    /// numbers it now covers out of the hash table. It at least doubles each time, so the moves
    /// add up to a few passes over the table.
    #[cold]
    fn grow_dense_to_hold(&mut self, value: u64) -> bool {
        let bound = DENSE_SLOTS_PER_ID.saturating_mul(self.len() + 1).saturating_add(DENSE_SLACK);
        let want = value.saturating_add(1).max(2 * self.dense.len() as u64).max(DENSE_FIRST as u64);
        if want > bound as u64 {
            return false;
        }
        let new_len = want as usize;
        self.dense.resize(new_len, 0);
        if !self.numbers.is_empty() {
            for entry in self.numbers.extract_if(|e| e.value() < new_len as u64) {
                self.dense[entry.value() as usize] = entry.node + 1;
            }
        }
        true
    }

    /// The node of an id that is not a canonical number (the caller checked).
    pub fn intern_text(&mut self, text: &[u8]) -> Result<u32, TooManyIds> {
        let hash = self.hasher.hash_one(text);
        let names = &self.names;
        if let Some(&node) = self.texts.find(hash, |&node| names.get(node) == NodeName::Text(text))
        {
            return Ok(node);
        }
        let node = self.names.push_text(text)?;
        let (names, hasher) = (&self.names, &self.hasher);
        self.texts.insert_unique(hash, node, |&node| match names.get(node) {
            NodeName::Text(text) => hasher.hash_one(text),
            NodeName::Number(value) => hasher.hash_one(value),
        });
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_and_double_o_seven_are_different_ids() {
        let mut ids = Interner::default();
        let seven = ids.intern(b"7").unwrap();
        let text = ids.intern(b"007").unwrap();
        assert_ne!(seven, text);
        assert_eq!(ids.intern(b"7").unwrap(), seven);
        assert_eq!(ids.intern_number(7).unwrap(), seven);
        assert_eq!(ids.intern(b"007").unwrap(), text);
        assert_eq!(ids.get(seven), NodeName::Number(7));
        assert_eq!(ids.get(text), NodeName::Text(b"007"));
        assert_eq!(ids.len(), 2);
    }

    #[test]
    fn nodes_are_numbered_in_order_of_first_appearance() {
        let mut ids = Interner::default();
        let spelled: [&[u8]; 7] = [b"b", b"12", b"a", b"", b"18446744073709551615", b"\xff", b"0"];
        for (n, text) in spelled.iter().enumerate() {
            assert_eq!(ids.intern(text).unwrap(), n as u32);
        }
        for (n, text) in spelled.iter().enumerate().rev() {
            assert_eq!(ids.intern(text).unwrap(), n as u32);
        }
        let names = ids.into_names();
        assert_eq!(names.get(0), NodeName::Text(b"b"));
        assert_eq!(names.get(1), NodeName::Number(12));
        assert_eq!(names.get(3), NodeName::Text(b""));
        assert_eq!(names.get(4), NodeName::Number(u64::MAX));
        assert_eq!(names.get(5), NodeName::Text(b"\xff"));
        assert_eq!(names.get(6), NodeName::Number(0));
    }

    #[test]
    fn long_texts_keep_their_length() {
        let mut ids = Interner::default();
        let long: Vec<u8> = (0..100_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let node = ids.intern(&long).unwrap();
        let short = ids.intern(&long[..200]).unwrap();
        assert_eq!(ids.get(node), NodeName::Text(&long));
        assert_eq!(ids.get(short), NodeName::Text(&long[..200]));
    }

    #[test]
    fn sparse_numbers_move_into_the_direct_array_as_it_grows() {
        let mut ids = Interner::default();
        // Big values go to the hash table first; as more ids arrive the direct array grows over
        // them, and they must be found, not added again.
        let values: Vec<u64> = (0..20_000u64).map(|i| (i * 7919) % 1_000_003).collect();
        let nodes: Vec<u32> = values.iter().map(|&v| ids.intern_number(v).unwrap()).collect();
        assert!(ids.dense.len() > DENSE_FIRST, "the direct array grew");
        for (&v, &node) in values.iter().zip(&nodes) {
            assert_eq!(ids.intern_number(v).unwrap(), node);
            assert_eq!(ids.get(node), NodeName::Number(v));
        }
        assert_eq!(ids.len(), 20_000);
        let huge = ids.intern_number(u64::MAX - 1).unwrap();
        assert_eq!(ids.intern(b"18446744073709551614").unwrap(), huge);
        assert!(!ids.numbers.is_empty());
    }

    #[test]
    fn the_direct_array_stays_within_its_bound() {
        let mut ids = Interner::default();
        for i in 0..1000u64 {
            ids.intern_number(i * 1_000_000).unwrap();
        }
        assert!(ids.dense.len() <= DENSE_SLOTS_PER_ID * (ids.len() + 1) + DENSE_SLACK);
    }
}
