//! sh-pairs: every pair of records whose fingerprints are within K bits, each exactly once,
//! in a fixed order.

mod blocks;
mod cost;
mod emit;
mod index;
pub mod mapreduce;
mod records;
mod search;

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use sh_core::cli::IoArgs;
use sh_core::number::{push_u64, write_u64};
use sh_core::progress::Progress;
use sh_core::{Error, RecordReader, Result};

pub use blocks::{binomial, first_table, Blocks};
pub use cost::{choose_blocks, expected_cost};
pub use emit::{emit_pairs, PairSink, Selection};
pub use index::{Index, Neighbours, RecordIndex};
pub use mapreduce::MapReduce;
pub use records::{read_records, Id, Ids, Records};
pub use search::{search_in_parallel, CollectPairs, OnPair, Search};

const DESCRIPTION: &str = "\
Finds every pair of records whose 64-bit fingerprints differ in at most K bits (Hamming \
distance), without comparing all pairs.

Input: one record per line, `[ID<TAB>]FINGERPRINT`, the fingerprint an unsigned 64-bit integer \
in decimal or 0x hex (what sh-compute prints). Without ids a record is named by its 1-based \
line number; a mix of lines with and without ids, or an empty id (a line that starts with a \
TAB), is an error. Records with an empty \
fingerprint (`ID<TAB>`, a blank line) are skipped.

Output: `ID_A<TAB>ID_B<TAB>DISTANCE` for every unordered pair of distinct records within K \
bits, exactly once, identical fingerprints included (distance 0). A comes before B in the \
input, and lines are sorted by the input positions of A, then B. The output does not depend \
on --blocks, --threads or the machine.

Method (Manku, Jain and Das Sarma, WWW 2007): the 64 bits are cut into B blocks (block 1 the \
most significant; boundaries at floor(i*64/B) from bit 0, as in the seomoz tools). Two \
fingerprints within K bits agree exactly on at least B-K blocks, so for each of the C(B, K) \
tables (choices of B-K blocks) the distinct fingerprints are grouped by those blocks' bits and \
only fingerprints of one group are compared. Tables are walked in lexicographic order as a \
tree, so tables that share leading blocks share their work. A pair is reported only by the \
first table whose blocks it agrees on, which the XOR of the two fingerprints alone decides: no \
pair is found twice and nothing is de-duplicated afterwards. Records that share a fingerprint \
are searched once and expanded into pairs while writing, so their pairs stream out in bounded \
memory.

Choosing B: few blocks mean few tables but large groups; many blocks mean small groups but \
many tables. Without --blocks, B is the value in K+1..64 with the least expected work for the \
number of distinct fingerprints n, assuming they spread uniformly: the tree's splitting work, \
the sum over depths d of C(K+d, d) * (K+1) * n * min(1, n / 2^(d*64/B)), plus half a unit \
per comparison, C(B, K) * n^2/2 / 2^((B-K)*64/B). --stats shows the B chosen.

Memory: about 20 bytes per record and 16 more per distinct fingerprint while searching (the \
ids come on top), plus about 16 bytes per pair of near distinct fingerprints, which must be \
held to write the output in order. If those do not fit, sh-pairs stops with an error rather \
than writing part of the output; --sparse needs the same memory for the search but writes \
far fewer lines.

Map/reduce (--map, --reduce): the same search as a map and a reduce step, for inputs too large \
for one machine, run on a distributed engine such as Apache Spark (examples/spark/ in the \
source) or through sort(1). Both steps need --blocks and the same -b and -k. The map reads the \
records as above and writes, for each record and each of the C(B, K) tables, one line \
`KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID]`: KEY is the table's number (tables in lexicographic \
order of their blocks, from 0) in lowercase hex zero-padded to the width of C(B, K)-1, followed \
by the fingerprint's bits in that table's blocks, most significant first, in lowercase hex \
zero-padded to ceil(bits/4) digits; FINGERPRINT is 16 lowercase hex digits; LINE is the \
record's line number in the whole input; ID is there when the record has one. With --numbered \
the map's input lines start with that line number, `LINE<TAB>[ID<TAB>]FINGERPRINT`, for input \
cut into parts (Spark's zipWithIndex gives it); without, lines are numbered from 1. The reduce \
reads map lines sorted by KEY as plain bytes (`LC_ALL=C sort`, Spark's \
repartitionAndSortWithinPartitions), holds one group of equal keys at a time (its memory is \
that of the largest group), and writes `ID_A<TAB>ID_B<TAB>DISTANCE` for the pairs that the \
group's table reports by the first-table rule; with --numbered, each pair starts with the line \
numbers of A and B, `LINE_A<TAB>LINE_B<TAB>ID_A<TAB>ID_B<TAB>DISTANCE`, so that sorting by them \
gives exactly the order of sh-pairs without --map. Every pair comes out of exactly one group, \
however the sorted lines are cut into reduce tasks at key boundaries; A is the record with the \
smaller line number, and records without ids are named by it. --sparse works in the reduce \
too. The reduce checks that keys come in order, that each key's table exists for -b and -k and \
that each fingerprint has the key's bits; that the ids are used throughout is checked within \
each task only.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// ID_A<TAB>ID_B<TAB>DISTANCE
    Tsv,
    /// One JSON array per line: without ids `[FP_A, FP_B]`, the two fingerprints, smaller
    /// first (what seomoz's simhash-find-all prints); with ids `["ID_A", "ID_B", DISTANCE]`
    Json,
}

#[derive(Debug, Parser)]
#[command(
    name = "sh-pairs",
    version,
    about = "Find all pairs of fingerprints within K bits of each other"
)]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// Report pairs whose fingerprints differ in at most K bits (6 with 2-token shingles gave
    /// the best precision and recall in our evaluation; use less for billions of documents)
    #[arg(short = 'k', long = "distance", visible_short_alias = 'd', value_name = "K",
          default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=63))]
    pub distance: u32,

    /// Cut fingerprints into B blocks (K < B <= 64); default: the cheapest for the input size
    #[arg(short, long, value_name = "B", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub blocks: Option<u32>,

    /// Search with N threads [default: all cores]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Report only pairs of an input record with a record of FILE (a new crawl against an
    /// existing corpus), as QUERY_ID<TAB>CORPUS_ID<TAB>DISTANCE, sorted by query then corpus
    /// position. Each of the two inputs has ids, or line numbers, of its own
    #[arg(long, value_name = "FILE", conflicts_with = "sparse")]
    pub against: Option<PathBuf>,

    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Tsv)]
    pub format: Format,

    /// For clustering at scale: write only enough pairs to connect the same clusters. Records
    /// sharing a fingerprint give a chain (r1-r2, r2-r3, ...), and two near fingerprints give
    /// one pair, their first records. sh-cluster finds the same clusters as from all pairs,
    /// and the output grows linearly with the number of duplicates
    #[arg(long)]
    pub sparse: bool,

    /// Print records, tables, candidates compared, pairs and time to stderr
    #[arg(long)]
    pub stats: bool,

    /// No progress on stderr
    #[arg(short, long)]
    pub quiet: bool,

    /// Map step: for each record and table, print KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID]
    /// (see Map/reduce above). Needs --blocks
    #[arg(long, requires = "blocks",
          conflicts_with_all = ["reduce", "against", "sparse", "format", "stats", "threads"])]
    pub map: bool,

    /// Reduce step: read map lines sorted by KEY, print the pairs each group's table reports.
    /// Needs the --blocks and --distance of the map
    #[arg(long, requires = "blocks", conflicts_with_all = ["against", "format", "stats", "threads"])]
    pub reduce: bool,

    /// With --map: input lines are LINE<TAB>[ID<TAB>]FINGERPRINT, LINE the line number in the
    /// whole input. With --reduce: print LINE_A<TAB>LINE_B<TAB> before each pair
    #[arg(long)]
    pub numbered: bool,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    ("sh-pairs < fingerprints.txt", "All pairs of lines within 6 bits (the default), named by line number."),
    ("sh-pairs -b 6 -k 3 < fingerprints.tsv | sh-cluster", "Clusters of records within 3 bits, with 6 blocks."),
    ("sh-pairs --sparse < fingerprints.tsv | sh-cluster --duplicates > drop.txt", "The records to drop so that one of each cluster is left, in output linear in the duplicates."),
    ("sh-pairs --against corpus.tsv < new.tsv", "Which new documents are near an existing corpus."),
    ("sh-pairs -k 0 --stats < fingerprints.txt", "Only exact duplicates, and what the search did."),
    ("sh-pairs --map -b 8 < fingerprints.tsv | LC_ALL=C sort | sh-pairs --reduce -b 8", "The pairs of sh-pairs -b 8, found by the map/reduce steps (in another order)."),
];

pub fn run(args: Args) -> Result<()> {
    if args.map || args.reduce || args.numbered {
        return mapreduce::run(&args);
    }
    let started = Instant::now();
    if let Some(b) = args.blocks {
        if b <= args.distance {
            return Err(Error::usage(format!(
                "--blocks ({b}) must be greater than --distance ({})",
                args.distance
            )));
        }
    }
    let mut progress = Progress::new(args.quiet, "records read");
    let query = read_records(&mut args.io.open_input()?, &mut progress)?;
    let corpus = match &args.against {
        Some(path) => Some(read_records(&mut RecordReader::open(path)?, &mut progress)?),
        None => None,
    };
    let read_time = started.elapsed();
    let options = Options {
        distance: args.distance,
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
            options.distance,
            summary.blocks,
            binomial(summary.blocks, options.distance),
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

/// How to search and what to write.
#[derive(Debug, Clone)]
pub struct Options {
    pub distance: u32,
    /// `None`: chosen by the cost model.
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
    pub group_time: std::time::Duration,
    pub search_time: std::time::Duration,
    pub write_time: std::time::Duration,
}

/// Finds the pairs of `query` (or of `query` against `corpus`) and writes them to `out`. The
/// fingerprints are dropped once grouped, to make room for the search.
pub fn write_pairs<W: Write>(
    mut query: Records,
    mut corpus: Option<Records>,
    options: &Options,
    out: &mut W,
    progress: &mut Progress,
) -> Result<Summary> {
    let k = options.distance;
    let phase = Instant::now();
    let queries = query.fingerprints.len();
    let records = queries + corpus.as_ref().map_or(0, |c| c.fingerprints.len());
    if records > RecordIndex::MAX as usize {
        return Err(Error::usage("more than 2^32-1 records in one run"));
    }
    let mut fingerprints = std::mem::take(&mut query.fingerprints);
    if let Some(corpus) = &mut corpus {
        fingerprints.append(&mut corpus.fingerprints);
        corpus.fingerprints = Vec::new();
    }
    let index = Index::build(fingerprints, options.threads);
    let blocks = options.blocks.unwrap_or_else(|| choose_blocks(index.distinct.len(), k));
    if blocks <= k || blocks > 64 {
        return Err(Error::usage(format!("--blocks ({blocks}) must be in {}..=64", k + 1)));
    }
    let selection = match &corpus {
        Some(_) => Selection::Against { queries: queries as RecordIndex },
        None if options.sparse => Selection::Sparse,
        None => Selection::All,
    };

    let group_time = phase.elapsed();

    progress.set_message("fingerprints searched");
    let phase = Instant::now();
    let (near, compared) = find_near_groups(&index, blocks, k, options.threads, selection)?;
    let neighbours = Neighbours::build(index.distinct.len(), &near);
    drop(near);
    let search_time = phase.elapsed();

    progress.set_message("pairs written");
    let phase = Instant::now();
    let mut writer = PairWriter {
        out,
        format: options.format,
        index: &index,
        query_ids: &query.ids,
        corpus_ids: corpus.as_ref().map(|c| &c.ids),
        queries: queries as RecordIndex,
        line: Vec::new(),
    };
    let pairs = emit_pairs(&index, &neighbours, selection, &mut writer)?;
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

/// Every pair of groups (distinct fingerprints) within K bits that the selection can use, and
/// the number of fingerprint pairs compared.
pub fn find_near_groups(
    index: &Index,
    blocks: u32,
    k: u32,
    threads: usize,
    selection: Selection,
) -> Result<(Vec<(u32, u32)>, u64)> {
    let layout = Blocks::new(blocks);
    let mut set = index.distinct.clone();
    let mut handlers: Vec<NearGroups> = (0..threads.max(1))
        .map(|_| NearGroups { index, selection, pairs: Vec::new(), out_of_memory: false })
        .collect();
    let compared = search_in_parallel(&layout, k, &mut set, &mut handlers);
    drop(set);
    let total: usize = handlers.iter().map(|h| h.pairs.len()).sum();
    let mut near: Vec<(u32, u32)> = Vec::new();
    if handlers.iter().any(|h| h.out_of_memory) || near.try_reserve_exact(total).is_err() {
        return Err(Error::io(
            "cannot hold the near pairs of distinct fingerprints in memory",
            io::Error::from(io::ErrorKind::OutOfMemory),
        ));
    }
    for handler in handlers {
        near.extend(handler.pairs);
    }
    Ok((near, compared))
}

/// One thread's share of the pairs found, as pairs of groups.
struct NearGroups<'a> {
    index: &'a Index,
    selection: Selection,
    pairs: Vec<(u32, u32)>,
    out_of_memory: bool,
}

impl NearGroups<'_> {
    /// In batch mode a pair of groups matters only if one holds a query and the other a corpus
    /// record; members are ascending, so the first and last member tell.
    fn is_useful(&self, g: u32, h: u32) -> bool {
        let Selection::Against { queries } = self.selection else {
            return true;
        };
        let has_query = |g: u32| self.index.members(g)[0] < queries;
        let has_corpus = |g: u32| self.index.members(g).last().is_some_and(|&r| r >= queries);
        (has_query(g) && has_corpus(h)) || (has_query(h) && has_corpus(g))
    }
}

impl search::OnPair for NearGroups<'_> {
    fn found(&mut self, a: u64, b: u64) {
        let (g, h) = (self.index.group_of_fingerprint(a), self.index.group_of_fingerprint(b));
        if self.out_of_memory || !self.is_useful(g, h) {
            return;
        }
        if self.pairs.len() == self.pairs.capacity()
            && self.pairs.try_reserve(self.pairs.len().max(1024)).is_err()
        {
            self.out_of_memory = true;
            return;
        }
        self.pairs.push((g, h));
    }
}

/// Writes each pair as a line of the chosen format.
struct PairWriter<'a, W> {
    out: &'a mut W,
    format: Format,
    index: &'a Index,
    query_ids: &'a Ids,
    corpus_ids: Option<&'a Ids>,
    queries: RecordIndex,
    /// A TSV line is put together here and written at once.
    line: Vec<u8>,
}

impl<'a, W> PairWriter<'a, W> {
    fn id(&self, r: RecordIndex) -> Id<'a> {
        match self.corpus_ids {
            Some(corpus) if r >= self.queries => corpus.get((r - self.queries) as usize),
            _ => self.query_ids.get(r as usize),
        }
    }

    fn has_named_ids(&self) -> bool {
        self.query_ids.are_named() || self.corpus_ids.is_some_and(Ids::are_named)
    }
}

impl<W: Write> PairSink for PairWriter<'_, W> {
    fn pair(&mut self, a: RecordIndex, b: RecordIndex, distance: u32) -> io::Result<()> {
        match self.format {
            Format::Tsv => {
                let (id_a, id_b) = (self.id(a), self.id(b));
                let line = &mut self.line;
                line.clear();
                id_a.push_text(line);
                line.push(b'\t');
                id_b.push_text(line);
                line.push(b'\t');
                push_u64(line, u64::from(distance));
                line.push(b'\n');
                return self.out.write_all(line);
            }
            Format::Json if !self.has_named_ids() => {
                let fp = |r| self.index.fingerprint(self.index.group_of(r));
                let (low, high) = (fp(a).min(fp(b)), fp(a).max(fp(b)));
                let out = &mut *self.out;
                out.write_all(b"[")?;
                write_u64(out, low)?;
                out.write_all(b", ")?;
                write_u64(out, high)?;
                out.write_all(b"]")?;
            }
            Format::Json => {
                let (id_a, id_b) = (self.id(a), self.id(b));
                let out = &mut *self.out;
                out.write_all(b"[")?;
                id_a.write_json(out)?;
                out.write_all(b", ")?;
                id_b.write_json(out)?;
                out.write_all(b", ")?;
                write_u64(out, u64::from(distance))?;
                out.write_all(b"]")?;
            }
        }
        self.out.write_all(b"\n")
    }
}
