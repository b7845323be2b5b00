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
use serde_json::error::Category;
use sh_core::Error;

/// Reads documents from JSON lines, reusing its buffers from one line to the next.
#[derive(Debug)]
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

/// serde_json's message without its "at line 1 column N" (the line is always 1 here and the
/// input line number is said in front), with the column kept for syntax errors.
fn describe(error: &serde_json::Error, failed_in: Option<&str>) -> String {
    let full = error.to_string();
    let message = match full.rfind(" at line ") {
        Some(cut) if error.line() != 0 => &full[..cut],
        _ => &full[..],
    };
    match (error.classify(), failed_in) {
        (Category::Syntax | Category::Eof, _) => {
            format!("invalid JSON: {message} at column {}", error.column())
        }
        (_, Some(name)) => format!("field \"{name}\": {message}"),
        (_, None) => message.to_string(),
    }
}

/// Where a value ended up: borrowed from the line, or in the reader's buffer.
#[derive(Debug, Clone, Copy)]
enum Slot<'de> {
    Line(&'de [u8]),
    Buffer,
}

impl<'de> Slot<'de> {
    fn resolve<'a>(self, buffer: &'a [u8]) -> &'a [u8]
    where
        'de: 'a,
    {
        match self {
            Slot::Line(bytes) => bytes,
            Slot::Buffer => buffer,
        }
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
                Key::Text => (&mut fields.text, map.next_value_seed(TextSeed(&mut *self.text))),
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

/// The text: a string, read as bytes.
struct TextSeed<'b>(&'b mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = Slot<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Slot<'de>, D::Error> {
        deserializer.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for TextSeed<'_> {
    type Value = Slot<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_bytes<E: de::Error>(self, text: &'de [u8]) -> Result<Slot<'de>, E> {
        Ok(Slot::Line(text))
    }

    fn visit_bytes<E: de::Error>(self, text: &[u8]) -> Result<Slot<'de>, E> {
        self.0.clear();
        self.0.extend_from_slice(text);
        Ok(Slot::Buffer)
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Slot<'de>, E> {
        self.visit_borrowed_bytes(text.as_bytes())
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Slot<'de>, E> {
        self.visit_bytes(text.as_bytes())
    }
}

/// The id: a string, or an integer written in decimal.
struct IdSeed<'b>(&'b mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for IdSeed<'_> {
    type Value = Slot<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Slot<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl IdSeed<'_> {
    fn integer<'de>(self, value: impl itoa::Integer) -> Slot<'de> {
        self.0.clear();
        self.0.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        Slot::Buffer
    }
}

impl<'de> Visitor<'de> for IdSeed<'_> {
    type Value = Slot<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an integer")
    }

    fn visit_borrowed_str<E: de::Error>(self, id: &'de str) -> Result<Slot<'de>, E> {
        Ok(Slot::Line(id.as_bytes()))
    }

    fn visit_str<E: de::Error>(self, id: &str) -> Result<Slot<'de>, E> {
        self.0.clear();
        self.0.extend_from_slice(id.as_bytes());
        Ok(Slot::Buffer)
    }

    fn visit_u64<E: de::Error>(self, id: u64) -> Result<Slot<'de>, E> {
        Ok(self.integer(id))
    }

    fn visit_i64<E: de::Error>(self, id: i64) -> Result<Slot<'de>, E> {
        Ok(self.integer(id))
    }
}

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
