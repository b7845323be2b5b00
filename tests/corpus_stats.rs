//! sh-df through the real binary: the table, merging shards, heavy hitters against exact
//! counts; faults in tables and flags (of sh-df and sh-weight). sh-weight's rules are in
//! weight.rs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proptest::prelude::*;

use crate::util::run;

/// The exact table of `docs` (one document per line, items separated by spaces), as sh-df
/// should write it.
fn exact_table(docs: &str) -> String {
    let mut df: BTreeMap<&str, u64> = BTreeMap::new();
    let mut documents = 0;
    for line in docs.lines() {
        documents += 1;
        let payload = line.split_once('\t').map_or(line, |(_, p)| p);
        for item in payload.split(' ').filter(|i| !i.is_empty()).collect::<BTreeSet<_>>() {
            *df.entry(item).or_insert(0) += 1;
        }
    }
    let mut rows: Vec<(&str, u64)> = df.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.as_bytes().cmp(b.0.as_bytes())));
    let mut table = format!("#documents\t{documents}\n");
    for (item, count) in rows {
        table += &format!("{item}\t{count}\n");
    }
    table
}

pub(crate) fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

#[test]
fn table_of_a_small_corpus() {
    let got = run("sh-df", &[], "d1\ta b a\nd2\tb c\n\n");
    assert_eq!(got.success(), "#documents\t3\nb\t2\na\t1\nc\t1\n");
    // Numbers are items like any other: compared as text, sorted as bytes.
    let got = run("sh-df", &[], "10 9 010\n9\n");
    assert_eq!(got.success(), "#documents\t2\n9\t2\n010\t1\n10\t1\n");
    let got = run("sh-df", &["--weighted"], "x:1 y:2.5\nx:3\n");
    assert_eq!(got.success(), "#documents\t2\nx\t2\ny\t1\n");
    assert_eq!(run("sh-df", &[], "").success(), "#documents\t0\n");
}

/// Documents of items from a small skewed vocabulary (numbers, numbers with a leading zero,
/// text), some lines with ids, some empty.
pub(crate) fn corpus() -> impl Strategy<Value = String> {
    let item = prop_oneof![
        (0u64..40).prop_map(|n| (n * n).to_string()),
        // The same numbers with a leading zero: other items, which the tables and the count of
        // repeats must keep apart from the canonical ones.
        (0u64..6).prop_map(|n| format!("0{}", n * n)),
        "[a-c]{1,3}",
        Just("0x1f".to_string()),
    ];
    let doc = (prop::collection::vec(item, 0..12), prop::option::of("[a-z0-9]{1,4}")).prop_map(
        |(items, id)| match id {
            Some(id) => format!("{id}\t{}", items.join(" ")),
            None => items.join(" "),
        },
    );
    prop::collection::vec(doc, 0..25)
        .prop_map(|docs| docs.iter().map(|d| d.clone() + "\n").collect())
}

/// The first `limit` occurrences of each item (all when 0), in order: what --max-tf keeps.
pub(crate) fn first_occurrences<'a>(
    items: impl IntoIterator<Item = &'a str>,
    limit: u32,
) -> Vec<&'a str> {
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    items
        .into_iter()
        .filter(|i| {
            let n = seen.entry(i).or_default();
            *n += 1;
            limit == 0 || *n <= limit
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Exact mode: the table is the exact document frequencies, and merging the tables of
    /// shards gives the table of the whole, line for line.
    #[test]
    fn merged_shards_equal_the_whole(docs in corpus(), cuts in prop::collection::vec(0usize..30, 0..3)) {
        let whole = run("sh-df", &[], docs.clone());
        prop_assert_eq!(whole.success(), exact_table(&docs));
        let lines: Vec<&str> = docs.split_inclusive('\n').collect();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(lines.len())).collect();
        cuts.push(0);
        cuts.push(lines.len());
        cuts.sort_unstable();
        let dir = tempfile::tempdir().unwrap();
        let mut tables = Vec::new();
        for (n, range) in cuts.windows(2).enumerate() {
            let shard: String = lines[range[0]..range[1]].concat();
            let path = dir.path().join(format!("part-{n}.df"));
            let part = run("sh-df", &["-o", path_str(&path)], shard);
            part.success();
            tables.push(path);
        }
        let mut args = vec!["--merge"];
        args.extend(tables.iter().map(|p| path_str(p)));
        let merged = run("sh-df", &args, "");
        prop_assert_eq!(merged.success(), whole.stdout_str());
    }

    /// Beyond --capacity: no count above the exact one, none more than the undercount of the
    /// first line below it, and every item above the undercount present.
    #[test]
    fn heavy_hitters_against_exact_counts(docs in corpus(), capacity in 1u32..12) {
        let exact = exact_table(&docs);
        let exact: BTreeMap<String, u64> = exact.lines().skip(1)
            .map(|l| { let (i, c) = l.rsplit_once('\t').unwrap(); (i.to_string(), c.parse().unwrap()) })
            .collect();
        let got = run("sh-df", &["--quiet", "--capacity", &capacity.to_string()], docs.clone());
        let text = got.success();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let undercount: u64 = header.get(2).map_or(0, |e| e.parse().unwrap());
        let held: BTreeMap<String, u64> = lines
            .map(|l| { let (i, c) = l.rsplit_once('\t').unwrap(); (i.to_string(), c.parse().unwrap()) })
            .collect();
        prop_assert!(held.len() <= capacity as usize);
        for (item, &count) in &exact {
            match held.get(item) {
                Some(&h) => prop_assert!(h <= count && h + undercount >= count, "{} {} {} {}", item, h, count, undercount),
                None => prop_assert!(count <= undercount, "{} missing: {} > {}", item, count, undercount),
            }
        }
        if held.len() == exact.len() && undercount == 0 {
            prop_assert_eq!(held, exact);
        }
    }
}

#[test]
fn faults_in_tables_name_the_command_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("df");
    let t = path_str(&table).to_string();
    let others: String = (0..20).map(|n| format!("i{n}\t1\n")).collect();
    let spread = format!("#documents\t2\nx\t1\nx\t2\n{others}y\t1\ny\t1\n");
    let full = format!("#documents\t2\n{others}");
    for (text, args, error) in [
        ("#documents\t0\n", vec![], format!("sh-weight: error: {t}: line 1: the table counts no documents\n")),
        ("#documents\t2\nx\t3\n", vec![], format!("sh-weight: error: {t}: line 2: count above the table's 2 documents: 'x\\t3'\n")),
        ("#documents\t2\nx 1\n", vec![], format!("sh-weight: error: {t}: line 2: table line is not ITEM<TAB>COUNT: 'x 1'\n")),
        ("#documents\t2\nx\t1\nx\t2\n", vec!["--idf"], format!("sh-weight: error: {t}: line 3: item listed twice: 'x'\n")),
        ("documents\t2\n", vec![], format!("sh-weight: error: {t}: line 1: first line is not '#documents<TAB>N': 'documents\\t2'\n")),
        ("#documents\t9\na\t1\nb\t1\nc\t1\n", vec!["--idf", "--capacity", "2"], format!(
            "sh-weight: error: {t}: line 4: the table holds more than 2 items (raise --capacity, or use --max-df without --idf, which holds only the items to leave out): 'c'\n")),
        // A repeat when the table is full is a repeat.
        ("#documents\t9\n7\t1\n007\t1\n7\t1\n", vec!["--idf", "--capacity", "2"], format!("sh-weight: error: {t}: line 4: item listed twice: '7'\n")),
        // The first fault in the file's order, though items are inserted a few lines behind
        // the reading: a repeat before a malformed line, or before another repeat 20 lines on.
        ("#documents\t2\nx\t1\nx\t2\ny 1\n", vec!["--idf"], format!("sh-weight: error: {t}: line 3: item listed twice: 'x'\n")),
        (spread.as_str(), vec!["--idf"], format!("sh-weight: error: {t}: line 3: item listed twice: 'x'\n")),
        // A refusal found while 16 lines wait behind it: no line after it is inserted.
        (full.as_str(), vec!["--idf", "--capacity", "1"], format!(
            "sh-weight: error: {t}: line 3: the table holds more than 1 items (raise --capacity, or use --max-df without --idf, which holds only the items to leave out): 'i1'\n")),
        // The table's numbers are decimal, as its format says; hex is refused.
        ("#documents\t2\nx\t0x1\n", vec![], format!("sh-weight: error: {t}: line 2: COUNT is not a whole number of documents: 'x\\t0x1'\n")),
        ("#documents\t0x2\n", vec![], format!("sh-weight: error: {t}: line 1: first line is not '#documents<TAB>N': '#documents\\t0x2'\n")),
    ] {
        std::fs::write(&table, text).unwrap();
        let mut full = vec!["--df", t.as_str()];
        full.extend(args);
        let got = run("sh-weight", &full, "a b\n");
        assert_eq!((got.code, got.stderr.as_str(), got.stdout_str()), (Some(1), error.as_str(), ""), "{text:?}");
    }
    // The same faults in a table to merge.
    std::fs::write(&table, "#documents\t2\nx\t1\nx\t2\n").unwrap();
    let got = run("sh-df", &["--merge", &t], "");
    assert_eq!(got.stderr, format!("sh-df: error: {t}: line 3: item listed twice: 'x'\n"));
    assert_eq!(got.code, Some(1));
    let got = run("sh-weight", &["--df", "/nonexistent/df"], "");
    assert_eq!(got.code, Some(1));
    assert!(
        got.stderr.starts_with("sh-weight: error: cannot open '/nonexistent/df'"),
        "{}",
        got.stderr
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    for fraction in ["0", "1.5", "-0.1", "x", "nan"] {
        let got = run("sh-weight", &["--df", "df", "--max-df", fraction], "");
        got.failure(2, "sh-weight: error: invalid value");
    }
    for share in ["1.5", "-0.1", "x", "nan"] {
        let got = run("sh-weight", &["--df", "df", "--min-kept", share], "");
        got.failure(2, "sh-weight: error: invalid value");
    }
    for run_length in ["0", "1001", "x"] {
        let got = run("sh-weight", &["--df", "df", "--min-run", run_length], "");
        got.failure(2, "sh-weight: error: invalid value");
        let got = run("sh-fingerprint", &["--df", "df", "--min-run", run_length], "");
        got.failure(2, "sh-fingerprint: error: invalid value");
    }
    run("sh-weight", &[], "").failure(2, "sh-weight: error: the following required arguments");
    run("sh-df", &["--capacity", "0"], "").failure(2, "sh-df: error: invalid value '0'");
    // --merge reads tables, not documents: an input given beside it would go unread.
    run("sh-df", &["--merge", "t", "-i", "docs"], "")
        .failure(2, "sh-df: error: the argument '--merge <TABLE>...' cannot be used with");
    // A table and documents both from standard input: the table would take all of it.
    for command in ["sh-weight", "sh-fingerprint"] {
        run(command, &["--df", "-"], "#documents\t1\na\t1\n")
            .failure(2, &format!("{command}: error: --df - and the input are both standard input"));
        run(command, &["--df", "/dev/stdin"], "#documents\t1\na\t1\n").failure(
            2,
            &format!(
                "{command}: error: --df '/dev/stdin' and the input (standard input) are one pipe \
                 or socket, which only one of them can read: give the table or the documents as \
                 a file (-i FILE)\n"
            ),
        );
    }
    // Two tables of --merge from standard input: the second would be read empty.
    let table = "#documents\t1\na\t1\n";
    run("sh-df", &["--merge", "-", "-"], table).failure(
        2,
        "sh-df: error: --merge names standard input twice: only the first would read it; give \
         the tables as files\n",
    );
    run("sh-df", &["--merge", "-", "/dev/stdin"], table).failure(
        2,
        "sh-df: error: --merge names one pipe or socket twice (standard input and '/dev/stdin'): \
         only the first would read it; give the tables as files\n",
    );
}

/// A file behind standard input is opened afresh under /dev/stdin: `--merge - /dev/stdin`
/// then reads it twice, as two names of one file are read.
#[test]
fn a_file_on_standard_input_may_be_merged_under_two_names() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.df");
    std::fs::write(&table, "#documents\t1\na\t1\n").unwrap();
    let out = std::process::Command::new(crate::util::binary("sh-df"))
        .args(["--merge", "-", "/dev/stdin"])
        .stdin(std::fs::File::open(&table).unwrap())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "#documents\t2\na\t2\n");
}

/// A table may come from standard input when the documents come from a file.
#[test]
fn the_table_may_come_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::write(&docs, "a b\na c\n").unwrap();
    let table = "#documents\t2\na\t2\nb\t1\nc\t1\n";
    let args = ["--df", "-", "--max-df", "0.5", "--df-floor", "0", "-i", path_str(&docs)];
    assert_eq!(run("sh-weight", &args, table).success(), "b\nc\n");
}

/// A table on a pipe is read as it comes: a fault in it is reported at once, though its writer
/// has not closed the pipe (items are inserted behind the reading only from a regular file).
#[test]
fn a_fault_in_a_table_on_a_pipe_is_reported_at_once() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::write(&docs, "a b\n").unwrap();
    for rule in [&["--idf"][..], &[]] {
        let mut args = vec!["--df", "-", "-i", path_str(&docs)];
        args.extend(rule);
        let mut child = crate::util::command("sh-weight", &args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut table = child.stdin.take().unwrap();
        table.write_all(b"#documents\t1000\nc1\t900\nc1\t900\n").unwrap();
        table.flush().unwrap();
        // The pipe stays open until the command has ended (a minute at most, then it fails).
        let status = crate::faults::wait_briefly(&mut child);
        drop(table);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(status.code(), Some(1), "{rule:?}: {stderr}");
        assert_eq!(
            stderr, "sh-weight: error: standard input: line 3: item listed twice: 'c1'\n",
            "{rule:?}"
        );
    }
}

/// A note after --merge tells where an undercount comes from: the tables merged, or the
/// capacity of this run.
#[test]
fn the_note_after_a_merge_says_where_the_undercount_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    let (owed, exact) = (dir.path().join("owed"), dir.path().join("exact"));
    std::fs::write(&owed, "#documents\t3\t4\na\t2\n").unwrap();
    std::fs::write(&exact, "#documents\t3\na\t2\nb\t1\n").unwrap();
    let got = run("sh-df", &["--merge", path_str(&owed), path_str(&exact)], "");
    assert_eq!(got.code, Some(0));
    assert_eq!(got.stdout_str(), "#documents\t6\t4\na\t4\nb\t1\n");
    assert_eq!(
        got.stderr,
        "sh-df: note: counts may be up to 4 documents low: the tables merged carry that \
         undercount (their first lines' third field)\n"
    );
    let got = run("sh-df", &["--merge", path_str(&exact), "--capacity", "1"], "");
    assert_eq!(got.code, Some(0));
    assert!(got.stderr.starts_with("sh-df: note: more than 1 distinct items"), "{}", got.stderr);
    let got = run("sh-df", &["-q", "--merge", path_str(&owed)], "");
    assert_eq!((got.code, got.stderr.as_str()), (Some(0), ""));
}

#[test]
fn a_failed_run_leaves_the_output_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::write(&out, "old").unwrap();
    let got = run("sh-df", &["--weighted", "-o", path_str(&out)], "a:1\nb\n");
    got.failure(1, "sh-df: error: line 2: weighted item has no ':WEIGHT': 'b'");
    let got = run("sh-df", &["--weighted", "-o", path_str(&out)], "a:1\nb:2 :1\n");
    got.failure(1, "sh-df: error: line 2: weighted item has an empty ITEM: ':1'");
    let table = dir.path().join("df");
    std::fs::write(&table, "#documents\t1\na\t1\n").unwrap();
    let got = run(
        "sh-weight",
        &["--df", path_str(&table), "--weighted", "-o", path_str(&out)],
        "a:1\na:x\n",
    );
    got.failure(1, "sh-weight: error: line 2:");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no partial file is left");
}
