//! The fingerprint parser of sh-core (64, 128 and 256 bits) on arbitrary bytes, against a
//! restatement of the text forms with big integers: decimal or `0x` hex below 2^64 is 64 bits,
//! `0x` and exactly 32 or 64 hex digits is 128 or 256 bits, the whole as one big-endian number.
//! Also: the written form parses back to the same fingerprint, the distance is the popcount of
//! the XOR, and the width tracker fails exactly on the first item of another width.

#![no_main]

use libfuzzer_sys::fuzz_target;
use num_bigint::BigUint;
use num_traits::Zero;
use sh_core::fingerprint::{Fingerprint, FingerprintError, Width, WidthTracker};
use sh_core::number::NumberError;

/// What the forms say a text is: (bits, value), or the error.
fn reference(text: &[u8]) -> Result<(u32, BigUint), FingerprintError> {
    let (digits, radix) = match text {
        [b'0', b'x' | b'X', hex @ ..] => (hex, 16),
        [] => return Err(FingerprintError::Number(NumberError::Empty)),
        [b'+' | b'-', ..] => return Err(FingerprintError::Number(NumberError::Signed)),
        _ => (text, 10),
    };
    if let Some(&bad) = digits.iter().find(|&&b| !(b as char).is_digit(radix)) {
        return Err(match radix {
            16 => FingerprintError::BadHexDigit(bad),
            _ => FingerprintError::Number(NumberError::NotAnInteger),
        });
    }
    let value = if digits.is_empty() {
        BigUint::zero()
    } else {
        BigUint::parse_bytes(digits, radix).expect("digits checked")
    };
    let fits_64 = value.bits() <= 64;
    match (radix, digits.len()) {
        (16, 32) => Ok((128, value)),
        (16, 64) => Ok((256, value)),
        (16, 0) => Err(FingerprintError::WrongDigitCount(0)),
        (_, _) if fits_64 => Ok((64, value)),
        (16, len) if len > 64 => Err(FingerprintError::TooLong(len)),
        (16, len) => Err(FingerprintError::WrongDigitCount(len)),
        _ => Err(FingerprintError::Number(NumberError::TooLarge)),
    }
}

fn value_of(fingerprint: &Fingerprint) -> BigUint {
    let mut bytes = Vec::new();
    for word in fingerprint.words() {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    BigUint::from_bytes_le(&bytes)
}

fuzz_target!(|data: &[u8]| {
    let mut tracker = WidthTracker::new();
    let mut first: Option<(Width, u64)> = None;
    let mut previous: Option<Fingerprint> = None;
    for (n, line) in data.split(|&b| b == b'\n').enumerate() {
        let line_number = n as u64 + 1;
        for item in line.split(|&b| b == b' ').filter(|item| !item.is_empty()) {
            let ours = Fingerprint::parse(item);
            match (&ours, reference(item)) {
                (Ok(fingerprint), Ok((bits, value))) => {
                    assert_eq!(fingerprint.width().bits(), bits);
                    assert_eq!(value_of(fingerprint), value);
                }
                (Err(ours), Err(reference)) if *ours == reference => {}
                // Junk after too many decimal digits may be reported as either.
                (
                    Err(FingerprintError::Number(
                        NumberError::TooLarge | NumberError::NotAnInteger,
                    )),
                    Err(FingerprintError::Number(
                        NumberError::TooLarge | NumberError::NotAnInteger,
                    )),
                ) => {}
                (ours, reference) => panic!(
                    "{:?}: ours {ours:?}, the forms say {reference:?}",
                    String::from_utf8_lossy(item)
                ),
            }
            let Ok(fingerprint) = ours else { continue };

            // The written form: decimal for 64 bits, else 0x and N/4 lowercase digits.
            let mut text = Vec::new();
            fingerprint.push_text(&mut text);
            let expected = match fingerprint.width() {
                Width::Bits64 => value_of(&fingerprint).to_string(),
                width => format!(
                    "0x{:0digits$x}",
                    value_of(&fingerprint),
                    digits = width.bits() as usize / 4
                ),
            };
            assert_eq!(text, expected.as_bytes());
            assert_eq!(Fingerprint::parse(&text), Ok(fingerprint));

            if let Some(other) = previous {
                let expected = (other.width() == fingerprint.width())
                    .then(|| (value_of(&other) ^ value_of(&fingerprint)).count_ones() as u32);
                assert_eq!(fingerprint.distance(&other), expected);
            }
            previous = Some(fingerprint);

            let checked = tracker.check(line_number, fingerprint.width(), item);
            let (width, first_line) = *first.get_or_insert((fingerprint.width(), line_number));
            if width == fingerprint.width() {
                assert!(checked.is_ok());
            } else {
                let message = checked.expect_err("another width").to_string();
                let named = format!(
                    "line {line_number}: a {} fingerprint, but line {first_line} has a {width} one",
                    fingerprint.width()
                );
                assert!(message.starts_with(&named), "{message}");
            }
        }
    }
});
