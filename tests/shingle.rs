//! Integration tests of sh-shingle through the built binary.

use crate::util::run;

#[test]
fn every_run_of_n_tokens_is_a_shingle() {
    let out = run("sh-shingle", &["-w", "3"], "the quick brown fox jumps\n");
    assert_eq!(out.success(), "the_quick_brown quick_brown_fox brown_fox_jumps\n");
    let out = run("sh-shingle", &[], "a b c d e f\n");
    assert_eq!(out.success(), "a_b b_c c_d d_e e_f\n", "the default window is 2");
    let out = run("sh-shingle", &["--window", "2"], "  a   b  c \n");
    assert_eq!(out.success(), "a_b b_c\n", "runs of spaces separate like one");
    assert_eq!(run("sh-shingle", &["-w", "1"], "a b a\n").success(), "a b a\n");
}

#[test]
fn short_documents_get_one_shingle_of_all_their_tokens() {
    let input = "hello world\na\na b c d\na b c\n";
    let out = run("sh-shingle", &["-w", "4"], input);
    assert_eq!(out.success(), "hello_world\na\na_b_c_d\na_b_c\n");
    let out = run("sh-shingle", &["-w", "100"], "\u{4e2d} \u{6587} \u{5b57}\n");
    assert_eq!(out.success(), "\u{4e2d}_\u{6587}_\u{5b57}\n");
}

#[test]
fn empty_lines_and_id_only_lines_are_kept() {
    let input = "\n   \nid\t\nid2\t   \na b\n\n";
    let out = run("sh-shingle", &["-w", "2"], input);
    assert_eq!(out.success(), "\n\nid\t\nid2\t\na_b\n\n");
    assert_eq!(run("sh-shingle", &[], "").success(), "", "no input, no output");
}

#[test]
fn crlf_is_dropped_and_a_last_line_without_newline_counts() {
    let out = run("sh-shingle", &["-w", "2"], "a b c\r\n\r\nd e");
    assert_eq!(out.success(), "a_b b_c\n\nd_e\n");
}

#[test]
fn ids_are_copied_byte_for_byte() {
    let input = b"d\xff\x01 \r\ta b c\n \tx y\nno id here\n\xe6\x9d\xb1 \xc3\t \n".to_vec();
    let out = run("sh-shingle", &["-w", "2"], input);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, b"d\xff\x01 \r\ta_b b_c\n \tx_y\nno_id id_here\n\xe6\x9d\xb1 \xc3\t\n");
}

#[test]
fn tokens_are_copied_byte_for_byte() {
    let out = run("sh-shingle", &["-w", "2"], b"\xff\x00 \xc3_:x 0x1\n".to_vec());
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, b"\xff\x00_\xc3_:x \xc3_:x_0x1\n");
}

#[test]
fn window_zero_is_a_usage_error() {
    let out = run("sh-shingle", &["-w", "0"], "a b\n");
    out.failure(2, "sh-shingle: error: invalid value '0' for '--window <N>'");
    assert_eq!(out.stdout, b"");
    run("sh-shingle", &["--window", "two"], "a b\n")
        .failure(2, "sh-shingle: error: invalid value 'two'");
}

#[test]
fn input_and_output_files() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("tokens.txt");
    let output = dir.path().join("shingles.txt");
    std::fs::write(&input, "a b c\nid\td e\n").expect("write input");
    let (input, output) = (input.to_str().expect("UTF-8 path"), output.to_str().expect("path"));
    assert_eq!(run("sh-shingle", &["-w", "2", "-i", input, "-o", output], "").success(), "");
    assert_eq!(std::fs::read_to_string(output).expect("output"), "a_b b_c\nid\td_e\n");

    // A failed run (here: an input that cannot be opened) leaves the output file as it was.
    let missing = dir.path().join("missing.txt");
    let missing = missing.to_str().expect("UTF-8 path");
    let out = run("sh-shingle", &["-i", missing, "-o", output], "");
    out.failure(1, &format!("sh-shingle: error: cannot open '{missing}': "));
    assert_eq!(std::fs::read_to_string(output).expect("output"), "a_b b_c\nid\td_e\n");
    let files = std::fs::read_dir(dir.path()).expect("list directory").count();
    assert_eq!(files, 2, "no temporary file is left behind");

    let nowhere = dir.path().join("no-such-directory").join("out.txt");
    let nowhere = nowhere.to_str().expect("UTF-8 path");
    let out = run("sh-shingle", &["-o", nowhere], "a b\n");
    out.failure(1, &format!("sh-shingle: error: cannot create output '{nowhere}': "));
}
