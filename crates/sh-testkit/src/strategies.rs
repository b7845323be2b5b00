//! Proptest strategies for the inputs of sh-pairs.

use proptest::prelude::*;

/// Up to `max` fingerprints of five kinds: random; few bits set; few bits clear; drawn from a
/// pool of up to three (many identical); and up to ten bits flipped in one base (many near).
pub fn fingerprints(max: usize) -> impl Strategy<Value = Vec<u64>> {
    let random = proptest::collection::vec(any::<u64>(), 0..max);
    let few_bits = proptest::collection::vec(
        proptest::collection::vec(0u32..64, 0..4)
            .prop_map(|bits| bits.iter().fold(0u64, |x, &b| x | 1 << b)),
        0..max,
    );
    let many_bits = few_bits.clone().prop_map(|v| v.into_iter().map(|x| !x).collect());
    let pool = proptest::collection::vec(any::<u64>(), 1..4).prop_flat_map(move |pool| {
        proptest::collection::vec(proptest::sample::select(pool), 0..max)
    });
    let planted = (
        any::<u64>(),
        proptest::collection::vec(proptest::collection::vec(0u32..64, 0..10), 0..max),
    )
        .prop_map(|(base, flips)| {
            flips.iter().map(|bits| bits.iter().fold(base, |x, &b| x ^ 1 << b)).collect()
        });
    prop_oneof![random, few_bits, many_bits, pool, planted]
}

/// K in 0..=8 and a B that can go with it, K < B <= 64.
pub fn k_and_blocks() -> impl Strategy<Value = (u32, u32)> {
    (0u32..=8).prop_flat_map(|k| (Just(k), k + 1..=64))
}

/// Up to `max` wide fingerprints of `words` words, of four kinds: random; a base with up to 40
/// bits flipped anywhere (near in total, spread over the words); a base with some words
/// replaced at random (sharing words exactly, far in the others); drawn from a pool of up to
/// three (many identical).
pub fn wide_fingerprints(max: usize, words: usize) -> impl Strategy<Value = Vec<Vec<u64>>> {
    let fingerprint = proptest::collection::vec(any::<u64>(), words);
    let random = proptest::collection::vec(fingerprint.clone(), 0..max);
    let bits = 64 * words as u32;
    let planted = (
        fingerprint.clone(),
        proptest::collection::vec(proptest::collection::vec(0..bits, 0..40), 0..max),
    )
        .prop_map(|(base, flips)| {
            flips
                .iter()
                .map(|flip| {
                    let mut fp = base.clone();
                    for &bit in flip {
                        fp[bit as usize / 64] ^= 1 << (bit % 64);
                    }
                    fp
                })
                .collect()
        });
    let shared = (
        fingerprint.clone(),
        proptest::collection::vec((fingerprint.clone(), any::<u8>(), 0u32..8), 0..max),
    )
        .prop_map(|(base, others)| {
            others
                .into_iter()
                .map(|(other, keep, flips)| {
                    // Word w is the base's when bit w of `keep` is set, a few bits off it.
                    let mut fp: Vec<u64> = (0..base.len())
                        .map(|w| if keep >> w & 1 == 1 { base[w] } else { other[w] })
                        .collect();
                    fp[0] ^= (1u64 << flips) - 1;
                    fp
                })
                .collect()
        });
    let pool = proptest::collection::vec(fingerprint, 1..4).prop_flat_map(move |pool| {
        proptest::collection::vec(proptest::sample::select(pool), 0..max)
    });
    prop_oneof![random, planted, shared, pool]
}
