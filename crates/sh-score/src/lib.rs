//! sh-score: near-duplicate pairs scored against a gold standard: precision, recall, F1 and the
//! counts behind them.

mod parse;
mod tally;

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use sh_core::cli::IoArgs;
use sh_core::pairs::MAX_DISTANCE;
use sh_core::record::{note_unicode_mark, without_bom};
use sh_core::{Error, RecordReader, Result};

pub use tally::Score;
use tally::{Gold, Ids, LabelError, LabelsBuilder, Predicted};

const DESCRIPTION: &str = "\
Scores near-duplicate pairs, as sh-pairs writes them, against a gold standard: the pairs that \
really are near duplicates. It counts the true positives (TP: predicted pairs that are gold \
pairs), the false positives (FP: predicted pairs that are not) and the false negatives (FN: gold \
pairs not predicted), and prints them with precision = TP / (TP + FP), recall = TP / (TP + FN) \
and F1 = 2TP / (2TP + FP + FN), the harmonic mean of the two. Use it to choose the tokenizer, \
the shingle window and K for your documents: make a sample with known near duplicates, run the \
pipeline with each setting, and score each run.

Input: the predicted pairs, one per line: `A<TAB>B[<TAB>DISTANCE[<TAB>…]]`, or a JSON array \
`[\"A\", \"B\", DISTANCE]` as `sh-pairs --format json` writes it (ids as JSON strings or \
unsigned integers). Pairs are unordered: `A<TAB>B` and `B<TAB>A` are one pair, and a pair listed \
twice counts once. The third field, the distance, is read only with --distance or \
--by-distance (then it must be an integer from 0 to 255: the distance of wide fingerprints \
too); other fields are ignored.

The gold file (--gold) lists the near duplicates in one of two forms (--gold-format):

pairs (the default): one gold pair per line, `A<TAB>B[<TAB>…]`, extra fields ignored. Pairs \
are unordered and duplicates count once, as in the input. Every pair not listed is a negative.

labels: one `ID<TAB>LABEL[<TAB>…]` line per document in a group of near duplicates (a cluster), \
as `sh-cluster --format labels` writes it: every two ids with the same label are a gold pair. An \
id listed twice with the same label counts once; with two different labels it is an error. Ids \
not listed belong to no group.

Ids are compared as text, byte for byte (`007` and `7` are two ids). An id that appears in only \
one of the two files is no error: a gold pair whose ids never appear in the input is a false \
negative, a predicted pair with ids the gold does not know is a false positive. In both files, \
one byte-order mark (U+FEFF) at the start of a line is dropped, empty lines are skipped, and a \
line with one field, an empty id or label, or a pair of an id with itself (`a<TAB>a`) is an \
error. Both are read as UTF-8: a file that starts with the byte-order mark of UTF-16 or UTF-32 \
(FF FE, FE FF, ...) is noted on standard error, as its ids would match no others.

When a ratio is 0/0 it is given the value that no evidence contradicts: precision is 1 when no \
pair is predicted, recall is 1 when the gold has no pairs, and F1 is 1 when both are empty (and \
0 when only one is).

Output: a header and one row (one per K with --by-distance) of the columns tp, fp, fn, \
precision, recall, f1 (with --by-distance, k first). --format text aligns them for reading \
(ratios to 4 decimals); tsv separates them by TABs and prints ratios in full; json prints one \
JSON object per row, on a line of its own.

All ids of both files and the distinct predicted pairs are held in memory: about 40 bytes per \
id plus its text, and 16 bytes per pair.";

/// How the gold file lists the near duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GoldFormat {
    /// A<TAB>B: one gold pair per line
    Pairs,
    /// ID<TAB>LABEL: every two ids with the same label are a gold pair
    Labels,
}

/// How to print the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns with a header, ratios to 4 decimals
    Text,
    /// TAB-separated columns with a header, ratios in full
    Tsv,
    /// One JSON object per row
    Json,
}

#[derive(Debug, Parser)]
#[command(
    name = "sh-score",
    version,
    about = "Score near-duplicate pairs against a gold standard: precision, recall, F1"
)]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// The gold standard: the pairs that are near duplicates (- for standard input when the
    /// pairs to score come from -i FILE)
    #[arg(short, long, value_name = "FILE")]
    pub gold: PathBuf,

    /// How the gold file lists them
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = GoldFormat::Pairs)]
    pub gold_format: GoldFormat,

    /// Count only predicted pairs at distance K or less (the third field), as if sh-pairs had
    /// been run with -k K
    #[arg(short = 'k', long = "distance", value_name = "K", value_parser = clap::value_parser!(u8).range(0..=255))]
    pub k: Option<u8>,

    /// One row for each K from 0 to the largest distance in the input (or to --distance): the
    /// scores of sh-pairs -k 0, -k 1, … from one run at the largest K
    #[arg(long)]
    pub by_distance: bool,

    /// How to print the score
    #[arg(short, long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub format: Format,

    /// Show no notes on standard error (errors are always shown; this command shows no
    /// progress; every command takes --quiet, so that scripts can pass it to all)
    #[arg(short, long)]
    pub quiet: bool,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-pairs -k 3 < fingerprints.tsv | sh-score --gold gold-pairs.tsv",
        "Precision, recall and F1 of sh-pairs -k 3 against a list of the true near-duplicate pairs.",
    ),
    (
        "sh-pairs -k 10 < fingerprints.tsv | sh-score --gold gold.tsv --by-distance",
        "One row for each K from 0 to 10, from a single sh-pairs run: where the trade-off between precision and recall lies.",
    ),
    (
        "sh-score --gold-format labels --gold groups.tsv -i pairs.tsv --format json",
        "The gold as ID<TAB>GROUP lines (all documents of a group are near duplicates), the score as JSON.",
    ),
    (
        "for w in 2 3 4 5 6; do sh-tokenize --with-id < sample.tsv | sh-shingle -w $w | sh-hash | sh-compute | sh-pairs -k 3 | sh-score -g gold.tsv -f tsv | tail -n 1; done",
        "Which shingle window works best on a sample with a known gold standard.",
    ),
];

pub fn run(args: Args) -> Result<()> {
    let either = "the gold pairs or the pairs to score";
    sh_core::cli::refuse_stdin_twice("--gold", &args.gold, &args.io.input, either)?;
    let mut input = args.io.open_input()?;
    let mut gold_file = RecordReader::open(&args.gold)?;
    let mut out =
        args.io.create_output_reading([("the gold pairs of --gold", args.gold.as_path())])?;
    let mut ids = Ids::default();
    note_unicode_mark(&mut gold_file, Some(&sh_core::file_name(&args.gold)));
    let gold =
        read_gold(&mut gold_file, args.gold_format, &mut ids).map_err(|e| e.in_file(&args.gold))?;
    // Looked at once the gold is read: the pairs may come from a pipeline still at work.
    note_unicode_mark(&mut input, None);
    let uses_distance = args.k.is_some() || args.by_distance;
    let (predicted, largest) = read_predicted(&mut input, &mut ids, uses_distance)?;
    let counts = predicted.tally(&gold);
    let gold_pairs = gold.pair_count();
    let score_up_to = |k: u8| {
        let (tp, fp) =
            counts[..=k as usize].iter().fold((0, 0), |(tp, fp), &(t, f)| (tp + t, fp + f));
        Score::new(tp, fp, gold_pairs)
    };
    let rows: Vec<(Option<u8>, Score)> = if args.by_distance {
        (0..=args.k.unwrap_or(largest)).map(|k| (Some(k), score_up_to(k))).collect()
    } else {
        vec![(None, score_up_to(args.k.unwrap_or(MAX_DISTANCE)))]
    };
    write_rows(&mut out, &rows, args.format).map_err(Error::writing)?;
    out.finish()
}

const TOO_MANY_IDS: &str = "too many distinct ids";
const TOO_MANY_IDS_LIMIT: &[u8] = b"the limit is 4294967294";

fn read_gold(reader: &mut RecordReader, format: GoldFormat, ids: &mut Ids) -> Result<Gold> {
    // The caller names the file. A line is quoted as it was read, without a byte-order mark
    // at its start, as sh-tokenize quotes it.
    let gold_error = |line, what: &str, text: &[u8]| Error::input(line, what, without_bom(text));
    match format {
        GoldFormat::Pairs => {
            let mut pairs = std::collections::HashSet::new();
            let (mut scratch, mut spelling) = (Vec::new(), [itoa::Buffer::new(); 2]);
            while let Some((line, record)) = reader.next_numbered()? {
                let (a, b) = match parse::pair(record, &mut scratch, &mut spelling) {
                    Ok(Some((a, b, _))) => (a, b),
                    Ok(None) => continue,
                    Err(what) => return Err(gold_error(line, what, record)),
                };
                let (Some(a), Some(b)) = (ids.number(a), ids.number(b)) else {
                    return Err(gold_error(line, TOO_MANY_IDS, TOO_MANY_IDS_LIMIT));
                };
                pairs.insert(tally::pair_key(a, b));
            }
            Ok(Gold::Pairs(pairs))
        }
        GoldFormat::Labels => {
            let mut labels = LabelsBuilder::default();
            while let Some((line, record)) = reader.next_numbered()? {
                let (id, label) = match parse::label(record) {
                    Ok(Some(fields)) => fields,
                    Ok(None) => continue,
                    Err(what) => return Err(gold_error(line, what, record)),
                };
                let Some(id) = ids.number(id) else {
                    return Err(gold_error(line, TOO_MANY_IDS, TOO_MANY_IDS_LIMIT));
                };
                match labels.add(id, label) {
                    Ok(()) => {}
                    Err(LabelError::Conflict) => {
                        return Err(gold_error(
                            line,
                            "an id with a second, different label",
                            record,
                        ))
                    }
                    Err(LabelError::TooMany) => {
                        return Err(gold_error(
                            line,
                            "too many distinct labels",
                            TOO_MANY_IDS_LIMIT,
                        ))
                    }
                }
            }
            Ok(labels.finish())
        }
    }
}

/// The distinct predicted pairs and the largest distance among them (0 when distances are not
/// used).
fn read_predicted(
    reader: &mut RecordReader,
    ids: &mut Ids,
    uses_distance: bool,
) -> Result<(Predicted, u8)> {
    let mut predicted = Predicted::default();
    let mut largest = 0;
    let (mut scratch, mut spelling) = (Vec::new(), [itoa::Buffer::new(); 2]);
    while let Some((line, record)) = reader.next_numbered()? {
        let (a, b, pair) = match parse::pair(record, &mut scratch, &mut spelling) {
            Ok(Some(pair)) => pair,
            Ok(None) => continue,
            Err(what) => return Err(Error::input(line, what, without_bom(record))),
        };
        let distance = if uses_distance {
            let quoted = without_bom(record);
            pair.distance().map_err(|what| Error::input(line, what.message(), quoted))?
        } else {
            0
        };
        largest = largest.max(distance);
        let (Some(a), Some(b)) = (ids.number(a), ids.number(b)) else {
            return Err(Error::input(line, TOO_MANY_IDS, TOO_MANY_IDS_LIMIT));
        };
        predicted.add(a, b, distance);
    }
    Ok((predicted, largest))
}

const COLUMNS: [&str; 6] = ["tp", "fp", "fn", "precision", "recall", "f1"];

fn write_rows(
    out: &mut impl Write,
    rows: &[(Option<u8>, Score)],
    format: Format,
) -> std::io::Result<()> {
    let by_distance = rows.first().is_some_and(|(k, _)| k.is_some());
    let header: Vec<&str> = by_distance.then_some("k").into_iter().chain(COLUMNS).collect();
    match format {
        Format::Json => {
            for (k, score) in rows {
                let mut object = serde_json::Map::new();
                if let Some(k) = k {
                    object.insert("k".into(), (*k).into());
                }
                object.insert("tp".into(), score.true_positives.into());
                object.insert("fp".into(), score.false_positives.into());
                object.insert("fn".into(), score.false_negatives.into());
                object.insert("precision".into(), score.precision().into());
                object.insert("recall".into(), score.recall().into());
                object.insert("f1".into(), score.f1().into());
                writeln!(out, "{}", serde_json::Value::Object(object))?;
            }
        }
        Format::Tsv => {
            writeln!(out, "{}", header.join("\t"))?;
            for (k, score) in rows {
                if let Some(k) = k {
                    write!(out, "{k}\t")?;
                }
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    score.true_positives,
                    score.false_positives,
                    score.false_negatives,
                    score.precision(),
                    score.recall(),
                    score.f1()
                )?;
            }
        }
        Format::Text => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|(k, score)| {
                    k.map(|k| k.to_string())
                        .into_iter()
                        .chain([
                            score.true_positives.to_string(),
                            score.false_positives.to_string(),
                            score.false_negatives.to_string(),
                            format!("{:.4}", score.precision()),
                            format!("{:.4}", score.recall()),
                            format!("{:.4}", score.f1()),
                        ])
                        .collect()
                })
                .collect();
            let widths: Vec<usize> = (0..header.len())
                .map(|c| {
                    cells.iter().map(|row| row[c].len()).chain([header[c].len()]).max().unwrap_or(0)
                })
                .collect();
            let line = |fields: &[&str]| -> String {
                let padded: Vec<String> =
                    fields.iter().zip(&widths).map(|(f, &w)| format!("{f:>w$}")).collect();
                padded.join("  ")
            };
            writeln!(out, "{}", line(&header))?;
            for row in &cells {
                let row: Vec<&str> = row.iter().map(String::as_str).collect();
                writeln!(out, "{}", line(&row))?;
            }
        }
    }
    Ok(())
}

/// Scores predicted pair lines against gold lines, as `run` reads them: for tests and library
/// users. Returns one score for every predicted pair regardless of distance.
pub fn score(predicted: &[u8], gold: &[u8], format: GoldFormat) -> Result<Score> {
    let reader = |bytes: &[u8], name: &str| {
        RecordReader::new(std::io::Cursor::new(bytes.to_vec()), name.to_string())
    };
    let mut ids = Ids::default();
    let gold = read_gold(&mut reader(gold, "gold"), format, &mut ids)?;
    let (pairs, _) = read_predicted(&mut reader(predicted, "input"), &mut ids, false)?;
    let (tp, fp) = pairs.tally(&gold).iter().fold((0, 0), |(tp, fp), &(t, f)| (tp + t, fp + f));
    Ok(Score::new(tp, fp, gold.pair_count()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(predicted: &str, gold: &str, format: GoldFormat) -> (u64, u64, u64) {
        let s = score(predicted.as_bytes(), gold.as_bytes(), format).unwrap();
        (s.true_positives, s.false_positives, s.false_negatives)
    }

    #[test]
    fn pairs_are_unordered_and_count_once() {
        let gold = "a\tb\nb\ta\nc\td\n\na\tb\textra\n";
        let predicted = "b\ta\t3\na\tb\t1\nd\tc\t0\ne\tf\t2\n";
        assert_eq!(counts(predicted, gold, GoldFormat::Pairs), (2, 1, 0));
        assert_eq!(counts("", gold, GoldFormat::Pairs), (0, 0, 2));
        assert_eq!(counts(predicted, "", GoldFormat::Pairs), (0, 3, 0));
    }

    #[test]
    fn labels_give_every_pair_within_a_label() {
        let gold = "a\t1\nb\t1\nc\t1\nd\t2\ne\t2\nf\t3\nb\t1\n";
        // gold pairs: a-b a-c b-c d-e
        let predicted = "a\tb\nc\ta\nd\te\na\td\nf\tg\n";
        assert_eq!(counts(predicted, gold, GoldFormat::Labels), (3, 2, 1));
    }

    #[test]
    fn errors_name_the_line() {
        let err = score(b"a\tb\n", b"a\tb\nc\n", GoldFormat::Pairs).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("line 2: {}: 'c'", sh_core::pairs::PairError::OneField)
        );
        let err = score(b"a\tb\nx\tx\t0\n", b"", GoldFormat::Pairs).unwrap_err();
        assert_eq!(err.to_string(), format!("line 2: {}: 'x\\tx\\t0'", parse::SELF_PAIR));
        let err = score(b"", b"a\t1\na\t2\n", GoldFormat::Labels).unwrap_err();
        assert_eq!(err.to_string(), "line 2: an id with a second, different label: 'a\\t2'");
    }
}
