//! Integration tests of sh-score through the built binary: hand-made gold files whose counts
//! are worked out by hand.

use std::io::Write;

use crate::util::{pipeline, run};

/// A gold file in a temporary directory (kept alive with it).
fn gold_file(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("gold.tsv");
    std::fs::File::create(&path).and_then(|mut f| f.write_all(text.as_bytes())).expect("gold");
    let path = path.to_str().expect("UTF-8 path").to_string();
    (dir, path)
}

/// Runs sh-score with `--format tsv` and returns its one row of numbers.
fn tsv_row(args: &[&str], input: &str) -> Vec<String> {
    let args: Vec<&str> = args.iter().copied().chain(["--format", "tsv"]).collect();
    let out = run("sh-score", &args, input);
    let text = out.success();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "a header and one row: {text}");
    assert_eq!(lines[0], "tp\tfp\tfn\tprecision\trecall\tf1");
    lines[1].split('\t').map(str::to_string).collect()
}

#[test]
fn counts_and_ratios_of_a_hand_made_example() {
    // Gold: a-b, a-c, d-e, f-g. Predicted: a-b, c-a (reversed), d-e, x-y (unknown ids).
    // TP 3 (a-b, a-c, d-e), FP 1 (x-y), FN 1 (f-g: neither id is in the output).
    let (_dir, gold) = gold_file("a\tb\na\tc\nd\te\nf\tg\n");
    let predicted = "a\tb\t0\nc\ta\t2\nd\te\t3\nx\ty\t1\n";
    let row = tsv_row(&["--gold", &gold], predicted);
    assert_eq!(row, ["3", "1", "1", "0.75", "0.75", "0.75"]);
    let out = run("sh-score", &["-g", &gold], predicted);
    assert_eq!(
        out.success(),
        "tp  fp  fn  precision  recall      f1\n 3   1   1     0.7500  0.7500  0.7500\n",
        "text is the default format"
    );
}

/// Gold files saved with a byte-order mark, as pairs and as labels, score as without it: the
/// mark would otherwise make the first gold pair's id one that no prediction names.
#[test]
fn a_gold_file_that_starts_with_a_byte_order_mark_scores_as_without_it() {
    let predicted = "a\tb\t0\nc\td\t1\n";
    let (_dir, gold) = gold_file("\u{feff}a\tb\nc\td\n");
    assert_eq!(tsv_row(&["--gold", &gold], predicted), ["2", "0", "0", "1", "1", "1"]);
    let (_dir, labels) = gold_file("\u{feff}a\t1\nb\t1\nc\t2\nd\t2\n");
    let row = tsv_row(&["--gold", &labels, "--gold-format", "labels"], predicted);
    assert_eq!(row, ["2", "0", "0", "1", "1", "1"]);
    let row = tsv_row(&["--gold", &gold], &format!("\u{feff}{predicted}"));
    assert_eq!(row, ["2", "0", "0", "1", "1", "1"], "the predicted pairs' mark too");
}

/// A gold file or predicted pairs saved as UTF-16 are read as UTF-8, with a note naming the
/// file: its ids would match no others, silently, where its lines still parse.
#[test]
fn a_file_saved_as_utf16_is_noted() {
    let note = |file: &str| {
        format!(
            "sh-score: note: {file}line 1 starts with FF FE, the byte-order mark of UTF-16: the \
             input is read as UTF-8, and UTF-16 text read so is garbage; convert it first (iconv \
             -f UTF-16 -t UTF-8)\n"
        )
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("gold16.tsv");
    let name = path.to_str().expect("UTF-8 path");
    let utf16: Vec<u8> = "\u{feff}a\tb\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(&path, &utf16).expect("gold");
    let out = run("sh-score", &["--gold", name], "a\tb\t0\n");
    out.failure(1, &note(&format!("{name}: ")));
    assert!(
        out.stderr.ends_with(&format!(
            "{name}: line 2: a pair line needs two TAB-separated ids: '\\x00'\n"
        )),
        "{}",
        out.stderr
    );
    // Lines that still parse: the ids are not those of the other file, and the note says why.
    std::fs::write(&path, b"\xff\xfea\tb\n").expect("gold");
    let out = run("sh-score", &["--gold", name, "--format", "tsv"], "a\tb\t0\n");
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, note(&format!("{name}: ")));
    assert_eq!(out.stdout_str(), "tp\tfp\tfn\tprecision\trecall\tf1\n0\t1\t1\t0\t0\t0\n");
    // --quiet: the same scores, no note.
    let out = run("sh-score", &["--gold", name, "--format", "tsv", "-q"], "a\tb\t0\n");
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    assert_eq!(out.stdout_str(), "tp\tfp\tfn\tprecision\trecall\tf1\n0\t1\t1\t0\t0\t0\n");
    let (_dir, gold) = gold_file("a\tb\n");
    let out = run("sh-score", &["--gold", &gold, "--format", "tsv"], &b"\xfe\xffa\tb\n"[..]);
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, note("").replace("FF FE", "FE FF"));
    let out = run("sh-score", &["--gold", &gold, "--format", "tsv"], &b"a\tb\n\xff\xfex\ty\n"[..]);
    assert_eq!(out.stderr, "", "a mark on a later line is not noted");
}

#[test]
fn duplicates_and_either_order_count_once_in_both_files() {
    // Gold lists a-b three times (twice reversed) and c-d twice with extra fields.
    let (_dir, gold) = gold_file("a\tb\nb\ta\nc\td\tx\tyz\nb\ta\n\nd\tc\n");
    // Predicted: b-a and a-b (one pair), e-f twice (one false positive).
    let predicted = "b\ta\t1\na\tb\t1\ne\tf\t0\nf\te\t0\n";
    assert_eq!(tsv_row(&["-g", &gold], predicted), ["1", "1", "1", "0.5", "0.5", "0.5"]);
}

#[test]
fn ids_missing_from_the_output_are_false_negatives() {
    let (_dir, gold) = gold_file("a\tb\nc\td\ne\tf\n");
    assert_eq!(tsv_row(&["-g", &gold], ""), ["0", "0", "3", "1", "0", "0"]);
    assert_eq!(tsv_row(&["-g", &gold], "a\tc\t3\n"), ["0", "1", "3", "0", "0", "0"]);
    assert_eq!(
        tsv_row(&["-g", &gold], "f\te\t3\n"),
        ["1", "0", "2", "1", "0.3333333333333333", "0.5"]
    );
}

#[test]
fn zero_over_zero_has_the_documented_values() {
    let (_dir, empty) = gold_file("");
    assert_eq!(tsv_row(&["-g", &empty], ""), ["0", "0", "0", "1", "1", "1"]);
    assert_eq!(tsv_row(&["-g", &empty], "a\tb\t0\n"), ["0", "1", "0", "0", "1", "0"]);
}

#[test]
fn label_gold_makes_every_pair_within_a_label() {
    // Labels: {a, b, c} (a listed twice with the same label), {d, e}, {f} alone; g unlabelled.
    // Gold pairs: a-b, a-c, b-c, d-e = 4.
    let (_dir, gold) = gold_file("a\t1\nb\t1\nc\t1\nd\tx\ne\tx\textra\nf\t9\na\t1\n");
    let predicted = "c\tb\t1\na\tb\t2\nd\te\t0\nf\tg\t0\na\td\t1\n";
    let row = tsv_row(&["-g", &gold, "--gold-format", "labels"], predicted);
    assert_eq!(row, ["3", "2", "1", "0.6", "0.75", "0.6666666666666666"]);
}

#[test]
fn label_gold_from_sh_cluster_scores_its_own_pairs_perfectly() {
    let pairs = "a\tb\t1\nb\tc\t2\nd\te\t0\n";
    let labels = run("sh-cluster", &["--format", "labels"], pairs);
    let (_dir, gold) = gold_file(labels.success());
    // The pairs a-b, b-c, d-e are all gold; a-c is gold but not predicted.
    let row = tsv_row(&["-g", &gold, "--gold-format", "labels"], pairs);
    assert_eq!(row, ["3", "0", "1", "1", "0.75", "0.8571428571428571"]);
}

#[test]
fn distance_filters_and_by_distance_gives_one_row_per_k() {
    let (_dir, gold) = gold_file("a\tb\nc\td\ne\tf\n");
    let predicted = "a\tb\t0\nc\td\t2\nx\ty\t1\ne\tf\t5\nb\ta\t3\n";
    assert_eq!(
        tsv_row(&["-g", &gold, "-k", "1"], predicted),
        ["1", "1", "2", "0.5", "0.3333333333333333", "0.4"]
    );
    assert_eq!(tsv_row(&["-g", &gold, "--distance", "64"], predicted)[..3], ["3", "1", "0"]);
    let out = run("sh-score", &["-g", &gold, "--by-distance", "-f", "tsv"], predicted);
    let rows: Vec<&str> = out.success().lines().collect();
    assert_eq!(rows[0], "k\ttp\tfp\tfn\tprecision\trecall\tf1");
    let counts: Vec<String> =
        rows[1..].iter().map(|r| r.split('\t').take(4).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(
        counts,
        ["0 1 0 2", "1 1 1 2", "2 2 1 1", "3 2 1 1", "4 2 1 1", "5 3 1 0"],
        "a pair listed twice keeps its smallest distance (a-b at 0, not 3)"
    );
    let out = run("sh-score", &["-g", &gold, "--by-distance", "-k", "2", "-f", "tsv"], predicted);
    assert_eq!(out.success().lines().count(), 1 + 3, "rows for K = 0, 1, 2");
}

#[test]
fn json_output_and_json_input() {
    let (_dir, gold) = gold_file("1\t2\ndoc\t3\n");
    let predicted = "[\"1\", \"2\", 0]\n[3, \"doc\", 4]\n[\"7\", \"8\", 1]\n";
    let out = run("sh-score", &["-g", &gold, "--format", "json"], predicted);
    let value: serde_json::Value = serde_json::from_str(out.success().trim_end()).expect("JSON");
    assert_eq!(value["tp"], 2);
    assert_eq!(value["fp"], 1);
    assert_eq!(value["fn"], 0);
    assert_eq!(value["precision"].as_f64(), Some(2.0 / 3.0));
    assert_eq!(value["recall"].as_f64(), Some(1.0));
    assert_eq!(value["f1"].as_f64(), Some(0.8));
    let out = run("sh-score", &["-g", &gold, "--format", "json", "--by-distance"], predicted);
    let rows: Vec<serde_json::Value> =
        out.success().lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    assert_eq!(rows.len(), 5);
    assert_eq!((rows[0]["k"].as_u64(), rows[0]["tp"].as_u64()), (Some(0), Some(1)));
    assert_eq!((rows[4]["k"].as_u64(), rows[4]["tp"].as_u64()), (Some(4), Some(2)));
}

#[test]
fn the_pipeline_scored_end_to_end() {
    let docs = "d1\tthe quick brown fox jumps over the lazy dog near the river bank today\n\
                d2\tthe quick brown fox jumps over the lazy dog near the river bank today\n\
                d3\tan entirely different sentence about simhash fingerprints and near duplicates\n";
    let pairs = pipeline(
        &[
            ("sh-tokenize", &["--with-id"]),
            ("sh-shingle", &[]),
            ("sh-hash", &[]),
            ("sh-compute", &[]),
            ("sh-pairs", &[]),
        ],
        docs,
    );
    let (_dir, gold) = gold_file("d2\td1\n");
    assert_eq!(tsv_row(&["-g", &gold], pairs.stdout_str()), ["1", "0", "0", "1", "1", "1"]);
}

#[test]
fn bad_lines_are_errors_with_their_line_number() {
    let (_dir, gold) = gold_file("a\tb\nonly-one-field\n");
    run("sh-score", &["-g", &gold], "").failure(
        1,
        &format!(
            "sh-score: error: {gold}: line 2: a pair line needs two TAB-separated ids: \
             'only-one-field'\n"
        ),
    );
    let (_dir, gold) = gold_file("a\tb\n");
    run("sh-score", &["-g", &gold], "a\tb\t1\nc\tc\t0\n")
        .failure(1, "sh-score: error: line 2: a pair of an id with itself: 'c\\tc\\t0'\n");
    run("sh-score", &["-g", &gold], "a\tb\n\tb\n")
        .failure(1, "sh-score: error: line 2: empty id: '\\tb'\n");
    run("sh-score", &["-g", &gold, "-k", "3"], "a\tb\t1\nc\td\n")
        .failure(1, "sh-score: error: line 2: no distance (third field) on a pair line: 'c\\td'\n");
    run("sh-score", &["-g", &gold, "--by-distance"], "a\tb\t256\n").failure(
        1,
        "sh-score: error: line 1: the distance is not an integer from 0 to 255: 'a\\tb\\t256'\n",
    );
    let (_dir, labels) = gold_file("a\t1\nb\t2\na\t2\n");
    run("sh-score", &["-g", &labels, "--gold-format", "labels"], "").failure(
        1,
        &format!(
            "sh-score: error: {labels}: line 3: an id with a second, different label: 'a\\t2'\n"
        ),
    );
    let (_dir, gold) = gold_file("a\ta\n");
    run("sh-score", &["-g", &gold], "").failure(
        1,
        &format!("sh-score: error: {gold}: line 1: a pair of an id with itself: 'a\\ta'\n"),
    );
    // A line is quoted without the byte-order mark at its start, as sh-tokenize quotes it.
    let (_dir, marked) = gold_file("\u{feff}a\ta\n");
    run("sh-score", &["-g", &marked], "").failure(
        1,
        &format!("sh-score: error: {marked}: line 1: a pair of an id with itself: 'a\\ta'\n"),
    );
    let (_dir, good) = gold_file("a\tb\n");
    run("sh-score", &["-g", &good, "--by-distance"], "\u{feff}a\tb\tx\n").failure(
        1,
        "sh-score: error: line 1: the distance is not an integer from 0 to 255: 'a\\tb\\tx'\n",
    );
}

#[test]
fn json_pairs_follow_the_same_rules_as_tsv_pairs() {
    let (_dir, gold) = gold_file("a\tb\n7\tc\n");
    // Further elements are ignored, and the distance is read only with -k or --by-distance.
    let predicted = "[\"a\", \"b\", 256, \"extra\"]\n[7, \"c\", 1, null]\n";
    assert_eq!(tsv_row(&["-g", &gold], predicted)[..3], ["2", "0", "0"]);
    run("sh-score", &["-g", &gold, "-k", "3"], predicted).failure(
        1,
        "sh-score: error: line 1: the distance is not an integer from 0 to 255: \
         '[\"a\", \"b\", 256, \"extra\"]'\n",
    );
    for (line, what) in [
        ("[\"a\"]", "a JSON pair needs at least two ids"),
        ("[7, \"7\"]", "a pair of an id with itself"),
        ("[\"a\\tb\", \"c\"]", "an id cannot hold a TAB or a line feed"),
        ("[\"a\", -1]", "a JSON id must be a string or an unsigned 64-bit integer"),
        ("[\"a\", \"b\"", "broken JSON array"),
    ] {
        run("sh-score", &["-g", &gold], format!("{line}\n"))
            .failure(1, &format!("sh-score: error: line 1: {what}: '{line}'\n"));
    }
}

#[test]
fn without_distance_flags_the_third_field_is_not_read() {
    let (_dir, gold) = gold_file("a\tb\n");
    assert_eq!(tsv_row(&["-g", &gold], "a\tb\tnot-a-number\textra\n")[..3], ["1", "0", "0"]);
}

#[test]
fn usage_errors_and_a_missing_gold_file() {
    run("sh-score", &[], "").failure(2, "sh-score: error: the following required arguments");
    run("sh-score", &["-g", "/nonexistent/gold.tsv"], "")
        .failure(1, "sh-score: error: cannot open '/nonexistent/gold.tsv'");
    let (_dir, gold) = gold_file("");
    run("sh-score", &["-g", &gold, "-k", "256"], "").failure(2, "sh-score: error: invalid value");
    // The gold pairs and the pairs to score both from standard input: the gold took all of
    // it and nothing was scored, with exit 0.
    run("sh-score", &["-g", "-"], "a\tb\n").failure(
        2,
        "sh-score: error: --gold - and the input are both standard input: give the gold pairs \
         or the pairs to score as a file (-i FILE)\n",
    );
    // The same pipe under another name: /dev/stdin, or /dev/fd/0 beside -i /dev/stdin.
    for (gold, input, named) in [
        ("/dev/stdin", "-", "'/dev/stdin' and the input (standard input)"),
        ("/dev/fd/0", "/dev/stdin", "'/dev/fd/0' and the input ('/dev/stdin')"),
        ("-", "/dev/stdin", "- and the input ('/dev/stdin')"),
    ] {
        run("sh-score", &["-g", gold, "-i", input], "a\tb\n").failure(
            2,
            &format!(
                "sh-score: error: --gold {named} are one pipe or socket, which only one of them \
                 can read: give the gold pairs or the pairs to score as a file (-i FILE)\n"
            ),
        );
    }
}

/// Two pipes are two streams, each read by one: the gold pairs and the pairs to score both from
/// a process substitution of the shell.
#[test]
fn the_gold_pairs_and_the_pairs_to_score_may_come_from_two_pipes() {
    let script = format!(
        "{} --gold <(printf 'a\\tb\\n') -i <(printf 'a\\tb\\t0\\n') --format tsv",
        crate::util::binary("sh-score").display()
    );
    let out = std::process::Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().nth(1), Some("1\t0\t0\t1\t1\t1"));
}

/// /dev/stdin names a file when standard input is one, which a second open reads afresh: the
/// gold pairs and the pairs to score may both come from it.
#[test]
fn the_gold_pairs_may_be_standard_input_reopened_when_it_is_a_file() {
    let (dir, pairs) = gold_file("a\tb\n");
    let file = std::fs::File::open(&pairs).unwrap();
    let out = std::process::Command::new(crate::util::binary("sh-score"))
        .args(["-g", "/dev/stdin", "--format", "tsv"])
        .stdin(file)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().nth(1).unwrap().split('\t').take(3).collect::<Vec<_>>(),
        ["1", "0", "0"]
    );
    drop(dir);
}

/// Wide fingerprints are far apart in more than 64 bits: sh-score reads the distances that
/// sh-pairs writes for them (up to 255, its largest K).
#[test]
fn distances_of_wide_fingerprints_are_read() {
    let zeros = format!("0x{}", "0".repeat(64));
    let seventy = format!("0x{}3{}", "f".repeat(17), "0".repeat(46));
    let pairs = run("sh-pairs", &["-k", "100"], format!("{zeros}\n{seventy}\n"));
    assert_eq!(pairs.success(), "1\t2\t70\n");
    let (_dir, gold) = gold_file("1\t2\n");
    assert_eq!(tsv_row(&["-g", &gold, "-k", "69"], "1\t2\t70\n")[..3], ["0", "0", "1"]);
    assert_eq!(tsv_row(&["-g", &gold, "-k", "70"], "1\t2\t70\n")[..3], ["1", "0", "0"]);
    assert_eq!(tsv_row(&["-g", &gold, "-k", "255"], "1\t2\t255\n")[..3], ["1", "0", "0"]);
    let rows = run("sh-score", &["-g", &gold, "--by-distance", "--format", "tsv"], "1\t2\t70\n");
    let text = rows.success();
    assert_eq!(text.lines().count(), 1 + 71, "a header and K = 0 to 70");
    assert_eq!(text.lines().last(), Some("70\t1\t0\t0\t1\t1\t1"));
}
