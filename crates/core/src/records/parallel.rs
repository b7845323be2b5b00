//! Reading records on threads: the input cut into blocks of whole lines, each block's records
//! read apart by [`Reading::add`] with line numbers from the block's start, then appended in
//! input order. Appending checks what a block could not know alone (ids throughout, one width,
//! the record limit, the line numbers of what came before); a block that breaks a rule, or
//! failed alone, is read again line by line after the records before it, which finds the same
//! first fault at the same line as reading the input one line at a time.

use std::collections::BTreeMap;
use std::sync::mpsc::sync_channel;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

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

/// Blocks out and not yet appended, per reading thread: about one being read, one waiting.
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

/// [`read_records_on`] with blocks of `block_size` bytes, on `threads` threads. This thread
/// hands the blocks out in order, each taken by whichever reading thread is free; a regular
/// file's blocks are read at their positions by the threads that read their records
/// ([`FileBlocks`]), any other input's by this thread. The reading threads append the records
/// themselves, in input order ([`Turns`]): this thread, which does little, takes no core's time
/// from them (when it appended, it shared a core with one of two reading threads, and the
/// other's core sat idle while that one waited).
fn read_in_blocks(
    input: &mut RecordReader,
    progress: &mut Progress,
    earlier: Earlier,
    threads: usize,
    block_size: usize,
) -> Result<Records> {
    // The file's blocks, once the threads are known to have started.
    let file: OnceLock<FileBlocks> = OnceLock::new();
    let file = &file;
    let shared = Turns::new(Reading::new(earlier), progress, input.name());
    let turns = &shared;
    // The blocks handed out and not yet taken.
    let (to_workers, jobs) = sync_channel::<Job>(threads * IN_FLIGHT);
    let jobs = &Mutex::new(jobs);
    let threaded = std::thread::scope(|scope| -> Result<bool> {
        // Dropped on return, which ends the threads once the blocks handed out are taken.
        let to_workers = to_workers;
        // As many threads as the system starts; with none, this one reads it all.
        let mut started = 0;
        for _ in 0..threads {
            let spawned = spawn_with(scope, (), move |()| {
                let _unwinding = StopIfUnwinding(turns);
                while !turns.failed() {
                    let job = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    let Ok(job) = job else { break };
                    let file = file.get();
                    turns.hand_in(Part::read(job, file), file);
                }
            });
            if spawned.is_err() {
                break;
            }
            started += 1;
        }
        if started == 0 {
            return Ok(false);
        }
        if let Some((handle, at)) = input.take_file() {
            let blocks =
                FileBlocks::new(handle, at, block_size).map_err(|e| read_error(input.name(), e))?;
            file.set(blocks).expect("set once, before any job is sent");
        }
        // At most IN_FLIGHT blocks a thread are out and not yet appended.
        let window = started * IN_FLIGHT;
        let mut sent = 0;
        // Until a part fails, or the input ends.
        while let Some((mut block, fingerprints)) = turns.room_for(sent, window) {
            let more = match file.get() {
                Some(blocks) => sent < blocks.count(),
                None => input.next_block(block_size, &mut block)?,
            };
            if !more {
                break;
            }
            let job = Job { index: sent, block, fingerprints };
            to_workers.send(job).expect("the reading threads end only when the queue does");
            sent += 1;
        }
        Ok(true)
    });
    let Appending { reading, progress, error, .. } =
        shared.appending.into_inner().unwrap_or_else(PoisonError::into_inner);
    // A part's fault comes before the input's: it was in a block read before.
    if let Some(error) = error {
        return Err(error);
    }
    if !threaded? {
        return read_records_after(input, progress, earlier);
    }
    if let Some(blocks) = file.get() {
        blocks.finish().map_err(|e| read_error(input.name(), e))?;
    }
    Ok(reading.finish())
}

/// The blocks' parts appended in input order by the threads that read them: the thread that
/// hands in the part whose turn it is, when no other is appending, appends it, and after it
/// every part handed in early whose turn has come; a thread that finds another appending
/// leaves its part to that one.
struct Turns<'p, 'm> {
    waiting: Mutex<Waiting<'m>>,
    /// Told when a part has been appended, or a part failed.
    appended: Condvar,
    /// Locked by the thread appending parts (`Waiting::appending`) alone.
    appending: Mutex<Appending<'p>>,
    /// The input's name, for a read error.
    name: String,
}

/// The parts not yet appended.
struct Waiting<'m> {
    /// Parts handed in before their turn, by their block's number.
    early: BTreeMap<usize, Part<'m>>,
    /// The number of the next block to append.
    next: usize,
    /// A part failed: no more is appended, nor read.
    failed: bool,
    /// A thread is appending parts.
    appending: bool,
    /// Blocks' buffers and lists of fingerprints, once appended, for the next blocks: so that
    /// a block's list is not fresh memory, faulted in page by page.
    spare: Vec<(Vec<u8>, Vec<u64>)>,
}

/// The records appended so far.
struct Appending<'p> {
    reading: Reading,
    progress: &'p mut Progress,
    /// The bytes appended so far, until the room for all of a regular file is taken.
    sampled: Option<usize>,
    /// Why the first part that failed failed.
    error: Option<crate::Error>,
}

/// `mutex`'s lock, whether or not a thread panicked holding it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<'p, 'm> Turns<'p, 'm> {
    fn new(reading: Reading, progress: &'p mut Progress, name: &str) -> Turns<'p, 'm> {
        let waiting = Waiting {
            early: BTreeMap::new(),
            next: 0,
            failed: false,
            appending: false,
            spare: Vec::new(),
        };
        let (sampled, error) = (Some(0), None);
        Turns {
            waiting: Mutex::new(waiting),
            appended: Condvar::new(),
            appending: Mutex::new(Appending { reading, progress, sampled, error }),
            name: name.to_string(),
        }
    }

    fn failed(&self) -> bool {
        lock(&self.waiting).failed
    }

    /// Room for the text and records of block `sent`, once fewer than `window` blocks are
    /// out and not yet appended; `None` once a part has failed.
    fn room_for(&self, sent: usize, window: usize) -> Option<(Vec<u8>, Vec<u64>)> {
        let mut waiting = lock(&self.waiting);
        while !waiting.failed && sent - waiting.next >= window {
            waiting = self.appended.wait(waiting).unwrap_or_else(PoisonError::into_inner);
        }
        (!waiting.failed).then(|| waiting.spare.pop().unwrap_or_default())
    }

    /// Hands in `part`, appended now or in its turn (by this thread or another).
    fn hand_in(&self, part: Part<'m>, file: Option<&FileBlocks>) {
        let mut waiting = lock(&self.waiting);
        if waiting.failed {
            return;
        }
        waiting.early.insert(part.index, part);
        // The thread appending looks for the next part, and stops appending, under the lock
        // this part went in under: it takes this part in its turn.
        if waiting.appending {
            return;
        }
        waiting.appending = true;
        loop {
            let next = waiting.next;
            let part = waiting.early.remove(&next).filter(|_| !waiting.failed);
            let Some(part) = part else {
                waiting.appending = false;
                return;
            };
            waiting.next += 1;
            drop(waiting);
            let spare = lock(&self.appending).append(part, file, &self.name);
            waiting = lock(&self.waiting);
            match spare {
                Some(spare) => waiting.spare.push(spare),
                None => waiting.failed = true,
            }
            self.appended.notify_all();
        }
    }
}

/// Held by a reading thread: ends the reading as failed when the thread panics, so that the
/// thread handing out blocks stops waiting for its part (the panic goes on when the threads
/// are joined).
struct StopIfUnwinding<'t, 'p, 'm>(&'t Turns<'p, 'm>);

impl Drop for StopIfUnwinding<'_, '_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            lock(&self.0.waiting).failed = true;
            self.0.appended.notify_all();
        }
    }
}

impl Appending<'_> {
    /// Appends `part`, the next block's records; returns the block's buffers for another, or
    /// `None` when it failed (the error kept).
    fn append(
        &mut self,
        part: Part<'_>,
        file: Option<&FileBlocks>,
        name: &str,
    ) -> Option<(Vec<u8>, Vec<u64>)> {
        if let Some(e) = part.error {
            self.error = Some(read_error(name, e));
            return None;
        }
        self.progress.add(part.reading.lines);
        let Part { block, mapped, skip, reading: read, failed, .. } = part;
        let lines = mapped.unwrap_or(&block[skip..]);
        match self.reading.append(read, failed, lines) {
            Ok(fingerprints) => {
                if let (Some(bytes), Some(blocks)) = (&mut self.sampled, file) {
                    *bytes += lines.len();
                    if self.reading.reserve_like(*bytes, blocks.bytes()) {
                        self.sampled = None;
                    }
                }
                Some((block, fingerprints))
            }
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
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
    /// The block's number.
    index: usize,
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
                    return Part {
                        index,
                        block,
                        mapped,
                        skip: 0,
                        reading,
                        failed,
                        error: Some(error),
                    };
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
        Part { index, block, mapped, skip, reading, failed, error: None }
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
