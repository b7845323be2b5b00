//! sh-fingerprint against the pipeline it stands for: for every flag combination, on random and
//! hostile documents, on one thread and on several with tiny chunks (so that chunks finish out
//! of order), the same bytes on stdout, the same exit status and the same error message (but
//! for the command's name) as `sh-tokenize | sh-shingle | sh-hash | [sh-weight |] sh-compute`.

use std::path::Path;

use clap::CommandFactory;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use crate::util::{join_lines, run, Run};

/// A flag combination, as the stages take it; sh-fingerprint takes all of them at once.
#[derive(Debug, Clone, Copy)]
struct Combo {
    tokenize: &'static [&'static str],
    shingle: &'static [&'static str],
    hash: &'static [&'static str],
    /// sh-weight's flags besides `--df TABLE`, the table being sh-df's of the input's hashes;
    /// `None`: no sh-weight in the pipeline.
    weight: Option<&'static [&'static str]>,
    compute: &'static [&'static str],
    json: bool,
}

const PLAIN: Combo =
    Combo { tokenize: &[], shingle: &[], hash: &[], weight: None, compute: &[], json: false };

const COMBOS: [Combo; 10] = [
    PLAIN,
    Combo { tokenize: &["--with-id"], shingle: &["-w", "3"], ..PLAIN },
    Combo {
        tokenize: &["--with-id", "-m", "chars", "--keep-case"],
        hash: &["--seed", "0x1234"],
        compute: &["--bits", "256"],
        ..PLAIN
    },
    Combo {
        tokenize: &["--mode", "ascii"],
        shingle: &["--window", "1"],
        compute: &["--bits", "128"],
        ..PLAIN
    },
    Combo {
        tokenize: &["--json", "--id-field", "id", "--text-field", "body", "-m", "space"],
        shingle: &["-w", "4"],
        hash: &["--seed", "18446744073709551615"],
        json: true,
        ..PLAIN
    },
    Combo {
        tokenize: &["--with-id"],
        weight: Some(&["--max-df", "0.3", "--df-floor", "0", "--idf"]),
        compute: &["--bits", "128"],
        ..PLAIN
    },
    Combo { tokenize: &["--with-id", "-m", "alpha"], weight: Some(&["--df-floor", "1"]), ..PLAIN },
    Combo {
        tokenize: &["--with-id"],
        weight: Some(&["--max-df", "0.2", "--df-floor", "0", "--min-kept", "1"]),
        ..PLAIN
    },
    Combo {
        tokenize: &["--with-id"],
        weight: Some(&["--max-df", "0.1", "--df-floor", "0", "--min-run", "3", "--min-kept", "0"]),
        compute: &["--bits", "256"],
        ..PLAIN
    },
    Combo {
        tokenize: &["-m", "chars"],
        shingle: &["-w", "1"],
        weight: Some(&["--max-tf", "2", "--max-df", "1"]),
        compute: &["--bits", "256"],
        ..PLAIN
    },
];

/// What a run of the pipeline or of sh-fingerprint left: stdout, the exit status, and the
/// first error message (or, without one, the first note) without the name of the command that
/// gave it.
#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: String,
    code: Option<i32>,
    error: String,
}

/// The stdout of a run, shown with its bytes escaped.
fn shown(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

/// What a stage wrote to stderr (its error, or a note), without `NAME: ` at each line's start.
fn message(run: &Run, name: &str) -> String {
    let prefix = format!("{name}: ");
    run.stderr
        .split_inclusive('\n')
        .map(|line| line.strip_prefix(&prefix).unwrap_or(line))
        .collect()
}

/// The pipeline as `bash -o pipefail` runs it: each stage reads what the one before wrote,
/// even after that one failed; the status and message are those of the first stage to fail,
/// or when none fails the first note.
fn pipeline(combo: &Combo, input: &[u8], dir: &Path) -> Outcome {
    let mut failed: Option<(Option<i32>, String)> = None;
    let mut noted: Option<String> = None;
    let mut stage = |name: &str, args: &[&str], stdin: Vec<u8>| {
        let out = run(name, args, stdin);
        assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
        if out.code != Some(0) && failed.is_none() {
            failed = Some((out.code, message(&out, name)));
        } else if !out.stderr.is_empty() && noted.is_none() {
            noted = Some(message(&out, name));
        }
        out.stdout
    };
    let tokens = stage("sh-tokenize", combo.tokenize, input.to_vec());
    let shingles = stage("sh-shingle", combo.shingle, tokens);
    let mut hashes = stage("sh-hash", combo.hash, shingles);
    if let Some(weight) = combo.weight {
        let table = dir.join("df");
        std::fs::write(&table, stage("sh-df", &[], hashes.clone())).expect("write the table");
        let mut args = vec!["--df", table.to_str().expect("UTF-8 path")];
        args.extend(weight);
        hashes = stage("sh-weight", &args, hashes);
    }
    let fingerprints = stage("sh-compute", combo.compute, hashes);
    let (code, error) = failed.unwrap_or((Some(0), noted.unwrap_or_default()));
    Outcome { stdout: shown(&fingerprints), code, error }
}

/// sh-fingerprint with the combination's flags and `more`.
fn fused(combo: &Combo, input: &[u8], dir: &Path, more: &[&str]) -> Outcome {
    let table = dir.join("df");
    let mut args: Vec<&str> = [combo.tokenize, combo.shingle, combo.hash].concat();
    if let Some(weight) = combo.weight {
        args.extend(["--df", table.to_str().expect("UTF-8 path")]);
        args.extend(weight);
    }
    args.extend(combo.compute);
    args.extend(more);
    let out = run("sh-fingerprint", &args, input);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    Outcome { stdout: shown(&out.stdout), code: out.code, error: message(&out, "sh-fingerprint") }
}

/// The pipeline, then sh-fingerprint on one thread and on two and three with chunks of
/// `chunk_bytes`: all four alike.
fn check(combo: &Combo, input: &[u8], chunk_bytes: u32) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let expected = pipeline(combo, input, dir.path());
    let chunk = format!("--chunk-bytes={chunk_bytes}");
    for more in [&["-j", "1"][..], &["-j", "2", &chunk], &["-j3", &chunk]] {
        let got = fused(combo, input, dir.path(), more);
        prop_assert_eq!(&got, &expected, "{:?} {:?}", combo, more);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Documents.

/// Words that repeat from document to document (so that the table has common items), in
/// several scripts, with marks, digits and capitals for the modes to differ on.
const WORDS: &[&str] = &[
    "the",
    "The",
    "river",
    "Straße",
    "ÉCOLE",
    "ΟΔΟΣ",
    "Привет",
    "東京",
    "タワー",
    "안녕하세요",
    "cafe\u{301}",
    "R2D2",
    "٣٤",
    "route66",
    "don't",
    "snake_case",
    "a:1",
    "İ",
    "x",
];

/// What goes between words: spaces, TABs, CRs, punctuation, Unicode spaces, NUL.
const SEPARATORS: &[&str] =
    &[" ", " ", " ", "  ", "\t", ",", ". ", "\r", "\0", "\u{a0}", "\u{3000}", "_", "-"];

/// Bytes that are no words: invalid UTF-8, controls, ASCII punctuation.
const ODD_BYTES: &[u8] = b"\xff\xfe\xc3\xe4\xb8\x80\x1b\x0b:;!?#";

/// Text of words, separators and odd bytes, never an LF.
fn text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        6 => select(WORDS).prop_map(|w| w.as_bytes().to_vec()),
        5 => select(SEPARATORS).prop_map(|s| s.as_bytes().to_vec()),
        1 => select(ODD_BYTES).prop_map(|b| vec![b]),
        1 => any::<u8>().prop_filter("no LF", |&b| b != b'\n').prop_map(|b| vec![b]),
    ];
    vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

/// A non-empty id: any bytes but TAB and LF.
fn id() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        3 => select(&b"doc-17_"[..]),
        1 => any::<u8>().prop_filter("no TAB, no LF", |&b| b != b'\t' && b != b'\n'),
    ];
    vec(byte, 1..8)
}

/// A line for sh-tokenize's text modes: `ID<TAB>TEXT`, text alone, an empty line, and rarely
/// `<TAB>TEXT`, an empty id (an error with --with-id).
fn text_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        10 => (id(), text()).prop_map(|(id, text)| [id, b"\t".to_vec(), text].concat()),
        6 => text().prop_map(|text| text.into_iter().filter(|&b| b != b'\t').collect()),
        1 => Just(Vec::new()),
        1 => text().prop_map(|text| [b"\t".to_vec(), text].concat()),
        // A byte-order mark before the id, as a file made elsewhere starts.
        1 => (id(), text()).prop_map(|(id, text)| [BOM, &id, b"\t", &text].concat()),
    ]
}

/// U+FEFF, dropped at the start of a line by both.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Text as a JSON string: the escapes JSON needs, sometimes more of them, and raw bytes
/// (invalid UTF-8 included, which the text field accepts).
fn json_string(text: &[u8], escape_more: bool) -> Vec<u8> {
    let mut out = b"\"".to_vec();
    for &b in text {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'a' if escape_more => out.extend_from_slice(b"\\u0061"),
            0..0x20 => out.extend_from_slice(format!("\\u{:04x}", b).as_bytes()),
            _ => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// A line for `--json --id-field id --text-field body`: mostly good objects, fields in either
/// order, other fields beside; blank lines; and rarely each of the faults.
fn json_line() -> impl Strategy<Value = Vec<u8>> {
    let good_id = prop_oneof![
        (id(), any::<bool>()).prop_map(|(id, more)| {
            let id: Vec<u8> = id.into_iter().filter(|&b| b != b'\r' && b < 0x80).collect();
            json_string(if id.is_empty() { b"x" } else { &id }, more)
        }),
        any::<i64>().prop_map(|n| n.to_string().into_bytes()),
        Just(b"18446744073709551615".to_vec()),
    ];
    let good = (good_id, text(), any::<bool>(), any::<bool>())
        .prop_map(|(id, text, body_first, more)| {
            let (id, body) = ([b"\"id\": ".to_vec(), id].concat(), json_string(&text, more));
            let body = [b"\"body\": ".to_vec(), body].concat();
            let extra = b"\"seen\": [1, {\"a\": null}, \"\\ud800\"]".to_vec();
            let fields = if body_first { [body, extra, id] } else { [id, extra, body] };
            [b"{".to_vec(), fields.join(&b", "[..]), b"}".to_vec()].concat()
        })
        .boxed();
    prop_oneof![
        30 => good.clone(),
        1 => good.prop_map(|line| [BOM, &line].concat()),
        2 => Just(b"  \r".to_vec()),
        1 => Just(br#"{"id": "", "body": "empty id"}"#.to_vec()),
        1 => Just(br#"{"id": 1.5, "body": "a float"}"#.to_vec()),
        1 => Just(br#"{"id": "a", "text": "no body"}"#.to_vec()),
        1 => Just(br#"{"id": "a", "body": 7}"#.to_vec()),
        1 => Just(br#"{"id": "a", "body": "x""#.to_vec()),
        1 => Just(br#"["id", "body"]"#.to_vec()),
    ]
}

fn input_for(json: bool) -> BoxedStrategy<Vec<u8>> {
    let line = if json { json_line().boxed() } else { text_line().boxed() };
    (vec((line, any::<bool>()), 0..40), any::<bool>())
        .prop_map(|(lines, final_newline)| join_lines(lines, final_newline))
        .boxed()
}

fn combo_and_input() -> impl Strategy<Value = (Combo, Vec<u8>)> {
    select(&COMBOS[..]).prop_flat_map(|combo| (Just(combo), input_for(combo.json)))
}

proptest! {
    // Each case runs five to seven commands (the stages take a fifth of a second each to start
    // on non-ASCII text in a debug build), so the cases are few and their inputs long.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn equals_the_pipeline_byte_for_byte(
        (combo, input) in combo_and_input(),
        chunk_bytes in 1u32..120,
    ) {
        check(&combo, &input, chunk_bytes)?;
    }
}

/// Every combination at least once, on one input of each kind with faults at known lines.
#[test]
fn every_combination_on_hostile_documents() {
    let text = [
        &b"\xEF\xBB\xBFd1\tThe river, the RIVER; the river again and again"[..],
        b"",
        b"d2\t\xff\xfe\x00 caf\xc3\xa9 Stra\xc3\x9fe \xe6\x9d\xb1\xe4\xba\xac\xe3\x82\xbf \r x",
        b"no id here, just text with\ttabs",
        b"d\r3\t   ",
        b"d4\tthe river the river the river\r",
        "d5\t東京タワー 안녕하세요 ΟΔΟΣ İ \u{301}x".as_bytes(),
    ]
    .join(&b"\r\n"[..]);
    let faulty = [&text[..], b"\r\n\tan empty id on line 8\nd9\tlater"].concat();
    let json = [
        &br#"{"id": "j1", "body": "The river, the river"}"#[..],
        b"\xEF\xBB\xBF   ",
        br#"{"body": "caf\u00e9 \ud800 Stra\u00dfe", "id": -7, "x": [[[]]]}"#,
        b"{\"id\": 4, \"body\": \"raw \xff bytes\"}",
    ]
    .join(&b"\n"[..]);
    let json_faulty =
        [&json[..], b"\n{\"id\": \"\", \"body\": \"x\"}\n{\"id\": 6, \"body\": \"y\"}"].concat();
    for combo in COMBOS {
        let inputs: [&[u8]; 3] =
            if combo.json { [&json, &json_faulty, b""] } else { [&text, &faulty, b""] };
        for input in inputs {
            check(&combo, input, 7).unwrap();
        }
    }
    // The faults are where they should be, and the lines before them are written.
    let dir = tempfile::tempdir().unwrap();
    let with_id = Combo { tokenize: &["--with-id"], ..PLAIN };
    let out = fused(&with_id, &faulty, dir.path(), &["-j", "2", "--chunk-bytes", "3"]);
    assert_eq!(
        (out.code, out.error.as_str()),
        (Some(1), "error: line 8: empty id: '\\tan empty id on line 8'\n")
    );
    assert_eq!(out.stdout.matches("\\n").count(), 7, "{}", out.stdout);
}

/// A byte-order mark at the start of lines changes no fingerprint: the output is that of the
/// same lines without it, on one thread and on several, with ids and in JSON.
#[test]
fn a_byte_order_mark_at_the_start_of_a_line_changes_nothing() {
    let lines = ["d1\tThe river flows on and on", "d2\tA river flows on", "", "d3\tx y z"];
    let json = [r#"{"id": "d1", "text": "The river"}"#, r#"{"id": 2, "text": "a b c d"}"#];
    for (flags, lines) in
        [(&["--with-id"][..], &lines[..]), (&["--json", "--id-field", "id"], &json)]
    {
        let plain = lines.join("\n") + "\n";
        let marked: String = lines.iter().map(|line| format!("\u{feff}{line}\n")).collect();
        for threads in ["1", "2"] {
            let more = ["-j", threads, "--chunk-bytes", "5"];
            let args = [flags, &more[..]].concat();
            let expected = run("sh-fingerprint", &args, plain.as_str()).success().to_string();
            assert_eq!(expected.lines().count(), lines.len());
            assert_eq!(run("sh-fingerprint", &args, marked.as_str()).success(), expected);
        }
    }
}

/// A file saved as UTF-16 gives what the stages give, on any number of threads, and the note
/// once, from a pipe or from a file read in blocks on threads; a mark on a later line, at the
/// start of a block, gives none.
#[test]
fn a_utf16_file_gives_what_the_stages_give_and_one_note() {
    let text = "\u{feff}d1\tThe river flows on\nd2\tA river flows on and on\nd3\tx\n";
    let little: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    for combo in [COMBOS[0], COMBOS[1], COMBOS[2]] {
        check(&combo, &little, 5).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("input");
    let name = file.to_str().unwrap();
    let note =
        "sh-fingerprint: note: line 1 starts with FF FE, the byte-order mark of UTF-16: the \
                input is read as UTF-8, and UTF-16 text read so is garbage; convert it first \
                (iconv -f UTF-16 -t UTF-8)\n";
    let later = b"a b\n\xff\xfec d\n\xfe\xffe\nf\n\xff\xfeg\n\xff\xfeh";
    std::fs::write(&file, &little).unwrap();
    for threads in ["1", "2", "3"] {
        let args = ["-j", threads, "--chunk-bytes", "5"];
        let piped = run("sh-fingerprint", &args, little.clone());
        assert_eq!(piped.code, Some(0));
        assert_eq!(piped.stdout_str().lines().count(), 4, "a line for each LF and the NUL after");
        assert_eq!(piped.stderr, note);
        std::fs::write(&file, &little).unwrap();
        let read = run("sh-fingerprint", &[&args[..], &["-i", name]].concat(), "");
        assert_eq!((read.stdout_str(), read.stderr.as_str()), (piped.stdout_str(), note));
        // --quiet: the same fingerprints, no note.
        let quiet = run("sh-fingerprint", &[&args[..], &["-q", "-i", name]].concat(), "");
        assert_eq!(quiet.success(), piped.stdout_str());
        std::fs::write(&file, later).unwrap();
        let read = run("sh-fingerprint", &[&args[..], &["-i", name]].concat(), "");
        assert_eq!(read.success().lines().count(), 6);
        assert_eq!(run("sh-fingerprint", &args, &later[..]).success(), read.stdout_str());
    }
}

/// Lines longer than the stages' 1 MB pieces, among short ones, on several threads.
#[test]
fn very_long_lines() {
    let long: Vec<u8> =
        (0..150_000).flat_map(|i| format!("{} ", WORDS[i % WORDS.len()]).into_bytes()).collect();
    let input =
        [&b"short\tone two"[..], &[b"long\t", &long[..]].concat(), b"tail\tthree four", &long]
            .join(&b"\n"[..]);
    assert!(input.len() > 2 << 20);
    for combo in [COMBOS[1], COMBOS[2]] {
        check(&combo, &input, 1000).unwrap();
    }
}

#[test]
fn the_output_file_is_replaced_only_on_success() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fingerprints");
    let target = path.to_str().unwrap();
    std::fs::write(&path, "old\n").unwrap();
    let failed = run("sh-fingerprint", &["--with-id", "-o", target], "a\tb c\n\td\n");
    failed.failure(1, "sh-fingerprint: error: line 2: empty id: '\\td'");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
    let done = run("sh-fingerprint", &["--with-id", "-j", "2", "-o", target], "a\tb c\n");
    done.success();
    let expected = run("sh-compute", &[], run("sh-hash", &[], "a\tb_c\n").stdout);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected.success());
}

#[test]
fn flags_that_do_not_fit_are_usage_errors() {
    for (args, prefix) in [
        (&["--weighted"][..], "sh-fingerprint: error: --weighted is not supported"),
        (&["--idf"], "sh-fingerprint: error: the following required arguments were not provided"),
        (&["--max-df", "0.5"], "sh-fingerprint: error: the following required arguments"),
        (
            &["--with-id", "--json"],
            "sh-fingerprint: error: the argument '--with-id' cannot be used with '--json'",
        ),
        (
            &["--json", "--id-field", "text"],
            "sh-fingerprint: error: --id-field and --text-field must name different fields",
        ),
        (&["-j", "0"], "sh-fingerprint: error: invalid value '0' for '--threads <N>'"),
        (&["-w", "0"], "sh-fingerprint: error: invalid value '0' for '--window <N>'"),
        (&["--bits", "96"], "sh-fingerprint: error: invalid value '96' for '--bits <N>'"),
    ] {
        run("sh-fingerprint", args, "a b\n").failure(2, prefix);
    }
}

#[test]
fn a_bad_table_is_the_error_sh_weight_gives() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("df");
    std::fs::write(&table, "#documents\t3\nx\t4\n").unwrap();
    let table = table.to_str().unwrap();
    let weight = run("sh-weight", &["--df", table], "1 2\n");
    let fused = run("sh-fingerprint", &["--df", table], "a b\n");
    fused.failure(1, "sh-fingerprint: error: ");
    assert_eq!(message(&fused, "sh-fingerprint"), message(&weight, "sh-weight"));
    assert!(
        weight.stderr.contains("line 2: count above the table's 3 documents"),
        "{}",
        weight.stderr
    );
    // A table of no documents, and documents to weigh with it.
    std::fs::write(dir.path().join("df"), "#documents\t0\n").unwrap();
    let weight = run("sh-weight", &["--df", table], "1 2\n");
    let fused = run("sh-fingerprint", &["--df", table, "-j", "2"], "a b\n");
    fused.failure(1, "sh-fingerprint: error: ");
    assert_eq!(message(&fused, "sh-fingerprint"), message(&weight, "sh-weight"));
    run("sh-fingerprint", &["--df", table], "").success();
}

/// Every flag of a stage that sh-fingerprint has too has the same short form, value name,
/// default and possible values there; and every flag of the four stages and sh-weight is in
/// sh-fingerprint but those that make no sense in one process.
#[test]
fn the_stages_flags_are_its_flags() {
    let fused = sh_fingerprint::Args::command();
    let describe = |arg: &clap::Arg| {
        let values: Vec<String> =
            arg.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
        (
            arg.get_short(),
            arg.get_long().map(str::to_string),
            arg.get_value_names().map(|names| names.to_vec()),
            arg.get_default_values().to_vec(),
            values,
            arg.get_num_args(),
        )
    };
    let stages = [
        sh_tokenize::Args::command(),
        sh_shingle::Args::command(),
        sh_hash::Args::command(),
        sh_weight::Args::command(),
        sh_compute::Args::command(),
    ];
    let mut checked = 0;
    for stage in stages {
        for arg in stage.get_arguments() {
            let id = arg.get_id().as_str();
            // Its own input and output, and sh-hash's and sh-weight's --weighted (refused).
            if ["input", "output", "quiet", "help", "version", "weighted"].contains(&id) {
                continue;
            }
            let Some(ours) = fused.get_arguments().find(|a| a.get_id() == arg.get_id()) else {
                panic!("{}'s --{id} is not a flag of sh-fingerprint", stage.get_name());
            };
            assert_eq!(describe(ours), describe(arg), "{} --{id}", stage.get_name());
            checked += 1;
        }
    }
    // 17, and sh-weight's and sh-compute's -j and --chunk-bytes, which sh-fingerprint has too.
    assert_eq!(checked, 21, "the flags of the stages");
}

/// The plain combination with the weighing flags `weight`: the stages and sh-fingerprint write
/// the same fingerprints, without a fault; what they write, escaped.
fn weighed_alike(weight: &'static [&'static str], input: &str, dir: &Path) -> String {
    let combo = Combo { weight: Some(weight), ..PLAIN };
    let staged = pipeline(&combo, input.as_bytes(), dir);
    assert_eq!(fused(&combo, input.as_bytes(), dir, &[]), staged, "{weight:?}");
    assert_eq!(staged.code, Some(0));
    staged.stdout
}

/// --min-run reaches the weighing: a word pair that every document has, standing alone amid
/// each one's own text, goes at --min-run 1 and stays at 2, where the fingerprints are those of
/// a rule that leaves nothing out.
#[test]
fn min_run_is_passed_to_the_weighing() {
    let mut input = String::new();
    for doc in 0..30 {
        let mut words: Vec<String> = (0..20).map(|i| format!("d{doc}w{i}")).collect();
        words.insert(10, "the".into());
        words.insert(11, "same".into());
        input += &words.join(" ");
        input.push('\n');
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut outputs = Vec::new();
    for weight in [
        &["--max-df", "0.5", "--df-floor", "0", "--min-run", "1"][..],
        &["--max-df", "0.5", "--df-floor", "0", "--min-run", "2"][..],
        &["--max-df", "1", "--df-floor", "0"][..],
    ] {
        outputs.push(weighed_alike(weight, &input, dir.path()));
    }
    assert_ne!(outputs[0], outputs[1], "a lone common item goes at 1 and stays at 2");
    assert_eq!(outputs[1], outputs[2], "at 2 nothing is left out");
}

/// --min-kept reaches the weighing: on a family of 60 copies of one text (each with an edit
/// in its middle) among 40 other documents, the default keeps each copy whole and --min-kept 0
/// keeps only its edit, and either way sh-fingerprint writes what the stages write.
#[test]
fn min_kept_is_passed_to_the_weighing() {
    let text: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let mut input = String::new();
    for copy in 0..60 {
        let mut words = text.clone();
        words[20] = format!("edit{copy}");
        input += &words.join(" ");
        input.push('\n');
    }
    for other in 0..40 {
        let words: Vec<String> = (0..40).map(|i| format!("o{other}x{i}")).collect();
        input += &words.join(" ");
        input.push('\n');
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut outputs = Vec::new();
    for weight in [&[][..], &["--min-kept", "0"][..]] {
        outputs.push(weighed_alike(weight, &input, dir.path()));
    }
    assert_ne!(outputs[0], outputs[1], "the rule changes the copies' fingerprints");
    // With the rule the copies, kept whole, lie close together: the first two are nearer
    // than without it.
    let first_two = |out: &str| {
        let fps: Vec<u64> =
            out.split("\\n").take(2).map(|l| l.parse().expect("a 64-bit fingerprint")).collect();
        (fps[0] ^ fps[1]).count_ones()
    };
    assert!(first_two(&outputs[0]) < first_two(&outputs[1]), "{outputs:?}");
}
