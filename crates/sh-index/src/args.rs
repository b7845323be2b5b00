//! The command line of sh-index: its subcommands, the manual page's description and examples.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use sh_core::cli::IoArgs;

const DESCRIPTION: &str = "\
A persistent index of 64-bit fingerprints, for near-duplicate queries answered as they come: \
build it once, add to it, and ask it which stored records are within K bits of a \
fingerprint, without reading or sorting the corpus again.

Records are `[ID<TAB>]FINGERPRINT` lines, as sh-pairs reads them (sh-compute's output). An \
index holds records with ids or records without (named by line number, the lines of every \
input added so far counted one after another, as if they were one file); records with an \
empty fingerprint are skipped, and one byte-order mark (U+FEFF) at the start of a line, in \
the records or the queries, is dropped, as by sh-pairs.

`build -o INDEX` writes a new index of the input's records into the directory INDEX (made if \
missing; an index there is replaced, even a damaged one or one of another format version; a \
directory holding other files is an error), for queries up to -k bits. `add INDEX` adds the input's records as a new segment, leaving the others as \
they are. `compact INDEX` rewrites every segment as one. `query INDEX` writes \
`QUERY_ID<TAB>CORPUS_ID<TAB>DISTANCE` for every indexed record within K bits of each input \
record: the same lines, in the same order, as `sh-pairs --against` the indexed records as one \
file. It answers each input line as soon as it is read: when no further line is waiting, the \
answers so far are flushed, so a program can keep one sh-index running, write a fingerprint, \
read its answers and go on (--end-marker tells it where each answer ends). A bad line ends \
the query with an error naming it, after the answers of every line before it (with -o FILE, \
nothing is written); -o into the index directory is refused. `stats INDEX` \
prints what the index holds. `sh-pairs --against INDEX` reads an index as well as a file.

Method: a segment cuts the 64 bits into m keys. Two fingerprints within K bits are within r_t \
bits on some key t whenever the radii r_t satisfy sum(r_t + 1) >= K + 1 (pigeonhole), so a \
query looks up, in table t, every key within r_t bits of its own, and checks the distance of \
what it finds. Table t holds the distinct fingerprints sorted with key t on top; a directory \
of their top bits finds a key's bucket in one step, and each entry keeps only the bits below \
the directory's (5 to 8 bytes: the directory grows with the table); the first table holds \
every record, in fingerprint order, with the record's number. m is chosen when a segment is \
written, for its size and -k: the least expected query cost among layouts within 24 bytes a \
record, unless one beyond that makes queries over 4 times cheaper (K = 3: four tables at 1M \
records, 29 bytes a record; three from about 1.3M records on, 22-23 bytes).

Files: INDEX/MANIFEST lists the segments; INDEX/seg-NNNNNNNN are the segments, mapped into \
memory, never read whole: opening an index reads its headers, and a query touches only the \
pages it needs. Every 1 KiB block has a CRC-32, checked the first time it is used; a damaged, \
cut or foreign file is an error, never a wrong answer. Writes go to temporary files renamed \
into place, the manifest last, so an interrupted build, add or compact leaves the index as it \
was (the next writer removes what it left). One writer at a time: a writer holds a lock on \
INDEX/LOCK, and a second one stops with an error. Queries need no lock: one running while the \
index changes answers from the index as it was when it opened it. The format is described in \
docs/INDEX.md in the source.";

/// The sh-index command.
#[derive(Debug, Parser)]
#[command(name = "sh-index", version, about = "Keep fingerprints in an index and query it")]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,

    /// Show no progress and no notes on standard error (errors are always shown)
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a new index of the input's records
    Build {
        /// The index directory to write
        #[arg(short, long, value_name = "INDEX")]
        output: PathBuf,
        /// The largest K queries may use [default: 6, sh-pairs' default]
        #[arg(short, long, value_parser = clap::value_parser!(u32).range(0..=63))]
        k: Option<u32>,
        /// Read from FILE ('-' is standard input)
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        input: PathBuf,
    },
    /// Add the input's records to an index, as a new segment
    Add {
        /// The index directory
        index: PathBuf,
        /// Read from FILE ('-' is standard input)
        #[arg(short, long, value_name = "FILE", default_value = "-")]
        input: PathBuf,
    },
    /// Rewrite an index as one segment
    Compact {
        /// The index directory
        index: PathBuf,
    },
    /// Write the indexed records within K bits of each input record
    Query {
        /// The index directory
        index: PathBuf,
        /// Report records within K bits (at most the index's K) [default: the index's K]
        #[arg(short, long, value_parser = clap::value_parser!(u32).range(0..=63))]
        k: Option<u32>,
        /// After the answers to each input line (one without a fingerprint too), write a line
        /// with a single '.', so that a program reading through a pipe knows the answer is
        /// complete
        #[arg(long)]
        end_marker: bool,
        /// -i/--input and -o/--output, as every command has them
        #[command(flatten)]
        io: IoArgs,
        /// At the end, print on standard error how many queries were answered, how fast, and
        /// the median, 99th percentile and largest time of an answer
        #[arg(long)]
        stats: bool,
        /// Answer with N threads when many queries are waiting [default: all cores]
        #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
    },
    /// Print what an index holds: records, segments, K, tables and bytes
    Stats {
        /// The index directory
        index: PathBuf,
        /// Also check every block's checksum (reads the whole index)
        #[arg(long)]
        verify: bool,
    },
}

/// The manual page's examples: command line, what it does.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-compute < hashes > corpus.fp; sh-index build -o corpus.idx -k 3 < corpus.fp",
        "Index a corpus for queries within 3 bits.",
    ),
    ("sh-index query corpus.idx < new.fp", "Which stored records are near each new one."),
    (
        "sh-index add corpus.idx < more.fp && sh-index compact corpus.idx",
        "Grow the index, then merge its segments.",
    ),
    (
        "sh-pairs --against corpus.idx < new.fp",
        "The same pairs as sh-index query, by a batch search.",
    ),
];
