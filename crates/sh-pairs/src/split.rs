//! Splitting a set of fingerprints by the bits of one block: sorting it by the block's value
//! (a radix sort; for a large set, dealt out by the block's top 13 bits on several threads
//! instead, a wider block's other bits left to the search), or, for a set that fits in cache,
//! grouping it by a counting sort (when it has at least as many members as the block has
//! values), else, where most members are alone in their value, by marking each value's members
//! in a table of one byte per value (blocks of up to 16 bits) or with a hash table (wider
//! blocks).

use sh_core::threads::spawn_or_run;

mod lines;

#[cfg(test)]
pub(crate) use lines::LINES_WRITTEN;
pub(crate) use lines::{deal, past_caches, Deal, Direct, Lines};

/// Sets up to this size are split by the [`Grouper`] (counting, marking or hashing) rather than
/// sorted.
pub(crate) const HASH_GROUPS_UP_TO: usize = 1 << 16;

/// The groups of equal block value within a set, collected by a counting sort, by marking or
/// with a hash table.
#[derive(Debug, Default)]
pub(crate) struct Grouper {
    /// Open addressing: the last member seen of each block value, or `NONE`.
    slots: Vec<u32>,
    /// The member seen before each member with the same block value, or `NONE`.
    previous: Vec<u32>,
    /// Members of the groups of two or more, group after group (by counting: every member, the
    /// groups' runs among them).
    pub(crate) members: Vec<u64>,
    pub(crate) groups: Vec<std::ops::Range<usize>>,
    /// The slots of the groups of two or more, in the order their second member came.
    shared: Vec<u32>,
    /// Counting: the members of each block value, then where its run starts. Marking: where
    /// the next member of each value met goes.
    counts: Vec<u32>,
    /// Marking: the members of each block value, up to 255; all 0 between calls.
    marks: Vec<u8>,
    /// Marking: the members whose value has two or more, in the order of the set.
    kept: Vec<u64>,
}

/// Blocks of up to this many bits are grouped by marking rather than with a hash table (its
/// tables then take up to 64 KiB of counts and 256 KiB of places).
const MARK_UP_TO_BITS: u32 = 16;

const NONE: u32 = u32::MAX;

impl Grouper {
    /// Collects the groups of two or more in `set` by the bits under `mask` (a contiguous run
    /// of bits): by counting where the set has at least as many members as the block has
    /// values (most groups then have two or more members), else by marking (blocks of up to
    /// [`MARK_UP_TO_BITS`]) or with a hash table. Inlined into its one caller, the search's hot
    /// loop: as a call of its own, where it lands in the binary moved the search's time by 5-10%
    /// from build to build (BENCHMARKS.md).
    #[inline]
    pub(crate) fn group(&mut self, set: &[u64], mask: u64) {
        let bits = mask.count_ones();
        if 1usize << bits <= set.len() {
            self.group_by_counting(set, mask);
        } else if bits <= MARK_UP_TO_BITS {
            self.group_by_marking(set, mask);
        } else {
            self.group_by_hashing(set, mask);
        }
    }

    /// The groups by a count per block value, one byte each (8 KiB for the 13-bit blocks of
    /// B = 5, which stay in the first-level cache): a first pass counts; a second keeps the
    /// members whose value is counted twice or more (few, where the block has many more values
    /// than the set has members; kept without a branch); a third deals those out to their
    /// groups' runs, the counts giving each run's length, and a fourth clears the counts. Cheap
    /// passes in place of a probe of a hash table per member.
    #[inline]
    fn group_by_marking(&mut self, set: &[u64], mask: u64) {
        let shift = mask.trailing_zeros();
        let values = 1usize << mask.count_ones();
        // Runs end at most at the set's length, which a `u32` must hold (the search's sets
        // have fewer members than the block has values, at most 2^16).
        debug_assert!(u32::try_from(set.len()).is_ok());
        let value = |fp: u64| (fp >> shift) as usize & (values - 1);
        if self.marks.len() < values {
            self.marks.resize(values, 0);
        }
        if self.counts.len() < values {
            self.counts.resize(values, 0); // no clearing: each place is set before it is read
        }
        let marks = &mut self.marks[..values];
        for &fp in set {
            let m = &mut marks[value(fp)];
            *m = m.saturating_add(1);
        }
        let kept = &mut self.kept;
        kept.clear();
        kept.resize(set.len(), 0);
        let mut len = 0;
        for &fp in set {
            kept[len] = fp;
            len += (marks[value(fp)] >= 2) as usize;
        }
        kept.truncate(len);
        // Each value's run starts where the runs of the values met before it end; the first
        // member of a value claims the run and clears the value's count.
        self.members.clear();
        self.members.resize(len, 0);
        self.groups.clear();
        let place = &mut self.counts[..values];
        let (mut end, mut saturated) = (0u32, false);
        for &fp in kept.iter() {
            let v = value(fp);
            let count = marks[v];
            if count != 0 {
                saturated |= count == u8::MAX;
                place[v] = end;
                self.groups.push(end as usize..(end + count as u32) as usize);
                end += count as u32;
                marks[v] = 0;
            }
            // Within `members` even where a count saturated: a run's true length is at least
            // its count, so every run ends by the sum of the true lengths.
            self.members[place[v] as usize] = fp;
            place[v] += 1;
        }
        for &fp in set {
            marks[value(fp)] = 0;
        }
        if saturated {
            // A value with 255 members or more: its count is short, so group by sorting.
            self.members.copy_from_slice(kept);
            self.members.sort_unstable_by_key(|&fp| fp & mask);
            self.groups.clear();
            let mut start = 0;
            while start < len {
                let run = run_length(&self.members[start..], mask);
                self.groups.push(start..start + run);
                start += run;
            }
        }
    }

    /// The groups by open addressing on the block's value, each listing its members from the
    /// last to come to the first.
    #[inline]
    fn group_by_hashing(&mut self, set: &[u64], mask: u64) {
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

    /// The groups by a counting sort on the block's value: two small arrays touched in order
    /// instead of a table at random. `members` holds every member, in the order of value.
    #[inline]
    fn group_by_counting(&mut self, set: &[u64], mask: u64) {
        let shift = mask.trailing_zeros();
        let values = 1usize << mask.count_ones();
        let value = |fp: u64| (fp >> shift) as usize & (values - 1);
        let counts = &mut self.counts;
        counts.clear();
        counts.resize(values, 0);
        for &fp in set {
            counts[value(fp)] += 1;
        }
        self.groups.clear();
        let mut start = 0u32;
        for count in counts.iter_mut() {
            let n = *count;
            *count = start;
            if n >= 2 {
                self.groups.push(start as usize..(start + n) as usize);
            }
            start += n;
        }
        self.members.clear();
        self.members.resize(set.len(), 0);
        for &fp in set {
            let at = &mut counts[value(fp)];
            self.members[*at as usize] = fp;
            *at += 1;
        }
    }
}

/// Below this size a comparison sort beats a radix sort's fixed cost per digit.
const RADIX_THRESHOLD: usize = 256;

/// Orders `set` by the bits under `mask`: a radix sort on the block's value for large sets
/// (digits that are equal throughout are skipped), a comparison sort for small ones.
pub(crate) fn sort_by_block(set: &mut [u64], mask: u64) {
    if set.len() >= RADIX_THRESHOLD {
        let shift = mask.trailing_zeros();
        radsort::sort_by_key(set, |fp| (fp & mask) >> shift);
    } else {
        set.sort_unstable_by_key(|fp| fp & mask);
    }
}

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
/// large set. The set is cut into one stretch per thread, and each thread counts the values of
/// the block's top bits ([`dealt_bits`]) in its stretch ([`count_stretches`]); then
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
    let chunk = n.div_ceil(threads);
    let stretches: Vec<_> = (0..n).step_by(chunk).map(|at| at..(at + chunk).min(n)).collect();
    let census = count_stretches(set, stretches, &[mask]).pop().expect("one census a mask");
    Some(deal_counted(set, mask, &census, sorted))
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

/// A census of `stretches` of `set` (in order, end to end over it) for each of `masks`, in one
/// pass over the set: a thread a stretch, each read in pieces that stay in the first-level
/// cache while each mask's values are counted.
pub(crate) fn count_stretches(
    set: &[u64],
    stretches: Vec<std::ops::Range<usize>>,
    masks: &[u64],
) -> Vec<Census> {
    let counted: Vec<Vec<Vec<usize>>> = std::thread::scope(|scope| {
        let counters: Vec<_> = stretches
            .iter()
            .map(|stretch| {
                let part = &set[stretch.clone()];
                spawn_or_run(scope, move || count_values(part, masks))
            })
            .collect();
        counters.into_iter().map(|c| c.join()).collect()
    });
    Census::per_mask(stretches, counted)
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

/// Fingerprints read at a time by [`count_values`]: 32 KB, in the first-level cache.
pub(crate) const COUNTED_AT_ONCE: usize = 4096;

/// The counts of the values of each of `masks`' dealt bits in `part`.
fn count_values(part: &[u64], masks: &[u64]) -> Vec<Vec<usize>> {
    let mut counts = no_counts(masks);
    for piece in part.chunks(COUNTED_AT_ONCE) {
        count_into(piece, masks, &mut counts);
    }
    counts
}

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

/// How many fingerprints at the start of `set` have the bits of the first under `mask`.
pub(crate) fn run_length(set: &[u64], mask: u64) -> usize {
    let value = set[0] & mask;
    set.iter().take_while(|&&fp| fp & mask == value).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The groups of two or more, each as its sorted members, in the order of their values.
    fn groups_of(grouper: &Grouper, mask: u64) -> Vec<Vec<u64>> {
        let mut groups: Vec<Vec<u64>> = grouper
            .groups
            .iter()
            .map(|range| {
                let mut members = grouper.members[range.clone()].to_vec();
                members.sort_unstable();
                members
            })
            .collect();
        groups.sort_unstable_by_key(|members| (members[0] & mask, members[0]));
        groups
    }

    #[test]
    fn counting_and_marking_find_the_groups_of_hashing() {
        let mut next = sh_testkit::xorshift(0x2545_f491_4f6c_dd1d);
        let (mut hashing, mut counting, mut marking) =
            (Grouper::default(), Grouper::default(), Grouper::default());
        // One grouper that does both in turn, as the search's does.
        let mut both = Grouper::default();
        // Blocks of 1 to 16 bits at the bottom, middle and top; sets with all members distinct
        // in the block, all equal, and in between; the groupers reused from set to set.
        for len in [0, 1, 2, 3, 17, 100, 1000, 5000] {
            for bits in [1u32, 2, 5, 8, 11, 13, 16] {
                for shift in [0, 23, 64 - bits] {
                    let mask = ((1u64 << bits) - 1) << shift;
                    for spread in [0u64, 3, u64::MAX] {
                        let mut set: Vec<u64> =
                            (0..len).map(|_| next() & !(mask & !(spread << shift))).collect();
                        set.sort_unstable();
                        set.dedup();
                        hashing.group_by_hashing(&set, mask);
                        counting.group_by_counting(&set, mask);
                        marking.group_by_marking(&set, mask);
                        both.group_by_counting(&set, mask);
                        both.group_by_marking(&set, mask);
                        let context = format!("len {len} mask {mask:x} spread {spread}");
                        let expected = groups_of(&hashing, mask);
                        assert_eq!(groups_of(&counting, mask), expected, "{context}");
                        assert_eq!(groups_of(&marking, mask), expected, "{context}");
                        assert_eq!(groups_of(&both, mask), expected, "{context}");
                        for range in counting.groups.iter().chain(&marking.groups) {
                            assert!(range.len() >= 2, "{context}");
                        }
                        // Marking leaves its counts clear for the next set.
                        for grouper in [&marking, &both] {
                            assert!(grouper.marks.iter().all(|&m| m == 0), "{context}");
                        }
                    }
                }
            }
        }
    }

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
                let census = count_stretches(&set, stretches, &[mask]).pop().unwrap();
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
