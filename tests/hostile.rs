//! Hostile input through the real binaries: one table, one row per (command, input), each with
//! the exact output or the exact error message and exit status. Every row also checks that
//! nothing panicked and that a per-document stage wrote one line for each input line.
//!
//! docs/RELIABILITY.md gives the number of rows; `matrix_is_the_documented_size` keeps it true.
//!
//! This file holds the table's machinery, what rows share and the checks; the rows are in
//! `documents.rs` (sh-tokenize, sh-shingle, sh-hash, sh-compute) and `pairs.rs` (sh-pairs,
//! sh-cluster), and the hostile inputs that are no row in `cases.rs`.

use crate::util::run;

mod cases;
mod documents;
mod pairs;

/// How many rows the matrix has (docs/RELIABILITY.md says so).
const ROWS: usize = 191;

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
    flag_error_on(command, args, "1\n", prefix)
}

/// A usage error (exit 2) that the input's form decides, such as a K too large for its width.
fn flag_error_on(
    command: &'static str,
    args: &[&'static str],
    input: impl Into<Vec<u8>>,
    prefix: &'static str,
) -> Row {
    Row {
        command,
        args: args.to_vec(),
        input: Data::Now(input.into()),
        expect: Expect::Flag(prefix),
    }
}

/// `[[[…]]]` nested `depth` deep.
fn deep_array(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
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

const NOT_INTEGER: &str = "not an unsigned 64-bit integer (decimal or 0x hex)";
const SIGNED: &str = "signed number: hashes and fingerprints are unsigned 64-bit integers";
const TOO_LARGE: &str = "integer larger than 2^64-1";
const BAD_WEIGHT: &str = "weight is not a finite decimal number";
const EMPTY_ID: &str = "empty id";

fn rows() -> Vec<Row> {
    use documents::{compute_rows, hash_rows, shingle_rows, tokenize_rows};
    use pairs::{cluster_rows, pairs_rows};
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
