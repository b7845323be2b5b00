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

use crate::blocks::Blocks;

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
    blocks: &'a Blocks,
    k: u32,
    /// Block masks skipped along the current path; a reported pair disagrees on each.
    skipped: Vec<u64>,
    on_pair: F,
    grouper: Grouper,
    /// Pairs of fingerprints compared bit by bit: the work of the leaves.
    pub compared: u64,
}

impl<'a, F: OnPair> Search<'a, F> {
    pub fn new(blocks: &'a Blocks, k: u32, on_pair: F) -> Search<'a, F> {
        assert!((k as usize) < blocks.count());
        Search { blocks, k, skipped: Vec::new(), on_pair, grouper: Grouper::default(), compared: 0 }
    }

    fn table_size(&self) -> usize {
        self.blocks.count() - self.k as usize
    }

    /// Finds every reported pair among `set`, a set of distinct fingerprints (reordered).
    pub fn run(&mut self, set: &mut [u64]) {
        if self.k == 0 {
            return; // distinct fingerprints are never 0 bits apart
        }
        self.descend(set, 0, None);
    }

    /// The choices of the first block: the top level of the tree, whose parts can be searched
    /// independently (and on other threads) by [`Search::run_part`].
    pub fn first_blocks(&self) -> std::ops::RangeInclusive<usize> {
        0..=self.k as usize
    }

    /// Splits `set` by block `first` and returns the ranges of the parts worth searching. A
    /// large set is sorted on `threads` threads, with `scratch` as room for a copy.
    pub fn split_by_first_block(
        &self,
        set: &mut [u64],
        first: usize,
        threads: usize,
        scratch: &mut Vec<u64>,
    ) -> Vec<std::ops::Range<usize>> {
        let skipped: Vec<u64> = (0..first).map(|j| self.blocks.mask(j)).collect();
        let mask = self.blocks.mask(first);
        sort_by_block_on_threads(set, mask, threads, scratch);
        let mut parts = Vec::new();
        let mut start = 0;
        while start < set.len() {
            let len = run_length(&set[start..], mask);
            if len >= 2 && disagrees_on_each(&set[start..start + len], &skipped) {
                parts.push(start..start + len);
            }
            start += len;
        }
        parts
    }

    /// Searches one part from [`Search::split_by_first_block`] of block `first`.
    pub fn run_part(&mut self, part: &mut [u64], first: usize) {
        self.skipped.clear();
        self.skipped.extend((0..first).map(|j| self.blocks.mask(j)));
        self.descend(part, 1, Some(first));
        self.skipped.clear();
    }

    /// `set` agrees on the `depth` blocks chosen so far, the last being `last`.
    ///
    /// Every pair of `set` within K bits whose members disagree on each skipped block has its
    /// first table on this path, so a small set is finished by comparing all its pairs: that
    /// is cheaper than splitting it further, table by table.
    fn descend(&mut self, set: &mut [u64], depth: usize, last: Option<usize>) {
        if depth == self.table_size() || set.len() <= COMPARE_ALL_BELOW {
            self.compare_all(set);
            return;
        }
        let first_choice = last.map_or(0, |l| l + 1);
        // Leave enough blocks after this one to complete the table.
        let last_choice = self.k as usize + depth;
        let skipped_before = self.skipped.len();
        for block in first_choice..=last_choice {
            let mask = self.blocks.mask(block);
            if set.len() <= HASH_GROUPS_UP_TO {
                self.descend_hashed(set, mask, depth, block);
            } else {
                self.descend_sorted(set, mask, depth, block);
            }
            // The next sibling skips this block.
            self.skipped.push(mask);
        }
        self.skipped.truncate(skipped_before);
    }

    /// The children of one block choice, found by sorting `set` by the block's value.
    fn descend_sorted(&mut self, set: &mut [u64], mask: u64, depth: usize, block: usize) {
        sort_by_block(set, mask);
        let leaf = depth + 1 == self.table_size();
        let mut start = 0;
        while start < set.len() {
            let len = run_length(&set[start..], mask);
            let part = &mut set[start..start + len];
            if len >= 2 && (leaf || len <= COMPARE_ALL_BELOW) {
                self.compare_all(part); // as in descend_hashed
            } else if len >= 2 && disagrees_on_each(part, &self.skipped) {
                self.descend(part, depth + 1, Some(block));
            }
            start += len;
        }
    }

    /// The children of one block choice, found with a hash table: for a set of moderate size
    /// whose groups are mostly single fingerprints, cheaper than sorting it.
    fn descend_hashed(&mut self, set: &[u64], mask: u64, depth: usize, block: usize) {
        let mut grouper = std::mem::take(&mut self.grouper);
        grouper.group(set, mask);
        let leaf = depth + 1 == self.table_size();
        for group in 0..grouper.groups.len() {
            let range = grouper.groups[group].clone();
            let part = &mut grouper.members[range];
            if leaf || part.len() <= COMPARE_ALL_BELOW {
                // What the child would do at once (its pairs are checked against the skipped
                // blocks one by one), without the call.
                self.compare_all(part);
            } else if disagrees_on_each(part, &self.skipped) {
                self.descend(part, depth + 1, Some(block));
            }
        }
        self.grouper = grouper;
    }

    fn compare_all(&mut self, group: &[u64]) {
        let n = group.len() as u64;
        self.compared += n * (n - 1) / 2;
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                let x = a ^ b;
                if x.count_ones() <= self.k && self.skipped.iter().all(|&m| x & m != 0) {
                    self.on_pair.found(a.min(b), a.max(b));
                }
            }
        }
    }
}

/// Searches `set` (distinct fingerprints, reordered) with one handler per thread, each told of
/// the pairs its thread finds; returns the number of pairs compared.
pub fn search_in_parallel<H: OnPair + Send>(
    blocks: &Blocks,
    k: u32,
    set: &mut [u64],
    handlers: &mut [H],
) -> u64 {
    let threads = handlers.len();
    assert!(threads >= 1, "at least one handler");
    let mut compared = 0;
    if k == 0 {
        return 0; // distinct fingerprints are never 0 bits apart
    }
    let splitter = Search::new(blocks, k, CollectPairs::default());
    let mut scratch = Vec::new();
    let last_split = *splitter.first_blocks().end();
    for first in splitter.first_blocks() {
        let parts = splitter.split_by_first_block(set, first, threads, &mut scratch);
        if first == last_split {
            scratch = Vec::new(); // 8 bytes a fingerprint, not needed for the last parts
        }
        let shares = share_out(set, &parts, threads);
        compared += std::thread::scope(|scope| {
            let workers: Vec<_> = shares
                .into_iter()
                .zip(handlers.iter_mut())
                .map(|(share, handler)| {
                    scope.spawn(move || {
                        let mut search = Search::new(blocks, k, handler);
                        for part in share {
                            search.run_part(part, first);
                        }
                        search.compared
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().expect("search thread")).sum::<u64>()
        });
    }
    compared
}

/// Cuts `set` into the disjoint `parts` and deals them to `threads` shares of about equal work
/// (largest first, each to the least loaded share).
fn share_out<'s>(
    set: &'s mut [u64],
    parts: &[std::ops::Range<usize>],
    threads: usize,
) -> Vec<Vec<&'s mut [u64]>> {
    let mut slices = Vec::with_capacity(parts.len());
    let mut rest = set;
    let mut offset = 0;
    for part in parts {
        let (_, tail) = rest.split_at_mut(part.start - offset);
        let (slice, tail) = tail.split_at_mut(part.len());
        slices.push(slice);
        rest = tail;
        offset = part.end;
    }
    // Comparisons grow with the square of a part's size.
    slices.sort_by_key(|slice| std::cmp::Reverse(slice.len()));
    let mut shares: Vec<(u64, Vec<&mut [u64]>)> = (0..threads).map(|_| (0, Vec::new())).collect();
    for slice in slices {
        let lightest = shares.iter_mut().min_by_key(|(load, _)| *load).expect("threads >= 1");
        lightest.0 += (slice.len() as u64).pow(2);
        lightest.1.push(slice);
    }
    shares.into_iter().map(|(_, share)| share).collect()
}

/// Sets up to this size are split with a hash table rather than sorted.
const HASH_GROUPS_UP_TO: usize = 1 << 16;

/// The groups of equal block value within a set, collected with a hash table.
#[derive(Debug, Default)]
struct Grouper {
    /// Open addressing: the last member seen of each block value, or `NONE`.
    slots: Vec<u32>,
    /// The member seen before each member with the same block value, or `NONE`.
    previous: Vec<u32>,
    /// Members of the groups of two or more, group after group.
    members: Vec<u64>,
    groups: Vec<std::ops::Range<usize>>,
    /// The slots of the groups of two or more, in the order their second member came.
    shared: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Grouper {
    fn group(&mut self, set: &[u64], mask: u64) {
        let capacity = (set.len() * 2).next_power_of_two().max(16);
        let bits = capacity.trailing_zeros();
        self.slots.clear();
        self.slots.resize(capacity, NONE);
        // Every member's entry is written below, so stale entries need no clearing.
        if self.previous.len() < set.len() {
            self.previous.resize(set.len(), NONE);
        }
        self.members.clear();
        self.groups.clear();
        self.shared.clear();
        for (i, &fp) in set.iter().enumerate() {
            let key = fp & mask;
            let mut slot = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
            loop {
                let last = self.slots[slot];
                if last == NONE {
                    self.slots[slot] = i as u32;
                    self.previous[i] = NONE;
                    break;
                }
                if set[last as usize] & mask == key {
                    if self.previous[last as usize] == NONE {
                        self.shared.push(slot as u32); // the group's second member
                    }
                    self.previous[i] = last;
                    self.slots[slot] = i as u32;
                    break;
                }
                slot = (slot + 1) & (capacity - 1);
            }
        }
        for &slot in &self.shared {
            let start = self.members.len();
            let mut member = self.slots[slot as usize];
            while member != NONE {
                self.members.push(set[member as usize]);
                member = self.previous[member as usize];
            }
            self.groups.push(start..self.members.len());
        }
    }
}

/// Sets this small are finished by comparing all their pairs (see [`Search::descend`]).
const COMPARE_ALL_BELOW: usize = 48;

/// Below this size a comparison sort beats a radix sort's fixed cost per digit.
const RADIX_THRESHOLD: usize = 256;

/// Orders `set` by the bits under `mask`: a radix sort on the block's value for large sets
/// (digits that are equal throughout are skipped), a comparison sort for small ones.
fn sort_by_block(set: &mut [u64], mask: u64) {
    if set.len() >= RADIX_THRESHOLD {
        let shift = mask.trailing_zeros();
        radsort::sort_by_key(set, |fp| (fp & mask) >> shift);
    } else {
        set.sort_unstable_by_key(|fp| fp & mask);
    }
}

/// Sets from this size are sorted on several threads when there are.
const PARALLEL_SORT_FROM: usize = 1 << 18;

/// At most this many bits of a block are dealt out in the parallel pass; the rest are sorted
/// within each part.
const PARTITION_BITS: u32 = 12;

/// [`sort_by_block`] on `threads` threads for a large set. The counts of each value of the
/// block's top bits are taken in parallel; the values are then cut into one run per thread,
/// each owning the part of `scratch` its values fill, and every thread reads the whole set and
/// copies out the fingerprints of its own values (so no two threads write the same part). Each
/// thread then sorts its parts on the block's lower bits, if any, and copies them back.
fn sort_by_block_on_threads(set: &mut [u64], mask: u64, threads: usize, scratch: &mut Vec<u64>) {
    let n = set.len();
    if threads < 2 || n < PARALLEL_SORT_FROM {
        sort_by_block(set, mask);
        return;
    }
    let bits = mask.count_ones();
    let shift = mask.trailing_zeros() + bits.saturating_sub(PARTITION_BITS);
    let values = 1usize << bits.min(PARTITION_BITS);
    let value = move |fp: u64| (fp >> shift) as usize & (values - 1);

    let chunk = n.div_ceil(threads);
    let mut starts = vec![0usize; values + 1];
    std::thread::scope(|scope| {
        let counters: Vec<_> = set
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut counts = vec![0usize; values];
                    for &fp in part {
                        counts[value(fp)] += 1;
                    }
                    counts
                })
            })
            .collect();
        for counter in counters {
            let counts = counter.join().expect("counting thread");
            for (total, count) in starts[1..].iter_mut().zip(counts) {
                *total += count;
            }
        }
    });
    for v in 1..=values {
        starts[v] += starts[v - 1];
    }
    let runs = crate::index::bucket_runs(&starts, threads);

    if scratch.len() < n {
        scratch.resize(n, 0);
    }
    let source: &[u64] = set;
    std::thread::scope(|scope| {
        let mut rest = &mut scratch[..n];
        for run in &runs {
            let (base, end) = (starts[run.start], starts[run.end]);
            let (own, tail) = std::mem::take(&mut rest).split_at_mut(end - base);
            rest = tail;
            let (run, starts) = (run.clone(), &starts);
            scope.spawn(move || {
                let mut fill: Vec<usize> = starts[run.clone()].iter().map(|s| s - base).collect();
                for &fp in source {
                    let v = value(fp);
                    if run.contains(&v) {
                        let slot = &mut fill[v - run.start];
                        own[*slot] = fp;
                        *slot += 1;
                    }
                }
                if bits > PARTITION_BITS {
                    for v in run {
                        sort_by_block(&mut own[starts[v] - base..starts[v + 1] - base], mask);
                    }
                }
            });
        }
    });
    std::thread::scope(|scope| {
        let (mut to, mut from) = (&mut set[..], &scratch[..n]);
        for run in &runs {
            let len = starts[run.end] - starts[run.start];
            let (to_run, to_rest) = std::mem::take(&mut to).split_at_mut(len);
            let (from_run, from_rest) = from.split_at(len);
            (to, from) = (to_rest, from_rest);
            scope.spawn(move || to_run.copy_from_slice(from_run));
        }
    });
}

/// How many fingerprints at the start of `set` have the bits of the first under `mask`.
fn run_length(set: &[u64], mask: u64) -> usize {
    let value = set[0] & mask;
    set.iter().take_while(|&&fp| fp & mask == value).count()
}

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
        let blocks = Blocks::new(b);
        let mut set = fps.to_vec();
        set.sort_unstable();
        set.dedup();
        let mut found = CollectPairs::default();
        Search::new(&blocks, k, &mut found).run(&mut set);
        found.0.sort_unstable();
        found.0
    }

    fn brute_force(fps: &[u64], k: u32) -> Vec<(u64, u64)> {
        let mut set = fps.to_vec();
        set.sort_unstable();
        set.dedup();
        let mut pairs = Vec::new();
        for (i, &a) in set.iter().enumerate() {
            for &b in &set[i + 1..] {
                if (a ^ b).count_ones() <= k {
                    pairs.push((a, b));
                }
            }
        }
        pairs
    }

    #[test]
    fn the_parallel_sort_groups_like_the_plain_one() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let set: Vec<u64> = (0..PARALLEL_SORT_FROM as u64 + 4321)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 5 == 0 {
                    x & 0xffff
                } else {
                    x
                }
            })
            .collect();
        let mut scratch = Vec::new();
        // Blocks of 8 to 16 bits (one pass, or a pass and sorted parts), low, middle, high.
        for mask in [0xffu64, 0xfff << 20, 0x1fff << 40, 0xffff << 48, 0xffff, 0x3ff << 54] {
            for threads in [2, 3] {
                let mut ours = set.clone();
                sort_by_block_on_threads(&mut ours, mask, threads, &mut scratch);
                let mut plain = set.clone();
                sort_by_block(&mut plain, mask);
                assert!(ours.windows(2).all(|w| w[0] & mask <= w[1] & mask), "{mask:x}");
                ours.sort_unstable();
                plain.sort_unstable();
                assert_eq!(ours, plain, "the same fingerprints, {mask:x}");
            }
        }
    }

    #[test]
    fn finds_the_pairs_of_a_small_planted_set() {
        let base = 0x0123_4567_89ab_cdef_u64;
        let fps = [base, base ^ 1, base ^ (1 << 63), base ^ 0b111, base ^ 0xf0, !base];
        for b in 4..=64 {
            for k in 1..b.min(6) {
                assert_eq!(search(&fps, b, k), brute_force(&fps, k), "B={b} K={k}");
            }
        }
    }
}
