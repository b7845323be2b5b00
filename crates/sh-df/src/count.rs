//! Counting the documents of the input: one pass over a stream, or, for a large regular file of
//! unweighted items, one pass per part of the file, each on its own thread with a table of its
//! own, the tables then added up as `--merge` adds tables.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use sh_core::number::{parse_weight, split_weight, WEIGHT_ERROR};
use sh_core::progress::Progress;
use sh_core::record::{items, numbered_items, split_nonempty_id};
use sh_core::{is_std_stream, Error, RecordReader, Result};

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::document::Document;
use crate::partitions::{Distinct, DocumentCounts, Pending};
use sh_core::threads::spawn_with;

/// A file smaller than this per thread is read by one thread: starting threads and merging
/// tables would cost more than they save.
const MIN_PART_BYTES: u64 = 16 << 20;

/// What counting needs to know.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counting {
    pub weighted: bool,
    pub threads: usize,
    pub quiet: bool,
}

/// Counts the documents of `input` into `counts`; returns how many there were.
pub(crate) fn count_input(input: &Path, how: Counting, counts: &mut DocumentCounts) -> Result<u64> {
    if !how.weighted && how.threads > 1 {
        if let Some((file, len)) = regular_file(input) {
            let parts = (len / MIN_PART_BYTES).min(how.threads as u64);
            if parts > 1 {
                return count_parts(file, len, parts as usize, how, counts);
            }
        }
    }
    let mut reader = RecordReader::open(input)?;
    let progress = Progress::new(how.quiet, "documents counted");
    count_records(&mut reader, counts, how.weighted, progress)
}

/// The input as a regular file and its length, when it is one (standard input redirected from
/// a file included); `None` for pipes, terminals and anything that fails (the ordinary path
/// then reports the failure).
fn regular_file(input: &Path) -> Option<(Arc<File>, u64)> {
    let file = if is_std_stream(input) {
        use std::os::fd::AsFd;
        File::from(io::stdin().as_fd().try_clone_to_owned().ok()?)
    } else {
        File::open(input).ok()?
    };
    let meta = file.metadata().ok()?;
    meta.is_file().then(|| (Arc::new(file), meta.len()))
}

/// Counts `parts` parts of the file, cut after line ends, read at the same time: this thread
/// reads the first, a thread of its own each of the others. They read in rounds: each buffers
/// the distinct items of its next documents, up to its share of the budget; then the round's
/// buffers are counted into the one set of tables (its partitions on up to `how.threads`
/// threads), reduced to the capacity if need be, and the next round begins. Memory is that of
/// one table, whatever the parts; exact counts are those of one pass, and beyond the capacity
/// every round is the same from run to run, so the summary is too.
pub(crate) fn count_parts(
    file: Arc<File>,
    len: u64,
    parts: usize,
    how: Counting,
    counts: &mut DocumentCounts,
) -> Result<u64> {
    let mut cuts = vec![0];
    for part in 1..parts as u64 {
        let cut = line_start_after(&file, len * part / parts as u64, len)?;
        if cut > *cuts.last().expect("a cut") {
            cuts.push(cut);
        }
    }
    cuts.push(len);
    cuts.dedup();
    let share = (counts.budget() / (cuts.len() - 1).max(1)).max(1);
    let outcomes: Vec<Result<u64>> = std::thread::scope(|scope| {
        let mut readers: Vec<PartRounds> = Vec::new();
        for (index, range) in cuts.windows(2).enumerate() {
            let source = PartReader { file: Arc::clone(&file), at: range[0], end: range[1] };
            // Progress is shown by the first part, which starts at the beginning.
            let quiet = how.quiet || index > 0;
            if index == 0 {
                readers.push(PartRounds::Here(Box::new(Part::new(source, quiet))));
                continue;
            }
            let (to_part, rounds) = sync_channel::<Pending>(1);
            let (to_counts, filled) = sync_channel::<Filled>(1);
            let input = (source, rounds, to_counts);
            let started = spawn_with(scope, input, move |(source, rounds, to_counts)| {
                let mut part = Part::new(source, quiet);
                for mut pending in rounds {
                    let outcome = part.fill(&mut pending, share);
                    let documents = part.documents;
                    if to_counts.send(Filled { pending, outcome, documents }).is_err() {
                        break;
                    }
                }
                part.progress.finish();
            });
            readers.push(match started {
                Ok(_) => PartRounds::Thread(to_part, filled),
                // No thread: this one reads the part too, in turn.
                Err((source, _, _)) => PartRounds::Here(Box::new(Part::new(source, quiet))),
            });
        }
        count_in_rounds(&mut readers, counts, share, how.threads)
    });
    let mut documents = 0u64;
    for (outcome, &start) in outcomes.into_iter().zip(&cuts) {
        match outcome {
            Ok(n) => documents += n,
            // A part numbers its lines from 1: the lines of the parts before it come first.
            Err(Error::Input { line, what, text }) => {
                let before = lines_before(&file, start)?;
                return Err(Error::Input { line: line + before, what, text });
            }
            Err(other) => return Err(other),
        }
    }
    Ok(documents)
}

/// A part of the input being read: its records, the document being taken, its count.
struct Part {
    reader: RecordReader,
    document: Document,
    documents: u64,
    progress: Progress,
}

impl Part {
    fn new(source: PartReader, quiet: bool) -> Part {
        Part {
            reader: RecordReader::new(source, "standard input".into()),
            document: Document::default(),
            documents: 0,
            progress: Progress::new(quiet, "documents counted"),
        }
    }

    /// Buffers in `pending` the distinct items of the next documents, until it holds `share`
    /// or more; `Ok(true)` when there may be more to read, `Ok(false)` at the part's end.
    fn fill(&mut self, pending: &mut Pending, share: usize) -> Result<bool> {
        while pending.weight() < share {
            let Some((line, record)) = self.reader.next_numbered()? else {
                return Ok(false);
            };
            count_record(line, record, false, &mut self.document, pending)?;
            self.documents += 1;
            self.progress.tick();
        }
        Ok(true)
    }
}

/// A part read on a thread of its own (rounds to fill sent, filled ones received), or here.
enum PartRounds {
    Thread(SyncSender<Pending>, Receiver<Filled>),
    Here(Box<Part>),
}

/// A round's buffer, filled by a part's thread, and how the part stands after it.
struct Filled {
    pending: Pending,
    outcome: Result<bool>,
    documents: u64,
}

/// The rounds of [`count_parts`] until every part is read through (or stopped by an error);
/// what each part gives: its documents, or its error.
fn count_in_rounds(
    readers: &mut [PartRounds],
    counts: &mut DocumentCounts,
    share: usize,
    threads: usize,
) -> Vec<Result<u64>> {
    let mut rounds: Vec<Pending> = readers.iter().map(|_| Pending::default()).collect();
    // A part's outcome once it has no more to read.
    let mut ended: Vec<Option<Result<u64>>> = readers.iter().map(|_| None).collect();
    while ended.iter().any(Option::is_none) {
        // The parts on threads fill their rounds while this one fills those read here.
        for ((reader, round), end) in readers.iter_mut().zip(&mut rounds).zip(&ended) {
            if let (PartRounds::Thread(to_part, _), None) = (reader, end) {
                // A thread gone (it panicked) is found out when its round is waited for.
                let _ = to_part.send(std::mem::take(round));
            }
        }
        for ((reader, round), end) in readers.iter_mut().zip(&mut rounds).zip(&mut ended) {
            if end.is_some() {
                continue;
            }
            let outcome = match reader {
                PartRounds::Here(part) => {
                    let outcome = part.fill(round, share);
                    if !matches!(outcome, Ok(true)) {
                        std::mem::replace(&mut part.progress, Progress::new(true, "")).finish();
                    }
                    outcome.map(|more| (more, part.documents))
                }
                PartRounds::Thread(_, filled) => {
                    let Ok(Filled { pending, outcome, documents }) = filled.recv() else {
                        // The part's thread panicked: its join, at the scope's end, says why.
                        return Vec::new();
                    };
                    *round = pending;
                    outcome.map(|more| (more, documents))
                }
            };
            *end = match outcome {
                Ok((true, _)) => None,
                Ok((false, documents)) => Some(Ok(documents)),
                Err(e) => Some(Err(e)),
            };
        }
        counts.count_round(&mut rounds, threads);
    }
    ended.into_iter().map(|end| end.expect("every part ended")).collect()
}

/// How many lines end before `end`.
fn lines_before(file: &File, end: u64) -> Result<u64> {
    let mut buffer = vec![0u8; 1 << 20];
    let (mut at, mut lines) = (0, 0);
    while at < end {
        let want = (end - at).min(buffer.len() as u64) as usize;
        let n = file
            .read_at(&mut buffer[..want], at)
            .map_err(|e| Error::io("error reading standard input", e))?;
        if n == 0 {
            break;
        }
        lines += buffer[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        at += n as u64;
    }
    Ok(lines)
}

/// The offset of the first line that starts at or after `at` (`len` when none does).
fn line_start_after(file: &File, at: u64, len: u64) -> Result<u64> {
    if at == 0 {
        return Ok(0);
    }
    let mut buffer = [0u8; 64 * 1024];
    let mut from = at - 1; // a line starts at `at` when the byte before it ends one
    while from < len {
        let n = file
            .read_at(&mut buffer, from)
            .map_err(|e| Error::io("error reading standard input", e))?;
        if n == 0 {
            break;
        }
        if let Some(lf) = buffer[..n].iter().position(|&b| b == b'\n') {
            return Ok(from + lf as u64 + 1);
        }
        from += n as u64;
    }
    Ok(len)
}

/// Reads `file[at..end]` without moving a shared file position.
struct PartReader {
    file: Arc<File>,
    at: u64,
    end: u64,
}

impl Read for PartReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let left = (self.end - self.at).min(buffer.len() as u64) as usize;
        if left == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buffer[..left], self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// Counts every record of `reader` as a document; returns how many there were.
pub(crate) fn count_records(
    reader: &mut RecordReader,
    counts: &mut DocumentCounts,
    weighted: bool,
    mut progress: Progress,
) -> Result<u64> {
    let mut document = Document::default();
    let mut documents = 0u64;
    while let Some((line, record)) = reader.next_numbered()? {
        count_record(line, record, weighted, &mut document, counts)?;
        documents += 1;
        progress.tick();
    }
    progress.finish();
    Ok(documents)
}

/// Counts `record`, input line `line`, as a document: its distinct items go to `counts`.
#[inline]
fn count_record(
    line: u64,
    record: &[u8],
    weighted: bool,
    document: &mut Document,
    counts: &mut impl Distinct,
) -> Result<()> {
    let (_, payload) = split_nonempty_id(line, record)?;
    take_items(payload, weighted, line, document)?;
    document.count_into(payload, counts);
    Ok(())
}

/// Hands the items of `payload` (runs of bytes between spaces) to `document`.
#[inline]
fn take_items(payload: &[u8], weighted: bool, line: u64, document: &mut Document) -> Result<()> {
    if weighted {
        for item in items(payload) {
            document.push(payload, item_of_weighted(item, line)?);
        }
        return Ok(());
    }
    for (item, value) in numbered_items(payload) {
        match value {
            Some(value) => document.push_number(value),
            None => document.push_text(payload, item),
        }
    }
    Ok(())
}

/// The ITEM of `ITEM:WEIGHT`, once the weight is checked.
fn item_of_weighted(item: &[u8], line: u64) -> Result<&[u8]> {
    let (key, weight) = split_weight(item)
        .ok_or_else(|| Error::input(line, "weighted item has no ':WEIGHT'", item))?;
    if parse_weight(weight).is_none() {
        return Err(Error::input(line, WEIGHT_ERROR, item));
    }
    if key.is_empty() {
        // A table cannot list it (its readers refuse an empty item), nor sh-compute read it.
        return Err(Error::input(line, "weighted item has an empty ITEM", item));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn sequential(text: &[u8], capacity: usize) -> (u64, Vec<(Vec<u8>, u64)>, u64) {
        let mut counts = DocumentCounts::new(capacity);
        let mut reader = RecordReader::new(std::io::Cursor::new(text.to_vec()), "t".into());
        let n = count_records(&mut reader, &mut counts, false, Progress::new(true, "")).unwrap();
        let (items, undercount) = counts.finish(1);
        (n, items.iter().map(|(i, c)| (i.to_vec(), c)).collect(), undercount)
    }

    fn in_parts(text: &[u8], parts: usize, capacity: usize) -> (u64, Vec<(Vec<u8>, u64)>, u64) {
        in_rounds(text, parts, parts, DocumentCounts::new(capacity))
    }

    /// `text` counted into `counts` in `parts` parts, the rounds counted on `threads` threads.
    fn in_rounds(
        text: &[u8],
        parts: usize,
        threads: usize,
        mut counts: DocumentCounts,
    ) -> (u64, Vec<(Vec<u8>, u64)>, u64) {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(text).unwrap();
        let how = Counting { weighted: false, threads, quiet: true };
        let n = count_parts(Arc::new(file), text.len() as u64, parts, how, &mut counts).unwrap();
        let (items, undercount) = counts.finish(threads);
        (n, items.iter().map(|(i, c)| (i.to_vec(), c)).collect(), undercount)
    }

    /// Parts read in many rounds (batches of 1 to 50 items, shared by the parts): the exact
    /// table of one pass while everything fits; beyond the capacity, a summary within the
    /// bounds that is the same from run to run and whatever the threads counting the rounds.
    #[test]
    fn rounds_count_the_same_whatever_the_threads() {
        let mut text = Vec::new();
        let mut state = 0x853c_49e6_748f_ea9bu64;
        for doc in 0..500u64 {
            for _ in 0..doc % 23 {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                write!(text, "{} ", (state >> 33) % (1 + doc % 97)).unwrap();
            }
            if doc % 9 == 0 {
                write!(text, "t{} ", doc % 4).unwrap();
            }
            text.push(b'\n');
        }
        let whole = sequential(&text, 100_000);
        let exact: std::collections::HashMap<_, _> = whole.1.iter().cloned().collect();
        for budget in [1, 7, 50] {
            for parts in [2, 3, 5] {
                let fits = in_rounds(&text, parts, 2, DocumentCounts::with_budget(100_000, budget));
                assert_eq!(fits, whole, "budget {budget}, {parts} parts");
                let summaries: Vec<_> = [1, 2, 3, 64, 64]
                    .map(|threads| {
                        let counts = DocumentCounts::with_budget(20, budget);
                        in_rounds(&text, parts, threads, counts)
                    })
                    .into_iter()
                    .collect();
                let (n, held, undercount) = &summaries[0];
                assert_eq!(*n, whole.0);
                assert!(held.len() <= 20 && *undercount > 0);
                for (item, count) in held {
                    assert!(*count <= exact[item] && count + undercount >= exact[item]);
                }
                assert!(summaries.iter().all(|s| *s == summaries[0]), "{budget} {parts}");
            }
        }
    }

    /// Parts cut at every kind of place (inside a line, at its end, past the last line, a last
    /// line without LF, empty lines) give the table of one pass while everything fits, and a
    /// summary within the same bounds beyond.
    #[test]
    fn parts_add_up_to_the_whole() {
        let mut text = Vec::new();
        for doc in 0..300u64 {
            for item in 0..(doc % 17) {
                write!(text, "{} w{} ", (doc * item) % 41, item % 5).unwrap();
            }
            text.extend_from_slice(if doc % 50 == 49 { b"\n\n" } else { b"\n" });
        }
        text.extend_from_slice(b"7 last-line-without-lf");
        let whole = sequential(&text, 1000);
        assert_eq!(whole.2, 0, "the whole fits");
        for parts in [2, 3, 7, 64, 5000] {
            assert_eq!(in_parts(&text, parts, 1000), whole, "{parts} parts");
        }
        let (n, held, undercount) = in_parts(&text, 5, 10);
        assert_eq!(n, whole.0);
        assert!(held.len() <= 10 && undercount > 0);
        for (item, count) in held {
            let exact = whole.1.iter().find(|(i, _)| *i == item).unwrap().1;
            assert!(count <= exact && count + undercount >= exact);
        }
    }

    #[test]
    fn an_error_in_a_later_part_names_its_line_in_the_whole_file() {
        let mut text = b"1 2\n".repeat(1000);
        text.extend_from_slice(b"\tempty id\n");
        text.extend_from_slice(&b"3\n".repeat(10));
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&text).unwrap();
        let how = Counting { weighted: false, threads: 4, quiet: true };
        let mut counts = DocumentCounts::new(100);
        let error =
            count_parts(Arc::new(file), text.len() as u64, 4, how, &mut counts).unwrap_err();
        assert_eq!(error.to_string(), "line 1001: empty id: '\\tempty id'");
    }

    #[test]
    fn cuts_fall_after_line_ends() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"ab\ncd\n\nef").unwrap();
        let cut = |at| line_start_after(&file, at, 9).unwrap();
        assert_eq!([0, 1, 2, 3, 4, 6, 7, 8].map(cut), [0, 3, 3, 3, 6, 6, 7, 9]);
    }
}
