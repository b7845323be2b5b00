//! Splitting a set of fingerprints by the bits of one block: sorting it by the block's value
//! (a radix sort; for a large set, dealt out by the block's top 13 bits on several threads
//! instead, a wider block's other bits left to the search), or, for a set that fits in cache,
//! grouping it by a counting sort (when it has at least as many members as the block has
//! values), else, where most members are alone in their value, by marking each value's members
//! in a table of one byte per value (blocks of up to 16 bits) or with a hash table (wider
//! blocks).

mod counting;
mod lines;

pub(crate) use counting::{
    count_chunks, count_into, deal_counted, deals_on_threads, dealt_bits, no_counts,
    sort_by_block_into, Census, COUNTED_AT_ONCE,
};
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
}
