//! The words of an item for a fingerprint wider than 64 bits, all derived from its one 64-bit
//! hash, so that sh-hash's output, weights and corpus statistics serve every width unchanged.
//!
//! Word 0 is the hash itself, which makes the low 64 bits of a wide fingerprint the 64-bit
//! fingerprint of the same items. Word i (1, 2, 3) is the i-th output of Sebastiano Vigna's
//! SplitMix64 generator seeded with the hash: the finalizer
//!
//! ```text
//! z = hash + i * 0x9e3779b97f4a7c15          (mod 2^64)
//! z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9   (mod 2^64)
//! z = (z ^ (z >> 27)) * 0x94d049bb133111eb   (mod 2^64)
//! word = z ^ (z >> 31)
//! ```
//!
//! Every input bit flips about half of the output bits (the finalizer is a bijection with full
//! avalanche), so the words of an item's distinct hashes behave as independent coin flips, which
//! is what each simhash bit needs; it costs two multiplications per word.

/// SplitMix64's increment: 2^64 divided by the golden ratio, made odd.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The first `WORDS` words of an item with this hash: the hash, then SplitMix64's outputs.
#[inline]
pub fn widen<const WORDS: usize>(hash: u64) -> [u64; WORDS] {
    let mut words = [hash; WORDS];
    for (i, word) in words.iter_mut().enumerate().skip(1) {
        *word = mix(hash.wrapping_add((i as u64).wrapping_mul(GAMMA)));
    }
    words
}

/// SplitMix64's output function (Stafford's "Mix13" variant of the MurmurHash3 finalizer).
#[inline]
fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_0_is_the_hash() {
        for hash in [0, 1, 0xdead_beef, u64::MAX] {
            assert_eq!(widen::<1>(hash), [hash]);
            assert_eq!(widen::<4>(hash)[0], hash);
        }
    }

    #[test]
    fn the_words_are_splitmix64_seeded_with_the_hash() {
        // The reference implementation (splitmix64.c) seeded with 0 starts with these outputs.
        assert_eq!(
            widen::<4>(0),
            [0, 0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4, 0x06c4_5d18_8009_454f]
        );
        assert_eq!(widen::<2>(0), [0, 0xe220_a839_7b1d_cdaf]);
        // Seeded with 1234567, as a restatement in Python gives them.
        assert_eq!(
            widen::<3>(1_234_567)[1..],
            [6_457_827_717_110_365_317, 3_203_168_211_198_807_973]
        );
    }

    #[test]
    fn one_flipped_bit_flips_about_half_of_each_word() {
        // Over every bit of a few hashes, each extra word changes in 32 bits on average.
        let mut flipped = [0u32; 4];
        let mut trials = 0;
        for seed in 0..16u64 {
            let hash = seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
            let words = widen::<4>(hash);
            for bit in 0..64 {
                let other = widen::<4>(hash ^ 1 << bit);
                for (count, (a, b)) in flipped.iter_mut().zip(words.iter().zip(&other)) {
                    *count += (a ^ b).count_ones();
                }
                trials += 1;
            }
        }
        assert_eq!(flipped[0], trials, "word 0 is the hash: one bit per flip");
        for &count in &flipped[1..] {
            let mean = f64::from(count) / f64::from(trials);
            assert!((31.0..33.0).contains(&mean), "mean {mean}");
        }
    }
}
