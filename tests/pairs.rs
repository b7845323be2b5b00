//! Integration tests of sh-pairs through the built binary: formats, flags, errors.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::util::{command, run};

const SEED_CORPUS: &str = "0b0100101110111011001000101111101110111100001010011101100110110101";
const SEED_QUERY: &str = "0b0100101110111011011000101111101110011100001010011100100110110101";

fn from_binary(text: &str) -> u64 {
    u64::from_str_radix(text.trim_start_matches("0b"), 2).unwrap()
}

#[test]
fn seed_example_is_one_pair_at_three_bits() {
    let input = format!("{}\n{}\n", from_binary(SEED_CORPUS), from_binary(SEED_QUERY));
    assert_eq!(run("sh-pairs", &["-b", "6", "-k", "3"], input.clone()).success(), "1\t2\t3\n");
    assert_eq!(run("sh-pairs", &["-b", "6", "-d", "2"], input).success(), "");
}

#[test]
fn ids_identical_fingerprints_and_order() {
    let input = "a\t5\nb\t0x5\nc\t7\nskip\t\nd\t1000\ne\t4\n";
    let expected = "a\tb\t0\na\tc\t1\na\te\t1\nb\tc\t1\nb\te\t1\nc\te\t2\n";
    for blocks in ["3", "4", "17", "64"] {
        for threads in ["1", "2"] {
            let args = ["-k", "2", "-b", blocks, "-j", threads];
            assert_eq!(run("sh-pairs", &args, input).success(), expected, "B={blocks}");
        }
    }
    assert_eq!(run("sh-pairs", &["-k", "2"], input).success(), expected, "default B");
}

/// A byte-order mark at the start of a line (a file saved by an editor or exported from a
/// spreadsheet) is dropped, with or without an id, in any line, from a pipe or a file read on
/// threads; a second one is the line's first character, and an error.
#[test]
fn a_byte_order_mark_at_the_start_of_a_line_is_no_part_of_the_record() {
    let bom = "\u{feff}";
    let named = format!("{bom}a\t5\nb\t5\n{bom}c\t7\n");
    assert_eq!(run("sh-pairs", &["-k", "1"], named).success(), "a\tb\t0\na\tc\t1\nb\tc\t1\n");
    let lone = format!("{bom}5\n5\n{bom}0x7\n");
    assert_eq!(
        run("sh-pairs", &["-k", "1"], lone.clone()).success(),
        "1\t2\t0\n1\t3\t1\n2\t3\t1\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records.txt");
    // Enough lines (about 800 KB) for the file to be read in several blocks on threads: near
    // copies two by two (one bit apart), a mark on every 97th line, so on lines of either kind.
    let many: String = (0..40_000u64)
        .map(|n| {
            let fingerprint = (n / 2).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((n % 2) << (n % 64));
            let mark = if n % 97 == 3 { bom } else { "" };
            format!("{mark}{fingerprint}\n")
        })
        .collect();
    std::fs::write(&path, &many).unwrap();
    let without: String = many.replace(bom, "");
    let from_file = run("sh-pairs", &["-k", "2", "-j", "2", "-i", path.to_str().unwrap()], "");
    let expected = run("sh-pairs", &["-k", "2", "-j", "1"], without).success().to_string();
    assert!(expected.lines().count() >= 20_000, "{} pairs", expected.lines().count());
    assert_eq!(from_file.success(), expected);
    run("sh-pairs", &[], format!("{bom}{bom}5\n")).failure(
        1,
        "sh-pairs: error: line 1: not an unsigned 64-bit integer (decimal or 0x hex): '\\u{FEFF}5'",
    );
    // An error quotes the line without the mark dropped, on the general path and in --map.
    for flags in [&[][..], &["--map", "-b", "4", "-k", "3"]] {
        run("sh-pairs", flags, format!("5\n{bom}a\t7\n")).failure(
            1,
            "sh-pairs: error: line 2: a line with an id among lines without ids: 'a\\t7'",
        );
    }
}

/// Ids are names only: two records of one id pair as any two records do, with the id twice, and
/// sh-cluster takes that self-pair as a cluster of one, which --min-size 1 prints.
#[test]
fn a_repeated_id_names_two_records() {
    let pairs = run("sh-pairs", &["-k", "1"], "a\t5\na\t7\nb\t5\n").success().to_string();
    assert_eq!(pairs, "a\ta\t1\na\tb\t0\na\tb\t1\n");
    assert_eq!(run("sh-cluster", &[], "a\ta\t1\n").success(), "");
    assert_eq!(run("sh-cluster", &["--min-size", "1"], "a\ta\t1\n").success(), "a\n");
}

#[test]
fn line_numbers_count_skipped_lines() {
    assert_eq!(run("sh-pairs", &["-k", "0"], "9\n\n9\n").success(), "1\t3\t0\n");
}

#[test]
fn json_without_ids_is_the_seed_format() {
    let out = run("sh-pairs", &["-k", "1", "--format", "json"], "7\n5\n5\n").success().to_string();
    assert_eq!(out, "[5, 7]\n[5, 7]\n[5, 5]\n");
    let named =
        run("sh-pairs", &["-k", "1", "--format", "json"], "x\"y\t7\nz\t5\n").success().to_string();
    assert_eq!(named, "[\"x\\\"y\", \"z\", 1]\n");
}

#[test]
fn against_a_corpus_file() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.tsv");
    std::fs::write(&corpus, "old1\t4\nold2\t1000\nold3\t5\n").unwrap();
    let out =
        run("sh-pairs", &["-k", "1", "--against", corpus.to_str().unwrap()], "new1\t5\nnew2\t5\n")
            .success()
            .to_string();
    assert_eq!(out, "new1\told1\t1\nnew1\told3\t0\nnew2\told1\t1\nnew2\told3\t0\n");
    let missing = run("sh-pairs", &["--against", "/nonexistent/corpus"], "1\n");
    missing.failure(1, "sh-pairs: error: cannot open '/nonexistent/corpus'");
    // The corpus and the queries both from standard input: the queries took all of it and
    // the corpus was read empty, no pair and exit 0. Either may come from it alone.
    run("sh-pairs", &["--against", "-"], "5\n7\n").failure(
        2,
        "sh-pairs: error: --against - and the input are both standard input: give the corpus \
         or the queries as a file (-i FILE)\n",
    );
    run("sh-pairs", &["--against", "/dev/stdin"], "5\n7\n").failure(
        2,
        "sh-pairs: error: --against '/dev/stdin' and the input (standard input) are one pipe or \
         socket, which only one of them can read: give the corpus or the queries as a file (-i \
         FILE)\n",
    );
    let queries = dir.path().join("queries");
    std::fs::write(&queries, "new1\t5\n").unwrap();
    let from_stdin = run(
        "sh-pairs",
        &["-k", "1", "--against", "-", "-i", queries.to_str().unwrap()],
        "old1\t4\n",
    );
    assert_eq!(from_stdin.success(), "new1\told1\t1\n");
}

#[test]
fn sparse_chains_identical_fingerprints() {
    let out = run("sh-pairs", &["-k", "1", "--sparse"], "5\n5\n5\n4\n4\n").success().to_string();
    assert_eq!(out, "1\t2\t0\n1\t4\t1\n2\t3\t0\n4\t5\t0\n");
}

#[test]
fn stats_go_to_stderr() {
    let result = run("sh-pairs", &["-k", "1", "-b", "2", "--stats"], "5\n5\n7\n");
    assert_eq!(result.code, Some(0));
    assert_eq!(result.stdout_str(), "1\t2\t0\n1\t3\t1\n2\t3\t1\n");
    assert!(
        result
            .stderr
            .starts_with("sh-pairs: 3 records, 2 distinct fingerprints, K=1, B=2, 2 tables"),
        "{}",
        result.stderr
    );
    // --word-k narrows a 64-bit search to its one word within k bits: the line says so, and
    // counts the tables of that search (C(4, 3), not C(4, 6) = 0).
    let result = run("sh-pairs", &["-k", "6", "--word-k", "3", "-b", "4", "--stats"], "0\n7\n31\n");
    // 1 and 3 are 5 bits apart: within K, not within k.
    assert_eq!(result.stdout_str(), "1\t2\t3\n2\t3\t2\n");
    assert!(
        result.stderr.starts_with(
            "sh-pairs: 3 records, 3 distinct fingerprints, K=6 (searched within k=3: --word-k), \
             B=4, 4 tables"
        ),
        "{}",
        result.stderr
    );
}

#[test]
fn bad_fingerprints_name_the_line() {
    for (input, message) in [
        ("1\nabc\n", "sh-pairs: error: line 2: not an unsigned 64-bit integer"),
        ("1\n-1\n", "sh-pairs: error: line 2: signed number"),
        ("1\n18446744073709551616\n", "sh-pairs: error: line 2: integer larger than 2^64-1"),
        ("1\n3x\n", "sh-pairs: error: line 2: not an unsigned 64-bit integer"),
        ("a\t1\n2\n", "sh-pairs: error: line 2: a line without an id among lines with ids"),
        ("1\nb\t2\n", "sh-pairs: error: line 2: a line with an id among lines without ids"),
        ("1 2\n", "sh-pairs: error: line 1: more than one fingerprint"),
    ] {
        let result = run("sh-pairs", &[], input);
        result.failure(1, message);
        assert_eq!(result.stdout, b"", "no partial output for {input:?}");
    }
}

#[test]
fn bad_flags_exit_2() {
    run("sh-pairs", &["-k", "3", "-b", "3"], "1\n")
        .failure(2, "sh-pairs: error: --blocks (3) must be greater");
    run("sh-pairs", &["-b", "65"], "1\n").failure(2, "sh-pairs: error: invalid value '65'");
    run("sh-pairs", &["-k", "64"], "1\n").failure(2, "sh-pairs: error: -k 64: a 64-bit");
    run("sh-pairs", &["-k", "256"], "1\n").failure(2, "sh-pairs: error: invalid value '256'");
    run("sh-pairs", &["--sparse", "--against", "x"], "1\n")
        .failure(2, "sh-pairs: error: the argument");
}

#[test]
fn million_identical_fingerprints_stream_to_head() {
    // 10^6 records give 5 * 10^11 pairs: only streaming can answer `| head` at once.
    let mut child = command("sh-pairs", &["-k", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let block = "12345\n".repeat(1000);
        for _ in 0..1000 {
            stdin.write_all(block.as_bytes()).unwrap();
        }
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "1\t2\t0");
    assert_eq!(lines.next().unwrap().unwrap(), "1\t3\t0");
    drop(lines); // the reader goes away, as `head` does
    feeder.join().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "quiet end on a closed pipe");
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}
