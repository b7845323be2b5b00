//! The default number of blocks: the B with the least expected work for the number of distinct
//! fingerprints and K, assuming fingerprints spread uniformly over the 64 bits.
//!
//! The tree walk (see `search`) splits sets at each depth. At depth d there are C(K+d, d)
//! paths (block choices that can still complete a table) and each has about K+1 children; a
//! fingerprint takes part at depth d only if some other fingerprint agrees with it on the d
//! chosen blocks, which for n fingerprints and b bits per block happens with probability about
//! min(1, n / 2^(d*b)). The leaves compare all pairs of each group: C(B, K) tables times
//! n^2/2 / 2^((B-K)*b) expected pairs each. Few blocks mean few tables but large groups (many
//! comparisons); many blocks mean small groups but many tables.

use crate::tables::binomial;

/// Relative cost of placing one fingerprint into a part, and of comparing one pair. A
/// comparison is an XOR and a popcount in a tight loop over a small group in cache; a split
/// touches memory. The ratio was fitted to timings of every fixed B (BENCHMARKS.md, 2 cores):
/// 0.08 picks the fastest B, or one within the run-to-run noise of it, for 1M and 10M random
/// fingerprints and the planted set of 2M at K=3 (B = 4, 5, 4) and for 10M at K=6 (B=8:
/// 9.1 s against 10.2 s for B=9). 0.5 chose B=5 for the planted set and B=9 at K=6; 0.05
/// chose B=4 for 10M at K=3, 1.5 times slower than B=5.
const SPLIT_COST: f64 = 1.0;
const COMPARE_COST: f64 = 0.08;

pub fn expected_cost(distinct: usize, k: u32, blocks: u32) -> f64 {
    let n = distinct as f64;
    let bits_per_block = 64.0 / f64::from(blocks);
    let depth_of_table = blocks - k;
    let mut cost = 0.0;
    for depth in 0..depth_of_table {
        let paths = binomial(k + depth, depth) as f64;
        let sharing = (n / 2f64.powf(f64::from(depth) * bits_per_block)).min(1.0);
        cost += paths * f64::from(k + 1) * n * sharing * SPLIT_COST;
    }
    let tables = binomial(blocks, k) as f64;
    let group_pairs = n * n / 2.0 / 2f64.powf(f64::from(depth_of_table) * bits_per_block);
    cost + tables * group_pairs * COMPARE_COST
}

/// The cheapest B in K+1..=64 by [`expected_cost`].
pub fn choose_blocks(distinct: usize, k: u32) -> u32 {
    (k + 1..=64)
        .map(|b| (b, expected_cost(distinct, k, b)))
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map_or(k + 1, |(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_valid() {
        for n in [0, 1, 10, 1000, 1_000_000, 10_000_000, 100_000_000] {
            for k in 0..=10 {
                let b = choose_blocks(n, k);
                assert!(b > k && b <= 64, "n={n} k={k} b={b}");
            }
        }
    }

    #[test]
    fn larger_inputs_use_more_blocks() {
        assert!(choose_blocks(100_000_000, 3) >= choose_blocks(1000, 3));
    }
}
