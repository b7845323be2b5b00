//! sh-index: a persistent, incremental index of 64-bit fingerprints, answering near-duplicate
//! queries without reading the corpus again.
//!
//! | file | what |
//! |---|---|
//! | `args.rs` | the command line ([`Args`]) |
//! | `layout.rs` | how a segment's tables cut the 64 bits; the keys a query probes ([`Layout`]) |
//! | `format.rs` | the bytes of headers and the manifest (docs/INDEX.md) |
//! | `build.rs` | writing a segment ([`write_segment`]) |
//! | `segment.rs` | a mapped segment: checked reads, the search, names ([`Segment`]) |
//! | `index.rs` | the directory: manifest, segments, build/add/compact ([`Index`]) |
//! | `input.rs` | reading records into a batch |
//! | `query.rs` | `sh-index query`: answers as the queries come |

mod args;
mod build;
mod format;
mod index;
mod input;
mod layout;
mod query;
mod segment;

use std::io::Write;
use std::path::Path;

use sh_core::fingerprint::Width;
use sh_core::progress::Progress;
use sh_core::records::{Earlier, RecordNames, Records, MAX_RECORDS};
use sh_core::{Error, Output, RecordReader, Result};

pub use args::{Args, Command, EXAMPLES};
pub use build::{radix_sort, write_segment, write_segment_laid_out, Batch, Names};
pub use format::{IndexNames, Manifest, SegmentHeader, BLOCK, SUMS_PER_PAGE, VERSION};
pub use index::{is_index, names_an_index, Index};
pub use layout::{for_each_key_within, keys_within, Layout, TableSpec};
pub use segment::{Found, Name, Scratch, Segment};

/// The K of an index built without -k: sh-pairs' default for 64-bit fingerprints.
pub const DEFAULT_K: u32 = 6;

/// The sh-index command.
pub fn run(args: Args) -> Result<()> {
    let mut progress = Progress::new(args.quiet, "records read");
    match args.command {
        Command::Build { output, k, input } => {
            let made = index::make_dir(&output)?;
            index::check_ours(&output)?;
            let lock = index::lock(&output)?;
            let fresh = !is_index(&output);
            let built = build(&output, k.unwrap_or(DEFAULT_K), &input, &mut progress);
            if built.is_err() && fresh {
                // Nothing left of a failed build where there was no index: the directory as
                // it was, or none if the build made it.
                index::remove_failed_build(&output, lock, made);
            }
            built?;
        }
        Command::Add { index, input } => {
            Index::open(&index)?;
            let _lock = index::lock(&index)?;
            let index = Index::open(&index)?;
            let m = &index.manifest;
            let mut reader = RecordReader::open(&input)?;
            let read = input::read_batch(&mut reader, &mut progress, m.names, m.records, m.lines)?;
            progress.set_message("records indexed");
            index::add(&index, read.batch, read.names, read.lines)?;
        }
        Command::Compact { index } => {
            Index::open(&index)?;
            let _lock = index::lock(&index)?;
            index::compact(&Index::open(&index)?)?;
        }
        Command::Query { index, k, end_marker, io, stats, threads } => {
            refuse_output_inside(&index, &io.output)?;
            let index = Index::open(&index)?;
            let k = match k {
                Some(k) if k > index.manifest.k => {
                    return Err(Error::usage(format!(
                        "-k {k} is above the index's K, {} (rebuild it with a larger -k)",
                        index.manifest.k
                    )))
                }
                Some(k) => k,
                None => index.manifest.k,
            };
            let threads = threads.map_or_else(sh_core::threads::all_cores, |t| t as usize);
            let options = query::Options { k, end_marker, stats, threads };
            query::run(&index, &options, &io.input, &io.output)?;
        }
        Command::Stats { index, verify } => {
            let index = Index::open(&index)?;
            if verify {
                index.check_all()?;
            }
            // Through Output, as every command's output: a standard output closed at start
            // is an error, not 10 lines into the /dev/null the runtime puts in its place.
            let mut out = Output::create(Path::new("-"))?;
            write_stats(&index, &mut out).map_err(Error::writing)?;
            out.finish()?;
        }
    }
    progress.finish();
    Ok(())
}

/// The files of the index directory `index` that a query reads, its manifest and segments,
/// for the check that an output written in place is none of them (its lock and any other file
/// are not read): none when it cannot be listed (opening the index reports that).
pub fn files_of(index: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(index) else { return Vec::new() };
    let read = |name: &str| name == index::MANIFEST || index::is_segment_name(name);
    let entries = entries.filter_map(|entry| entry.ok());
    entries.filter(|entry| entry.file_name().to_str().is_some_and(read)).map(|e| e.path()).collect()
}

/// An error when `output` names a file in the index directory `index` (through links too):
/// the answers would replace one of its files, or leave a stranger among them. For `sh-index
/// query` and `sh-pairs --against INDEX`.
pub fn refuse_output_inside(index: &Path, output: &Path) -> Result<()> {
    // `-o DIR/..` and the like name a directory, which opening the output reports.
    if sh_core::is_std_stream(output) || output.file_name().is_none() {
        return Ok(());
    }
    let Ok(index_dir) = index.canonicalize() else {
        return Ok(()); // opening the index reports it
    };
    let parent = |path: &Path| match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok(),
        _ => Path::new(".").canonicalize().ok(),
    };
    let named = parent(output);
    let target = output.canonicalize().ok().and_then(|t| t.parent().map(Path::to_path_buf));
    if named.as_deref() == Some(&*index_dir) || target.as_deref() == Some(&*index_dir) {
        return Err(Error::usage(format!(
            "-o '{}' is inside the index '{}': the answers would replace or join its files",
            output.display(),
            index.display()
        )));
    }
    Ok(())
}

/// Builds the index in `dir` from `input` (the writer's lock held).
fn build(dir: &Path, k: u32, input: &Path, progress: &mut Progress) -> Result<()> {
    let mut reader = RecordReader::open(input)?;
    let read = input::read_batch(&mut reader, progress, IndexNames::Unknown, 0, 0)?;
    progress.set_message("records indexed");
    index::create(dir, k, read.batch, read.names, read.lines)
}

fn write_stats(index: &Index, out: &mut impl Write) -> std::io::Result<()> {
    let m = &index.manifest;
    let records = m.records.max(1) as f64;
    let names = match m.names {
        IndexNames::Unknown => "none yet",
        IndexNames::Lines => "line numbers",
        IndexNames::Ids => "ids",
    };
    writeln!(out, "records\t{}", m.records)?;
    writeln!(out, "segments\t{}", m.segments.len())?;
    writeln!(out, "k\t{}", m.k)?;
    writeln!(out, "names\t{names}")?;
    writeln!(out, "lines read\t{}", m.lines)?;
    let (mut search_bytes, mut name_bytes, mut total) = (0u64, 0u64, 0u64);
    for segment in &index.segments {
        let h = &segment.header;
        name_bytes += h.names_len;
        total += segment.file_len();
        search_bytes += segment.file_len() - h.names_len;
    }
    writeln!(out, "bytes\t{total}")?;
    writeln!(out, "bytes per record\t{:.2}", total as f64 / records)?;
    writeln!(out, "bytes per record without names\t{:.2}", search_bytes as f64 / records)?;
    writeln!(out, "bytes per record of names\t{:.2}", name_bytes as f64 / records)?;
    for segment in &index.segments {
        let h = &segment.header;
        let keys: Vec<String> = h.tables.iter().map(|t| t.spec.key_bits.to_string()).collect();
        let name = segment.path().file_name().unwrap_or_default().to_string_lossy();
        writeln!(
            out,
            "segment\t{name}\t{} records\t{} distinct\tk {}\t{} tables\tkeys {}\tdirectory {} bits\t{} bytes",
            h.records,
            h.distinct,
            h.k,
            h.tables.len(),
            keys.join(","),
            h.tables[0].spec.dir_bits,
            segment.file_len()
        )?;
    }
    Ok(())
}

/// The records of the index in `dir` as sh-pairs reads a corpus: `earlier` the records before
/// them in the run (the query), which were read as following [`Earlier::index_of_64_bits`], so
/// that a line of another width was an error at its line.
pub fn read_as_records(dir: &Path, earlier: Earlier) -> Result<Records> {
    debug_assert!(
        earlier.width.is_none_or(|w| w == Width::Bits64),
        "the query was read as following an index's 64-bit fingerprints"
    );
    let index = Index::open(dir)?;
    let (fingerprints, names) = index.records()?;
    if earlier.records + fingerprints.len() > MAX_RECORDS {
        return Err(Error::usage("more than 2^32-1 records in one run"));
    }
    let names = match names {
        Names::ImplicitLines => RecordNames::LineNumbers { lines: None },
        Names::Lines(lines) => RecordNames::LineNumbers { lines: Some(lines) },
        Names::Ids { bytes, ends } => {
            RecordNames::Named { bytes, ends: ends.into_iter().map(|e| e as usize).collect() }
        }
    };
    let width = (!fingerprints.is_empty()).then_some(Width::Bits64);
    Ok(Records { fingerprints, width, names })
}
