//! How an input line becomes a document: its id, if it has one, and its text. The three input
//! forms (plain lines, `ID<TAB>TEXT` with --with-id, JSON objects with --json) live here, so
//! that sh-tokenize and sh-fingerprint read a line the same way.

use sh_core::record::{split_nonempty_id, without_bom, EMPTY_ID};
use sh_core::{Error, Result};

use crate::json::{Document, JsonReader};

/// Splits input lines into documents, reusing its buffers from line to line.
#[derive(Debug, Clone)]
pub enum Documents {
    /// The whole line is the text.
    Plain,
    /// `ID<TAB>TEXT`; a line without a TAB has no id, an empty id is an error.
    WithId,
    /// One JSON object per line.
    Json(JsonReader),
}

impl Documents {
    /// The reader for the flags: `json` holds --text-field and --id-field when --json is given.
    /// The two fields must differ (a usage error otherwise).
    pub fn new(with_id: bool, json: Option<(&str, Option<&str>)>) -> Result<Documents> {
        Ok(match json {
            Some((text_field, id_field)) => {
                if id_field == Some(text_field) {
                    return Err(Error::usage(
                        "--id-field and --text-field must name different fields",
                    ));
                }
                Documents::Json(JsonReader::new(text_field, id_field.map(str::to_string)))
            }
            None if with_id => Documents::WithId,
            None => Documents::Plain,
        })
    }

    /// The id and text of `record`, input line `line`; bad input is an error on that line.
    /// A byte-order mark at the start of the line is no part of either ([`without_bom`]).
    pub fn split<'a>(
        &'a mut self,
        line: u64,
        record: &'a [u8],
    ) -> Result<(Option<&'a [u8]>, &'a [u8])> {
        let record = without_bom(record);
        match self {
            Documents::Plain => Ok((None, record)),
            Documents::WithId => split_nonempty_id(line, record),
            Documents::Json(json) => {
                let Document { id, text } = json.parse(line, record)?;
                if id.is_some_and(<[u8]>::is_empty) {
                    return Err(Error::input(line, EMPTY_ID, record));
                }
                Ok((id, text))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(documents: &mut Documents, record: &[u8]) -> std::result::Result<String, String> {
        match documents.split(3, record) {
            Ok((id, text)) => Ok(format!(
                "{:?}|{}",
                id.map(|id| String::from_utf8_lossy(id).into_owned()),
                String::from_utf8_lossy(text)
            )),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn the_three_forms() {
        let mut plain = Documents::new(false, None).unwrap();
        assert_eq!(split(&mut plain, b"a\tb").unwrap(), "None|a\tb");
        let mut with_id = Documents::new(true, None).unwrap();
        assert_eq!(split(&mut with_id, b"a\tb\tc").unwrap(), "Some(\"a\")|b\tc");
        assert_eq!(split(&mut with_id, b"no id").unwrap(), "None|no id");
        assert_eq!(split(&mut with_id, b"\tx").unwrap_err(), r"line 3: empty id: '\tx'");
        let mut json = Documents::new(false, Some(("body", Some("id")))).unwrap();
        assert_eq!(split(&mut json, br#"{"id": 7, "body": "t"}"#).unwrap(), "Some(\"7\")|t");
        let err = split(&mut json, br#"{"id": "", "body": "t"}"#).unwrap_err();
        assert!(err.starts_with("line 3: empty id: '{"), "{err}");
    }

    /// A byte-order mark at the start of a line is dropped in each form, on any line; one
    /// elsewhere in the line is kept.
    #[test]
    fn a_byte_order_mark_at_the_start_of_a_line_is_dropped() {
        let mut plain = Documents::new(false, None).unwrap();
        assert_eq!(split(&mut plain, b"\xEF\xBB\xBFa b").unwrap(), "None|a b");
        assert_eq!(split(&mut plain, b"a\xEF\xBB\xBFb").unwrap(), "None|a\u{feff}b");
        let mut with_id = Documents::new(true, None).unwrap();
        assert_eq!(split(&mut with_id, b"\xEF\xBB\xBFd1\tt").unwrap(), "Some(\"d1\")|t");
        assert_eq!(split(&mut with_id, b"d1\t\xEF\xBB\xBFt").unwrap(), "Some(\"d1\")|\u{feff}t");
        assert_eq!(
            split(&mut with_id, b"\xEF\xBB\xBF\tt").unwrap_err(),
            r"line 3: empty id: '\tt'"
        );
        let mut json = Documents::new(false, Some(("text", Some("id")))).unwrap();
        let line = b"\xEF\xBB\xBF{\"id\": \"d1\", \"text\": \"t\"}";
        assert_eq!(split(&mut json, line).unwrap(), "Some(\"d1\")|t");
        // Only one mark is dropped: a second is the line's first character.
        let err = split(&mut json, b"\xEF\xBB\xBF\xEF\xBB\xBF{}").unwrap_err();
        assert!(err.starts_with("line 3: invalid JSON"), "{err}");
    }

    #[test]
    fn one_field_for_both_is_a_usage_error() {
        let err = Documents::new(false, Some(("text", Some("text")))).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert_eq!(err.to_string(), "--id-field and --text-field must name different fields");
    }
}
