//! The map/reduce form on wide fingerprints (128 and 256 bits) against the brute-force oracle:
//! map (in one or several map tasks), sort the lines as bytes or by key only (a simulated
//! shuffle), cut them into reduce tasks at key boundaries, reduce each, and the pairs must be
//! the oracle's, each exactly once, for K exact, with --word-k and with --word-bytes, with ids
//! or line numbers,
//! with --numbered (then in sh-pairs' own order) and with --sparse.

use proptest::prelude::*;
use sh_pairs::{
    binomial, read_records, rule_for, write_pairs, Format, MapReduce, Options, WideRule,
};
use sh_testkit::oracle::wide as oracle;
use sh_testkit::strategies::wide_fingerprints;

mod simulated;

use simulated::{cut, in_input_order, key, quiet, reader, shuffle, sorted};

/// One setting of map and reduce: -b, -k, --word-k, --word-bytes.
#[derive(Debug, Clone, Copy)]
struct Setting {
    blocks: u32,
    k: u32,
    word_k: Option<u32>,
    word_bytes: Option<u32>,
}

impl Setting {
    fn rule(&self, words: usize) -> WideRule {
        rule_for(words, Some(self.k), self.word_k, self.word_bytes).unwrap()
    }

    /// Which words count, as the oracle applies it.
    fn per_word(&self, words: usize) -> oracle::WordRule {
        let rule = self.rule(words);
        oracle::WordRule { k: rule.word_k, bytes: rule.word_bytes }
    }

    fn job(&self, numbered: bool, sparse: bool) -> MapReduce {
        let mut job =
            MapReduce::with_rule(self.blocks, Some(self.k), self.word_k, self.word_bytes).unwrap();
        job.numbered = numbered;
        job.sparse = sparse;
        job
    }
}

/// The text form of a wide fingerprint: `0x` and its words, the highest first; in uppercase on
/// every fourth line (sh-pairs reads both).
fn hex(fp: &[u64], upper: bool) -> String {
    let digits: String = fp.iter().rev().map(|w| format!("{w:016x}")).collect();
    if upper {
        format!("0x{}", digits.to_uppercase())
    } else {
        format!("0x{digits}")
    }
}

/// The input text of `fps` (with ids `r<line>` or without, with `blanks` left empty) and the
/// name of each record in the output: its id, or its line number.
fn input(fps: &[Vec<u64>], named: bool, blanks: &[usize]) -> (String, Vec<String>) {
    simulated::input(fps, named, blanks, |fp, line| hex(fp, line % 4 == 0))
}

/// The oracle's pairs, `A<TAB>B<TAB>DISTANCE` with records named as in the output.
fn expected(
    fps: &[Vec<u64>],
    names: &[String],
    k: u32,
    word_k: impl Into<oracle::WordRule>,
) -> String {
    oracle::near_pairs(fps, k, word_k)
        .into_iter()
        .map(|(i, j, d)| format!("{}\t{}\t{d}\n", names[i], names[j]))
        .collect()
}

/// `--sparse` output with records named by their number (from 1), for the oracle's check.
fn by_number(output: &str, names: &[String]) -> String {
    let number = |name: &str| names.iter().position(|n| n == name).unwrap() + 1;
    let mut pairs: Vec<(usize, usize, &str)> = output
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (number(f[0]), number(f[1]), f[2])
        })
        .collect();
    pairs.sort_unstable();
    pairs.iter().map(|(a, b, d)| format!("{a}\t{b}\t{d}\n")).collect()
}

/// sh-pairs --sparse without --map on the same text.
fn direct_sparse(text: &str, setting: Setting) -> String {
    let records = read_records(&mut reader(text.as_bytes()), &mut quiet()).unwrap();
    let options = Options {
        k: Some(setting.k),
        word_k: setting.word_k,
        word_bytes: setting.word_bytes,
        blocks: Some(setting.blocks),
        threads: 1,
        format: Format::Tsv,
        sparse: true,
    };
    let mut out = Vec::new();
    write_pairs(records, None, &options, &mut out, &mut quiet()).unwrap();
    String::from_utf8(out).unwrap()
}

/// The map lines of `text` from `tasks` map tasks (several: consecutive parts with `LINE<TAB>`
/// in front, --numbered, as Spark's driver gives them).
fn map(text: &str, setting: Setting, tasks: usize) -> Vec<Vec<u8>> {
    simulated::map_in_tasks(text, tasks, |numbered| setting.job(numbered, false))
}

fn reduce(tasks: &[Vec<u8>], setting: Setting, numbered: bool, sparse: bool) -> String {
    simulated::reduce_each(tasks, &setting.job(numbered, sparse))
}

/// One simulated run against the oracle: every mode of the reduce.
#[allow(clippy::too_many_arguments)]
fn check(
    words: usize,
    fps: &[Vec<u64>],
    setting: Setting,
    named: bool,
    blanks: &[usize],
    map_tasks: usize,
    cuts: &[f64],
    by_key_only: bool,
) {
    let (text, names) = input(fps, named, blanks);
    let lines = shuffle(map(&text, setting, map_tasks), by_key_only);
    let word_k = setting.per_word(words);
    let tables = binomial(setting.blocks, setting.rule(words).layout_k());
    assert_eq!(lines.len() as u64, (fps.len() * words) as u64 * tables, "L * C(B, k) a record");
    // Each group's key starts with its word's digit.
    assert!(lines.iter().all(|l| (b'0'..b'0' + words as u8).contains(&l[0])));
    let tasks = cut(&lines, cuts);
    let context =
        format!("{words} words {setting:?} named={named} map tasks {map_tasks} cuts {cuts:?}");
    let all = expected(fps, &names, setting.k, word_k);
    let plain = reduce(&tasks, setting, false, false);
    assert_eq!(sorted(&plain), sorted(&all), "{context}");
    let numbered = reduce(&tasks, setting, true, false);
    assert_eq!(in_input_order(&numbered), all, "{context} --numbered");

    let sparse = reduce(&tasks, setting, false, true);
    if let Err(what) = oracle::check_sparse(fps, setting.k, word_k, &by_number(&sparse, &names)) {
        panic!("{context} --sparse: {what}\n{sparse}");
    }
    assert_eq!(sorted(&sparse), sorted(&direct_sparse(&text, setting)), "{context} --sparse");
    let numbered = reduce(&tasks, setting, true, true);
    assert_eq!(
        in_input_order(&numbered),
        direct_sparse(&text, setting),
        "{context} --sparse --numbered"
    );
}

/// -k up to 48, --word-k sometimes (below, at and above floor(K / words)), --word-bytes
/// sometimes (then B = 8), and a B whose C(B, k) tables stay few enough to map every record
/// into each.
fn settings(words: usize) -> impl Strategy<Value = Setting> {
    let word_bytes = proptest::option::weighted(0.3, 0u32..=7);
    (0u32..=48, proptest::option::of(0u32..=14), word_bytes).prop_flat_map(
        move |(k, word_k, word_bytes)| {
            let rule = rule_for(words, Some(k), word_k, word_bytes).unwrap();
            let blocks: Vec<u32> = match rule.word_bytes {
                Some(_) => vec![8],
                None => {
                    (rule.word_k + 1..=64).filter(|&b| binomial(b, rule.word_k) <= 200).collect()
                }
            };
            proptest::sample::select(blocks).prop_map(move |blocks| Setting {
                blocks,
                k,
                word_k,
                word_bytes,
            })
        },
    )
}

#[test]
fn adversarial_boundaries_for_every_k() {
    for words in [2, 4] {
        for k in 0..=40 {
            let fps = oracle::adversarial(words, k);
            for word_k in [None, Some(0), Some(k / words as u32 / 2)] {
                let per_word = rule_for(words, Some(k), word_k, None).unwrap().word_k;
                for blocks in [per_word + 1, per_word + 2] {
                    let setting = Setting { blocks, k, word_k, word_bytes: None };
                    check(words, &fps, setting, false, &[], 1, &[], false);
                    check(words, &fps, setting, true, &[1, 4], 2, &[0.4, 0.7], true);
                }
            }
        }
    }
}

#[test]
fn identical_wide_fingerprints_give_each_pair_once_at_distance_zero() {
    let fp = format!("0x{}\n", "ab".repeat(32));
    let text = fp.repeat(3);
    for (blocks, k) in [(1, 0), (9, 32), (4, 13), (12, 40)] {
        let setting = Setting { blocks, k, word_k: None, word_bytes: None };
        let tasks = vec![shuffle(map(&text, setting, 1), false).concat()];
        assert_eq!(reduce(&tasks, setting, false, false), "1\t2\t0\n1\t3\t0\n2\t3\t0\n");
        assert_eq!(reduce(&tasks, setting, false, true), "1\t2\t0\n2\t3\t0\n");
    }
}

#[test]
fn the_wide_line_format() {
    // 128 bits, K = 2: each word within k = 1 over two blocks of 32 bits, two tables a word,
    // one hex digit for the table number. The key: the word's digit (0: the low 64 bits), the
    // table's number, the word's bits in the table's blocks.
    let setting = Setting { blocks: 2, k: 2, word_k: None, word_bytes: None };
    let text = "a\t0x11112222333344445555666677778888\n\nc\t0x11112222333344445555666677778889\n";
    let lines = map(text, setting, 1);
    let lines: Vec<String> =
        lines.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect();
    let fp = "11112222333344445555666677778888";
    assert_eq!(
        lines[..4],
        [
            format!("0055556666\t{fp}\t1\ta\n"), // word 0, table 0: block 0 (its high 32 bits)
            format!("0177778888\t{fp}\t1\ta\n"), // word 0, table 1: block 1
            format!("1011112222\t{fp}\t1\ta\n"), // word 1 (the high 64 bits), table 0
            format!("1133334444\t{fp}\t1\ta\n"),
        ]
    );
    assert_eq!(lines[4], "0055556666\t11112222333344445555666677778889\t3\tc\n");
    let tasks =
        vec![shuffle(lines.iter().map(|l| l.as_bytes().to_vec()).collect(), false).concat()];
    assert_eq!(reduce(&tasks, setting, false, false), "a\tc\t1\n");
    assert_eq!(reduce(&tasks, setting, true, false), "1\t3\ta\tc\t1\n");
    // 256 bits: 64 hex digits, four words of keys.
    let setting = Setting { blocks: 1, k: 3, word_k: None, word_bytes: None };
    let lines = map(&format!("0x{}1\n", "0".repeat(63)), setting, 1);
    let fp = format!("{}1", "0".repeat(63));
    // One table of one block, number 0: the word's digit, 0, the word's 16 digits.
    let zeros = "0".repeat(16);
    let keys = [
        format!("00{}1", &zeros[1..]),
        format!("10{zeros}"),
        format!("20{zeros}"),
        format!("30{zeros}"),
    ];
    let expected: Vec<Vec<u8>> =
        keys.iter().map(|k| format!("{k}\t{fp}\t1\n").into_bytes()).collect();
    assert_eq!(lines, expected);
    assert_eq!(key(&lines[0]), b"000000000000000001");
}

fn map_error(text: &str, setting: Setting) -> (String, i32) {
    let mut out = Vec::new();
    let error = setting.job(false, false).map(&mut reader(text.as_bytes()), &mut out, &mut quiet());
    let error = error.unwrap_err();
    (error.to_string(), error.exit_code())
}

fn reduce_error(text: &str, setting: Setting) -> (String, i32) {
    let mut out = Vec::new();
    let error =
        setting.job(false, false).reduce(&mut reader(text.as_bytes()), &mut out, &mut quiet());
    let error = error.unwrap_err();
    (error.to_string(), error.exit_code())
}

#[test]
fn bad_wide_input_names_its_line() {
    let w128 = |last: char| format!("0x{}{last}", "0".repeat(31));
    // 128 bits, K = 2: k = 1 a word, two tables of one 32-bit block; keys of 10 digits.
    let exact = Setting { blocks: 2, k: 2, word_k: None, word_bytes: None };
    let (message, code) = map_error(&format!("{}\n5\n", w128('1')), exact);
    assert_eq!(code, 1);
    assert!(
        message.starts_with(
            "line 2: a 64-bit fingerprint, but line 1 has a 128-bit one (one input holds \
             fingerprints of one width)"
        ),
        "{message}"
    );
    // -k 128 on 128 bits, and a B not above the k of each word: usage errors (exit 2).
    let (message, code) = map_error(
        &format!("{}\n", w128('1')),
        Setting { blocks: 64, k: 128, word_k: None, word_bytes: None },
    );
    assert_eq!((message.as_str(), code), ("-k 128: a 128-bit fingerprint needs K below 128", 2));
    let big_k = Setting { blocks: 8, k: 17, word_k: None, word_bytes: None };
    let (message, code) = map_error(&format!("{}\n", w128('1')), big_k);
    assert_eq!(code, 2);
    let what = "--blocks (8) must be greater than the k of each word's search (8: floor(K/2) \
                with K = 17) for 128-bit fingerprints";
    assert!(message.starts_with(what), "{message}");

    let good = map(&format!("{}\n{}\n", w128('1'), w128('3')), exact, 1);
    let good = String::from_utf8(shuffle(good, false).concat()).unwrap();
    let first = good.lines().next().unwrap();
    assert_eq!(first, "0000000000\t00000000000000000000000000000001\t1");
    // A 64-bit map line among 128-bit ones.
    let mixed = format!("{first}\n0000000000\t0000000000000005\t2\n");
    let (message, _) = reduce_error(&mixed, exact);
    assert!(
        message.starts_with("line 2: a 64-bit fingerprint, but line 1 has a 128-bit one"),
        "{message}"
    );
    let one = "00000000000000000000000000000001";
    let rows = [
        (format!("0000000000\t{one}000\t1\n"), "line 1: not 16 lowercase hex digits"),
        (format!("0000000000\t{}A\t1\n", &one[1..]), "line 1: not 16 lowercase hex digits"),
        (
            format!("2000000000\t{one}\t1\n"),
            "line 1: key does not start with a word number (0 to 1 for 128-bit fingerprints)",
        ),
        (format!("x000000000\t{one}\t1\n"), "line 1: key does not start with a word number"),
        (
            format!("0f00000000\t{one}\t1\n"),
            "line 1: table number 15 out of range: C(B, k) = 2 tables for each word (k = 1); \
             were --map and --reduce given the same --blocks, --distance, --word-k and \
             --word-bytes?",
        ),
        (format!("000000000\t{one}\t1\n"), "line 1: key of the wrong width for its table"),
        (format!("0000000001\t{one}\t1\n"), "line 1: the fingerprint's bits differ"),
        (
            format!("1000000000\t{one}\t1\n1000000000\t00000001000000000000000000000000\t2\n"),
            "line 2: the fingerprint's bits differ from the key's",
        ),
        (format!("1000000000\t{one}\t1\n0000000000\t{one}\t1\n"), "line 2: keys out of order"),
    ];
    for (bad, what) in rows {
        let (message, code) = reduce_error(&bad, exact);
        assert!(message.starts_with(what), "{bad:?}: {message}");
        assert_eq!(code, 1, "{bad:?}");
    }
    let (message, code) =
        reduce_error(&good, Setting { blocks: 64, k: 128, word_k: None, word_bytes: None });
    assert_eq!((message.as_str(), code), ("-k 128: a 128-bit fingerprint needs K below 128", 2));
    // The map's lines for another k a word: one table of both blocks, keys of 18 digits.
    let (message, _) =
        reduce_error(&good, Setting { blocks: 2, k: 1, word_k: None, word_bytes: None });
    assert!(
        message.starts_with(
            "line 1: key of the wrong width for its table: were --map and --reduce given the \
             same --blocks, --distance, --word-k and --word-bytes?"
        ),
        "{message}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn wide_map_sort_reduce_equals_the_oracle(
        (words, fps, setting) in prop_oneof![Just(2usize), Just(4)]
            .prop_flat_map(|w| (Just(w), wide_fingerprints(30, w), settings(w))),
        named in any::<bool>(),
        blanks in proptest::collection::vec(0usize..40, 0..3),
        map_tasks in 1usize..=3,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..=3),
        by_key_only in any::<bool>(),
    ) {
        check(words, &fps, setting, named, &blanks, map_tasks, &cuts, by_key_only);
    }
}

/// Through the command line: -k and --word-k default by the input's width, as without --map.
#[test]
fn the_command_line_on_wide_fingerprints() {
    use clap::Parser;
    use sh_pairs::{run, Args};
    let parse = |args: &[&str]| Args::try_parse_from([&["sh-pairs"][..], args].concat());
    let dir = std::env::temp_dir().join(format!("sh-pairs-wide-mapreduce-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // 256 bits: b is 20 bits from a (five in each word), c is 33 from a and 13 from b.
    let a = vec![0u64; 4];
    let b = vec![0b11111u64; 4];
    let c = vec![0b11111u64, 0b11111, 0b11111, (1 << 18) - 1];
    let fps = [a, b, c];
    let text: String = fps.iter().map(|fp| hex(fp, false) + "\n").collect();
    std::fs::write(path("fp"), &text).unwrap();
    let (input, mapped, sorted_map, pairs) =
        (path("fp"), path("map"), path("sorted"), path("pairs"));
    let every = [
        (&[][..], "8"),
        (&["-k", "40"], "12"),
        (&["-k", "40", "--word-k", "4"], "12"),
        (&["--word-k", "4"], "12"),
        (&["-k", "40", "--word-k", "6", "--word-bytes", "2"], "8"),
    ];
    for (flags, blocks) in every {
        let map = [&["--map", "-b", blocks, "-i", &input, "-o", &mapped][..], flags].concat();
        run(parse(&map).unwrap()).unwrap();
        let mut lines: Vec<String> =
            std::fs::read_to_string(&mapped).unwrap().lines().map(str::to_string).collect();
        lines.sort();
        std::fs::write(&sorted_map, lines.join("\n") + "\n").unwrap();
        let reduce =
            [&["--reduce", "-b", blocks, "-i", &sorted_map, "-o", &pairs][..], flags].concat();
        run(parse(&reduce).unwrap()).unwrap();
        let pairs = std::fs::read_to_string(&pairs).unwrap();
        let flag = |name: &str| -> Option<u32> {
            flags.windows(2).find(|w| w[0] == name).map(|w| w[1].parse().unwrap())
        };
        // Without -k, the defaults of the width (K 44, --word-k 8, --word-bytes 6 for 256 bits).
        let rule = rule_for(4, flag("-k"), flag("--word-k"), flag("--word-bytes")).unwrap();
        let names: Vec<String> = (1..=3).map(|i: usize| i.to_string()).collect();
        let word = oracle::WordRule { k: rule.word_k, bytes: rule.word_bytes };
        let expected = expected(&fps, &names, rule.k, word);
        assert_eq!(sorted(&pairs), sorted(&expected), "{flags:?}");
        assert!(!expected.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
