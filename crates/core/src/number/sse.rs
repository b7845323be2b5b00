//! The common case of [`super::leading_decimal`] and [`super::long_decimal_line`] with 16-byte
//! vectors (SSE4.1, in every x86-64-v2 processor, which the workspace builds for; this module
//! is compiled only where the build enables it): a number with at least 24 bytes of text from
//! its start. The digits are found by two compares of 16 bytes instead of three words tested
//! one after another, and the last sixteen of 16 to 20 digits folded by four multiply-adds
//! side by side. Elsewhere, and for the last items of a line, the words of `number.rs` do it.

use std::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si32, _mm_extract_epi32, _mm_madd_epi16,
    _mm_maddubs_epi16, _mm_min_epu8, _mm_movemask_epi8, _mm_packus_epi32, _mm_set1_epi16,
    _mm_set1_epi32, _mm_set1_epi8, _mm_set_epi64x, _mm_sub_epi8,
};

/// [`super::leading_decimal`] of a text of 24 bytes or more, `window` its first 24.
#[inline]
pub(super) fn leading_decimal(text: &[u8], window: &[u8; 24]) -> Option<(u64, usize)> {
    // SAFETY: the build enables SSE4.1 for every function where this module is compiled.
    #[allow(unsafe_code)]
    unsafe {
        leading_decimal_sse(text, window)
    }
}

/// [`super::long_decimal_line`] of a text of 24 bytes or more, `window` its first 24.
#[inline]
pub(super) fn long_decimal_line(window: &[u8; 24]) -> Option<(u64, usize)> {
    // SAFETY: as in `leading_decimal`.
    #[allow(unsafe_code)]
    unsafe {
        long_decimal_line_sse(window)
    }
}

#[inline]
#[target_feature(enable = "sse4.1")]
fn leading_decimal_sse(text: &[u8], window: &[u8; 24]) -> Option<(u64, usize)> {
    let len = digit_run(window);
    if len == 0 || len > 20 || window[len] != b' ' {
        return None;
    }
    if len < 16 {
        return super::fold_digits(&text[..len]).map(|value| (value, len));
    }
    fold_16_to_20(window, len).map(|value| (value, len))
}

#[inline]
#[target_feature(enable = "sse4.1")]
fn long_decimal_line_sse(window: &[u8; 24]) -> Option<(u64, usize)> {
    let len = digit_run(window);
    if !(17..=20).contains(&len) || window[len] != b'\n' {
        return None;
    }
    fold_16_to_20(window, len).map(|value| (value, len))
}

/// Sixteen bytes of `text` from `at` as a vector (one unaligned load once compiled).
#[inline]
#[target_feature(enable = "sse4.1")]
fn load(text: &[u8; 24], at: usize) -> __m128i {
    let bytes: &[u8; 16] = text[at..at + 16].try_into().expect("sixteen bytes");
    let value = u128::from_le_bytes(*bytes);
    _mm_set_epi64x((value >> 64) as i64, value as i64)
}

/// Each byte minus `'0'`, and a mask of the bytes that are digits (bit i for byte i).
#[inline]
#[target_feature(enable = "sse4.1")]
fn digits(v: __m128i) -> (__m128i, u32) {
    let d = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
    // A digit's byte is 0 to 9 after the subtraction, any other byte 10 to 255.
    let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    (d, _mm_movemask_epi8(is_digit) as u32)
}

/// How many digits `text` starts with (up to 24).
#[inline]
#[target_feature(enable = "sse4.1")]
fn digit_run(text: &[u8; 24]) -> usize {
    let (_, first) = digits(load(text, 0));
    let (_, second) = digits(load(text, 8));
    // Bytes 0-15 and 8-23: the overlap agrees. Bit 24 set ends a run of all 24.
    let mask = first | second << 8 | 1 << 24;
    (!mask).trailing_zeros() as usize
}

/// The value of the first `len` bytes of `text`, 16 to 20 digits (found by the caller), or
/// `None` above 2^64-1: the last sixteen folded as a vector, the 0 to 4 before them as a word.
#[inline]
#[target_feature(enable = "sse4.1")]
fn fold_16_to_20(text: &[u8; 24], len: usize) -> Option<u64> {
    debug_assert!((16..=20).contains(&len));
    let (d, _) = digits(load(text, len - 16));
    // Neighbours into pairs (10a + b), pairs into fours (100p + q), fours into eights
    // (10,000f + g): the first byte is the most significant.
    let pairs = _mm_maddubs_epi16(d, _mm_set1_epi16(0x010A));
    let fours = _mm_madd_epi16(pairs, _mm_set1_epi32(0x0001_0064));
    let fours = _mm_packus_epi32(fours, fours);
    let eights = _mm_madd_epi16(fours, _mm_set1_epi32(0x0001_2710));
    let high = _mm_cvtsi128_si32(eights) as u64;
    let low = _mm_extract_epi32::<1>(eights) as u64;
    let last_sixteen = high * 100_000_000 + low;
    let k = len - 16;
    if k == 0 {
        return Some(last_sixteen);
    }
    // The head: the first k digits, moved to the top of a word below 8 - k '0's.
    let first = u64::from(u32::from_le_bytes(text[..4].try_into().expect("four bytes")));
    let head = first << (8 * (8 - k)) | super::ZEROS >> (8 * k);
    super::eight_digits(head).checked_mul(10_000_000_000_000_000)?.checked_add(last_sixteen)
}
