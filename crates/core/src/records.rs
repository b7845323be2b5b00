//! Reading `[ID<TAB>]FINGERPRINT` records (the input of sh-pairs and sh-index): the fingerprints
//! in input order and the ids to print.

use std::io::Write;

use crate::fingerprint::{Fingerprint, Width, WidthTracker};
use crate::number::{parse_u64, push_u64, write_u64};
use crate::progress::Progress;
use crate::record::{items, split_nonempty_id};
use crate::{Error, RecordReader, Result};

mod file_blocks;
pub(crate) use file_blocks::FileBlocks;
mod parallel;

pub use parallel::read_records_on;

/// The records of one input.
#[derive(Debug, Default)]
pub struct Records {
    /// The fingerprints in input order, each as its words end to end (word 0 first): one word
    /// for 64 bits, 2 or 4 for 128 or 256.
    pub fingerprints: Vec<u64>,
    /// Their width: that of the first record (every record has it); `None` without records.
    pub width: Option<Width>,
    /// What the records are called in the output: ids or line numbers.
    pub names: RecordNames,
}

impl Records {
    /// The number of records.
    pub fn len(&self) -> usize {
        self.fingerprints.len() / self.width.map_or(1, Width::words)
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }
}

/// How the records of one input are named in the output.
#[derive(Debug)]
pub enum RecordNames {
    /// No ids: a record is named by its 1-based line number. `lines` is kept only once a line
    /// was skipped (an empty fingerprint); until then record r is line r + 1.
    LineNumbers {
        /// The line of each record, once one line was skipped.
        lines: Option<Vec<u64>>,
    },
    /// Every record's id, stored end to end.
    Named {
        /// The ids end to end.
        bytes: Vec<u8>,
        /// Where each id ends in `bytes`.
        ends: Vec<usize>,
    },
}

impl Default for RecordNames {
    fn default() -> Self {
        RecordNames::LineNumbers { lines: None }
    }
}

impl RecordNames {
    /// Whether the records have ids.
    pub fn are_named(&self) -> bool {
        matches!(self, RecordNames::Named { .. })
    }

    /// The name of record `r` (0-based within this input): its id or its line number.
    pub fn get(&self, r: usize) -> RecordName<'_> {
        match self {
            RecordNames::LineNumbers { lines: None } => RecordName::Line(r as u64 + 1),
            RecordNames::LineNumbers { lines: Some(lines) } => RecordName::Line(lines[r]),
            RecordNames::Named { bytes, ends } => {
                let start = if r == 0 { 0 } else { ends[r - 1] };
                RecordName::Named(&bytes[start..ends[r]])
            }
        }
    }
}

/// What names a record in the output.
#[derive(Debug, Clone, Copy)]
pub enum RecordName<'a> {
    /// A 1-based line number.
    Line(u64),
    /// An id.
    Named(&'a [u8]),
}

impl RecordName<'_> {
    /// Appends the id as text: the line number in decimal, or the id's bytes.
    pub fn push_text(self, buffer: &mut Vec<u8>) {
        match self {
            RecordName::Line(number) => push_u64(buffer, number),
            RecordName::Named(id) => buffer.extend_from_slice(id),
        }
    }

    /// Writes the name as JSON: a number, or the id as a string (invalid UTF-8 replaced).
    pub fn write_json<W: Write>(self, out: &mut W) -> std::io::Result<()> {
        match self {
            RecordName::Line(number) => write_u64(out, number),
            RecordName::Named(id) => {
                let text = String::from_utf8_lossy(id);
                serde_json::to_writer(&mut *out, text.as_ref()).map_err(std::io::Error::from)
            }
        }
    }
}

/// At most this many records in one run, query and corpus together: sh-pairs numbers records
/// with a `u32`.
pub const MAX_RECORDS: usize = u32::MAX as usize;

/// One line of sh-pairs' input, `[ID<TAB>]FINGERPRINT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLine<'a> {
    /// The id, when the line has one.
    pub id: Option<&'a [u8]>,
    /// The fingerprint.
    pub fingerprint: Fingerprint,
}

impl<'a> RecordLine<'a> {
    /// Parses `record`, input line `line`: `None` when the fingerprint is empty (`ID<TAB>`, a
    /// blank line), which readers skip. The fingerprint is an unsigned 64-bit integer in decimal
    /// or 0x hex, or a wide one (`0x` and 32 or 64 hex digits), with spaces around it allowed.
    /// One byte-order mark at the start of the line (an editor's or a spreadsheet export's) is
    /// no part of the record: it is dropped, as sh-tokenize and sh-score drop it.
    #[inline(always)]
    pub fn parse(line: u64, record: &'a [u8]) -> Result<Option<RecordLine<'a>>> {
        // The common line, a lone decimal fingerprint, parses without looking for an id or
        // items: digits alone hold no TAB and no space. Anything else takes the general path,
        // which also words every error. Inlined, the common line costs the reader no call and
        // no large return value.
        if let Some(value) = RecordLine::lone_decimal(record) {
            let fingerprint = Fingerprint::from_u64(value);
            return Ok(Some(RecordLine { id: None, fingerprint }));
        }
        // A lone wide fingerprint, `0x` and 32 or 64 digits, likewise.
        if matches!(record.len(), 34 | 66) && record.starts_with(b"0x") {
            if let Ok(fingerprint) = Fingerprint::parse(record) {
                return Ok(Some(RecordLine { id: None, fingerprint }));
            }
        }
        RecordLine::parse_in_full(line, crate::record::without_bom(record))
    }

    /// The value of a line that is a lone decimal 64-bit fingerprint, digits alone.
    #[inline(always)]
    fn lone_decimal(record: &[u8]) -> Option<u64> {
        // (Not `0x`: 32 or 64 hex digits are a wide fingerprint, which parse_u64 would take
        // for a 64-bit one when its high digits are zeros.)
        if record.first().is_some_and(u8::is_ascii_digit)
            && !matches!(record.get(1), Some(b'x' | b'X'))
        {
            return parse_u64(record).ok();
        }
        None
    }

    #[inline(never)]
    fn parse_in_full(line: u64, record: &'a [u8]) -> Result<Option<RecordLine<'a>>> {
        let (id, payload) = split_nonempty_id(line, record)?;
        let mut fields = items(payload);
        let Some(text) = fields.next() else {
            return Ok(None);
        };
        if fields.next().is_some() {
            return Err(Error::input(line, "more than one fingerprint on a line", payload));
        }
        let fingerprint =
            Fingerprint::parse(text).map_err(|e| Error::input(line, e.to_string(), text))?;
        Ok(Some(RecordLine { id, fingerprint }))
    }
}

/// The rule that ids are used throughout or not at all: the first record decides, and a record
/// that differs is an error.
#[derive(Debug, Clone, Copy)]
pub struct IdsThroughout {
    named: Option<bool>,
    /// What the message calls a record: "line" where it is an input line, "record" otherwise.
    noun: &'static str,
}

impl IdsThroughout {
    /// The rule before the first record; `noun` is what errors call a record.
    pub fn new(noun: &'static str) -> IdsThroughout {
        IdsThroughout { named: None, noun }
    }

    /// Checks the record on `line` (`text` is quoted in the error); returns whether the records
    /// have ids.
    #[inline]
    pub fn check(&mut self, line: u64, has_id: bool, text: &[u8]) -> Result<bool> {
        let named = *self.named.get_or_insert(has_id);
        if named != has_id {
            return Err(self.mismatch(line, has_id, text));
        }
        Ok(named)
    }

    #[cold]
    fn mismatch(&self, line: u64, has_id: bool, text: &[u8]) -> Error {
        let noun = self.noun;
        let what = if has_id {
            format!("a {noun} with an id among {noun}s without ids")
        } else {
            format!("a {noun} without an id among {noun}s with ids")
        };
        Error::input(line, what, text)
    }
}

/// Reads every record of the only input, or of the first of two.
pub fn read_records(input: &mut RecordReader, progress: &mut Progress) -> Result<Records> {
    read_records_after(input, progress, Earlier::default())
}

/// What the records of a later input follow: the earlier inputs' records, their count and
/// width.
#[derive(Debug, Clone, Copy)]
pub struct Earlier {
    /// How many records.
    pub records: usize,
    /// `None` when there were none.
    pub width: Option<Width>,
    /// Whose fingerprints are of `width`, as an error about a line of another width names
    /// them: "the first input's" unless told.
    pub whose: &'static str,
}

impl Default for Earlier {
    fn default() -> Earlier {
        Earlier { records: 0, width: None, whose: FIRST_INPUTS }
    }
}

/// Whose fingerprints an [`Earlier`] holds, unless told.
const FIRST_INPUTS: &str = "the first input's";

impl Earlier {
    /// The records of `records`, the one earlier input.
    pub fn of(records: &Records) -> Earlier {
        Earlier { records: records.len(), width: records.width, whose: FIRST_INPUTS }
    }

    /// What the records of a query read before an index of 64-bit fingerprints must match:
    /// no records before them, and the index's width, so that a line of another width is an
    /// error at its line.
    pub fn index_of_64_bits() -> Earlier {
        Earlier { records: 0, width: Some(Width::Bits64), whose: "the index's" }
    }
}

/// Reads every record of an input that follows the `earlier` records of the same run (the
/// corpus after the query): [`MAX_RECORDS`] counts them too, and the fingerprints must have
/// their width. Lines with an empty fingerprint are skipped; ids are used throughout or not at
/// all ([`IdsThroughout`]); one input holds one width ([`WidthTracker`]).
pub fn read_records_after(
    input: &mut RecordReader,
    progress: &mut Progress,
    earlier: Earlier,
) -> Result<Records> {
    read_in_blocks_here(input, progress, earlier, parallel::BLOCK)
}

/// [`read_records_after`] in blocks of `block_size` bytes, on this thread.
fn read_in_blocks_here(
    input: &mut RecordReader,
    progress: &mut Progress,
    earlier: Earlier,
    block_size: usize,
) -> Result<Records> {
    let mut reading = Reading::new(earlier);
    let mut block = Vec::new();
    while input.next_block(block_size, &mut block)? {
        let before = reading.lines;
        reading.add_lines(&block)?;
        progress.add(reading.lines - before);
    }
    Ok(reading.finish())
}

/// Records read so far, and the rules they were checked by: one line at a time
/// ([`Reading::add`]), or a block's records, read apart, appended ([`parallel`]).
#[derive(Debug)]
struct Reading {
    records: Records,
    ids: IdsThroughout,
    widths: WidthTracker,
    /// Records read (`records.len()`, kept apart for the loop).
    count: usize,
    /// Lines read: the line number of the last line added.
    lines: u64,
    earlier: Earlier,
    /// Every record so far a lone 64-bit fingerprint without an id, each on the line after the
    /// one before: a next one like them needs none of the rules' checks (see [`Reading::add`]).
    plain: bool,
    /// Whether `plain` may be set: not in the tests' reference reading, which checks every
    /// line by the rules.
    shortcut: bool,
}

impl Reading {
    fn new(earlier: Earlier) -> Reading {
        Reading {
            records: Records::default(),
            ids: IdsThroughout::new("line"),
            widths: WidthTracker::new(),
            count: 0,
            lines: 0,
            earlier,
            plain: false,
            shortcut: true,
        }
    }

    /// Adds input line `line` (the lines before it were added).
    #[inline]
    fn add(&mut self, line: u64, record: &[u8]) -> Result<()> {
        self.lines = line;
        if self.plain && self.earlier.records + self.count < MAX_RECORDS {
            if let Some(value) = RecordLine::lone_decimal(record) {
                // What the rules below would find: no id like the others, the same width, and
                // the line number still the record's place.
                self.records.fingerprints.push(value);
                self.count += 1;
                return Ok(());
            }
        }
        self.plain = false;
        let Some(RecordLine { id, fingerprint }) = RecordLine::parse(line, record)? else {
            if let RecordNames::LineNumbers { lines } = &mut self.records.names {
                // Later records no longer sit on line r + 1.
                lines.get_or_insert_with(|| (1..=self.count as u64).collect());
            }
            return Ok(());
        };
        // Errors quote the line as read, without the mark the parse dropped.
        let record = crate::record::without_bom(record);
        self.ids.check(line, id.is_some(), record)?;
        let width = fingerprint.width();
        self.widths.check(line, width, record)?;
        match self.earlier.width {
            Some(before) if before != width => {
                return Err(Error::input(
                    line,
                    format!(
                        "a {width} fingerprint, but {} are {before} (one run holds \
                         fingerprints of one width)",
                        self.earlier.whose
                    ),
                    record,
                ));
            }
            _ => {}
        }
        match (&mut self.records.names, id) {
            (RecordNames::Named { bytes, ends }, Some(id)) => {
                bytes.extend_from_slice(id);
                ends.push(bytes.len());
            }
            (names @ RecordNames::LineNumbers { .. }, Some(id)) => {
                // The first record: from now on every record has an id.
                *names = RecordNames::Named { bytes: id.to_vec(), ends: vec![id.len()] };
            }
            (RecordNames::LineNumbers { lines: Some(lines) }, None) => lines.push(line),
            (_, None) => {}
        }
        if self.earlier.records + self.count >= MAX_RECORDS {
            return Err(Error::input(line, "more than 2^32-1 records in one run", record));
        }
        self.records.fingerprints.extend_from_slice(fingerprint.words());
        self.count += 1;
        self.plain = self.shortcut
            && width == Width::Bits64
            && id.is_none()
            && matches!(self.records.names, RecordNames::LineNumbers { lines: None });
        Ok(())
    }

    /// Adds the lines of `text`, whole lines of the input from the one after the last added:
    /// runs of plain 64-bit decimals by the quick loop ([`Reading::add_long_decimals`]), the
    /// other lines one by one.
    fn add_lines(&mut self, text: &[u8]) -> Result<()> {
        let mut rest = text;
        loop {
            rest = &rest[self.add_long_decimals(rest)..];
            let Some((record, after)) = crate::io::next_line(rest) else { return Ok(()) };
            rest = after;
            self.add(self.lines + 1, record)?;
        }
    }

    /// Room for the fingerprints of `total` bytes of input, reckoned from the `read` bytes
    /// whose records are in already (their words per byte, 2% more), taken at once and in
    /// huge pages where the system has them: the list is then neither grown nor copied, and
    /// its first touch faults 512 times less. Returns whether it was reckoned (`false` while
    /// no fingerprint has come); refused, the list grows as it fills. Reckoned from the
    /// records themselves, the room suits ids and wide fingerprints alike, not only the 20
    /// bytes of a lone 64-bit decimal.
    fn reserve_like(&mut self, read: usize, total: u64) -> bool {
        let fingerprints = &mut self.records.fingerprints;
        if fingerprints.is_empty() || read == 0 {
            return false;
        }
        let per_byte = fingerprints.len() as f64 / read as f64;
        let words = (total as f64 * per_byte * 1.02) as usize + 1;
        let more = words.saturating_sub(fingerprints.len());
        if crate::memory::fallible(|| fingerprints.try_reserve_exact(more)).is_ok() {
            crate::memory::prefer_huge_pages(fingerprints.spare_capacity_mut());
        }
        true
    }

    /// Adds the lines at the start of `text` that are lone decimals of 17 to 20 digits each
    /// ended by a `\n`, while the records so far are plain (see [`Reading::add`]) and at least
    /// 24 bytes are left; returns the bytes taken. The lines left are added one by one.
    #[inline]
    fn add_long_decimals(&mut self, text: &[u8]) -> usize {
        if !self.plain {
            return 0;
        }
        let room = MAX_RECORDS.saturating_sub(self.earlier.records + self.count);
        let mut at = 0;
        let mut added = 0;
        while added < room && text.len() - at >= 24 {
            let Some((value, len)) = crate::number::long_decimal_line(&text[at..]) else {
                break;
            };
            self.records.fingerprints.push(value);
            added += 1;
            at += len + 1;
        }
        self.count += added;
        self.lines += added as u64;
        at
    }

    fn finish(mut self) -> Records {
        self.records.width = self.widths.width();
        self.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &'static str) -> Result<Records> {
        let mut reader = RecordReader::new(text.as_bytes(), "test".into());
        read_records(&mut reader, &mut Progress::new(true, ""))
    }

    fn id_text(ids: &RecordNames, r: usize) -> String {
        let mut out = Vec::new();
        ids.get(r).push_text(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn line_numbers_skip_empty_lines() {
        let records = read("5\n\n0x10\n  \n7").unwrap();
        assert_eq!(records.fingerprints, [5, 16, 7]);
        let ids: Vec<String> = (0..3).map(|r| id_text(&records.names, r)).collect();
        assert_eq!(ids, ["1", "3", "5"]);
    }

    #[test]
    fn named_ids() {
        let records = read("a\t1\nb\t\nc\t 2 \n").unwrap();
        assert_eq!(records.fingerprints, [1, 2]);
        assert_eq!(id_text(&records.names, 0), "a");
        assert_eq!(id_text(&records.names, 1), "c");
    }

    #[test]
    fn the_record_limit_counts_earlier_inputs() {
        let mut reader = RecordReader::new("1\n\n2\n".as_bytes(), "corpus".into());
        let progress = &mut Progress::new(true, "");
        let error = read_records_after(
            &mut reader,
            progress,
            Earlier { records: MAX_RECORDS - 1, ..Earlier::default() },
        )
        .unwrap_err();
        assert_eq!(error.to_string(), "line 3: more than 2^32-1 records in one run: '2'");
        assert_eq!(error.exit_code(), 1);
    }

    #[test]
    fn one_parser_for_the_record_line() {
        let parse = |text: &'static str| RecordLine::parse(1, text.as_bytes()).unwrap();
        let fp = Fingerprint::from_u64;
        assert_eq!(parse("42"), Some(RecordLine { id: None, fingerprint: fp(42) }));
        assert_eq!(parse("a\t 0x2a "), Some(RecordLine { id: Some(b"a"), fingerprint: fp(42) }));
        let wide = format!("a\t0x{}{}", "0".repeat(31), "7");
        let parsed = RecordLine::parse(1, wide.as_bytes()).unwrap().unwrap();
        assert_eq!(parsed.fingerprint, Fingerprint::from_words(&[7, 0]).unwrap());
        // Without an id too, though its high digits are zeros and `0x0…07` is a number.
        let parsed = RecordLine::parse(1, &wide.as_bytes()[2..]).unwrap().unwrap();
        assert_eq!(parsed.fingerprint, Fingerprint::from_words(&[7, 0]).unwrap());
        assert_eq!(parse("a\t"), None);
        assert_eq!(parse(" "), None);
        let mut ids = IdsThroughout::new("record");
        assert!(!ids.check(1, false, b"1").unwrap());
        let error = ids.check(2, true, b"a\t1").unwrap_err().to_string();
        assert_eq!(error, r"line 2: a record with an id among records without ids: 'a\t1'");
    }

    /// The room is reckoned from the records in already: none before the first fingerprint,
    /// then the words per byte read, times the bytes of the whole, 2% more.
    #[test]
    fn room_is_reckoned_from_the_records_read() {
        let mut reading = Reading::new(Earlier::default());
        assert!(!reading.reserve_like(0, 2000));
        assert!(!reading.reserve_like(200, 2000), "no fingerprint yet");
        reading.records.fingerprints.extend(0..10u64);
        assert!(reading.reserve_like(200, 2000));
        // 10 words in 200 bytes: 100 for 2000 bytes, 102 with the margin, and one more.
        let room = reading.records.fingerprints.capacity();
        assert!((103..=110).contains(&room), "room {room}");
        assert_eq!(reading.records.fingerprints, (0..10u64).collect::<Vec<_>>());
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
