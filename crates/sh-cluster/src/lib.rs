//! sh-cluster: near-duplicate pairs to clusters, the connected components of the pair graph.

mod graph;
mod ids;
mod output;
mod union_find;

use clap::{Parser, ValueEnum};
use sh_core::cli::IoArgs;
use sh_core::pairs::parse_pair;
use sh_core::progress::Progress;
use sh_core::record::without_bom;
use sh_core::{Error, RecordReader, Result};

use graph::{Full, Graph};
use ids::Names;
use output::write_clusters;
pub use output::Style;
use union_find::UnionFind;

const DESCRIPTION: &str = "\
Groups near-duplicate pairs into clusters: the connected components of the graph whose edges \
are the pairs. Every member of a cluster matches at least one other member, not necessarily all \
of them: the pairs a-b and b-c make one cluster of a, b and c.

Input: one pair per line, in one of two forms. `A<TAB>B[<TAB>…]`, as sh-pairs prints it: the \
first two TAB-separated fields are the ids and further fields (the distance) are ignored. Or, \
on a line that starts with `[`, a JSON array `[a, b, …]`, as the seed's simhash-find-all prints \
it: the first two elements are the ids, each a JSON string or an integer from 0 to 2^64-1, and \
further elements (numbers, strings, true, false, null) are ignored. Empty lines are skipped, \
and one byte-order mark (U+FEFF) at the start of a line is dropped, as sh-score drops it. An \
id is its text, compared byte for byte: `7`, the JSON number 7 and the JSON string \"7\" are one \
id, `007` is another. A line with one field, an empty id, broken JSON, an id holding a TAB or a \
line feed, or fewer than two elements is an error. (So a TSV line cannot start with an id that \
begins with `[`.) Input is read as UTF-8: a list of pairs saved as UTF-16 or UTF-32 (its first \
bytes the encoding's byte-order mark) is noted on standard error, as its ids are no others.

Output: the clusters with at least --min-size members (a self-pair `a<TAB>a` alone makes a \
cluster of one). The members of a cluster come in order of their first appearance in the input, \
the clusters in order of their first member's first appearance, so the output is the same on \
every run. What is printed depends on the format:

--format tsv (the default): one cluster per line, its ids separated by TABs, each id byte for \
byte as it came in (a JSON string decoded).

--format json: one JSON array per line, like the seed's simhash-find-clusters: \
`[1, 2, \"doc-3\"]`. Ids that are canonical decimal integers (0 to 2^64-1, no sign, no leading \
zero) are JSON numbers, other ids JSON strings; bytes that are not UTF-8 are replaced by U+FFFD.

--format labels: `ID<TAB>N` for every member of every cluster, N the number of its cluster \
counted from 1; lines in cluster order, then member order. Cluster N is line N of the tsv output \
with the same --min-size.

--duplicates prints, instead, every member except each cluster's first, one id per line: the \
documents to drop so that exactly one of each cluster is kept (`grep -vxFf`).

All ids are held in memory until the end of the input: about 20 bytes per distinct id when the \
ids are line numbers, up to about 50 for arbitrary 64-bit numbers, and for other ids about 30 \
bytes plus their text.";

/// What to print for each cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One cluster per line, ids separated by TABs
    Tsv,
    /// One JSON array per cluster; numeric ids as numbers, others as strings (non-UTF-8 bytes
    /// become U+FFFD)
    Json,
    /// ID<TAB>N for every member, N the cluster's number from 1
    Labels,
}

#[derive(Debug, Parser)]
#[command(name = "sh-cluster", version, about = "Group near-duplicate pairs into clusters")]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// How to print the clusters
    #[arg(short, long, value_enum, value_name = "FORMAT", default_value_t = Format::Tsv)]
    pub format: Format,

    /// Print every member but each cluster's first, one id per line: the documents to drop.
    /// (No short flag: -d is --distance in sh-pairs.)
    #[arg(long, conflicts_with = "format")]
    pub duplicates: bool,

    /// Leave out clusters with fewer than N members
    #[arg(short, long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub min_size: u32,

    /// Show no progress and no notes on standard error (errors are always shown)
    #[arg(short, long)]
    pub quiet: bool,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    ("sh-tokenize < docs.txt | sh-shingle | sh-hash | sh-compute | sh-pairs | sh-cluster", "Clusters of near-duplicate lines of docs.txt, each line named by its line number."),
    ("printf 'a\\tb\\t1\\nc\\td\\t0\\nb\\tc\\t3\\ne\\tf\\t2\\n' | sh-cluster", "Prints two clusters: `a b c d` (the pair b-c joins a-b and c-d) and `e f`, ids separated by TABs."),
    ("sh-cluster --duplicates -i pairs.tsv -o drop.txt && grep -vxFf drop.txt ids.txt > kept.txt", "Deduplication: ids.txt lists every document's id; kept.txt keeps exactly one document of each cluster and every document with no near-duplicate."),
    ("sh-cluster --format labels --min-size 3 < pairs.tsv > labels.tsv", "Every document in a cluster of three or more, with its cluster's number."),
    ("simhash-find-all -b 6 -d 3 -i hashes.txt -o - | sh-cluster --format json", "Clusters from the seed's JSON pairs, printed as JSON arrays like the seed's simhash-find-clusters."),
];

pub fn run(args: Args) -> Result<()> {
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    sh_core::record::note_unicode_mark(&mut input, None);
    let mut progress = Progress::new(args.quiet, "pairs read");
    let (names, sets) = read_pairs(&mut input, &mut progress)?;
    progress.finish();
    let clusters = sets.into_clusters(args.min_size);
    let style = match (args.duplicates, args.format) {
        (true, _) => Style::Duplicates,
        (false, Format::Tsv) => Style::Tsv,
        (false, Format::Json) => Style::Json,
        (false, Format::Labels) => Style::Labels,
    };
    write_clusters(&mut out, &names, &clusters, style).map_err(Error::writing)?;
    out.finish()
}

/// Reads every pair: the ids, numbered in order of first appearance, and their sets.
fn read_pairs(input: &mut RecordReader, progress: &mut Progress) -> Result<(Names, UnionFind)> {
    let mut graph = Graph::new();
    let mut scratch = Vec::new();
    let mut line = 0u64;
    let too_many =
        |full: Full| Error::input(full.line, "too many distinct ids", b"the limit is 4294967294");
    while let Some(record) = input.next_record()? {
        line += 1;
        progress.tick();
        // One byte-order mark at the start of a line is dropped, as sh-score drops it.
        let record = without_bom(record);
        match parse_pair(record, &mut scratch) {
            Ok(Some(pair)) => graph.add(line, pair).map_err(too_many)?,
            Ok(None) => {}
            Err(what) => return Err(Error::input(line, what.message(), record)),
        }
    }
    graph.finish().map_err(too_many)
}

/// The clusters of a list of pairs, as `run` prints them: for tests and library users.
pub fn cluster_lines(input: &[u8], min_size: u32, style: Style) -> Result<Vec<u8>> {
    let mut reader = RecordReader::new(std::io::Cursor::new(input.to_vec()), "input".into());
    let mut progress = Progress::new(true, "pairs read");
    let (names, sets) = read_pairs(&mut reader, &mut progress)?;
    let mut out = Vec::new();
    write_clusters(&mut out, &names, &sets.into_clusters(min_size), style)
        .map_err(Error::writing)?;
    Ok(out)
}
