//! A pair line that is a JSON array, `[a, b, …]`, visited with serde_json rather than built: the
//! first two elements are the ids (a string, borrowed from the line when it holds no escapes and
//! copied into the caller's reused scratch buffer otherwise, or an unsigned 64-bit integer), the
//! third is kept as the distance, and any further ones are checked and dropped. An element after
//! the first two must be a scalar (a number, a string, `true`, `false` or `null`): it is read
//! with `deserialize_any` and a visitor that refuses arrays and objects on sight, so deep
//! nesting costs no recursion.

use std::fmt;

use memchr::memchr2;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};

use super::{Pair, PairError, PairId, Third};
use crate::json::{JsonError, Slot, Value, ValueSeed};

/// Parses a line that starts with `[`; `scratch` as for [`parse_pair`](super::parse_pair).
pub(super) fn parse_json<'a>(
    line: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Result<Pair<'a>, PairError> {
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
    use crate::pairs::tests::{ok, parse};
    use crate::pairs::{parse_pair, PairError, PairId};

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
}
