//! Finding every pair of distinct fingerprints within K bits by the permuted-table method of
//! Manku, Jain and Das Sarma (WWW 2007), walked as a tree.
//!
//! A table is a set of B-K blocks; a pair within K bits agrees on at least B-K blocks, so some
//! table holds it in one group of equal block values. Instead of building each of the C(B, K)
//! tables in full, the tables are visited in lexicographic order as paths of a tree: a node has
//! chosen some blocks and holds a set of fingerprints that agree on all of them; its children
//! choose one more block each and split the set by that block's bits. Tables that share their
//! first blocks share that work, sets of fewer than two fingerprints are dropped at once, and one
//! array is reordered in place throughout.
//!
//! A pair is reported only by the first table that holds it, the B-K lowest-numbered blocks it
//! agrees on. Along a path that means the pair must disagree on every block the path skipped;
//! a set in which all members agree on a skipped block holds no such pair and is dropped too.

use crate::split::{run_length, sort_by_block, Grouper, HASH_GROUPS_UP_TO};
use crate::tables::{Blocks, Tables};

mod chains;
mod parallel;
mod screen;

use chains::{Chains, CHAIN_BITS, CHAIN_MEMBERS};

pub(crate) use parallel::GroupPairs;
pub use parallel::{find_near_groups, search_in_parallel};

/// What a search does with each pair it finds.
pub trait OnPair {
    /// `a < b`, two distinct fingerprints within K bits, reported once.
    fn found(&mut self, a: u64, b: u64);
}

impl<T: OnPair + ?Sized> OnPair for &mut T {
    fn found(&mut self, a: u64, b: u64) {
        (**self).found(a, b);
    }
}

/// Collects the pairs found, for tests and small inputs.
#[derive(Debug, Default)]
pub struct CollectPairs(pub Vec<(u64, u64)>);

impl OnPair for CollectPairs {
    fn found(&mut self, a: u64, b: u64) {
        self.0.push((a, b));
    }
}

/// One search (or one thread of it): tells `on_pair` of every pair found.
#[derive(Debug)]
pub struct Search<'a, F> {
    tables: &'a Tables,
    blocks: &'a Blocks,
    k: u32,
    /// The largest distance of a pair reported (K, unless the tables reach further).
    reach: u32,
    /// B-K: the depth of a table in the tree.
    table_size: usize,
    /// Block masks skipped along the current path; a reported pair disagrees on each.
    skipped: Vec<u64>,
    on_pair: F,
    /// One grouper for each depth, so that a set grouped inside another's groups reuses the
    /// tables of the sets before it at its depth.
    groupers: Vec<Grouper>,
    /// For the last block of a table.
    chains: Chains,
    /// Pairs of fingerprints compared bit by bit: the work of the leaves.
    pub compared: u64,
    /// Room for a part to be reordered, when it may not be where it is.
    copy: Vec<u64>,
    /// Sets of up to this many members are finished by comparing all their pairs.
    compare_all_below: usize,
}

impl<'a, F: OnPair> Search<'a, F> {
    pub fn new(tables: &'a Tables, on_pair: F) -> Search<'a, F> {
        Search {
            tables,
            blocks: tables.blocks(),
            k: tables.k(),
            reach: tables.reach(),
            table_size: tables.size(),
            skipped: Vec::new(),
            on_pair,
            groupers: Vec::new(),
            chains: Chains::default(),
            compared: 0,
            copy: Vec::new(),
            compare_all_below: COMPARE_ALL_BELOW[usize::from(screen::eight_at_once())],
        }
    }

    /// Finds every reported pair among `set`, a set of distinct fingerprints (reordered).
    pub fn run(&mut self, set: &mut [u64]) {
        if self.k == 0 {
            return; // distinct fingerprints are never 0 bits apart
        }
        self.descend(set, 0, None);
    }

    /// The choices of the first block: the top level of the tree, whose parts can be searched
    /// independently (and on other threads) by [`Search::run_part`] and
    /// [`Search::run_part_within`].
    pub fn first_blocks(&self) -> std::ops::RangeInclusive<usize> {
        0..=self.k as usize
    }

    /// Searches one part of the split by block `first`: a run of two or more members of `set`
    /// (ordered by the block) with one value of it. Parts whose members all agree on a block
    /// before `first` hold no pair first found here and are passed over.
    pub fn run_part(&mut self, part: &mut [u64], first: usize) {
        self.run_part_within(part, first, self.blocks.mask(first));
    }

    /// [`Search::run_part`] for a part whose members agree on only some bits of block
    /// `first`, those under `shared`: the part is first split by the block's other bits, each
    /// group of two or more then searched as a part of its own. (Its pairs cannot be compared
    /// at once, as a small part's are: a pair within K bits that differs in the other bits is
    /// found by a later block's table.)
    pub fn run_part_within(&mut self, part: &mut [u64], first: usize, shared: u64) {
        let mask = self.blocks.mask(first);
        debug_assert!(part.iter().all(|&fp| (fp ^ part[0]) & shared == 0), "alike in `shared`");
        self.skipped.clear();
        self.skipped.extend((0..first).map(|j| self.blocks.mask(j)));
        if disagrees_on_each(part, &self.skipped) {
            let rest = mask & !shared;
            if rest == 0 {
                self.descend(part, 1, Some(first));
            } else if part.len() <= HASH_GROUPS_UP_TO {
                self.descend_grouped(part, rest, 0, first);
            } else {
                self.descend_sorted(part, rest, 0, first);
            }
        }
        self.skipped.clear();
    }

    /// `set` agrees on the `depth` blocks chosen so far, the last being `last`.
    ///
    /// Every pair of `set` within K bits whose members disagree on each skipped block has its
    /// first table on this path, so a small set is finished by comparing all its pairs: that
    /// is cheaper than splitting it further, table by table.
    fn descend(&mut self, set: &mut [u64], depth: usize, last: Option<usize>) {
        if depth == self.table_size || set.len() <= self.compare_all_below {
            self.compare_all(set);
            return;
        }
        let first_choice = last.map_or(0, |l| l + 1);
        // Leave enough blocks after this one to complete the table.
        let last_choice = self.k as usize + depth;
        let skipped_before = self.skipped.len();
        let leaf = depth + 1 == self.table_size;
        for block in first_choice..=last_choice {
            let mask = self.blocks.mask(block);
            let bits = mask.count_ones();
            if leaf && set.len() < 1 << bits && bits <= CHAIN_BITS && set.len() <= CHAIN_MEMBERS {
                // Most members alone in their value: the pairs of the groups at once.
                self.leaf_pairs(set, mask);
            } else if set.len() <= HASH_GROUPS_UP_TO {
                self.descend_grouped(set, mask, depth, block);
            } else {
                self.descend_sorted(set, mask, depth, block);
            }
            // The next sibling skips this block.
            self.skipped.push(mask);
        }
        self.skipped.truncate(skipped_before);
    }

    /// The children of one block choice, found by sorting `set` by the block's value. (From
    /// [`Search::run_part_within`], at depth 0, `mask` is the block's bits that the set does not
    /// share yet, the rest of the block being alike throughout.)
    fn descend_sorted(&mut self, set: &mut [u64], mask: u64, depth: usize, block: usize) {
        sort_by_block(set, mask);
        let leaf = depth + 1 == self.table_size;
        let mut start = 0;
        while start < set.len() {
            let len = run_length(&set[start..], mask);
            let part = &mut set[start..start + len];
            if len >= 2 && (leaf || len <= self.compare_all_below) {
                self.compare_all(part); // as in descend_grouped
            } else if len >= 2 && disagrees_on_each(part, &self.skipped) {
                self.descend(part, depth + 1, Some(block));
            }
            start += len;
        }
    }

    /// The children of one block choice, found by the grouper (a counting sort, marking or a
    /// hash table): for a set of moderate size, cheaper than sorting it. (From
    /// [`Search::run_part_within`], at depth 0, `mask` is the block's bits that the set does not
    /// share yet.)
    fn descend_grouped(&mut self, set: &[u64], mask: u64, depth: usize, block: usize) {
        if self.groupers.len() <= depth {
            self.groupers.resize_with(depth + 1, Grouper::default);
        }
        let mut grouper = std::mem::take(&mut self.groupers[depth]);
        grouper.group(set, mask);
        let leaf = depth + 1 == self.table_size;
        for group in 0..grouper.groups.len() {
            let range = grouper.groups[group].clone();
            let part = &mut grouper.members[range];
            if leaf || part.len() <= self.compare_all_below {
                // What the child would do at once (its pairs are checked against the skipped
                // blocks one by one), without the call.
                self.compare_few(part);
            } else if disagrees_on_each(part, &self.skipped) {
                self.descend(part, depth + 1, Some(block));
            }
        }
        self.groupers[depth] = grouper;
    }

    /// The pairs of `set` that agree on the last block of a table, under `mask`: compared as
    /// [`Search::compare_few`] compares a group's pairs, in one pass of [`Chains`].
    fn leaf_pairs(&mut self, set: &[u64], mask: u64) {
        let mut chains = std::mem::take(&mut self.chains);
        let k = self.reach;
        chains.pairs(set, mask, |a, b| {
            self.compared += 1;
            if (a ^ b).count_ones() <= k {
                self.check_each(a, &[b]);
            }
        });
        self.chains = chains;
    }

    /// [`Search::compare_all`], with the groups of two and three (most groups, where the
    /// block has about as many values as the set has members) done in place of the call.
    #[inline(always)]
    fn compare_few(&mut self, group: &[u64]) {
        let k = self.reach;
        match *group {
            [a, b] => {
                self.compared += 1;
                if (a ^ b).count_ones() <= k {
                    self.check_each(a, &[b]);
                }
            }
            [a, b, c] => {
                self.compared += 3;
                if (a ^ b).count_ones() <= k || (a ^ c).count_ones() <= k {
                    self.check_each(a, &[b, c]);
                }
                if (b ^ c).count_ones() <= k {
                    self.check_each(b, &[c]);
                }
            }
            _ => self.compare_all(group),
        }
    }

    fn compare_all(&mut self, group: &[u64]) {
        let n = group.len() as u64;
        self.compared += n * n.saturating_sub(1) / 2;
        let k = self.reach;
        screen::near_pairs(group, k, |i, j| self.check_each(group[i], &[group[j]]));
    }

    /// Reports the pairs of `a` with each of `others` that are within K (or within the reach
    /// and differing in at most K blocks) and disagree on every skipped block.
    fn check_each(&mut self, a: u64, others: &[u64]) {
        for &b in others {
            let x = a ^ b;
            // The distance first: it rules out nearly every pair.
            if self.tables.finds(x) && self.skipped.iter().all(|&m| x & m != 0) {
                self.on_pair.found(a.min(b), a.max(b));
            }
        }
    }
}

/// Sets this small are finished by comparing all their pairs (see [`Search::descend`]), one
/// pair at a time, or eight at once ([`screen::eight_at_once`]): at 1M random fingerprints
/// and K = 6, 96 searched in 0.127 s against 0.146 s for 48; at K = 3 the same.
const COMPARE_ALL_BELOW: [usize; 2] = [48, 96];

/// Whether, for each mask, some two members of `set` differ under it: otherwise no pair of the
/// set disagrees on that block.
fn disagrees_on_each(set: &[u64], masks: &[u64]) -> bool {
    if masks.is_empty() {
        return true;
    }
    let (any, all) = set.iter().fold((0u64, u64::MAX), |(any, all), &fp| (any | fp, all & fp));
    let varying = any ^ all;
    masks.iter().all(|&m| varying & m != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(fps: &[u64], b: u32, k: u32) -> Vec<(u64, u64)> {
        let tables = Tables::new(b, k).unwrap();
        let mut set = fps.to_vec();
        set.sort_unstable();
        set.dedup();
        let mut found = CollectPairs::default();
        Search::new(&tables, &mut found).run(&mut set);
        found.0.sort_unstable();
        found.0
    }

    /// Sets that stay large below the top of the tree (fingerprints that agree on their high
    /// blocks), so that the children of each block are found by counting and by hashing both.
    #[test]
    fn finds_the_pairs_of_large_sets_that_share_blocks() {
        let mut next = sh_testkit::xorshift(0x9e37_79b9_7f4a_7c15);
        for (free_bits, n) in [(20u32, 3000usize), (26, 4000), (40, 2500)] {
            let base = next();
            let mut fps: Vec<u64> =
                (0..n).map(|_| base ^ (next() & ((1u64 << free_bits) - 1))).collect();
            // Planted near copies, 1 to 4 bits away.
            for i in 0..n / 10 {
                let flips = (0..1 + i % 4).fold(0u64, |f, _| f | 1 << (next() % 64));
                fps.push(fps[i] ^ flips);
            }
            for (b, k) in [(4, 3), (6, 3), (8, 3), (12, 2), (24, 4)] {
                assert_eq!(
                    search(&fps, b, k),
                    sh_testkit::oracle::distinct_pairs(&fps, k),
                    "free bits {free_bits} B={b} K={k}"
                );
            }
        }
    }

    /// Sets that are still large at the last block of their tables (every block's value one of
    /// a few), so that each choice of that block, one to eight of them, is searched by
    /// [`Chains`] over sets of hundreds with many pairs, each pair reported by one choice only.
    #[test]
    fn finds_the_pairs_of_sets_large_at_their_last_block() {
        let mut next = sh_testkit::xorshift(0x2545_f491_4f6c_dd1d);
        for (k, extra) in [(1u32, 1u32), (2, 1), (3, 1), (3, 2), (4, 1), (5, 1), (6, 1), (7, 2)] {
            let b = k + extra + 1;
            let tables = Tables::new(b, k).unwrap();
            let blocks = tables.blocks();
            for (values, n) in [(2u64, 600usize), (4, 2000), (16, 3000)] {
                // In each block, only its lowest bits vary: `values` values of the block.
                let low: u64 = (0..b as usize)
                    .map(|j| blocks.mask(j))
                    .fold(0, |all, m| all | ((values - 1) << m.trailing_zeros() & m));
                let fps: Vec<u64> = (0..n).map(|_| next() & low).collect();
                assert_eq!(
                    search(&fps, b, k),
                    sh_testkit::oracle::distinct_pairs(&fps, k),
                    "B={b} K={k} values {values}"
                );
            }
        }
    }

    /// A part alike only in the top bits of its block, as the parallel search's splits deal
    /// them out, gives what its runs of the whole block give, each searched by `run_part`:
    /// parts larger than the grouper takes (sorted by the block's other bits) and smaller
    /// (grouped by counting, marking or hashing), with near copies within K that differ in
    /// those other bits and in every block before this one (a later table's pairs, which a
    /// search of the part without its split would report too) and copies alike in the whole
    /// block.
    #[test]
    fn a_part_alike_in_some_bits_of_its_block_finds_what_its_runs_find() {
        let mut next = sh_testkit::xorshift(0x1234_5678_9abc_def1);
        // Counting (B = 4, 3 bits left; B = 3 at 2,000), marking (B = 3 at 200: 250 members,
        // 256 values), hashing (B = 2, 19 bits), sorting (70,000).
        for (b, k, first) in [(4u32, 2u32, 1usize), (4, 3, 0), (3, 2, 1), (2, 1, 0)] {
            let tables = Tables::new(b, k).unwrap();
            let mask = tables.blocks().mask(first);
            let shared = crate::split::dealt_bits(mask);
            let bits_of = |m: u64| -> Vec<u64> { (0..64).filter(|j| m >> j & 1 == 1).collect() };
            let (rest_bits, block0_bits) =
                (bits_of(mask & !shared), bits_of(tables.blocks().mask(0)));
            let pick = |bits: &[u64], x: u64| 1u64 << bits[(x % bits.len() as u64) as usize];
            for n in [200usize, 2_000, 70_000] {
                let common = next() & shared;
                let mut part: Vec<u64> = (0..n).map(|_| next() & !shared | common).collect();
                for i in 0..n / 8 {
                    // One bit of the block's rest, one of block 0 (skipped, for a later block),
                    // up to K bits in all.
                    let mut flips = pick(&rest_bits, next());
                    let mut used = 1;
                    if first > 0 {
                        flips |= pick(&block0_bits, next());
                        used += 1;
                    }
                    for _ in 0..(i % 3).min(k as usize - used) {
                        flips |= 1u64 << (next() % 64) & !shared;
                    }
                    part.push(part[i] ^ flips);
                    part.push(part[n / 2 + i] ^ (1u64 << (next() % 64) & !mask));
                }
                part.sort_unstable();
                part.dedup();
                let mut ours = CollectPairs::default();
                Search::new(&tables, &mut ours).run_part_within(&mut part.clone(), first, shared);
                let mut runs = CollectPairs::default();
                let mut search = Search::new(&tables, &mut runs);
                part.sort_by_key(|&fp| fp & mask);
                let mut start = 0;
                while start < part.len() {
                    let len = run_length(&part[start..], mask);
                    if len >= 2 {
                        search.run_part(&mut part[start..start + len], first);
                    }
                    start += len;
                }
                ours.0.sort_unstable();
                runs.0.sort_unstable();
                let case = format!("B={b} K={k} block {first}, {n} members");
                assert!(runs.0.len() >= n / 64, "{case}: {} pairs", runs.0.len());
                assert_eq!(ours.0, runs.0, "{case}");
            }
        }
    }

    #[test]
    fn finds_the_pairs_of_a_small_planted_set() {
        let base = 0x0123_4567_89ab_cdef_u64;
        let fps = [base, base ^ 1, base ^ (1 << 63), base ^ 0b111, base ^ 0xf0, !base];
        for b in 4..=64 {
            for k in 1..b.min(6) {
                assert_eq!(
                    search(&fps, b, k),
                    sh_testkit::oracle::distinct_pairs(&fps, k),
                    "B={b} K={k}"
                );
            }
        }
    }
}
