//! The key of a number item: a bijective mix of its value (so that two keys are equal exactly
//! when the values are, and the value comes back at the end), whose bits serve as its hash
//! everywhere: the partition, the per-document set, the partition's table. And the order of the
//! table, the bytes of the decimal, as one integer per number.

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

/// A number's decimal as one integer that orders as its bytes do: each digit d is the nibble
/// d + 1, from the top, and the nibbles after the last digit are 0, below any digit (so a
/// prefix comes first, as in byte order). 20 digits take 80 bits.
#[inline]
pub(crate) fn digit_key(value: u64) -> u128 {
    let mut buffer = itoa::Buffer::new();
    let mut key = 0u128;
    for (at, &digit) in buffer.format(value).as_bytes().iter().enumerate() {
        key |= u128::from(digit - b'0' + 1) << (124 - 4 * at);
    }
    key
}

/// Appends the decimal that [`digit_key`] made `key` from.
pub(crate) fn push_digits(out: &mut Vec<u8>, key: u128) {
    for at in 0..20 {
        let nibble = (key >> (124 - 4 * at)) as u8 & 0xF;
        if nibble == 0 {
            break;
        }
        out.push(b'0' + nibble - 1);
    }
}

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

        /// Keys order as the decimals' bytes, and give the decimal back.
        #[test]
        fn digit_keys_order_as_bytes(a in prop_oneof![any::<u64>(), 0u64..1000],
                                     b in prop_oneof![any::<u64>(), 0u64..1000]) {
            let (ta, tb) = (a.to_string(), b.to_string());
            prop_assert_eq!(digit_key(a).cmp(&digit_key(b)), ta.as_bytes().cmp(tb.as_bytes()));
            let mut text = Vec::new();
            push_digits(&mut text, digit_key(a));
            prop_assert_eq!(text, ta.into_bytes());
        }
    }

    #[test]
    fn extremes() {
        for value in [0, 1, 9, 10, u64::MAX, u64::MAX - 1] {
            assert_eq!(unmix(mix(value)), value);
            let mut text = Vec::new();
            push_digits(&mut text, digit_key(value));
            assert_eq!(text, value.to_string().into_bytes());
        }
    }
}
