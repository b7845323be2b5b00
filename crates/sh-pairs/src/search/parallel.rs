//! The search on threads: the parts of each first block dealt out to one thread and handler
//! each ([`search_in_parallel`]), and the pairs of groups they find gathered
//! ([`find_near_groups`]).

use std::io;

use sh_core::memory::fallible;
use sh_core::threads::spawn_or_run;
use sh_core::{Error, Result};

use super::{CollectPairs, OnPair, Search};
use crate::index::{GroupIndex, Index};
use crate::output::Selection;
use crate::split::{
    deal_counted, dealt_bits, run_length, sort_by_block, sort_by_block_into, HASH_GROUPS_UP_TO,
};
use crate::tables::Tables;

mod runs;

use runs::{runs_from_starts, runs_of_block, runs_within, survey};

/// Searches `distinct` (distinct fingerprints, ascending) with one handler per thread, each
/// told of the pairs its thread finds; returns the number of pairs compared. `room` is a buffer
/// for the copies the search reorders (its contents dropped; pages already in memory save the
/// system's zeroing).
///
/// The fingerprints ascend, so they are in order by block 0, their highest bits, already: the
/// parts of the first split are searched where they are, each run of the block copied into a
/// buffer of its thread (in cache) as the search reorders it. For each later block they are
/// dealt out into `room` by the block's top bits first ([`sort_by_block_into`]), from their
/// ascending order each time (a counting sort costs the same from any order), so that no second
/// buffer is needed (on threads, every later block's values counted in the pass that reads
/// block 0's runs: [`survey`]); the search then groups each part of a wider block by its other
/// bits. The parts shared out are runs of those top bits (of as many as the later splits deal
/// out, for block 0 too); a part larger than an eighth of a thread's share (at most 2^16
/// members) is cut into its runs of the whole block first, so that the threads share its work.
pub fn search_in_parallel<H: OnPair + Send>(
    tables: &Tables,
    distinct: &[u64],
    room: Vec<u64>,
    handlers: &mut [H],
) -> u64 {
    let threads = handlers.len();
    assert!(threads >= 1, "at least one handler");
    debug_assert!(distinct.is_sorted(), "the fingerprints ascend");
    if tables.k() == 0 {
        return 0; // distinct fingerprints are never 0 bits apart
    }
    let last_split = *Search::new(tables, CollectPairs::default()).first_blocks().end();
    let large = large_part(distinct.len(), threads);
    let mask = tables.blocks().mask(0);
    let whole = dealt_bits(mask) == mask;
    let later: Vec<u64> = (1..=last_split).map(|first| tables.blocks().mask(first)).collect();
    // Block 0's runs and, on threads, the later splits' counts, in one pass.
    let (runs, censuses) = survey(distinct, dealt_bits(mask), &later, threads);
    let mut parts = Vec::new();
    for part in runs {
        if part.len() > large && !whole {
            parts.extend(runs_within(distinct, part, mask, threads));
        } else {
            parts.push(part);
        }
    }
    let slices = parts.iter().map(|part| &distinct[part.clone()]).collect();
    let mut compared = search_shares(tables, deal(slices, threads), handlers, |search, part| {
        // The part ascends: its runs of the whole block are in place (a narrow block's part is
        // one).
        let mut start = 0;
        while start < part.len() {
            let len = if whole { part.len() } else { run_length(&part[start..], mask) };
            if len >= 2 {
                search.copy.clear();
                search.copy.extend_from_slice(&part[start..start + len]);
                let mut copy = std::mem::take(&mut search.copy);
                search.run_part(&mut copy, 0);
                search.copy = copy;
            }
            start += len;
        }
    });
    let mut set = room;
    for first in 1..=last_split {
        let mask = tables.blocks().mask(first);
        let starts = match censuses.get(first - 1) {
            Some(census) => Some(deal_counted(distinct, mask, census, &mut set)),
            None => sort_by_block_into(distinct, mask, threads, &mut set),
        };
        let parts: Vec<(std::ops::Range<usize>, u64)> = match starts {
            Some(starts) => {
                let dealt = dealt_bits(mask);
                let mut parts = Vec::new();
                for part in runs_from_starts(&starts) {
                    if part.len() > large && dealt != mask {
                        sort_by_block(&mut set[part.clone()], mask);
                        parts.extend(runs_within(&set, part, mask, threads).map(|r| (r, mask)));
                    } else {
                        parts.push((part, dealt));
                    }
                }
                parts
            }
            None => runs_of_block(&set, mask, threads).into_iter().map(|r| (r, mask)).collect(),
        };
        let ranges: Vec<_> = parts.iter().map(|(range, _)| range.clone()).collect();
        let slices = cut_mut(&mut set, &ranges);
        let slices = slices.into_iter().zip(parts).map(|(fps, (_, shared))| Part { fps, shared });
        compared +=
            search_shares(tables, deal(slices.collect(), threads), handlers, |search, part| {
                search.run_part_within(part.fps, first, part.shared);
            });
    }
    compared
}

/// Parts of a split larger than this (an eighth of a thread's share, at most what the search
/// groups rather than sorts) are cut into their runs of the whole block before the threads
/// share them out: a block's top bits alike in most fingerprints would otherwise leave one
/// part, and one thread, with most of the work.
fn large_part(n: usize, threads: usize) -> usize {
    (n / (8 * threads)).min(HASH_GROUPS_UP_TO)
}

/// A part of a later split: its members, alike in the bits of the block under `shared`.
struct Part<'s> {
    fps: &'s mut [u64],
    shared: u64,
}

impl AsRef<[u64]> for Part<'_> {
    fn as_ref(&self) -> &[u64] {
        self.fps
    }
}

/// Searches each thread's share of parts with `search_part`, a thread and a handler a share;
/// returns the number of pairs compared.
fn search_shares<'s, H: OnPair + Send, S: Send + 's>(
    tables: &Tables,
    shares: Vec<Vec<S>>,
    handlers: &mut [H],
    search_part: impl Fn(&mut Search<&mut H>, S) + Sync,
) -> u64 {
    let search_part = &search_part;
    std::thread::scope(|scope| {
        let workers: Vec<_> = shares
            .into_iter()
            .zip(handlers.iter_mut())
            .map(|(share, handler)| {
                spawn_or_run(scope, move || {
                    let mut search = Search::new(tables, handler);
                    for part in share {
                        search_part(&mut search, part);
                    }
                    search.compared
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join()).sum::<u64>()
    })
}

/// The disjoint `parts` of `set`, as slices of their own.
fn cut_mut<'s>(set: &'s mut [u64], parts: &[std::ops::Range<usize>]) -> Vec<&'s mut [u64]> {
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
    slices
}

/// Deals parts to `threads` shares of about equal work, each part to the least loaded share:
/// the heavy parts first, largest first (a skewed set's few large parts), then the others in
/// their order. A part is heavy when it weighs more than [`HEAVY_SHARE`] of a share, so that
/// the light ones, dealt in any order, leave the shares at most that far apart when there are
/// enough of them to fill the gaps the heavy ones leave. (Sorting all
/// of them, 8,192 parts a split at 1M and K = 3, took 0.2-0.5 ms a split on the calling
/// thread, while the others waited.)
fn deal<S: AsRef<[u64]>>(slices: Vec<S>, threads: usize) -> Vec<Vec<S>> {
    // Comparisons grow with the square of a part's size.
    let weight = |slice: &S| (slice.as_ref().len() as u64).pow(2);
    let total: u64 = slices.iter().map(weight).sum();
    let heavy_from = total / (threads as u64 * HEAVY_SHARE);
    let (mut heavy, light): (Vec<S>, Vec<S>) =
        slices.into_iter().partition(|slice| weight(slice) > heavy_from);
    heavy.sort_by_key(|slice| std::cmp::Reverse(slice.as_ref().len()));
    let mut shares: Vec<(u64, Vec<S>)> = (0..threads).map(|_| (0, Vec::new())).collect();
    for slice in heavy.into_iter().chain(light) {
        let lightest = shares.iter_mut().min_by_key(|(load, _)| *load).expect("threads >= 1");
        lightest.0 += weight(&slice);
        lightest.1.push(slice);
    }
    shares.into_iter().map(|(_, share)| share).collect()
}

/// A part weighs more than one share in this many to be dealt before the others, largest first.
const HEAVY_SHARE: u64 = 64;

/// Every pair of groups (distinct 64-bit fingerprints) within K bits that the selection can
/// use, and the number of fingerprint pairs compared. `room` is a buffer for the search's copy
/// of the distinct fingerprints ([`Index::take_room`], or none).
pub fn find_near_groups(
    index: &Index,
    tables: &Tables,
    threads: usize,
    selection: Selection,
    room: Vec<u64>,
) -> Result<(Vec<(GroupIndex, GroupIndex)>, u64)> {
    let mut handlers: Vec<NearGroups> = (0..threads.max(1))
        .map(|_| NearGroups {
            index,
            selection,
            pairs: GroupPairs::default(),
            found: Vec::new(),
            groups: Vec::new(),
        })
        .collect();
    let compared = search_in_parallel(tables, index.distinct64(), room, &mut handlers);
    for handler in &mut handlers {
        handler.look_up();
    }
    let near = GroupPairs::gather(handlers.into_iter().map(|h| h.pairs))?;
    Ok((near, compared))
}

/// Pairs of groups found by one thread, held as long as memory allows.
#[derive(Debug, Default)]
pub(crate) struct GroupPairs {
    pairs: Vec<(GroupIndex, GroupIndex)>,
    out_of_memory: bool,
}

impl GroupPairs {
    pub(crate) fn push(&mut self, g: GroupIndex, h: GroupIndex) {
        if self.out_of_memory {
            return;
        }
        if self.pairs.len() == self.pairs.capacity()
            && fallible(|| self.pairs.try_reserve(self.pairs.len().max(1024))).is_err()
        {
            self.out_of_memory = true;
            return;
        }
        self.pairs.push((g, h));
    }

    /// The pairs of every thread in one list, or an error when they did not fit in memory.
    pub(crate) fn gather(
        parts: impl IntoIterator<Item = GroupPairs>,
    ) -> Result<Vec<(GroupIndex, GroupIndex)>> {
        let parts: Vec<GroupPairs> = parts.into_iter().collect();
        let total: usize = parts.iter().map(|p| p.pairs.len()).sum();
        let mut near = Vec::new();
        if parts.iter().any(|p| p.out_of_memory)
            || fallible(|| near.try_reserve_exact(total)).is_err()
        {
            return Err(Error::io(
                "cannot hold the near pairs of distinct fingerprints in memory",
                io::Error::from(io::ErrorKind::OutOfMemory),
            ));
        }
        for part in parts {
            near.extend(part.pairs);
        }
        Ok(near)
    }
}

/// One thread's share of the pairs found, as pairs of groups. The groups of the fingerprints
/// found are looked up a batch at a time ([`Index::groups_of_fingerprints`]).
struct NearGroups<'a> {
    index: &'a Index,
    selection: Selection,
    pairs: GroupPairs,
    /// Fingerprints of pairs found and not yet looked up, two a pair.
    found: Vec<u64>,
    /// Their groups.
    groups: Vec<GroupIndex>,
}

/// Pairs found whose groups are looked up together.
const LOOK_UP_BATCH: usize = 32;

impl NearGroups<'_> {
    /// Looks up the groups of the pairs found so far and keeps the pairs of groups useful to
    /// the selection.
    fn look_up(&mut self) {
        self.index.groups_of_fingerprints(&self.found, &mut self.groups);
        for pair in self.groups.chunks_exact(2) {
            let (g, h) = (pair[0], pair[1]);
            if self.selection.useful(self.index, g, h) {
                self.pairs.push(g, h);
            }
        }
        self.found.clear();
    }
}

impl OnPair for NearGroups<'_> {
    fn found(&mut self, a: u64, b: u64) {
        self.found.extend([a, b]);
        if self.found.len() >= 2 * LOOK_UP_BATCH {
            self.look_up();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Above the parallel sort's threshold, on 1-3 threads, the search of the parts of each
    /// first block finds what one thread's walk of the whole tree finds (which the tests above
    /// hold to the oracle): clustered fingerprints (alike in their high blocks), random ones,
    /// and planted copies of both.
    #[test]
    fn the_parallel_search_of_a_large_set_finds_what_one_walk_finds() {
        let mut next = sh_testkit::xorshift(0x5851_f42d_4c95_7f2d);
        let base = next();
        let mut fps: Vec<u64> = (0..300_000)
            .map(|i| if i % 15 == 0 { base ^ (next() & 0xff_ffff) } else { next() })
            .collect();
        for i in 0..30_000 {
            let flips = (0..1 + i % 3).fold(0u64, |f, _| f | 1 << (next() % 64));
            fps.push(fps[i * 7] ^ flips);
        }
        fps.sort_unstable();
        fps.dedup();
        // 70,000 fingerprints alike in the top 13 bits of block 1 of B = 4 (bits 35-47), so
        // that its part is much larger than an eighth of a thread's share and is cut into its
        // runs of the whole block first (as, on three threads, the 20,000 alike in their high
        // bits are at block 0).
        let common = next() & (0x1fff << 35);
        fps.extend((0..70_000).map(|_| next() & !(0x1fff << 35) | common));
        fps.sort_unstable();
        fps.dedup();
        // B = 4, 3 and 2: blocks of 16, 21 and 32 bits, which the parallel sort deals out by
        // their top 13; each part is then grouped (by counting, marking or hashing) or sorted
        // by the block's other bits.
        for (b, k) in [(5, 3), (6, 3), (7, 2), (4, 2), (4, 3), (3, 2), (2, 1)] {
            let tables = Tables::new(b, k).unwrap();
            let mut walked = CollectPairs::default();
            Search::new(&tables, &mut walked).run(&mut fps.clone());
            walked.0.sort_unstable();
            assert!(walked.0.len() > 1000, "B={b} K={k}: {} pairs", walked.0.len());
            for threads in 1..=3 {
                let mut handlers: Vec<CollectPairs> =
                    (0..threads).map(|_| CollectPairs::default()).collect();
                let room = vec![0; fps.len() + 10];
                search_in_parallel(&tables, &fps, room, &mut handlers);
                let mut found: Vec<(u64, u64)> = handlers.into_iter().flat_map(|h| h.0).collect();
                found.sort_unstable();
                assert_eq!(found, walked.0, "B={b} K={k}, {threads} threads");
            }
        }
    }

    /// Every part is dealt to one share, once; the shares' loads (the squares of their parts'
    /// sizes) end at most one part apart (the heaviest light part, when there is no heavy
    /// one): parts alike, parts of random sizes, a few huge ones among many small, one part.
    #[test]
    fn parts_are_dealt_once_to_shares_of_about_equal_work() {
        let mut next = sh_testkit::xorshift(0x9e37_79b9_7f4a_7c15);
        let data = vec![0u64; 1 << 20];
        let alike: Vec<usize> = vec![122; 8192];
        let random: Vec<usize> = (0..5000).map(|_| 2 + (next() % 300) as usize).collect();
        let mut skewed: Vec<usize> = (0..4000).map(|_| 2 + (next() % 50) as usize).collect();
        for at in [5, 700, 3999] {
            skewed[at] = 60_000 + at;
        }
        let weight = |len: usize| (len as u64).pow(2);
        for (name, sizes) in
            [("alike", alike), ("random", random), ("skewed", skewed), ("one", vec![9])]
        {
            let slices: Vec<&[u64]> = sizes.iter().map(|&len| &data[..len]).collect();
            let total: u64 = sizes.iter().map(|&len| weight(len)).sum();
            for threads in 1..=4 {
                let shares = deal(slices.clone(), threads);
                assert_eq!(shares.len(), threads, "{name}");
                let mut dealt: Vec<usize> = shares.iter().flatten().map(|s| s.len()).collect();
                let mut expected = sizes.clone();
                dealt.sort_unstable();
                expected.sort_unstable();
                assert_eq!(dealt, expected, "{name}, {threads} threads: each part once");
                let loads: Vec<u64> = shares
                    .iter()
                    .map(|share| share.iter().map(|s| weight(s.len())).sum())
                    .collect();
                let spread = loads.iter().max().unwrap() - loads.iter().min().unwrap();
                let heaviest = sizes.iter().map(|&len| weight(len)).max().unwrap();
                assert!(spread <= heaviest, "{name}, {threads} threads: loads {loads:?}");
                let heavy_from = total / (threads as u64 * HEAVY_SHARE);
                if heaviest <= heavy_from {
                    assert!(spread <= heavy_from, "{name}, {threads}: light only, {loads:?}");
                }
                // No worse than every part dealt largest first, by more than a light part.
                let mut sorted = sizes.clone();
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                let mut largest_first = vec![0u64; threads];
                for &len in &sorted {
                    *largest_first.iter_mut().min().unwrap() += weight(len);
                }
                let (ours, best) =
                    (*loads.iter().max().unwrap(), *largest_first.iter().max().unwrap());
                assert!(ours <= best + heavy_from, "{name}, {threads}: {ours} against {best}");
            }
        }
    }
}
