//! Reading `[ID<TAB>]FINGERPRINT` records into a batch for a new segment.

use sh_core::fingerprint::Width;
use sh_core::progress::Progress;
use sh_core::record::without_bom;
use sh_core::records::{IdsThroughout, RecordLine};
use sh_core::{Error, RecordReader, Result};

use crate::build::{Batch, Names, MAX_SEGMENT_RECORDS};
use crate::format::IndexNames;

/// A batch read, with what the index will say after it.
#[derive(Debug)]
pub struct Read {
    pub batch: Batch,
    /// Whether the index's records have ids (unknown while it holds none).
    pub names: IndexNames,
    /// The lines read so far, this input's included.
    pub lines: u64,
}

/// Reads every record of `input`, to follow `records` records of an index whose `names` they
/// must share, after `lines` lines of earlier inputs.
pub fn read_batch(
    input: &mut RecordReader,
    progress: &mut Progress,
    names: IndexNames,
    records: u64,
    lines: u64,
) -> Result<Read> {
    let mut fingerprints = Vec::new();
    let mut line_numbers: Vec<u64> = Vec::new();
    let (mut id_bytes, mut id_ends): (Vec<u8>, Vec<u64>) = (Vec::new(), Vec::new());
    let mut ids = IdsThroughout::new("line");
    let mut skipped = false;
    let mut named = match names {
        IndexNames::Unknown => None,
        IndexNames::Lines => Some(false),
        IndexNames::Ids => Some(true),
    };
    while let Some((line, record)) = input.next_numbered()? {
        progress.tick();
        let Some(RecordLine { id, fingerprint }) = RecordLine::parse(line, record)? else {
            if !skipped {
                // Until now record r was line r + 1; from now on each line is kept.
                skipped = true;
                line_numbers = (1..=fingerprints.len() as u64).map(|l| lines + l).collect();
            }
            continue;
        };
        // Errors quote the line as read, without the mark the parse dropped.
        let record = without_bom(record);
        ids.check(line, id.is_some(), record)?;
        match *named.get_or_insert(id.is_some()) {
            true if id.is_none() => {
                return Err(Error::input(
                    line,
                    "a line without an id, but the index's records have ids",
                    record,
                ));
            }
            false if id.is_some() => {
                return Err(Error::input(
                    line,
                    "a line with an id, but the index's records have none",
                    record,
                ));
            }
            _ => {}
        }
        if fingerprint.width() != Width::Bits64 {
            let what = format!(
                "a {} fingerprint: sh-index holds 64-bit fingerprints",
                fingerprint.width()
            );
            return Err(Error::input(line, what, record));
        }
        if fingerprints.len() >= MAX_SEGMENT_RECORDS {
            return Err(Error::input(line, "more than 2^32-1 records in one input", record));
        }
        fingerprints.push(fingerprint.words()[0]);
        if skipped {
            line_numbers.push(lines + line);
        }
        if let Some(id) = id {
            id_bytes.extend_from_slice(id);
            id_ends.push(id_bytes.len() as u64);
        }
    }
    let names = match named {
        Some(true) => Names::Ids { bytes: id_bytes, ends: id_ends },
        _ if !skipped || fingerprints.is_empty() => Names::ImplicitLines,
        _ => Names::Lines(line_numbers),
    };
    let index_names = match named {
        None => IndexNames::Unknown,
        Some(false) => IndexNames::Lines,
        Some(true) => IndexNames::Ids,
    };
    let lines_after = lines + input.line();
    Ok(Read {
        batch: Batch { fingerprints, names, first: records, line_base: lines },
        names: index_names,
        lines: lines_after,
    })
}
