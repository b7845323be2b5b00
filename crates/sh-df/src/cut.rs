//! The cut of a Misra-Gries reduction: the (capacity + 1)-th largest of the counts held. Nearly
//! every count is small, so they are tallied in a histogram, and only the few large ones are
//! kept for a selection: one pass over the counts, and no copy of them.

/// Counts below this are tallied; the others are selected among.
const SMALL: usize = 256;

/// The `rank`-th largest of `counts` (from 1); 0 when there are fewer. `large` is scratch.
pub(crate) fn nth_largest(
    counts: impl Iterator<Item = u64>,
    rank: usize,
    large: &mut Vec<u64>,
) -> u64 {
    let mut histogram = [0usize; SMALL];
    large.clear();
    for count in counts {
        match usize::try_from(count) {
            Ok(small) if small < SMALL => histogram[small] += 1,
            _ => large.push(count),
        }
    }
    if rank == 0 {
        return 0;
    }
    if large.len() >= rank {
        let (_, &mut nth, _) = large.select_nth_unstable_by(rank - 1, |a, b| b.cmp(a));
        return nth;
    }
    let mut at_least = large.len();
    for (count, &many) in histogram.iter().enumerate().rev() {
        at_least += many;
        if at_least >= rank {
            return count as u64;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn as_a_sort_finds_it(counts in prop::collection::vec(
                prop_oneof![1u64..5, 1u64..300, any::<u64>()], 0..200), rank in 0usize..210) {
            let mut sorted = counts.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let expected = match rank {
                0 => 0,
                _ => sorted.get(rank - 1).copied().unwrap_or(0),
            };
            prop_assert_eq!(nth_largest(counts.into_iter(), rank, &mut Vec::new()), expected);
        }
    }
}
