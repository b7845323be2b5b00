//! The default number of blocks: the B with the least expected work for the number of distinct
//! fingerprints and K, assuming fingerprints spread uniformly over the 64 bits.
//!
//! The tree walk (see `search`) splits sets at each depth. At depth d a set is split by one
//! block for each choice of d+1 blocks that can still complete a table, C(K+d+1, d+1) of them
//! (the first block is one of blocks 0..=K, the second one of those after it up to K+1, and so
//! on); a fingerprint takes part at depth d only if some other fingerprint agrees with it on the
//! d blocks chosen before, which for n fingerprints and b bits per block happens with
//! probability about min(1, n / 2^(d*b)). The first split (depth 0) reorders the whole set in
//! memory; the splits below it mostly group parts that fit in cache (parts of more than 2^16
//! are sorted instead), and cost less. Then each of the C(B, K) tables has its leaves: the
//! fingerprints that share the table's key with another (a fraction of about min(1, m), m =
//! n / 2^((B-K)*b) being how many others share it) go through the comparison loop, and each of
//! the table's n*m/2 pairs is compared. Few blocks mean few tables but large groups (many
//! comparisons); many blocks mean small groups but many tables and splits.

use crate::tables::binomial;

/// Relative costs, a fingerprint's place in a split by the first block being 1. A split below
/// it groups a part in cache (a counting sort, bytes marked, a small hash table); a fingerprint
/// at a leaf pays the loop over its group (one by one for a group's last few); a pair is an XOR
/// and a popcount, eight at once. Fitted to whole-run timings of fixed B on 2 cores, after the
/// grouping by marking (BENCHMARKS.md, 2026-11-25): 100k, 1M and 10M random fingerprints at K
/// from 2 to 10 and the planted set of 2M at K = 3, 18 (size, K) in all; these weights pick the
/// fastest B, or one at most 3% slower, in each, and so do the same ratios at half and twice the
/// scale of the first split. The model before (every split alike, a comparison 0.08, and more
/// splits counted than there are) picked B = 4 at 1M, K = 3 (1.26 times the best) and B = 3 at
/// 10M, K = 2 (1.76 times).
const DEEPER_SPLIT_COST: f64 = 0.2;

/// A split below the first by a block of more than [`CACHED_SPLIT_BITS`] bits costs this
/// instead: its table has a slot per value of the block (at B = 4, K = 2 a chain's slot, 256 KB
/// for 16 bits against 32 KB for 13; at K = 1 a count and a place by marking; at B = 3 a hash
/// table), more than the first-level cache holds. Such splits exist where B - K >= 2: B = 4 at
/// K = 1 and 2, B = 3 at K = 1 (and at K = 0, which is not searched). Fitted on 2026-12-07
/// (BENCHMARKS.md, "19:00-20:20 UTC"), after the first split by a wide block got cheaper
/// (636d828): at K = 2, B = 4 took 1.32 times B = 5 at 3M and 1.57 times at 5M, and 0.95 times
/// at 10M; with 0.2 the model picked B = 4 at all three, with this it picks B = 5 at 3M and 5M
/// (2.2M to 7.8M; B = 3 below, where B = 4 took over from 2.1M before) and B = 4 at 10M (by a
/// margin of 2%; weights from 0.233 to 0.264 give these three picks); no other (size, K) from
/// 10k to 300M changes.
const WIDE_DEEPER_SPLIT_COST: f64 = 0.25;

/// See [`WIDE_DEEPER_SPLIT_COST`].
const CACHED_SPLIT_BITS: f64 = 13.0;
const LEAF_MEMBER_COST: f64 = 0.5;
const PAIR_COST: f64 = 0.02;

/// The expected work of a search of `distinct` fingerprints within `k` bits over `blocks`
/// blocks (K < B <= 64), in units of one fingerprint's place in a split by the first block.
pub fn expected_cost(distinct: usize, k: u32, blocks: u32) -> f64 {
    assert!(k < blocks && blocks <= 64, "K < B <= 64, not K = {k}, B = {blocks}");
    let n = distinct as f64;
    let bits_per_block = 64.0 / f64::from(blocks);
    let depth_of_table = blocks - k;
    let mut cost = 0.0;
    for depth in 0..depth_of_table {
        let choices = binomial(k + depth + 1, depth + 1) as f64;
        let sharing = (n / 2f64.powf(f64::from(depth) * bits_per_block)).min(1.0);
        let weight = match depth {
            0 => 1.0,
            _ if bits_per_block > CACHED_SPLIT_BITS => WIDE_DEEPER_SPLIT_COST,
            _ => DEEPER_SPLIT_COST,
        };
        cost += choices * n * sharing * weight;
    }
    let tables = binomial(blocks, k) as f64;
    let sharing_key = n / 2f64.powf(f64::from(depth_of_table) * bits_per_block);
    cost + tables * n * (sharing_key.min(1.0) * LEAF_MEMBER_COST + sharing_key / 2.0 * PAIR_COST)
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

    /// The fastest B measured on 2 cores (BENCHMARKS.md, 2026-11-25; 3M and 5M at K = 2 on
    /// 2026-12-07), where it was faster than the next by more than the noise: the model must
    /// keep picking it.
    #[test]
    fn picks_the_measured_best() {
        for (n, k, best) in [
            (100_000, 7, 9),
            (1_000_000, 3, 5),
            (1_000_000, 4, 6),
            (1_000_000, 6, 8),
            (1_000_000, 7, 9),
            (1_000_000, 9, 12),
            (1_000_000, 10, 13),
            (3_000_000, 2, 5),
            (5_000_000, 2, 5),
            (10_000_000, 2, 4),
            (10_000_000, 3, 5),
            (10_000_000, 5, 7),
            (10_000_000, 8, 11),
            (10_000_000, 10, 14),
        ] {
            assert_eq!(choose_blocks(n, k), best, "{n} fingerprints, K = {k}");
        }
    }

    #[test]
    fn larger_inputs_use_more_blocks() {
        assert!(choose_blocks(100_000_000, 3) >= choose_blocks(1000, 3));
    }
}
