//! The record format: `[ID<TAB>]PAYLOAD`, the payload a list of space-separated items.

use memchr::memchr;

use crate::error::{Error, Result};
use crate::number::{canonical_u64, leading_decimal};

/// Splits a record into its id (everything before the first TAB) and payload.
pub fn split_id(record: &[u8]) -> (Option<&[u8]>, &[u8]) {
    match find_byte(record, b'\t') {
        Some(tab) => (Some(&record[..tab]), &record[tab + 1..]),
        None => (None, record),
    }
}

/// What an error says of a record whose id is empty.
pub const EMPTY_ID: &str = "empty id";

/// U+FEFF in UTF-8: the byte-order mark that editors and spreadsheet exports on some systems
/// write at the start of a text file.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `line` without the byte-order mark it starts with, if any. The commands that read text made
/// by hand or saved by an editor (sh-tokenize's and sh-fingerprint's documents, the records of
/// sh-pairs and sh-index, the pairs of sh-cluster and sh-score, sh-score's gold) drop it:
/// otherwise it would be part of the first id, make the first line invalid JSON, begin the
/// first token (`--mode chars`, `space`) or stop a lone fingerprint from parsing. Dropped at
/// the start of any line, not only the first, so that a line reads the same wherever the input
/// is cut (threads, `parallel --pipepart`, the Spark driver's partitions, whose reader drops
/// the mark at the start of a file) and in files joined by `cat`, which keep each one's mark.
/// One mark only: a second is the line's first character (so an id that starts with one, from
/// a line that started with two, loses it again in sh-pairs; an id that is a mark alone is
/// empty there, an error).
#[inline]
pub fn without_bom(line: &[u8]) -> &[u8] {
    line.strip_prefix(BOM).unwrap_or(line)
}

/// The byte-order mark of UTF-16 or UTF-32 that `text` starts with: its bytes written out, and
/// the encoding's name for `iconv`. Windows PowerShell's `>` and Notepad's "Unicode" write
/// UTF-16 with `FF FE`. None of these bytes but NUL is ever part of UTF-8, so a file that
/// starts with one is not UTF-8 text (UTF-32's marks are tried first: UTF-32LE's starts with
/// UTF-16LE's).
pub fn unicode_mark(text: &[u8]) -> Option<(&'static str, &'static str)> {
    match text {
        [0xFF, 0xFE, 0, 0, ..] => Some(("FF FE 00 00", "UTF-32")),
        [0, 0, 0xFE, 0xFF, ..] => Some(("00 00 FE FF", "UTF-32")),
        [0xFF, 0xFE, ..] => Some(("FF FE", "UTF-16")),
        [0xFE, 0xFF, ..] => Some(("FE FF", "UTF-16")),
        _ => None,
    }
}

/// Tells the user, on standard error, when the input of `reader` (the file `file`, when the
/// command's messages name it) starts with a UTF-16 or UTF-32 byte-order mark
/// ([`unicode_mark`]); call it before any record is read. Input is read as UTF-8 all the
/// same, as invalid UTF-8 always is (a crawl's stray bytes are no error); but a whole file of
/// UTF-16 read so is garbage (Latin letters apart between NUL bytes, other scripts invalid
/// UTF-8): documents fingerprinted so are of no use and ids read so match no other's, which
/// without the note would go unseen. The start of the input alone is looked at: the note is
/// for a file saved so, which starts with the mark, and it comes once however the input is
/// then cut (threads, blocks of a file). A read that fails here leaves the error to the
/// reading of the lines, which reports it.
pub fn note_unicode_mark(reader: &mut crate::RecordReader, file: Option<&str>) {
    let Ok(start) = reader.peek(4) else { return };
    if let Some((mark, encoding)) = unicode_mark(&start) {
        let file = file.map(|f| format!("{f}: ")).unwrap_or_default();
        crate::cli::note(format_args!(
            "{file}line 1 starts with {mark}, the byte-order mark of {encoding}: the input is \
             read as UTF-8, and {encoding} text read so is garbage; convert it first (iconv -f \
             {encoding} -t UTF-8)"
        ));
    }
}

/// [`split_id`] for the stages that read ids: an empty id (a record that starts with a TAB) is
/// an error on `line`, where the bad line is, rather than later in sh-cluster. An id names a
/// document in pairs and clusters, and an empty one names none.
pub fn split_nonempty_id(line: u64, record: &[u8]) -> Result<(Option<&[u8]>, &[u8])> {
    match split_id(record) {
        (Some(b""), _) => Err(Error::input(line, EMPTY_ID, record)),
        split => Ok(split),
    }
}

/// The items of a payload: runs of bytes between spaces. Runs of spaces and leading or trailing
/// spaces give no empty items.
pub fn items(payload: &[u8]) -> Items<'_> {
    Items { rest: payload }
}

/// The items of a payload, from [`items`].
#[derive(Debug, Clone)]
pub struct Items<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Items<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| b != b' ')?;
        let rest = &self.rest[start..];
        let end = find_byte(rest, b' ').unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

/// The items of a payload as [`items`] cuts them, each with its value when it is the
/// canonical decimal of a u64 ([`canonical_u64`]): the form sh-hash writes, read as it is
/// found, so that a stage that keys items by value scans each once. `007` and `7` are distinct
/// items: only `7` has a value.
pub fn numbered_items(payload: &[u8]) -> NumberedItems<'_> {
    NumberedItems { rest: payload }
}

/// The items of a payload and their values, from [`numbered_items`].
#[derive(Debug, Clone)]
pub struct NumberedItems<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for NumberedItems<'a> {
    type Item = (&'a [u8], Option<u64>);

    #[inline]
    fn next(&mut self) -> Option<(&'a [u8], Option<u64>)> {
        let start = self.rest.iter().position(|&b| b != b' ')?;
        let rest = &self.rest[start..];
        if let Some((value, len)) = leading_decimal(rest) {
            // A leading zero makes another item than the number's canonical decimal.
            if len == 1 || rest[0] != b'0' {
                self.rest = &rest[len..];
                return Some((&rest[..len], Some(value)));
            }
        }
        let end = find_byte(rest, b' ').unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some((&rest[..end], canonical_u64(&rest[..end])))
    }
}

/// The position of the first `byte`. Records and items between stages are often short (a
/// 20-digit hash, a word, a line of one fingerprint): eight bytes at a time in a 64-bit word
/// beats a call to memchr, whose start-up costs more than such a scan; beyond the first 32
/// bytes memchr takes over.
#[inline]
pub fn find_byte(text: &[u8], byte: u8) -> Option<usize> {
    let mut words = text.chunks_exact(8);
    for (n, word) in words.by_ref().take(4).enumerate() {
        let zero = bytes_equal(u64::from_le_bytes(word.try_into().expect("eight bytes")), byte);
        if zero != 0 {
            return Some(n * 8 + (zero.trailing_zeros() / 8) as usize);
        }
    }
    let scanned = text.len() - words.remainder().len() - words.len() * 8;
    if words.len() == 0 {
        // Fewer than eight bytes are left: too few for a call.
        return words.remainder().iter().position(|&b| b == byte).map(|at| scanned + at);
    }
    memchr(byte, &text[scanned..]).map(|at| scanned + at)
}

/// The bytes of `word` (little-endian: the first byte lowest) equal to `byte`, flagged by their
/// high bit: zero when there is none, and the lowest flag the first such byte (flags above it
/// may be false: XORed with `byte` they become zero, and a borrow can only flag bytes above a
/// true zero).
#[inline]
pub(crate) fn bytes_equal(word: u64, byte: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (u64::from(byte) * ONES);
    x.wrapping_sub(ONES) & !x & (0x80 * ONES)
}

/// Writes the id part of a record (`ID<TAB>`) when there is one.
pub fn write_id<W: std::io::Write>(out: &mut W, id: Option<&[u8]>) -> std::io::Result<()> {
    if let Some(id) = id {
        out.write_all(id)?;
        out.write_all(b"\t")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn id_is_everything_before_the_first_tab() {
        assert_eq!(split_id(b"doc1\ta b"), (Some(&b"doc1"[..]), &b"a b"[..]));
        assert_eq!(split_id(b"a\tb\tc"), (Some(&b"a"[..]), &b"b\tc"[..]));
        assert_eq!(split_id(b"\tx"), (Some(&b""[..]), &b"x"[..]));
        assert_eq!(split_id(b"no id"), (None, &b"no id"[..]));
    }

    #[test]
    fn items_skip_runs_of_spaces() {
        let got: Vec<&[u8]> = items(b"  a  bb c ").collect();
        assert_eq!(got, [&b"a"[..], b"bb", b"c"]);
        assert_eq!(items(b"").count(), 0);
        assert_eq!(items(b"    ").count(), 0);
    }

    #[test]
    fn find_byte_agrees_with_memchr_at_every_position_and_length() {
        // Every length to 80 (the word loop, its tail and the memchr fallback), a space at every
        // position or none, with bytes that differ from a space by one bit around it.
        for len in 0..80 {
            for space in (0..len).map(Some).chain([None]) {
                let mut text: Vec<u8> = (0..len).map(|i| [b'!', 0x60, 0xA0, b'0'][i % 4]).collect();
                if let Some(at) = space {
                    text[at] = b' ';
                    if at + 1 < len {
                        text[at + 1] = b' ';
                    }
                }
                for byte in [b' ', b'\t', b'\n', 0x60, 0xA0] {
                    assert_eq!(find_byte(&text, byte), memchr(byte, &text), "{len} {space:?}");
                }
            }
        }
    }

    #[test]
    fn numbered_items_are_the_items_with_their_canonical_values() {
        let max = u64::MAX.to_string();
        let over = "18446744073709551616";
        let long = "1".repeat(21);
        let texts = [
            "7 007 0 00 10 x7 7x 1e3 +7 -7 0x7",
            "  12345678901234567   9   ",
            &format!("{max} {over} {long} {max}0 {max}"),
            "12345678901234567890123456789 5",
            "",
            "   ",
        ];
        for text in texts {
            // Short payloads, and the same padded past 24 bytes (the vector path).
            for payload in [text.to_string(), format!("{text} {}", "9".repeat(30))] {
                let got: Vec<_> = numbered_items(payload.as_bytes()).collect();
                let want: Vec<_> =
                    items(payload.as_bytes()).map(|item| (item, canonical_u64(item))).collect();
                assert_eq!(got, want, "{payload:?}");
            }
        }
        let got: Vec<_> = numbered_items(b"7 007 18446744073709551615").map(|(_, v)| v).collect();
        assert_eq!(got, [Some(7), None, Some(u64::MAX)]);
    }

    proptest! {
        /// Any payload of digits, zeros, spaces and other bytes, numbers near 2^64 among them:
        /// the same items as [`items`], each valued exactly when it is canonical.
        #[test]
        fn numbered_items_agree_with_items_and_canonical_u64(
            parts in prop::collection::vec(
                prop_oneof![
                    any::<u64>().prop_map(|v| v.to_string()),
                    (u64::MAX - 1000..=u64::MAX).prop_map(|v| v.to_string()),
                    "[0-9]{1,22}",
                    "0[0-9]{0,3}",
                    "[0-9 x:+\\-]{0,6}",
                    " {1,3}",
                ],
                0..12,
            )
        ) {
            let payload = parts.concat();
            let got: Vec<_> = numbered_items(payload.as_bytes()).collect();
            let want: Vec<_> =
                items(payload.as_bytes()).map(|item| (item, canonical_u64(item))).collect();
            prop_assert_eq!(got, want);
        }
    }
}
