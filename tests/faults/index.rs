//! A damaged index: a segment cut short or extended, a byte flipped anywhere in a segment or
//! the manifest, another format version, foreign files, a missing segment, a named pipe as a
//! segment, the manifest or the lock. Each damage is exit status 1 and one `sh-index: error:
//! …` line naming the index and the file, never a panic and never a wrong answer. (Writers
//! ended midway: `index_writers.rs`.)

use super::*;

/// The records of the test index: 300 with ids, near ones among them, in one segment.
fn corpus() -> String {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut text = String::new();
    let mut base = 0;
    for i in 0..300 {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        if i % 4 == 0 {
            base = state;
        }
        let fp = base ^ (1 << (state >> 58)) ^ (1 << ((state >> 52) % 64));
        text.push_str(&format!("doc-{i}\t{fp}\n"));
    }
    text
}

/// Every fingerprint of the corpus as a query: a query touches every part of the index (each
/// table's buckets, record numbers, ids).
fn queries() -> String {
    corpus().lines().map(|line| format!("q{line}\n")).collect()
}

/// The damage to do: a name and what it does to a copy of the index.
type Damage = Box<dyn Fn(&Path)>;

/// An index of [`corpus`] at K 3, and what `query` answers from it.
fn good_index(dir: &Path) -> (PathBuf, String) {
    let index = dir.join("good.idx");
    crate::util::run("sh-index", &["build", "-q", "-k", "3", "-o", path_str(&index)], corpus())
        .success();
    let answers = crate::util::run("sh-index", &["query", path_str(&index)], queries());
    let answers = answers.success().to_string();
    assert!(answers.lines().count() > 300, "every query finds itself at least");
    (index, answers)
}

fn copy_index(from: &Path, to: &Path) {
    fs::create_dir(to).unwrap();
    for name in entries(from) {
        fs::copy(from.join(&name), to.join(&name)).unwrap();
    }
}

const SEGMENT: &str = "seg-00000001";

/// Which commands must find a damage: where it is decides what reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FoundBy {
    /// Every command: opening the index reads it, or every command reads table 0, the record
    /// numbers and the names.
    All,
    /// A query of every record, not necessarily sh-pairs --against (which reads table 0 only).
    Query,
    /// stats --verify; a query or sh-pairs may not read it.
    Verify,
}

/// Runs `query`, `stats --verify` and `sh-pairs --against` on the damaged index `index`, and
/// checks each: exit 1 and one error line naming the index and `file`, or, where `found` allows,
/// the answer the good index gave (the damage lies where it does not read); anything written
/// before the error is a beginning of the good answer.
fn check_refused(index: &Path, file: &str, good: &str, found: FoundBy, what: &str) {
    let must_fail = found != FoundBy::Verify;
    let named = |stderr: &str, command: &str| {
        let opening =
            format!("{command}: error: cannot open index '{}': {file}: ", index.display());
        let reading =
            format!("{command}: error: cannot read index '{}': {file}: ", index.display());
        assert!(
            (stderr.starts_with(&opening) || stderr.starts_with(&reading))
                && stderr.ends_with('\n')
                && stderr.lines().count() == 1,
            "{what}: {command}'s message should name the index and {file}: {stderr}"
        );
    };
    let query = crate::util::run("sh-index", &["query", path_str(index)], queries());
    let stdout = query.stdout_str();
    if query.code == Some(0) && !must_fail {
        assert!(stdout == good, "{what}: a query that succeeds answers as before");
        assert_eq!(query.stderr, "", "{what}");
    } else {
        assert_eq!(query.code, Some(1), "{what}: query: {}", query.stderr);
        named(&query.stderr, "sh-index");
        let whole_lines = &stdout[..stdout.rfind('\n').map_or(0, |at| at + 1)];
        assert!(good.starts_with(whole_lines), "{what}: no wrong answer before the error");
    }
    let verify = crate::util::run("sh-index", &["stats", "--verify", path_str(index)], "");
    assert_eq!(verify.code, Some(1), "{what}: stats --verify: {}", verify.stderr);
    named(&verify.stderr, "sh-index");
    let pairs = crate::util::run("sh-pairs", &["-k", "3", "--against", path_str(index)], queries());
    if pairs.code == Some(0) && found != FoundBy::All {
        assert!(pairs.stdout_str() == good, "{what}: sh-pairs --against answers as before");
    } else {
        assert_eq!(pairs.code, Some(1), "{what}: sh-pairs --against: {}", pairs.stderr);
        named(&pairs.stderr, "sh-pairs");
        assert_eq!(pairs.stdout, b"", "{what}: sh-pairs reads the whole corpus before it writes");
    }
}

/// Applies each damage to a fresh copy of the good index and checks that it is refused.
fn check_damages(damages: Vec<(String, &str, FoundBy, Damage)>) {
    let dir = tempfile::tempdir().unwrap();
    let (good, answers) = good_index(dir.path());
    for (n, (what, file, found, damage)) in damages.into_iter().enumerate() {
        let index = dir.path().join(format!("damaged-{n}"));
        copy_index(&good, &index);
        damage(&index);
        check_refused(&index, file, &answers, found, &what);
        fs::remove_dir_all(&index).unwrap();
    }
}

fn flip(path: &Path, at: u64) {
    let mut bytes = fs::read(path).unwrap();
    bytes[at as usize] ^= 0x20;
    fs::write(path, bytes).unwrap();
}

#[test]
fn a_segment_cut_short_or_extended_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (good, _) = good_index(dir.path());
    let len = fs::metadata(good.join(SEGMENT)).unwrap().len();
    let mut damages: Vec<(String, &str, FoundBy, Damage)> = Vec::new();
    for cut in [0, 7, 8, 16, 31, 32, len / 2, len - 17, len - 16, len - 8, len - 1] {
        let damage: Damage = Box::new(move |index: &Path| {
            let file = fs::OpenOptions::new().write(true).open(index.join(SEGMENT)).unwrap();
            file.set_len(cut).unwrap();
        });
        damages.push((format!("cut to {cut} of {len} bytes"), SEGMENT, FoundBy::All, damage));
    }
    for more in [1u64, 16, 4096] {
        let damage: Damage = Box::new(move |index: &Path| {
            let mut file = fs::OpenOptions::new().append(true).open(index.join(SEGMENT)).unwrap();
            file.write_all(&vec![0; more as usize]).unwrap();
        });
        damages.push((format!("{more} bytes added"), SEGMENT, FoundBy::All, damage));
    }
    check_damages(damages);
}

#[test]
fn a_flipped_byte_anywhere_in_a_segment_is_refused_never_a_wrong_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (good, _) = good_index(dir.path());
    let segment = sh_index::Segment::open(&good.join(SEGMENT)).unwrap();
    let h = segment.header.clone();
    let len = segment.file_len();
    drop(segment);
    assert!(h.blocks() >= 3, "a segment of several blocks");
    let header_len = len - 16 - h.data_end - h.sums_len();
    // Where a query of every record reads for certain: table 0's entries, the record numbers
    // and the ids; the sums and header are checked before any data is used.
    let read = vec![
        ("table 0's entries", h.tables[0].entries_at),
        ("table 0's entries", h.tables[0].entries_at + 8 * 150),
        ("the last entry of table 0", h.tables[0].entries_at + h.tables[0].entries_len() - 9),
        ("the record numbers", h.ordinals_at + 2 * h.records),
        ("the ids' offsets", h.names_at + 8),
        ("the ids", h.names_at + h.names_len - 1),
        ("the block sums", h.data_end),
        ("the last block sum", h.data_end + h.sums_len() - 1),
        ("the header", h.data_end + h.sums_len()),
        ("the header's middle", h.data_end + h.sums_len() + header_len / 2),
        ("the header's checksum", len - 17),
        ("the trailer's length", len - 16),
        ("the trailer's magic", len - 1),
        ("the magic", 0),
        ("the magic", 7),
        ("the version", 8),
        ("the version", 11),
    ];
    let mut damages: Vec<(String, &str, FoundBy, Damage)> = Vec::new();
    for (what, at) in read {
        let damage: Damage = Box::new(move |index: &Path| flip(&index.join(SEGMENT), at));
        damages.push((format!("{what}, byte {at} flipped"), SEGMENT, FoundBy::All, damage));
    }
    for (t, table) in h.tables.iter().enumerate().skip(1) {
        let at = table.entries_at + 3 + 40 * t as u64;
        let damage: Damage = Box::new(move |index: &Path| flip(&index.join(SEGMENT), at));
        damages.push((format!("table {t}'s entries, byte {at}"), SEGMENT, FoundBy::Query, damage));
    }
    // Bytes spread over the whole file, the reserved word of the preamble (12-15) aside: a
    // query may not read them, but stats --verify and sh-pairs --against must refuse them.
    for at in (16..len).step_by(97).chain([15 + sh_index::BLOCK, 16 + sh_index::BLOCK]) {
        let damage: Damage = Box::new(move |index: &Path| flip(&index.join(SEGMENT), at));
        damages.push((format!("byte {at} of {len} flipped"), SEGMENT, FoundBy::Verify, damage));
    }
    check_damages(damages);
}

#[test]
fn a_changed_reserved_word_of_the_preamble_is_refused() {
    // No checksum covers the preamble's reserved word: open checks that it is 0.
    let dir = tempfile::tempdir().unwrap();
    let (good, answers) = good_index(dir.path());
    for at in 12..16 {
        flip(&good.join(SEGMENT), at);
        let query = crate::util::run("sh-index", &["query", path_str(&good)], queries());
        let error = query.failure(1, "sh-index: error: cannot open index");
        assert!(error.contains("reserved word"), "byte {at}: {error}");
        flip(&good.join(SEGMENT), at);
        let query = crate::util::run("sh-index", &["query", path_str(&good)], queries());
        assert_eq!(query.success(), answers, "byte {at} flipped back");
    }
}

#[test]
fn a_flipped_byte_of_the_manifest_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (good, _) = good_index(dir.path());
    let len = fs::metadata(good.join("MANIFEST")).unwrap().len();
    let mut damages: Vec<(String, &str, FoundBy, Damage)> = Vec::new();
    for at in 0..len {
        let damage: Damage = Box::new(move |index: &Path| flip(&index.join("MANIFEST"), at));
        damages.push((format!("manifest byte {at} flipped"), "MANIFEST", FoundBy::All, damage));
    }
    for cut in [0, 8, 12, len - 4, len - 1] {
        let damage: Damage = Box::new(move |index: &Path| {
            let file = fs::OpenOptions::new().write(true).open(index.join("MANIFEST")).unwrap();
            file.set_len(cut).unwrap();
        });
        damages.push((format!("manifest cut to {cut} bytes"), "MANIFEST", FoundBy::All, damage));
    }
    check_damages(damages);
}

#[test]
fn another_format_version_asks_for_a_rebuild() {
    let version_2: fn(&Path) = |file| {
        let mut bytes = fs::read(file).unwrap();
        bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
        fs::write(file, bytes).unwrap();
    };
    let dir = tempfile::tempdir().unwrap();
    let (good, answers) = good_index(dir.path());
    for file in [SEGMENT, "MANIFEST"] {
        let index = dir.path().join(format!("v2-{file}"));
        copy_index(&good, &index);
        version_2(&index.join(file));
        check_refused(&index, file, &answers, FoundBy::All, &format!("version 2 in {file}"));
        let query = crate::util::run("sh-index", &["query", path_str(&index)], "5\n");
        assert!(
            query.stderr.contains(
                ": format version 2, but this sh-index reads version 1 (rebuild the index"
            ),
            "{}",
            query.stderr
        );
    }
}

#[test]
fn foreign_files_are_refused() {
    let text = "5\n6\n".repeat(300);
    let mut damages: Vec<(String, &str, FoundBy, Damage)> = vec![
        (
            "a text file as the segment".into(),
            SEGMENT,
            FoundBy::All,
            Box::new(move |index: &Path| fs::write(index.join(SEGMENT), &text).unwrap()),
        ),
        (
            "an empty segment file".into(),
            SEGMENT,
            FoundBy::All,
            Box::new(|index: &Path| fs::write(index.join(SEGMENT), "").unwrap()),
        ),
        (
            "a directory as the segment".into(),
            SEGMENT,
            FoundBy::All,
            Box::new(|index: &Path| {
                fs::remove_file(index.join(SEGMENT)).unwrap();
                fs::create_dir(index.join(SEGMENT)).unwrap();
            }),
        ),
        (
            "a segment of another index".into(),
            SEGMENT,
            FoundBy::All,
            Box::new(|index: &Path| {
                let other = index.with_extension("other");
                let build = ["build", "-q", "-k", "3", "-o", path_str(&other)];
                crate::util::run("sh-index", &build, "a\t5\nb\t6\n").success();
                fs::rename(other.join(SEGMENT), index.join(SEGMENT)).unwrap();
                fs::remove_dir_all(other).unwrap();
            }),
        ),
        (
            "a segment of another index of the same size".into(),
            SEGMENT,
            FoundBy::All,
            Box::new(|index: &Path| {
                // The same count of records, K, ids and length: only the contents differ.
                let other = index.with_extension("other");
                let shifted: String = corpus()
                    .lines()
                    .map(|line| {
                        let (id, fp) = line.split_once('\t').unwrap();
                        format!("{id}\t{}\n", fp.parse::<u64>().unwrap().rotate_left(1))
                    })
                    .collect();
                let build = ["build", "-q", "-k", "3", "-o", path_str(&other)];
                crate::util::run("sh-index", &build, shifted).success();
                let (theirs, ours) = (other.join(SEGMENT), index.join(SEGMENT));
                assert_eq!(
                    fs::metadata(&theirs).unwrap().len(),
                    fs::metadata(&ours).unwrap().len()
                );
                fs::rename(theirs, ours).unwrap();
                fs::remove_dir_all(other).unwrap();
            }),
        ),
        (
            "a named pipe as the segment (an open of it would wait for a writer)".into(),
            SEGMENT,
            FoundBy::All,
            Box::new(|index: &Path| {
                fs::remove_file(index.join(SEGMENT)).unwrap();
                make_fifo(&index.join(SEGMENT));
            }),
        ),
        (
            "a named pipe as the manifest".into(),
            "MANIFEST",
            FoundBy::All,
            Box::new(|index: &Path| {
                fs::remove_file(index.join("MANIFEST")).unwrap();
                make_fifo(&index.join("MANIFEST"));
            }),
        ),
        (
            "the segment removed".into(),
            SEGMENT,
            FoundBy::All,
            Box::new(|index: &Path| fs::remove_file(index.join(SEGMENT)).unwrap()),
        ),
    ];
    damages.push((
        "a manifest whose K (64) is not its segment's, its checksum right".into(),
        "MANIFEST",
        FoundBy::All,
        Box::new(|index: &Path| {
            let path = index.join("MANIFEST");
            let mut manifest = sh_index::Manifest::decode(&fs::read(&path).unwrap()).unwrap();
            manifest.k = 64;
            fs::write(path, manifest.encode()).unwrap();
        }),
    ));
    for junk in ["", "MANIFEST\n", "SHIDXMAN", "SHIDXSEG\x01\0\0\0\0\0\0\0"] {
        let damage: Damage =
            Box::new(move |index: &Path| fs::write(index.join("MANIFEST"), junk).unwrap());
        damages.push((format!("a manifest of {junk:?}"), "MANIFEST", FoundBy::All, damage));
    }
    check_damages(damages);
}

/// A named pipe as the lock file: a writer refuses it (its open for writing would wait for a
/// reader), and queries, which take no lock, answer as before.
#[test]
fn a_named_pipe_as_the_lock_is_refused_by_writers() {
    let dir = tempfile::tempdir().unwrap();
    let (index, answers) = good_index(dir.path());
    let _ = fs::remove_file(index.join("LOCK"));
    make_fifo(&index.join("LOCK"));
    for args in [&["add", "-q"][..], &["compact"], &["build", "-q", "-o"]] {
        let result = crate::util::run("sh-index", &[args, &[path_str(&index)]].concat(), "5\n");
        let expected = format!(
            "sh-index: error: cannot lock index '{}': LOCK: not a regular file",
            index.display()
        );
        result.failure(1, &expected);
    }
    let query = crate::util::run("sh-index", &["query", path_str(&index)], queries());
    assert_eq!(query.success(), answers);
}

/// A build over a directory whose manifest is a named pipe (or a directory) refuses it as a
/// directory of other files, writing nothing there (an open of the pipe to write the new
/// manifest would wait for a reader); over an index whose segment is a named pipe, it replaces
/// the index, as it replaces any damaged one.
#[test]
fn a_build_over_a_manifest_that_is_not_a_file_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (n, odd) in ["pipe", "directory"].into_iter().enumerate() {
        let target = dir.path().join(format!("odd-{n}"));
        fs::create_dir(&target).unwrap();
        match odd {
            "pipe" => make_fifo(&target.join("MANIFEST")),
            _ => fs::create_dir(target.join("MANIFEST")).unwrap(),
        }
        let build = ["build", "-q", "-o", path_str(&target)];
        let refused = crate::util::run("sh-index", &build, "5\n");
        refused.failure(1, "sh-index: error: cannot create index ");
        assert!(refused.stderr.contains("a directory that is not empty and holds no index"));
        assert_eq!(entries(&target), ["MANIFEST"], "a manifest that is a {odd}: nothing added");
    }
    let (index, answers) = good_index(dir.path());
    fs::remove_file(index.join(SEGMENT)).unwrap();
    make_fifo(&index.join(SEGMENT));
    crate::util::run("sh-index", &["build", "-q", "-k", "3", "-o", path_str(&index)], corpus())
        .success();
    let query = crate::util::run("sh-index", &["query", path_str(&index)], queries());
    assert_eq!(query.success(), answers);
}

#[test]
fn a_missing_segment_of_several_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let lines: Vec<String> = corpus().lines().map(|l| format!("{l}\n")).collect();
    crate::util::run(
        "sh-index",
        &["build", "-q", "-k", "3", "-o", path_str(&index)],
        lines[..100].concat(),
    )
    .success();
    crate::util::run("sh-index", &["add", "-q", path_str(&index)], lines[100..200].concat())
        .success();
    crate::util::run("sh-index", &["add", "-q", path_str(&index)], lines[200..].concat()).success();
    let answers = crate::util::run("sh-index", &["query", path_str(&index)], queries());
    let answers = answers.success().to_string();
    fs::remove_file(index.join("seg-00000002")).unwrap();
    check_refused(
        &index,
        "seg-00000002",
        &answers,
        FoundBy::All,
        "the second of three segments removed",
    );
    let query = crate::util::run("sh-index", &["query", path_str(&index)], "5\n");
    assert!(query.stderr.ends_with(": seg-00000002: No such file or directory (os error 2)\n"));
}

#[test]
fn no_index_there_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let result = crate::util::run("sh-index", &["query", path_str(&missing)], "5\n");
    result.failure(
        1,
        &format!("sh-index: error: cannot open index '{}': No such file", missing.display()),
    );
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    for args in [&["query"][..], &["add", "-q"], &["compact"], &["stats"]] {
        let result = crate::util::run("sh-index", &[args, &[path_str(&empty)]].concat(), "5\n");
        result.failure(
            1,
            &format!(
                "sh-index: error: cannot open index '{}': not a sh-index index (no MANIFEST in it)",
                empty.display()
            ),
        );
    }
    assert!(entries(&empty).is_empty(), "nothing written into it");
}

#[test]
fn a_build_into_a_directory_of_other_files_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("photos");
    fs::create_dir(&other).unwrap();
    fs::write(other.join("cat.jpg"), "meow").unwrap();
    // Even files named like an index's (but no manifest): the directory is not one.
    fs::write(other.join("seg-00000001"), "not a segment").unwrap();
    let result = crate::util::run("sh-index", &["build", "-q", "-o", path_str(&other)], "5\n");
    result.failure(
        1,
        &format!(
            "sh-index: error: cannot create index '{}': a directory that is not empty and holds \
             no index",
            other.display()
        ),
    );
    assert_eq!(entries(&other), ["cat.jpg", "seg-00000001"]);
    assert_eq!(fs::read_to_string(other.join("cat.jpg")).unwrap(), "meow");
    assert_eq!(fs::read_to_string(other.join("seg-00000001")).unwrap(), "not a segment");
    let file = dir.path().join("file");
    fs::write(&file, "precious\n").unwrap();
    let result = crate::util::run("sh-index", &["build", "-q", "-o", path_str(&file)], "5\n");
    result.failure(
        1,
        &format!(
            "sh-index: error: cannot create index '{}': a file of that name is in the way",
            file.display()
        ),
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "precious\n");
    assert_eq!(entries(dir.path()), ["file", "photos"]);
}
