//! sh-weight: leaves out, or weighs down, the items that many documents of the corpus share.

mod ahead;
mod idf;
mod inserts;
mod items;
mod table;
mod weights;

use std::path::{Path, PathBuf};

use clap::Parser;
use sh_core::cli::{ChunkArgs, IoArgs};
use sh_core::in_order::map_lines_in_order;
use sh_core::progress::Progress;
use sh_core::record::{split_nonempty_id, write_id};
use sh_core::threads::all_cores;
use sh_core::{Error, Result};

pub use items::Repeats;
pub use weights::{Rule, Weights};

/// What `--df` alone does: chosen from the evaluation in docs/QUALITY.md.
pub const DEFAULT_RULE: Rule = Rule {
    max_df: Some(0.02),
    floor: DEFAULT_FLOOR,
    idf: false,
    max_tf: Some(DEFAULT_MAX_TF),
    min_kept: DEFAULT_MIN_KEPT,
    min_run: DEFAULT_MIN_RUN as usize,
};

/// `--min-run` when not given: a common item goes wherever it stands. Longer limits keep the
/// common items that stand alone or in short runs amid a document's own (the commonest word
/// pairs of running text stand so; a template's text comes in long runs): in the evaluation
/// (docs/QUALITY.md, "Common items in short runs") 6 gained on English, Chinese, generated and
/// real pages' text but made related licenses look alike (F1 0.804 -> 0.717), and 2 gained on
/// Chinese text and licenses but lost a little on generated text; no value gained everywhere.
pub const DEFAULT_MIN_RUN: u32 = 1;

/// `--min-kept` when not given: a document of which the table would keep less than this
/// fraction of the items keeps them all (where its longest run of items left out covers more
/// than half of it: of the items outside that run, and only with at most 4 kept in a row).
/// Each member of a family of near duplicates larger than the floor and the --max-df share of
/// the corpus is made of items that the table leaves out, but for the few its edits made;
/// without this rule those few would be its fingerprint, and the family would not be found
/// (docs/QUALITY.md, "Large families": 0.1, 0.2 and 0.3 found nearly the same families, 0.2
/// and 0.3 lost more on the licenses and Chinese text).
pub const DEFAULT_MIN_KEPT: f64 = 0.1;

/// `--max-tf` when not given: an item counts at most this many times in one document. A
/// document that repeats one item hundreds of times (a hex dump, a table of one row pattern)
/// would otherwise have a fingerprint of that item alone; chosen from the evaluation in
/// docs/QUALITY.md.
pub const DEFAULT_MAX_TF: u32 = 8;

/// `--df-floor` when not given: an item in at most this many documents is never left out. The
/// shared text of a large family of near duplicates must not go (a small corpus has few
/// documents to make 2% of), while a site's template spans more pages than that.
pub const DEFAULT_FLOOR: u64 = 50;

const DESCRIPTION: &str = "\
Applies corpus statistics to every document's items, between sh-hash and sh-compute: items \
that a large share of the documents contain (navigation, headers and footers, boilerplate \
phrases, the commonest word pairs) pull every fingerprint towards one corpus-wide mean and make \
unrelated pages look alike; this stage leaves them out, or weighs them down.

Input: one record per line, `[ID<TAB>]ITEM ITEM …` (with --weighted, `ITEM:WEIGHT`), the same \
items that the table of sh-df counted; an empty id (a line that starts with a TAB) is an error. \
Output: one line per input line, in order, ids kept.

--max-df F leaves out every item found in more than the fraction F of the documents \
(0 < F <= 1), but never one found in at most --df-floor documents (default 50): so a small \
corpus keeps the text that a family of near duplicates shares, while a site's navigation, in \
more pages than that, goes. --idf writes each item kept as `ITEM:WEIGHT` with WEIGHT = \
ln(N / df) (four decimals; multiplied by the item's own weight with --weighted), which \
sh-compute sums; an item not in the table weighs as the table's rarest items, and an item whose \
weight rounds to 0 (one in every document) is left out, as it would change nothing. The two \
combine. With neither, \
--df alone does what the evaluation found best across web pages, documentation, licenses and \
Chinese text (docs/QUALITY.md in the source): --max-df 0.02 with the floor of 50 (and --max-tf 8, \
below).

--max-tf N (default 8) keeps at most N occurrences of an item in one document, the first N, \
and leaves out the rest (with --weighted, occurrences of the same ITEM whatever their weights); \
0 keeps every occurrence. sh-compute counts every occurrence, so a document that repeats one \
item hundreds of times (a hex dump, a table of one row pattern) would get a fingerprint of that \
item alone, and match every other document that repeats it. The limit applies with or without \
--max-df and --idf. In the evaluation (docs/QUALITY.md in the source) limits of 4 to 12 did \
alike, 8 a little better than the others on Chinese text.

--min-run N (default 1; at most 1000) leaves out an item over the --max-df limit only where at \
least N such items stand in a row, and keeps those of shorter runs, in place. A template's text \
(navigation, a header, a footer) comes in long runs; the commonest word pairs of running text \
stand alone or two or three in a row amid a document's own items, and with N above 1 they count \
as the document's, so a document keeps more items and an edit weighs less. In the evaluation \
(docs/QUALITY.md in the source, \"Common items in short runs\") 6 raised F1 on English, Chinese \
and generated text and on real pages with 5% edits (Chinese 0.664 -> 0.753) but made related \
licenses alike (0.804 -> 0.717), and 2 helped Chinese text and licenses but lost a little on \
generated text: no value gained on every kind of text, so the default leaves out every common \
item. Try 4-6 on running text without families of related but distinct documents. The share \
that --min-kept (below) compares with F counts every common item as left out, as with 1; a \
document is kept whole for having every item left out only where nothing is kept after this \
rule (so a document of fewer than N items, all common, keeps them, weighed as any other).

A document whose every item would be left out keeps all its items, as they came (up to --max-tf \
occurrences each): a page made only of common text (navigation alone, an empty template) still \
gets the fingerprint of that text, so such pages match each other instead of vanishing. So does \
a document of which --max-df and the floor would keep less than --min-kept F of the items \
(occurrences, counted before --max-tf; default 0.1; 0 turns this off): a copy of a text that \
many documents copy (a family of near duplicates larger than the floor and --max-df's share of \
the corpus), whose few items kept are its edits, scattered through the common text. Without \
this it would keep only its edits, and the family would not be found. Where one run of items \
left out in a row covers more than half of the document (a page's navigation, or the stretch \
between two edits of a short copy), F is of the items outside that run, and the items kept must \
come at most 4 in a row (what one edited word makes with shingles of up to 3 words): so a page \
beside one large block of its site's navigation keeps its own text when that is at least F of \
what is outside the block, or when it has more than 4 items kept in a row (a short text between \
a header and a footer). A page whose common text comes in several smaller blocks, none over \
half of it, is kept whole when under F of all its items are its own. Longer shingles \
(sh-shingle -w 3) make more items of each edit, so a copy keeps a larger share: with them, \
where such families are expected, raise F to 0.2-0.3. The limit of 4 in a row is made for \
shingles of up to 3 words: with -w 4 or more one edited word can make more (a word put in \
makes w + 1), and a copy with a run over half is then taken for a page and keeps only its \
edits. With --idf alone no item is left out by the table, so this never applies.

Memory: with --idf every item of the table is held (--capacity of them at most; a larger table \
is an error); with --max-df alone only the items to leave out. --min-run N holds up to N - 1 \
common items of a document (64 bytes each) until their run ends.

-j N weighs on N threads (default: all cores), sharing the table: the input is read in chunks \
of lines, each chunk weighed by one thread, and the chunks written in input order, with at most \
four chunks per thread in memory at once. The output does not depend on N. With more than one \
thread a regular file is read in place (mapped), its pages let go as the output is written; a \
file cut short by another program while it is read ends sh-weight with SIGBUS, as any program \
that maps its input.";

#[derive(Debug, Parser)]
#[command(
    name = "sh-weight",
    version,
    about = "Leave out or weigh down items that many documents share"
)]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// The document-frequency table of the corpus, as sh-df writes it
    #[arg(long, value_name = "TABLE")]
    pub df: PathBuf,

    /// Leave out items found in more than this fraction of the documents (0 < F <= 1)
    #[arg(long, value_name = "F", value_parser = parse_fraction, allow_negative_numbers = true)]
    pub max_df: Option<f64>,

    /// Never leave out an item found in N documents or fewer, whatever --max-df says
    #[arg(long, value_name = "N", default_value_t = DEFAULT_FLOOR)]
    pub df_floor: u64,

    /// Weigh every item kept by ln(N / df): ITEM:WEIGHT
    #[arg(long)]
    pub idf: bool,

    /// Keep at most N occurrences of an item in one document (0: every occurrence)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TF)]
    pub max_tf: u32,
    /// A document of which less than the fraction F of the items would be kept keeps them all
    /// (where a run left out covers over half of it: of the rest, and at most 4 kept in a row)
    #[arg(long, value_name = "F", default_value_t = DEFAULT_MIN_KEPT, value_parser = parse_share,
          allow_negative_numbers = true)]
    pub min_kept: f64,

    /// Leave out a common item only where at least N common items stand in a row (1: wherever
    /// it stands)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_RUN,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub min_run: u32,

    /// Items are ITEM:WEIGHT; ITEM is looked up and the weight kept (multiplied with --idf)
    #[arg(long)]
    pub weighted: bool,

    /// Hold at most N items of the table
    #[arg(long, value_name = "N", default_value_t = sh_df::DEFAULT_CAPACITY,
          value_parser = sh_df::parse_capacity)]
    pub capacity: usize,

    /// Weigh on N threads, the output in input order [default: all cores]
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    #[command(flatten)]
    pub chunks: ChunkArgs,

    /// Show no progress and no notes on standard error (errors are always shown)
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--max-df F`: a fraction above 0 and at most 1.
pub fn parse_fraction(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        _ => Err(format!("'{text}' is not a fraction above 0 and at most 1")),
    }
}

/// `--min-kept F`: a fraction from 0 to 1.
pub fn parse_share(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("'{text}' is not a fraction from 0 to 1")),
    }
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-df < hashes > df; sh-weight --df df < hashes | sh-compute > fingerprints",
        "Fingerprints without the items that more than 2% of the documents (and 50) share.",
    ),
    (
        "sh-weight --df df --idf < hashes | sh-compute",
        "Every item weighed by its inverse document frequency.",
    ),
    (
        "sh-weight --df df --max-df 0.1 --idf < hashes | sh-compute",
        "Both: items in more than 10% of the documents out, the rest by IDF.",
    ),
];

impl Args {
    /// The rule the flags ask for.
    pub fn rule(&self) -> Rule {
        let Args { max_df, df_floor, idf, max_tf, min_kept, min_run, .. } = *self;
        Rule::from_flags(max_df, df_floor, idf, max_tf, min_kept, min_run as usize)
    }
}

/// A table and documents cannot both come from standard input, nor from one pipe under two
/// names (`--df /dev/stdin` with the documents piped in): the table would be read to its end,
/// leaving no documents (and the run would say nothing of it).
pub fn check_table_and_input(table: &Path, input: &Path) -> Result<()> {
    sh_core::cli::refuse_stdin_twice("--df", table, input, "the table or the documents")
}

pub fn run(args: Args) -> Result<()> {
    check_table_and_input(&args.df, &args.io.input)?;
    let weights = Weights::load(&args.df, args.rule(), args.capacity)?;
    let mut input = args.io.open_input()?;
    if let Some(error) = weights.counts_no_documents(&args.df) {
        if input.next_record()?.is_some() {
            return Err(error); // an empty input is weighed by any table
        }
    }
    let progress = Progress::new(args.quiet, "documents weighted");
    let threads = args.threads.map_or_else(all_cores, |n| n as usize);
    let spread = args.chunks.spread(threads);
    map_lines_in_order(
        &mut input,
        || args.io.create_output_reading([("the table of --df", args.df.as_path())]),
        progress,
        spread,
        || {
            let mut weigh = Weigh::new(&weights, args.weighted);
            move |line: u64, record: &[u8], out: &mut Vec<u8>| weigh.line(line, record, out)
        },
    )
}

/// What a thread needs to weigh lines: the table, and its own scratch.
struct Weigh<'a> {
    weights: &'a Weights,
    weighted: bool,
    repeats: Repeats,
    items: Vec<u8>,
}

impl<'a> Weigh<'a> {
    fn new(weights: &'a Weights, weighted: bool) -> Weigh<'a> {
        Weigh { weights, weighted, repeats: Repeats::default(), items: Vec::new() }
    }

    /// Appends the output line of input line `record` (number `line`) to `out`.
    fn line(&mut self, line: u64, record: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let (id, payload) = split_nonempty_id(line, record)?;
        self.items.clear();
        self.weights.apply(payload, self.weighted, line, &mut self.items, &mut self.repeats)?;
        write_id(out, id).map_err(|e| Error::io("error writing output", e))?;
        out.extend_from_slice(&self.items);
        out.push(b'\n');
        Ok(())
    }
}
