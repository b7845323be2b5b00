//! `--json` input: one JSON object per line, the text in one field and maybe the id in another.
//!
//! The object is visited rather than built: the text and id are borrowed from the line when they
//! hold no escapes and copied into buffers reused from line to line otherwise, and every other
//! field is skipped with `IgnoredAny`, which serde_json does without recursion. The text is read
//! as bytes, so invalid UTF-8 and lone surrogate escapes in it reach the tokenizer (which treats
//! them as separators) instead of failing the line.

use std::fmt;

use memchr::memchr2;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use sh_core::json::{JsonError, Slot, Value, ValueSeed};
use sh_core::Error;

/// Reads documents from JSON lines, reusing its buffers from one line to the next.
#[derive(Debug, Clone)]
pub struct JsonReader {
    text_field: String,
    id_field: Option<String>,
    text: Vec<u8>,
    id: Vec<u8>,
}

/// A document from one line: its id, if an id field was asked for, and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Document<'a> {
    pub id: Option<&'a [u8]>,
    pub text: &'a [u8],
}

impl JsonReader {
    /// Text from `text_field` and, when `id_field` is given, the id from that field. The two
    /// names should differ: a field is read as one or the other, and the text wins.
    pub fn new(text_field: impl Into<String>, id_field: Option<String>) -> JsonReader {
        JsonReader { text_field: text_field.into(), id_field, text: Vec::new(), id: Vec::new() }
    }

    /// The document on `line`, which is input line `number` (for error messages). A blank line
    /// is an empty document without an id, so that output lines still match input lines.
    pub fn parse<'a>(&'a mut self, number: u64, line: &'a [u8]) -> sh_core::Result<Document<'a>> {
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            return Ok(Document { id: None, text: b"" });
        }
        let mut failed_in = None;
        self.text.clear();
        self.id.clear();
        let fields = {
            let mut de = serde_json::Deserializer::from_slice(line);
            let seed = ObjectSeed {
                text_field: &self.text_field,
                id_field: self.id_field.as_deref(),
                text: &mut self.text,
                id: &mut self.id,
                failed_in: &mut failed_in,
            };
            seed.deserialize(&mut de).and_then(|fields| de.end().map(|()| fields))
        };
        let fields = fields.map_err(|e| {
            let field = match failed_in {
                Some(Key::Text) => Some(self.text_field.as_str()),
                Some(Key::Id) => self.id_field.as_deref(),
                Some(Key::Other) | None => None,
            };
            Error::input(number, describe(&e, field), line)
        })?;

        let text = match fields.text {
            Some(slot) => slot.resolve(&self.text),
            None => return Err(Error::input(number, missing(&self.text_field), line)),
        };
        let id = match (&self.id_field, fields.id) {
            (None, _) => None,
            (Some(name), None) => return Err(Error::input(number, missing(name), line)),
            (Some(_), Some(slot)) => Some(slot.resolve(&self.id)),
        };
        if let Some(id) = id {
            // The id goes in front of a TAB on an output line.
            if memchr2(b'\t', b'\n', id).is_some() {
                return Err(Error::input(number, "an id cannot hold a TAB or line feed", id));
            }
        }
        Ok(Document { id, text })
    }
}

fn missing(name: &str) -> String {
    format!("no field \"{name}\"")
}

/// The message of an error in the line's JSON: for syntax errors with the column where it was
/// found, for a field's value with the field's name.
fn describe(error: &serde_json::Error, failed_in: Option<&str>) -> String {
    let JsonError { message, is_syntax, column, .. } = JsonError::of(error);
    match failed_in {
        _ if is_syntax => format!("invalid JSON: {message} at column {column}"),
        Some(name) => format!("field \"{name}\": {message}"),
        None => message,
    }
}

struct Fields<'de> {
    text: Option<Slot<'de>>,
    id: Option<Slot<'de>>,
}

struct ObjectSeed<'s> {
    text_field: &'s str,
    id_field: Option<&'s str>,
    text: &'s mut Vec<u8>,
    id: &'s mut Vec<u8>,
    /// The field whose value failed to read, to name it in the message.
    failed_in: &'s mut Option<Key>,
}

impl<'de> DeserializeSeed<'de> for ObjectSeed<'_> {
    type Value = Fields<'de>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Fields<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ObjectSeed<'_> {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
        let mut fields = Fields { text: None, id: None };
        let keys = KeySeed { text_field: self.text_field, id_field: self.id_field };
        while let Some(key) = map.next_key_seed(keys)? {
            let (slot, value) = match key {
                Key::Text => {
                    let text = map.next_value_seed(ValueSeed::bytes(self.text, "a string"));
                    (&mut fields.text, text.map(text_slot))
                }
                Key::Id => (&mut fields.id, map.next_value_seed(IdSeed(&mut *self.id))),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            // Of two values for one field, which was meant is anyone's guess.
            let value = if slot.is_some() { Err(de::Error::custom("given twice")) } else { value };
            match value {
                Ok(value) => *slot = Some(value),
                Err(e) => {
                    *self.failed_in = Some(key);
                    return Err(e);
                }
            }
        }
        Ok(fields)
    }
}

/// A value read as bytes is a string: [`ValueSeed::bytes`] refuses everything else.
fn text_slot(value: Value<'_>) -> Slot<'_> {
    match value {
        Value::Text(slot) => slot,
        _ => unreachable!("ValueSeed::bytes reads strings only"),
    }
}

#[derive(Debug, Clone, Copy)]
enum Key {
    Text,
    Id,
    Other,
}

#[derive(Clone, Copy)]
struct KeySeed<'s> {
    text_field: &'s str,
    id_field: Option<&'s str>,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(if key == self.text_field {
            Key::Text
        } else if Some(key) == self.id_field {
            Key::Id
        } else {
            Key::Other
        })
    }
}

/// The id: a string, or an integer written in decimal.
struct IdSeed<'b>(&'b mut Vec<u8>);

const ID_EXPECTED: &str = "a string or an integer";

impl<'de> DeserializeSeed<'de> for IdSeed<'_> {
    type Value = Slot<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Slot<'de>, D::Error> {
        let start = self.0.len();
        let mut number = itoa::Buffer::new();
        let seed = ValueSeed::string_or_number(&mut *self.0, ID_EXPECTED);
        let digits = match seed.deserialize(deserializer)? {
            Value::Text(slot) => return Ok(slot),
            Value::Unsigned(id) => number.format(id),
            Value::Signed(id) => number.format(id),
            // serde_json reads an integer beyond 64 bits as a float: say that it is too large,
            // rather than call it a float.
            Value::Float(id) if id.fract() == 0.0 && id >= TWO_TO_THE_64 => {
                return Err(de::Error::custom("too large for an integer id (more than 2^64-1)"));
            }
            Value::Float(id) if id.fract() == 0.0 && id <= -TWO_TO_THE_63 => {
                return Err(de::Error::custom("too small for an integer id (less than -2^63)"));
            }
            Value::Float(id) => {
                return Err(de::Error::invalid_type(de::Unexpected::Float(id), &ID_EXPECTED));
            }
        };
        self.0.extend_from_slice(digits.as_bytes());
        Ok(Slot::Scratch(start..self.0.len()))
    }
}

const TWO_TO_THE_64: f64 = 18_446_744_073_709_551_616.0;
const TWO_TO_THE_63: f64 = 9_223_372_036_854_775_808.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(reader: &mut JsonReader, line: &str) -> Result<(Option<String>, String), String> {
        match reader.parse(7, line.as_bytes()) {
            Ok(Document { id, text }) => Ok((
                id.map(|id| String::from_utf8_lossy(id).into_owned()),
                String::from_utf8_lossy(text).into_owned(),
            )),
            Err(e) => Err(e.to_string()),
        }
    }

    fn text_only() -> JsonReader {
        JsonReader::new("text", None)
    }

    fn with_id() -> JsonReader {
        JsonReader::new("body", Some("id".to_string()))
    }

    fn ok(id: Option<&str>, text: &str) -> Result<(Option<String>, String), String> {
        Ok((id.map(str::to_string), text.to_string()))
    }

    #[test]
    fn text_is_borrowed_without_escapes_and_copied_with_them() {
        let mut reader = text_only();
        let line = br#"{"other": [1, {"a": null}], "text": "plain words", "x": true}"#;
        let document = reader.parse(1, line).unwrap();
        assert_eq!(document.text, b"plain words");
        assert!(line.as_ptr_range().contains(&document.text.as_ptr()), "borrowed from the line");
        assert_eq!(
            parse(&mut reader, r#"{"text": "tab\there \"quoted\" \u00e9\ud83d\ude00"}"#),
            ok(None, "tab\there \"quoted\" é😀")
        );
        assert_eq!(parse(&mut reader, r#"{"text": "short"}"#), ok(None, "short"));
    }

    #[test]
    fn field_names_may_be_escaped_and_other_fields_anything() {
        let mut reader = text_only();
        assert_eq!(parse(&mut reader, r#"{"te\u0078t": "x"}"#), ok(None, "x"));
        assert_eq!(parse(&mut reader, r#" { "Text": 1, "text" : "y" } "#), ok(None, "y"));
    }

    #[test]
    fn ids_are_strings_or_integers() {
        let mut reader = with_id();
        assert_eq!(parse(&mut reader, r#"{"id": "doc-1", "body": "a"}"#), ok(Some("doc-1"), "a"));
        assert_eq!(parse(&mut reader, r#"{"body": "a", "id": "d\u00e9"}"#), ok(Some("dé"), "a"));
        assert_eq!(parse(&mut reader, r#"{"id": 42, "body": ""}"#), ok(Some("42"), ""));
        assert_eq!(parse(&mut reader, r#"{"id": -7, "body": "b"}"#), ok(Some("-7"), "b"));
        assert_eq!(
            parse(&mut reader, r#"{"id": 18446744073709551615, "body": "b"}"#),
            ok(Some("18446744073709551615"), "b")
        );
        assert_eq!(parse(&mut reader, r#"{"id": "", "body": "b"}"#), ok(Some(""), "b"));
    }

    #[test]
    fn bad_ids_are_errors() {
        let mut reader = with_id();
        let err = parse(&mut reader, r#"{"id": "a\tb", "body": "x"}"#).unwrap_err();
        assert_eq!(err, r"line 7: an id cannot hold a TAB or line feed: 'a\tb'", "quotes the id");
        let err = parse(&mut reader, r#"{"id": "a\nb", "body": "x"}"#).unwrap_err();
        assert!(err.starts_with("line 7: an id cannot hold a TAB or line feed"), "{err}");
        let err = parse(&mut reader, r#"{"id": 1.5, "body": "x"}"#).unwrap_err();
        assert!(
            err.starts_with(
                "line 7: field \"id\": invalid type: floating point `1.5`, \
                 expected a string or an integer: '"
            ),
            "{err}"
        );
        for (id, what) in [
            ("18446744073709551616", "too large for an integer id (more than 2^64-1)"),
            ("100000000000000000000", "too large for an integer id (more than 2^64-1)"),
            ("-9223372036854775809", "too small for an integer id (less than -2^63)"),
        ] {
            let err = parse(&mut reader, &format!(r#"{{"id": {id}, "body": "x"}}"#)).unwrap_err();
            assert!(err.starts_with(&format!("line 7: field \"id\": {what}: '")), "{err}");
        }
        let err = parse(&mut reader, r#"{"id": -9223372036854775808, "body": "x"}"#);
        assert_eq!(err, ok(Some("-9223372036854775808"), "x"));
        let err = parse(&mut reader, r#"{"id": null, "body": "x"}"#).unwrap_err();
        assert!(err.starts_with("line 7: field \"id\": invalid type: null"), "{err}");
        let err = parse(&mut reader, r#"{"body": "x"}"#).unwrap_err();
        assert!(err.starts_with(r#"line 7: no field "id": '{"body":"#), "{err}");
    }

    #[test]
    fn missing_or_mistyped_text_is_an_error() {
        let mut reader = text_only();
        let err = parse(&mut reader, r#"{"txt": "x"}"#).unwrap_err();
        assert!(err.starts_with(r#"line 7: no field "text": '{"txt":"#), "{err}");
        for (value, found) in [
            ("5", "integer `5`"),
            ("null", "null"),
            ("true", "boolean `true`"),
            ("[\"a\"]", "sequence"),
            ("{\"a\": 1}", "map"),
        ] {
            let err = parse(&mut reader, &format!(r#"{{"text": {value}}}"#)).unwrap_err();
            let want =
                format!("line 7: field \"text\": invalid type: {found}, expected a string: '");
            assert!(err.starts_with(&want), "{err}");
        }
        let err = parse(&mut reader, r#"{"text": "a", "text": "b"}"#).unwrap_err();
        assert!(err.starts_with(r#"line 7: field "text": given twice: '"#), "{err}");
    }

    #[test]
    fn broken_json_and_non_objects_are_errors() {
        let mut reader = text_only();
        let err = parse(&mut reader, r#"{"text": "x""#).unwrap_err();
        assert!(
            err.starts_with("line 7: invalid JSON: EOF while parsing an object at column 12: '"),
            "{err}"
        );
        let err = parse(&mut reader, r#"{"text": }"#).unwrap_err();
        assert!(err.starts_with("line 7: invalid JSON: expected value at column 10: '"), "{err}");
        let err = parse(&mut reader, r#"{"text": "x"} {}"#).unwrap_err();
        assert!(err.starts_with("line 7: invalid JSON: trailing characters at column 15"), "{err}");
        let err = parse(&mut reader, r#"{"text": "\ud800x"} junk"#).unwrap_err();
        assert!(err.starts_with("line 7: invalid JSON: trailing characters"), "{err}");
        let err = parse(&mut reader, "hello").unwrap_err();
        assert!(err.starts_with("line 7: invalid JSON: expected value at column 1"), "{err}");
        let err = parse(&mut reader, r#"["text", "x"]"#).unwrap_err();
        assert!(
            err.starts_with("line 7: invalid type: sequence, expected a JSON object: '"),
            "{err}"
        );
        let err = parse(&mut reader, r#""text""#).unwrap_err();
        assert!(
            err.starts_with("line 7: invalid type: string \"text\", expected a JSON object"),
            "{err}"
        );
    }

    #[test]
    fn invalid_utf8_and_lone_surrogates_in_the_text_are_kept_for_the_tokenizer() {
        let mut reader = text_only();
        let document = reader.parse(1, b"{\"text\": \"a\xffb\"}").unwrap();
        assert_eq!(document.text, b"a\xffb");
        let document = reader.parse(1, br#"{"text": "a\ud800b"}"#).unwrap();
        assert_eq!(document.text, b"a\xed\xa0\x80b");
    }

    #[test]
    fn blank_lines_are_empty_documents() {
        let mut reader = with_id();
        assert_eq!(parse(&mut reader, ""), ok(None, ""));
        assert_eq!(parse(&mut reader, " \t \r"), ok(None, ""));
    }

    #[test]
    fn deep_nesting_is_no_stack_overflow() {
        let deep = 10_000;
        let mut reader = text_only();
        let open = "[".repeat(deep);
        let close = "]".repeat(deep);
        let err = parse(&mut reader, &open).unwrap_err();
        assert!(err.starts_with("line 7: invalid type: sequence, expected a JSON object"), "{err}");
        let err = parse(&mut reader, &format!(r#"{{"text": {open}{close}}}"#)).unwrap_err();
        assert!(err.starts_with("line 7: field \"text\": invalid type: sequence"), "{err}");
        let nested_objects = r#"{"a":"#.repeat(deep);
        let err = parse(&mut reader, &nested_objects).unwrap_err();
        assert!(err.starts_with("line 7: invalid JSON: EOF while parsing"), "{err}");
        let err = parse(&mut reader, &format!(r#"{{"text": "x", "a": {open}}}"#)).unwrap_err();
        assert!(err.starts_with("line 7: invalid JSON"), "{err}");
        // Skipping a field is not recursive, so deep but well-formed JSON in it is just skipped.
        let line = format!(r#"{{"a": {open}{close}, "text": "ok"}}"#);
        assert_eq!(parse(&mut reader, &line), ok(None, "ok"));
    }
}
