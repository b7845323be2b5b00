//! Integration tests of sh-compute through the built binary.

use proptest::prelude::*;

use crate::util::run;

const VECTORS: &str = include_str!("data/vectors/compute.jsonl");

#[test]
fn reference_vectors() {
    let (mut input, mut expected) = (String::new(), String::new());
    for (n, line) in VECTORS.lines().filter(|line| !line.trim().is_empty()).enumerate() {
        let vector: serde_json::Value = serde_json::from_str(line).expect("JSON vector");
        let hashes = vector["hashes"].as_array().expect("hashes");
        let items: Vec<String> = match vector.get("weights") {
            Some(weights) => {
                let weights = weights.as_array().expect("weights");
                hashes.iter().zip(weights).map(|(h, w)| format!("{h}:{w}")).collect()
            }
            None => hashes.iter().map(|h| h.to_string()).collect(),
        };
        input.push_str(&format!("v{n}\t{}\n", items.join(" ")));
        match vector["fingerprint"].as_u64() {
            Some(fingerprint) => expected.push_str(&format!("v{n}\t{fingerprint}\n")),
            None => expected.push_str(&format!("v{n}\t\n")),
        }
    }
    assert!(expected.lines().count() >= 5, "the vector file was read");
    assert_eq!(run("sh-compute", &[], input).success(), expected);
}

#[test]
fn documented_examples() {
    let input = "43981 48350 52719\n1 2\n1 1 2\n1:2.0 2:1.0\n0xabcd 0xBCDE 0XCDEF\n";
    assert_eq!(run("sh-compute", &[], input).success(), "44495\n0\n1\n1\n44495\n");
    let out = run("sh-compute", &[], "doc7\t1:2.0 2:1.0\n");
    assert_eq!(out.success(), "doc7\t1\n");
}

#[test]
fn extremes_and_ties() {
    let input = concat!(
        "0\n",
        "18446744073709551615\n",
        "0xffffffffffffffff\n",
        "0 18446744073709551615\n",
        "0 18446744073709551615 18446744073709551615\n",
        "9223372036854775808 9223372036854775808 0\n",
        "00000000000000000000000042\n",
    );
    let expected = "0\n18446744073709551615\n18446744073709551615\n0\n18446744073709551615\n\
                    9223372036854775808\n42\n";
    assert_eq!(run("sh-compute", &[], input).success(), expected);
}

#[test]
fn weights() {
    let input = concat!(
        "1:-1\n",                // every bit goes against the hash
        "1:0.1 1:0.2 0:0.3\n",   // an exact decimal tie gives 0
        "1:0.5 2\n",             // weighted and unweighted items together
        "1:1 2:1\n",             // a tie on bits 0 and 1
        "7:0 7:0\n",             // zero weights: every bit ties
        "0xff:2.5e0 0x100:-1\n", // hex hashes carry weights too
    );
    let expected = "18446744073709551614\n0\n2\n0\n0\n255\n";
    assert_eq!(run("sh-compute", &[], input).success(), expected);
}

#[test]
fn empty_payloads_ids_and_line_endings() {
    let input = b"\nid\t\n   \nid2\t 7  8 7 \r\nx\xff\x01 \r\t5\r\nj\t3\n9".to_vec();
    let out = run("sh-compute", &[], input);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, b"\nid\t\n\nid2\t7\nx\xff\x01 \r\t5\nj\t3\n9\n");
    assert_eq!(run("sh-compute", &[], "").success(), "");
}

#[test]
fn bad_numbers_and_weights_name_the_line_and_the_item() {
    let not_an_integer = "not an unsigned 64-bit integer (decimal or 0x hex)";
    let signed = "signed number: hashes and fingerprints are unsigned 64-bit integers";
    let too_large = "integer larger than 2^64-1";
    let bad_weight = "weight is not a finite decimal number";
    let cases = [
        ("12a", not_an_integer),
        ("1.5", not_an_integer),
        ("0x", not_an_integer),
        ("0xfg", not_an_integer),
        ("-1", signed),
        ("+1", signed),
        ("18446744073709551616", too_large),
        ("0x10000000000000000", too_large),
        ("1:abc", bad_weight),
        ("1:nan", bad_weight),
        ("1:inf", bad_weight),
        ("1:", bad_weight),
        ("x:1", not_an_integer),
    ];
    for (item, message) in cases {
        let out = run("sh-compute", &[], format!("1 2\nid\t3 {item} 4\n5\n"));
        let stderr = out.failure(1, "sh-compute: error: line 2: ");
        assert_eq!(stderr, format!("sh-compute: error: line 2: {message}: '{item}'\n"));
    }
}

#[test]
fn input_and_output_files() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("hashes.txt");
    let output = dir.path().join("fingerprints.txt");
    std::fs::write(&input, "1 1 2\nid\t0xff\n").expect("write input");
    let (input, output) = (input.to_str().expect("UTF-8 path"), output.to_str().expect("path"));
    assert_eq!(run("sh-compute", &["-i", input, "-o", output], "").success(), "");
    assert_eq!(std::fs::read_to_string(output).expect("output"), "1\nid\t255\n");

    // A failed run leaves the output file as it was, and no temporary file behind.
    let out = run("sh-compute", &["-o", output], "1\n2 x\n");
    out.failure(1, "sh-compute: error: line 2: ");
    assert_eq!(std::fs::read_to_string(output).expect("output"), "1\nid\t255\n");
    let files = std::fs::read_dir(dir.path()).expect("list directory").count();
    assert_eq!(files, 2, "no temporary file is left behind");

    let nowhere = dir.path().join("no-such-directory").join("out.txt");
    let nowhere = nowhere.to_str().expect("UTF-8 path");
    let out = run("sh-compute", &["-o", nowhere], "1\n");
    out.failure(1, &format!("sh-compute: error: cannot create output '{nowhere}': "));
}

/// A line of input: maybe an id, then items (decimal, hex, weighted, or now and then a bad
/// one), maybe a CR.
fn line_strategy() -> impl Strategy<Value = String> {
    let item = prop_oneof![
        8 => any::<u64>().prop_map(|h| h.to_string()),
        1 => any::<u64>().prop_map(|h| format!("0x{h:x}")),
        2 => (any::<u64>(), -50i32..50).prop_map(|(h, w)| format!("{h}:{}", f64::from(w) / 4.0)),
        1 => Just("  ".to_string()),
    ];
    let bad = prop_oneof![Just("x7"), Just("-1"), Just("1:nan"), Just("18446744073709551616")];
    (
        proptest::option::of("[a-z0-9]{1,6}"),
        proptest::collection::vec(item, 0..40),
        proptest::option::weighted(0.03, bad),
        any::<bool>(),
    )
        .prop_map(|(id, items, bad, cr)| {
            let mut line = id.map(|id| format!("{id}\t")).unwrap_or_default();
            line.push_str(&items.join(" "));
            if let Some(bad) = bad {
                line.push_str(&format!(" {bad}"));
            }
            if cr {
                line.push('\r');
            }
            line
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On threads, in chunks as small as a byte, every width computes what one thread does,
    /// line for line: the same output, and at a bad line the same error after the same lines.
    #[test]
    fn threads_compute_what_one_thread_does(
        lines in proptest::collection::vec(line_strategy(), 0..60),
        chunk_bytes in 1u32..400,
        last_newline: bool,
    ) {
        let mut input = lines.join("\n");
        if last_newline && !input.is_empty() {
            input.push('\n');
        }
        for bits in ["64", "128", "256"] {
            let one = run("sh-compute", &["--bits", bits, "-j", "1"], input.clone());
            prop_assert!(!one.stderr.contains("panicked"), "{}", one.stderr);
            if one.code == Some(0) {
                // A record per line; the input's last LF ends a line, it does not start one.
                let records = input.strip_suffix('\n').map_or(input.split('\n').count(), |rest| {
                    rest.split('\n').count()
                });
                let records = if input.is_empty() { 0 } else { records };
                prop_assert_eq!(one.stdout_str().lines().count(), records);
            }
            let chunk = chunk_bytes.to_string();
            for threads in ["2", "3"] {
                let args = ["--bits", bits, "-j", threads, "--chunk-bytes", &chunk];
                let many = run("sh-compute", &args, input.clone());
                prop_assert_eq!(many.code, one.code, "{:?}: {}", args, many.stderr);
                prop_assert_eq!(&many.stderr, &one.stderr, "{:?}", args);
                prop_assert_eq!(&many.stdout, &one.stdout, "{:?}", args);
            }
        }
    }
}
