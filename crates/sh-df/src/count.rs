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

use crate::document::Document;
use crate::partitions::DocumentCounts;
use sh_core::threads::spawn_or_run;

/// A file smaller than this per thread is read by one thread: starting threads and merging
/// tables would cost more than they save.
const MIN_PART_BYTES: u64 = 16 << 20;

/// What counting needs to know.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counting {
    pub capacity: usize,
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

/// Counts `parts` parts of the file, cut after line ends, on as many threads.
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
    let first_table = &mut *counts;
    let results: Vec<Result<(u64, Option<DocumentCounts>)>> = std::thread::scope(|scope| {
        let mut first = Some(first_table);
        let handles: Vec<_> = cuts
            .windows(2)
            .map(|range| {
                let source = PartReader { file: Arc::clone(&file), at: range[0], end: range[1] };
                let mine = first.take();
                spawn_or_run(scope, move || {
                    let mut reader = RecordReader::new(source, "standard input".into());
                    // Progress is shown by the first part, which starts at the beginning.
                    let progress = Progress::new(how.quiet || mine.is_none(), "documents counted");
                    // Each part counts what it has buffered on its own thread, so that
                    // adding the tables up finds nothing left to count.
                    match mine {
                        Some(counts) => {
                            count_records(&mut reader, counts, false, progress).map(|n| {
                                counts.flush();
                                (n, None)
                            })
                        }
                        None => {
                            let mut own = DocumentCounts::new(how.capacity);
                            count_records(&mut reader, &mut own, false, progress).map(|n| {
                                own.flush();
                                (n, Some(own))
                            })
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    let mut outcomes = Vec::with_capacity(results.len());
    for (result, &start) in results.into_iter().zip(&cuts) {
        match result {
            Ok(outcome) => outcomes.push(outcome),
            // A part numbers its lines from 1: the lines of the parts before it come first.
            Err(Error::Input { line, what, text }) => {
                let before = lines_before(&file, start)?;
                return Err(Error::Input { line: line + before, what, text });
            }
            Err(other) => return Err(other),
        }
    }
    let documents = outcomes.iter().map(|(n, _)| n).sum();
    // The first part's table is `counts` itself; the others are added to it in file order.
    for (_, own) in outcomes.into_iter().skip(1) {
        counts.absorb(own.expect("a later part has a table of its own"), how.threads);
    }
    Ok(documents)
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
        let (_, payload) = split_nonempty_id(line, record)?;
        documents += 1;
        take_items(payload, weighted, line, &mut document)?;
        document.count_into(payload, counts);
        progress.tick();
    }
    progress.finish();
    Ok(documents)
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
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(text).unwrap();
        let how = Counting { capacity, weighted: false, threads: parts, quiet: true };
        let mut counts = DocumentCounts::new(capacity);
        let n = count_parts(Arc::new(file), text.len() as u64, parts, how, &mut counts).unwrap();
        let (items, undercount) = counts.finish(parts);
        (n, items.iter().map(|(i, c)| (i.to_vec(), c)).collect(), undercount)
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
        let how = Counting { capacity: 100, weighted: false, threads: 4, quiet: true };
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
