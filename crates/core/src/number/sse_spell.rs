//! [`super::push_u64`] of a number of 9 to 20 digits with 16-byte vectors (SSE4.1, in every
//! x86-64-v2 processor, which the workspace builds for; this module is compiled only where the
//! build enables it). The last sixteen digits are spelled side by side: the two runs of eight
//! are cut into four numbers below 10^4, those into eight below 100 (16-bit lanes, in order),
//! and those into their tens and ones, each cut one multiplication keeping the high half and one
//! keeping the low. Hashes and fingerprints are mostly 19 or 20 digits, and spelling them was
//! half of `sh-hash`'s time with 64-bit words (three runs of eight, each a chain of
//! multiplications on one word).

use std::arch::x86_64::{
    _mm_cvtsi128_si64, _mm_extract_epi64, _mm_mul_epu32, _mm_mulhi_epu16, _mm_mullo_epi16,
    _mm_or_si128, _mm_set1_epi16, _mm_set1_epi64x, _mm_set1_epi8, _mm_set_epi64x, _mm_slli_epi16,
    _mm_slli_epi32, _mm_slli_epi64, _mm_srli_epi16, _mm_srli_epi64, _mm_sub_epi16, _mm_sub_epi32,
};

const E8: u64 = 100_000_000;
const E16: u64 = E8 * E8;

/// Appends `value`, at least 10^8, in decimal.
#[inline]
pub(super) fn push_long(out: &mut Vec<u8>, value: u64) {
    debug_assert!(value >= E8);
    let (head, rest) = (value / E16, value % E16);
    // SAFETY: the build enables SSE4.1 for every function where this module is compiled.
    #[allow(unsafe_code)]
    let sixteen = unsafe { spell_sixteen((rest / E8) as u32, (rest % E8) as u32) };
    if head > 0 {
        super::push_below_e8(out, head as u32);
        out.extend_from_slice(&sixteen.to_le_bytes());
    } else {
        // 9 to 16 digits: the leading '0's of the sixteen (at most seven) left out.
        let zeros = ((sixteen ^ ZEROS).trailing_zeros() / 8) as usize;
        out.extend_from_slice(&sixteen.to_le_bytes()[zeros..]);
    }
}

/// Sixteen ASCII `0`s.
const ZEROS: u128 = 0x3030_3030_3030_3030_3030_3030_3030_3030;

/// The sixteen digits of `high` and `low` (each below 10^8), zero-padded, the first digit in
/// the lowest byte.
#[inline]
#[target_feature(enable = "sse4.1")]
fn spell_sixteen(high: u32, low: u32) -> u128 {
    debug_assert!(u64::from(high) < E8 && u64::from(low) < E8);
    let eights = _mm_set_epi64x(i64::from(low), i64::from(high));
    // Each eight into its first and last four digits: x / 10^4 is x * 0xD1B71759 >> 45 for
    // any 32-bit x. The 32-bit lanes then hold the four fours in order.
    let firsts = _mm_srli_epi64::<45>(_mm_mul_epu32(eights, _mm_set1_epi64x(0xD1B7_1759)));
    let lasts = _mm_sub_epi32(eights, _mm_mul_epu32(firsts, _mm_set1_epi64x(10_000)));
    let fours = _mm_or_si128(firsts, _mm_slli_epi64::<32>(lasts));
    // Each four into its first and last two digits, in the 16-bit lanes below and above it:
    // x / 100 is x * 5243 >> 19 for x below 43,699.
    let firsts = _mm_srli_epi16::<3>(_mm_mulhi_epu16(fours, _mm_set1_epi16(5243)));
    let lasts = _mm_sub_epi16(fours, _mm_mullo_epi16(firsts, _mm_set1_epi16(100)));
    let pairs = _mm_or_si128(firsts, _mm_slli_epi32::<16>(lasts));
    // Each pair into its tens and ones, in the bytes below and above: x / 10 is x * 6554 >> 16
    // for x below 16,389.
    let tens = _mm_mulhi_epu16(pairs, _mm_set1_epi16(6554));
    let ones = _mm_sub_epi16(pairs, _mm_mullo_epi16(tens, _mm_set1_epi16(10)));
    let digits = _mm_or_si128(tens, _mm_slli_epi16::<8>(ones));
    let digits = _mm_or_si128(digits, _mm_set1_epi8(b'0' as i8));
    let low_half = _mm_cvtsi128_si64(digits) as u64;
    let high_half = _mm_extract_epi64::<1>(digits) as u64;
    u128::from(low_half) | u128::from(high_half) << 64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The divisions by multiplication of [`spell_sixteen`], for every value they meet.
    #[test]
    fn the_divisions_are_exact() {
        for x in 0..10_000u32 {
            assert_eq!((x * 5243) >> 16 >> 3, x / 100, "{x}");
        }
        for x in 0..100u32 {
            assert_eq!((x * 6554) >> 16, x / 10, "{x}");
        }
    }

    #[test]
    fn sixteen_digits() {
        let spell = |high: u32, low: u32| {
            // SAFETY: as in `push_long`.
            #[allow(unsafe_code)]
            let digits = unsafe { spell_sixteen(high, low) };
            String::from_utf8(digits.to_le_bytes().to_vec()).unwrap()
        };
        for (high, low) in [(0, 0), (12_345_678, 87_654_321), (99_999_999, 99_999_999), (1, 10)] {
            assert_eq!(spell(high, low), format!("{high:08}{low:08}"));
        }
        // Every four-digit value in every place.
        for y in 0..10_000u32 {
            let (a, b) = (y * 10_000 + (9_999 - y), (y % 7) * 10_000 + y);
            assert_eq!(spell(a, b), format!("{a:08}{b:08}"));
            assert_eq!(spell(b, a), format!("{b:08}{a:08}"));
        }
    }
}
