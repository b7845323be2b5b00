//! sh-pairs: every pair of records whose fingerprints are within K bits, each exactly once,
//! in a fixed order.
//!
//! Where each idea lives (this file only runs them in turn):
//!
//! | file | what |
//! |---|---|
//! | `args.rs` | the command line: flags, description, examples ([`Args`]) |
//! | `tables.rs` | blocks, tables, their order and the first-table rule ([`Tables`]) |
//! | `index.rs` | records grouped by fingerprint ([`Index`]): dealt into buckets and sorted in `index/buckets.rs`; near groups as adjacency lists, `index/neighbours.rs` ([`Neighbours`]); records as a set of bits, `index/record_set.rs` |
//! | `search.rs` | the tree walk over the tables ([`Search`]); on threads, the parts of each first block dealt out, in `search/parallel.rs` ([`find_near_groups`]), block 0's runs and the later splits' counts read in one pass in `search/parallel/runs.rs`; the last block of a table in one pass, `search/chains.rs`; a small set's pairs all against all, eight at a time where the processor can, `search/screen.rs` |
//! | `wide.rs` | the rule of any width; wide fingerprints searched word by word, the total checked ([`find_near`]) |
//! | `split.rs` | splitting a set of fingerprints by one block (sorts, hash grouping); a large set on threads by a counting sort, `split/counting.rs` |
//! | `output.rs` | which pairs are written, in what order and format ([`PairWriter`]); on threads, chunk by chunk, in `output/parallel.rs` ([`emit_pairs_on_threads`]) |
//! | `summary.rs` | what a run did, for --stats ([`Summary`]) |
//! | `cost.rs` | the default B ([`choose_blocks`]) |
//! | `mapreduce.rs` | the map/reduce steps ([`MapReduce`]) and the map; the reduce in `mapreduce/reduce.rs`, the map's line format in `mapreduce/map_line.rs` |

mod args;
mod cost;
mod index;
mod mapreduce;
mod output;
mod search;
mod split;
mod summary;
mod tables;
mod wide;

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use sh_core::fingerprint::Width;
use sh_core::progress::Progress;
use sh_core::{Error, RecordReader, Result};

pub use args::{Args, EXAMPLES};
pub use cost::{choose_blocks, expected_cost};
pub use index::{GroupIndex, Index, Neighbours, RecordIndex};
pub use mapreduce::MapReduce;
pub use output::{
    emit_pairs, emit_pairs_on_threads, Format, PairLines, PairSink, PairWriter, Selection,
};
pub use search::{find_near_groups, search_in_parallel, CollectPairs, OnPair, Search};
pub use sh_core::records::{
    read_records, read_records_after, read_records_on, Earlier, IdsThroughout, RecordLine,
    RecordName, RecordNames, Records, MAX_RECORDS,
};
pub use summary::Summary;
pub use tables::{binomial, Blocks, Table, Tables};
pub use wide::{check_k, default_rule, find_near, rule_for, WideRule, WideSummary};

/// With at least this many records in a pair, the pairs are written on threads.
const WRITE_ON_THREADS_FROM: usize = 1 << 14;

/// The sh-pairs command.
pub fn run(args: Args) -> Result<()> {
    if args.map || args.reduce || args.numbered {
        return run_map_reduce(&args);
    }
    let started = Instant::now();
    if let Some(blocks) = args.blocks {
        // A usage error before any input is read when no width could use B: the widest has
        // the smallest k per word.
        let k = args.k.unwrap_or(0);
        let widest = WideRule::new(Width::Bits256.words(), k, args.word_k);
        Tables::new(blocks, widest.with_word_bytes(args.word_bytes).layout_k())?;
    }
    if let Some(corpus) = &args.against {
        let either = "the corpus or the queries";
        sh_core::cli::refuse_stdin_twice("--against", corpus, &args.io.input, either)?;
    }
    let threads = args.threads.map_or_else(sh_core::threads::all_cores, |t| t as usize);
    let index = args.against.as_deref().filter(|path| sh_index::names_an_index(path));
    if let Some(index) = index {
        sh_index::refuse_output_inside(index, &args.io.output)?;
    }
    let mut progress = Progress::new(args.quiet, "records read");
    let mut input = args.io.open_input()?;
    // An index holds 64-bit fingerprints (even an empty one): a query line of another width
    // is an error at its line.
    let before = if index.is_some() { Earlier::index_of_64_bits() } else { Earlier::default() };
    let query = read_records_on(&mut input, &mut progress, before, threads)?;
    let corpus = match (index, &args.against) {
        (Some(index), _) => Some(sh_index::read_as_records(index, Earlier::of(&query))?),
        (None, Some(path)) => {
            let mut corpus = RecordReader::open(path)?;
            let earlier = Earlier::of(&query);
            let records = read_records_on(&mut corpus, &mut progress, earlier, threads);
            Some(records.map_err(|e| e.in_file(path))?)
        }
        (None, None) => None,
    };
    let read_time = started.elapsed();
    let options = Options {
        k: args.k,
        word_k: args.word_k,
        word_bytes: args.word_bytes,
        blocks: args.blocks,
        threads,
        format: args.format,
        sparse: args.sparse,
    };
    // The corpus, or each file of the index.
    let index_files = index.map(sh_index::files_of).unwrap_or_default();
    let also_read: Vec<(&str, &Path)> = match (index, args.against.as_deref()) {
        (Some(_), _) => {
            index_files.iter().map(|f| ("a file of the index of --against", f.as_path())).collect()
        }
        (None, Some(corpus)) => vec![("the corpus of --against", corpus)],
        (None, None) => Vec::new(),
    };
    let mut out = args.io.create_output_reading(also_read)?;
    let summary = write_pairs(query, corpus, &options, &mut out, &mut progress)?;
    out.finish()?;
    progress.finish();
    if args.stats {
        eprintln!("{}", summary.stats_line(started.elapsed(), read_time));
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
    let mut job = MapReduce::with_rule(blocks, args.k, args.word_k, args.word_bytes)?;
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
    /// K: pairs within this many bits; `None`: the default for the fingerprints' width.
    pub k: Option<u32>,
    /// Wide fingerprints: find only pairs with some word within this many bits.
    pub word_k: Option<u32>,
    /// --word-bytes.
    pub word_bytes: Option<u32>,
    /// B; `None`: chosen by the cost model.
    pub blocks: Option<u32>,
    pub threads: usize,
    pub format: Format,
    pub sparse: bool,
}

/// Finds the pairs of `query` (or of `query` against `corpus`, of the same width) and writes
/// them to `out`. The two hold at most [`MAX_RECORDS`] records together, as the readers ensure.
/// The fingerprints are dropped once grouped, to make room for the search.
pub fn write_pairs<W: Write>(
    mut query: Records,
    mut corpus: Option<Records>,
    options: &Options,
    out: &mut W,
    progress: &mut Progress,
) -> Result<Summary> {
    let phase = Instant::now();
    // Without records the width is unknown, and there is nothing to search.
    let Some(width) = query.width.or(corpus.as_ref().and_then(|c| c.width)) else {
        return Ok(Summary {
            words: 1,
            k: options.k.unwrap_or(default_rule(1).0),
            ..Summary::default()
        });
    };
    let words = width.words();
    let rule = rule_for(words, options.k, options.word_k, options.word_bytes)?;
    let k = rule.k;
    let queries = query.len();
    let records = queries + corpus.as_ref().map_or(0, Records::len);
    assert!(records <= MAX_RECORDS, "more than 2^32-1 records: read_records refuses them");
    let mut fingerprints = std::mem::take(&mut query.fingerprints);
    if let Some(corpus) = &mut corpus {
        fingerprints.append(&mut corpus.fingerprints);
        corpus.fingerprints = Vec::new();
    }
    let mut index = Index::build_words(fingerprints, words, options.threads);
    let selection = match &corpus {
        Some(_) => Selection::Against { queries: queries as RecordIndex },
        None if options.sparse => Selection::Sparse,
        None => Selection::All,
    };
    let mut summary = Summary {
        records: records as u64,
        distinct: index.groups(),
        words,
        k,
        word_k: rule.word_k,
        word_bytes: rule.word_bytes,
        ..Summary::default()
    };

    summary.group_time = phase.elapsed();
    progress.set_message("fingerprints searched");
    let phase = Instant::now();
    let room = index.take_room();
    let (near, search) = find_near(&index, rule, options.blocks, options.threads, selection, room)?;
    summary.search_time = phase.elapsed();
    (summary.blocks, summary.compared, summary.verified) =
        (search.blocks, search.compared, search.verified);
    let neighbours = Neighbours::build(index.groups(), &near);
    drop(near);
    summary.near_groups = neighbours.pair_count();

    progress.set_message("pairs written");
    let phase = Instant::now();
    let paired = index.note_partners(&neighbours);
    let corpus_names = corpus.as_ref().map(|c| &c.names);
    let queries = queries as RecordIndex;
    let lines = PairLines {
        format: options.format,
        index: &index,
        query_names: &query.names,
        corpus_names,
        queries,
    };
    let written = if options.threads > 1 && paired.len() >= WRITE_ON_THREADS_FROM {
        let threads = options.threads;
        emit_pairs_on_threads(&neighbours, &paired, selection, threads, lines, out)
    } else {
        emit_pairs(&index, &neighbours, &paired, selection, &mut lines.writer(out))
    };
    summary.pairs = written.map_err(Error::writing)?;
    summary.write_time = phase.elapsed();
    Ok(summary)
}
