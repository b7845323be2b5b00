//! Wide fingerprints: `sh-compute --bits 128|256` through the built binaries.

use sh_compute::widen;
use sh_core::fingerprint::{Fingerprint, Width};

use proptest::prelude::*;

use crate::util::{pipeline, run};

/// A text stage's input: `ID<TAB>TEXT` lines.
fn lines(documents: &[(String, String)]) -> String {
    documents.iter().map(|(id, text)| format!("{id}\t{text}\n")).collect()
}

/// The fingerprints of `ID<TAB>TEXT` documents through the default pipeline at `bits`, parsed,
/// with the ids checked to come back in order.
fn fingerprints(documents: &[(String, String)], bits: &str) -> Vec<Fingerprint> {
    let stages: [(&str, &[&str]); 4] = [
        ("sh-tokenize", &["--with-id"]),
        ("sh-shingle", &[]),
        ("sh-hash", &[]),
        ("sh-compute", &["--bits", bits]),
    ];
    let out = pipeline(&stages, lines(documents));
    let lines: Vec<&str> = out.success().lines().collect();
    assert_eq!(lines.len(), documents.len());
    lines
        .iter()
        .zip(documents)
        .map(|(line, (id, _))| {
            let (line_id, text) = line.split_once('\t').expect("ID<TAB>FINGERPRINT");
            assert_eq!(line_id, id, "ids stay aligned");
            Fingerprint::parse(text.as_bytes()).expect("a fingerprint")
        })
        .collect()
}

/// A deterministic text of `count` made-up words (a 64-bit linear congruential generator over
/// a vocabulary of 2,000 words), different for every seed.
fn text(seed: u64, count: usize) -> Vec<String> {
    let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "zu", "pe", "an", "or"];
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    (0..count)
        .map(|_| {
            let word = next() % 2000;
            let (a, b, c) = (word % 12, word / 12 % 12, word / 144);
            format!("{}{}{}", syllables[a], syllables[b], syllables[c % 12].repeat(1 + c / 12))
        })
        .collect()
}

/// Pairs of documents: each base with a copy that has one word of 300 changed, and bases that
/// share nothing on purpose.
fn near_and_unrelated() -> Vec<(String, String)> {
    let mut documents = Vec::new();
    for seed in 0..10 {
        let base = text(seed, 300);
        let mut edited = base.clone();
        edited[150] = format!("{}x", edited[150]);
        documents.push((format!("base-{seed}"), base.join(" ")));
        documents.push((format!("copy-{seed}"), edited.join(" ")));
    }
    documents
}

#[test]
fn bits_64_is_the_default_and_unchanged() {
    let input = "43981 48350 52719\n1 2\nid\t1:0.1 1:0.2 0:0.3\n\nx\t\n0xabcd 0xBCDE\n7:-2.5 9\n";
    let default = run("sh-compute", &[], input);
    let explicit = run("sh-compute", &["--bits", "64"], input);
    assert_eq!(explicit.success(), default.success());
    assert_eq!(default.success(), "44495\n0\nid\t0\n\nx\t\n43212\n18446744073709551608\n");
}

#[test]
fn wide_output_is_hex_of_n_over_4_digits_whose_word_0_is_the_64_bit_fingerprint() {
    let documents = near_and_unrelated();
    let narrow = fingerprints(&documents, "64");
    for (bits, width) in [("128", Width::Bits128), ("256", Width::Bits256)] {
        let wide = fingerprints(&documents, bits);
        for (w, n) in wide.iter().zip(&narrow) {
            assert_eq!(w.width(), width);
            assert_eq!(w.words()[0], n.words()[0], "the low 64 bits are the 64-bit fingerprint");
        }
    }
    // The text itself: `0x`, N/4 lowercase digits, the highest word first; empty stays empty.
    let out = run("sh-compute", &["--bits", "256"], "a\t43981 48350 52719\nb\t\n\n");
    let out = out.success();
    let (first, rest) = out.split_once('\n').expect("three lines");
    assert_eq!(rest, "b\t\n\n");
    let hex = first.strip_prefix("a\t0x").expect("an id and 0x");
    assert_eq!(hex.len(), 64);
    assert!(hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')), "{hex}");
    assert_eq!(u64::from_str_radix(&hex[48..], 16), Ok(44495), "the last 16 digits are word 0");
    assert_eq!(
        first, "a\t0xbaddbaad42f41fe7e6ca7728d640f6214901543c69a0a46c000000000000adcf",
        "word i of an item is SplitMix64's i-th output seeded with its hash"
    );
}

#[test]
fn weights_apply_to_every_word() {
    let words = |hash: u64| Fingerprint::from_words(&widen::<4>(hash)).expect("four words");
    let not =
        |f: Fingerprint| Fingerprint::from_words(&f.words().iter().map(|w| !w).collect::<Vec<_>>());
    let and = |a: Fingerprint, b: Fingerprint| {
        let both: Vec<u64> = a.words().iter().zip(b.words()).map(|(x, y)| x & y).collect();
        Fingerprint::from_words(&both).expect("four words")
    };
    let cases = [
        // A negative weight turns every bit of every word against the item.
        ("1:-1", not(words(1)).expect("four words")),
        // The heavier item wins every bit it disagrees on.
        ("5:2 9:-1", words(5)),
        ("0x5:2 9", words(5)),
        // An exact decimal tie where the two items disagree (0.1 + 0.2 against 0.3); where
        // they agree, 0.6 either way.
        ("3:0.1 3:0.2 8:0.3", and(words(3), words(8))),
        // A weighted item and 1 + 1 unweighted ones: a tie wherever they disagree.
        ("3:2 8 8", and(words(3), words(8))),
    ];
    let input: String = cases.iter().map(|(line, _)| format!("{line}\n")).collect();
    let expected: String =
        cases.iter().map(|(_, fingerprint)| format!("{fingerprint}\n")).collect();
    assert_eq!(run("sh-compute", &["--bits", "256"], input).success(), expected);
}

#[test]
fn identical_documents_give_identical_fingerprints() {
    let base = text(42, 300).join(" ");
    let documents = [("a".to_string(), base.clone()), ("b".to_string(), base)];
    for bits in ["64", "128", "256"] {
        let f = fingerprints(&documents, bits);
        assert_eq!(f[0], f[1], "{bits}");
    }
}

#[test]
fn near_duplicates_are_close_and_unrelated_documents_half_apart() {
    let documents = near_and_unrelated();
    let f = fingerprints(&documents, "256");
    let distance = |a: usize, b: usize| f[a].distance(&f[b]).expect("one width");
    // One word of 300 changed: 2 of 299 shingles differ.
    let near: Vec<u32> = (0..10).map(|i| distance(2 * i, 2 * i + 1)).collect();
    // Every two bases, and each base with the other bases' copies.
    let unrelated: Vec<u32> = (0..10)
        .flat_map(|i| (0..10).filter(move |&j| j != i).map(move |j| (2 * i, 2 * j + j % 2)))
        .map(|(a, b)| distance(a, b))
        .collect();
    let mean = |d: &[u32]| f64::from(d.iter().sum::<u32>()) / d.len() as f64;
    assert!(mean(&near) <= 24.0, "near duplicates: {near:?}");
    assert!(near.iter().all(|&d| d <= 40), "near duplicates: {near:?}");
    assert!((112.0..=144.0).contains(&mean(&unrelated)), "unrelated: {unrelated:?}");
    assert!(unrelated.iter().all(|&d| (80..=176).contains(&d)), "unrelated: {unrelated:?}");
    let farthest_near = near.iter().max().expect("ten pairs");
    let nearest_unrelated = unrelated.iter().min().expect("ninety pairs");
    assert!(farthest_near * 2 < *nearest_unrelated, "{near:?} against {unrelated:?}");
}

#[test]
fn bad_widths_are_usage_errors() {
    for bits in ["0", "32", "63", "65", "96", "192", "512", "-64", "abc", "", "0x40", "64.0"] {
        let out = run("sh-compute", &[&format!("--bits={bits}")], "1 2\n");
        out.failure(2, &format!("sh-compute: error: invalid value '{bits}' for '--bits <N>'"));
        assert!(out.stdout.is_empty());
    }
    run("sh-compute", &["--bits"], "1\n").failure(2, "sh-compute: error: ");
}

#[test]
fn bad_input_names_the_line_at_every_width() {
    for bits in ["128", "256"] {
        let out = run("sh-compute", &["--bits", bits], "1 2\nid\t3 0xfg 4\n5\n");
        let stderr = out.failure(1, "sh-compute: error: line 2: ");
        assert_eq!(
            stderr,
            "sh-compute: error: line 2: not an unsigned 64-bit integer (decimal or 0x hex): '0xfg'\n"
        );
        let out = run("sh-compute", &["--bits", bits], "1 2\n3:nan\n");
        out.failure(1, "sh-compute: error: line 2: weight is not a finite decimal number: '3:nan'");
    }
}

/// Wide fingerprints as sh-compute writes them: `0x` and N/4 hex digits, highest word first.
fn wide_text(fingerprints: &[Vec<u64>], ids: bool) -> String {
    let mut text = String::new();
    for (r, words) in fingerprints.iter().enumerate() {
        if ids {
            text.push_str(&format!("{}\t", r + 1));
        }
        let fingerprint = Fingerprint::from_words(words).expect("2 or 4 words");
        text.push_str(&format!("{fingerprint}\n"));
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Through the binary, text in and out: the parser takes `0x` and 32 or 64 digits as wide
    /// however many leading zeros, and the pairs are the oracle's, exact and with --word-k.
    #[test]
    fn sh_pairs_on_wide_text_equals_the_oracle(
        (words, fps) in prop_oneof![Just(2usize), Just(4)]
            .prop_flat_map(|w| (Just(w), sh_testkit::strategies::wide_fingerprints(40, w))),
        k in 0u32..=60,
        word_k in proptest::option::of(0u32..=8),
        ids in any::<bool>(),
        zeros in any::<bool>(),
    ) {
        // Leading zero words, so that `0x000…` could pass for a 64-bit number.
        let fps: Vec<Vec<u64>> = if zeros {
            fps.into_iter().map(|mut fp| { fp[1..].fill(0); fp }).collect()
        } else {
            fps
        };
        let mut args = vec!["-k".to_string(), k.to_string()];
        if let Some(word_k) = word_k {
            args.extend(["--word-k".to_string(), word_k.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run("sh-pairs", &args, wide_text(&fps, ids));
        let per_word = sh_pairs::WideRule::new(words, k, word_k).word_k;
        prop_assert_eq!(out.success(), sh_testkit::oracle::wide::all_pairs(&fps, k, per_word));
    }
}

#[test]
fn sh_pairs_finds_the_near_copies_at_256_bits_by_default() {
    let documents = near_and_unrelated();
    let stages: [(&str, &[&str]); 5] = [
        ("sh-tokenize", &["--with-id"]),
        ("sh-shingle", &[]),
        ("sh-hash", &[]),
        ("sh-compute", &["--bits", "256"]),
        ("sh-pairs", &[]),
    ];
    let out = pipeline(&stages, lines(&documents));
    let pairs: Vec<(&str, &str)> = out
        .success()
        .lines()
        .map(|line| {
            let mut fields = line.split('\t');
            (fields.next().expect("A"), fields.next().expect("B"))
        })
        .collect();
    let expected: Vec<(String, String)> =
        (0..10).map(|i| (format!("base-{i}"), format!("copy-{i}"))).collect();
    let got: Vec<(String, String)> =
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(got, expected);
}

#[test]
fn a_width_mismatch_between_the_inputs_names_the_corpus_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "7\n").expect("written");
    let query = wide_text(&[vec![7, 0]], false);
    let corpus_arg = corpus.to_str().expect("UTF-8 path");
    let out = run("sh-pairs", &["--against", corpus_arg], query);
    let stderr = out.failure(1, "sh-pairs: error: ");
    assert_eq!(
        stderr,
        format!(
            "sh-pairs: error: {corpus_arg}: line 1: a 64-bit fingerprint, but the first input's \
             are 128-bit (one run holds fingerprints of one width): '7'\n"
        )
    );
}
