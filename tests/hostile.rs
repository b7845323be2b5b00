//! Hostile input through the real binaries: one table, one row per (command, input), each with
//! the exact output or the exact error message and exit status. Every row also checks that
//! nothing panicked and that a per-document stage wrote one line for each input line.
//!
//! docs/RELIABILITY.md gives the number of rows; `matrix_is_the_documented_size` keeps it true.

use crate::util::{run, run_in};

/// How many rows the matrix has (docs/RELIABILITY.md says so).
const ROWS: usize = 173;

/// Bytes, or how to make them: the 100 MB rows are made only while they run.
enum Data {
    Now(Vec<u8>),
    Later(fn() -> Vec<u8>),
}

impl Data {
    fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Data::Now(bytes) => bytes.into(),
            Data::Later(make) => make().into(),
        }
    }
}

/// What a row must give.
enum Expect {
    /// Exit status 0, nothing on stderr, exactly this on stdout.
    Out(Data),
    /// Exit status 1 and exactly `NAME: error: line N: WHAT: 'QUOTED'`.
    Line { line: u64, what: String, quoted: String },
    /// This exit status and a stderr that starts with this (flag errors, exit 2).
    Flag(&'static str),
}

struct Row {
    command: &'static str,
    args: Vec<&'static str>,
    input: Data,
    expect: Expect,
}

const PER_DOCUMENT: [&str; 4] = ["sh-tokenize", "sh-shingle", "sh-hash", "sh-compute"];

/// 100 MB: a single line that long must go through in a few seconds, even in a debug build.
const BIG: usize = 100 * 1024 * 1024;

fn out(
    command: &'static str,
    args: &[&'static str],
    input: impl Into<Vec<u8>>,
    output: impl Into<Vec<u8>>,
) -> Row {
    Row {
        command,
        args: args.to_vec(),
        input: Data::Now(input.into()),
        expect: Expect::Out(Data::Now(output.into())),
    }
}

/// A row whose input and output are made when it runs.
fn big(
    command: &'static str,
    args: &[&'static str],
    input: fn() -> Vec<u8>,
    output: fn() -> Vec<u8>,
) -> Row {
    Row {
        command,
        args: args.to_vec(),
        input: Data::Later(input),
        expect: Expect::Out(Data::Later(output)),
    }
}

fn line_error(
    command: &'static str,
    args: &[&'static str],
    input: impl Into<Vec<u8>>,
    line: u64,
    what: &str,
    quoted: &str,
) -> Row {
    Row {
        command,
        args: args.to_vec(),
        input: Data::Now(input.into()),
        expect: Expect::Line { line, what: what.to_string(), quoted: quoted.to_string() },
    }
}

fn flag_error(command: &'static str, args: &[&'static str], prefix: &'static str) -> Row {
    Row {
        command,
        args: args.to_vec(),
        input: Data::Now(b"1\n".to_vec()),
        expect: Expect::Flag(prefix),
    }
}

fn hash(item: &[u8]) -> String {
    sh_hash::hash64(item, 0).to_string()
}

/// `[[[…]]]` nested `depth` deep.
fn deep_array(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

/// `{"a":{"a":…1…}}` nested `depth` deep.
fn deep_object(depth: usize) -> String {
    r#"{"a":"#.repeat(depth) + "1" + &"}".repeat(depth)
}

/// What an error message shows of a long text: its first 60 characters and an ellipsis.
fn cut(text: &str) -> String {
    text.chars().take(60).collect::<String>() + "…"
}

/// A line of `BIG` bytes of spaces, then `last`.
fn spaces_then(last: &str) -> Vec<u8> {
    let mut line = vec![b' '; BIG];
    line.extend_from_slice(last.as_bytes());
    line
}

fn big_text() -> Vec<u8> {
    "Hello wOrld ".repeat(BIG / 12).into_bytes()
}

fn big_tokens() -> Vec<u8> {
    let mut tokens = "hello world ".repeat(BIG / 12).into_bytes();
    *tokens.last_mut().expect("not empty") = b'\n';
    tokens
}

fn big_id_pair() -> Vec<u8> {
    let mut line = vec![b'a'; BIG];
    line.extend_from_slice(b"\tb\n");
    line
}

const NOT_INTEGER: &str = "not an unsigned 64-bit integer (decimal or 0x hex)";
const SIGNED: &str = "signed number: hashes and fingerprints are unsigned 64-bit integers";
const TOO_LARGE: &str = "integer larger than 2^64-1";
const BAD_WEIGHT: &str = "weight is not a finite decimal number";
const EMPTY_ID: &str = "empty id";

fn tokenize_rows() -> Vec<Row> {
    let t = "sh-tokenize";
    let json = ["--json"];
    let json_id = ["--json", "--id-field", "id"];
    let not_object = "expected a JSON object";
    vec![
        out(t, &[], "", ""),
        out(t, &[], "Hello World", "hello world\n"),
        out(t, &[], "A b\r\nC\r\n", "a b\nc\n"),
        out(t, &[], "x\r", "x\n"),
        out(t, &[], "\n\n", "\n\n"),
        out(t, &[], " \t \n   \n", "\n\n"),
        out(t, &[], "a\0b\0\n", "a b\n"),
        out(t, &[], b"a\xffb\xc3\n\xed\xa0\x80\n".to_vec(), "a b\n\n"),
        out(t, &["--mode", "ascii"], b"ab\xffcd\0e\n".to_vec(), "ab cd e\n"),
        out(t, &["--mode", "space"], b"A\0B\xffc\n".to_vec(), "a\0b c\n"),
        out(t, &["--mode", "chars"], b"a\xffB\n".to_vec(), "a b\n"),
        out(t, &["--with-id"], "d1\tHello\nno id here\n", "d1\thello\nno id here\n"),
        line_error(t, &["--with-id"], "d1\tHello\n\tEmpty Id\n", 2, EMPTY_ID, "\\tEmpty Id"),
        out(t, &["--with-id"], b"\0\xff\r x[\tA\r\n".to_vec(), b"\0\xff\r x[\ta\n".to_vec()),
        out(t, &["--with-id"], "d\t\n", "d\t\n"),
        line_error(t, &["--with-id"], "d\t\n\t\n", 2, EMPTY_ID, "\\t"),
        line_error(
            t,
            &json_id,
            "{\"id\": \"\", \"text\": \"x\"}",
            1,
            EMPTY_ID,
            "{\"id\": \"\", \"text\": \"x\"}",
        ),
        out(t, &json, "{\"text\": \"A b\"}\r\n\n  \n", "a b\n\n\n"),
        out(t, &json, b"{\"text\": \"a\xffb\"}\n".to_vec(), "a b\n"),
        out(t, &json, r#"{"text": "a\ud800b\u0000c"}"#, "a b c\n"),
        out(
            t,
            &json_id,
            "{\"id\": 7, \"text\": \"x\"}\n{\"id\": \"\\u00e9\\r\", \"text\": \"\"}",
            "7\tx\n\u{e9}\r\t\n",
        ),
        out(
            t,
            &json,
            format!(
                r#"{{"a": {}, "b": {}, "text": "deep"}}"#,
                deep_array(10_000),
                deep_object(10_000)
            ),
            "deep\n",
        ),
        line_error(t, &json, "5\n", 1, &format!("invalid type: integer `5`, {not_object}"), "5"),
        line_error(
            t,
            &json,
            "\"s\"\n",
            1,
            &format!("invalid type: string \"s\", {not_object}"),
            "\"s\"",
        ),
        line_error(
            t,
            &json,
            "{\"text\": \"a\"}\nnull\n",
            2,
            &format!("invalid type: null, {not_object}"),
            "null",
        ),
        line_error(
            t,
            &json,
            "[\"text\"]\n",
            1,
            &format!("invalid type: sequence, {not_object}"),
            "[\"text\"]",
        ),
        line_error(
            t,
            &json,
            deep_array(10_000),
            1,
            &format!("invalid type: sequence, {not_object}"),
            &cut(&deep_array(10_000)),
        ),
        line_error(
            t,
            &json,
            deep_object(10_000),
            1,
            "no field \"text\"",
            &cut(&deep_object(10_000)),
        ),
        line_error(
            t,
            &json,
            format!(r#"{{"text": {}}}"#, deep_object(10_000)),
            1,
            "field \"text\": invalid type: map, expected a string",
            &cut(&format!(r#"{{"text": {}}}"#, deep_object(10_000))),
        ),
        line_error(
            t,
            &json,
            "{\"text\": \"a\"}\n{\"text\": \"b\"}x\n",
            2,
            "invalid JSON: trailing characters at column 14",
            "{\"text\": \"b\"}x",
        ),
        line_error(
            t,
            &json,
            b"{\"text\": \"a\0".to_vec(),
            1,
            "invalid JSON: EOF while parsing a string at column 12",
            "{\"text\": \"a\\x00",
        ),
        line_error(
            t,
            &json,
            "{\"text\": 1}",
            1,
            "field \"text\": invalid type: integer `1`, expected a string",
            "{\"text\": 1}",
        ),
        line_error(
            t,
            &json,
            "{\"text\": \"a\", \"text\": \"b\"}",
            1,
            "field \"text\": given twice",
            "{\"text\": \"a\", \"text\": \"b\"}",
        ),
        line_error(
            t,
            &json_id,
            "{\"id\": \"a\\tb\", \"text\": \"x\"}",
            1,
            "an id cannot hold a TAB or line feed",
            "a\\tb",
        ),
        line_error(
            t,
            &json_id,
            "{\"id\": 1.5, \"text\": \"x\"}",
            1,
            "field \"id\": invalid type: floating point `1.5`, expected a string or an integer",
            "{\"id\": 1.5, \"text\": \"x\"}",
        ),
        big(t, &[], big_text, big_tokens),
        flag_error(t, &["--mode", "nope"], "sh-tokenize: error: invalid value 'nope'"),
        flag_error(t, &["--json", "--with-id"], "sh-tokenize: error: the argument"),
        flag_error(
            t,
            &["--json", "--id-field", "text"],
            "sh-tokenize: error: --id-field and --text-field must name different fields",
        ),
    ]
}

fn shingle_rows() -> Vec<Row> {
    let s = "sh-shingle";
    let w2 = ["-w", "2"];
    vec![
        out(s, &w2, "", ""),
        out(s, &w2, "a b c", "a_b b_c\n"),
        out(s, &w2, "a b\r\nc\r\n", "a_b\nc\n"),
        out(s, &w2, "\n\n", "\n\n"),
        out(s, &w2, "   \n \t \n", "\n \t\n"),
        out(s, &w2, "a\0 b\0\n", "a\0_b\0\n"),
        out(s, &w2, b"\xff \xfe  \xc3\n".to_vec(), b"\xff_\xfe \xfe_\xc3\n".to_vec()),
        out(s, &w2, "d\ta b\nc d\n", "d\ta_b\nc_d\n"),
        out(s, &w2, b"\0\xff\r [\ta b\n \tc\n".to_vec(), b"\0\xff\r [\ta_b\n \tc\n".to_vec()),
        line_error(s, &w2, "d\ta b\n\tc d\n", 2, EMPTY_ID, "\\tc d"),
        big(s, &w2, || spaces_then("x y"), || b"x_y\n".to_vec()),
        flag_error(s, &["-w", "0"], "sh-shingle: error: invalid value '0'"),
        flag_error(s, &["-w", "-1"], "sh-shingle: error: unexpected argument '-1'"),
        flag_error(s, &["-w", "4294967296"], "sh-shingle: error: invalid value '4294967296'"),
    ]
}

fn hash_rows() -> Vec<Row> {
    let h = "sh-hash";
    let weighted = ["--weighted"];
    let hello = hash(b"hello");
    vec![
        out(h, &[], "", ""),
        out(h, &[], "hello", format!("{hello}\n")),
        out(h, &[], "hello\r\na\r\n", format!("{hello}\n{}\n", hash(b"a"))),
        out(h, &[], "\n\n", "\n\n"),
        out(h, &[], "  \n \t \n", "\n \t\n"),
        out(h, &[], "a\0b\n", format!("{}\n", hash(b"a\0b"))),
        out(h, &[], b"\xff \xc3\n".to_vec(), format!("{} {}\n", hash(b"\xff"), hash(b"\xc3"))),
        out(h, &[], "d\thello\nhello\n", format!("d\t{hello}\n{hello}\n")),
        line_error(h, &[], "d\thello\n\thello\n", 2, EMPTY_ID, "\\thello"),
        out(h, &[], b"\0\xff\r [\thello\n".to_vec(), [&b"\0\xff\r [\t"[..], hello.as_bytes(), b"\n"].concat()),
        out(h, &weighted, "hello:-2.5 a:b:1e3 :0", format!("{hello}:-2.5 {}:1e3 {}:0\n", hash(b"a:b"), hash(b""))),
        line_error(h, &weighted, "a:1\nb:nan\n", 2, BAD_WEIGHT, "b:nan"),
        line_error(h, &weighted, "a:NaN", 1, BAD_WEIGHT, "a:NaN"),
        line_error(h, &weighted, "a:inf", 1, BAD_WEIGHT, "a:inf"),
        line_error(h, &weighted, "a:-inf", 1, BAD_WEIGHT, "a:-inf"),
        line_error(h, &weighted, "a:1e999", 1, BAD_WEIGHT, "a:1e999"),
        line_error(h, &weighted, "a:0x10", 1, BAD_WEIGHT, "a:0x10"),
        line_error(h, &weighted, "a:", 1, BAD_WEIGHT, "a:"),
        line_error(h, &weighted, "a", 1, "weighted item has no ':WEIGHT'", "a"),
        line_error(h, &weighted, "a:1\u{2009}", 1, BAD_WEIGHT, "a:1\\u{2009}"),
        out(h, &["--seed", "0x0"], "hello\n", format!("{hello}\n")),
        flag_error(h, &["--seed", "-1"], "sh-hash: error: unexpected argument '-1'"),
        flag_error(h, &["--seed", "+1"], "sh-hash: error: invalid value '+1' for '--seed <SEED>': signed number"),
        flag_error(h, &["--seed", "18446744073709551616"], "sh-hash: error: invalid value '18446744073709551616' for '--seed <SEED>': integer larger"),
        flag_error(h, &["--seed", "12a"], "sh-hash: error: invalid value '12a' for '--seed <SEED>': not an unsigned"),
        big(h, &[], || spaces_then("hello"), || format!("{}\n", hash(b"hello")).into_bytes()),
    ]
}

fn compute_rows() -> Vec<Row> {
    let c = "sh-compute";
    vec![
        out(c, &[], "", ""),
        out(c, &[], "5", "5\n"),
        out(c, &[], "5\r\n6\r\n", "5\n6\n"),
        out(c, &[], "\n\n", "\n\n"),
        out(c, &[], "  \n \t \n", "\n \t\n"),
        out(c, &[], "0xff 0XFF 0xFf", "255\n"),
        out(c, &[], "18446744073709551615 0xffffffffffffffff", "18446744073709551615\n"),
        out(c, &[], "00000000000000000000000042", "42\n"),
        out(c, &[], "d\t5\n6\n", "d\t5\n6\n"),
        line_error(c, &[], "d\t5\n\t6\n", 2, EMPTY_ID, "\\t6"),
        out(c, &[], b"\0\xff\r [\t5\n".to_vec(), b"\0\xff\r [\t5\n".to_vec()),
        out(c, &[], "1:-1", "18446744073709551614\n"),
        out(c, &[], "1:0.1 1:0.2 0:0.3", "0\n"),
        out(c, &[], "1:1e308 1:1e308 0:1e308 0:1e308 0:1e308", "0\n"),
        line_error(c, &[], "5\0\n", 1, NOT_INTEGER, "5\\x00"),
        line_error(c, &[], b"5\n\xff\n".to_vec(), 2, NOT_INTEGER, "\\xFF"),
        line_error(c, &[], "-1", 1, SIGNED, "-1"),
        line_error(c, &[], "1\n+1\n", 2, SIGNED, "+1"),
        line_error(c, &[], "12a", 1, NOT_INTEGER, "12a"),
        line_error(c, &[], "1.5", 1, NOT_INTEGER, "1.5"),
        line_error(c, &[], "0x", 1, NOT_INTEGER, "0x"),
        line_error(c, &[], "0xg", 1, NOT_INTEGER, "0xg"),
        line_error(c, &[], "18446744073709551616", 1, TOO_LARGE, "18446744073709551616"),
        line_error(c, &[], "0x10000000000000000", 1, TOO_LARGE, "0x10000000000000000"),
        line_error(c, &[], "99999999999999999999999", 1, TOO_LARGE, "99999999999999999999999"),
        line_error(c, &[], "1:NaN", 1, BAD_WEIGHT, "1:NaN"),
        line_error(c, &[], "1:inf", 1, BAD_WEIGHT, "1:inf"),
        line_error(c, &[], "1:-inf", 1, BAD_WEIGHT, "1:-inf"),
        line_error(c, &[], "1:1e400", 1, BAD_WEIGHT, "1:1e400"),
        line_error(c, &[], "1:", 1, BAD_WEIGHT, "1:"),
        line_error(c, &[], "x:1", 1, NOT_INTEGER, "x:1"),
        line_error(c, &[], "-1:1", 1, SIGNED, "-1:1"),
        // Invisible and look-alike characters are shown escaped: a BOM, a zero-width space.
        line_error(c, &[], "\u{feff}5\n", 1, NOT_INTEGER, "\\u{FEFF}5"),
        line_error(c, &[], "5\u{200b}\n", 1, NOT_INTEGER, "5\\u{200B}"),
        big(c, &[], || spaces_then("7"), || b"7\n".to_vec()),
    ]
}

fn pairs_rows() -> Vec<Row> {
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
        line_error(p, &[], "0x1ffffffffffffffff\n", 1, TOO_LARGE, "0x1ffffffffffffffff"),
        line_error(p, &[], "1 2\n", 1, "more than one fingerprint on a line", "1 2"),
        // A no-break space is no separator: `5 6` must not look like two numbers.
        line_error(p, &[], "5\u{a0}6\n", 1, NOT_INTEGER, "5\\u{A0}6"),
        line_error(p, &[], "a\t5\n\t5\n", 2, EMPTY_ID, "\\t5"),
        line_error(p, &["--map", "-b", "4", "-k", "2"], "a\t5\n\t5\n", 2, EMPTY_ID, "\\t5"),
        big(p, &[], || [spaces_then("5"), b"\n5\n".to_vec()].concat(), || b"1\t2\t0\n".to_vec()),
        flag_error(p, &["-k", "64"], "sh-pairs: error: invalid value '64'"),
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

/// Issue #16, item 5: an error in the second input, `sh-pairs --against FILE`, names FILE; an
/// error in the main input names none.
#[test]
fn errors_in_the_against_file_name_it() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let corpus = dir.path().join("corpus.tsv");
    std::fs::write(&corpus, "5\nx\n").expect("corpus written");
    let corpus = corpus.to_str().expect("UTF-8 path");
    let result = run("sh-pairs", &["--against", corpus], "5\n");
    let expected = format!("sh-pairs: error: {corpus}: line 2: {NOT_INTEGER}: 'x'\n");
    assert_eq!((result.code, result.stderr.as_str()), (Some(1), expected.as_str()));

    std::fs::write(dir.path().join("ids.tsv"), "a\t5\n6\n").expect("corpus written");
    let result = run_in("sh-pairs", &["--against", "ids.tsv"], "5\n", Some(dir.path()));
    let expected =
        "sh-pairs: error: ids.tsv: line 2: a line without an id among lines with ids: '6'\n";
    assert_eq!((result.code, result.stderr.as_str()), (Some(1), expected));

    let result = run("sh-pairs", &["--against", corpus], "x\n");
    let expected = format!("sh-pairs: error: line 1: {NOT_INTEGER}: 'x'\n");
    assert_eq!((result.code, result.stderr.as_str()), (Some(1), expected.as_str()));
}

/// Issue #16, item 7: a JSON integer id beyond 64 bits is too large, not a "floating point".
#[test]
fn a_json_id_beyond_64_bits_is_too_large() {
    let line = r#"{"id": 100000000000000000000, "text": "x"}"#;
    let result = run("sh-tokenize", &["--json", "--id-field", "id"], format!("{line}\n"));
    let expected = format!(
        "sh-tokenize: error: line 1: field \"id\": too large for an integer id (more than \
         2^64-1): '{line}'\n"
    );
    assert_eq!((result.code, result.stderr.as_str()), (Some(1), expected.as_str()));
}

/// Issue #16, item 11: help asked for beside a bad flag is the help, exit 0.
#[test]
fn help_beside_a_bad_flag_is_the_help() {
    for help in ["--help", "-h"] {
        let expected = run("sh-pairs", &[help], "").success().to_string();
        assert!(expected.contains("Usage: sh-pairs"), "{expected}");
        for args in [&["-k", "99", help][..], &[help, "-k", "99"], &["-b", "0", help]] {
            assert_eq!(run("sh-pairs", args, "").success(), expected, "{args:?}");
        }
    }
    // After `--` it is no flag: the usage error stands.
    run("sh-pairs", &["-k", "99", "--", "--help"], "").failure(2, "sh-pairs: error: ");
}

fn cluster_rows() -> Vec<Row> {
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

fn rows() -> Vec<Row> {
    [tokenize_rows(), shingle_rows(), hash_rows(), compute_rows(), pairs_rows(), cluster_rows()]
        .into_iter()
        .flatten()
        .collect()
}

/// The records of an input as the contract counts them.
fn input_lines(input: &[u8]) -> usize {
    let newlines = input.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!input.is_empty() && !input.ends_with(b"\n"))
}

fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.len() > 200 {
        format!("{}… ({} bytes)", text.chars().take(200).collect::<String>(), bytes.len())
    } else {
        format!("{text:?}")
    }
}

fn check(row: &Row) -> Result<(), String> {
    let input = row.input.bytes();
    let result = run(row.command, &row.args, input.to_vec());
    let what = format!("{} {:?} on {}", row.command, row.args, shown(&input));
    if result.stderr.contains("panicked") {
        return Err(format!("{what}: panic: {}", result.stderr));
    }
    match &row.expect {
        Expect::Out(expected) => {
            let expected = expected.bytes();
            if result.code != Some(0) || !result.stderr.is_empty() {
                return Err(format!("{what}: exit {:?}, stderr {:?}", result.code, result.stderr));
            }
            if result.stdout[..] != expected[..] {
                return Err(format!(
                    "{what}: stdout {}, expected {}",
                    shown(&result.stdout),
                    shown(&expected)
                ));
            }
            if PER_DOCUMENT.contains(&row.command) {
                let lines_out = result.stdout.iter().filter(|&&b| b == b'\n').count();
                if lines_out != input_lines(&input) {
                    return Err(format!("{what}: {lines_out} lines out"));
                }
            }
        }
        Expect::Line { line, what: message, quoted } => {
            let expected = format!("{}: error: line {line}: {message}: '{quoted}'\n", row.command);
            if result.code != Some(1) || result.stderr != expected {
                return Err(format!(
                    "{what}: exit {:?}, stderr\n    {:?}\nexpected\n    {expected:?}",
                    result.code, result.stderr
                ));
            }
        }
        Expect::Flag(prefix) => {
            if result.code != Some(2) || !result.stderr.starts_with(prefix) {
                return Err(format!("{what}: exit {:?}, stderr {:?}", result.code, result.stderr));
            }
        }
    }
    Ok(())
}

#[test]
fn every_row_of_the_matrix() {
    let rows = rows();
    // Two at a time: the 100 MB rows dominate, and the machine may have two cores.
    let (left, right) = rows.split_at(rows.len() / 2);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let halves = [left, right].map(|half| {
            scope.spawn(move || half.iter().filter_map(|row| check(row).err()).collect::<Vec<_>>())
        });
        halves.into_iter().flat_map(|h| h.join().expect("matrix thread")).collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn matrix_is_the_documented_size() {
    assert_eq!(rows().len(), ROWS, "update ROWS and docs/RELIABILITY.md");
}
