//! `sh-index query`: the indexed records near each input record, answered as the input comes.
//!
//! Lines are taken as long as more are waiting in the input (up to [`CHUNK`]), answered
//! together, on several threads when there are many, and written in input order; when no
//! further line is waiting, the output is flushed before the next read, which may wait. A
//! program that writes one line and waits gets its answer; a file is answered in large
//! batches. A bad line ends the run after the answers of the lines before it, in its chunk too.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use sh_core::fingerprint::Width;
use sh_core::number::push_u64;
use sh_core::record::without_bom;
use sh_core::records::{IdsThroughout, RecordLine};
use sh_core::{Error, Output, RecordReader, Result};

use crate::index::Index;
use crate::segment::{Name, Scratch};
use sh_core::threads::spawn_or_run;

/// At most this many queries are answered together.
const CHUNK: usize = 1 << 14;

/// Fewer queries than this are answered on one thread.
const PARALLEL_MIN: usize = 256;

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub k: u32,
    pub end_marker: bool,
    pub stats: bool,
    pub threads: usize,
}

/// The input lines of one chunk: their line numbers, fingerprints and ids (end to end). A
/// line without a fingerprint (blank, or `ID<TAB>`) is there too, to get its end marker.
#[derive(Debug, Default)]
struct Chunk {
    lines: Vec<u64>,
    fingerprints: Vec<u64>,
    /// Whether the line has no fingerprint (its fingerprint, 0, is searched but not answered).
    blank: Vec<bool>,
    id_bytes: Vec<u8>,
    /// Where each line's id is in `id_bytes`, if it has one.
    ids: Vec<Option<(usize, usize)>>,
}

impl Chunk {
    fn clear(&mut self) {
        self.lines.clear();
        self.fingerprints.clear();
        self.blank.clear();
        self.id_bytes.clear();
        self.ids.clear();
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    fn id(&self, q: usize) -> Option<&[u8]> {
        self.ids[q].map(|(start, end)| &self.id_bytes[start..end])
    }

    fn push(&mut self, line: u64, fingerprint: Option<u64>, id: Option<&[u8]>) {
        self.lines.push(line);
        self.fingerprints.push(fingerprint.unwrap_or(0));
        self.blank.push(fingerprint.is_none());
        self.ids.push(id.map(|id| {
            self.id_bytes.extend_from_slice(id);
            (self.id_bytes.len() - id.len(), self.id_bytes.len())
        }));
    }
}

/// What one thread keeps between chunks.
#[derive(Debug, Default)]
struct Worker {
    scratch: Scratch,
    found: Vec<(u32, u64, u32)>,
    out: Vec<u8>,
}

/// Answers every record of `input`, writing to `output`.
pub fn run(index: &Index, options: &Options, input: &Path, output: &Path) -> Result<()> {
    let mut reader = RecordReader::open(input)?;
    let mut out = Output::create(output)?;
    let index_files = crate::files_of(index.dir());
    let index_files = index_files.iter().map(|file| ("a file of the index", file.as_path()));
    out.refuse_files_read(std::iter::once(("the input file", input)).chain(index_files), output)?;
    let mut ids = IdsThroughout::new("line");
    let mut chunk = Chunk::default();
    let threads = options.threads.max(1);
    let mut workers: Vec<Worker> = (0..threads).map(|_| Worker::default()).collect();
    let mut stats = Stats::default();
    let run_started = Instant::now();
    loop {
        chunk.clear();
        let mut at_end = false;
        let mut started = None;
        // A bad line ends the run, but the lines before it in this chunk are answered first,
        // as they would have been had they come in a chunk of their own.
        let mut fault = None;
        loop {
            let (line, record) = match reader.next_numbered() {
                Ok(Some(next)) => next,
                Ok(None) => {
                    at_end = true;
                    break;
                }
                Err(e) => {
                    fault = Some(e);
                    break;
                }
            };
            started.get_or_insert_with(Instant::now);
            if let Err(e) = take_line(&mut chunk, &mut ids, line, record) {
                fault = Some(e);
                break;
            }
            if chunk.len() >= CHUNK || reader.needs_read() {
                break;
            }
        }
        answer(index, &chunk, options, &mut workers)?;
        for worker in &workers {
            out.write_all(&worker.out).map_err(Error::writing)?;
        }
        if let Some(fault) = fault {
            // The answers before the fault go out (to a file, nothing: it is not put in place).
            let _ = out.flush(); // the fault is the error to tell, whether or not this fails
            return Err(fault);
        }
        let written = started.map(|t| t.elapsed());
        if !at_end && reader.needs_read() {
            out.flush().map_err(Error::writing)?;
        }
        if let (Some(started), Some(written)) = (started.filter(|_| chunk.len() > 0), written) {
            stats.answers.push(started.elapsed());
            stats.unflushed.push(written);
            stats.queries += chunk.blank.iter().filter(|&&blank| !blank).count();
        }
        if at_end {
            break;
        }
    }
    out.finish()?;
    if options.stats {
        eprintln!("{}", stats.line(run_started.elapsed()));
    }
    Ok(())
}

/// Adds input line `line` (its text `record`) to `chunk`, or tells what is wrong with it.
fn take_line(chunk: &mut Chunk, ids: &mut IdsThroughout, line: u64, record: &[u8]) -> Result<()> {
    match RecordLine::parse(line, record)? {
        Some(RecordLine { id, fingerprint }) => {
            // Errors quote the line as read, without the mark the parse dropped.
            let record = without_bom(record);
            ids.check(line, id.is_some(), record)?;
            if fingerprint.width() != Width::Bits64 {
                let what = format!(
                    "a {} fingerprint, but the index holds 64-bit fingerprints",
                    fingerprint.width()
                );
                return Err(Error::input(line, what, record));
            }
            chunk.push(line, Some(fingerprint.words()[0]), id);
        }
        None => chunk.push(line, None, None),
    }
    Ok(())
}

/// Answers `chunk` into the workers' `out` buffers, to be written in worker order.
fn answer(index: &Index, chunk: &Chunk, options: &Options, workers: &mut [Worker]) -> Result<()> {
    let n = chunk.len();
    let used = if n < PARALLEL_MIN { 1 } else { workers.len() };
    let per = n.div_ceil(used).max(1);
    for worker in workers.iter_mut() {
        worker.out.clear();
    }
    if used == 1 {
        return answer_part(index, chunk, 0..n, options, &mut workers[0]);
    }
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (w, worker) in workers.iter_mut().enumerate().take(used) {
            let range = (w * per).min(n)..((w + 1) * per).min(n);
            handles.push(spawn_or_run(scope, move || {
                answer_part(index, chunk, range, options, worker)
            }));
        }
        handles.into_iter().try_for_each(|h| h.join())
    })
}

/// Answers queries `range` of `chunk` into `worker.out`.
fn answer_part(
    index: &Index,
    chunk: &Chunk,
    range: std::ops::Range<usize>,
    options: &Options,
    worker: &mut Worker,
) -> Result<()> {
    let base = range.start;
    let queries = &chunk.fingerprints[range.clone()];
    index.search_batch(queries, options.k, &mut worker.scratch, &mut worker.found)?;
    let out = &mut worker.out;
    let mut hits = worker.found.iter().peekable();
    for q in range {
        let id = chunk.id(q);
        while let Some(&(_, r, distance)) = hits.next_if(|hit| hit.0 as usize + base == q) {
            if chunk.blank[q] {
                continue;
            }
            match id {
                Some(id) => out.extend_from_slice(id),
                None => push_u64(out, chunk.lines[q]),
            }
            out.push(b'\t');
            match index.name(r)? {
                Name::Line(number) => push_u64(out, number),
                Name::Id(bytes) => out.extend_from_slice(bytes),
            }
            out.push(b'\t');
            push_u64(out, u64::from(distance));
            out.push(b'\n');
        }
        if options.end_marker {
            out.extend_from_slice(b".\n");
        }
    }
    Ok(())
}

/// What --stats tells: the time of each answer, from reading its first line to writing (and
/// flushing) it.
#[derive(Debug, Default)]
struct Stats {
    answers: Vec<Duration>,
    /// The same, up to the flush (a flush to a pipe may wake the reader before it returns).
    unflushed: Vec<Duration>,
    queries: usize,
}

/// The median, 99th percentile and largest of `times`, in µs.
fn spread(times: &mut [Duration]) -> (f64, f64, f64) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6;
    (at(0.5), at(0.99), at(1.0))
}

impl Stats {
    fn line(&mut self, total: Duration) -> String {
        if self.answers.is_empty() {
            return "sh-index: 0 queries".to_string();
        }
        let (median, p99, largest) = spread(&mut self.answers);
        let (median_unflushed, p99_unflushed, _) = spread(&mut self.unflushed);
        let seconds = total.as_secs_f64();
        format!(
            "sh-index: {} queries in {} answers (each answers the lines waiting when it began; \
             one line each when they come one at a time); time of an answer, from reading its \
             first line to writing and flushing it: median {median:.1} µs, p99 {p99:.1} µs, \
             largest {largest:.1} µs (before the flush: median {median_unflushed:.1} µs, p99 \
             {p99_unflushed:.1} µs); {seconds:.3} s in all, {:.0} queries/s",
            self.queries,
            self.answers.len(),
            self.queries as f64 / seconds.max(1e-9)
        )
    }
}
