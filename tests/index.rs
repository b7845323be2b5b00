//! sh-index through the built binaries: `sh-index query` answers as `sh-pairs --against` the
//! corpus file and `sh-pairs --against` the index do, for an index built whole, added to in
//! pieces and compacted, with ids and without, with skipped lines; a query kept running and fed
//! one line at a time answers each at once; a K above the index's is refused. Damaged indexes
//! and interrupted writers are in `faults/index.rs`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::util::{command, run};

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// A deterministic generator (64-bit LCG), different for every seed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let x = self.0;
        x ^ (x >> 29) ^ (x << 17)
    }

    /// Fingerprints around `bases` random ones: each a base with 0 to 4 bits flipped, or (one in
    /// eight) random.
    fn fingerprints(&mut self, bases: &[u64], n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| {
                let r = self.next();
                if r.is_multiple_of(8) {
                    return self.next();
                }
                let mut fp = bases[(r >> 3) as usize % bases.len()];
                for i in 0..(r >> 20) % 5 {
                    fp ^= 1 << ((r >> (26 + 6 * i)) % 64);
                }
                fp
            })
            .collect()
    }
}

/// Records as `[ID<TAB>]FINGERPRINT` lines, `prefix-N` ids when given, a skipped line (blank,
/// or an id without a fingerprint) before about one in six.
fn records(random: &mut Random, fps: &[u64], ids: Option<&str>) -> String {
    let mut text = String::new();
    for (i, fp) in fps.iter().enumerate() {
        match random.next() % 12 {
            0 => text.push('\n'),
            1 if ids.is_some() => text.push_str("skipped\t\n"),
            _ => {}
        }
        match ids {
            Some(prefix) => text.push_str(&format!("{prefix}-{i}\t{fp}\n")),
            None if i % 2 == 0 => text.push_str(&format!("{fp:#x}\n")),
            None => text.push_str(&format!("{fp}\n")),
        }
    }
    text
}

/// Checks, at the index's K and below, `sh-index query INDEX` == `sh-pairs --against FILE` ==
/// `sh-pairs --against INDEX`, and returns how many answer lines there were in all.
fn check_against(index: &Path, corpus_file: &Path, queries: &str, k: u32, what: &str) -> usize {
    let mut lines = 0;
    for query_k in (0..=k).rev() {
        let k_arg = query_k.to_string();
        let mut query_args = vec!["query", path_str(index)];
        if query_k < k {
            query_args.extend(["-k", &k_arg]);
        }
        let answers = run("sh-index", &query_args, queries);
        let file = run("sh-pairs", &["-k", &k_arg, "--against", path_str(corpus_file)], queries);
        let from_index = run("sh-pairs", &["-k", &k_arg, "--against", path_str(index)], queries);
        assert_eq!(answers.success(), file.success(), "{what}, K {query_k}: query and the file");
        assert_eq!(
            from_index.success(),
            file.success(),
            "{what}, K {query_k}: the index as corpus"
        );
        lines += answers.success().lines().count();
    }
    lines
}

#[test]
fn query_equals_sh_pairs_against_the_file_and_the_index() {
    for (seed, k, ids) in [(1, 3, false), (2, 3, true), (3, 0, false), (4, 6, true), (5, 1, false)]
    {
        let mut random = Random(seed);
        let bases: Vec<u64> = (0..30).map(|_| random.next()).collect();
        let (corpus_ids, query_ids) = if ids { (Some("c"), Some("q")) } else { (None, None) };
        // Three pieces: the first indexed, the others added.
        let pieces: Vec<String> = [150, 1, 90]
            .iter()
            .map(|&n| {
                let fps = random.fingerprints(&bases, n);
                records(&mut random, &fps, corpus_ids)
            })
            .collect();
        let query_fps = random.fingerprints(&bases, 60);
        let queries = records(&mut random, &query_fps, query_ids);

        let dir = tempfile::tempdir().unwrap();
        let corpus_file = dir.path().join("corpus.txt");
        std::fs::write(&corpus_file, pieces.concat()).unwrap();
        let k_arg = k.to_string();
        let what = format!("seed {seed}, K {k}, ids {ids}");

        // Built whole, from a file.
        let whole = dir.path().join("whole.idx");
        let build = ["build", "-q", "-o", path_str(&whole), "-k", &k_arg, "-i"];
        run("sh-index", &[&build[..], &[path_str(&corpus_file)]].concat(), "").success();
        let lines = check_against(&whole, &corpus_file, &queries, k, &format!("{what}, whole"));
        assert!(lines > 10, "{what}: queries find something ({lines} lines)");

        // Built from the first piece on standard input, the others added.
        let index = dir.path().join("pieces.idx");
        let build = ["build", "-q", "-o", path_str(&index), "-k", &k_arg];
        run("sh-index", &build, pieces[0].as_str()).success();
        for piece in &pieces[1..] {
            run("sh-index", &["add", "-q", path_str(&index)], piece.as_str()).success();
        }
        let stats = run("sh-index", &["stats", path_str(&index)], "");
        assert!(stats.success().contains("segments\t3\n"), "{}", stats.success());
        check_against(&index, &corpus_file, &queries, k, &format!("{what}, in pieces"));

        // Compacted.
        run("sh-index", &["compact", "-q", path_str(&index)], "").success();
        let stats = run("sh-index", &["stats", "--verify", path_str(&index)], "");
        assert!(stats.success().contains("segments\t1\n"), "{}", stats.success());
        check_against(&index, &corpus_file, &queries, k, &format!("{what}, compacted"));
    }
}

#[test]
fn query_from_a_file_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-k", "1", "-o", path_str(&index)], "a\t5\nb\t7\n\nc\t4\n")
        .success();
    let (queries, answers) = (dir.path().join("q.txt"), dir.path().join("answers.txt"));
    std::fs::write(&queries, "x\t5\ny\t6\n").unwrap();
    let args = ["query", path_str(&index), "-i", path_str(&queries), "-o", path_str(&answers)];
    assert_eq!(run("sh-index", &args, "").success(), "");
    let expected = "x\ta\t0\nx\tb\t1\nx\tc\t1\ny\tb\t1\ny\tc\t1\n";
    assert_eq!(std::fs::read_to_string(&answers).unwrap(), expected);
}

/// Answers written in place to the file of queries being read (`< f >> f`, `-o /dev/fd/3
/// 3>>f`) would be read as queries again: refused, the file as it was.
#[test]
fn answers_in_place_to_the_queries_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-k", "1", "-o", path_str(&index)], "a\t5\nb\t7\n").success();
    let queries = dir.path().join("q.txt");
    for script in [
        "\"$0\" query \"$1\" < \"$2\" >> \"$2\"",
        "\"$0\" query \"$1\" -i \"$2\" -o /dev/fd/3 3>> \"$2\"",
    ] {
        std::fs::write(&queries, "x\t5\n").unwrap();
        let out = std::process::Command::new("sh")
            .args(["-c", script])
            .arg(crate::util::binary("sh-index"))
            .args([&index, &queries])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{script}: {stderr}");
        assert!(
            stderr.starts_with("sh-index: error: cannot write ")
                && stderr.contains("it is the input file"),
            "{script}: {stderr}"
        );
        assert_eq!(std::fs::read_to_string(&queries).unwrap(), "x\t5\n", "{script}");
    }
}

/// A byte-order mark at the start of a line is dropped in the records built or added and in
/// the queries, as sh-pairs drops it.
#[test]
fn a_byte_order_mark_at_the_start_of_a_line_is_no_part_of_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let records = "\u{feff}a\t5\nb\t7\n";
    run("sh-index", &["build", "-k", "1", "-o", path_str(&index)], records).success();
    run("sh-index", &["add", path_str(&index)], "\u{feff}c\t4\n").success();
    let answers = run("sh-index", &["query", path_str(&index)], "\u{feff}x\t5\ny\t6\n");
    assert_eq!(answers.success(), "x\ta\t0\nx\tb\t1\nx\tc\t1\ny\tb\t1\ny\tc\t1\n");
    // An error quotes the line without the mark dropped.
    run("sh-index", &["add", path_str(&index)], "\u{feff}d\t0x0123456789abcdef0123456789abcdef\n")
        .failure(1, "sh-index: error: line 1: a 128-bit fingerprint: sh-index holds 64-bit fingerprints: 'd\\t0x");
    let mixed = run("sh-index", &["query", path_str(&index)], "x\t5\n\u{feff}6\n");
    mixed.failure(1, "sh-index: error: line 2: a line without an id among lines with ids: '6'");
    assert_eq!(mixed.stdout_str(), "x\ta\t0\nx\tb\t1\nx\tc\t1\n");
}

/// A bad query line ends the run at its number, after the answers of every line before it,
/// however the input came: a file is read as one batch, but the lines before the fault are
/// answered as if they had come one at a time (as sh-compute writes the lines before a bad
/// one). With `-o FILE` nothing is written.
#[test]
fn a_bad_query_line_is_an_error_after_the_answers_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-k", "1", "-o", path_str(&index)], "a\t5\nb\t7\n").success();
    let queries = dir.path().join("q.txt");
    let wide = format!("\n\nw\t0x{:032x}\n", 5);
    for (bad, line) in [("z\tjunk\n", 3), ("9\n", 3), (wide.as_str(), 5)] {
        std::fs::write(&queries, format!("x\t5\ny\t6\n{bad}u\t7\n")).unwrap();
        let failed = run("sh-index", &["query", path_str(&index), "-i", path_str(&queries)], "");
        failed.failure(1, &format!("sh-index: error: line {line}: "));
        let before = "x\ta\t0\nx\tb\t1\ny\tb\t1\n";
        assert_eq!(String::from_utf8_lossy(&failed.stdout), before, "{bad:?}");
        let answers = dir.path().join("answers.txt");
        let args = ["query", path_str(&index), "-i", path_str(&queries), "-o", path_str(&answers)];
        run("sh-index", &args, "").failure(1, &format!("sh-index: error: line {line}: "));
        assert!(!answers.exists(), "nothing partial in -o: {bad:?}");
    }
}

/// The names and contents of the files in `dir`, in name order.
fn files_of(dir: &Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Answers written into the index directory (to one of its files, a new file there, or a link
/// to one of them) are refused before anything is read, by `sh-index query` and by `sh-pairs
/// --against` the index alike, and the index stays as it was; a file beside it is fine.
#[test]
fn answers_into_the_index_directory_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-k", "1", "-o", path_str(&index)], "5\n7\n").success();
    let before = files_of(&index);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(index.join("MANIFEST"), &link).unwrap();
    let roundabout = dir.path().join("idx/../idx/answers");
    for output in [index.join("MANIFEST"), index.join("answers"), link.clone(), roundabout] {
        let out = path_str(&output);
        let refused = run("sh-index", &["query", path_str(&index), "-o", out], "5\n");
        refused.failure(2, &format!("sh-index: error: -o '{out}' is inside the index "));
        let refused = run("sh-pairs", &["--against", path_str(&index), "-o", out], "5\n");
        refused.failure(2, &format!("sh-pairs: error: -o '{out}' is inside the index "));
        assert_eq!(files_of(&index), before, "the index as it was after -o {out}");
    }
    let beside = dir.path().join("answers");
    run("sh-index", &["query", path_str(&index), "-o", path_str(&beside)], "5\n").success();
    assert_eq!(std::fs::read_to_string(&beside).unwrap(), "1\t1\t0\n1\t2\t1\n");
}

/// The lines a child writes, read on a thread, so that a wait can time out.
fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The lines up to the end marker; a minute without one fails the test (the query hangs).
fn answer(lines: &mpsc::Receiver<String>, child: &mut Child) -> Vec<String> {
    let mut answer = Vec::new();
    loop {
        match lines.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line == "." => return answer,
            Ok(line) => answer.push(line),
            Err(e) => {
                let _ = child.kill();
                panic!("no end marker after {answer:?}: {e}");
            }
        }
    }
}

#[test]
fn a_running_query_answers_each_line_as_it_comes() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-k", "2", "-o", path_str(&index)], "a\t5\nb\t7\nc\t1000\n")
        .success();
    let mut child = command("sh-index", &["query", path_str(&index), "--end-marker"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines = lines_of(&mut child);
    // One line at a time, standard input left open: each answer comes before the next line.
    stdin.write_all(b"q1\t5\n").unwrap();
    stdin.flush().unwrap();
    assert_eq!(answer(&lines, &mut child), ["q1\ta\t0", "q1\tb\t1"]);
    stdin.write_all(b"q2\t1001\n").unwrap();
    stdin.flush().unwrap();
    assert_eq!(answer(&lines, &mut child), ["q2\tc\t1"]);
    // A line without an answer, and one without a fingerprint, get their markers too.
    stdin.write_all(b"q3\t0xffffffffffffffff\n").unwrap();
    stdin.flush().unwrap();
    assert_eq!(answer(&lines, &mut child), Vec::<String>::new());
    stdin.write_all(b"q4\t\n").unwrap();
    stdin.flush().unwrap();
    assert_eq!(answer(&lines, &mut child), Vec::<String>::new());
    // Two lines written at once are answered in order.
    stdin.write_all(b"q5\t7\nq6\t4\n").unwrap();
    stdin.flush().unwrap();
    assert_eq!(answer(&lines, &mut child), ["q5\ta\t1", "q5\tb\t0"]);
    assert_eq!(answer(&lines, &mut child), ["q6\ta\t1", "q6\tb\t2"]);
    drop(stdin);
    assert!(lines.recv_timeout(Duration::from_secs(60)).is_err(), "nothing after the last");
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn a_k_above_the_index_is_a_usage_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-k", "3", "-o", path_str(&index)], "5\n").success();
    let refused = run("sh-index", &["query", path_str(&index), "-k", "4"], "5\n");
    refused.failure(2, "sh-index: error: -k 4 is above the index's K, 3");
    assert_eq!(refused.stdout, b"");
    let default_index = dir.path().join("default");
    run("sh-index", &["build", "-q", "-o", path_str(&default_index)], "5\n").success();
    run("sh-index", &["query", path_str(&default_index), "-k", "7"], "5\n")
        .failure(2, "sh-index: error: -k 7 is above the index's K, 6");
    assert_eq!(
        run("sh-index", &["query", path_str(&default_index), "-k", "6"], "5\n").success(),
        "1\t1\t0\n"
    );
}

/// A query of wide fingerprints against an index (of 64-bit ones, even an empty one) is an
/// error at the first wide line, with its number, as `sh-index query` refuses it, and nothing
/// is written.
#[test]
fn wide_queries_against_an_index_are_an_error_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-o", path_str(&index)], "5\n9\n").success();
    let wide = format!("0x{:032x}", 5);
    // The third's second line is refused for the first line's width, before the index's.
    for (queries, line, but) in [
        (format!("\n{wide}\n"), 2, "the index's are 64-bit"),
        (format!("a\t{wide}\n"), 1, "the index's are 64-bit"),
        (format!("7\n{wide}\n"), 2, "line 1 has a 64-bit one"),
    ] {
        let refused = run("sh-pairs", &["--against", path_str(&index)], queries.as_str());
        refused
            .failure(1, &format!("sh-pairs: error: line {line}: a 128-bit fingerprint, but {but}"));
        assert_eq!(refused.stdout, b"", "{queries:?}");
        run("sh-index", &["query", path_str(&index)], queries.as_str())
            .failure(1, &format!("sh-index: error: line {line}: a 128-bit fingerprint"));
    }
    // An empty index holds 64-bit fingerprints too (an empty file has no width).
    let empty = dir.path().join("empty");
    run("sh-index", &["build", "-q", "-o", path_str(&empty)], "").success();
    let queries = format!("{wide}\n");
    run("sh-pairs", &["--against", path_str(&empty)], queries.as_str())
        .failure(1, "sh-pairs: error: line 1: a 128-bit fingerprint, but the index's are 64-bit");
    let empty_file = dir.path().join("empty.txt");
    std::fs::write(&empty_file, "").unwrap();
    assert_eq!(run("sh-pairs", &["--against", path_str(&empty_file)], queries).success(), "");
}

#[test]
fn stats_to_a_closed_standard_output_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    run("sh-index", &["build", "-q", "-o", path_str(&index)], "5\n9\n").success();
    for verify in [&[][..], &["--verify"]] {
        let args = [&["stats"][..], verify, &[path_str(&index)]].concat();
        let closed = crate::faults::run_redirected("sh-index", &args, ">&-", "");
        assert_eq!(
            (closed.code, closed.stderr.as_str()),
            (Some(1), "sh-index: error: error writing output: Bad file descriptor (os error 9)\n"),
            "stats {verify:?} >&-"
        );
    }
}

/// A build that fails leaves no index begun: no directory where there was none, and an empty
/// directory empty; an index that was there stays as it was.
#[test]
fn a_failed_build_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let bad = "5\n9\nnot a fingerprint\n";
    let new = dir.path().join("new");
    run("sh-index", &["build", "-q", "-o", path_str(&new)], bad)
        .failure(1, "sh-index: error: line 3: ");
    assert!(!new.exists(), "no directory left");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    run("sh-index", &["build", "-q", "-o", path_str(&empty)], bad)
        .failure(1, "sh-index: error: line 3: ");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "the directory left empty");
    let built = dir.path().join("built");
    run("sh-index", &["build", "-q", "-o", path_str(&built)], "5\n9\n").success();
    let before = files_of(&built);
    run("sh-index", &["build", "-q", "-o", path_str(&built)], bad)
        .failure(1, "sh-index: error: line 3: ");
    assert_eq!(files_of(&built), before, "the index as it was");
}
