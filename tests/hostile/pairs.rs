//! Rows of the matrix for the stages that read or make pairs: sh-pairs and sh-cluster.

use super::*;

/// Two 128-bit fingerprints one bit apart.
const W128_ZERO: &str = "0x00000000000000000000000000000000";
const W128_ONE: &str = "0x00000000000000000000000000000001";
const HEX_DIGITS_17: &str = "0x and 17 hex digits: a fingerprint is decimal or 0x and at most 16 \
                             significant hex digits (64-bit), or 0x and exactly 32 (128-bit) or 64 (256-bit)";
const WIDTHS: &str =
    "a 128-bit fingerprint, but line 1 has a 64-bit one (one input holds fingerprints of one width)";

const W256_ZERO: &str = "0x0000000000000000000000000000000000000000000000000000000000000000";
const WIDTHS_64: &str =
    "a 64-bit fingerprint, but line 1 has a 128-bit one (one input holds fingerprints of one width)";

/// `sh-pairs --map -b 2 -k 2` of W128_ZERO and W128_ONE: for each record, word 0's two tables,
/// then word 1's.
fn wide_map() -> String {
    let (zero, one) = (&W128_ZERO[2..], &W128_ONE[2..]);
    [
        format!("0000000000\t{zero}\t1\n0100000000\t{zero}\t1\n"),
        format!("1000000000\t{zero}\t1\n1100000000\t{zero}\t1\n"),
        format!("0000000000\t{one}\t2\n0100000001\t{one}\t2\n"),
        format!("1000000000\t{one}\t2\n1100000000\t{one}\t2\n"),
    ]
    .concat()
}

/// The lines of `text` sorted as bytes (`LC_ALL=C sort`).
fn sorted_lines(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.iter().map(|line| format!("{line}\n")).collect()
}

fn big_id_pair() -> Vec<u8> {
    let mut line = vec![b'a'; BIG];
    line.extend_from_slice(b"\tb\n");
    line
}

pub(super) fn pairs_rows() -> Vec<Row> {
    let p = "sh-pairs";
    vec![
        out(p, &[], "", ""),
        out(p, &[], "\n\n \n", ""),
        out(p, &[], "5\r\n5", "1\t2\t0\n"),
        out(p, &[], "5\n  \n\n5\n", "1\t4\t0\n"),
        out(p, &[], "0xff\n255\n0XFF\n", "1\t2\t0\n1\t3\t0\n2\t3\t0\n"),
        out(p, &[], "18446744073709551615\n0x7fffffffffffffff\n", "1\t2\t1\n"),
        out(p, &[], b"\xff\t5\n\xfe\t5\n".to_vec(), b"\xff\t\xfe\t0\n".to_vec()),
        out(p, &[], b"a\0\r\t5\n[\t5\nc\t\n".to_vec(), b"a\0\r\t[\t0\n".to_vec()),
        out(p, &["--format", "json"], "5\n5\n", "[5, 5]\n"),
        line_error(p, &[], "5\n\0\n", 2, NOT_INTEGER, "\\x00"),
        line_error(p, &[], b"\xff\n".to_vec(), 1, NOT_INTEGER, "\\xFF"),
        line_error(p, &[], "a\t5\n6\n", 2, "a line without an id among lines with ids", "6"),
        line_error(p, &[], "5\nb\t6\n", 2, "a line with an id among lines without ids", "b\\t6"),
        line_error(p, &[], "-5\n", 1, SIGNED, "-5"),
        line_error(p, &[], "+5\n", 1, SIGNED, "+5"),
        line_error(p, &[], "5x\n", 1, NOT_INTEGER, "5x"),
        line_error(p, &[], "1e3\n", 1, NOT_INTEGER, "1e3"),
        line_error(p, &[], "18446744073709551616\n", 1, TOO_LARGE, "18446744073709551616"),
        line_error(p, &[], "0x1ffffffffffffffff\n", 1, HEX_DIGITS_17, "0x1ffffffffffffffff"),
        // Wide fingerprints: the total over the words, one width per run.
        out(p, &[], format!("{W128_ZERO}\n{W128_ONE}\n"), "1\t2\t1\n"),
        out(
            p,
            &["--format", "json"],
            format!("{W128_ONE}\n{W128_ZERO}\n"),
            format!("[\"{W128_ZERO}\", \"{W128_ONE}\"]\n"),
        ),
        line_error(p, &[], format!("5\n{W128_ZERO}\n"), 2, WIDTHS, W128_ZERO),
        // --map and --reduce on wide fingerprints: K = 2 in total is k = 1 a word, two tables
        // of one 32-bit block each; the key starts with the word's digit.
        out(p, &["--map", "-b", "2", "-k", "2"], format!("{W128_ZERO}\n{W128_ONE}\n"), wide_map()),
        out(p, &["--reduce", "-b", "2", "-k", "2"], sorted_lines(&wide_map()), "1\t2\t1\n"),
        line_error(
            p,
            &["--map", "-b", "2", "-k", "2"],
            format!("{W128_ZERO}\n5\n"),
            2,
            WIDTHS_64,
            "5",
        ),
        flag_error_on(
            p,
            &["--map", "-b", "7"],
            format!("{W256_ZERO}\n"),
            "sh-pairs: error: --blocks 7: with --word-bytes 6 (the default for 256-bit \
             fingerprints without -k and --word-k) each word is searched by its 8 bytes, so \
             --blocks must be 8 (or give --word-k without --word-bytes)",
        ),
        flag_error_on(
            p,
            &["--map", "-b", "7", "--word-k", "7"],
            format!("{W256_ZERO}\n"),
            "sh-pairs: error: --blocks (7) must be greater than the k of each word's search (7: \
             --word-k, with K = 44) for 256-bit fingerprints",
        ),
        // The search itself names the k of each word too, not a K the user did not give.
        flag_error_on(
            p,
            &["-b", "7", "--word-k", "7"],
            format!("{W256_ZERO}\n"),
            "sh-pairs: error: --blocks (7) must be greater than the k of each word's search (7: \
             --word-k, with K = 44) for 256-bit fingerprints",
        ),
        flag_error_on(
            p,
            &["-b", "9"],
            format!("{W256_ZERO}\n"),
            "sh-pairs: error: --blocks 9: with --word-bytes 6 (the default for 256-bit \
             fingerprints without -k and --word-k) each word is searched by its 8 bytes, so \
             --blocks must be 8 (or give --word-k without --word-bytes)",
        ),
        line_error(
            p,
            &["--reduce", "-b", "2", "-k", "2"],
            format!("{}0000000000\t0000000000000005\t3\n", sorted_lines(&wide_map())),
            9,
            "a 64-bit fingerprint, but line 1 has a 128-bit one (one input holds fingerprints of \
             one width)",
            "0000000000000005",
        ),
        line_error(
            p,
            &["--reduce", "-b", "2", "-k", "2"],
            format!("2000000000\t{}\t1\n", &W128_ONE[2..]),
            1,
            "key does not start with a word number (0 to 1 for 128-bit fingerprints)",
            "2000000000",
        ),
        flag_error_on(
            p,
            &["-k", "128"],
            format!("{W128_ZERO}\n"),
            "sh-pairs: error: -k 128: a 128-bit fingerprint needs K below 128",
        ),
        line_error(p, &[], "1 2\n", 1, "more than one fingerprint on a line", "1 2"),
        // A no-break space is no separator: `5 6` must not look like two numbers.
        line_error(p, &[], "5\u{a0}6\n", 1, NOT_INTEGER, "5\\u{A0}6"),
        line_error(p, &[], "a\t5\n\t5\n", 2, EMPTY_ID, "\\t5"),
        line_error(p, &["--map", "-b", "4", "-k", "2"], "a\t5\n\t5\n", 2, EMPTY_ID, "\\t5"),
        big(p, &[], || [spaces_then("5"), b"\n5\n".to_vec()].concat(), || b"1\t2\t0\n".to_vec()),
        flag_error(
            p,
            &["-k", "64"],
            "sh-pairs: error: -k 64: a 64-bit fingerprint needs K below 64",
        ),
        flag_error(p, &["-k", "256"], "sh-pairs: error: invalid value '256'"),
        flag_error(p, &["-k", "-1"], "sh-pairs: error: unexpected argument '-1'"),
        flag_error(p, &["-b", "0"], "sh-pairs: error: invalid value '0'"),
        flag_error(
            p,
            &["-k", "3", "-b", "3"],
            "sh-pairs: error: --blocks (3) must be greater than --distance (3)",
        ),
        flag_error(p, &["-j", "0"], "sh-pairs: error: invalid value '0'"),
    ]
}

pub(super) fn cluster_rows() -> Vec<Row> {
    let c = "sh-cluster";
    vec![
        out(c, &[], "", ""),
        out(c, &[], "\n\n", ""),
        out(c, &[], "a\tb\r\nb\tc", "a\tb\tc\n"),
        out(c, &[], "a\tb\t3\t\tjunk\n", "a\tb\n"),
        out(
            c,
            &[],
            b"a\0\tb\xff\n\r x\t\xff\xfe\n".to_vec(),
            b"a\0\tb\xff\n\r x\t\xff\xfe\n".to_vec(),
        ),
        out(c, &[], "[1, 2]\n2\t3\n[\"3\", \"007\", 0.5e3, -1, true, null]\n", "1\t2\t3\t007\n"),
        out(c, &[], "[1, \"a\\u0000\\ud83d\\ude00\"]\n", "1\ta\0\u{1F600}\n"),
        out(c, &["--format", "json"], b"a\xff\tb\n".to_vec(), "[\"a\u{fffd}\", \"b\"]\n"),
        out(c, &["--min-size", "1"], "a\ta\n", "a\n"),
        line_error(c, &[], "a\tb\na\n", 2, "a pair line needs two TAB-separated ids", "a"),
        line_error(c, &[], "  \n", 1, "a pair line needs two TAB-separated ids", "  "),
        line_error(
            c,
            &[],
            "a\u{3000}b \u{85}\u{202e}\n",
            1,
            "a pair line needs two TAB-separated ids",
            "a\\u{3000}b \\x85\\u{202E}",
        ),
        line_error(c, &[], "\t\n", 1, EMPTY_ID, "\\t"),
        line_error(c, &[], "a\t\n", 1, EMPTY_ID, "a\\t"),
        line_error(
            c,
            &[],
            "{\"a\": 1}\n",
            1,
            "a pair line needs two TAB-separated ids",
            "{\"a\": 1}",
        ),
        line_error(c, &[], "[1]\n", 1, "a JSON pair needs at least two ids", "[1]"),
        line_error(c, &[], "[]\n", 1, "a JSON pair needs at least two ids", "[]"),
        line_error(
            c,
            &[],
            "[-1, 2]\n",
            1,
            "a JSON id must be a string or an unsigned 64-bit integer",
            "[-1, 2]",
        ),
        line_error(
            c,
            &[],
            "[18446744073709551616, 1]\n",
            1,
            "a JSON id must be a string or an unsigned 64-bit integer",
            "[18446744073709551616, 1]",
        ),
        line_error(c, &[], "[0x10, 1]\n", 1, "broken JSON array", "[0x10, 1]"),
        line_error(c, &[], "[1, 2] x\n", 1, "text after the JSON array", "[1, 2] x"),
        line_error(c, &[], "[\"\\ud800\", 1]\n", 1, "broken JSON string", "[\"\\ud800\", 1]"),
        line_error(c, &[], b"[\"a\0\", 1]\n".to_vec(), 1, "broken JSON string", "[\"a\\x00\", 1]"),
        line_error(
            c,
            &[],
            "[\"a\\tb\", 1]\n",
            1,
            "an id cannot hold a TAB or a line feed",
            "[\"a\\tb\", 1]",
        ),
        line_error(
            c,
            &[],
            deep_array(10_000),
            1,
            "a JSON id must be a string or an unsigned 64-bit integer",
            &cut(&deep_array(10_000)),
        ),
        line_error(
            c,
            &[],
            format!("[1, 2, {}]", deep_array(10_000)),
            1,
            "elements after the first two must be JSON numbers, strings, true, false or null",
            &cut(&format!("[1, 2, {}]", deep_array(10_000))),
        ),
        big(c, &[], big_id_pair, big_id_pair),
        flag_error(c, &["--min-size", "0"], "sh-cluster: error: invalid value '0'"),
        flag_error(c, &["--format", "xml"], "sh-cluster: error: invalid value 'xml'"),
        // -d is --distance in sh-pairs; sh-cluster has no -d (--duplicates is spelled out).
        flag_error(c, &["-d"], "sh-cluster: error: unexpected argument '-d' found"),
    ]
}
