//! Pair lines, as sh-cluster and sh-score read them: `A<TAB>B[<TAB>DISTANCE[<TAB>…]]` as sh-pairs
//! prints them, or, on a line that starts with `[`, a JSON array `[a, b, …]` (`["A", "B", D]`
//! from `sh-pairs --format json`, `[123, 456]` from the seed tools).
//!
//! The TSV path is two `memchr`s and no allocation; the JSON path, in `json_array.rs`, visits
//! the array with serde_json rather than building it.
//!
//! The distance is only looked at when [`Pair::distance`] is asked for it, and whatever the
//! commands do with the pair (a pair of an id with itself, say) is theirs to decide.

use std::fmt;

use memchr::memchr;

use json_array::parse_json;

mod json_array;

/// The largest distance a pair line may carry: that of two 256-bit fingerprints within the
/// largest K that sh-pairs takes (255).
pub const MAX_DISTANCE: u8 = 255;
// Every distance that fits its u8 is one [`Pair::distance`] takes.
const _: () = assert!(MAX_DISTANCE == u8::MAX);

/// One id of a pair, as the line gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairId<'a> {
    /// A TSV field or a JSON string: never empty, never holding a TAB or a line feed.
    Text(&'a [u8]),
    /// A JSON number.
    Number(u64),
}

impl<'a> PairId<'a> {
    /// The id as text: a JSON number in decimal, as sh-pairs would print it, so that the JSON
    /// number 7, the JSON string "7" and the TSV field `7` read the same.
    #[inline]
    pub fn spelled<'s>(self, buffer: &'s mut itoa::Buffer) -> &'s [u8]
    where
        'a: 's,
    {
        match self {
            PairId::Text(text) => text,
            PairId::Number(value) => buffer.format(value).as_bytes(),
        }
    }
}

/// The two ids of a pair line and what follows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair<'a> {
    /// The first id.
    pub a: PairId<'a>,
    /// The second id.
    pub b: PairId<'a>,
    third: Third<'a>,
}

/// What follows the ids, read only by [`Pair::distance`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Third<'a> {
    /// A JSON array of two elements.
    Absent,
    /// What follows B on a TSV line: nothing, or its TAB and the fields after it, not yet split.
    Fields(&'a [u8]),
    /// A JSON unsigned 64-bit integer.
    Number(u64),
    /// Any other JSON scalar.
    OtherJson,
}

impl Pair<'_> {
    /// The third field, sh-pairs' distance: an integer from 0 to [`MAX_DISTANCE`], in TSV
    /// written with one to three decimal digits.
    pub fn distance(&self) -> Result<u8, PairError> {
        match self.third {
            Third::Absent => Err(PairError::NoDistance),
            Third::Fields([]) => Err(PairError::NoDistance),
            Third::Fields([_tab, fields @ ..]) => {
                let field = &fields[..memchr(b'\t', fields).unwrap_or(fields.len())];
                if field.is_empty() || field.len() > 3 || !field.iter().all(u8::is_ascii_digit) {
                    return Err(PairError::BadDistance);
                }
                let value =
                    field.iter().fold(0u16, |value, &digit| value * 10 + u16::from(digit - b'0'));
                u8::try_from(value).map_err(|_| PairError::BadDistance)
            }
            Third::Number(value) => u8::try_from(value).map_err(|_| PairError::BadDistance),
            Third::OtherJson => Err(PairError::BadDistance),
        }
    }
}

/// What is wrong with a pair line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairError {
    /// A TSV line without a TAB.
    OneField,
    /// An empty TSV field or JSON string for an id.
    EmptyId,
    /// A JSON array of fewer than two elements.
    TooFew,
    /// Broken JSON outside a string.
    BrokenArray,
    /// Broken JSON inside a string: a bad escape, a control character, invalid UTF-8, the end
    /// of the line.
    BrokenString,
    /// Anything but spaces after the closing `]`.
    AfterArray,
    /// One of the first two elements is neither a string nor an unsigned 64-bit integer.
    BadIdType,
    /// An element after the first two is an array or an object.
    BadExtra,
    /// A JSON string id that decodes to a TAB or a line feed.
    TabInId,
    /// [`Pair::distance`] on a line without a third field.
    NoDistance,
    /// [`Pair::distance`] on a third field that is not an integer from 0 to 255.
    BadDistance,
}

impl PairError {
    /// What is wrong, for an input error message.
    pub const fn message(self) -> &'static str {
        match self {
            PairError::OneField => "a pair line needs two TAB-separated ids",
            PairError::EmptyId => "empty id",
            PairError::TooFew => "a JSON pair needs at least two ids",
            PairError::BrokenArray => "broken JSON array",
            PairError::BrokenString => "broken JSON string",
            PairError::AfterArray => "text after the JSON array",
            PairError::BadIdType => "a JSON id must be a string or an unsigned 64-bit integer",
            PairError::BadExtra => {
                "elements after the first two must be JSON numbers, strings, true, false or null"
            }
            PairError::TabInId => "an id cannot hold a TAB or a line feed",
            PairError::NoDistance => "no distance (third field) on a pair line",
            PairError::BadDistance => "the distance is not an integer from 0 to 255",
        }
    }
}

impl fmt::Display for PairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for PairError {}

/// Parses one line (without its line ending): `Ok(None)` for an empty line. A line that starts
/// with `[` is JSON, any other a TSV line. `scratch` is cleared and then holds the JSON string
/// ids whose escapes had to be decoded; pass the same buffer for every line.
#[inline]
pub fn parse_pair<'a>(
    line: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Result<Option<Pair<'a>>, PairError> {
    match line.first() {
        None => Ok(None),
        Some(b'[') => parse_json(line, scratch).map(Some),
        Some(_) => parse_tsv(line).map(Some),
    }
}

#[inline]
fn parse_tsv(line: &[u8]) -> Result<Pair<'_>, PairError> {
    let tab = memchr(b'\t', line).ok_or(PairError::OneField)?;
    let a = &line[..tab];
    let rest = &line[tab + 1..];
    // Without a branch: the rest after B is empty or starts with its TAB.
    let (b, after_b) = rest.split_at(memchr(b'\t', rest).unwrap_or(rest.len()));
    if a.is_empty() || b.is_empty() {
        return Err(PairError::EmptyId);
    }
    Ok(Pair { a: PairId::Text(a), b: PairId::Text(b), third: Third::Fields(after_b) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids of `line` as text (numbers marked `#`), or the error.
    pub(super) fn parse(line: &str) -> Result<Option<(String, String)>, PairError> {
        let mut scratch = Vec::new();
        let show = |id: PairId<'_>| match id {
            PairId::Text(text) => String::from_utf8(text.to_vec()).unwrap(),
            PairId::Number(value) => format!("#{value}"),
        };
        parse_pair(line.as_bytes(), &mut scratch).map(|pair| pair.map(|p| (show(p.a), show(p.b))))
    }

    pub(super) fn ok(a: &str, b: &str) -> Result<Option<(String, String)>, PairError> {
        Ok(Some((a.to_string(), b.to_string())))
    }

    fn distance(line: &str) -> Result<u8, PairError> {
        parse_pair(line.as_bytes(), &mut Vec::new()).unwrap().unwrap().distance()
    }

    #[test]
    fn tsv_pairs() {
        assert_eq!(parse("a\tb"), ok("a", "b"));
        assert_eq!(parse("1\t2\t3"), ok("1", "2"));
        assert_eq!(parse("a\tb\t\tjunk\t"), ok("a", "b"));
        assert_eq!(parse("a b\t [c]"), ok("a b", " [c]"));
        assert_eq!(parse(" [1, 2]\tx"), ok(" [1, 2]", "x"));
        assert_eq!(parse("\u{e9}\t\r"), ok("\u{e9}", "\r"));
        assert_eq!(parse(""), Ok(None));
    }

    #[test]
    fn tsv_ids_are_borrowed_from_the_line() {
        let line = b"left\tright\t3";
        let mut scratch = Vec::new();
        let pair = parse_pair(line, &mut scratch).unwrap().unwrap();
        let PairId::Text(a) = pair.a else { panic!("text") };
        assert!(line.as_ptr_range().contains(&a.as_ptr()));
    }

    #[test]
    fn broken_tsv() {
        assert_eq!(parse("a"), Err(PairError::OneField));
        assert_eq!(parse("a b"), Err(PairError::OneField));
        assert_eq!(parse("{\"a\": 1}"), Err(PairError::OneField));
        assert_eq!(parse("\tb"), Err(PairError::EmptyId));
        assert_eq!(parse("a\t"), Err(PairError::EmptyId));
        assert_eq!(parse("\t"), Err(PairError::EmptyId));
        assert_eq!(parse("a\t\tc"), Err(PairError::EmptyId));
    }

    #[test]
    fn the_third_field_is_the_distance() {
        assert_eq!(distance("a\tb\t3"), Ok(3));
        assert_eq!(distance("a\tb\t64\tx\ty"), Ok(64));
        assert_eq!(distance("a\tb\t03"), Ok(3));
        assert_eq!(distance("[\"a\", \"b\", 0]"), Ok(0));
        assert_eq!(distance("[\"a\", \"b\", 64, \"x\"]"), Ok(64));
        assert_eq!(distance("a\tb"), Err(PairError::NoDistance));
        assert_eq!(distance("[1, 2]"), Err(PairError::NoDistance));
        assert_eq!(distance("a\tb\t255"), Ok(255));
        assert_eq!(distance("a\tb\t100"), Ok(100));
        for bad in ["", "256", "-1", "3.0", " 3", "1000", "x", "0003", "999"] {
            assert_eq!(distance(&format!("a\tb\t{bad}\tz")), Err(PairError::BadDistance), "{bad}");
        }
        for bad in ["256", "-1", "3.0", "3e0", "\"3\"", "null", "true", "18446744073709551616"] {
            let line = format!("[\"a\", \"b\", {bad}]");
            assert_eq!(distance(&line), Err(PairError::BadDistance), "{bad}");
        }
        for n in 0..=MAX_DISTANCE {
            assert_eq!(distance(&format!("a\tb\t{n}")), Ok(n));
            assert_eq!(distance(&format!("[1, 2, {n}]")), Ok(n));
        }
    }

    #[test]
    fn numbers_are_spelled_in_decimal() {
        let mut buffer = itoa::Buffer::new();
        assert_eq!(PairId::Number(u64::MAX).spelled(&mut buffer), b"18446744073709551615");
        assert_eq!(PairId::Number(0).spelled(&mut buffer), b"0");
        assert_eq!(PairId::Text(b"007").spelled(&mut buffer), b"007");
    }

    #[test]
    fn messages() {
        assert_eq!(PairError::OneField.to_string(), "a pair line needs two TAB-separated ids");
        assert_eq!(
            PairError::BadDistance.message(),
            "the distance is not an integer from 0 to 255"
        );
    }
}
