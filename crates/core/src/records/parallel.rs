//! Reading records on threads: the input cut into blocks of whole lines, each block's records
//! read apart by [`Reading::add`] with line numbers from the block's start, then appended in
//! input order. Appending checks what a block could not know alone (ids throughout, one width,
//! the record limit, the line numbers of what came before); a block that breaks a rule, or
//! failed alone, is read again line by line after the records before it, which finds the same
//! first fault at the same line as reading the input one line at a time.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use super::file_blocks::FileBlocks;
use super::{read_records_after, Earlier, Reading, RecordNames, Records, MAX_RECORDS};
use crate::io::{block_lines, read_error};
use crate::progress::Progress;
use crate::threads::spawn_with;
use crate::{RecordReader, Result};

/// Bytes per block: large enough that a block's start and end cost nothing next to its lines,
/// small enough that every thread has many of a 20 MB input and that the blocks in flight
/// (and their lists of fingerprints) take few fresh pages: at 1M random fingerprints 256 KB
/// read about 1 ms sooner than 1 MB (four comparisons of 25-41 alternating runs), and alike
/// at 10M.
pub(super) const BLOCK: usize = 1 << 18;

/// Blocks handed to one thread and not yet appended: one being read, one waiting.
const IN_FLIGHT: usize = 2;

/// [`read_records_after`] on `threads` threads (at most 1: the same, on this one). The records,
/// and the error when the input has one, are those of reading one line at a time.
pub fn read_records_on(
    input: &mut RecordReader,
    progress: &mut Progress,
    earlier: Earlier,
    threads: usize,
) -> Result<Records> {
    if threads <= 1 {
        return read_records_after(input, progress, earlier);
    }
    read_in_blocks(input, progress, earlier, threads, BLOCK)
}

/// [`read_records_on`] with blocks of `block_size` bytes, on `threads` threads. A regular file
/// is read block by block at its positions by the threads that read the blocks' records
/// ([`FileBlocks`]); any other input by this thread, which hands the blocks out.
fn read_in_blocks(
    input: &mut RecordReader,
    progress: &mut Progress,
    earlier: Earlier,
    threads: usize,
    block_size: usize,
) -> Result<Records> {
    // The file's blocks, once the threads are known to have started.
    let file: std::sync::OnceLock<FileBlocks> = std::sync::OnceLock::new();
    let file = &file;
    std::thread::scope(|scope| -> Result<Records> {
        // As many threads as the system starts; with none, this one reads it all.
        let mut workers: Vec<(SyncSender<Job>, Receiver<Part>)> = Vec::new();
        for _ in 0..threads {
            let (to_worker, jobs) = sync_channel::<Job>(IN_FLIGHT);
            let (to_reader, parts) = sync_channel::<Part>(IN_FLIGHT);
            let started = spawn_with(scope, (jobs, to_reader), move |(jobs, to_reader)| {
                for job in jobs {
                    if to_reader.send(Part::read(job, file.get())).is_err() {
                        break;
                    }
                }
            });
            if started.is_err() {
                break;
            }
            workers.push((to_worker, parts));
        }
        if workers.is_empty() {
            return read_records_after(input, progress, earlier);
        }
        if let Some((handle, at)) = input.take_file() {
            let blocks =
                FileBlocks::new(handle, at, block_size).map_err(|e| read_error(input.name(), e))?;
            file.set(blocks).expect("set once, before any job is sent");
        }
        let threads = workers.len();
        let mut reading = Reading::new(earlier);
        // Of a regular file: the bytes appended so far, until the room for all is taken.
        let mut sampled = file.get().map(|_| 0usize);
        // Blocks go to the threads in turn, and their parts come back in the same turn, so
        // in input order; each thread holds at most IN_FLIGHT of them.
        let (mut sent, mut appended, mut more) = (0usize, 0usize, true);
        // Blocks' buffers and lists of fingerprints, once appended, for the next blocks: so
        // that a block's list is not fresh memory, faulted in page by page.
        let mut spare: Vec<(Vec<u8>, Vec<u64>)> = Vec::new();
        loop {
            while more && sent - appended < threads * IN_FLIGHT {
                let (mut block, fingerprints) = spare.pop().unwrap_or_default();
                more = match file.get() {
                    Some(blocks) => sent < blocks.count(),
                    None => input.next_block(block_size, &mut block)?,
                };
                if more {
                    let worker = &workers[sent % threads].0;
                    let job = Job { index: sent, block, fingerprints };
                    worker.send(job).expect("a reading thread ends only when its sender does");
                    sent += 1;
                }
            }
            if appended == sent {
                if let Some(blocks) = file.get() {
                    blocks.finish().map_err(|e| read_error(input.name(), e))?;
                }
                return Ok(reading.finish());
            }
            let part = workers[appended % threads].1.recv();
            let part = part.expect("a reading thread answers every block it was sent");
            appended += 1;
            if let Some(e) = part.error {
                return Err(read_error(input.name(), e));
            }
            progress.add(part.reading.lines);
            let Part { block, mapped, skip, reading: read, failed, .. } = part;
            let lines = mapped.unwrap_or(&block[skip..]);
            let fingerprints = reading.append(read, failed, lines)?;
            if let (Some(bytes), Some(blocks)) = (&mut sampled, file.get()) {
                *bytes += lines.len();
                if reading.reserve_like(*bytes, blocks.bytes()) {
                    sampled = None;
                }
            }
            spare.push((block, fingerprints));
        }
    })
}

/// A block for a thread to read: its text, or, for a file, its number and room for its text.
struct Job {
    index: usize,
    block: Vec<u8>,
    /// An empty list, with room perhaps, for the block's fingerprints.
    fingerprints: Vec<u64>,
}

/// One block and its records, read as if it were the whole input.
struct Part<'m> {
    /// The block's lines are `mapped`, read in place in the file's map, or else
    /// `block[skip..]`.
    block: Vec<u8>,
    mapped: Option<&'m [u8]>,
    skip: usize,
    reading: Reading,
    /// Whether a line broke a rule on its own (it is then read again after the records before
    /// it, for the error).
    failed: bool,
    /// Why the block could not be read from the file.
    error: Option<std::io::Error>,
}

impl<'m> Part<'m> {
    /// Reads the records of `job`'s block: found in `file`'s map or read from `file` first,
    /// when the input is one.
    fn read(job: Job, file: Option<&'m FileBlocks>) -> Part<'m> {
        let Job { index, mut block, fingerprints } = job;
        let mut reading = Reading::new(Earlier::default());
        reading.records.fingerprints = fingerprints;
        let mapped = file.and_then(|file| file.mapped(index));
        let skip = match (file, mapped) {
            (Some(file), None) => match file.read(index, &mut block) {
                Ok(skip) => skip,
                Err(error) => {
                    let failed = true;
                    return Part { block, mapped, skip: 0, reading, failed, error: Some(error) };
                }
            },
            // Found in the map, or text handed over already.
            _ => 0,
        };
        let lines = mapped.unwrap_or(&block[skip..]);
        // Room for a fingerprint word per 16 bytes, so that the list is not grown and copied
        // as it fills: a line of a 64-bit one has 2 to 21 bytes (random ones about 20), of a
        // wide one 35 or 67 (2 or 4 words). At most what an ordinary block needs: a block made
        // long by one long line holds few records. A sixteenth more, so that a list used for
        // an earlier block (about as long: a block ends at the first line end past its size)
        // has the room already and is not grown, which would copy it into fresh pages.
        let room = ((lines.len() + lines.len() / 16) / 16 + 1).min(BLOCK / 8);
        reading.records.fingerprints.reserve(room);
        let failed = reading.add_lines(lines).is_err();
        Part { block, mapped, skip, reading, failed, error: None }
    }
}

impl Reading {
    /// Appends the records of the next block, `part`, read apart from line 1 (`failed`: it
    /// stopped at a fault); `block` is its text. Returns the part's list of fingerprints,
    /// emptied, for another block.
    fn append(&mut self, mut part: Reading, failed: bool, block: &[u8]) -> Result<Vec<u64>> {
        let mut emptied = std::mem::take(&mut part.records.fingerprints);
        let before = self.lines;
        // Whether the records so far are plain is known again after the next line added alone.
        self.plain = false;
        if failed || !self.agrees_with(&part) {
            // The rules of one line at a time find the fault, at its line in the input.
            for (line, record) in (before + 1..).zip(block_lines(block)) {
                self.add(line, record)?;
            }
            emptied.clear();
            return Ok(emptied);
        }
        if let Some((width, line)) = part.widths.first() {
            self.widths.check(before + line, width, b"")?;
        }
        self.ids.named = self.ids.named.or(part.ids.named);
        let Records { names, .. } = part.records;
        match (&mut self.records.names, names) {
            (RecordNames::Named { bytes, ends }, RecordNames::Named { bytes: more, ends: at }) => {
                let offset = bytes.len();
                bytes.extend_from_slice(&more);
                ends.extend(at.iter().map(|end| end + offset));
            }
            // The first records, with ids (this input had none before).
            (names @ RecordNames::LineNumbers { .. }, named @ RecordNames::Named { .. }) => {
                *names = named;
            }
            // The part has no records.
            (RecordNames::Named { .. }, RecordNames::LineNumbers { .. }) => {}
            (
                RecordNames::LineNumbers { lines },
                RecordNames::LineNumbers { lines: part_lines },
            ) => match (lines, part_lines) {
                (None, None) => {}
                (lines @ None, Some(part_lines)) => {
                    let mut all: Vec<u64> = (1..=self.count as u64).collect();
                    all.extend(part_lines.iter().map(|line| before + line));
                    *lines = Some(all);
                }
                (Some(lines), None) => lines.extend(before + 1..=before + part.count as u64),
                (Some(lines), Some(part_lines)) => {
                    lines.extend(part_lines.iter().map(|line| before + line))
                }
            },
        }
        self.records.fingerprints.extend_from_slice(&emptied);
        emptied.clear();
        self.count += part.count;
        self.lines = before + part.lines;
        Ok(emptied)
    }

    /// Whether `part`, the next block read apart, keeps the rules that span blocks: ids
    /// throughout, one width (and the earlier inputs'), the record limit.
    fn agrees_with(&self, part: &Reading) -> bool {
        fn same<T: PartialEq>(a: Option<T>, b: Option<T>) -> bool {
            a.is_none() || b.is_none() || a == b
        }
        let width = part.widths.width();
        same(self.ids.named, part.ids.named)
            && same(self.widths.width(), width)
            && same(self.earlier.width, width)
            && self.earlier.records + self.count + part.count <= MAX_RECORDS
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::read_in_blocks_here;
    use super::*;
    use crate::fingerprint::Width;

    /// What a read gives, as text: the records (fingerprints, width, names and the line list)
    /// or the error.
    fn outcome(result: Result<Records>) -> String {
        match result {
            Ok(records) => format!("{records:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    /// One line at a time, every line checked by the rules (no shortcut for plain lines).
    fn reference(text: &[u8], earlier: Earlier) -> String {
        let mut input = RecordReader::new(std::io::Cursor::new(text.to_vec()), "test".into());
        let mut reading = Reading { shortcut: false, ..Reading::new(earlier) };
        let read = || -> Result<Records> {
            while let Some((line, record)) = input.next_numbered()? {
                reading.add(line, record)?;
            }
            Ok(reading.finish())
        };
        outcome(read())
    }

    /// As [`read`], from a regular file (read by the threads at the blocks' positions).
    fn read_file(text: &[u8], earlier: Earlier, threads: usize, block_size: usize) -> String {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut file, text).unwrap();
        let mut input = RecordReader::open(file.path()).unwrap();
        let progress = &mut Progress::new(true, "");
        outcome(read_in_blocks(&mut input, progress, earlier, threads, block_size))
    }

    fn read(text: &[u8], earlier: Earlier, threads: usize, block_size: usize) -> String {
        let mut input = RecordReader::new(std::io::Cursor::new(text.to_vec()), "test".into());
        let progress = &mut Progress::new(true, "");
        outcome(match threads {
            1 => read_records_after(&mut input, progress, earlier),
            _ => read_in_blocks(&mut input, progress, earlier, threads, block_size),
        })
    }

    /// A line of an input whose lines mostly agree (`named`, `wide`), with now and then a
    /// blank line, a fingerprint-less id, a line of the other kind, a byte-order mark (one, or
    /// two: a fault) or a fault.
    fn line(named: bool, wide: bool) -> impl Strategy<Value = String> {
        let fingerprint = (any::<u64>(), any::<u64>(), any::<bool>(), 0..20u8).prop_map(
            move |(a, b, hex, odd)| match (odd, wide) {
                (0, _) => "abc".to_string(),
                (1, false) => format!("0x{a:032x}{b:032x}"),
                (1, true) => a.to_string(),
                (_, true) => format!("0x{a:016x}{b:016x}"),
                (_, false) if hex => format!("0x{a:x}"),
                (_, false) => a.to_string(),
            },
        );
        (fingerprint, 0..40u8, "[a-z]{1,3}").prop_map(move |(fingerprint, kind, id)| match kind {
            0 => String::new(),
            1 => format!("{id}\t"),
            2 if named => fingerprint,
            2 => format!("{id}\t{fingerprint}"),
            3 => format!("{fingerprint}\r"),
            4 if named => format!("\u{feff}{id}\t{fingerprint}"),
            4 => format!("\u{feff}{fingerprint}"),
            5 => format!("\u{feff}\u{feff}{fingerprint}"),
            _ if named => format!("{id}\t{fingerprint}"),
            _ => fingerprint,
        })
    }

    fn input() -> impl Strategy<Value = (Vec<u8>, Earlier)> {
        let earlier = prop_oneof![
            Just(Earlier::default()),
            Just(Earlier { records: 5, width: Some(Width::Bits64), ..Earlier::default() }),
            Just(Earlier { records: 5, width: Some(Width::Bits128), ..Earlier::default() }),
            (0..6usize).prop_map(|left| Earlier {
                records: MAX_RECORDS - left,
                width: Some(Width::Bits64),
                ..Earlier::default()
            }),
        ];
        (any::<bool>(), any::<bool>(), any::<bool>())
            .prop_flat_map(|(named, wide, last_lf)| {
                (proptest::collection::vec(line(named, wide), 0..60), Just(last_lf))
            })
            .prop_map(|(lines, last_lf)| {
                let mut text = lines.join("\n");
                if last_lf && !text.is_empty() {
                    text.push('\n');
                }
                text.into_bytes()
            })
            .prop_flat_map(move |text| (Just(text), earlier.clone()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Blocks of any size on any number of threads, handed out or read from a file at
        /// their positions, read what one line at a time reads, with and without the shortcut
        /// for plain lines: the same records, names and line numbers, or the same error at the
        /// same line.
        #[test]
        fn blocks_read_what_lines_read(
            (text, earlier) in input(),
            threads in 2..5usize,
            block_size in 1..200usize,
        ) {
            let expected = reference(&text, earlier);
            prop_assert_eq!(read(&text, earlier, 1, 0), expected.clone());
            let mut input = RecordReader::new(std::io::Cursor::new(text.clone()), "test".into());
            let progress = &mut Progress::new(true, "");
            let here = read_in_blocks_here(&mut input, progress, earlier, block_size);
            prop_assert_eq!(outcome(here), expected.clone());
            prop_assert_eq!(read(&text, earlier, threads, block_size), expected.clone());
            prop_assert_eq!(read_file(&text, earlier, threads, block_size), expected);
        }
    }

    #[test]
    fn a_fault_in_a_later_block_names_its_line() {
        let text: String = (1..=1000).map(|n| format!("{n}\n")).collect::<String>() + "x\n";
        let got = read(text.as_bytes(), Earlier::default(), 2, 64);
        assert_eq!(
            got,
            "error: line 1001: not an unsigned 64-bit integer (decimal or 0x hex): 'x'"
        );
    }
}
