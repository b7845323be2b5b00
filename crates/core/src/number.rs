//! Numbers between stages: unsigned 64-bit integers in decimal (or `0x` hex on input) and
//! finite decimal weights.

use std::fmt;

#[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
mod sse;
#[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
mod sse_spell;

/// Why a hash or fingerprint did not parse; the message part of an input error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    /// No digits at all.
    Empty,
    /// A sign in front.
    Signed,
    /// Not decimal or 0x hex digits.
    NotAnInteger,
    /// Above 2^64-1.
    TooLarge,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberError::Empty => "empty number",
            NumberError::Signed => {
                "signed number: hashes and fingerprints are unsigned 64-bit integers"
            }
            NumberError::NotAnInteger => "not an unsigned 64-bit integer (decimal or 0x hex)",
            NumberError::TooLarge => "integer larger than 2^64-1",
        })
    }
}

/// Parses an unsigned 64-bit integer: decimal digits, or `0x`/`0X` and hex digits. Nothing else
/// is accepted: no sign, no spaces, no trailing junk.
pub fn parse_u64(text: &[u8]) -> Result<u64, NumberError> {
    match text {
        [] => Err(NumberError::Empty),
        [b'+' | b'-', ..] => Err(NumberError::Signed),
        [b'0', b'x' | b'X', hex @ ..] => parse_hex(hex),
        _ if text.len() <= 20 => parse_short_decimal(text),
        _ => parse_decimal(text),
    }
}

/// 1 to 20 decimal digits. Between stages nearly every number is a 64-bit hash of 19 or 20
/// digits, so this is the hot path of sh-compute and sh-pairs: the digits are checked and
/// folded eight at a time, as 64-bit words (17 to 20 of them as three words, [`long_words`]).
#[inline]
fn parse_short_decimal(digits: &[u8]) -> Result<u64, NumberError> {
    debug_assert!((1..=20).contains(&digits.len()));
    if let Some((head, high, low)) = long_words(digits) {
        // Junk is reported before size.
        if non_digits(head) | non_digits(high) | non_digits(low) != 0 {
            return Err(NumberError::NotAnInteger);
        }
        return fold_long(head, high, low).ok_or(NumberError::TooLarge);
    }
    let (head, words) = digits.split_at(digits.len() % 8);
    let mut value = 0u64;
    for &b in head {
        value = value * 10 + u64::from(decimal_digit(b)?);
    }
    for word in words.chunks_exact(8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        if non_digits(word) != 0 {
            return Err(NumberError::NotAnInteger);
        }
        // Only the last word can overflow (a head of 4 and one word stay below 10^12), and it
        // has been checked for digits first: junk is reported before size.
        value = value
            .checked_mul(100_000_000)
            .and_then(|v| v.checked_add(eight_digits(word)))
            .ok_or(NumberError::TooLarge)?;
    }
    Ok(value)
}

/// The value of 1 to 20 ASCII digits (checked by the caller), or `None` when it exceeds 2^64-1:
/// 17 to 20 digits as three words ([`long_words`]); fewer, the leading `len % 8` digits one by
/// one, then each run of eight at once.
#[inline]
fn fold_digits(digits: &[u8]) -> Option<u64> {
    if let Some((head, high, low)) = long_words(digits) {
        return fold_long(head, high, low);
    }
    let (head, words) = digits.split_at(digits.len() % 8);
    let mut value = head.iter().fold(0u64, |value, &b| value * 10 + u64::from(b - b'0'));
    for word in words.chunks_exact(8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        value = value.checked_mul(100_000_000)?.checked_add(eight_digits(word))?;
    }
    Some(value)
}

/// The words of 17 to 20 digits (`None` for other lengths): the first 1 to 4 as one word
/// padded in front with `0`s to eight, then the next eight and the last eight. Loaded at once,
/// they fold side by side instead of digit after digit.
#[inline]
fn long_words(digits: &[u8]) -> Option<(u64, u64, u64)> {
    let n = digits.len();
    if !(17..=20).contains(&n) {
        return None;
    }
    let word = |at: usize| u64::from_le_bytes(digits[at..at + 8].try_into().expect("eight bytes"));
    let first = u64::from(u32::from_le_bytes(digits[..4].try_into().expect("four bytes")));
    // The head is the first k = n - 16 bytes (the lowest bytes are the first digits): shifted
    // up to the top of the word, the bytes after it go out, and 8 - k '0's come in below.
    let k = n - 16;
    let head = first << (8 * (8 - k)) | ZEROS >> (8 * k);
    Some((head, word(n - 16), word(n - 8)))
}

/// A line of 17 to 20 decimal digits and its `\n` at the start of `text`, which holds at
/// least 24 bytes: the value and the line's length without the `\n`. `None` for any other
/// line (shorter or longer, with a `\r`, junk or a value above 2^64-1): the caller reads it
/// the slow way, which tells what is wrong with it.
#[inline]
pub fn long_decimal_line(text: &[u8]) -> Option<(u64, usize)> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    if let Some(window) = text.first_chunk::<24>() {
        return sse::long_decimal_line(window);
    }
    long_decimal_line_by_words(text)
}

/// [`long_decimal_line`] with 64-bit words.
#[inline]
fn long_decimal_line_by_words(text: &[u8]) -> Option<(u64, usize)> {
    let word = |at: usize| u64::from_le_bytes(text[at..at + 8].try_into().expect("eight bytes"));
    let newlines = |word: u64| crate::record::bytes_equal(word, b'\n');
    let (first, second, third) = (word(0), word(8), word(16));
    let last = newlines(third);
    if newlines(first) | newlines(second) != 0 || last == 0 {
        return None;
    }
    let n = 16 + (last.trailing_zeros() / 8) as usize;
    let (head, high, low) = long_words(&text[..n])?;
    if non_digits(head) | non_digits(high) | non_digits(low) != 0 {
        return None;
    }
    Some((fold_long(head, high, low)?, n))
}

/// Eight ASCII `0`s as a word.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// The value of [`long_words`], or `None` above 2^64-1.
#[inline]
fn fold_long(head: u64, high: u64, low: u64) -> Option<u64> {
    let rest = eight_digits(high) * 100_000_000 + eight_digits(low);
    eight_digits(head).checked_mul(10_000_000_000_000_000)?.checked_add(rest)
}

/// The value of eight ASCII digits in a little-endian word, the first (lowest byte) the most
/// significant: neighbours fold into pairs (10a + b in each 16-bit lane), pairs into fours
/// (100p + q in each 32-bit lane), fours into the eight.
#[inline]
fn eight_digits(word: u64) -> u64 {
    let d = word - 0x3030_3030_3030_3030;
    let pairs = (d * 10 + (d >> 8)) & 0x00FF_00FF_00FF_00FF;
    let fours = (pairs * 100 + (pairs >> 16)) & 0x0000_FFFF_0000_FFFF;
    (fours & 0xFFFF) * 10_000 + (fours >> 32)
}

/// The value of `text` if it is a canonical decimal u64: `0`, or a non-zero digit followed by
/// digits, at most 2^64-1. Anything else (`007`, `+7`, `0x7`, `7 `, 2^64) is text.
#[inline]
pub fn canonical_u64(text: &[u8]) -> Option<u64> {
    match text.first()? {
        b'0' => (text.len() == 1).then_some(0),
        b'1'..=b'9' => parse_u64(text).ok(),
        _ => None,
    }
}

/// The hash at the start of a payload, when it is plain decimal: the value of a run of 1 to 20
/// digits that a space or the end follows, and the run's length. `None` for anything else (hex,
/// junk, too many digits), which the caller hands to [`parse_u64`] as a whole item, for the
/// value or the error. Finding the run's end here spares a separate scan for the space.
#[inline]
pub fn leading_decimal(text: &[u8]) -> Option<(u64, usize)> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    if let Some(window) = text.first_chunk::<24>() {
        return sse::leading_decimal(text, window);
    }
    leading_decimal_by_words(text)
}

/// [`leading_decimal`] with 64-bit words.
#[inline]
fn leading_decimal_by_words(text: &[u8]) -> Option<(u64, usize)> {
    let len = digit_run(text);
    if len == 0 || len > 20 || text.get(len).is_some_and(|&b| b != b' ') {
        return None;
    }
    fold_digits(&text[..len]).map(|value| (value, len))
}

/// How many digits `text` starts with, counted to 24 at most.
#[inline]
fn digit_run(text: &[u8]) -> usize {
    let mut words = text.chunks_exact(8);
    for (n, word) in words.by_ref().take(3).enumerate() {
        let not_digit = non_digits(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        if not_digit != 0 {
            return n * 8 + (not_digit.trailing_zeros() / 8) as usize;
        }
    }
    let scanned = text.len() - words.remainder().len() - words.len() * 8;
    if words.len() > 0 {
        return scanned; // 24 digits and more: too many anyway
    }
    scanned + words.remainder().iter().take_while(|b| b.is_ascii_digit()).count()
}

/// The high bit of each byte of a word that is not an ASCII digit, and perhaps of bytes above
/// the first such: the lowest bit set marks the first non-digit.
#[inline]
fn non_digits(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit when its high nibble is 3 and adding 6 does not carry out of its low
    // nibble (0x30..=0x39): both halves of the test give 3 in a digit's byte. XOR leaves zero
    // in digit bytes, whose high bit then tells a non-digit. A carry out of a byte starts only
    // at a non-digit, and only the first non-digit counts.
    let high = word & (0xF0 * ONES);
    let carried = (word.wrapping_add(0x06 * ONES) & (0xF0 * ONES)) >> 4;
    let x = (high | carried) ^ (0x33 * ONES);
    (((x & (0x7F * ONES)) + 0x7F * ONES) | x) & (0x80 * ONES)
}

/// Any number of decimal digits; the slow path for numbers of more than 20 bytes.
fn parse_decimal(digits: &[u8]) -> Result<u64, NumberError> {
    // Leading zeros do not count, 19 digits never overflow a u64, and only a 20th digit needs
    // checked arithmetic.
    let significant = &digits[digits.iter().take_while(|&&b| b == b'0').count()..];
    let (head, tail) = significant.split_at(significant.len().min(19));
    let mut value = 0u64;
    for &b in head {
        value = value * 10 + u64::from(decimal_digit(b)?);
    }
    match tail {
        [] => Ok(value),
        [last] => {
            let digit = u64::from(decimal_digit(*last)?);
            value.checked_mul(10).and_then(|v| v.checked_add(digit)).ok_or(NumberError::TooLarge)
        }
        _ => {
            tail.iter().try_for_each(|&b| decimal_digit(b).map(drop))?;
            Err(NumberError::TooLarge)
        }
    }
}

#[inline]
fn decimal_digit(b: u8) -> Result<u8, NumberError> {
    let digit = b.wrapping_sub(b'0');
    if digit > 9 {
        return Err(NumberError::NotAnInteger);
    }
    Ok(digit)
}

fn parse_hex(digits: &[u8]) -> Result<u64, NumberError> {
    if digits.is_empty() {
        return Err(NumberError::NotAnInteger);
    }
    let mut value = 0u64;
    for &b in digits {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Err(NumberError::NotAnInteger),
        };
        if value >> 60 != 0 {
            return Err(NumberError::TooLarge);
        }
        value = value << 4 | u64::from(digit);
    }
    Ok(value)
}

/// Why a weight did not parse; the message part of an input error.
pub const WEIGHT_ERROR: &str = "weight is not a finite decimal number";

/// Parses a weight: an optional sign, digits with an optional fraction, an optional exponent
/// (`2`, `-0.5`, `1e3`). `inf`, `nan` and anything that overflows to infinity are refused.
pub fn parse_weight(text: &[u8]) -> Option<f64> {
    if !is_decimal_syntax(text) {
        return None;
    }
    let value: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    value.is_finite().then_some(value)
}

fn is_decimal_syntax(text: &[u8]) -> bool {
    let mut rest = text.strip_prefix(b"-").or_else(|| text.strip_prefix(b"+")).unwrap_or(text);
    let integer_digits = leading_digits(rest);
    rest = &rest[integer_digits..];
    let mut fraction_digits = 0;
    if let Some(after_point) = rest.strip_prefix(b".") {
        fraction_digits = leading_digits(after_point);
        rest = &after_point[fraction_digits..];
    }
    if integer_digits + fraction_digits == 0 {
        return false;
    }
    if let Some(exponent) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exponent =
            exponent.strip_prefix(b"-").or_else(|| exponent.strip_prefix(b"+")).unwrap_or(exponent);
        let digits = leading_digits(exponent);
        return digits > 0 && digits == exponent.len();
    }
    rest.is_empty()
}

fn leading_digits(text: &[u8]) -> usize {
    text.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// Splits a weighted item `ITEM:WEIGHT` at its last colon.
pub fn split_weight(item: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = memchr::memrchr(b':', item)?;
    Some((&item[..colon], &item[colon + 1..]))
}

/// Writes a u64 in decimal without allocating.
pub fn write_u64<W: std::io::Write>(out: &mut W, value: u64) -> std::io::Result<()> {
    out.write_all(itoa::Buffer::new().format(value).as_bytes())
}

/// Appends a u64 in decimal to a buffer. Hashes and fingerprints are mostly 19 or 20 digits:
/// they are cut into a head below 10^4 and two runs of eight digits, spelled with 16-byte
/// vectors where the build has them (`number/sse_spell.rs`), else each run with a few
/// multiplications on one 64-bit word ([`push_u64_by_words`]), and stored at once.
#[inline]
pub fn push_u64(out: &mut Vec<u8>, value: u64) {
    if value < E8 {
        push_below_e8(out, value as u32);
        return;
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    return sse_spell::push_long(out, value);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
    push_u64_by_words(out, value);
}

const E8: u64 = 100_000_000;

/// [`push_u64`] with 64-bit words (where the vectors are built, for the tests that compare the
/// two).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse4.1"), allow(dead_code))]
#[inline]
fn push_u64_by_words(out: &mut Vec<u8>, value: u64) {
    if value < E8 {
        push_below_e8(out, value as u32);
        return;
    }
    let low = (value % E8) as u32;
    let high = value / E8;
    if high < E8 {
        push_below_e8(out, high as u32);
    } else {
        push_below_e8(out, (high / E8) as u32);
        out.extend_from_slice(&spell_eight((high % E8) as u32).to_le_bytes());
    }
    out.extend_from_slice(&spell_eight(low).to_le_bytes());
}

/// A number below 10^8 without leading zeros.
#[inline]
fn push_below_e8(out: &mut Vec<u8>, value: u32) {
    let word = spell_eight(value);
    // Leading zeros are the low bytes equal to '0'; a zero keeps its last digit.
    let zeros = ((word ^ 0x3030_3030_3030_3030).trailing_zeros() / 8).min(7) as usize;
    let start = out.len();
    out.extend_from_slice(&(word >> (8 * zeros)).to_le_bytes());
    out.truncate(start + 8 - zeros);
}

/// Eight ASCII digits of a number below 10^8, zero-padded, the first digit in the lowest byte.
#[inline]
fn spell_eight(value: u32) -> u64 {
    debug_assert!(value < 100_000_000);
    // Two 32-bit lanes of four digits, split into 16-bit lanes of two digits (x / 100 is
    // x * 5243 >> 19 for x < 10^4), then into bytes of one digit (x / 10 is x * 103 >> 10 for
    // x < 100). No lane overflows into the next.
    let fours = u64::from(value / 10_000) | u64::from(value % 10_000) << 32;
    let hundreds = ((fours * 5243) >> 19) & 0x0000_007F_0000_007F;
    let pairs = hundreds | (fours - hundreds * 100) << 16;
    let tens = ((pairs * 103) >> 10) & 0x000F_000F_000F_000F;
    let digits = tens | (pairs - tens * 10) << 8;
    digits | 0x3030_3030_3030_3030
}

#[cfg(test)]
mod tests;
