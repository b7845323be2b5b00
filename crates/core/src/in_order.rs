//! Per-document work on several threads with the output in input order: the input is read in
//! chunks of lines, each chunk handed whole to the next free thread, and the chunks written in
//! the order they were read. A fixed number of chunks circulates between the reader, the
//! threads and the writer, so memory stays bounded whatever the input: the reader waits for the
//! writer to give a chunk back before it reads more.
//!
//! A regular file is not read by the reader: a chunk is then a block of the file's lines
//! ([`FileBlocks`]), which the thread that does its documents finds in a map of the file (or
//! reads at its position), so that no one thread reads every line for the others. The writer
//! lets the map's pages go from the process as it writes the blocks in order, so that its
//! resident memory does not grow to the file's size (without the map, copying the blocks out
//! of the system's cache took a sixth of sh-weight's time on two threads).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::thread::ScopedJoinHandle;

use crate::io::read_error;
use crate::progress::Progress;
use crate::records::FileBlocks;
use crate::threads::spawn_with;
use crate::{block_lines, Error, Output, RecordReader, Result};

/// Bytes of input per chunk, by default: a few milliseconds of work, so that handing a chunk
/// over costs nothing by comparison, while the chunks in memory stay small.
pub const CHUNK_BYTES: u32 = 256 * 1024;

/// Chunks in circulation per thread: enough that a thread finds work while the writer waits
/// for a slow chunk before it.
const CHUNKS_PER_THREAD: usize = 4;

/// How the work is spread.
#[derive(Debug, Clone, Copy)]
pub struct Spread {
    /// Threads doing the per-line work (besides the reader and the writer).
    pub threads: usize,
    /// A chunk ends after the line that brings it to this many bytes (line endings counted).
    pub chunk_bytes: usize,
}

/// Lines read together, then the output of their documents.
#[derive(Debug, Default)]
struct Chunk {
    /// Its place in the input: chunks are written in this order.
    number: u64,
    /// The line number of its first line.
    first_line: u64,
    /// The lines, without their endings, one after another; `ends[i]` is where line i ends.
    lines: Vec<u8>,
    ends: Vec<usize>,
    /// Reading failed after these lines.
    read_error: Option<Error>,
    /// The output lines of the documents done, in order.
    out: Vec<u8>,
    documents: u64,
    /// The first error, after which no document of the chunk was done.
    error: Option<Error>,
    /// The chunk is block `number` of the input file, read by the thread that does it.
    block: bool,
    /// Its lines are numbered from 1 within it, and `lines_seen` of them were taken: the
    /// writer makes an error's line the input's (a chunk of a file, whose lines before it no
    /// one counted).
    relative: bool,
    lines_seen: u64,
}

impl Chunk {
    fn clear(&mut self, number: u64, first_line: u64, chunk_bytes: usize) {
        self.number = number;
        self.first_line = first_line;
        // A long line made the buffers large; they need not stay so.
        for buffer in [&mut self.lines, &mut self.out] {
            buffer.clear();
            buffer.shrink_to(2 * chunk_bytes);
        }
        self.ends.clear();
        self.read_error = None;
        self.documents = 0;
        self.error = None;
        self.block = false;
        self.relative = false;
        self.lines_seen = 0;
    }

    fn size(&self) -> usize {
        self.lines.len() + self.ends.len()
    }

    fn push(&mut self, line: &[u8]) {
        self.lines.extend_from_slice(line);
        self.ends.push(self.lines.len());
    }

    /// Does every line's document, stopping at the first error.
    fn work(&mut self, document: &mut impl FnMut(u64, &[u8], &mut Vec<u8>) -> Result<()>) {
        let mut start = 0;
        for (n, &end) in self.ends.iter().enumerate() {
            let kept = self.out.len();
            if let Err(e) =
                document(self.first_line + n as u64, &self.lines[start..end], &mut self.out)
            {
                self.out.truncate(kept);
                self.error = Some(e);
                return;
            }
            self.documents += 1;
            start = end;
        }
        if self.relative {
            self.lines_seen = self.ends.len() as u64;
        }
        self.error = self.read_error.take();
    }

    /// Does the documents of the file's block `number` (at most as in [`Chunk::work`]), found
    /// in the map of `blocks` or read into `lines`; a line's number is its place in the block.
    fn work_block(
        &mut self,
        blocks: &FileBlocks,
        name: &str,
        document: &mut impl FnMut(u64, &[u8], &mut Vec<u8>) -> Result<()>,
    ) {
        let index = usize::try_from(self.number).expect("a block's number is a usize");
        let text = match blocks.mapped(index) {
            Some(text) => text,
            None => match blocks.read(index, &mut self.lines) {
                Ok(skip) => &self.lines[skip..],
                Err(e) => {
                    self.error = Some(read_error(name, e));
                    return;
                }
            },
        };
        for line in block_lines(text) {
            self.lines_seen += 1;
            let kept = self.out.len();
            if let Err(e) = document(self.lines_seen, line, &mut self.out) {
                self.out.truncate(kept);
                self.error = Some(e);
                return;
            }
            self.documents += 1;
        }
    }
}

/// `error`, of a line `before` lines into the input, made to name the line in the input.
fn after_lines(error: Error, before: u64) -> Error {
    match error {
        Error::Input { line, what, text } => Error::Input { line: line + before, what, text },
        other => other,
    }
}

/// Reads every line of `input`, hands it to `document` (with its line number and a buffer for
/// its output line) on one of `spread.threads` threads, and writes the output lines to the
/// output that `open_output` creates, in input order. `new_worker` makes each thread's
/// `document`. At the first error (bad input, reading, writing) the output lines of the lines
/// before it are written and the error returned, as a run on one thread would do. With one
/// thread, or when the system starts none, the calling thread does it all; when it starts
/// fewer than asked, the work is spread over those.
///
/// The line number is for errors only: `document` is to make it the `line` of an
/// [`Error::Input`], and nothing else. A regular file read in blocks numbers a line within its
/// block, and the error is made to name the line of the input when it is returned.
pub fn map_lines_in_order<D, N>(
    input: &mut RecordReader,
    open_output: impl FnOnce() -> Result<Output> + Send,
    progress: Progress,
    spread: Spread,
    new_worker: N,
) -> Result<()>
where
    N: Fn() -> D + Sync,
    D: FnMut(u64, &[u8], &mut Vec<u8>) -> Result<()>,
{
    map_lines_in_order_after(input, open_output, |_| {}, progress, spread, new_worker)
}

/// [`map_lines_in_order`], `before_reading` given the input once the output is open and
/// before any line is read: to look at the input's start ([`RecordReader::peek`]) without
/// keeping an output that cannot be made untold while the input is waited for.
pub fn map_lines_in_order_after<D, N>(
    input: &mut RecordReader,
    open_output: impl FnOnce() -> Result<Output> + Send,
    before_reading: impl FnOnce(&mut RecordReader),
    progress: Progress,
    spread: Spread,
    new_worker: N,
) -> Result<()>
where
    N: Fn() -> D + Sync,
    D: FnMut(u64, &[u8], &mut Vec<u8>) -> Result<()>,
{
    if spread.threads <= 1 {
        return map_lines_here(input, open_output, before_reading, progress, new_worker());
    }
    let threads = spread.threads;
    let (free, free_chunks) = channel();
    for _ in 0..threads * CHUNKS_PER_THREAD {
        let _ = free.send(Chunk::default());
    }
    let (to_do, chunks_to_do) = channel::<Chunk>();
    let chunks_to_do = Mutex::new(chunks_to_do);
    let (done, done_chunks) = channel::<Chunk>();
    // The writer says when the output is open: nothing is read before, so that an output that
    // cannot be made is told at once, not when a pipe kept open ends (the reader waits on it).
    let (opened, output_opened) = channel::<()>();
    // The input's blocks, when it is a regular file: set before the first block is sent.
    let file: OnceLock<FileBlocks> = OnceLock::new();
    let (file, name) = (&file, input.name().to_string());
    let name = name.as_str();
    std::thread::scope(|scope| {
        // As many threads as the system starts, down to none (the calling thread then does it
        // all, as with one).
        let mut workers = Vec::with_capacity(threads);
        for _ in 0..threads {
            let (chunks_to_do, done, new_worker) = (&chunks_to_do, done.clone(), &new_worker);
            let work = move |done| work(chunks_to_do, &done, file, name, new_worker());
            match spawn_with(scope, done, work) {
                Ok(worker) => workers.push(worker),
                Err(_) => break,
            }
        }
        drop(done);
        let writer = if workers.is_empty() {
            Err((open_output, progress))
        } else {
            let writing = (done_chunks, free, open_output, progress, opened);
            spawn_with(scope, writing, |(done_chunks, free, open_output, progress, opened)| {
                write_in_order(done_chunks, free, open_output, progress, opened, file)
            })
            .map_err(|(_, _, open_output, progress, _)| (open_output, progress))
        };
        let writer = match writer {
            Ok(writer) => writer,
            Err((open_output, progress)) => {
                drop(to_do); // the threads started end, finding no work
                join(workers);
                return map_lines_here(input, open_output, before_reading, progress, new_worker());
            }
        };
        if output_opened.recv().is_ok() {
            before_reading(input);
            let chunk_bytes = spread.chunk_bytes.max(1);
            match input.take_file() {
                Some((handle, at)) => {
                    read_file(handle, at, file, name, &free_chunks, to_do, chunk_bytes)
                }
                None => {
                    read_chunks(input, &free_chunks, &to_do, ChunkLines::Absolute, chunk_bytes);
                    drop(to_do); // the input is all read: the threads end
                }
            }
        } else {
            drop(to_do); // the output could not be made: the writer returns why
        }
        let written = writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        join(workers);
        written
    })
}

/// Joins the threads: not only finished, gone, their thread-local storage freed, when the call
/// returns (a leak checker looks right after, in the fuzz target).
fn join(workers: Vec<ScopedJoinHandle<'_, ()>>) {
    for worker in workers {
        worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    }
}

/// One thread does it all, reading, the per-line work and writing: the output and errors of
/// [`map_lines_in_order`], without chunks or threads.
fn map_lines_here<D>(
    input: &mut RecordReader,
    open_output: impl FnOnce() -> Result<Output>,
    before_reading: impl FnOnce(&mut RecordReader),
    mut progress: Progress,
    mut document: D,
) -> Result<()>
where
    D: FnMut(u64, &[u8], &mut Vec<u8>) -> Result<()>,
{
    let written = (|| {
        let mut output = open_output()?;
        before_reading(input);
        let mut line_out = Vec::new();
        while let Some((line, record)) = input.next_numbered()? {
            line_out.clear();
            document(line, record, &mut line_out)?;
            output.write_all(&line_out).map_err(Error::writing)?;
            progress.tick();
        }
        Ok(output)
    })();
    // The bar goes away before an error message is printed.
    progress.finish();
    written?.finish()
}

/// How [`read_chunks`] numbers its chunks and their lines.
#[derive(Debug, Clone, Copy)]
enum ChunkLines {
    /// From chunk 0, the lines by their numbers in the input.
    Absolute,
    /// From chunk `0`, each chunk's lines from 1 (after chunks of a file whose lines no one
    /// counted).
    Relative(u64),
}

/// Fills the chunks that come back free with lines and sends them to the threads, until the
/// input ends, reading fails (the error goes with the last chunk) or the writer stops.
fn read_chunks(
    input: &mut RecordReader,
    free_chunks: &Receiver<Chunk>,
    to_do: &Sender<Chunk>,
    lines: ChunkLines,
    chunk_bytes: usize,
) {
    let mut number = match lines {
        ChunkLines::Absolute => 0,
        ChunkLines::Relative(first) => first,
    };
    loop {
        let Ok(mut chunk) = free_chunks.recv() else {
            return; // the writer stopped: an error, written or about to be
        };
        match lines {
            ChunkLines::Absolute => chunk.clear(number, input.line() + 1, chunk_bytes),
            ChunkLines::Relative(_) => {
                chunk.clear(number, 1, chunk_bytes);
                chunk.relative = true;
            }
        }
        let mut ended = false;
        while chunk.size() < chunk_bytes {
            match input.next_record() {
                Ok(Some(line)) => chunk.push(line),
                Ok(None) => {
                    ended = true;
                    break;
                }
                Err(e) => {
                    chunk.read_error = Some(e);
                    ended = true;
                    break;
                }
            }
        }
        if (!chunk.ends.is_empty() || chunk.read_error.is_some()) && to_do.send(chunk).is_err() {
            return;
        }
        if ended {
            return;
        }
        number += 1;
    }
}

/// Reads a regular file (`handle`, from `at`): its whole lines as they stand, up to the last
/// LF, in blocks that the threads read themselves ([`send_blocks`]); then the rest (a last line
/// without LF, and whatever was added since) line by line on this thread, as from a pipe, so
/// that a file that grows while it is read loses nothing and splits no line. The position of
/// `handle` (shared with standard input when it is redirected) ends where reading ended.
fn read_file(
    handle: std::fs::File,
    at: u64,
    file: &OnceLock<FileBlocks>,
    name: &str,
    free_chunks: &Receiver<Chunk>,
    to_do: Sender<Chunk>,
    chunk_bytes: usize,
) {
    let whole_lines =
        match handle.metadata().and_then(|meta| after_last_lf(&handle, at, meta.len())) {
            Ok(end) => end,
            Err(e) => return send_read_error(0, read_error(name, e), free_chunks, &to_do),
        };
    let mut rest = handle;
    let mut number = 0;
    if whole_lines > at {
        let Ok(copy) = rest.try_clone() else {
            // No second handle: the file is read line by line from where it stands.
            let mut input = RecordReader::new(rest, name.to_string());
            return read_chunks(
                &mut input,
                free_chunks,
                &to_do,
                ChunkLines::Relative(0),
                chunk_bytes,
            );
        };
        let blocks =
            file.get_or_init(|| FileBlocks::lines_until(copy, at, whole_lines, chunk_bytes));
        match send_blocks(blocks, free_chunks, &to_do, chunk_bytes) {
            Some(sent) => number = sent,
            None => return, // the writer stopped
        }
        if let Err(e) = std::io::Seek::seek(&mut rest, std::io::SeekFrom::Start(whole_lines)) {
            return send_read_error(number, read_error(name, e), free_chunks, &to_do);
        }
    }
    let mut input = RecordReader::new(rest, name.to_string());
    read_chunks(&mut input, free_chunks, &to_do, ChunkLines::Relative(number), chunk_bytes);
}

/// The position after the last LF of `file` between `at` and `len` (`at` when there is none, or
/// when the file is shorter now).
fn after_last_lf(file: &std::fs::File, at: u64, len: u64) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut end = len;
    while end > at {
        let from = end.saturating_sub(buffer.len() as u64).max(at);
        let piece = &mut buffer[..(end - from) as usize];
        file.read_exact_at(piece, from).or_else(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => {
                piece.fill(0); // shorter now: no LF taken from it
                Ok(())
            }
            _ => Err(e),
        })?;
        if let Some(lf) = memchr::memrchr(b'\n', piece) {
            return Ok(from + lf as u64 + 1);
        }
        end = from;
    }
    Ok(at)
}

/// Sends the blocks to the threads, block `i` as chunk `i`, as chunks come back free; how many
/// were sent, or `None` when the writer stopped.
fn send_blocks(
    blocks: &FileBlocks,
    free_chunks: &Receiver<Chunk>,
    to_do: &Sender<Chunk>,
    chunk_bytes: usize,
) -> Option<u64> {
    let count = blocks.count() as u64;
    for number in 0..count {
        let Ok(mut chunk) = free_chunks.recv() else {
            return None; // the writer stopped: an error, written or about to be
        };
        chunk.clear(number, 0, chunk_bytes);
        chunk.block = true;
        chunk.relative = true;
        to_do.send(chunk).ok()?;
    }
    Some(count)
}

/// Sends `error` as chunk `number`, read after the chunks before it.
fn send_read_error(
    number: u64,
    error: Error,
    free_chunks: &Receiver<Chunk>,
    to_do: &Sender<Chunk>,
) {
    if let Ok(mut chunk) = free_chunks.recv() {
        chunk.clear(number, 0, 0);
        chunk.read_error = Some(error);
        let _ = to_do.send(chunk);
    }
}

/// A thread's loop: takes the next chunk, does its documents, passes it to the writer.
fn work<D>(
    chunks_to_do: &Mutex<Receiver<Chunk>>,
    done: &Sender<Chunk>,
    file: &OnceLock<FileBlocks>,
    name: &str,
    mut document: D,
) where
    D: FnMut(u64, &[u8], &mut Vec<u8>) -> Result<()>,
{
    loop {
        let next = chunks_to_do.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(mut chunk) = next else {
            return; // the input is all read
        };
        if chunk.block {
            let blocks = file.get().expect("the blocks are set before the first is sent");
            chunk.work_block(blocks, name, &mut document);
        } else {
            chunk.work(&mut document);
        }
        if done.send(chunk).is_err() {
            return; // the writer stopped
        }
    }
}

/// Creates the output (and says so on `opened`, dropped unsent when it fails), then writes the
/// chunks in input order as they come done, giving each back to the reader once written; stops
/// at the first error. Once a block of the file is written, the pages of the file's map before
/// the next one go from the process.
fn write_in_order(
    done_chunks: Receiver<Chunk>,
    free: Sender<Chunk>,
    open_output: impl FnOnce() -> Result<Output>,
    mut progress: Progress,
    opened: Sender<()>,
    file: &OnceLock<FileBlocks>,
) -> Result<()> {
    let written = (|| {
        let mut output = open_output()?;
        // The reader starts now (when the output fails, `opened` goes unsent, and is dropped).
        let _ = opened.send(());
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        // The lines of the blocks written so far (of a file read in blocks), and where the
        // pages of the file's map were let go up to.
        let mut lines_before = 0;
        let mut released = 0;
        for chunk in done_chunks {
            waiting.insert(chunk.number, chunk);
            while let Some(mut chunk) = waiting.remove(&next) {
                output.write_all(&chunk.out).map_err(Error::writing)?;
                (0..chunk.documents).for_each(|_| progress.tick());
                if let Some(e) = chunk.error.take() {
                    return Err(if chunk.relative { after_lines(e, lines_before) } else { e });
                }
                lines_before += chunk.lines_seen;
                if let (true, Some(blocks)) = (chunk.block, file.get()) {
                    let after = usize::try_from(chunk.number + 1).unwrap_or(usize::MAX);
                    released = blocks.release_before(after, released);
                }
                next += 1;
                let _ = free.send(chunk);
            }
        }
        Ok(output)
    })();
    // The bar goes away before an error message is printed.
    progress.finish();
    written?.finish()
}

#[cfg(test)]
mod tests;
