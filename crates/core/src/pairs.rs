//! Pair lines, as sh-cluster and sh-score read them: `A<TAB>B[<TAB>DISTANCE[<TAB>…]]` as sh-pairs
//! prints them, or, on a line that starts with `[`, a JSON array `[a, b, …]` (`["A", "B", D]`
//! from `sh-pairs --format json`, `[123, 456]` from the seed tools).
//!
//! The TSV path is two `memchr`s and no allocation. The JSON path visits the array with
//! serde_json rather than building it: the first two elements are the ids (a string, borrowed
//! from the line when it holds no escapes and copied into the caller's reused scratch buffer
//! otherwise, or an unsigned 64-bit integer), the third is kept as the distance, and any further
//! ones are checked and dropped. An element after the first two must be a scalar (a number, a
//! string, `true`, `false` or `null`): it is read with `deserialize_any` and a visitor that
//! refuses arrays and objects on sight, so deep nesting costs no recursion.
//!
//! The distance is only looked at when [`Pair::distance`] is asked for it, and whatever the
//! commands do with the pair (a pair of an id with itself, say) is theirs to decide.

use std::fmt;

use memchr::{memchr, memchr2};
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};

use crate::json::{JsonError, Slot, Value, ValueSeed};

/// The largest distance between two 64-bit fingerprints.
pub const MAX_DISTANCE: u8 = 64;

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
    /// written with one or two decimal digits.
    pub fn distance(&self) -> Result<u8, PairError> {
        match self.third {
            Third::Absent => Err(PairError::NoDistance),
            Third::Fields([]) => Err(PairError::NoDistance),
            Third::Fields([_tab, fields @ ..]) => {
                let field = &fields[..memchr(b'\t', fields).unwrap_or(fields.len())];
                if field.is_empty() || field.len() > 2 || !field.iter().all(u8::is_ascii_digit) {
                    return Err(PairError::BadDistance);
                }
                let value = field.iter().fold(0u8, |value, &digit| value * 10 + (digit - b'0'));
                (value <= MAX_DISTANCE).then_some(value).ok_or(PairError::BadDistance)
            }
            Third::Number(value) => u8::try_from(value)
                .ok()
                .filter(|&value| value <= MAX_DISTANCE)
                .ok_or(PairError::BadDistance),
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
    /// [`Pair::distance`] on a third field that is not an integer from 0 to 64.
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
            PairError::BadDistance => "the distance is not an integer from 0 to 64",
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

fn parse_json<'a>(line: &'a [u8], scratch: &'a mut Vec<u8>) -> Result<Pair<'a>, PairError> {
    scratch.clear();
    // What a data error (as opposed to a syntax error) from serde_json means: the seeds set it
    // before each element and before each error of their own.
    let mut reason = PairError::BrokenArray;
    let mut de = serde_json::Deserializer::from_slice(line);
    let seed = ArraySeed { scratch: &mut *scratch, reason: &mut reason };
    let elements = match seed.deserialize(&mut de) {
        Ok(elements) => elements,
        Err(e) => return Err(broken(&e, reason)),
    };
    de.end().map_err(|_| PairError::AfterArray)?;
    let scratch: &'a [u8] = scratch;
    let id = |slot| match slot {
        IdSlot::Number(value) => PairId::Number(value),
        IdSlot::Text(text) => PairId::Text(text.resolve(scratch)),
    };
    let third = match elements.third {
        None => Third::Absent,
        Some(Scalar::Number(value)) => Third::Number(value),
        Some(Scalar::Other) => Third::OtherJson,
    };
    Ok(Pair { a: id(elements.a), b: id(elements.b), third })
}

/// What an error from serde_json means: `reason` for JSON of the wrong shape (the seeds set it),
/// or which of the two syntax errors.
#[cold]
fn broken(error: &serde_json::Error, reason: PairError) -> PairError {
    match JsonError::of(error) {
        JsonError { is_syntax: false, .. } => reason,
        JsonError { in_string: true, .. } => PairError::BrokenString,
        JsonError { .. } => PairError::BrokenArray,
    }
}

/// Where a JSON id lies until the line is done.
#[derive(Debug, Clone)]
enum IdSlot<'de> {
    Number(u64),
    Text(Slot<'de>),
}

struct Elements<'de> {
    a: IdSlot<'de>,
    b: IdSlot<'de>,
    third: Option<Scalar>,
}

/// Records why the line is wrong and makes the error that stops serde_json.
fn fail<E: de::Error>(reason: &mut PairError, what: PairError) -> E {
    *reason = what;
    E::custom(what)
}

/// The whole array.
struct ArraySeed<'s> {
    scratch: &'s mut Vec<u8>,
    reason: &'s mut PairError,
}

impl<'de> DeserializeSeed<'de> for ArraySeed<'_> {
    type Value = Elements<'de>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ArraySeed<'_> {
    type Value = Elements<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Elements<'de>, A::Error> {
        let mut ids = [IdSlot::Number(0), IdSlot::Number(0)];
        for id in &mut ids {
            *self.reason = PairError::BadIdType;
            let seed = IdSeed { scratch: &mut *self.scratch, reason: &mut *self.reason };
            *id = match seq.next_element_seed(seed)? {
                Some(slot) => slot,
                None => return Err(fail(self.reason, PairError::TooFew)),
            };
        }
        *self.reason = PairError::BadExtra;
        let third = seq.next_element::<Scalar>()?;
        if third.is_some() {
            while seq.next_element::<Scalar>()?.is_some() {}
        }
        let [a, b] = ids;
        Ok(Elements { a, b, third })
    }
}

/// One of the first two elements.
struct IdSeed<'s> {
    scratch: &'s mut Vec<u8>,
    reason: &'s mut PairError,
}

impl<'de> DeserializeSeed<'de> for IdSeed<'_> {
    type Value = IdSlot<'de>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<IdSlot<'de>, D::Error> {
        let expecting = "a string or an unsigned 64-bit integer";
        let text =
            match ValueSeed::string_or_number(self.scratch, expecting).deserialize(deserializer)? {
                Value::Unsigned(id) => return Ok(IdSlot::Number(id)),
                Value::Signed(_) | Value::Float(_) => {
                    return Err(fail(self.reason, PairError::BadIdType))
                }
                Value::Text(text) => text,
            };
        // serde_json refuses control characters in a string, TAB and line feed among them, but
        // not their escapes.
        let bytes = text.clone().resolve(self.scratch);
        if bytes.is_empty() {
            return Err(fail(self.reason, PairError::EmptyId));
        }
        if memchr2(b'\t', b'\n', bytes).is_some() {
            return Err(fail(self.reason, PairError::TabInId));
        }
        Ok(IdSlot::Text(text))
    }
}

/// An element after the first two: any scalar, its value kept only when it could be a distance.
enum Scalar {
    Number(u64),
    Other,
}

impl<'de> de::Deserialize<'de> for Scalar {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Scalar, D::Error> {
        deserializer.deserialize_any(ScalarVisitor)
    }
}

/// Takes every scalar; arrays and objects fall to the default `visit_seq` and `visit_map`,
/// which refuse them before serde_json reads what is inside.
struct ScalarVisitor;

impl Visitor<'_> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, a string, true, false or null")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Scalar, E> {
        Ok(Scalar::Number(value))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids of `line` as text (numbers marked `#`), or the error.
    fn parse(line: &str) -> Result<Option<(String, String)>, PairError> {
        let mut scratch = Vec::new();
        let show = |id: PairId<'_>| match id {
            PairId::Text(text) => String::from_utf8(text.to_vec()).unwrap(),
            PairId::Number(value) => format!("#{value}"),
        };
        parse_pair(line.as_bytes(), &mut scratch).map(|pair| pair.map(|p| (show(p.a), show(p.b))))
    }

    fn ok(a: &str, b: &str) -> Result<Option<(String, String)>, PairError> {
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
    fn json_numbers_and_strings() {
        assert_eq!(parse("[1, 2]"), ok("#1", "#2"));
        assert_eq!(parse("[0,18446744073709551615]"), ok("#0", "#18446744073709551615"));
        assert_eq!(parse(" [1, 2]"), Err(PairError::OneField), "JSON only from the first byte");
        assert_eq!(parse("[\"a\", 7]"), ok("a", "#7"));
        assert_eq!(parse("[\"007\", \"7\"]"), ok("007", "7"));
        assert_eq!(parse("[0, \"\u{e9}\"]"), ok("#0", "\u{e9}"));
        assert_eq!(parse("[ \"a\" , \"b\" ] \t\r"), ok("a", "b"));
    }

    #[test]
    fn json_strings_without_escapes_are_borrowed() {
        let line = br#"["left", "ri\u0067ht"]"#;
        let mut scratch = Vec::new();
        let pair = parse_pair(line, &mut scratch).unwrap().unwrap();
        let (PairId::Text(a), PairId::Text(b)) = (pair.a, pair.b) else { panic!("text") };
        assert!(line.as_ptr_range().contains(&a.as_ptr()), "borrowed from the line");
        assert_eq!(b, b"right");
        assert!(!line.as_ptr_range().contains(&b.as_ptr()), "decoded into the scratch");
    }

    #[test]
    fn json_escapes_are_decoded() {
        assert_eq!(
            parse(r#"["a\"b", "c\\d\/\u00e9\ud83d\ude00"]"#),
            ok("a\"b", "c\\d/\u{e9}\u{1F600}")
        );
        assert_eq!(parse(r#"["\u0041\r", "x\u0000y"]"#), ok("A\r", "x\0y"));
        // Both ids in the scratch buffer, which the next line reuses.
        let mut scratch = Vec::new();
        let pair = parse_pair(br#"["\u0061", "\u0062c"]"#, &mut scratch).unwrap().unwrap();
        assert_eq!((pair.a, pair.b), (PairId::Text(b"a"), PairId::Text(b"bc")));
        let pair = parse_pair(br#"["\u0064", 1]"#, &mut scratch).unwrap().unwrap();
        assert_eq!(pair.a, PairId::Text(b"d"));
        assert_eq!(scratch, b"d");
    }

    #[test]
    fn json_extra_elements_are_scalars_and_ignored() {
        assert_eq!(parse("[1,2,3]"), ok("#1", "#2"));
        assert_eq!(
            parse("[ \"a\" , 18446744073709551615 , 0.5e3, -1, \"x\\n\", true, false, null ] \t"),
            ok("a", "#18446744073709551615")
        );
        // serde_json refuses a number beyond the range of an f64.
        assert_eq!(
            parse("[1, 2, 3, 18446744073709551616, -0, 1e400000]"),
            Err(PairError::BrokenArray)
        );
        assert_eq!(parse("[1, 2, 3, 18446744073709551616, -0]"), ok("#1", "#2"));
        assert_eq!(parse("[1, 2, [3]]"), Err(PairError::BadExtra));
        assert_eq!(parse("[1, 2, {}]"), Err(PairError::BadExtra));
        assert_eq!(parse("[1, 2, 3, {\"a\": 1}]"), Err(PairError::BadExtra));
        assert_eq!(parse("[1, 2, \"\\x\"]"), Err(PairError::BrokenString));
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(parse(&format!("[1, 2, {deep}]")), Err(PairError::BadExtra));
        assert_eq!(parse(&format!("[{deep}, 2]")), Err(PairError::BadIdType));
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
        for bad in ["", "65", "-1", "3.0", " 3", "100", "x", "003"] {
            assert_eq!(distance(&format!("a\tb\t{bad}\tz")), Err(PairError::BadDistance), "{bad}");
        }
        for bad in ["65", "-1", "3.0", "3e0", "\"3\"", "null", "true", "18446744073709551616"] {
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
    fn broken_json() {
        use PairError::*;
        for (line, what) in [
            ("[", BrokenArray),
            ("[]", TooFew),
            ("[ ]", TooFew),
            ("[1]", TooFew),
            ("[\"a\"]", TooFew),
            ("[1,]", BrokenArray),
            ("[1 2]", BrokenArray),
            ("[1, 2", BrokenArray),
            ("[1, 2,", BrokenArray),
            ("[1, 2, 3", BrokenArray),
            ("[1, 2] x", AfterArray),
            ("[1, 2]]", AfterArray),
            ("[1, 2][3, 4]", AfterArray),
            ("[007, 2]", BrokenArray),
            ("[1x, 2]", BrokenArray),
            ("[0x10, 1]", BrokenArray),
            ("[,1, 2]", BrokenArray),
            ("[1, 2, tru]", BrokenArray),
            ("[1, 2, 1.]", BrokenArray),
            ("[1, 2, 1e]", BrokenArray),
            ("[1, -]", BrokenArray),
            ("[-1, 2]", BadIdType),
            ("[1, -0]", BadIdType),
            ("[1.5, 2]", BadIdType),
            ("[1e3, 2]", BadIdType),
            ("[18446744073709551616, 2]", BadIdType),
            ("[null, 2]", BadIdType),
            ("[true, 2]", BadIdType),
            ("[[1], 2]", BadIdType),
            ("[1, {}]", BadIdType),
            ("[\"a, 2]", BrokenString),
            ("[\"a\\\", 2]", BrokenString),
            ("[\"a\\x\", 2]", BrokenString),
            ("[\"\\u12\", 2]", BrokenString),
            ("[\"\\u12\"]", BrokenString),
            ("[\"\\ud800\", 2]", BrokenString),
            ("[\"\\ud800\\u0041\", 2]", BrokenString),
            ("[\"\\udc00\", 2]", BrokenString),
            ("[\"a\tb\", 2]", BrokenString),
            ("[\"a\0\", 2]", BrokenString),
            ("[\"a\\tb\", 2]", TabInId),
            ("[1, \"\\n\"]", TabInId),
            ("[\"\", 2]", EmptyId),
            ("[1, \"\"]", EmptyId),
        ] {
            assert_eq!(parse(line), Err(what), "{line}");
        }
    }

    #[test]
    fn json_strings_must_be_utf8() {
        let mut scratch = Vec::new();
        assert_eq!(parse_pair(b"[\"a\xff\", 1]", &mut scratch), Err(PairError::BrokenString));
        assert_eq!(parse_pair(b"[1, \"\\u00e9\xff\"]", &mut scratch), Err(PairError::BrokenString));
        assert_eq!(
            parse_pair(b"a\xff\t\xfe", &mut scratch).map(|p| p.map(|p| p.a)),
            Ok(Some(PairId::Text(b"a\xff")))
        );
    }

    #[test]
    fn messages() {
        assert_eq!(PairError::OneField.to_string(), "a pair line needs two TAB-separated ids");
        assert_eq!(PairError::BadDistance.message(), "the distance is not an integer from 0 to 64");
    }
}
