//! sh-df: the document frequency of every item of a corpus, as a table that sh-weight reads.

mod count;
mod counts;
mod cut;
mod document;
mod mix;
mod partitions;
#[cfg(test)]
mod properties;
mod sorted;
pub mod table;

use std::path::PathBuf;

use clap::Parser;
use sh_core::cli::IoArgs;
use sh_core::threads::all_cores;
use sh_core::{Error, Result};

pub use counts::{ItemCounts, SortedItems};
pub use partitions::DocumentCounts;
pub use sorted::CountedTable;
pub use table::{read_table, read_table_from, write_table, Header};

/// Items held by default: about 100 MB at the most for items of 20 bytes (64-bit hashes in
/// decimal), each taking some 60 bytes of table and 20 of text.
pub const DEFAULT_CAPACITY: usize = 1_000_000;

const DESCRIPTION: &str = "\
Counts, for every item, the documents that contain it: the corpus statistics that sh-weight \
uses to leave out what nearly every document shares (navigation, headers and footers, \
boilerplate phrases) before the fingerprints are computed.

Input: one document per line, `[ID<TAB>]ITEM ITEM …` (any stage's payload; usually the hashes \
of sh-hash). Ids are ignored. An item repeated in one document counts once. Items are compared \
as bytes, so `0x1f` and `31` are two items.

Output, the table: a first line `#documents<TAB>N` (N the number of input lines), then one line \
`ITEM<TAB>COUNT` per item, COUNT the number of documents containing it, by decreasing COUNT \
and then by item bytes.

Memory is bounded by --capacity, the number of items kept. While the distinct items fit, the \
table is exact. Beyond that the counts are a Misra-Gries summary. The distinct items of the \
documents are counted in batches of half the capacity (from 65,536 to 1,048,576 items, held \
besides the capacity while a batch is counted), and when a batch leaves more than the capacity \
held, every count drops by the count of the first item beyond the capacity (in decreasing \
order) and the items left at zero go. Then no count is above the truth, and none is more than \
E below it, where E, the undercount, is written as a third field of the first line \
(`#documents<TAB>N<TAB>E`) and told on standard error. E is at most the number of (document, \
distinct item) occurrences divided by capacity + 1; every item found in more than E documents \
is in the table, and an item missing from it is in at most E documents. For leaving out items \
found in more than a fraction F of the documents, the capacity needs to be well above \
(distinct items per document) / F; the default holds a million items.

A regular file of unweighted items (standard input redirected from a file included) of more \
than 16 MB is cut into up to --threads parts at line ends, each counted on its own thread into \
a table of its own (so up to --threads times the memory), and the tables are added up as by \
--merge, their partitions on up to as many threads (64 at most). Exact tables are the same \
whatever the parts; beyond the capacity, the summary, with its guarantees, depends on the \
parts. The table of the documents counted, from a file or a pipe, is sorted on up to --threads \
threads once it holds 131,072 number items or more (a thread per 65,536), and its lines are \
spelled out on as many when all its items are numbers.

--merge adds the tables of shards: the document counts add up and so do the counts of each \
item. The result of merging exact tables equals the table of the concatenated input, line for \
line; when the union holds more items than --capacity it is reduced as above, and the \
undercounts of the inputs add up.";

#[derive(Debug, Parser)]
#[command(name = "sh-df", version, about = "Count the documents that contain each item")]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// Hold at most N items; beyond that, counts are heavy-hitter estimates (see above)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CAPACITY,
          value_parser = parse_capacity)]
    pub capacity: usize,

    /// Add up these tables (of sh-df runs over shards) instead of reading documents
    #[arg(long, value_name = "TABLE", num_args = 1.., conflicts_with_all = ["weighted", "input"])]
    pub merge: Vec<PathBuf>,

    /// Items are ITEM:WEIGHT (as sh-hash --weighted writes them); ITEM is counted
    #[arg(long)]
    pub weighted: bool,

    /// Count a large file (not a pipe) in up to N parts at once, one table each; sort and write
    /// a large table on up to N threads [default: all cores]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Show no progress and no notes on standard error (errors are always shown)
    #[arg(short, long)]
    pub quiet: bool,
}

/// An error writing the output (the table).
fn write_error(source: std::io::Error) -> Error {
    Error::io("error writing output", source)
}

/// Reads a --capacity: a whole number of items from 1 to 2^32-1.
pub fn parse_capacity(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n as usize),
        _ => Err(format!("'{text}' is not a number of items from 1 to 4294967295")),
    }
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-tokenize --with-id < docs.tsv | sh-shingle | sh-hash > hashes; sh-df < hashes > df",
        "The document frequencies of the hashed shingles of a corpus.",
    ),
    (
        "sh-weight --df df < hashes | sh-compute | sh-pairs | sh-cluster",
        "Near duplicates once what nearly every document shares is left out.",
    ),
    ("printf 'a b a\\nb c\\n' | sh-df", "Prints #documents 2, then b 2, a 1 and c 1."),
    (
        "sh-df --merge part-*.df > df",
        "One table from the tables of shards, equal to one run over the whole corpus.",
    ),
];

pub fn run(args: Args) -> Result<()> {
    // The header written, and the part of its undercount that merged tables brought.
    let (header, owed) = if args.merge.is_empty() {
        let how = count::Counting {
            capacity: args.capacity,
            weighted: args.weighted,
            threads: args.threads.map_or_else(all_cores, |n| n as usize),
            quiet: args.quiet,
        };
        let mut counts = DocumentCounts::new(args.capacity);
        let documents = count::count_input(&args.io.input, how, &mut counts)?;
        let (table, undercount) = counts.finish(how.threads);
        let header = Header { documents, undercount };
        write_output(&args, |out| table.write(out, header, how.threads))?;
        (header, 0)
    } else {
        sh_core::cli::refuse_one_stream_twice("--merge", &args.merge, "the tables")?;
        let mut counts = ItemCounts::new(args.capacity);
        let (documents, owed) = merge_tables(&args.merge, &mut counts)?;
        let header = Header { documents, undercount: counts.undercount() };
        write_output(&args, |out| write_table(out, header, counts.sorted().iter()))?;
        (header, owed)
    };
    // `cli::note` follows the --quiet of the command line; `args.quiet` is checked too for a
    // caller of `run` as a library.
    if header.undercount > 0 && !args.quiet {
        if owed == header.undercount {
            // Nothing cut here: the undercount is the tables' own.
            sh_core::cli::note(format_args!(
                "counts may be up to {owed} documents low: the tables merged carry that \
                 undercount (their first lines' third field)"
            ));
        } else {
            sh_core::cli::note(format_args!(
                "more than {} distinct items: counts may be up to {} documents low \
                 (--capacity raises the limit)",
                args.capacity, header.undercount
            ));
        }
    }
    Ok(())
}

/// Creates the output, has `write` write the table into it, and puts it in place.
fn write_output(
    args: &Args,
    write: impl FnOnce(&mut sh_core::Output) -> std::io::Result<()>,
) -> Result<()> {
    let tables = args.merge.iter().map(|table| ("a table of --merge", table.as_path()));
    let mut out = args.io.create_output_reading(tables)?;
    write(&mut out).map_err(write_error)?;
    out.finish()
}

/// Adds up the tables; returns the total of their document counts and of the undercounts
/// they carry.
fn merge_tables(tables: &[PathBuf], counts: &mut ItemCounts) -> Result<(u64, u64)> {
    let (mut documents, mut owed) = (0u64, 0u64);
    for (number, path) in tables.iter().enumerate() {
        let number = number as u64;
        let header = read_table(path, |_, line, item, count| {
            if counts.last_seen(item) == Some(number) {
                return Err(Error::input(line, "item listed twice", item));
            }
            if !counts.add_if_room(item, count, number) {
                counts.add_overflow(item, count, number);
            }
            Ok(())
        })?;
        documents = documents.checked_add(header.documents).ok_or_else(|| {
            Error::at_line(1, "the tables count more than 2^64-1 documents").in_file(path)
        })?;
        counts.add_undercount(header.undercount);
        owed = owed.saturating_add(header.undercount);
    }
    Ok((documents, owed))
}
