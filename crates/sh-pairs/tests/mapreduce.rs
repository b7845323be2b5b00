//! The map/reduce form against sh-pairs itself: map (in one or several map tasks), sort the
//! lines as bytes (a simulated shuffle), cut them into reduce tasks at key boundaries, reduce
//! each, and the pairs must be those of `write_pairs`, line for line after sorting, and in
//! sh-pairs' own order when sorted by the line numbers that `--numbered` prints.

use proptest::prelude::*;
use sh_pairs::{read_records, write_pairs, Format, MapReduce, Options};
use sh_testkit::adversarial;
use sh_testkit::strategies::fingerprints;

mod simulated;

use simulated::{cut, in_input_order, quiet, reader, shuffle, sorted};

/// The input text of `fps`: with ids `r<line>` or without, with `blanks` (line indexes) left
/// empty, so that line numbers and record numbers differ.
fn input(fps: &[u64], named: bool, blanks: &[usize]) -> String {
    // Decimal and hex, as sh-pairs accepts both.
    let spell = |fp: &u64, line: usize| {
        if line.is_multiple_of(3) {
            format!("{fp:#x}")
        } else {
            fp.to_string()
        }
    };
    simulated::input(fps, named, blanks, spell).0
}

/// sh-pairs without --map: the reference.
fn direct(text: &str, k: u32, blocks: u32, sparse: bool) -> String {
    let records = read_records(&mut reader(text.as_bytes()), &mut quiet()).unwrap();
    let options = Options {
        k: Some(k),
        word_k: None,
        word_bytes: None,
        blocks: Some(blocks),
        threads: 1,
        format: Format::Tsv,
        sparse,
    };
    let mut out = Vec::new();
    write_pairs(records, None, &options, &mut out, &mut quiet()).unwrap();
    String::from_utf8(out).unwrap()
}

fn job(k: u32, blocks: u32, numbered: bool, sparse: bool) -> MapReduce {
    let mut job = MapReduce::new(blocks, k).unwrap();
    job.numbered = numbered;
    job.sparse = sparse;
    job
}

/// The map lines of `text` from `tasks` map tasks (see [`simulated::map_in_tasks`]).
fn map(text: &str, k: u32, blocks: u32, tasks: usize) -> Vec<Vec<u8>> {
    simulated::map_in_tasks(text, tasks, |numbered| job(k, blocks, numbered, false))
}

fn reduce(tasks: &[Vec<u8>], k: u32, blocks: u32, numbered: bool, sparse: bool) -> String {
    simulated::reduce_each(tasks, &job(k, blocks, numbered, sparse))
}

/// One simulated run against the reference: every mode of the reduce.
#[allow(clippy::too_many_arguments)]
fn check(
    fps: &[u64],
    named: bool,
    blanks: &[usize],
    k: u32,
    blocks: u32,
    map_tasks: usize,
    cuts: &[f64],
    by_key_only: bool,
) {
    let text = input(fps, named, blanks);
    let lines = shuffle(map(&text, k, blocks, map_tasks), by_key_only);
    let records = text.lines().filter(|l| !l.ends_with('\t') && !l.is_empty()).count();
    assert_eq!(
        lines.len() as u64,
        records as u64 * sh_pairs::binomial(blocks, k),
        "C(B, K) lines per record"
    );
    let tasks = cut(&lines, cuts);
    let context = format!("K={k} B={blocks} named={named} map tasks {map_tasks} cuts {cuts:?}");
    for sparse in [false, true] {
        let expected = direct(&text, k, blocks, sparse);
        let plain = reduce(&tasks, k, blocks, false, sparse);
        assert_eq!(sorted(&plain), sorted(&expected), "{context} sparse={sparse}");
        let numbered = reduce(&tasks, k, blocks, true, sparse);
        assert_eq!(in_input_order(&numbered), expected, "{context} sparse={sparse} --numbered");
    }
}

/// The (K, B) settings tested: K 0..=5 and every B whose C(B, K) tables stay small enough to
/// map every record into each.
fn settings(max_tables: u64) -> Vec<(u32, u32)> {
    (0..=5)
        .flat_map(|k| (k + 1..=64).map(move |b| (k, b)))
        .filter(|&(k, b)| sh_pairs::binomial(b, k) <= max_tables)
        .collect()
}

#[test]
fn every_small_setting_on_adversarial_sets() {
    for (k, blocks) in settings(300) {
        let fps = adversarial(k, blocks);
        check(&fps, false, &[], k, blocks, 1, &[], false);
        check(&fps, true, &[2, 5], k, blocks, 3, &[0.3, 0.6], true);
    }
}

#[test]
fn identical_fingerprints_give_each_pair_once_at_distance_zero() {
    let text = "7\n7\n7\n";
    for (k, blocks) in [(0, 1), (3, 6), (2, 64), (5, 8)] {
        let tasks = vec![shuffle(map(text, k, blocks, 1), false).concat()];
        assert_eq!(reduce(&tasks, k, blocks, false, false), "1\t2\t0\n1\t3\t0\n2\t3\t0\n");
        assert_eq!(reduce(&tasks, k, blocks, false, true), "1\t2\t0\n2\t3\t0\n");
    }
}

#[test]
fn the_line_format() {
    // Four blocks of 16 bits, K = 2: six tables, one hex digit each, then 32 bits of the key.
    let lines = map("a\t0x1111222233334444\n\nc\t0x1111222233334445\n", 2, 4, 1);
    let text: Vec<String> = lines.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect();
    assert_eq!(text[0], "011112222\t1111222233334444\t1\ta\n"); // blocks 0, 1
    assert_eq!(text[1], "111113333\t1111222233334444\t1\ta\n"); // blocks 0, 2
    assert_eq!(text[5], "533334444\t1111222233334444\t1\ta\n"); // blocks 2, 3
    assert_eq!(text[6], "011112222\t1111222233334445\t3\tc\n");
    let tasks = vec![shuffle(lines, false).concat()];
    assert_eq!(reduce(&tasks, 2, 4, false, false), "a\tc\t1\n");
    assert_eq!(reduce(&tasks, 2, 4, true, false), "1\t3\ta\tc\t1\n");
    let no_ids = map("0\n", 0, 1, 1);
    assert_eq!(no_ids, [b"00000000000000000\t0000000000000000\t1\n".to_vec()]);
}

fn map_error(text: &str, numbered: bool) -> String {
    let mut out = Vec::new();
    job(3, 6, numbered, false)
        .map(&mut reader(text.as_bytes()), &mut out, &mut quiet())
        .unwrap_err()
        .to_string()
}

fn reduce_error(text: &str, k: u32, blocks: u32) -> String {
    let mut out = Vec::new();
    job(k, blocks, false, false)
        .reduce(&mut reader(text.as_bytes()), &mut out, &mut quiet())
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_input_names_its_line() {
    assert!(map_error("1\nx\n", false).starts_with("line 2: not an unsigned"));
    assert!(map_error("a\t1\n2\n", false)
        .starts_with("line 2: a line without an id among lines with ids"));
    assert!(map_error("1 2\n", false).starts_with("line 1: more than one fingerprint"));
    assert!(map_error("1\n", true).starts_with("line 1: no TAB after the line number"));
    assert!(map_error("0\t5\n", true).starts_with("line 1: line number 0"));
    assert!(map_error("-3\t5\n", true).starts_with("line 1: not a line number"));
    assert!(map_error("99999999999999999999\t5\n", true).starts_with("line 1: integer larger"));

    let good = shuffle(map("5\n5\n4\n", 3, 6, 1), false).concat();
    let good = String::from_utf8(good).unwrap();
    // Map lines of other settings: B = 7 has 35 tables, two hex digits; K = 2 has 15.
    assert!(
        reduce_error(&good, 3, 7).contains("key of the wrong width"),
        "{}",
        reduce_error(&good, 3, 7)
    );
    // K = 2 and K = 4 both have 15 tables of B = 6, but of other blocks.
    let other = String::from_utf8(shuffle(map("5\n", 2, 6, 1), false).concat()).unwrap();
    let message = reduce_error(&other, 4, 6);
    assert!(message.starts_with("line 1: key of the wrong width"), "{message}");
    // A fingerprint moved to another key.
    let moved = good.replacen("\t0000000000000005\t", "\t1000000000000005\t", 1);
    let message = reduce_error(&moved, 3, 6);
    assert!(message.starts_with("line 2: the fingerprint's bits differ"), "{message}");
    let big_table = "ff00000000\t0000000000000005\t1\n";
    assert!(reduce_error(big_table, 3, 6).starts_with("line 1: table number 255 out of range"));
    let mut unsorted: Vec<&str> = good.lines().collect();
    unsorted.swap(0, 5);
    let unsorted = unsorted.join("\n");
    assert!(reduce_error(&unsorted, 3, 6).contains("keys out of order"));
    for (bad, what) in [
        ("0000000000\n", "line 1: not a line of sh-pairs --map"),
        ("0000000000\t00000000000000005\t1\n", "line 1: not 16 lowercase hex"),
        ("0000000000\t000000000000000A\t1\n", "line 1: not 16 lowercase hex"),
        ("0000000000\t0000000000000005\t0\n", "line 1: line number 0"),
        ("0000000000\t0000000000000005\tx\n", "line 1: not a line number"),
        ("0000000000\t0000000000000005\t1\ta\tb\n", "line 1: an id holds a TAB"),
        ("00000000\t0000000000000005\t1\n", "line 1: key of the wrong width"),
        ("0g00000000\t0000000000000005\t1\n", "line 1: key does not start"),
        (
            "0000000000\t0000000000000005\t1\ta\n0000000000\t0000000000000005\t2\n",
            "line 2: a record without an id",
        ),
        (
            "0000000000\t0000000000000005\t1\n0000000000\t0000000000000005\t1\n",
            "line 2: line number 1 appears twice",
        ),
        (
            "0000000000\t0000000000000005\t1\n0000000000\t0000000000000005\t2\n\
             0000000000\t0000000000000005\t2\n",
            "line 3: line number 2 appears twice",
        ),
        ("0000000000\t0000000000000005\t1\t\n", "line 1: empty id"),
    ] {
        let message = reduce_error(bad, 3, 6);
        assert!(message.starts_with(what), "{bad:?}: {message}");
    }
    assert!(MapReduce::new(3, 12).is_err());
    let job = MapReduce::new(3, 3).unwrap(); // B = 3 fits k = 0 of 256 bits, not K = 3 of 64
    let mut out = Vec::new();
    let error = job.map(&mut reader(b"5\n"), &mut out, &mut quiet()).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(MapReduce::new(65, 3).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn map_sort_reduce_equals_direct(
        fps in fingerprints(40),
        (k, blocks) in proptest::sample::select(settings(500)),
        named in any::<bool>(),
        blanks in proptest::collection::vec(0usize..50, 0..3),
        map_tasks in 1usize..=3,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..=2),
        by_key_only in any::<bool>(),
    ) {
        check(&fps, named, &blanks, k, blocks, map_tasks, &cuts, by_key_only);
    }
}

/// The flags: both steps need --blocks, conflicting flags and bad input are errors with the
/// usual exit statuses, and files in and out work as for every command.
#[test]
fn the_command_line() {
    use clap::Parser;
    use sh_pairs::{run, Args};
    let parse = |args: &[&str]| Args::try_parse_from([&["sh-pairs"][..], args].concat());
    for bad in [
        &["--map"][..],
        &["--reduce", "-k", "2"],
        &["--map", "--reduce", "-b", "6"],
        &["--map", "--sparse", "-b", "6"],
        &["--reduce", "--against", "x", "-b", "6"],
        &["--map", "--format", "json", "-b", "6"],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    assert_eq!(run(parse(&["--numbered"]).unwrap()).unwrap_err().exit_code(), 2);
    assert_eq!(run(parse(&["--map", "-b", "3", "-k", "12"]).unwrap()).unwrap_err().exit_code(), 2);

    let dir = std::env::temp_dir().join(format!("sh-pairs-mapreduce-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    std::fs::write(path("fp.tsv"), "a\t5\nb\t7\nc\t5\n").unwrap();
    let map = ["--map", "-b", "4", "-k", "1", "-i", &path("fp.tsv"), "-o", &path("map")];
    run(parse(&map).unwrap()).unwrap();
    let mut lines: Vec<String> =
        std::fs::read_to_string(path("map")).unwrap().lines().map(str::to_string).collect();
    lines.sort();
    std::fs::write(path("sorted"), lines.join("\n") + "\n").unwrap();
    let reduce = ["--reduce", "-b", "4", "-k", "1", "-i", &path("sorted"), "-o", &path("pairs")];
    run(parse(&reduce).unwrap()).unwrap();
    let pairs = std::fs::read_to_string(path("pairs")).unwrap();
    assert_eq!(sorted(&pairs), ["a\tb\t1", "a\tc\t0", "b\tc\t1"]);

    // Unsorted input: an input error (exit 1), and the output file is left as it was.
    let reduce = ["--reduce", "-b", "4", "-k", "1", "-i", &path("map"), "-o", &path("pairs")];
    let error = run(parse(&reduce).unwrap()).unwrap_err();
    assert_eq!(error.exit_code(), 1);
    assert!(error.to_string().contains(": keys out of order"), "{error}");
    assert_eq!(std::fs::read_to_string(path("pairs")).unwrap(), pairs);
    std::fs::remove_dir_all(&dir).unwrap();
}
