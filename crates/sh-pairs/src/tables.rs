//! Everything about the tables of the permuted-table method: how 64 bits are cut into B blocks,
//! which B-K blocks make each of the C(B, K) tables and in what order, and which table reports
//! a pair (the first-table rule).
//!
//! Block 0 holds the most significant bits; boundaries fall at `floor(i * 64 / B)` counted from
//! bit 0, the layout of the seomoz tools (for B = 6: 63–53, 52–42, 41–32, 31–21, 20–10, 9–0).
//! A table is a set of B-K blocks, written as a bit set ([`Table`], bit j = block j); tables are
//! numbered from 0 in lexicographic order of their sorted block lists.

use sh_core::{Error, Result};

/// A table: a set of blocks, bit j standing for block j.
pub type Table = u64;

/// The bit masks of B blocks, most significant block first.
#[derive(Debug, Clone)]
pub struct Blocks {
    masks: Vec<u64>,
}

impl Blocks {
    /// `count` blocks, 1 to 64.
    pub fn new(count: u32) -> Blocks {
        assert!((1..=64).contains(&count), "1 to 64 blocks");
        let boundary = |i: u32| (u64::from(i) * 64 / u64::from(count)) as u32;
        let masks = (0..count)
            .rev()
            .map(|i| {
                let (low, high) = (boundary(i), boundary(i + 1));
                let width = high - low;
                let ones = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                ones << low
            })
            .collect();
        Blocks { masks }
    }

    /// B, the number of blocks.
    pub fn count(&self) -> usize {
        self.masks.len()
    }

    /// The bits of block `block`.
    pub fn mask(&self, block: usize) -> u64 {
        self.masks[block]
    }

    /// The blocks on which two fingerprints with XOR `x` agree.
    pub fn agreeing(&self, x: u64) -> Table {
        self.masks
            .iter()
            .enumerate()
            .filter(|(_, &m)| x & m == 0)
            .fold(0, |table, (j, _)| table | 1 << j)
    }
}

/// C(n, k), exactly: n is at most 64, so every value fits in a u64 (C(64, 32) < 2^61).
pub fn binomial(n: u32, k: u32) -> u64 {
    let k = k.min(n - k);
    let mut value: u128 = 1;
    for i in 0..k {
        value = value * u128::from(n - i) / u128::from(i + 1);
    }
    value as u64
}

/// The C(B, K) tables of a search within K bits over B blocks; or, when its reach is above K,
/// of a search that finds the pairs within K bits and those within the reach that differ in at
/// most K blocks (every pair that agrees on the blocks of some table).
#[derive(Debug, Clone)]
pub struct Tables {
    blocks: Blocks,
    k: u32,
    reach: u32,
    count: u64,
}

impl Tables {
    /// The tables for B = `blocks` and K = `k`: a usage error unless K < B <= 64.
    pub fn new(blocks: u32, k: u32) -> Result<Tables> {
        if !(1..=64).contains(&blocks) || blocks <= k {
            return Err(Error::usage(format!(
                "--blocks ({blocks}) must be greater than --distance ({k}) and at most 64"
            )));
        }
        Ok(Tables { blocks: Blocks::new(blocks), k, reach: k, count: binomial(blocks, k) })
    }

    /// The tables for B = `blocks` and K = `k`, finding besides the pairs within K bits those
    /// within `reach` bits that differ in at most K blocks.
    pub fn reaching(blocks: u32, k: u32, reach: u32) -> Result<Tables> {
        Ok(Tables { reach: reach.max(k), ..Tables::new(blocks, k)? })
    }

    /// The largest distance of a pair found: K, or the reach.
    pub fn reach(&self) -> u32 {
        self.reach
    }

    /// Whether a pair with XOR `x` is one the search finds: within K bits, or within the reach
    /// and differing in at most K blocks.
    pub fn finds(&self, x: u64) -> bool {
        let distance = x.count_ones();
        distance <= self.k
            || (distance <= self.reach
                && self.blocks.agreeing(x).count_ones() as usize >= self.size())
    }

    /// How the bits are cut.
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// K: pairs within this many bits are found.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// B - K: the blocks of one table.
    pub fn size(&self) -> usize {
        self.blocks.count() - self.k as usize
    }

    /// C(B, K): how many tables there are.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The table that reports a pair with XOR `x`: the first in lexicographic order among those
    /// whose blocks all agree, which is the B-K lowest-numbered agreeing blocks. `None` when
    /// fewer than B-K blocks agree (the pair is further than K bits apart).
    pub fn first_table(&self, x: u64) -> Option<Table> {
        let needed = self.size();
        let mut agreeing = self.blocks.agreeing(x);
        if (agreeing.count_ones() as usize) < needed {
            return None;
        }
        let mut table = 0;
        for _ in 0..needed {
            let lowest = agreeing & agreeing.wrapping_neg();
            table |= lowest;
            agreeing ^= lowest;
        }
        Some(table)
    }

    /// Every table, in order: table number `rank` is the `rank`-th item.
    pub fn in_order(&self) -> InOrder {
        InOrder { chosen: (0..self.size()).collect(), blocks: self.blocks.count(), done: false }
    }

    /// Table number `rank`.
    pub fn unrank(&self, mut rank: u64) -> Table {
        let n = self.blocks.count() as u32;
        let size = self.size() as u32;
        let mut table = 0;
        let mut next = 0u32;
        for chosen in 0..size {
            loop {
                // Tables whose next block is `next`: the rest chosen from the blocks after it.
                let with_next = binomial(n - 1 - next, size - 1 - chosen);
                if rank < with_next {
                    table |= 1 << next;
                    next += 1;
                    break;
                }
                rank -= with_next;
                next += 1;
            }
        }
        table
    }

    /// The number of bits in the blocks of `table`.
    pub fn width(&self, table: Table) -> u32 {
        (0..self.blocks.count())
            .filter(|&j| table >> j & 1 == 1)
            .map(|j| self.blocks.mask(j).count_ones())
            .sum()
    }

    /// The bits of `fingerprint` in the blocks of `table`, most significant block first, and
    /// their number.
    pub fn bits(&self, table: Table, fingerprint: u64) -> (u64, u32) {
        let mut rest = table;
        let (mut bits, mut width) = (0u64, 0u32);
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mask = self.blocks.mask(j);
            let part = (fingerprint & mask) >> mask.trailing_zeros();
            let w = mask.count_ones();
            bits = bits.checked_shl(w).unwrap_or(0) | part;
            width += w;
        }
        (bits, width)
    }
}

/// The tables in lexicographic order of their sorted block lists, from [`Tables::in_order`].
#[derive(Debug, Clone)]
pub struct InOrder {
    /// The blocks of the next table, ascending.
    chosen: Vec<usize>,
    blocks: usize,
    done: bool,
}

impl Iterator for InOrder {
    type Item = Table;

    fn next(&mut self) -> Option<Table> {
        if self.done {
            return None;
        }
        let table = self.chosen.iter().fold(0, |table, &j| table | 1 << j);
        // The next choice: the last block that can still move moves by one, and the blocks
        // after it follow it closely.
        let (m, n) = (self.chosen.len(), self.blocks);
        match (0..m).rev().find(|&i| self.chosen[i] < n - m + i) {
            Some(i) => {
                self.chosen[i] += 1;
                for j in i + 1..m {
                    self.chosen[j] = self.chosen[j - 1] + 1;
                }
            }
            None => self.done = true,
        }
        Some(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_blocks_follow_the_seed_layout() {
        let blocks = Blocks::new(6);
        let spans: Vec<(u32, u32)> = (0..6)
            .map(|j| {
                let m = blocks.mask(j);
                (63 - m.leading_zeros(), m.trailing_zeros())
            })
            .collect();
        assert_eq!(spans, [(63, 53), (52, 42), (41, 32), (31, 21), (20, 10), (9, 0)]);
    }

    #[test]
    fn blocks_cover_every_bit_once() {
        for count in 1..=64 {
            let blocks = Blocks::new(count);
            let mut seen = 0u64;
            for j in 0..blocks.count() {
                assert_eq!(seen & blocks.mask(j), 0);
                assert_ne!(blocks.mask(j), 0);
                seen |= blocks.mask(j);
            }
            assert_eq!(seen, u64::MAX, "{count} blocks");
        }
    }

    /// The example of the seed's README: three differing bits in blocks B, D and E of six, so
    /// the table of blocks A, C and F reports the pair.
    #[test]
    fn seed_example_is_found_by_table_acf() {
        let corpus = u64::from_str_radix(
            "0100101110111011001000101111101110111100001010011101100110110101",
            2,
        )
        .unwrap();
        let query = u64::from_str_radix(
            "0100101110111011011000101111101110011100001010011100100110110101",
            2,
        )
        .unwrap();
        let x = corpus ^ query;
        assert_eq!(x.count_ones(), 3);
        let (a, c, f) = (1 << 0, 1 << 2, 1 << 5);
        assert_eq!(Blocks::new(6).agreeing(x), a | c | f);
        assert_eq!(Tables::new(6, 3).unwrap().first_table(x), Some(a | c | f));
        assert_eq!(Tables::new(6, 2).unwrap().first_table(x), None);
    }

    #[test]
    fn table_counts() {
        assert_eq!(binomial(6, 3), 20);
        assert_eq!(binomial(64, 61), 41664);
        assert_eq!(binomial(5, 5), 1);
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
    }

    #[test]
    fn k_and_b_are_checked_once_with_one_message() {
        for (blocks, k) in [(3, 3), (2, 3), (65, 3), (0, 0)] {
            let message = Tables::new(blocks, k).unwrap_err().to_string();
            assert_eq!(
                message,
                format!("--blocks ({blocks}) must be greater than --distance ({k}) and at most 64")
            );
        }
        assert_eq!(Tables::new(64, 63).unwrap().count(), 64);
    }

    #[test]
    fn tables_are_numbered_in_lexicographic_order() {
        for b in 1..=12u32 {
            for k in 0..b {
                let tables = Tables::new(b, k).unwrap();
                let mut rank = 0;
                for table in tables.in_order() {
                    assert_eq!(tables.unrank(rank), table, "B={b} K={k} rank {rank}");
                    assert_eq!(table.count_ones() as usize, tables.size());
                    rank += 1;
                }
                assert_eq!(rank, tables.count(), "B={b} K={k}");
            }
        }
        let wide = Tables::new(64, 32).unwrap();
        assert_eq!(wide.unrank(wide.count() - 1), u64::MAX << 32);
    }

    #[test]
    fn table_zero_is_the_first_table_of_identical_fingerprints() {
        for b in 1..=64 {
            for k in 0..b.min(8) {
                let tables = Tables::new(b, k).unwrap();
                assert_eq!(tables.first_table(0), Some(tables.unrank(0)));
            }
        }
    }

    #[test]
    fn bits_of_a_table() {
        let tables = Tables::new(1, 0).unwrap();
        assert_eq!(tables.bits(1, u64::MAX), (u64::MAX, 64));
        let tables = Tables::new(4, 2).unwrap(); // four blocks of 16 bits
        let fp = 0x1111_2222_3333_4444;
        assert_eq!(tables.bits(0b0101, fp), (0x1111_3333, 32));
        assert_eq!(tables.bits(0b1010, fp), (0x2222_4444, 32));
        assert_eq!(tables.width(0b1010), 32);
    }
}
