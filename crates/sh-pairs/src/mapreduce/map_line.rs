//! The map's output line, `KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID]`, and its parts: lowercase hex
//! of a fixed width for the key and the fingerprint (16, 32 or 64 digits: its width), decimal
//! line numbers from 1.

use memchr::memchr;
use sh_core::fingerprint::{Fingerprint, Width};
use sh_core::number::parse_u64;
use sh_core::{Error, Result};

/// The fields of a map line.
pub(super) struct MapLine<'a> {
    pub key: &'a [u8],
    pub fingerprint: &'a [u8],
    pub line_number: &'a [u8],
    pub id: Option<&'a [u8]>,
}

impl<'a> MapLine<'a> {
    pub fn parse(record: &'a [u8]) -> std::result::Result<MapLine<'a>, &'static str> {
        const SHAPE: &str = "not a line of sh-pairs --map: KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID]";
        let mut fields = record.splitn(4, |&b| b == b'\t');
        let key = fields.next().filter(|k| !k.is_empty()).ok_or(SHAPE)?;
        let fingerprint = fields.next().ok_or(SHAPE)?;
        let line_number = fields.next().ok_or(SHAPE)?;
        let id = fields.next();
        if id.is_some_and(|id| id.contains(&b'\t')) {
            return Err("an id holds a TAB");
        }
        // As the map refuses a record's empty id: a pair would name no record.
        if id.is_some_and(<[u8]>::is_empty) {
            return Err("empty id");
        }
        Ok(MapLine { key, fingerprint, line_number, id })
    }
}

/// A line number: a decimal integer from 1 on.
pub(super) fn parse_line_number(text: &[u8], line: u64) -> Result<u64> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return Err(Error::input(line, "not a line number (a decimal integer from 1 on)", text));
    }
    match parse_u64(text) {
        Ok(0) => Err(Error::input(line, "line number 0: line numbers start at 1", text)),
        Ok(n) => Ok(n),
        Err(e) => Err(Error::input(line, e.to_string(), text)),
    }
}

/// The FINGERPRINT field: 16, 32 or 64 lowercase hex digits, the highest word first, for a
/// 64-, 128- or 256-bit fingerprint.
pub(super) fn parse_fingerprint(text: &[u8]) -> Option<Fingerprint> {
    let width = Width::from_bits(4 * u32::try_from(text.len()).ok()?)?;
    let mut words = [0u64; Fingerprint::MAX_WORDS];
    for (word, digits) in words[..width.words()].iter_mut().rev().zip(text.chunks_exact(16)) {
        *word = parse_hex(digits)?;
    }
    Fingerprint::from_words(&words[..width.words()])
}

/// Writes the FINGERPRINT field of `words` (word 0 first): 16 lowercase hex digits a word,
/// the highest word first.
pub(super) fn write_fingerprint(out: &mut Vec<u8>, words: &[u64]) {
    for &word in words.iter().rev() {
        write_hex(out, word, 16);
    }
}

/// Lowercase hex digits, as the map writes them; at most 16.
pub(super) fn parse_hex(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 16 {
        return None;
    }
    text.iter().try_fold(0u64, |value, &b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        Some(value << 4 | u64::from(digit))
    })
}

/// Writes `value` as `digits` lowercase hex digits (its low `4 * digits` bits).
pub(super) fn write_hex(out: &mut Vec<u8>, value: u64, digits: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits).rev() {
        out.push(HEX[(value >> (4 * i) & 0xf) as usize]);
    }
}

/// Hex digits for `bits` bits, at least one.
pub(super) fn hex_digits(bits: u32) -> usize {
    (bits.max(1) as usize).div_ceil(4)
}

/// `LINE<TAB>` at the start of a `--numbered` map input line: the line number and the rest.
pub(super) fn split_line_number(line: u64, record: &[u8]) -> Result<(u64, &[u8])> {
    let Some(tab) = memchr(b'\t', record) else {
        return Err(Error::input(line, "no TAB after the line number", record));
    };
    Ok((parse_line_number(&record[..tab], line)?, &record[tab + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_of_a_fixed_width() {
        let mut key = Vec::new();
        write_hex(&mut key, 5, 1);
        write_hex(&mut key, 0x2222_4444, hex_digits(32));
        assert_eq!(key, b"522224444");
        assert_eq!(parse_hex(b"522224444"), Some(0x5_2222_4444));
        assert_eq!(parse_hex(b"A"), None);
        assert_eq!(hex_digits(0), 1);
        assert_eq!(hex_digits(61), 16);
    }

    #[test]
    fn fingerprints_of_every_width() {
        for words in [&[5u64][..], &[5, u64::MAX], &[1, 2, 3, 0xabc]] {
            let mut text = Vec::new();
            write_fingerprint(&mut text, words);
            assert_eq!(text.len(), 16 * words.len());
            assert_eq!(parse_fingerprint(&text), Fingerprint::from_words(words));
        }
        let mut text = Vec::new();
        write_fingerprint(&mut text, &[1, 2]);
        assert_eq!(text, b"00000000000000020000000000000001");
        for bad in [&b"5"[..], &[b'0'; 48], &[b'0'; 17], b"000000000000000A"] {
            assert_eq!(parse_fingerprint(bad), None);
        }
    }
}
