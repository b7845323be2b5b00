//! Fingerprints of 64, 128 or 256 bits, as `sh-compute --bits N` writes them and every reader of
//! fingerprints reads them.
//!
//! A fingerprint of N bits is N/64 words of 64 bits. Bit `64 * i + b` of the fingerprint is bit
//! `b` (0 the least significant) of word `i`, and word 0 is the 64-bit fingerprint of the same
//! items: a 256-bit fingerprint's low 64 bits are the 64-bit one.
//!
//! The text forms:
//!
//! - 64 bits: decimal (what `sh-compute` writes), or `0x` and hex digits, as every hash and
//!   fingerprint has always been read (see [`crate::number::parse_u64`]).
//! - 128 and 256 bits: `0x` followed by exactly 32 or 64 hex digits: the whole fingerprint as one
//!   big-endian number, so the first 16 digits are the highest word and the last 16 are word 0.
//!   `sh-compute` writes lowercase; uppercase is read too. Only the digit count tells the width,
//!   so a 64-bit fingerprint written in hex with exactly 32 or 64 digits (leading zeros) is read
//!   as a wide one.
//!
//! The Hamming distance of two fingerprints is the sum over their words of the distance of each
//! word: from the text, cut the hex digits into runs of 16 and compare run with run.

use std::fmt;
use std::io::Write;

use crate::error::{Error, Result};
use crate::number::{parse_u64, push_u64, write_u64, NumberError};

/// How many bits a fingerprint has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    /// 64 bits, one word: the classic simhash, written in decimal.
    Bits64,
    /// 128 bits, two words, written as `0x` and 32 hex digits.
    Bits128,
    /// 256 bits, four words, written as `0x` and 64 hex digits.
    Bits256,
}

impl Width {
    /// Every width, narrowest first.
    pub const ALL: [Width; 3] = [Width::Bits64, Width::Bits128, Width::Bits256];

    /// The width of `bits` bits, when it is one of 64, 128 and 256.
    pub fn from_bits(bits: u32) -> Option<Width> {
        Width::ALL.into_iter().find(|width| width.bits() == bits)
    }

    /// The number of bits: 64, 128 or 256.
    pub fn bits(self) -> u32 {
        match self {
            Width::Bits64 => 64,
            Width::Bits128 => 128,
            Width::Bits256 => 256,
        }
    }

    /// The number of 64-bit words: 1, 2 or 4.
    pub fn words(self) -> usize {
        self.bits() as usize / 64
    }

    /// The width of a fingerprint of `words` 64-bit words, when it is 1, 2 or 4.
    pub fn from_words(words: usize) -> Option<Width> {
        Width::ALL.into_iter().find(|width| width.words() == words)
    }
}

impl fmt::Display for Width {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-bit", self.bits())
    }
}

/// A fingerprint of 64, 128 or 256 bits: its width and its words, word 0 the lowest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// Words beyond the width are 0, so that equal fingerprints compare equal.
    words: [u64; Fingerprint::MAX_WORDS],
    width: Width,
}

/// Why a fingerprint did not parse; the message part of an input error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FingerprintError {
    /// A 64-bit fingerprint in decimal (or short hex) that is not an unsigned 64-bit integer.
    Number(NumberError),
    /// A byte after `0x` that is not a hex digit (the first such byte).
    BadHexDigit(u8),
    /// `0x` and this many hex digits, too many for 64 bits and not the 32 or 64 of a wide one.
    WrongDigitCount(usize),
    /// `0x` and this many hex digits, more than the 64 of the widest fingerprint.
    TooLong(usize),
}

impl fmt::Display for FingerprintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const FORMS: &str = "a fingerprint is decimal or 0x and at most 16 significant hex \
                             digits (64-bit), or 0x and exactly 32 (128-bit) or 64 (256-bit)";
        match *self {
            FingerprintError::Number(e) => e.fmt(f),
            FingerprintError::BadHexDigit(byte) if byte.is_ascii_graphic() => {
                write!(f, "'{}' is not a hex digit", char::from(byte))
            }
            FingerprintError::BadHexDigit(byte) => {
                write!(f, "byte \\x{byte:02X} is not a hex digit")
            }
            FingerprintError::WrongDigitCount(0) => write!(f, "no hex digits after 0x: {FORMS}"),
            FingerprintError::WrongDigitCount(n) => write!(f, "0x and {n} hex digits: {FORMS}"),
            FingerprintError::TooLong(n) => {
                write!(f, "too long: 0x and {n} hex digits, and the widest fingerprint has 64")
            }
        }
    }
}

impl std::error::Error for FingerprintError {}

impl Fingerprint {
    /// The most words a fingerprint has (256 bits).
    pub const MAX_WORDS: usize = 4;

    /// A 64-bit fingerprint.
    pub fn from_u64(value: u64) -> Fingerprint {
        Fingerprint { words: [value, 0, 0, 0], width: Width::Bits64 }
    }

    /// The fingerprint of 1, 2 or 4 words, word 0 the lowest; `None` for another count.
    pub fn from_words(words: &[u64]) -> Option<Fingerprint> {
        let width = Width::from_words(words.len())?;
        let mut all = [0; Fingerprint::MAX_WORDS];
        all[..words.len()].copy_from_slice(words);
        Some(Fingerprint { words: all, width })
    }

    /// How many bits it has.
    pub fn width(&self) -> Width {
        self.width
    }

    /// Its words, word 0 (the lowest 64 bits) first; as many as the width has.
    pub fn words(&self) -> &[u64] {
        &self.words[..self.width.words()]
    }

    /// The number of bits in which two fingerprints of one width differ; `None` when their
    /// widths differ.
    pub fn distance(&self, other: &Fingerprint) -> Option<u32> {
        (self.width == other.width)
            .then(|| self.words.iter().zip(&other.words).map(|(a, b)| (a ^ b).count_ones()).sum())
    }

    /// Parses any of the text forms (see the module's documentation): decimal or short `0x` hex
    /// for 64 bits, `0x` and exactly 32 or 64 hex digits for 128 or 256. Nothing else: no sign,
    /// no spaces, no trailing junk.
    pub fn parse(text: &[u8]) -> std::result::Result<Fingerprint, FingerprintError> {
        match text {
            [b'0', b'x' | b'X', digits @ ..] => parse_hex(digits),
            _ => parse_u64(text).map(Fingerprint::from_u64).map_err(FingerprintError::Number),
        }
    }

    /// Appends the text form: decimal for 64 bits, `0x` and N/4 lowercase hex digits (the
    /// highest word first) for N = 128 or 256.
    pub fn push_text(&self, out: &mut Vec<u8>) {
        match self.width {
            Width::Bits64 => push_u64(out, self.words[0]),
            _ => out.extend_from_slice(self.spell_hex().as_text()),
        }
    }

    /// Writes the text form of [`Fingerprint::push_text`] without allocating.
    pub fn write_to<W: Write>(&self, out: &mut W) -> std::io::Result<()> {
        match self.width {
            Width::Bits64 => write_u64(out, self.words[0]),
            _ => out.write_all(self.spell_hex().as_text()),
        }
    }

    fn spell_hex(&self) -> HexText {
        let mut text = HexText { bytes: [0; 2 + 16 * Fingerprint::MAX_WORDS], len: 2 };
        text.bytes[..2].copy_from_slice(b"0x");
        for &word in self.words().iter().rev() {
            text.bytes[text.len..text.len + 16].copy_from_slice(&spell_hex_word(word));
            text.len += 16;
        }
        text
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = Vec::with_capacity(2 + 16 * Fingerprint::MAX_WORDS);
        self.push_text(&mut text);
        f.write_str(std::str::from_utf8(&text).expect("digits are ASCII"))
    }
}

/// The hex form of a wide fingerprint, on the stack.
struct HexText {
    bytes: [u8; 2 + 16 * Fingerprint::MAX_WORDS],
    len: usize,
}

impl HexText {
    fn as_text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Sixteen lowercase hex digits, the most significant first.
fn spell_hex_word(word: u64) -> [u8; 16] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = [0; 16];
    for (i, digit) in text.iter_mut().enumerate() {
        *digit = DIGITS[(word >> (60 - 4 * i) & 0xF) as usize];
    }
    text
}

/// The value of each byte as a hex digit (either case), or [`NOT_HEX`].
const HEX_VALUES: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// Not a hex digit: the high bits set, which no digit's value has.
const NOT_HEX: u8 = 0xF0;

/// The value of a hex digit, either case.
fn hex_value(byte: u8) -> Option<u64> {
    let value = HEX_VALUES[usize::from(byte)];
    (value & NOT_HEX == 0).then_some(u64::from(value))
}

/// The digits after `0x`: exactly 32 or 64 make a wide fingerprint, any other count a 64-bit one
/// (leading zeros allowed, as for every hex number between stages).
fn parse_hex(digits: &[u8]) -> std::result::Result<Fingerprint, FingerprintError> {
    let width = match digits.len() {
        32 => Width::Bits128,
        64 => Width::Bits256,
        _ => return parse_short_hex(digits),
    };
    // One pass: fold every run of 16 digits into its word and note any byte that is no digit.
    let mut words = [0; Fingerprint::MAX_WORDS];
    let mut seen = 0u8;
    // The first 16 digits are the highest word.
    for (word, run) in words[..width.words()].iter_mut().rev().zip(digits.chunks_exact(16)) {
        *word = run.iter().fold(0, |value, &b| {
            let digit = HEX_VALUES[usize::from(b)];
            seen |= digit;
            value << 4 | u64::from(digit & 0xF)
        });
    }
    if seen & NOT_HEX != 0 {
        return Err(first_bad_digit(digits));
    }
    Ok(Fingerprint { words, width })
}

/// `0x` and a digit count other than 32 and 64: a 64-bit fingerprint when its significant
/// digits fit.
fn parse_short_hex(digits: &[u8]) -> std::result::Result<Fingerprint, FingerprintError> {
    if digits.iter().any(|&b| hex_value(b).is_none()) {
        return Err(first_bad_digit(digits));
    }
    let len = digits.len();
    if len == 0 {
        return Err(FingerprintError::WrongDigitCount(0));
    }
    let significant = &digits[digits.iter().take_while(|&&b| b == b'0').count()..];
    match significant.len() {
        0..=16 => Ok(Fingerprint::from_u64(fold_hex(significant))),
        _ if len > 64 => Err(FingerprintError::TooLong(len)),
        _ => Err(FingerprintError::WrongDigitCount(len)),
    }
}

#[cold]
fn first_bad_digit(digits: &[u8]) -> FingerprintError {
    let bad = digits.iter().find(|&&b| hex_value(b).is_none()).expect("a byte that is no digit");
    FingerprintError::BadHexDigit(*bad)
}

/// The value of at most 16 hex digits, already checked to be hex digits.
fn fold_hex(digits: &[u8]) -> u64 {
    digits.iter().fold(0, |value, &b| value << 4 | hex_value(b).expect("checked above"))
}

/// One width within one input: remembers the first fingerprint's width and line, and tells an
/// error naming both lines when a later one has another width.
#[derive(Debug, Clone, Default)]
pub struct WidthTracker {
    first: Option<(Width, u64)>,
}

impl WidthTracker {
    /// A tracker that has seen no fingerprint yet.
    pub fn new() -> WidthTracker {
        WidthTracker::default()
    }

    /// The width of the first fingerprint seen, if any.
    pub fn width(&self) -> Option<Width> {
        self.first.map(|(width, _)| width)
    }

    /// The width of the first fingerprint seen and its line, if any.
    pub fn first(&self) -> Option<(Width, u64)> {
        self.first
    }

    /// Checks the width of the fingerprint `text` on `line` against the first one seen (or
    /// makes it the first); the error names the line, the two widths and the first one's line.
    #[inline]
    pub fn check(&mut self, line: u64, width: Width, text: &[u8]) -> Result<()> {
        match self.first {
            Some((first, _)) if first == width => Ok(()),
            Some((first, first_line)) => Err(Error::input(
                line,
                format!(
                    "a {width} fingerprint, but line {first_line} has a {first} one \
                     (one input holds fingerprints of one width)"
                ),
                text,
            )),
            None => {
                self.first = Some((width, line));
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(text: &str) -> std::result::Result<Fingerprint, FingerprintError> {
        Fingerprint::parse(text.as_bytes())
    }

    fn text(fingerprint: &Fingerprint) -> String {
        let mut text = Vec::new();
        fingerprint.push_text(&mut text);
        let mut written = Vec::new();
        fingerprint.write_to(&mut written).unwrap();
        assert_eq!(text, written);
        assert_eq!(fingerprint.to_string().as_bytes(), text);
        String::from_utf8(text).unwrap()
    }

    #[test]
    fn widths() {
        for (bits, words) in [(64, 1), (128, 2), (256, 4)] {
            let width = Width::from_bits(bits).unwrap();
            assert_eq!((width.bits(), width.words()), (bits, words));
            assert_eq!(Width::from_words(words), Some(width));
            assert_eq!(width.to_string(), format!("{bits}-bit"));
        }
        for bits in [0, 1, 32, 63, 65, 96, 192, 512] {
            assert_eq!(Width::from_bits(bits), None, "{bits}");
        }
        assert_eq!(Width::from_words(3), None);
    }

    #[test]
    fn the_64_bit_forms_are_read_as_every_number_is() {
        for (form, value) in [
            ("0", 0),
            ("18446744073709551615", u64::MAX),
            ("0xffffffffffffffff", u64::MAX),
            ("0XAbC", 0xabc),
            ("0x00000000000000000001", 1),
            ("00000000000000000000000042", 42),
        ] {
            let fingerprint = parse(form).unwrap();
            assert_eq!(fingerprint.width(), Width::Bits64, "{form}");
            assert_eq!(fingerprint.words(), [value], "{form}");
        }
        assert_eq!(text(&Fingerprint::from_u64(44495)), "44495");
    }

    #[test]
    fn wide_forms_put_the_highest_word_first() {
        let hex128 = "0x000000000000000200000000000000ff";
        let fingerprint = parse(hex128).unwrap();
        assert_eq!(fingerprint.width(), Width::Bits128);
        assert_eq!(fingerprint.words(), [0xff, 2]);
        assert_eq!(text(&fingerprint), hex128);

        let words = [1, 0x0123_4567_89ab_cdef, 0, u64::MAX];
        let fingerprint = Fingerprint::from_words(&words).unwrap();
        let hex256 = concat!(
            "0x",
            "ffffffffffffffff",
            "0000000000000000",
            "0123456789abcdef",
            "0000000000000001"
        );
        assert_eq!(text(&fingerprint), hex256);
        assert_eq!(parse(hex256), Ok(fingerprint));
        assert_eq!(parse(&hex256.to_uppercase().replace("0X", "0x")), Ok(fingerprint));
        // Leading zeros count: exactly 32 digits are 128 bits whatever their value.
        assert_eq!(parse(&format!("0x{:032x}", 5)).unwrap().words(), [5, 0]);
        assert_eq!(Fingerprint::from_words(&[1, 2, 3]), None);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let cases = [
            ("", FingerprintError::Number(NumberError::Empty)),
            ("-1", FingerprintError::Number(NumberError::Signed)),
            ("12a", FingerprintError::Number(NumberError::NotAnInteger)),
            ("18446744073709551616", FingerprintError::Number(NumberError::TooLarge)),
            ("0x", FingerprintError::WrongDigitCount(0)),
            ("0xg", FingerprintError::BadHexDigit(b'g')),
            ("0x10000000000000000", FingerprintError::WrongDigitCount(17)),
            (&format!("0x1{}", "0".repeat(32)), FingerprintError::WrongDigitCount(33)),
            (&format!("0x{}", "a".repeat(63)), FingerprintError::WrongDigitCount(63)),
            (&format!("0x{}", "a".repeat(65)), FingerprintError::TooLong(65)),
            (&format!("0x{}z", "a".repeat(31)), FingerprintError::BadHexDigit(b'z')),
            (&format!("0x{} ", "a".repeat(64)), FingerprintError::BadHexDigit(b' ')),
            ("0x-1", FingerprintError::BadHexDigit(b'-')),
        ];
        for (form, error) in cases {
            assert_eq!(parse(form), Err(error), "{form:?}");
        }
        let message = |e: FingerprintError| e.to_string();
        assert_eq!(message(FingerprintError::BadHexDigit(b'g')), "'g' is not a hex digit");
        assert_eq!(message(FingerprintError::BadHexDigit(0)), r"byte \x00 is not a hex digit");
        assert!(message(FingerprintError::WrongDigitCount(17)).starts_with("0x and 17 hex digits"));
        assert!(message(FingerprintError::WrongDigitCount(17)).contains("exactly 32 (128-bit)"));
        assert!(message(FingerprintError::TooLong(70)).starts_with("too long: 0x and 70"));
        assert_eq!(
            message(FingerprintError::Number(NumberError::TooLarge)),
            NumberError::TooLarge.to_string()
        );
    }

    #[test]
    fn distance_is_per_word_and_needs_one_width() {
        let a = Fingerprint::from_words(&[0b1011, 0, u64::MAX, 1]).unwrap();
        let b = Fingerprint::from_words(&[0b0001, 0, 0, 1]).unwrap();
        assert_eq!(a.distance(&b), Some(2 + 64));
        assert_eq!(a.distance(&a), Some(0));
        assert_eq!(a.distance(&Fingerprint::from_u64(0b1011)), None);
        assert_eq!(Fingerprint::from_u64(7).distance(&Fingerprint::from_u64(0)), Some(3));
    }

    #[test]
    fn the_tracker_names_both_lines() {
        let mut tracker = WidthTracker::new();
        assert_eq!(tracker.width(), None);
        tracker.check(3, Width::Bits256, b"0x..").unwrap();
        tracker.check(4, Width::Bits256, b"0x..").unwrap();
        assert_eq!(tracker.width(), Some(Width::Bits256));
        let e = tracker.check(9, Width::Bits64, b"12345").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 9: a 64-bit fingerprint, but line 3 has a 256-bit one \
             (one input holds fingerprints of one width): '12345'"
        );
        assert_eq!(e.exit_code(), 1);
        assert_eq!(tracker.width(), Some(Width::Bits256), "the first width stays");
    }

    fn any_fingerprint() -> impl Strategy<Value = Fingerprint> {
        (prop_oneof![Just(1usize), Just(2), Just(4)], any::<[u64; 4]>(), 0u32..64).prop_map(
            |(words, values, shift)| {
                // Small values too, so that leading zeros are spelled.
                let values = values.map(|v| v >> shift);
                Fingerprint::from_words(&values[..words]).unwrap()
            },
        )
    }

    proptest! {
        #[test]
        fn format_then_parse_round_trips(fingerprint in any_fingerprint()) {
            let text = text(&fingerprint);
            match fingerprint.width() {
                Width::Bits64 => prop_assert!(text.bytes().all(|b| b.is_ascii_digit())),
                width => {
                    prop_assert_eq!(text.len(), 2 + width.bits() as usize / 4);
                    prop_assert!(text[2..].bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
                    // The last 16 digits are word 0.
                    let low = u64::from_str_radix(&text[text.len() - 16..], 16).unwrap();
                    prop_assert_eq!(low, fingerprint.words()[0]);
                }
            }
            prop_assert_eq!(parse(&text), Ok(fingerprint));
        }

        #[test]
        fn hex_of_any_length_parses_as_a_restatement_says(digits in "[0-9a-fA-F]{0,70}") {
            let expected = match digits.len() {
                32 | 64 => {
                    let words: Vec<u64> = digits.as_bytes().rchunks(16)
                        .map(|run| u64::from_str_radix(std::str::from_utf8(run).unwrap(), 16).unwrap())
                        .collect();
                    Ok(Fingerprint::from_words(&words).unwrap())
                }
                0 => Err(FingerprintError::WrongDigitCount(0)),
                len => match u128::from_str_radix(digits.trim_start_matches('0'), 16) {
                    Ok(v) if v <= u128::from(u64::MAX) => Ok(Fingerprint::from_u64(v as u64)),
                    _ if digits.trim_start_matches('0').is_empty() => Ok(Fingerprint::from_u64(0)),
                    _ if len > 64 => Err(FingerprintError::TooLong(len)),
                    _ => Err(FingerprintError::WrongDigitCount(len)),
                },
            };
            prop_assert_eq!(parse(&format!("0x{digits}")), expected);
        }

        #[test]
        fn decimal_is_parse_u64(text in "[0-9a-f+x-]{0,24}") {
            prop_assume!(!text.starts_with("0x"));
            let expected = parse_u64(text.as_bytes())
                .map(Fingerprint::from_u64)
                .map_err(FingerprintError::Number);
            prop_assert_eq!(parse(&text), expected);
        }
    }
}
