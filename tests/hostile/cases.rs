//! Hostile inputs that are no row of the matrix: an error in `sh-pairs --against FILE`, a JSON
//! integer id beyond 64 bits, help asked for beside a bad flag.

use super::*;
use crate::util::run_in;

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
