//! The command line of sh-pairs: its flags, the manual page's description and its examples.

use std::path::PathBuf;

use clap::Parser;
use sh_core::cli::IoArgs;

use crate::output::Format;

const DESCRIPTION: &str = "\
Finds every pair of records whose fingerprints differ in at most K bits (Hamming distance), \
without comparing all pairs. Fingerprints are 64-bit, or wide: 128 or 256 bits (sh-compute \
--bits), whose distance is the sum over their 64-bit words.

Input: one record per line, `[ID<TAB>]FINGERPRINT`, the fingerprint an unsigned 64-bit integer \
in decimal or 0x hex (what sh-compute prints), or `0x` and exactly 32 or 64 hex digits for a \
128- or 256-bit one. One run holds one width: a line of another width (in the input or the \
--against file) is an error naming it. Without ids a record is named by its 1-based \
line number; a mix of lines with and without ids, or an empty id (a line that starts with a \
TAB), is an error. Records with an empty fingerprint (`ID<TAB>`, a blank line) are skipped. One \
byte-order mark (U+FEFF, an editor's or a spreadsheet export's) at the start of a line is \
dropped.

Output: `ID_A<TAB>ID_B<TAB>DISTANCE` for every unordered pair of distinct records within K \
bits, exactly once, identical fingerprints included (distance 0). A comes before B in the \
input, and lines are sorted by the input positions of A, then B. The output does not depend \
on --blocks, --threads or the machine. Ids are names, not checked for being unique: two records \
of one id are two records, and a pair of them prints that id twice (sh-cluster takes such a \
self-pair as a cluster of one, printed only with --min-size 1).

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

Wide fingerprints (L = 2 or 4 words): if two are within K bits in total, some word is within \
floor(K/L) bits (pigeonhole). So each word is searched as above within k = floor(K/L) bits, \
over the distinct values of that word, and every candidate's total is checked: the search is \
exact. A candidate is reported by the first word within k bits, so each pair comes out once. \
--word-k k searches each word within a smaller k: faster, and a pair within K is found only \
if some word is within k bits. --word-bytes T (with a k above T) narrows that to the words \
within k bits that differ in at most T of their 8 bytes (any word within T bits does): each \
word is then searched over its 8 bytes (B = 8) with the tables of a search within T, whose \
leaves accept k bits, at about the cost of a search within T. Without -k the default is chosen \
for the width from our evaluation (docs/QUALITY.md in the source): K = 6 for 64 bits; K = 20 \
with --word-k 8 for 128 bits; K = 44 with --word-k 8 and --word-bytes 6 for 256 bits, which \
finds nearly every copy with up to 2% of its words edited and most with 5%, at about 4 times \
the cost of a 64-bit search with K = 6. A -k given alone is exact: -k 52 on 256 bits reached \
MinHash LSH's F1 on copies with up to 5% of their words edited in every set of our evaluation \
but the license texts, and searches each word within 13 bits, many times the cost. If the d \
differing bits of a pair fall at random places (as they do for simhash), the chance that it is \
found is 1 - N/C(64L, d), where N is the number of ways to place d bits in L words of 64 with \
no word found: the sum, over d_1 + ... + d_L = d, of m(d_1) * ... * m(d_L), where m(i) is \
C(64, i) for i > k, 0 for i <= T (or i <= k without --word-bytes), and between them the \
placements of i bits that touch more than T bytes: the sum over j > T of C(8, j) times the sum \
over m = 0..j of (-1)^m C(j, m) C(8(j - m), i). Without --word-bytes it is 1 for d <= L*(k+1) - \
1. For L = 4, k = 6: 0.992 at d = 28, 0.83 at d = 32, 0.54 at d = 36; k = 7: 1 up to d = 31, \
0.993 at 32, 0.85 at 36, 0.58 at 40; k = 7, T = 6: 0.991 at d = 32, 0.84 at 36, 0.57 at 40, \
0.33 at 44; k = 8, T = 6 (the 256-bit default): above 0.998 up to d = 34, 0.985 at 36, 0.84 at \
40, 0.58 at 44; k = 8: 1 up to d = 35, 0.86 at d = 40. --stats shows the words searched, the \
candidates verified and whether the search was exact. --blocks, if given, is B of every word's \
search (8 with --word-bytes).

Choosing B: few blocks mean few tables but large groups; many blocks mean small groups but \
many tables. Without --blocks, B is the value in K+1..64 with the least expected work for the \
number of distinct fingerprints n, assuming they spread uniformly (b = 64/B bits a block): \
the split by the first block, a unit per fingerprint for each of its K+1 choices; the splits \
below it, which mostly group parts in cache, 0.2 units a fingerprint, summed over the depths \
1 <= d < B-K as 0.2 * C(K+d+1, d+1) * n * min(1, n / 2^(d*b)); and the leaves of the C(B, K) \
tables, each n * (0.5 * min(1, m) + 0.02 * m/2), m = n / 2^((B-K)*b) being how many others \
share a fingerprint's key (0.02 a pair compared). The weights were fitted to timings of fixed \
B on 2 cores. --stats shows the B chosen.

Memory: about 20 bytes per record and 4 more per distinct fingerprint, at most (8 more per \
word of a wide one; the ids come on top), plus about 16 bytes per pair of near distinct fingerprints, which must be \
held to write the output in order. If those do not fit, sh-pairs stops with an error rather \
than writing part of the output; --sparse needs the same memory for the search but writes \
far fewer lines. A regular file is read in place (mapped) where the system caches it: its \
pages count in the resident size too, though they take no memory of their own (and a file \
cut short by another program while sh-pairs reads it ends it with SIGBUS, as any program \
that maps its input).

Map/reduce (--map, --reduce): the same search as a map and a reduce step, for inputs too large \
for one machine, run on a distributed engine such as Apache Spark (examples/spark/ in the \
source) or through sort(1). Both steps need --blocks and the same -b, -k, --word-k and \
--word-bytes (they default by the width, as above: B must be 8 for the 256-bit default). The map reads the records as above and writes, for \
each record and each of the C(B, K) tables, one line `KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID]`: \
KEY is the table's number (tables in lexicographic order of their blocks, from 0) in lowercase \
hex zero-padded to the width of C(B, K)-1, followed by the fingerprint's bits in that table's \
blocks, most significant first, in lowercase hex zero-padded to ceil(bits/4) digits; \
FINGERPRINT is 16 lowercase hex digits; LINE is the record's line number in the whole input; \
ID is there when the record has one. Wide fingerprints (L words) take L * C(B, k) lines a \
record, k the k of each word's tables (floor(K/L), --word-k, or --word-bytes): for each word w and each of \
the C(B, k) tables, KEY is w as one digit (0 for the low 64 bits, to L-1), then the table's \
number and the word's bits in its blocks as above; FINGERPRINT is the whole fingerprint, 32 or \
64 lowercase hex digits, highest word first (its text form without 0x), and tells the reduce \
the width. One input holds one width: a line of another width is an error naming it, in the \
map and in the reduce. With --numbered the map's input lines start with that line number, \
`LINE<TAB>[ID<TAB>]FINGERPRINT`, for input cut into parts (Spark's zipWithIndex gives it); \
without, lines are numbered from 1. The reduce reads map lines sorted by KEY as plain bytes \
(`LC_ALL=C sort`, Spark's repartitionAndSortWithinPartitions), holds one group of equal keys \
at a time (its memory is that of the largest group), and writes `ID_A<TAB>ID_B<TAB>DISTANCE` \
for the pairs that the group's table reports by the first-table rule; for wide fingerprints, \
a group of word w writes a pair when word w is within k bits and the group's table is its \
first, no earlier word is within k bits (the first-word rule) and the total is within K. With \
--numbered, each pair starts with the line numbers of A and B, \
`LINE_A<TAB>LINE_B<TAB>ID_A<TAB>ID_B<TAB>DISTANCE`, so that sorting by them gives exactly the \
order of sh-pairs without --map. Every pair comes out of exactly one group, however the sorted \
lines are cut into reduce tasks at key boundaries; A is the record with the smaller line \
number, and records without ids are named by it. --sparse works in the reduce too. The reduce \
checks that keys come in order, that each key's word and table exist for the width, -b, -k \
and --word-k and that each fingerprint has the key's bits; that the ids are used throughout \
is checked within each task only.";

/// The flags of sh-pairs.
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

    /// Report pairs whose fingerprints differ in at most K bits (in total, for wide ones). The
    /// default is chosen for the width: 6 for 64 bits (best precision and recall with 2-token
    /// shingles in our evaluation; use less for billions of documents); 20 with --word-k 8 for
    /// 128 bits and 44 with --word-k 8 and --word-bytes 6 for 256. A K given here is searched
    /// exactly unless --word-k is given too
    #[arg(short = 'k', long = "distance", visible_short_alias = 'd', value_name = "K",
          value_parser = clap::value_parser!(u32).range(0..=255))]
    pub k: Option<u32>,

    /// Wide fingerprints: report a pair only if some 64-bit word is within this many bits too
    /// (faster, approximate; the recall is in DESCRIPTION). Default: 8 (128 and 256 bits)
    /// without -k; exact, floor(K / words), with it
    #[arg(long, value_name = "k", value_parser = clap::value_parser!(u32).range(0..=63))]
    pub word_k: Option<u32>,

    /// Wide fingerprints: a word within --word-k bits counts only if at most T of its 8 bytes
    /// differ (within T bits it always counts); each word is then searched over its 8 bytes
    /// (B = 8) at about the cost of a search within T. Default: 6 for 256 bits without -k and
    /// --word-k; none otherwise
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(0..=7))]
    pub word_bytes: Option<u32>,

    /// Cut fingerprints into B blocks (K < B <= 64); default: the cheapest for the input size
    #[arg(short, long, value_name = "B", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub blocks: Option<u32>,

    /// Read, group, search and write the pairs with N threads [default: all cores]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Report only pairs of an input record with a record of FILE (a new crawl against an
    /// existing corpus), as QUERY_ID<TAB>CORPUS_ID<TAB>DISTANCE, sorted by query then corpus
    /// position. Each of the two inputs has ids, or line numbers, of its own. FILE may also be
    /// an index directory of sh-index, read whole as the records it holds (-o into that
    /// directory is refused), or - for standard input when the queries come from -i FILE
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

    /// Show no progress and no notes on standard error (errors are always shown)
    #[arg(short, long)]
    pub quiet: bool,

    /// Map step: for each record and table (of each word, for wide fingerprints), print
    /// KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID] (see Map/reduce above). Needs --blocks
    #[arg(long, requires = "blocks",
          conflicts_with_all = ["reduce", "against", "sparse", "format", "stats", "threads"])]
    pub map: bool,

    /// Reduce step: read map lines sorted by KEY, print the pairs each group's table reports.
    /// Needs the --blocks, --distance and --word-k of the map
    #[arg(long, requires = "blocks", conflicts_with_all = ["against", "format", "stats", "threads"])]
    pub reduce: bool,

    /// With --map: input lines are LINE<TAB>[ID<TAB>]FINGERPRINT, LINE the line number in the
    /// whole input. With --reduce: print LINE_A<TAB>LINE_B<TAB> before each pair
    #[arg(long)]
    pub numbered: bool,
}

/// The manual page's EXAMPLES: a command line and what it does.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("sh-pairs < fingerprints.txt", "All pairs of lines within 6 bits (the default), named by line number."),
    ("sh-pairs -b 6 -k 3 < fingerprints.tsv | sh-cluster", "Clusters of records within 3 bits, with 6 blocks."),
    ("sh-pairs --sparse < fingerprints.tsv | sh-cluster --duplicates > drop.txt", "The records to drop so that one of each cluster is left, in output linear in the duplicates."),
    ("sh-pairs --against corpus.tsv < new.tsv", "Which new documents are near an existing corpus."),
    ("sh-pairs -k 0 --stats < fingerprints.txt", "Only exact duplicates, and what the search did."),
    ("sh-compute --bits 256 < hashes.txt | sh-pairs", "Pairs of 256-bit fingerprints within 44 bits in total with a word within 8 bits that differs in at most 6 of its bytes (the defaults for that width)."),
    ("sh-pairs -k 44 < fingerprints-256.txt", "Every pair within 44 bits in total, exactly: each word searched within 11 bits, many times the default's cost, for corpora small enough to afford it."),
    ("sh-pairs --map -b 8 < fingerprints.tsv | LC_ALL=C sort | sh-pairs --reduce -b 8", "The pairs of sh-pairs -b 8, found by the map/reduce steps (in another order)."),
    ("sh-pairs --map -b 12 < fp-256.tsv | LC_ALL=C sort | sh-pairs --reduce -b 12", "The same on 256-bit fingerprints: the pairs within 32 bits in total, 4 * C(12, 8) = 1980 map lines a record."),
];
