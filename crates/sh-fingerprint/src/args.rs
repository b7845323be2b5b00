//! sh-fingerprint's flags, help text and examples. Each flag a stage has keeps that stage's
//! name, short form, default and meaning (a test compares them with the stages' own).

use std::path::PathBuf;

use clap::Parser;
use sh_core::cli::{ChunkArgs, IoArgs};
use sh_core::fingerprint::Width;
use sh_tokenize::Mode;

const DESCRIPTION: &str = "\
Computes one simhash fingerprint per document in one process: what the pipeline \
`sh-tokenize | sh-shingle | sh-hash | sh-compute` computes (with --df, `sh-tokenize | sh-shingle \
| sh-hash | sh-weight --df TABLE | sh-compute`), byte for byte, without writing tokens, \
shingles and hashes as text between four processes, and on every core.

Input and output are those of the pipeline: one document per line (plain text; ID<TAB>TEXT \
with --with-id; a JSON object with --json), and exactly one output line per input line, in \
order: `[ID<TAB>]FINGERPRINT`, decimal for 64 bits, `0x` and N/4 hex digits for --bits 128 or \
256; a document without tokens gives an empty line (or ID<TAB>). Each flag means what it \
means to the stage that has it: --mode, --keep-case, --with-id, --json, --text-field and \
--id-field those of sh-tokenize, -w/--window that of sh-shingle, --seed that of sh-hash, --df, \
--max-df, --df-floor, --idf and --capacity those of sh-weight, --bits that of sh-compute. The \
manual pages of the stages tell the rules.

Bad input is the error the pipeline would give (an empty id, a JSON line that does not hold a \
document), naming its line; the fingerprints of the lines before it are written first, as the \
pipeline writes them. A file saved as UTF-16 or UTF-32 is read as the pipeline reads it, with \
sh-tokenize's note when the input starts with its byte-order mark, once on any number of \
threads.

-j N fingerprints on N threads (default: all cores): the input is read in chunks of lines, \
each chunk fingerprinted by one thread, and the chunks written in input order, with at most \
four chunks per thread in memory at once. The output does not depend on N. With more than one \
thread a regular file is read in place (mapped), its pages let go as the output is written; a \
file cut short by another program while it is read ends sh-fingerprint with SIGBUS, as any \
program that maps its input.

The stages stay the reference, and the place to change a step: to put a filter of your own \
between two steps, run the pipeline. sh-hash --weighted has no counterpart here: text carries \
no weights.";

/// The flags of sh-fingerprint; `--help` and the manual page are made from these.
#[derive(Debug, Parser)]
#[command(
    name = "sh-fingerprint",
    version,
    about = "Text to simhash fingerprints in one process, on all cores",
    long_about = DESCRIPTION
)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// How to cut text into tokens (sh-tokenize --mode)
    #[arg(short, long, value_enum, value_name = "MODE", default_value_t = Mode::Words)]
    pub mode: Mode,

    /// Keep tokens as they are instead of lowercasing them
    #[arg(long)]
    pub keep_case: bool,

    /// Read ID<TAB>TEXT lines and put each id in front of its fingerprint
    #[arg(long, conflicts_with = "json")]
    pub with_id: bool,

    /// Read one JSON object per line
    #[arg(long)]
    pub json: bool,

    /// With --json, the field that holds the text
    #[arg(long, value_name = "NAME", default_value = "text", requires = "json")]
    pub text_field: String,

    /// With --json, the field that holds the id (a string or an integer)
    #[arg(long, value_name = "NAME", requires = "json")]
    pub id_field: Option<String>,

    /// Tokens per shingle (sh-shingle --window)
    #[arg(short, long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub window: u32,

    /// Start the hash with this 64-bit seed, decimal or 0x hex (sh-hash --seed)
    #[arg(long, value_name = "SEED", default_value = "0", value_parser = sh_hash::parse_seed)]
    pub seed: u64,

    /// Apply the document-frequency table of the corpus, as sh-df writes it (sh-weight --df)
    #[arg(long, value_name = "TABLE")]
    pub df: Option<PathBuf>,

    /// With --df, leave out items found in more than this fraction of the documents
    #[arg(long, value_name = "F", value_parser = sh_weight::parse_fraction,
          allow_negative_numbers = true, requires = "df")]
    pub max_df: Option<f64>,

    /// With --df, never leave out an item found in N documents or fewer
    #[arg(long, value_name = "N", default_value_t = sh_weight::DEFAULT_FLOOR, requires = "df")]
    pub df_floor: u64,

    /// With --df, weigh every item kept by ln(N / df)
    #[arg(long, requires = "df")]
    pub idf: bool,

    /// With --df, keep at most N occurrences of an item in one document (0: every occurrence)
    #[arg(long, value_name = "N", default_value_t = sh_weight::DEFAULT_MAX_TF, requires = "df")]
    pub max_tf: u32,

    /// With --df, a document of which less than the fraction F of the items would be kept keeps
    /// them all (where a run left out covers over half of it: of the rest, at most 4 kept in a row)
    #[arg(long, value_name = "F", default_value_t = sh_weight::DEFAULT_MIN_KEPT,
          value_parser = sh_weight::parse_share, allow_negative_numbers = true, requires = "df")]
    pub min_kept: f64,

    /// With --df, leave out a common item only where at least N common items stand in a row
    /// (1: wherever it stands)
    #[arg(long, value_name = "N", default_value_t = sh_weight::DEFAULT_MIN_RUN, requires = "df",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub min_run: u32,

    /// With --df, hold at most N items of the table
    #[arg(long, value_name = "N", default_value_t = sh_df::DEFAULT_CAPACITY,
          value_parser = sh_df::parse_capacity, requires = "df")]
    pub capacity: usize,

    /// Fingerprint width: 64 (decimal), 128 or 256 (0x and N/4 hex digits)
    #[arg(long, value_name = "N", default_value = "64", value_parser = sh_compute::parse_bits)]
    pub bits: Width,

    /// Fingerprint on N threads [default: all cores]
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    #[command(flatten)]
    pub chunks: ChunkArgs,

    /// sh-hash --weighted, which has no counterpart here (refused with a usage error)
    #[arg(long, hide = true)]
    pub weighted: bool,

    /// Show no progress and no notes on standard error (errors are always shown)
    #[arg(short, long)]
    pub quiet: bool,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-fingerprint < docs.txt > fingerprints.txt",
        "What sh-tokenize | sh-shingle | sh-hash | sh-compute writes, on all cores.",
    ),
    (
        "sh-fingerprint --with-id -w 4 --bits 256 -j 8 < docs.tsv | sh-pairs",
        "256-bit fingerprints of 4-token shingles, ids kept, on 8 threads, then the pairs.",
    ),
    (
        "sh-fingerprint --json --id-field url --text-field body -i crawl.jsonl",
        "JSON lines such as {\"url\": \"https://example.com/\", \"body\": \"…\"} to \
         url<TAB>fingerprint lines.",
    ),
    (
        "sh-tokenize --with-id < docs.tsv | sh-shingle | sh-hash > hashes; sh-df < hashes > df; \
         sh-fingerprint --with-id --df df --bits 256 < docs.tsv",
        "The recommended fingerprints, with the corpus statistics that sh-df counted: what \
         sh-weight --df df < hashes | sh-compute --bits 256 writes.",
    ),
];
