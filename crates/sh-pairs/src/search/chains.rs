//! The pairs of a set that agree on one block, found in one pass over the set: the last member
//! met of each block value is kept in a table of one slot per value, and each member links to
//! the member before it with its value. A member whose value was met before is then paired with
//! each member of the chain behind it (a pass over the links), so every pair of a group is met
//! once.
//!
//! For the last block of a table, where the groups are not split further: in place of the
//! grouper's four passes over the set (count, keep, deal out, clear), and with no clearing, the
//! slots being stamped with the number of the set they belong to.

/// Slots and links for sets of up to 2^16 members and blocks of up to 16 bits.
#[derive(Debug, Default)]
pub(crate) struct Chains {
    /// Per block value: the set's stamp in the high 16 bits, its last member in the low 16.
    slots: Vec<u32>,
    /// Per member: the member before it with its value, or [`NONE`].
    before: Vec<u32>,
    /// The members with a member before them, in order: the first `count` of a call's (the
    /// rest is left from before).
    linked: Vec<u32>,
    /// The stamp of the current set, 1 to `u16::MAX` (0 is never a set's, so new slots are
    /// empty).
    stamp: u32,
}

/// The end of a chain.
const NONE: u32 = u32::MAX;

/// Sets of up to this many members.
pub(crate) const CHAIN_MEMBERS: usize = 1 << 16;

/// Blocks of up to this many bits.
pub(crate) const CHAIN_BITS: u32 = 16;

impl Chains {
    /// Calls `pair(a, b)` once for each pair of members of `set` (`b` the earlier in the set)
    /// with the same bits under `mask` (a contiguous run of at most [`CHAIN_BITS`] bits); `set`
    /// has at most [`CHAIN_MEMBERS`] members.
    ///
    /// A first pass links every member to the one before it with its value and lists the
    /// members with a link (few, where the block has many more values than the set has
    /// members), without a branch; a second walks the chains of those listed only. (Finding
    /// them by a branch on each member's link, mispredicted for about one member in seven at
    /// B = 5, took a third more of the search: 10M random fingerprints at K = 3, search 0.320
    /// against 0.240 s.)
    #[inline(always)]
    pub(crate) fn pairs(&mut self, set: &[u64], mask: u64, mut pair: impl FnMut(u64, u64)) {
        debug_assert!(set.len() <= CHAIN_MEMBERS && mask.count_ones() <= CHAIN_BITS);
        let shift = mask.trailing_zeros();
        let top = (1u64 << mask.count_ones()) - 1;
        if self.before.len() < set.len() {
            self.before.resize(set.len(), NONE);
        }
        self.stamp += 1;
        if self.slots.is_empty() || self.stamp > u32::from(u16::MAX) {
            // Every stamp used: the slots are cleared and stamps start again.
            self.slots.clear();
            self.slots.resize(1 << CHAIN_BITS, 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        // Of a known length, so that a 16-bit value needs no check of its bounds.
        let slots: &mut [u32; 1 << CHAIN_BITS] =
            (&mut self.slots[..]).try_into().expect("a slot for every 16-bit value");
        if self.linked.len() < set.len() {
            self.linked.resize(set.len(), 0);
        }
        let before = &mut self.before[..set.len()];
        let linked = &mut self.linked[..set.len()];
        let mut count = 0;
        for ((i, &fp), link) in set.iter().enumerate().zip(before.iter_mut()) {
            let slot = &mut slots[((fp >> shift) & top) as u16 as usize];
            let last = *slot;
            *slot = stamp << 16 | i as u32;
            let met = last >> 16 == stamp;
            *link = if met { last & 0xffff } else { NONE };
            // Kept whether or not it has a link; counted only if it has one.
            linked[count] = i as u32;
            count += usize::from(met);
        }
        for &i in &linked[..count] {
            let mut member = before[i as usize];
            while member != NONE {
                pair(set[i as usize], set[member as usize]);
                member = before[member as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_of_equal_block_values_once() {
        let mut next = sh_testkit::xorshift(0x2545_f491_4f6c_dd1d);
        let mut chains = Chains::default();
        // The stamps run out and start again in the middle of the second round (the slots
        // then hold the stamps of the sets before, which must not count as this set's).
        for round in 0..2 {
            if round == 1 {
                chains.stamp = u32::from(u16::MAX) - 200;
            }
            // Blocks of 1 to 16 bits at the bottom, middle and top; sets with all members
            // distinct in the block, all equal, and in between; one table throughout.
            for len in [0usize, 1, 2, 3, 17, 100, 1000] {
                for bits in [1u32, 2, 5, 8, 11, 13, 16] {
                    for shift in [0, 23, 64 - bits] {
                        let mask = ((1u64 << bits) - 1) << shift;
                        for spread in [0u64, 3, u64::MAX] {
                            let set: Vec<u64> =
                                (0..len).map(|_| next() & !(mask & !(spread << shift))).collect();
                            let mut found = Vec::new();
                            chains.pairs(&set, mask, |a, b| found.push((a, b)));
                            let mut expected = Vec::new();
                            for (i, &a) in set.iter().enumerate() {
                                for &b in &set[..i] {
                                    if a & mask == b & mask {
                                        expected.push((a, b));
                                    }
                                }
                            }
                            found.sort_unstable();
                            expected.sort_unstable();
                            assert_eq!(found, expected, "len {len} mask {mask:x} spread {spread}");
                        }
                    }
                }
            }
        }
    }

    /// After the stamps start again, slots left by a set with the same stamp before do not
    /// count: a member alone in its value finds no pair.
    #[test]
    fn slots_of_old_sets_are_not_this_sets() {
        let mut chains = Chains::default();
        let mask = 0xfff0;
        let set: Vec<u64> = (0..100u64).map(|i| i << 4).collect();
        let mut found = 0;
        chains.pairs(&set, mask, |_, _| found += 1);
        assert_eq!((found, chains.stamp), (0, 1));
        chains.stamp = u32::from(u16::MAX); // the next set's stamp is 1 again
        chains.pairs(&set, mask, |_, _| found += 1);
        assert_eq!((found, chains.stamp), (0, 1));
        // Two members of one value are still found.
        chains.pairs(&[0x10, 0x11, 0x20], mask, |_, _| found += 1);
        assert_eq!(found, 1);
    }
}
