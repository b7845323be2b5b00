//! Numbers between stages: unsigned 64-bit integers in decimal (or `0x` hex on input) and
//! finite decimal weights.

use std::fmt;

/// Why a hash or fingerprint did not parse; the message part of an input error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    Empty,
    Signed,
    NotAnInteger,
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
        // atoi_simd reads up to 20 digits several at a time, as strictly as we do.
        _ if text.len() <= 20 => atoi_simd::parse_pos::<u64, false>(text).map_err(|e| match e {
            atoi_simd::AtoiSimdError::Overflow(_) => NumberError::TooLarge,
            _ => NumberError::NotAnInteger,
        }),
        _ => parse_decimal(text),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decimal_and_hex() {
        assert_eq!(parse_u64(b"0"), Ok(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_u64(b"0xffffffffffffffff"), Ok(u64::MAX));
        assert_eq!(parse_u64(b"0XAbC"), Ok(0xabc));
        assert_eq!(parse_u64(b"00000000000000000000000042"), Ok(42));
        assert_eq!(parse_u64(b"0x00000000000000000001"), Ok(1));
    }

    #[test]
    fn refuses_what_is_not_an_unsigned_integer() {
        assert_eq!(parse_u64(b""), Err(NumberError::Empty));
        assert_eq!(parse_u64(b"-1"), Err(NumberError::Signed));
        assert_eq!(parse_u64(b"+1"), Err(NumberError::Signed));
        assert_eq!(parse_u64(b"12a"), Err(NumberError::NotAnInteger));
        assert_eq!(parse_u64(b"1.5"), Err(NumberError::NotAnInteger));
        assert_eq!(parse_u64(b" 1"), Err(NumberError::NotAnInteger));
        assert_eq!(parse_u64(b"0x"), Err(NumberError::NotAnInteger));
        assert_eq!(parse_u64(b"0xg"), Err(NumberError::NotAnInteger));
        assert_eq!(parse_u64(b"18446744073709551616"), Err(NumberError::TooLarge));
        assert_eq!(parse_u64(b"99999999999999999999"), Err(NumberError::TooLarge));
        assert_eq!(parse_u64(b"123456789012345678901234"), Err(NumberError::TooLarge));
        assert_eq!(parse_u64(b"12345678901234567890123x"), Err(NumberError::NotAnInteger));
        assert_eq!(parse_u64(b"1844674407370955161x"), Err(NumberError::NotAnInteger));
        assert_eq!(parse_u64(b"0000"), Ok(0));
        assert_eq!(parse_u64(b"0x10000000000000000"), Err(NumberError::TooLarge));
    }

    #[test]
    fn weights() {
        assert_eq!(parse_weight(b"2"), Some(2.0));
        assert_eq!(parse_weight(b"-0.5"), Some(-0.5));
        assert_eq!(parse_weight(b".5"), Some(0.5));
        assert_eq!(parse_weight(b"5."), Some(5.0));
        assert_eq!(parse_weight(b"1e3"), Some(1000.0));
        assert_eq!(parse_weight(b"+1E-2"), Some(0.01));
        for bad in [&b""[..], b"inf", b"NaN", b"-inf", b"1e999", b".", b"1e", b"1x", b"0x1", b"1 "]
        {
            assert_eq!(parse_weight(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(split_weight(b"a:b:2"), Some((&b"a:b"[..], &b"2"[..])));
        assert_eq!(split_weight(b"ab"), None);
    }

    proptest! {
        #[test]
        fn the_fast_and_the_slow_path_agree(text in "[0-9a+-]{0,20}") {
            let slow = if text.starts_with(['+', '-']) {
                Err(NumberError::Signed)
            } else if text.is_empty() {
                Err(NumberError::Empty)
            } else {
                parse_decimal(text.as_bytes())
            };
            prop_assert_eq!(parse_u64(text.as_bytes()), slow);
        }

        #[test]
        fn decimal_round_trips(value: u64) {
            let mut text = Vec::new();
            write_u64(&mut text, value).unwrap();
            prop_assert_eq!(parse_u64(&text), Ok(value));
            prop_assert_eq!(parse_u64(format!("{value:#x}").as_bytes()), Ok(value));
        }

        #[test]
        fn agrees_with_std_on_arbitrary_text(text in "[0-9a-fx+-]{0,24}") {
            let ours = parse_u64(text.as_bytes()).ok();
            let std = if let Some(hex) = text.strip_prefix("0x") {
                if hex.starts_with(['+', '-']) { None } else { u64::from_str_radix(hex, 16).ok() }
            } else if text.starts_with('+') {
                None
            } else {
                text.parse::<u64>().ok()
            };
            prop_assert_eq!(ours, std);
        }
    }
}
