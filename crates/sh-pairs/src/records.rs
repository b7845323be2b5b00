//! Reading `[ID<TAB>]FINGERPRINT` records: the fingerprints in input order and the ids to print.

use std::io::Write;

use sh_core::number::{parse_u64, push_u64, write_u64};
use sh_core::progress::Progress;
use sh_core::record::{items, split_nonempty_id};
use sh_core::{Error, RecordReader, Result};

use crate::index::RecordIndex;

/// The records of one input.
#[derive(Debug, Default)]
pub struct Records {
    pub fingerprints: Vec<u64>,
    pub ids: Ids,
}

/// How records are named in the output.
#[derive(Debug)]
pub enum Ids {
    /// No ids: a record is named by its 1-based line number. `lines` is kept only once a line
    /// was skipped (an empty fingerprint); until then record r is line r + 1.
    LineNumbers { lines: Option<Vec<u64>> },
    /// Every record's id, stored end to end.
    Named { bytes: Vec<u8>, ends: Vec<usize> },
}

impl Default for Ids {
    fn default() -> Self {
        Ids::LineNumbers { lines: None }
    }
}

impl Ids {
    pub fn are_named(&self) -> bool {
        matches!(self, Ids::Named { .. })
    }

    /// The id of record `r` (0-based within this input) as text or a line number.
    pub fn get(&self, r: usize) -> Id<'_> {
        match self {
            Ids::LineNumbers { lines: None } => Id::Line(r as u64 + 1),
            Ids::LineNumbers { lines: Some(lines) } => Id::Line(lines[r]),
            Ids::Named { bytes, ends } => {
                let start = if r == 0 { 0 } else { ends[r - 1] };
                Id::Named(&bytes[start..ends[r]])
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Id<'a> {
    Line(u64),
    Named(&'a [u8]),
}

impl Id<'_> {
    /// Appends the id as text: the line number in decimal, or the id's bytes.
    pub fn push_text(self, line: &mut Vec<u8>) {
        match self {
            Id::Line(number) => push_u64(line, number),
            Id::Named(id) => line.extend_from_slice(id),
        }
    }

    pub fn write_json<W: Write>(self, out: &mut W) -> std::io::Result<()> {
        match self {
            Id::Line(line) => write_u64(out, line),
            Id::Named(id) => {
                let text = String::from_utf8_lossy(id);
                serde_json::to_writer(&mut *out, text.as_ref()).map_err(std::io::Error::from)
            }
        }
    }
}

/// Reads every record. Lines with an empty fingerprint (`ID<TAB>` or a blank line) are skipped;
/// the first other line decides whether the input has ids, and a line that differs is an error.
pub fn read_records(input: &mut RecordReader, progress: &mut Progress) -> Result<Records> {
    let mut records = Records::default();
    let mut named: Option<bool> = None;
    while let Some((line, record)) = input.next_numbered()? {
        progress.tick();
        // The common line, a lone decimal fingerprint, parses without looking for an id or
        // items: digits alone hold no TAB and no space. Anything else takes the general path,
        // which also words every error.
        let lone = (!named.unwrap_or(false) && record.first().is_some_and(u8::is_ascii_digit))
            .then(|| parse_u64(record).ok())
            .flatten();
        let (id, fingerprint) = match lone {
            Some(fingerprint) => (None, fingerprint),
            None => {
                let (id, payload) = split_nonempty_id(line, record)?;
                let mut fields = items(payload);
                let Some(text) = fields.next() else {
                    if let Ids::LineNumbers { lines } = &mut records.ids {
                        // Later records no longer sit on line r + 1.
                        lines.get_or_insert_with(|| {
                            (1..=records.fingerprints.len() as u64).collect()
                        });
                    }
                    continue;
                };
                if fields.next().is_some() {
                    return Err(Error::input(line, "more than one fingerprint on a line", payload));
                }
                let parsed = parse_u64(text).map_err(|e| Error::input(line, e.to_string(), text));
                (id, parsed?)
            }
        };
        match (*named.get_or_insert(id.is_some()), id) {
            (true, Some(id)) => {
                if let Ids::LineNumbers { .. } = records.ids {
                    records.ids = Ids::Named { bytes: Vec::new(), ends: Vec::new() };
                }
                if let Ids::Named { bytes, ends } = &mut records.ids {
                    bytes.extend_from_slice(id);
                    ends.push(bytes.len());
                }
            }
            (false, None) => {
                if let Ids::LineNumbers { lines: Some(lines) } = &mut records.ids {
                    lines.push(line);
                }
            }
            (true, None) => {
                return Err(Error::input(line, "a line without an id among lines with ids", record))
            }
            (false, Some(_)) => {
                return Err(Error::input(line, "a line with an id among lines without ids", record))
            }
        }
        if records.fingerprints.len() > RecordIndex::MAX as usize {
            return Err(Error::input(line, "more than 2^32-1 records in one run", record));
        }
        records.fingerprints.push(fingerprint);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &'static str) -> Result<Records> {
        let mut reader = RecordReader::new(text.as_bytes(), "test".into());
        read_records(&mut reader, &mut Progress::new(true, ""))
    }

    fn id_text(ids: &Ids, r: usize) -> String {
        let mut out = Vec::new();
        ids.get(r).push_text(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn line_numbers_skip_empty_lines() {
        let records = read("5\n\n0x10\n  \n7").unwrap();
        assert_eq!(records.fingerprints, [5, 16, 7]);
        let ids: Vec<String> = (0..3).map(|r| id_text(&records.ids, r)).collect();
        assert_eq!(ids, ["1", "3", "5"]);
    }

    #[test]
    fn named_ids() {
        let records = read("a\t1\nb\t\nc\t 2 \n").unwrap();
        assert_eq!(records.fingerprints, [1, 2]);
        assert_eq!(id_text(&records.ids, 0), "a");
        assert_eq!(id_text(&records.ids, 1), "c");
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("1\nabc\n", "line 2: not an unsigned"),
            ("1\n-1\n", "line 2: signed number"),
            ("18446744073709551616\n", "line 1: integer larger than 2^64-1"),
            ("3x\n", "line 1: not an unsigned"),
            ("a\t1\n2\n", "line 2: a line without an id among lines with ids"),
            ("1\na\t2\n", "line 2: a line with an id among lines without ids"),
            ("1 2\n", "line 1: more than one fingerprint"),
        ];
        for (input, expected) in cases {
            let message = read(input).unwrap_err().to_string();
            assert!(message.starts_with(expected), "{input:?}: {message}");
        }
    }
}
