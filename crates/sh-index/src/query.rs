//! `sh-index query`: the indexed records near each input record, answered as the input comes.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use sh_core::fingerprint::Width;
use sh_core::number::push_u64;
use sh_core::records::{IdsThroughout, RecordLine};
use sh_core::{Error, Output, RecordReader, Result};

use crate::index::Index;
use crate::segment::Name;

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub k: u32,
    pub end_marker: bool,
    pub stats: bool,
}

/// Answers every record of `input`, writing to `output`. When no further line is waiting in
/// the input, what was written is flushed before the next read, which may wait.
pub fn run(index: &Index, options: &Options, input: &Path, output: &Path) -> Result<()> {
    let mut reader = RecordReader::open(input)?;
    let mut out = Output::create(output)?;
    let mut ids = IdsThroughout::new("line");
    let (mut keys, mut found, mut line_out) = (Vec::new(), Vec::new(), Vec::new());
    let mut times: Vec<f64> = Vec::new();
    while let Some((line, record)) = reader.next_numbered()? {
        let started = options.stats.then(Instant::now);
        line_out.clear();
        if let Some(RecordLine { id, fingerprint }) = RecordLine::parse(line, record)? {
            ids.check(line, id.is_some(), record)?;
            if fingerprint.width() != Width::Bits64 {
                let what = format!(
                    "a {} fingerprint, but the index holds 64-bit fingerprints",
                    fingerprint.width()
                );
                return Err(Error::input(line, what, record));
            }
            index.search(fingerprint.words()[0], options.k, &mut keys, &mut found)?;
            for &(r, distance) in &found {
                match id {
                    Some(id) => line_out.extend_from_slice(id),
                    None => push_u64(&mut line_out, line),
                }
                line_out.push(b'\t');
                match index.name(r)? {
                    Name::Line(number) => push_u64(&mut line_out, number),
                    Name::Id(bytes) => line_out.extend_from_slice(bytes),
                }
                line_out.push(b'\t');
                push_u64(&mut line_out, u64::from(distance));
                line_out.push(b'\n');
            }
            if options.end_marker {
                line_out.extend_from_slice(b".\n");
            }
        }
        out.write_all(&line_out).map_err(Error::writing)?;
        if reader.needs_read() {
            out.flush().map_err(Error::writing)?;
        }
        if let Some(started) = started {
            times.push(started.elapsed().as_secs_f64());
        }
    }
    out.finish()?;
    if options.stats {
        eprintln!("{}", latency_line(&mut times));
    }
    Ok(())
}

fn latency_line(times: &mut [f64]) -> String {
    if times.is_empty() {
        return "sh-index: 0 queries".to_string();
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize] * 1e6;
    format!(
        "sh-index: {} queries, median {:.1} µs, p99 {:.1} µs, largest {:.1} µs (search, write \
         and flush)",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    )
}
