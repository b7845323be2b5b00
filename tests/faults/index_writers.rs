//! Interrupted writers of an index: `build`, `add` and `compact` ended by a signal midway,
//! and a second writer beside a first. An interrupted writer leaves the index answering as
//! before.

use super::*;

/// Sends the signal `name` (TERM, KILL) to the child.
fn signal(child: &Child, name: &str) {
    let status =
        Command::new("sh").args(["-c", &format!("kill -{name} {}", child.id())]).status().unwrap();
    assert!(status.success(), "kill -{name}");
}

/// `count` random fingerprints, one a line: enough that writing their segment takes a while.
fn many_records(count: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    let mut text = String::with_capacity(count * 21);
    for _ in 0..count {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        text.push_str(&format!("{}\n", state ^ (state >> 31)));
    }
    text.into_bytes()
}

/// Waits until a writer's temporary segment file shows up in `index`.
fn wait_for_segment_file(index: &Path, child: &mut Child) {
    let started = Instant::now();
    loop {
        let names = entries(index);
        if names.iter().any(|n| n.starts_with(".seg-") && n.ends_with(".partial")) {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the writer ended ({status}) before its segment file appeared: {names:?}");
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no temporary segment file");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// An index of 2,000 records (in two segments) and its answers to the first 1,000 of them.
fn small_index(dir: &Path) -> (PathBuf, String, Vec<u8>) {
    let index = dir.join("idx");
    let (first, second) = (many_records(1000, 7), many_records(1000, 8));
    crate::util::run(
        "sh-index",
        &["build", "-q", "-k", "3", "-o", path_str(&index)],
        first.clone(),
    )
    .success();
    crate::util::run("sh-index", &["add", "-q", path_str(&index)], second).success();
    let answers = crate::util::run("sh-index", &["query", path_str(&index)], first.clone());
    (index, answers.success().to_string(), first)
}

/// The index answers `queries` as `answers`, and `stats --verify` passes.
fn assert_as_before(index: &Path, queries: &[u8], answers: &str, what: &str) {
    let now = crate::util::run("sh-index", &["query", path_str(index)], queries.to_vec());
    assert!(now.success() == answers, "{what}: the index answers as before");
    crate::util::run("sh-index", &["stats", "--verify", path_str(index)], "").success();
}

fn no_partial_files(index: &Path) -> bool {
    !entries(index).iter().any(|n| n.ends_with(".partial"))
}

#[test]
fn an_add_ended_while_it_reads_leaves_the_index_as_it_was() {
    use std::os::unix::process::ExitStatusExt;
    for sig in ["TERM", "KILL"] {
        let dir = tempfile::tempdir().unwrap();
        let (index, answers, queries) = small_index(dir.path());
        let before = entries(&index);
        let mut child = spawn("sh-index", &["add", "-q", path_str(&index)], Stdio::null());
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&many_records(1000, 99)).unwrap();
        // Standard input stays open: the add is still reading.
        std::thread::sleep(Duration::from_millis(200));
        assert!(child.try_wait().unwrap().is_none(), "SIG{sig}: still reading");
        signal(&child, sig);
        let status = wait_briefly(&mut child);
        drop(stdin);
        let number = if sig == "TERM" { 15 } else { 9 };
        assert!(
            status.signal() == Some(number) || status.code() == Some(128 + number),
            "SIG{sig}: {status}"
        );
        assert_eq!(entries(&index), before, "SIG{sig}: nothing written");
        assert_as_before(&index, &queries, &answers, &format!("add, SIG{sig} while reading"));
    }
}

#[test]
fn writers_ended_while_they_write_leave_the_index_as_it_was() {
    use std::os::unix::process::ExitStatusExt;
    let big = many_records(400_000, 11);
    // (command, its arguments after the index, its input, the signal)
    let writers: [(&str, &[&str], &[u8], &str); 6] = [
        ("add", &[], &big, "TERM"),
        ("add", &[], &big, "KILL"),
        ("build", &["-k", "3"], &big, "TERM"),
        ("build", &["-k", "3"], &big, "KILL"),
        ("compact", &[], b"", "TERM"),
        ("compact", &[], b"", "KILL"),
    ];
    for (command, args, input, sig) in writers {
        let what = format!("{command} ended by SIG{sig}");
        let dir = tempfile::tempdir().unwrap();
        let (index, answers, queries) = small_index(dir.path());
        if command == "compact" {
            // Something large to compact.
            crate::util::run("sh-index", &["add", "-q", path_str(&index)], big.clone()).success();
        }
        let answers = if command == "compact" {
            let now = crate::util::run("sh-index", &["query", path_str(&index)], queries.clone());
            now.success().to_string()
        } else {
            answers
        };
        let mut full: Vec<&str> = vec![command, "-q"];
        if command == "build" {
            full.push("-o");
        }
        full.push(path_str(&index));
        full.extend_from_slice(args);
        let mut child = spawn("sh-index", &full, Stdio::null());
        let feeder = feed(&mut child, input.to_vec());
        wait_for_segment_file(&index, &mut child);
        signal(&child, sig);
        let status = wait_briefly(&mut child);
        feeder.join().unwrap();
        if sig == "TERM" {
            assert_eq!(status.code(), Some(143), "{what}: the temporary files removed first");
            assert!(no_partial_files(&index), "{what}: {:?}", entries(&index));
        } else {
            assert_eq!(status.signal(), Some(9), "{what}");
        }
        assert_as_before(&index, &queries, &answers, &what);
        // The next writer goes on from the index as it was, and removes what was left.
        crate::util::run("sh-index", &["add", "-q", path_str(&index)], "42\n").success();
        assert!(no_partial_files(&index), "{what}, then an add: {:?}", entries(&index));
        let last = crate::util::run("sh-index", &["query", path_str(&index)], "42\n");
        assert!(last.success().contains("\t0\n"), "{what}: the record added is found");
        let listed = crate::util::run("sh-index", &["stats", path_str(&index)], "");
        let segments = entries(&index).iter().filter(|n| n.starts_with("seg-")).count();
        assert!(
            listed.success().contains(&format!("segments\t{segments}\n")),
            "{what}: no segment file the manifest does not list: {:?}",
            entries(&index)
        );
    }
}

#[test]
fn a_second_writer_waits_for_none_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (index, answers, queries) = small_index(dir.path());
    let mut first = spawn("sh-index", &["add", "-q", path_str(&index)], Stdio::null());
    let mut stdin = first.stdin.take().unwrap();
    stdin.write_all(b"1\n2\n").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    for args in [
        &["add", "-q", path_str(&index)][..],
        &["compact", "-q", path_str(&index)],
        &["build", "-q", "-o", path_str(&index)],
    ] {
        let second = crate::util::run("sh-index", args, "5\n");
        second.failure(
            1,
            &format!(
                "sh-index: error: cannot lock index '{}': another sh-index is changing it",
                index.display()
            ),
        );
    }
    // Queries need no lock.
    assert_as_before(&index, &queries, &answers, "while another writer runs");
    drop(stdin);
    assert_eq!(wait_briefly(&mut first).code(), Some(0));
    let now = crate::util::run("sh-index", &["query", path_str(&index), "-k", "0"], "1\n2\n5\n");
    assert_eq!(now.success(), "1\t2001\t0\n2\t2002\t0\n", "the first writer's records added");
}
