//! Integration tests of sh-hash through the built binary.

use crate::util::run;

const VECTORS: &str = include_str!("data/vectors/jenkins.jsonl");

const HELLO: &str = "3804341492420753273";
const HELLO_SEED_1: &str = "18225580197023959604";
const A: &str = "6401452390262130604";
const ABC: &str = "1024980344035851934";

#[test]
fn reference_vectors() {
    let mut checked = 0;
    for line in VECTORS.lines().filter(|line| !line.trim().is_empty()) {
        let vector: serde_json::Value = serde_json::from_str(line).expect("JSON vector");
        let input = vector["input"].as_str().expect("input");
        let seed = vector["seed"].as_u64().expect("seed").to_string();
        let hash = vector["hash"].as_u64().expect("hash");
        if input.is_empty() || input.contains([' ', '\t', '\r', '\n']) {
            continue; // not one item: an empty line has no items, spaces separate items
        }
        let out = run("sh-hash", &["--seed", &seed], format!("{input}\n"));
        assert_eq!(out.success(), format!("{hash}\n"), "{line}");
        checked += 1;
    }
    assert!(checked >= 4, "the vector file was read");
}

#[test]
fn hello_with_and_without_a_seed() {
    assert_eq!(run("sh-hash", &[], "hello\n").success(), format!("{HELLO}\n"));
    assert_eq!(run("sh-hash", &["--seed", "0"], "hello\n").success(), format!("{HELLO}\n"));
    assert_eq!(run("sh-hash", &["--seed", "1"], "hello\n").success(), format!("{HELLO_SEED_1}\n"));
    assert_eq!(
        run("sh-hash", &["--seed", "0x1"], "hello\n").success(),
        format!("{HELLO_SEED_1}\n")
    );
}

/// The high 32 bits are lookup3 `hashlittle` (`c`); these values come from an independent
/// implementation (pyhash2's `lookup3_little`), unseeded and with `pc = 7`.
#[test]
fn lookup3_block_boundaries_match_an_independent_hashlittle() {
    let cases: [(&[u8], u64, u64); 6] = [
        (b"hello", 885767278, 3037895385),
        (b"abcdefghijkl", 1074985083, 2154566824),
        (b"abcdefghijklm", 2457938169, 4154586032),
        (b"abcdefghijklmnopqrstuvwx", 459481066, 996782193),
        (b"abcdefghijklmnopqrstuvwxy", 1814676962, 1631528812),
        (b"abc\0", 4193291934, 3992486578),
    ];
    let seven = (7u64 << 32).to_string();
    for (item, unseeded, seeded) in cases {
        let line = [item, b"\n"].concat();
        for (args, high) in [(&[][..], unseeded), (&["--seed", seven.as_str()][..], seeded)] {
            let out = run("sh-hash", args, line.clone());
            let hash: u64 = out.success().trim_end().parse().expect("one hash");
            assert_eq!(hash >> 32, high, "{} {args:?}", String::from_utf8_lossy(item));
        }
    }
}

#[test]
fn one_line_per_line_with_ids_and_empty_payloads() {
    let input = b"hello a\n\nid\t\nh\t hello \r\nx\xff\x01 \r\tabc\n  \na".to_vec();
    let out = run("sh-hash", &[], input);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let expected = [
        format!("{HELLO} {A}\n\nid\t\nh\t{HELLO}\n").as_bytes(),
        b"x\xff\x01 \r\t",
        format!("{ABC}\n\n{A}\n").as_bytes(),
    ]
    .concat();
    assert_eq!(out.stdout, expected);
}

#[test]
fn items_are_arbitrary_bytes() {
    let out = run("sh-hash", &[], b"\xff\x00\x01 \xff\x00\x01\n\xc3\n".to_vec());
    let text = out.success();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let first: Vec<u64> = lines[0].split(' ').map(|h| h.parse().expect("hash")).collect();
    assert_eq!(first.len(), 2);
    assert_eq!(first[0], first[1], "the same item hashes the same");
    let second: u64 = lines[1].parse().expect("hash");
    assert_ne!(second, first[0]);
}

#[test]
fn weighted_hashes_the_item_and_keeps_the_weight_text() {
    let colon_item = run("sh-hash", &[], "a:b\n");
    let colon_item: u64 = colon_item.success().trim_end().parse().expect("one hash of 'a:b'");
    let input = "hello:2.5 a:b:-1\n\nid\tabc:+1E3 a:0.000\n";
    let out = run("sh-hash", &["--weighted"], input);
    let expected = format!("{HELLO}:2.5 {colon_item}:-1\n\nid\t{ABC}:+1E3 {A}:0.000\n");
    assert_eq!(out.success(), expected);
    let out = run("sh-hash", &["--weighted", "--seed", "1"], "hello:7\n");
    assert_eq!(out.success(), format!("{HELLO_SEED_1}:7\n"));
}

#[test]
fn weighted_errors_name_the_line_and_the_item() {
    let cases = [
        ("hello", "weighted item has no ':WEIGHT'"),
        ("b:abc", "weight is not a finite decimal number"),
        ("b:nan", "weight is not a finite decimal number"),
        ("b:inf", "weight is not a finite decimal number"),
        ("b:", "weight is not a finite decimal number"),
        ("b:1e999", "weight is not a finite decimal number"),
        ("b:0x1", "weight is not a finite decimal number"),
        (":3", "weighted item has an empty ITEM"),
    ];
    for (item, message) in cases {
        let out = run("sh-hash", &["--weighted"], format!("hello:1\nid\ta:1 {item}\n"));
        let stderr = out.failure(1, "sh-hash: error: line 2: ");
        assert_eq!(stderr, format!("sh-hash: error: line 2: {message}: '{item}'\n"));
    }
}

#[test]
fn bad_seeds_are_usage_errors() {
    for seed in ["-1", "18446744073709551616", "x"] {
        let out = run("sh-hash", &[&format!("--seed={seed}")], "hello\n");
        out.failure(2, &format!("sh-hash: error: invalid value '{seed}' for '--seed <SEED>'"));
    }
}

#[test]
fn input_and_output_files() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("items.txt");
    let output = dir.path().join("hashes.txt");
    std::fs::write(&input, "hello\nid\ta\n").expect("write input");
    let (input, output) = (input.to_str().expect("UTF-8 path"), output.to_str().expect("path"));
    assert_eq!(run("sh-hash", &["-i", input, "-o", output], "").success(), "");
    let expected = format!("{HELLO}\nid\t{A}\n");
    assert_eq!(std::fs::read_to_string(output).expect("output"), expected);

    // A failed run leaves the output file as it was, and no temporary file behind.
    let out = run("sh-hash", &["--weighted", "-o", output], "a:1\nb\n");
    out.failure(1, "sh-hash: error: line 2: ");
    assert_eq!(std::fs::read_to_string(output).expect("output"), expected);
    let files = std::fs::read_dir(dir.path()).expect("list directory").count();
    assert_eq!(files, 2, "no temporary file is left behind");

    let nowhere = dir.path().join("no-such-directory").join("out.txt");
    let nowhere = nowhere.to_str().expect("UTF-8 path");
    let out = run("sh-hash", &["-o", nowhere], "a\n");
    out.failure(1, &format!("sh-hash: error: cannot create output '{nowhere}': "));
}
