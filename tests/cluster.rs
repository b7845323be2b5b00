//! Integration tests of sh-cluster through the built binary.

use crate::util::run;

fn cluster(args: &[&str], stdin: &str) -> String {
    run("sh-cluster", args, stdin).success().to_string()
}

#[test]
fn a_chain_is_one_cluster() {
    // a-b, c-d, then b-c joins them: a member need match only one other member.
    assert_eq!(cluster(&[], "a\tb\t1\nc\td\t0\nb\tc\t3\n"), "a\tb\tc\td\n");
    assert_eq!(cluster(&[], "c\td\nb\tc\na\tb\n"), "c\td\tb\ta\n");
}

#[test]
fn separate_clusters_come_in_order_of_first_appearance() {
    let pairs = "5\t9\t2\nx\ty\t0\n9\t1\t3\ny\tz\t1\n7\t5\t0\n";
    assert_eq!(cluster(&[], pairs), "5\t9\t1\t7\nx\ty\tz\n");
    // Members keep the order of their first appearance, not sorted order.
    assert_eq!(cluster(&[], "b\ta\nc\ta\n"), "b\ta\tc\n");
}

#[test]
fn numbers_and_number_like_text_are_different_ids() {
    assert_eq!(cluster(&[], "7\t8\n007\t9\n"), "7\t8\n007\t9\n");
    assert_eq!(cluster(&[], "7\t8\n[7, 9]\n[\"8\", \"10\"]\n"), "7\t8\t9\t10\n");
}

#[test]
fn json_array_input_as_the_seed_prints_it() {
    let pairs = "[1, 2]\n[3, 4]\n[2, 5]\n";
    assert_eq!(cluster(&[], pairs), "1\t2\t5\n3\t4\n");
    // Pairs from `sh-pairs --format json` carry more elements: the first two are the ids.
    let pairs = "[\"doc-1\", \"doc-2\", 3]\r\n\n[\"doc-2\",\"doc-\\u0033\",0]\n";
    assert_eq!(cluster(&[], pairs), "doc-1\tdoc-2\tdoc-3\n");
}

#[test]
fn json_output() {
    let pairs = "1\t2\na\"b\t2\nx\\y\tdoc\n18446744073709551615\t007\n";
    assert_eq!(
        cluster(&["--format", "json"], pairs),
        "[1, 2, \"a\\\"b\"]\n[\"x\\\\y\", \"doc\"]\n[18446744073709551615, \"007\"]\n"
    );
    for line in cluster(&["-f", "json"], pairs).lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("valid JSON");
        assert!(value.as_array().is_some_and(|a| a.len() >= 2), "{line}");
    }
}

#[test]
fn labels_number_the_clusters_from_one() {
    let pairs = "a\tb\nc\td\nb\te\n";
    assert_eq!(cluster(&["--format", "labels"], pairs), "a\t1\nb\t1\ne\t1\nc\t2\nd\t2\n");
    assert_eq!(cluster(&["--format", "labels", "--min-size", "3"], pairs), "a\t1\nb\t1\ne\t1\n");
}

#[test]
fn min_size_and_self_pairs() {
    let pairs = "a\ta\nb\tc\nd\te\ne\tf\n";
    assert_eq!(cluster(&[], pairs), "b\tc\nd\te\tf\n");
    assert_eq!(cluster(&["--min-size", "1"], pairs), "a\nb\tc\nd\te\tf\n");
    assert_eq!(cluster(&["-m", "3"], pairs), "d\te\tf\n");
    assert_eq!(cluster(&["-m", "4"], pairs), "");
    assert_eq!(cluster(&[], ""), "");
    assert_eq!(cluster(&[], "\n\n"), "");
}

#[test]
fn duplicates_keep_exactly_one_document_per_cluster() {
    let ids: Vec<String> = (1..=12).map(|n| format!("doc{n}")).collect();
    let pairs = "doc3\tdoc1\t2\ndoc5\tdoc7\t0\ndoc1\tdoc9\t3\ndoc7\tdoc11\t1\ndoc12\tdoc12\t0\n";
    let drop = cluster(&["--duplicates"], pairs);
    assert_eq!(drop, "doc1\ndoc9\ndoc7\ndoc11\n");
    // `grep -vxFf drop ids`: one document of each cluster is left, and every lone document.
    let dropped: Vec<&str> = drop.lines().collect();
    let kept: Vec<&String> = ids.iter().filter(|id| !dropped.contains(&id.as_str())).collect();
    assert_eq!(kept, ["doc2", "doc3", "doc4", "doc5", "doc6", "doc8", "doc10", "doc12"]);
    for cluster_line in cluster(&[], pairs).lines() {
        let members: Vec<&str> = cluster_line.split('\t').collect();
        let left = members.iter().filter(|m| kept.iter().any(|k| k.as_str() == **m)).count();
        assert_eq!(left, 1, "{cluster_line}");
    }
}

#[test]
fn output_is_identical_across_runs() {
    let mut pairs = String::new();
    for i in 0..5000u64 {
        let (a, b) = ((i * 7919) % 3001, (i * 104_729) % 2999);
        pairs += &format!("{a}\tid{b}\t{}\n", i % 4);
    }
    let first = run("sh-cluster", &[], pairs.clone());
    let second = run("sh-cluster", &[], pairs);
    assert!(!first.success().is_empty());
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn bad_input_names_the_line() {
    for (input, message) in [
        ("a\tb\nlonely\n", "sh-cluster: error: line 2: a pair line needs two TAB-separated ids"),
        ("a\tb\n\n\tb\n", "sh-cluster: error: line 3: empty id: '\\tb'"),
        ("[1, 2]\n[1,2\n", "sh-cluster: error: line 2: broken JSON array: '[1,2'"),
        ("[1]\n", "sh-cluster: error: line 1: a JSON pair needs at least two ids"),
        ("[-1, 2]\n", "sh-cluster: error: line 1: a JSON id must be"),
    ] {
        let out = run("sh-cluster", &[], input);
        out.failure(1, message);
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn bad_flags_exit_2() {
    run("sh-cluster", &["--no-such-flag"], "a\tb\n").failure(2, "sh-cluster: error:");
    run("sh-cluster", &["--format", "xml"], "a\tb\n").failure(2, "sh-cluster: error:");
    run("sh-cluster", &["--min-size", "0"], "a\tb\n").failure(2, "sh-cluster: error:");
    run("sh-cluster", &["--duplicates", "--format", "json"], "a\tb\n")
        .failure(2, "sh-cluster: error:");
}

#[test]
fn output_file_is_written_and_kept_on_failure() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clusters.tsv");
    let target = path.to_str().unwrap();
    assert_eq!(cluster(&["-o", target, "-q"], "a\tb\n"), "");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\tb\n");
    run("sh-cluster", &["-o", target], "c\td\nbad\n").failure(1, "sh-cluster: error: line 2:");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\tb\n");
    let input = dir.path().join("pairs.tsv");
    std::fs::write(&input, "x\ty\t0\n").unwrap();
    assert_eq!(cluster(&["-i", input.to_str().unwrap()], ""), "x\ty\n");
}

/// A byte-order mark at the start of a pair line is dropped, as sh-score drops it: the id after
/// it is the id written elsewhere without one.
#[test]
fn a_byte_order_mark_at_the_start_of_a_line_is_no_part_of_the_id() {
    let out = run("sh-cluster", &[], "\u{feff}a\tb\nb\tc\n\u{feff}d\ta\t2\n");
    assert_eq!(out.success(), "a\tb\tc\td\n");
    // A second mark is the id's first character.
    let out = run("sh-cluster", &[], "\u{feff}\u{feff}a\tb\nb\tc\n");
    assert_eq!(out.success(), "\u{feff}a\tb\tc\n");
}

/// Pairs saved as UTF-16 are read as UTF-8, as any input is, with a note: each of their lines
/// still reads as a pair, of ids that are no others, and without a final LF nothing else says
/// so. A mark on a later line gives none.
#[test]
fn pairs_saved_as_utf16_are_noted() {
    let note = "sh-cluster: note: line 1 starts with FF FE, the byte-order mark of UTF-16: the \
                input is read as UTF-8, and UTF-16 text read so is garbage; convert it first \
                (iconv -f UTF-16 -t UTF-8)\n";
    let pairs: Vec<u8> = "\u{feff}a\tb\nb\tc".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let out = run("sh-cluster", &[], pairs.clone());
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, note);
    // One cluster of three odd ids, each letter between NUL bytes.
    assert_eq!(out.stdout, b"\xff\xfea\x00\t\x00b\x00\t\x00c\x00\n");
    // --quiet: the same clusters, no note.
    let quiet = run("sh-cluster", &["--quiet"], pairs);
    assert_eq!((quiet.code, quiet.stderr.as_str()), (Some(0), ""));
    assert_eq!(quiet.stdout, out.stdout);
    let later = run("sh-cluster", &[], &b"a\tb\n\xff\xfec\td\n"[..]);
    assert_eq!((later.code, later.stderr.as_str()), (Some(0), ""));
    assert_eq!(later.stdout, b"a\tb\n\xff\xfec\td\n");
}
