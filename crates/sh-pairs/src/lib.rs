//! sh-pairs: every pair of records whose fingerprints are within K bits, each exactly once,
//! in a fixed order.
//!
//! Where each idea lives (this file only runs them in turn):
//!
//! | file | what |
//! |---|---|
//! | `args.rs` | the command line: flags, description, examples ([`Args`]) |
//! | `records.rs` | the input line `[ID<TAB>]FINGERPRINT` and the names of records ([`RecordLine`], [`RecordNames`]) |
//! | `tables.rs` | blocks, tables, their order and the first-table rule ([`Tables`]) |
//! | `index.rs` | records grouped by fingerprint, near groups as adjacency lists ([`Index`]) |
//! | `search.rs` | the tree walk over the tables, on threads ([`find_near_groups`]) |
//! | `split.rs` | splitting a set of fingerprints by one block (sorts, hash grouping) |
//! | `output.rs` | which pairs are written, in what order and format ([`PairWriter`]) |
//! | `cost.rs` | the default B ([`choose_blocks`]) |
//! | `mapreduce.rs` | the map and reduce steps ([`MapReduce`]); its line format in `mapreduce/map_line.rs` |

mod args;
mod cost;
mod index;
mod mapreduce;
mod output;
mod records;
mod search;
mod split;
mod tables;

use std::io::Write;
use std::time::{Duration, Instant};

use sh_core::progress::Progress;
use sh_core::{Error, RecordReader, Result};

pub use args::{Args, EXAMPLES};
pub use cost::{choose_blocks, expected_cost};
pub use index::{GroupIndex, Index, Neighbours, RecordIndex};
pub use mapreduce::MapReduce;
pub use output::{emit_pairs, Format, PairSink, PairWriter, Selection};
pub use records::{
    read_records, read_records_after, IdsThroughout, RecordLine, RecordName, RecordNames, Records,
    MAX_RECORDS,
};
pub use search::{find_near_groups, search_in_parallel, CollectPairs, OnPair, Search};
pub use tables::{binomial, Blocks, Table, Tables};

/// The sh-pairs command.
pub fn run(args: Args) -> Result<()> {
    if args.map || args.reduce || args.numbered {
        return run_map_reduce(&args);
    }
    let started = Instant::now();
    if let Some(blocks) = args.blocks {
        Tables::new(blocks, args.k)?; // a usage error before any input is read
    }
    let mut progress = Progress::new(args.quiet, "records read");
    let query = read_records(&mut args.io.open_input()?, &mut progress)?;
    let corpus = match &args.against {
        Some(path) => {
            let mut corpus = RecordReader::open(path)?;
            let earlier = query.fingerprints.len();
            let records = read_records_after(&mut corpus, &mut progress, earlier);
            Some(records.map_err(|e| e.in_file(path))?)
        }
        None => None,
    };
    let read_time = started.elapsed();
    let options = Options {
        k: args.k,
        blocks: args.blocks,
        threads: args.threads.map_or_else(default_threads, |t| t as usize),
        format: args.format,
        sparse: args.sparse,
    };
    let mut out = args.io.create_output()?;
    let summary = write_pairs(query, corpus, &options, &mut out, &mut progress)?;
    out.finish()?;
    progress.finish();
    if args.stats {
        eprintln!(
            "sh-pairs: {} records, {} distinct fingerprints, K={}, B={}, {} tables, \
             {} candidates compared, {} near pairs of distinct fingerprints, {} pairs written, \
             {:.3} s (read {:.3}, group {:.3}, search {:.3}, write {:.3})",
            summary.records,
            summary.distinct,
            options.k,
            summary.blocks,
            binomial(summary.blocks, options.k),
            summary.compared,
            summary.near_groups,
            summary.pairs,
            started.elapsed().as_secs_f64(),
            read_time.as_secs_f64(),
            summary.group_time.as_secs_f64(),
            summary.search_time.as_secs_f64(),
            summary.write_time.as_secs_f64(),
        );
    }
    Ok(())
}

/// `sh-pairs --map` and `sh-pairs --reduce`.
fn run_map_reduce(args: &Args) -> Result<()> {
    if !args.map && !args.reduce {
        return Err(Error::usage("--numbered needs --map or --reduce"));
    }
    let blocks = args
        .blocks
        .ok_or_else(|| Error::usage("--map and --reduce need --blocks (the same for both)"))?;
    let mut job = MapReduce::new(blocks, args.k)?;
    job.numbered = args.numbered;
    job.sparse = args.sparse;
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    let mut progress = Progress::new(args.quiet, "lines read");
    if args.map {
        job.map(&mut input, &mut out, &mut progress)?;
    } else {
        job.reduce(&mut input, &mut out, &mut progress)?;
    }
    out.finish()?;
    progress.finish();
    Ok(())
}

/// How to search and what to write.
#[derive(Debug, Clone)]
pub struct Options {
    /// K: pairs within this many bits.
    pub k: u32,
    /// B; `None`: chosen by the cost model.
    pub blocks: Option<u32>,
    pub threads: usize,
    pub format: Format,
    pub sparse: bool,
}

/// What a run did, for --stats.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub records: u64,
    pub distinct: usize,
    pub blocks: u32,
    pub compared: u64,
    pub near_groups: usize,
    pub pairs: u64,
    pub group_time: Duration,
    pub search_time: Duration,
    pub write_time: Duration,
}

/// Finds the pairs of `query` (or of `query` against `corpus`) and writes them to `out`. The
/// two hold at most [`MAX_RECORDS`] records together, as the readers ensure. The fingerprints
/// are dropped once grouped, to make room for the search.
pub fn write_pairs<W: Write>(
    mut query: Records,
    mut corpus: Option<Records>,
    options: &Options,
    out: &mut W,
    progress: &mut Progress,
) -> Result<Summary> {
    let phase = Instant::now();
    let queries = query.fingerprints.len();
    let records = queries + corpus.as_ref().map_or(0, |c| c.fingerprints.len());
    assert!(records <= MAX_RECORDS, "more than 2^32-1 records: read_records refuses them");
    let mut fingerprints = std::mem::take(&mut query.fingerprints);
    if let Some(corpus) = &mut corpus {
        fingerprints.append(&mut corpus.fingerprints);
        corpus.fingerprints = Vec::new();
    }
    let index = Index::build(fingerprints, options.threads);
    let blocks = options.blocks.unwrap_or_else(|| choose_blocks(index.distinct.len(), options.k));
    let tables = Tables::new(blocks, options.k)?;
    let selection = match &corpus {
        Some(_) => Selection::Against { queries: queries as RecordIndex },
        None if options.sparse => Selection::Sparse,
        None => Selection::All,
    };
    let group_time = phase.elapsed();

    progress.set_message("fingerprints searched");
    let phase = Instant::now();
    let (near, compared) = find_near_groups(&index, &tables, options.threads, selection)?;
    let neighbours = Neighbours::build(index.distinct.len(), &near);
    drop(near);
    let search_time = phase.elapsed();

    progress.set_message("pairs written");
    let phase = Instant::now();
    let corpus_names = corpus.as_ref().map(|c| &c.names);
    let queries = queries as RecordIndex;
    let mut writer =
        PairWriter::new(out, options.format, &index, &query.names, corpus_names, queries);
    let pairs = emit_pairs(&index, &neighbours, selection, &mut writer).map_err(Error::writing)?;
    Ok(Summary {
        records: records as u64,
        distinct: index.distinct.len(),
        blocks,
        compared,
        near_groups: neighbours.pair_count(),
        pairs,
        group_time,
        search_time,
        write_time: phase.elapsed(),
    })
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
