//! `sh-tokenize --json` on arbitrary lines, against serde_json's own `Value` as the reference.
//!
//! First byte: which fields are asked for; the rest, up to the first LF, is the line. Checks: no
//! panic (deep nesting included); an id never holds a TAB or LF; and on valid UTF-8, a line
//! that serde_json reads as an object with a string text (and a string or integer id) gives
//! that text and id, while a line it refuses, that is no object or that gives the text or id
//! field twice, is an error.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sh_tokenize::{Document, JsonReader};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let line = &rest[..memchr(b'\n', rest).unwrap_or(rest.len())];
    let text_field = if selector & 1 == 0 { "text" } else { "t" };
    let id_field = match selector >> 1 & 3 {
        0 => None,
        1 => Some("id"),
        2 => Some("i"),
        _ => Some("text"), // the same name as the text field when that is "text"
    };
    let mut reader = JsonReader::new(text_field, id_field.map(str::to_string));
    let ours = match reader.parse(1, line) {
        Ok(Document { id, text }) => Ok((id.map(<[u8]>::to_vec), text.to_vec())),
        Err(e) => Err(e.to_string()),
    };
    if let Ok((Some(id), _)) = &ours {
        assert!(!id.contains(&b'\t') && !id.contains(&b'\n'), "an id with a TAB or LF");
    }
    if let Err(message) = &ours {
        assert!(message.starts_with("line 1: "), "{message}");
    }

    let Ok(line) = std::str::from_utf8(line) else {
        return;
    };
    if line.trim_matches([' ', '\t', '\r']).is_empty() {
        assert_eq!(ours, Ok((None, Vec::new())), "a blank line is an empty document");
        return;
    }
    let fields = match serde_json::from_str::<Fields>(line) {
        Ok(Fields(fields)) => fields,
        Err(e) => {
            let why = e.to_string();
            // serde_json refuses what sh-tokenize accepts on purpose: lone surrogates in the
            // text (kept for the tokenizer), raw control characters in the text (read as bytes,
            // as serde_json reads bytes, and separators to the tokenizer); in fields that
            // sh-tokenize skips, nesting beyond serde_json's recursion limit and numbers beyond
            // the range of a double (valid JSON).
            let lower = line.to_ascii_lowercase();
            let surrogate =
                ["\\ud8", "\\ud9", "\\uda", "\\udb", "\\udc", "\\udd", "\\ude", "\\udf"]
                    .iter()
                    .any(|escape| lower.contains(escape));
            let skipped = why.contains("recursion limit")
                || why.contains("number out of range")
                || why.contains("control character");
            if !surrogate && !skipped {
                assert!(ours.is_err(), "serde_json refuses {line:?} ({why}) but we read {ours:?}");
            }
            return;
        }
    };
    // A field given twice is an error (of one kind or another), whatever its values.
    let count = |name: &str| fields.iter().filter(|(key, _)| key == name).count();
    if count(text_field) > 1 || id_field.is_some_and(|name| count(name) > 1) {
        assert!(ours.is_err(), "{line:?}: a field given twice");
        return;
    }
    let object: serde_json::Map<String, Value> = fields.into_iter().collect();
    let expected_text = match object.get(text_field) {
        Some(Value::String(text)) => Some(text.clone().into_bytes()),
        _ => None,
    };
    let expected_id = match id_field {
        None => Some(None),
        Some(name) if name == text_field => None,
        Some(name) => match object.get(name) {
            Some(Value::String(id)) if !id.contains(['\t', '\n']) => {
                Some(Some(id.clone().into_bytes()))
            }
            Some(Value::Number(n)) if n.is_u64() || n.is_i64() => {
                Some(Some(n.to_string().into_bytes()))
            }
            _ => None,
        },
    };
    match (expected_text, expected_id) {
        (Some(text), Some(id)) => assert_eq!(ours, Ok((id, text)), "{line:?}"),
        _ => assert!(ours.is_err(), "{line:?} gave {ours:?}"),
    }
});

/// A JSON object's fields in order, duplicates kept (serde_json's `Map` keeps the last).
struct Fields(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Fields, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Fields, A::Error> {
                let mut fields = Vec::new();
                while let Some(field) = map.next_entry::<String, Value>()? {
                    fields.push(field);
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}
