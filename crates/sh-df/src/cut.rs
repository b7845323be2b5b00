//! The cut of a Misra-Gries reduction: the (capacity + 1)-th largest of the counts held. Nearly
//! every count is small, so they are tallied in a histogram, and only the few large ones are
//! kept for a selection: one pass over the counts, and no copy of them. Tallies of parts of the
//! counts (each partition's, on threads) add up to the tally of all.

/// Counts below this are tallied; the others are selected among.
const SMALL: usize = 256;

/// Counts seen: how many of each small count, and the large ones.
#[derive(Debug, Clone)]
pub(crate) struct Tally {
    histogram: [usize; SMALL],
    large: Vec<u64>,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally { histogram: [0; SMALL], large: Vec::new() }
    }
}

impl Tally {
    /// The tally of `counts`.
    pub(crate) fn of(counts: impl Iterator<Item = u64>) -> Tally {
        let mut tally = Tally::default();
        for count in counts {
            match usize::try_from(count) {
                Ok(small) if small < SMALL => tally.histogram[small] += 1,
                _ => tally.large.push(count),
            }
        }
        tally
    }

    /// The tally of the counts of both.
    pub(crate) fn add(mut self, other: Tally) -> Tally {
        for (mine, theirs) in self.histogram.iter_mut().zip(other.histogram) {
            *mine += theirs;
        }
        self.large.extend(other.large);
        self
    }

    /// The `rank`-th largest of the counts (from 1); 0 when there are fewer.
    pub(crate) fn nth_largest(mut self, rank: usize) -> u64 {
        if rank == 0 {
            return 0;
        }
        if self.large.len() >= rank {
            let (_, &mut nth, _) = self.large.select_nth_unstable_by(rank - 1, |a, b| b.cmp(a));
            return nth;
        }
        let mut at_least = self.large.len();
        for (count, &many) in self.histogram.iter().enumerate().rev() {
            at_least += many;
            if at_least >= rank {
                return count as u64;
            }
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// As a sort finds it, whether the counts are tallied at once or in two parts.
        #[test]
        fn as_a_sort_finds_it(counts in prop::collection::vec(
                prop_oneof![1u64..5, 1u64..300, any::<u64>()], 0..200), rank in 0usize..210,
                split in 0usize..200) {
            let mut sorted = counts.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let expected = match rank {
                0 => 0,
                _ => sorted.get(rank - 1).copied().unwrap_or(0),
            };
            prop_assert_eq!(Tally::of(counts.iter().copied()).nth_largest(rank), expected);
            let (a, b) = counts.split_at(split.min(counts.len()));
            let parts = Tally::of(a.iter().copied()).add(Tally::of(b.iter().copied()));
            prop_assert_eq!(parts.nth_largest(rank), expected);
        }
    }
}
