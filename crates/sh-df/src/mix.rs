//! The key of a number item: a bijective mix of its value (so that two keys are equal exactly
//! when the values are, and the value comes back at the end), whose bits serve as its hash
//! everywhere: the partition, the per-document set, the partition's table. And the order of the
//! table (by count, then by the bytes of the decimal) as an integer.

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

/// The place of a number item in the table's order (by decreasing count, then by the bytes of
/// its decimal) as one integer, from which the value and count come back ([`unrow`]):
///
/// - bits 72 and up: [`MAX_COUNT`] less the count, so that larger counts come first;
/// - bits 5 to 71: the decimal padded with zeros to 20 digits, as an integer (below 10^20 <
///   2^67). Padding keeps the order of the first digits;
/// - bits 0 to 4: the decimal's length. Of a decimal and its extension by zeros ("1" and
///   "10") the shorter comes first, as in byte order.
///
/// A count is at most the number of documents read, so below 2^56 for any input that can be
/// read; a larger one would be taken as [`MAX_COUNT`].
#[inline]
pub(crate) fn row(value: u64, count: u64) -> u128 {
    let digits = value.checked_ilog10().map_or(1, |log| log + 1);
    let padded = u128::from(value) * POWERS_OF_TEN[(20 - digits) as usize];
    u128::from(MAX_COUNT - count.min(MAX_COUNT)) << 72 | padded << 5 | u128::from(digits)
}

/// The value and count of a [`row`].
#[inline]
pub(crate) fn unrow(row: u128) -> (u64, u64) {
    let count = MAX_COUNT - (row >> 72) as u64;
    let digits = (row & 31) as usize;
    // The padded decimal is the value times 10^k = 2^k * 5^k, k = 20 - digits: shifted by k it
    // is the value times 5^k, and the inverse of 5^k modulo 2^64 undoes that exactly.
    let padded = (row >> 5) & ((1 << 67) - 1);
    let zeros = 20 - digits;
    let value = ((padded >> zeros) as u64).wrapping_mul(FIVES_INVERSE[zeros]);
    (value, count)
}

/// The largest count a [`row`] holds.
pub(crate) const MAX_COUNT: u64 = (1 << 56) - 1;

const POWERS_OF_TEN: [u128; 20] = {
    let mut powers = [1u128; 20];
    let mut at = 1;
    while at < 20 {
        powers[at] = powers[at - 1] * 10;
        at += 1;
    }
    powers
};

/// The inverses of 5^0 to 5^19 modulo 2^64.
const FIVES_INVERSE: [u64; 20] = {
    let mut inverses = [1u64; 20];
    let mut five = 1u64;
    let mut at = 0;
    while at < 20 {
        inverses[at] = inverse(five);
        five = five.wrapping_mul(5);
        at += 1;
    }
    inverses
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

        /// Rows order by decreasing count, then as the decimals' bytes, and give back what
        /// they were made of.
        #[test]
        fn rows_order_as_the_table(a in prop_oneof![any::<u64>(), 0u64..1000, Just(0)],
                                   b in prop_oneof![any::<u64>(), 0u64..1000, Just(10)],
                                   ca in prop_oneof![1u64..4, any::<u64>()],
                                   cb in prop_oneof![1u64..4, Just(MAX_COUNT)]) {
            let (ta, tb) = (a.to_string(), b.to_string());
            let (ra, rb) = (row(a, ca), row(b, cb));
            let (ca, cb) = (ca.min(MAX_COUNT), cb.min(MAX_COUNT));
            let expected = cb.cmp(&ca).then(ta.as_bytes().cmp(tb.as_bytes()));
            prop_assert_eq!(ra.cmp(&rb), expected);
            prop_assert_eq!(unrow(ra), (a, ca));
            prop_assert_eq!(unrow(rb), (b, cb));
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
            assert_eq!(row(pair[0], 7).cmp(&row(pair[1], 7)), a.cmp(&b), "{a} {b}");
        }
        for value in values {
            for count in [0, 1, 2, MAX_COUNT - 1, MAX_COUNT] {
                assert_eq!(unrow(row(value, count)), (value, count), "{value} {count}");
            }
        }
        // Every length of decimal, at both ends of its range.
        for digits in 1..=20u32 {
            let low = if digits == 1 { 0 } else { 10u64.pow(digits - 1) };
            let high = 10u64.checked_pow(digits).map_or(u64::MAX, |p| p - 1);
            for value in [low, low + 1, high - 1, high] {
                assert_eq!(unrow(row(value, 3)), (value, 3), "{value}");
            }
        }
        assert_eq!(unrow(row(5, u64::MAX)), (5, MAX_COUNT), "a count beyond is the largest");
    }
}
