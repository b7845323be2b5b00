//! Item weights, kept both as floating point and, when the decimal text allows, as an exact
//! fixed-point integer, so that decimal weights that cancel out (0.1 + 0.2 against 0.3) make
//! a true tie.

use sh_core::number::parse_weight;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weight {
    /// The weight times [`Weight::SCALE`], when that is an integer that fits.
    pub exact: Option<i128>,
    pub approx: f64,
}

/// Decimal places kept exactly.
const PLACES: i32 = 18;

impl Weight {
    pub const SCALE: i128 = 10i128.pow(PLACES as u32);

    /// Parses a finite decimal number (`2`, `-0.25`, `1e-3`); `None` for anything else.
    pub fn parse(text: &[u8]) -> Option<Weight> {
        let approx = parse_weight(text)?;
        Some(Weight { exact: fixed_point(text), approx })
    }
}

/// The value of already validated decimal text times 10^PLACES, if that is an integer that
/// fits comfortably in an i128 (below 10^36, leaving room to add up many of them).
fn fixed_point(text: &[u8]) -> Option<i128> {
    let (negative, text) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e' || b == b'E') {
        Some(e) => (&text[..e], std::str::from_utf8(&text[e + 1..]).ok()?.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let mut value: i128 = 0;
    let mut fraction_digits = 0i32;
    let mut after_point = false;
    for &b in mantissa {
        if b == b'.' {
            after_point = true;
            continue;
        }
        value = value.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        fraction_digits += i32::from(after_point);
    }
    let shift = exponent.checked_add(PLACES)?.checked_sub(fraction_digits)?;
    if shift >= 0 {
        value = value.checked_mul(10i128.checked_pow(shift.try_into().ok()?)?)?;
    } else {
        let divisor = 10i128.checked_pow((-shift).try_into().ok()?)?;
        if value % divisor != 0 {
            return None;
        }
        value /= divisor;
    }
    if value >= 10i128.pow(36) {
        return None;
    }
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_where_the_decimal_allows() {
        let scale = Weight::SCALE;
        assert_eq!(Weight::parse(b"1").unwrap().exact, Some(scale));
        assert_eq!(Weight::parse(b"-0.25").unwrap().exact, Some(-scale / 4));
        assert_eq!(Weight::parse(b"1e-3").unwrap().exact, Some(scale / 1000));
        assert_eq!(Weight::parse(b"2.5E2").unwrap().exact, Some(250 * scale));
        assert_eq!(Weight::parse(b"0.000000000000000001").unwrap().exact, Some(1));
        assert_eq!(Weight::parse(b"1e-19").unwrap().exact, None);
        assert_eq!(Weight::parse(b"1e30").unwrap().exact, None);
        assert_eq!(Weight::parse(b"1e30").unwrap().approx, 1e30);
        assert_eq!(Weight::parse(b"10.000000000000000000000").unwrap().exact, Some(10 * scale));
        assert_eq!(Weight::parse(b"nan"), None);
    }
}
