//! The pair graph as it is read: ids interned in order of first appearance, pairs joined in the
//! union-find.
//!
//! Pairs are handled in batches so that the random memory reads of many pairs overlap: on ten
//! million pairs of random ids nearly every read misses the cache, and one at a time they would
//! be waited for one after another. A batch first looks its numbers up without adding them,
//! then interns its ids in input order, reads the nodes' parents and grandparents, and only then
//! joins the pairs; each of those loops does independent reads that the processor runs side by
//! side, and the later loops find their data in the cache.

use std::hint::black_box;
use std::ops::Range;

use sh_core::pairs::{Pair, PairId};

use sh_core::number::canonical_u64;

use crate::ids::{Interner, Names, TooManyIds};
use crate::union_find::UnionFind;

/// Pairs per batch: their cache lines (a few per id) stay well inside L2 and the TLB.
const BATCH: usize = 256;

/// An id waiting in the batch.
#[derive(Debug, Clone)]
enum Key {
    Number(u64),
    /// Bytes of `Graph::text`.
    Text(Range<usize>),
}

/// The ids and sets of the pairs read so far.
#[derive(Debug, Default)]
pub struct Graph {
    ids: Interner,
    sets: UnionFind,
    /// The ids of the batch's pairs, two per pair.
    keys: Vec<Key>,
    /// The text ids of the batch, copied out of the reader's line buffer.
    text: Vec<u8>,
    /// The line of each pair of the batch.
    lines: Vec<u64>,
    /// The nodes of the batch's ids.
    nodes: Vec<u32>,
}

/// More distinct ids than fit; the line that brought the first one too many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full {
    pub line: u64,
}

impl Graph {
    pub fn new() -> Graph {
        Graph::default()
    }

    /// Adds the pair read on `line`.
    #[inline]
    pub fn add(&mut self, line: u64, pair: Pair<'_>) -> Result<(), Full> {
        self.push_key(pair.a);
        self.push_key(pair.b);
        self.lines.push(line);
        if self.lines.len() == BATCH {
            self.flush()?;
        }
        Ok(())
    }

    #[inline]
    fn push_key(&mut self, id: PairId<'_>) {
        let key = match id {
            PairId::Number(value) => Key::Number(value),
            PairId::Text(text) => match canonical_u64(text) {
                Some(value) => Key::Number(value),
                None => {
                    let start = self.text.len();
                    self.text.extend_from_slice(text);
                    Key::Text(start..self.text.len())
                }
            },
        };
        self.keys.push(key);
    }

    /// Interns and joins the pairs of the batch.
    fn flush(&mut self) -> Result<(), Full> {
        let mut sink = 0u32;
        for key in &self.keys {
            if let Key::Number(value) = *key {
                sink ^= self.ids.touch_number(value);
            }
        }
        self.nodes.clear();
        for (n, key) in self.keys.iter().enumerate() {
            let node = match key {
                Key::Number(value) => self.ids.intern_number(*value),
                Key::Text(range) => self.ids.intern_text(&self.text[range.clone()]),
            };
            let node = node.map_err(|TooManyIds| Full { line: self.lines[n / 2] })?;
            if node as usize == self.sets.len() {
                self.sets.push();
            }
            self.nodes.push(node);
        }
        for &node in &self.nodes {
            sink ^= self.sets.touch(node);
        }
        black_box(sink);
        for pair in self.nodes.chunks_exact(2) {
            self.sets.union(pair[0], pair[1]);
        }
        self.keys.clear();
        self.text.clear();
        self.lines.clear();
        Ok(())
    }

    /// Handles the last batch and hands over the ids and the sets.
    pub fn finish(mut self) -> Result<(Names, UnionFind), Full> {
        self.flush()?;
        Ok((self.ids.into_names(), self.sets))
    }
}
