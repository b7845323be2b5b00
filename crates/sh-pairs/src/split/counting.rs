//! Splitting a large set by a block on threads: a counting sort whose first pass counts the
//! values of the block's top bits in a stretch of the set per thread ([`Census`], several
//! blocks in one pass where the search asks), and whose second deals each stretch out into its
//! shares of the values' runs ([`deal_counted`]).

use sh_core::threads::spawn_or_run;

use super::{deal, sort_by_block};

/// Sets from this size are dealt out on several threads when there are.
const PARALLEL_SORT_FROM: usize = 1 << 18;

/// At most this many bits of a block are dealt out in the parallel pass; the runs of a wider
/// block's parts are found by the search, which groups each part by the block's other bits.
/// 13 covers the blocks of B = 5 (12 and 13 bits) in one pass: 10M random, -b 5 -k 3, 5
/// alternating runs, search median 0.98 s with 12, 0.82 s with 13, 0.86 s with 14.
const PARTITION_BITS: u32 = 13;

/// The bits of block `mask` that [`sort_by_block_into`] deals out on threads: its top
/// [`PARTITION_BITS`] bits, or all of a narrower block.
pub(crate) fn dealt_bits(mask: u64) -> u64 {
    let bits = mask.count_ones();
    mask & !((1u64 << (mask.trailing_zeros() + bits.saturating_sub(PARTITION_BITS))) - 1)
}

/// `set`'s fingerprints into `sorted` (its contents dropped, its room used), ordered by the
/// bits under `mask` (on threads, by their top bits only: below), on `threads` threads for a
/// large set. The set is cut into one chunk per thread, and each thread counts the values of
/// the block's top bits ([`dealt_bits`]) in its chunk ([`count_chunks`]); then
/// [`deal_counted`] deals them out.
///
/// Returns where the run of each value of those top bits starts in `sorted` (and the end) when
/// the set was dealt out on threads: `sorted` is then ordered by those bits only, a wider
/// block's lower bits left unsorted within each run for the caller to group (the runs are
/// usually small; the search cuts a large one into its runs of the whole block). `None` when
/// the set was sorted by the whole block instead (one thread, or a set too small for threads
/// to pay).
pub(crate) fn sort_by_block_into(
    set: &[u64],
    mask: u64,
    threads: usize,
    sorted: &mut Vec<u64>,
) -> Option<Vec<usize>> {
    let n = set.len();
    if !deals_on_threads(n, threads) {
        sorted.clear();
        sorted.extend_from_slice(set);
        sort_by_block(sorted, mask);
        return None;
    }
    let dealt = dealt_bits(mask);
    let (shift, values) = (dealt.trailing_zeros(), 1usize << dealt.count_ones());
    let chunk = n.div_ceil(threads);
    let (counts, _) = count_chunks(set, chunk, values, move |fp| (fp >> shift) as usize % values);
    let stretches = (0..n).step_by(chunk).map(|at| at..(at + chunk).min(n)).collect();
    Some(deal_counted(set, mask, &Census { stretches, counts }, sorted))
}

/// Whether [`sort_by_block_into`] deals a set of `n` out on `threads` threads (else it sorts it
/// on this one).
pub(crate) fn deals_on_threads(n: usize, threads: usize) -> bool {
    threads >= 2 && n >= PARALLEL_SORT_FROM
}

/// How many fingerprints of each stretch of a set have each value of a block's dealt bits
/// ([`dealt_bits`]): the first pass of a counting sort on threads, a thread a stretch.
#[derive(Debug, PartialEq)]
pub(crate) struct Census {
    /// The stretches, in order, end to end over the set.
    pub(crate) stretches: Vec<std::ops::Range<usize>>,
    /// For each stretch, the count of each value.
    pub(crate) counts: Vec<Vec<usize>>,
}

impl Census {
    /// The census of each mask, from the counts of each stretch for each mask.
    pub(crate) fn per_mask(
        stretches: Vec<std::ops::Range<usize>>,
        counted: Vec<Vec<Vec<usize>>>,
    ) -> Vec<Census> {
        let masks = counted.first().map_or(0, Vec::len);
        let mut censuses: Vec<Census> = (0..masks)
            .map(|_| Census { stretches: stretches.clone(), counts: Vec::new() })
            .collect();
        for per_mask in counted {
            for (census, counts) in censuses.iter_mut().zip(per_mask) {
                census.counts.push(counts);
            }
        }
        censuses
    }
}

/// Fingerprints read at a time by the search's survey of its splits: 32 KB, in the first-level
/// cache while each block's values are counted ([`count_into`]).
pub(crate) const COUNTED_AT_ONCE: usize = 4096;

/// A count of 0 for each value of each of `masks`' dealt bits.
pub(crate) fn no_counts(masks: &[u64]) -> Vec<Vec<usize>> {
    masks.iter().map(|&m| vec![0usize; 1 << dealt_bits(m).count_ones()]).collect()
}

/// Adds the values of each of `masks`' dealt bits in `piece` to `counts`, a mask at a time
/// (`piece` is small enough to stay in the cache between them).
pub(crate) fn count_into(piece: &[u64], masks: &[u64], counts: &mut [Vec<usize>]) {
    for (&mask, counts) in masks.iter().zip(counts) {
        let dealt = dealt_bits(mask);
        let shift = dealt.trailing_zeros();
        let values = counts.len();
        for &fp in piece {
            counts[(fp >> shift) as usize & (values - 1)] += 1;
        }
    }
}

/// The second pass of the counting sort of [`sort_by_block_into`]: `set` dealt out into
/// `sorted` by the dealt bits of `mask`, as `census` counted them. Every value owns a run of
/// `sorted`, cut into one share per stretch, so that each thread copies the fingerprints of its
/// own stretch into its own shares (no two threads write the same place, and each reads only
/// its stretch; for a large set, through lines written past the caches: `split/lines.rs`), and
/// the fingerprints of a value keep the order of the set. Returns where each value's run starts
/// (and the end).
pub(crate) fn deal_counted(
    set: &[u64],
    mask: u64,
    census: &Census,
    sorted: &mut Vec<u64>,
) -> Vec<usize> {
    let n = set.len();
    let dealt = dealt_bits(mask);
    let shift = dealt.trailing_zeros();
    let values = 1usize << dealt.count_ones();
    let value = move |fp: u64| (fp >> shift) as usize & (values - 1);
    let starts = starts_of(&census.counts, values);
    debug_assert_eq!(starts[values], n, "the census counts the whole set");

    if sorted.len() >= n {
        sorted.truncate(n); // pages in memory already
    } else if sorted.capacity() >= n {
        sorted.resize(n, 0);
    } else {
        // Zeroed pages from the system, each first touched by the thread that fills it.
        *sorted = vec![0; n];
        sh_core::memory::prefer_huge_pages(sorted);
    }
    let mut shares: Vec<Vec<&mut [u64]>> =
        census.counts.iter().map(|_| Vec::with_capacity(values)).collect();
    let mut rest = &mut sorted[..n];
    for v in 0..values {
        for (share, counts) in shares.iter_mut().zip(&census.counts) {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(counts[v]);
            rest = tail;
            share.push(part);
        }
    }
    std::thread::scope(|scope| {
        let tasks: Vec<_> = census
            .stretches
            .iter()
            .zip(shares)
            // The counts made room for every fingerprint of the stretch.
            .map(|(stretch, share)| {
                let part = &set[stretch.clone()];
                spawn_or_run(scope, move || deal::<u64, 8>(part, value, share, n * 8))
            })
            .collect();
        // Joined, so that each thread has ended (its thread-local storage freed) on return.
        tasks.into_iter().for_each(|task| task.join());
    });
    starts
}

/// Where each value's run starts when the chunks counted in `chunk_counts` are sorted by it
/// (and the end).
fn starts_of(chunk_counts: &[Vec<usize>], values: usize) -> Vec<usize> {
    let mut starts = vec![0usize; values + 1];
    for counts in chunk_counts {
        for (total, count) in starts[1..].iter_mut().zip(counts) {
            *total += count;
        }
    }
    for v in 1..=values {
        starts[v] += starts[v - 1];
    }
    starts
}

/// For a counting sort of `set` by `value` (below `values`) on threads: how many of each
/// chunk's fingerprints have each value (a thread a chunk of `chunk`), and where each value's
/// run starts when they are sorted (and the end).
pub(crate) fn count_chunks(
    set: &[u64],
    chunk: usize,
    values: usize,
    value: impl Fn(u64) -> usize + Copy + Send,
) -> (Vec<Vec<usize>>, Vec<usize>) {
    let chunk_counts: Vec<Vec<usize>> = std::thread::scope(|scope| {
        let counters: Vec<_> = set
            .chunks(chunk)
            .map(|part| {
                spawn_or_run(scope, move || {
                    let mut counts = vec![0usize; values];
                    for &fp in part {
                        counts[value(fp)] += 1;
                    }
                    counts
                })
            })
            .collect();
        counters.into_iter().map(|c| c.join()).collect()
    });
    let starts = starts_of(&chunk_counts, values);
    (chunk_counts, starts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::lines;
    use crate::split::past_caches;

    #[test]
    fn sorting_into_a_buffer_of_any_size_keeps_the_set() {
        let mut next = sh_testkit::xorshift(0x2545_f491_4f6c_dd1d);
        let n = PARALLEL_SORT_FROM + 99;
        let set: Vec<u64> = (0..n).map(|_| next()).collect();
        let mask = 0x1fff << 20;
        let mut expected = set.clone();
        sort_by_block(&mut expected, mask);
        expected.sort_by_key(|&fp| (fp & mask, fp));
        // Longer than the set (the room of the records), with room but short, empty.
        let rooms = [vec![7; n + 500], Vec::with_capacity(n + 1), vec![1; 10], Vec::new()];
        for (i, mut room) in rooms.into_iter().enumerate() {
            for threads in [1, 2, 3] {
                sort_by_block_into(&set, mask, threads, &mut room);
                assert_eq!(room.len(), n, "room {i}, {threads} threads");
                assert!(room.windows(2).all(|w| w[0] & mask <= w[1] & mask));
                let mut sorted = room.clone();
                sorted.sort_by_key(|&fp| (fp & mask, fp));
                assert_eq!(sorted, expected, "the same fingerprints, room {i}");
            }
        }
    }

    #[test]
    fn the_parallel_sort_groups_like_the_plain_one() {
        let mut next = sh_testkit::xorshift(0x9e37_79b9_7f4a_7c15);
        let set: Vec<u64> = (0..PARALLEL_SORT_FROM as u64 + 4321)
            .map(|i| {
                let x = next();
                if i % 5 == 0 {
                    x & 0xffff
                } else {
                    x
                }
            })
            .collect();
        // Blocks of 8 to 21 bits (all of them dealt out, or their top 13 bits), low, middle,
        // high, in a fresh buffer each time.
        let masks = [0xffu64, 0xfff << 20, 0x1fff << 40, 0xffff << 48, 0xffff, 0x3ff << 54];
        for mask in masks.into_iter().chain([0x1f_ffff << 43, 0x3fff << 3]) {
            for threads in [2, 3] {
                let mut ours = Vec::new();
                let starts = sort_by_block_into(&set, mask, threads, &mut ours);
                // Where the runs of the values of the bits dealt out start: every value's
                // fingerprints, and only they, in its run.
                let dealt = dealt_bits(mask);
                let bits = dealt.count_ones();
                assert_eq!(bits, mask.count_ones().min(PARTITION_BITS), "{mask:x}");
                assert_eq!(dealt & !mask, 0, "{mask:x}: the block's own bits");
                assert_eq!(dealt.leading_zeros(), mask.leading_zeros(), "{mask:x}: its top bits");
                let starts = starts.expect("dealt out on threads");
                assert_eq!((starts.len(), starts[1 << bits]), ((1 << bits) + 1, set.len()));
                let shift = dealt.trailing_zeros();
                for (v, run) in starts.windows(2).enumerate() {
                    let run = &ours[run[0]..run[1]];
                    assert!(run.iter().all(|&fp| (fp & dealt) >> shift == v as u64), "{v}");
                }
                assert!(ours.windows(2).all(|w| w[0] & dealt <= w[1] & dealt), "{mask:x}");
                let mut plain = set.clone();
                sort_by_block(&mut plain, mask);
                ours.sort_unstable();
                plain.sort_unstable();
                assert_eq!(ours, plain, "the same fingerprints, {mask:x}");
            }
        }
    }

    /// A census of stretches of any length (unequal, empty, one holding nearly all) deals the
    /// set as a stable sort by the dealt bits orders it: narrow and wide blocks.
    #[test]
    fn a_census_of_any_stretches_deals_as_a_stable_sort() {
        let mut next = sh_testkit::xorshift(0x5851_f42d_4c95_7f2d);
        let n = 50_000;
        let set: Vec<u64> =
            (0..n).map(|i| if i % 3 == 0 { next() & !(0x3fff << 30) } else { next() }).collect();
        let cuts = [
            vec![0, n],
            vec![0, 10, 10, 20_000, n],
            vec![0, 0, 1, n - 1, n, n],
            vec![0, 12_345, 25_000, 37_777, n],
        ];
        for mask in [0x1fffu64 << 30, 0x3fff << 30, 0xff] {
            let dealt = dealt_bits(mask);
            let mut expected = set.clone();
            expected.sort_by_key(|&fp| fp & dealt); // stable
            for cut in &cuts {
                let stretches: Vec<_> = cut.windows(2).map(|w| w[0]..w[1]).collect();
                let counts = stretches
                    .iter()
                    .map(|stretch| {
                        let mut counts = no_counts(&[mask]);
                        count_into(&set[stretch.clone()], &[mask], &mut counts);
                        counts.pop().unwrap()
                    })
                    .collect();
                let census = Census { stretches, counts };
                let mut ours = vec![7; 3];
                let starts = deal_counted(&set, mask, &census, &mut ours);
                assert!(ours == expected, "{mask:x} {cut:?}");
                assert_eq!(
                    (starts.len(), starts[starts.len() - 1]),
                    ((1 << dealt.count_ones()) + 1, n)
                );
            }
        }
    }

    /// A set whose copy is large enough to be dealt through lines written past the caches
    /// (`lines.rs`): each value's fingerprints in the order of the set, as a stable sort by the
    /// block puts them, on 2 and 3 threads (chunks whose rooms start anywhere in a cache line).
    #[test]
    fn the_sort_of_a_large_set_through_lines_is_stable() {
        let mut next = sh_testkit::xorshift(0xda94_2042_e4dd_58b5);
        let n = (32 << 20) / 8 + 12_345;
        assert!(past_caches(n * 8));
        // A tenth of the fingerprints share one value of the block: a long run.
        let set: Vec<u64> =
            (0..n).map(|i| if i % 10 == 0 { next() & !(0x1fff << 30) } else { next() }).collect();
        let mask = 0x1fff << 30;
        let mut expected = set.clone();
        expected.sort_by_key(|&fp| fp & mask);
        for threads in [2, 3] {
            let mut ours = vec![0; 5];
            let written = lines::LINES_WRITTEN.load(std::sync::atomic::Ordering::Relaxed);
            let starts = sort_by_block_into(&set, mask, threads, &mut ours);
            // Most of the output in full lines (other tests may add to the count, not take).
            let now = lines::LINES_WRITTEN.load(std::sync::atomic::Ordering::Relaxed);
            assert!(now - written >= n / 8 / 2, "{threads} threads: through lines");
            assert!(ours == expected, "{threads} threads");
            assert_eq!(starts.map(|s| s.len()), Some((1 << 13) + 1));
        }
    }
}
