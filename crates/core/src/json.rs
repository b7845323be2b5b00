//! JSON values visited in place with serde_json, for the commands that read JSON lines: a seed
//! that takes a string (or a number) without building anything, and what a serde_json error
//! means.
//!
//! A string without escapes is borrowed from the line; one with escapes is decoded by
//! serde_json and appended to a scratch buffer that the caller reuses from line to line, so
//! reading a line allocates nothing once the buffer has grown.

use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, Visitor};
use serde_json::error::Category;

/// Where a JSON string lies once read: in the line, or in the scratch buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot<'de> {
    /// A string without escapes, borrowed from the line.
    Line(&'de [u8]),
    /// A decoded string, at this range of the scratch buffer.
    Scratch(Range<usize>),
}

impl<'de> Slot<'de> {
    /// The string's bytes, given the scratch buffer it was read with.
    pub fn resolve<'a>(self, scratch: &'a [u8]) -> &'a [u8]
    where
        'de: 'a,
    {
        match self {
            Slot::Line(bytes) => bytes,
            Slot::Scratch(range) => &scratch[range],
        }
    }
}

/// A JSON string or number, as [`ValueSeed`] read it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'de> {
    /// A string.
    Text(Slot<'de>),
    /// A non-negative integer.
    Unsigned(u64),
    /// A negative integer.
    Signed(i64),
    /// A number with a fraction or an exponent, or an integer beyond the range of both above.
    Float(f64),
}

/// Reads one JSON value that should be a string (or, with [`ValueSeed::string_or_number`], a
/// number), appending a decoded string to `scratch`. Anything else is serde_json's "invalid
/// type" error, saying what was expected.
#[derive(Debug)]
pub struct ValueSeed<'s> {
    scratch: &'s mut Vec<u8>,
    /// Strings are read as bytes: invalid UTF-8 and lone surrogate escapes are kept, not refused,
    /// and numbers are refused.
    as_bytes: bool,
    expecting: &'static str,
}

impl<'s> ValueSeed<'s> {
    /// A string of UTF-8 text, or a number; `expecting` ends serde_json's messages
    /// ("a string or an integer").
    pub fn string_or_number(scratch: &'s mut Vec<u8>, expecting: &'static str) -> ValueSeed<'s> {
        ValueSeed { scratch, as_bytes: false, expecting }
    }

    /// A string read as bytes, UTF-8 or not.
    pub fn bytes(scratch: &'s mut Vec<u8>, expecting: &'static str) -> ValueSeed<'s> {
        ValueSeed { scratch, as_bytes: true, expecting }
    }

    fn scratch(self, bytes: &[u8]) -> Value<'static> {
        let start = self.scratch.len();
        self.scratch.extend_from_slice(bytes);
        Value::Text(Slot::Scratch(start..self.scratch.len()))
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value<'de>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Value<'de>, D::Error> {
        if self.as_bytes {
            deserializer.deserialize_bytes(self)
        } else {
            deserializer.deserialize_any(self)
        }
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, text: &'de [u8]) -> Result<Value<'de>, E> {
        Ok(Value::Text(Slot::Line(text)))
    }

    fn visit_bytes<E: de::Error>(self, text: &[u8]) -> Result<Value<'de>, E> {
        Ok(self.scratch(text))
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Value<'de>, E> {
        Ok(Value::Text(Slot::Line(text.as_bytes())))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Value<'de>, E> {
        Ok(self.scratch(text.as_bytes()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value<'de>, E> {
        Ok(Value::Unsigned(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value<'de>, E> {
        Ok(Value::Signed(value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value<'de>, E> {
        Ok(Value::Float(value))
    }
}

/// What a serde_json error says, for an input error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// serde_json's message without its "at line 1 column N": the input line is named in front.
    pub message: String,
    /// The line is not JSON (or ends early), as opposed to JSON of the wrong shape.
    pub is_syntax: bool,
    /// Of a syntax error: it is inside a string (a bad escape, a control character, invalid
    /// UTF-8, the end of the line).
    pub in_string: bool,
    /// Of a syntax error: the 1-based column where it was found.
    pub column: usize,
}

impl JsonError {
    /// Classifies `error`. serde_json tells what broke only in words, and the words of each
    /// error inside a string name a string, an escape or a code point.
    #[cold]
    pub fn of(error: &serde_json::Error) -> JsonError {
        let full = error.to_string();
        let message = match full.rfind(" at line ") {
            Some(cut) if error.line() != 0 => full[..cut].to_string(),
            _ => full,
        };
        let is_syntax = matches!(error.classify(), Category::Syntax | Category::Eof);
        let in_string = is_syntax
            && ["string", "escape", "code point"].iter().any(|word| message.contains(word));
        JsonError { message, is_syntax, in_string, column: error.column() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str, as_bytes: bool) -> (Result<Value<'_>, JsonError>, Vec<u8>) {
        let mut scratch = b"kept".to_vec();
        let mut de = serde_json::Deserializer::from_slice(line.as_bytes());
        let seed = if as_bytes {
            ValueSeed::bytes(&mut scratch, "a string")
        } else {
            ValueSeed::string_or_number(&mut scratch, "a string or a number")
        };
        let value = seed.deserialize(&mut de).map_err(|e| JsonError::of(&e));
        (value, scratch)
    }

    #[test]
    fn strings_are_borrowed_or_appended_to_the_scratch() {
        let (value, scratch) = read(r#""plain""#, false);
        assert_eq!(value, Ok(Value::Text(Slot::Line(b"plain"))));
        assert_eq!(scratch, b"kept");
        let (value, scratch) = read(r#""a\tb""#, true);
        assert_eq!(value, Ok(Value::Text(Slot::Scratch(4..7))));
        assert_eq!(Slot::Scratch(4..7).resolve(&scratch), b"a\tb");
    }

    #[test]
    fn numbers_as_they_come() {
        assert_eq!(read("18446744073709551615", false).0, Ok(Value::Unsigned(u64::MAX)));
        assert_eq!(read("-7", false).0, Ok(Value::Signed(-7)));
        assert_eq!(read("1e20", false).0, Ok(Value::Float(1e20)));
        assert_eq!(read("100000000000000000000", false).0, Ok(Value::Float(1e20)));
        let error = read("5", true).0.unwrap_err();
        assert_eq!(error.message, "invalid type: integer `5`, expected a string");
        assert!(!error.is_syntax);
    }

    #[test]
    fn errors_are_classified() {
        let error = read(r#""a\x""#, false).0.unwrap_err();
        assert!(error.is_syntax && error.in_string, "{error:?}");
        assert_eq!(error.message, "invalid escape");
        let error = read("[", false).0.unwrap_err();
        assert!(!error.is_syntax, "an array is JSON of the wrong shape: {error:?}");
        let error = read("tru", false).0.unwrap_err();
        assert!(error.is_syntax && !error.in_string, "{error:?}");
        assert_eq!(error.column, 3);
    }
}
