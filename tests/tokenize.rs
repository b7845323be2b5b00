//! Integration tests of sh-tokenize through the built binary.

use crate::util::run;

#[test]
fn one_output_line_per_input_line() {
    let input = "Hello, World!\r\n\r\n  \n\t-- \nno final newline";
    let out = run("sh-tokenize", &[], input);
    assert_eq!(out.success(), "hello world\n\n\n\nno final newline\n");
    assert_eq!(run("sh-tokenize", &[], "").success(), "");
    assert_eq!(run("sh-tokenize", &[], "\n").success(), "\n");
}

#[test]
fn unicode_words_and_invalid_utf8() {
    let input = ["ÉCOLE Straße\n東京タワー\n".as_bytes(), b"ab\xffcd\0ef\n"].concat();
    let out = run("sh-tokenize", &[], input);
    assert_eq!(out.success(), "école straße\n東 京 タ ワ ー\nab cd ef\n");
}

#[test]
fn modes() {
    let seed = "what's new?How5is _ the ^# stuff\n";
    let out = run("sh-tokenize", &["--mode", "ascii", "--keep-case"], seed);
    assert_eq!(out.success(), "what s new How is the stuff\n");
    assert_eq!(run("sh-tokenize", &["-m", "alpha"], "R2D2 x\n").success(), "r d x\n");
    assert_eq!(run("sh-tokenize", &["-m", "words"], "R2D2 x\n").success(), "r2d2 x\n");
    assert_eq!(run("sh-tokenize", &["-m", "space"], "Don't STOP\n").success(), "don't stop\n");
    assert_eq!(run("sh-tokenize", &["-m", "chars"], "Ab c\n").success(), "a b c\n");
}

#[test]
fn with_id_keeps_ids_byte_for_byte() {
    let input = b"d1\tHello World\nno tab Here\n \tonly text\nd\xff4\tX\ty\nempty\t\n".to_vec();
    let out = run("sh-tokenize", &["--with-id"], input);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, b"d1\thello world\nno tab here\n \tonly text\nd\xff4\tx y\nempty\t\n");
}

#[test]
fn json_lines() {
    let input = concat!(
        r#"{"url": "u1", "body": "Hello\nWorld", "n": [1, {"a": 2}]}"#,
        "\n\n",
        r#"{"body": "", "url": 7}"#,
        "\n",
    );
    let args = ["--json", "--text-field", "body", "--id-field", "url"];
    assert_eq!(run("sh-tokenize", &args, input).success(), "u1\thello world\n\n7\t\n");
    let out = run("sh-tokenize", &["--json"], r#"{"text": "A b"}"#);
    assert_eq!(out.success(), "a b\n");
}

/// A byte-order mark (U+FEFF) at the start of a line is no part of the document: not of the
/// first id, not of the JSON, not a token, on the first line and on a later one (files joined
/// by cat); one inside the line is kept.
#[test]
fn a_byte_order_mark_at_the_start_of_a_line_is_dropped() {
    let bom = "\u{feff}";
    let input = format!("{bom}d1\tHello world\n{bom}d2\tHello{bom} world\n");
    let out = run("sh-tokenize", &["--with-id"], input.as_str());
    assert_eq!(out.success(), "d1\thello world\nd2\thello world\n");
    let out = run("sh-tokenize", &["--with-id", "--mode", "chars"], input.as_str());
    assert_eq!(out.success(), format!("d1\th e l l o w o r l d\nd2\th e l l o {bom} w o r l d\n"));
    let input = format!("{bom}{{\"id\": \"a\", \"text\": \"X y\"}}\n{bom}{{\"text\": \"z\"}}\n");
    let out = run("sh-tokenize", &["--json", "--id-field", "id"], input.as_str());
    assert_eq!(out.stdout, b"a\tx y\n", "the first line is read");
    assert_eq!(out.code, Some(1), "the second line has no id");
    assert!(out.stderr.contains("line 2: "), "{}", out.stderr);
    let out = run("sh-tokenize", &["--json"], input.as_str());
    assert_eq!(out.success(), "x y\nz\n");
    let out = run("sh-tokenize", &["--mode", "space"], format!("{bom}Hi there\n").as_str());
    assert_eq!(out.success(), "hi there\n");
}

/// A file saved as UTF-16 or UTF-32 (line 1 starts with the encoding's byte-order mark) is read
/// as UTF-8, as any input is, with one note; such a mark on a later line, or UTF-8's own,
/// gives none.
#[test]
fn a_utf16_file_is_read_as_it_is_with_a_note() {
    let note_of = |mark: &str, encoding: &str| {
        format!(
            "sh-tokenize: note: line 1 starts with {mark}, the byte-order mark of {encoding}: the \
             input is read as UTF-8, and {encoding} text read so is garbage; convert it first \
             (iconv -f {encoding} -t UTF-8)\n"
        )
    };
    let note = |mark: &str| note_of(mark, "UTF-16");
    let text = "\u{feff}d1\tHello world\nd2\tHi\n";
    let little: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let out = run("sh-tokenize", &["--with-id"], little);
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, note("FF FE"));
    // What it was before the note: every NUL is a boundary, the TAB found, each letter a token.
    let want = b"\xff\xfed\x001\x00\th e l l o w o r l d\n\x00d\x002\x00\th i\n\n";
    assert_eq!(out.stdout, want);
    let big: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let out = run("sh-tokenize", &[], big.clone());
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, note("FE FF"));
    assert_eq!(out.stdout, b"d 1 h e l l o w o r l d\nd 2 h i\n");
    // --quiet: the same output, no note.
    for quiet in ["-q", "--quiet"] {
        let out = run("sh-tokenize", &[quiet], big.clone());
        assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""), "{quiet}");
        assert_eq!(out.stdout, b"d 1 h e l l o w o r l d\nd 2 h i\n");
    }
    // JSON in UTF-16 is no JSON: the note, then the error at line 1.
    let json: Vec<u8> = "{\"text\": \"a\"}\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let out = run("sh-tokenize", &["--json"], [&b"\xff\xfe"[..], &json].concat());
    assert_eq!(out.code, Some(1));
    let (first, second) = out.stderr.split_once('\n').unwrap();
    assert_eq!(format!("{first}\n"), note("FF FE"));
    assert!(second.starts_with("sh-tokenize: error: line 1: invalid JSON"), "{second}");
    let utf32: Vec<u8> = "\u{feff}a\n".chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
    let out = run("sh-tokenize", &[], utf32);
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, note_of("FF FE 00 00", "UTF-32"));
    let big32: Vec<u8> = "\u{feff}a\n".chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
    assert_eq!(run("sh-tokenize", &[], big32).stderr, note_of("00 00 FE FF", "UTF-32"));
    // From a file, as from a pipe; one of two bytes is no mark.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("utf16.txt");
    std::fs::write(&path, [&b"\xff\xfe"[..], &json].concat()).unwrap();
    let out = run("sh-tokenize", &["-i", path.to_str().unwrap()], "");
    assert_eq!(out.stderr, note("FF FE"));
    assert_eq!(run("sh-tokenize", &[], &b"\xff"[..]).success(), "\n");
    let later = run("sh-tokenize", &[], &b"a b\n\xff\xfec d\n\xfe\xffe\n"[..]);
    assert_eq!(later.success(), "a b\nc d\ne\n");
    assert_eq!(run("sh-tokenize", &[], "\u{feff}a\n").success(), "a\n");
}

#[test]
fn json_errors_name_the_line_and_exit_1() {
    let cases: [(&[&str], &str, &str); 5] = [
        (&[], "{\"text\": \"a\"}\n{\"text\": ", "line 2: invalid JSON"),
        (
            &[],
            "{\"text\": \"a\"}\n\n[1]\n",
            "line 3: invalid type: sequence, expected a JSON object",
        ),
        (&[], "{\"txt\": \"a\"}\n", "line 1: no field \"text\""),
        (&[], "{\"text\": 5}\n", "line 1: field \"text\": invalid type: integer `5`"),
        (&["--id-field", "id"], "{\"id\": \"a\\tb\", \"text\": \"\"}", "line 1: an id cannot hold"),
    ];
    for (extra, input, message) in cases {
        let mut args = vec!["--json"];
        args.extend(extra);
        let out = run("sh-tokenize", &args, input);
        out.failure(1, &format!("sh-tokenize: error: {message}"));
    }
    let deep = format!("{{\"text\": {}}}\n", "[".repeat(10_000));
    run("sh-tokenize", &["--json"], deep).failure(1, "sh-tokenize: error: line 1: field \"text\"");
}

#[test]
fn usage_errors_exit_2() {
    run("sh-tokenize", &["--with-id", "--json"], "").failure(2, "sh-tokenize: error:");
    run("sh-tokenize", &["--text-field", "body"], "").failure(2, "sh-tokenize: error:");
    run("sh-tokenize", &["--mode", "bytes"], "").failure(2, "sh-tokenize: error:");
    let same = ["--json", "--id-field", "text"];
    run("sh-tokenize", &same, "").failure(2, "sh-tokenize: error: --id-field and --text-field");
}

#[test]
fn input_and_output_files() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    std::fs::write(&input, "A b\nC\n").expect("write input");
    let (input, output) = (input.to_str().expect("UTF-8 path"), output.to_str().expect("path"));
    assert_eq!(run("sh-tokenize", &["-i", input, "-o", output, "--quiet"], "").success(), "");
    assert_eq!(std::fs::read_to_string(output).expect("output"), "a b\nc\n");

    // A failed run leaves the output file as it was.
    let bad = run("sh-tokenize", &["--json", "-o", output], "{\"text\": \"x\"}\nnot json\n");
    bad.failure(1, "sh-tokenize: error: line 2: invalid JSON");
    assert_eq!(std::fs::read_to_string(output).expect("output"), "a b\nc\n");
}
