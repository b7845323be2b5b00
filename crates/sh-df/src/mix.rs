//! The key of a number item: a bijective mix of its value (so that two keys are equal exactly
//! when the values are, and the value comes back at the end), whose bits serve as its hash
//! everywhere: the partition, the per-document set, the partition's table. And the order of the
//! table, the bytes of the decimal, as integers.

/// Murmur3's 64-bit finalizer: every step (xor with a shift of 32 or more, multiplication by an
/// odd number) can be undone, so this is a bijection of u64.
#[inline]
pub(crate) fn mix(value: u64) -> u64 {
    let mut k = value;
    k ^= k >> 33;
    k = k.wrapping_mul(M1);
    k ^= k >> 33;
    k = k.wrapping_mul(M2);
    k ^ (k >> 33)
}

/// The value whose [`mix`] is `key`.
#[inline]
pub(crate) fn unmix(key: u64) -> u64 {
    let mut k = key;
    k ^= k >> 33;
    k = k.wrapping_mul(M2_INVERSE);
    k ^= k >> 33;
    k = k.wrapping_mul(M1_INVERSE);
    k ^ (k >> 33)
}

const M1: u64 = 0xff51_afd7_ed55_8ccd;
const M2: u64 = 0xc4ce_b9fe_1a85_ec53;
const M1_INVERSE: u64 = inverse(M1);
const M2_INVERSE: u64 = inverse(M2);

/// The inverse of an odd number modulo 2^64, by Newton's iteration (each step doubles the bits
/// that are right; an odd number is its own inverse modulo 8).
const fn inverse(odd: u64) -> u64 {
    let mut x = odd;
    let mut step = 0;
    while step < 5 {
        x = x.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(x)));
        step += 1;
    }
    x
}

/// A number's decimal as a pair of integers that order as its bytes do: the decimal padded with
/// zeros to 20 digits, then its length. Padding keeps the order of the first digits, and of a
/// decimal and its extension by zeros ("1" and "10") the shorter comes first, as in byte order.
#[inline]
pub(crate) fn digit_key(value: u64) -> (u64, u64) {
    let digits = value.checked_ilog10().map_or(1, |log| log + 1);
    let padded = u128::from(value) * POWERS_OF_TEN[(20 - digits) as usize];
    // Below 10^20 < 2^67: the high word takes 3 bits, the low one 64, the length 5 more.
    ((padded >> 59) as u64, (padded as u64) << 5 | u64::from(digits))
}

const POWERS_OF_TEN: [u128; 20] = {
    let mut powers = [1u128; 20];
    let mut at = 1;
    while at < 20 {
        powers[at] = powers[at - 1] * 10;
        at += 1;
    }
    powers
};

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn inverses() {
        assert_eq!(M1.wrapping_mul(M1_INVERSE), 1);
        assert_eq!(M2.wrapping_mul(M2_INVERSE), 1);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn mix_is_undone(value: u64) {
            prop_assert_eq!(unmix(mix(value)), value);
        }

        /// Keys order as the decimals' bytes.
        #[test]
        fn digit_keys_order_as_bytes(a in prop_oneof![any::<u64>(), 0u64..1000, Just(0)],
                                     b in prop_oneof![any::<u64>(), 0u64..1000, Just(10)]) {
            let (ta, tb) = (a.to_string(), b.to_string());
            prop_assert_eq!(digit_key(a).cmp(&digit_key(b)), ta.as_bytes().cmp(tb.as_bytes()));
        }
    }

    #[test]
    fn extremes() {
        let values = [0, 1, 9, 10, 100, 99, 10_000_000_000_000_000_000, u64::MAX - 1, u64::MAX];
        for value in values {
            assert_eq!(unmix(mix(value)), value);
        }
        for pair in values.windows(2) {
            let (a, b) = (pair[0].to_string(), pair[1].to_string());
            assert_eq!(digit_key(pair[0]).cmp(&digit_key(pair[1])), a.cmp(&b), "{a} {b}");
        }
    }
}
