//! Reading a set that ascends for its runs of block 0 on threads, a stretch a thread, and,
//! where the later splits are dealt out on threads, counting their blocks' values in the same
//! pass ([`survey`]).

use sh_core::threads::spawn_or_run;

use crate::split::{count_into, deals_on_threads, no_counts, run_length, Census, COUNTED_AT_ONCE};

/// The runs of [`runs_of_block`] and, where the later splits are dealt out on threads
/// ([`deals_on_threads`]), the census of each of `later` (the blocks of the later splits) for
/// the stretches the runs were read in: one pass over `set`, a thread a stretch, each stretch
/// read in pieces that stay in the cache while every block's values are counted. (Three passes
/// of their own over 1M fingerprints, at K = 3, took about 1.1 ms each.)
pub(super) fn survey(
    set: &[u64],
    mask: u64,
    later: &[u64],
    threads: usize,
) -> (Vec<std::ops::Range<usize>>, Vec<Census>) {
    if later.is_empty() || !deals_on_threads(set.len(), threads) {
        return (runs_of_block(set, mask, threads), Vec::new());
    }
    let stretches = stretches_of(set, mask, threads);
    if skewed(&stretches, threads) {
        // Its thread would count and deal every later split nearly alone. The splits then
        // count equal chunks of their own ([`sort_by_block_into`]).
        return (runs_of_block(set, mask, threads), Vec::new());
    }
    let (runs, counted) = read_stretches(set, mask, later, &stretches);
    (runs, Census::per_mask(stretches, counted))
}

/// The runs of two or more members of `set` (ordered by the bits under `mask`) with one value
/// of those bits, in order, and each stretch's counts of the values of each of `later`'s dealt
/// bits: a thread a stretch (each starting where the value changes), read in pieces that stay
/// in the cache while every block's values are counted.
fn read_stretches(
    set: &[u64],
    mask: u64,
    later: &[u64],
    stretches: &[std::ops::Range<usize>],
) -> (Vec<std::ops::Range<usize>>, Vec<Vec<Vec<usize>>>) {
    // Each stretch's runs, and its counts of each later block's values.
    type Found = (Vec<std::ops::Range<usize>>, Vec<Vec<usize>>);
    let found: Vec<Found> = std::thread::scope(|scope| {
        let readers: Vec<_> = stretches
            .iter()
            .map(|stretch| {
                let (from, to) = (stretch.start, stretch.end);
                spawn_or_run(scope, move || {
                    let mut runs = Vec::new();
                    let mut counts = no_counts(later);
                    let mut start = from;
                    for piece in (from..to).step_by(COUNTED_AT_ONCE) {
                        let piece_end = (piece + COUNTED_AT_ONCE).min(to);
                        count_into(&set[piece..piece_end], later, &mut counts);
                        // The runs that start in this piece (the last may go on past it).
                        while start < piece_end {
                            let len = run_length(&set[start..to], mask);
                            if len >= 2 {
                                runs.push(start..start + len);
                            }
                            start += len;
                        }
                    }
                    (runs, counts)
                })
            })
            .collect();
        readers.into_iter().map(|r| r.join()).collect()
    });
    let (runs, counted): (Vec<Vec<_>>, Vec<_>) = found.into_iter().unzip();
    (runs.concat(), counted)
}

/// Whether some stretch of a set holds more than one and a half of `threads` equal shares of
/// it (block 0's values alike in much of the set).
fn skewed(stretches: &[std::ops::Range<usize>], threads: usize) -> bool {
    let n = stretches.last().map_or(0, |s| s.end);
    stretches.iter().any(|s| 2 * s.len() > 3 * n.div_ceil(threads))
}

/// The stretches of `set` (ordered by the bits under `mask`) read by a thread each, end to
/// end: each starts at the first member of a value.
fn stretches_of(set: &[u64], mask: u64, threads: usize) -> Vec<std::ops::Range<usize>> {
    let n = set.len();
    let mut cuts: Vec<usize> = (0..threads)
        .map(|t| {
            let mut at = t * n / threads;
            while at > 0 && at < n && set[at] & mask == set[at - 1] & mask {
                at += 1;
            }
            at
        })
        .collect();
    cuts.push(n);
    cuts.windows(2).map(|w| w[0]..w[1].max(w[0])).collect()
}

/// The runs of two or more members of `set` (ordered by the bits under `mask`) with one value
/// of those bits, in order: read on `threads` threads, each reading a stretch of the set that
/// starts and ends where the value changes.
pub(super) fn runs_of_block(set: &[u64], mask: u64, threads: usize) -> Vec<std::ops::Range<usize>> {
    let n = set.len();
    let threads = if n < PARALLEL_RUNS_FROM { 1 } else { threads.max(1) };
    let stretches = stretches_of(set, mask, threads);
    read_stretches(set, mask, &[], &stretches).0
}

/// [`runs_of_block`] of `set[part]`, as ranges of `set`.
pub(super) fn runs_within(
    set: &[u64],
    part: std::ops::Range<usize>,
    mask: u64,
    threads: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> {
    let base = part.start;
    runs_of_block(&set[part], mask, threads).into_iter().map(move |r| r.start + base..r.end + base)
}

/// Sets from this size are read for their runs on several threads.
const PARALLEL_RUNS_FROM: usize = 1 << 18;

/// The runs of two or more members of each value, from where each value's run starts (and the
/// end).
pub(super) fn runs_from_starts(starts: &[usize]) -> Vec<std::ops::Range<usize>> {
    starts.windows(2).filter(|w| w[1] - w[0] >= 2).map(|w| w[0]..w[1]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::{dealt_bits, sort_by_block};

    /// The runs read on threads are those read in one pass, whatever the runs across the
    /// places where the set is cut: one value throughout, one run over the middle, runs of one.
    #[test]
    fn runs_read_on_threads_are_the_runs_of_one_pass() {
        let mut next = sh_testkit::xorshift(0x2545_f491_4f6c_dd1d);
        let n = PARALLEL_RUNS_FROM + 1001;
        let mask = 0xff << 40;
        let random: Vec<u64> = (0..n).map(|_| next()).collect();
        let mut middle = random.clone();
        for fp in &mut middle[n / 3..n * 2 / 3 + 5] {
            *fp = (*fp & !mask) | (0x80 << 40);
        }
        let same = vec![7u64 << 40; n];
        let distinct: Vec<u64> = (0..n as u64).collect();
        let sets = [("random", random, mask), ("middle", middle, mask), ("same", same, mask)];
        for (name, mut set, mask) in sets.into_iter().chain([("distinct", distinct, u64::MAX)]) {
            sort_by_block(&mut set, mask);
            let mut expected = Vec::new();
            let mut start = 0;
            while start < n {
                let len = run_length(&set[start..], mask);
                if len >= 2 {
                    expected.push(start..start + len);
                }
                start += len;
            }
            // The survey's later blocks: narrow, wide (its top 13 bits counted), the block itself.
            let later = [0x1fff << 20, 0xf_ffff << 3, mask];
            for threads in 1..=4 {
                assert_eq!(runs_of_block(&set, mask, threads), expected, "{name}, {threads}");
                // The survey reads the runs in pieces (runs across them) and counts each later
                // block's values in the stretches it read, end to end over the set.
                let (runs, censuses) = survey(&set, mask, &later, threads);
                assert_eq!(runs, expected, "survey: {name}, {threads}");
                // A skewed set (one value throughout is one stretch) is left to the splits'
                // own counts.
                let stretches = stretches_of(&set, mask, threads);
                let lopsided = skewed(&stretches, threads);
                assert_eq!(
                    lopsided,
                    name == "same" && threads > 1 || name == "middle" && threads == 4,
                    "{name}, {threads}"
                );
                let counted = threads > 1 && !lopsided;
                assert_eq!(censuses.len(), if counted { later.len() } else { 0 }, "{name}");
                for (census, &block) in censuses.iter().zip(&later) {
                    let ends: Vec<usize> = census.stretches.iter().map(|s| s.end).collect();
                    let starts: Vec<usize> = census.stretches.iter().map(|s| s.start).collect();
                    assert_eq!((starts[0], ends[ends.len() - 1]), (0, n), "{name}, {threads}");
                    assert_eq!(
                        starts[1..],
                        ends[..ends.len() - 1],
                        "{name}, {threads}: end to end"
                    );
                    let dealt = dealt_bits(block);
                    for (stretch, counts) in census.stretches.iter().zip(&census.counts) {
                        let mut expected = vec![0usize; 1 << dealt.count_ones()];
                        for &fp in &set[stretch.clone()] {
                            expected[((fp & dealt) >> dealt.trailing_zeros()) as usize] += 1;
                        }
                        assert!(*counts == expected, "{name}, {threads}, {block:x}, {stretch:?}");
                    }
                }
                // Nothing to count: the runs alone.
                assert_eq!(survey(&set, mask, &[], threads), (expected.clone(), Vec::new()));
            }
        }
    }
}
