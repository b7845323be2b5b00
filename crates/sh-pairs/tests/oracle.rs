//! sh-pairs against a brute-force O(n^2) oracle: the output must equal the oracle's, line for
//! line, for every number of blocks and threads.

use proptest::prelude::*;
use sh_core::fingerprint::Width;
use sh_core::progress::Progress;
use sh_pairs::{write_pairs, Format, Options, RecordNames, Records};
use sh_testkit::strategies::{fingerprints, k_and_blocks};
use sh_testkit::{adversarial, oracle};

fn records(fingerprints: &[u64]) -> Records {
    let width = (!fingerprints.is_empty()).then_some(Width::Bits64);
    Records { fingerprints: fingerprints.to_vec(), width, names: RecordNames::default() }
}

fn run(
    query: &[u64],
    corpus: Option<&[u64]>,
    k: u32,
    blocks: u32,
    threads: usize,
    sparse: bool,
) -> String {
    let options = Options {
        k: Some(k),
        word_k: None,
        word_bytes: None,
        blocks: Some(blocks),
        threads,
        format: Format::Tsv,
        sparse,
    };
    let corpus = corpus.map(records);
    let mut out = Vec::new();
    write_pairs(records(query), corpus, &options, &mut out, &mut Progress::new(true, ""))
        .expect("search succeeds");
    String::from_utf8(out).expect("UTF-8 output")
}

/// Sparse output: valid near pairs, sorted, the same clusters as all pairs, and linear size.
fn check_sparse(fps: &[u64], k: u32, blocks: u32, threads: usize) {
    let sparse = run(fps, None, k, blocks, threads, true);
    if let Err(what) = oracle::check_sparse(fps, k, &sparse) {
        panic!("K={k} B={blocks} {threads} threads: {what}\n{sparse}");
    }
}

#[test]
fn every_distance_and_every_block_count() {
    for k in 0..=8 {
        for blocks in k + 1..=64 {
            let fps = adversarial(k, blocks);
            let expected = oracle::all_pairs(&fps, k);
            assert_eq!(run(&fps, None, k, blocks, 1, false), expected, "K={k} B={blocks}");
            assert_eq!(
                run(&fps, None, k, blocks, 2, false),
                expected,
                "K={k} B={blocks} 2 threads"
            );
        }
    }
}

#[test]
fn seed_example_three_bits_apart() {
    let corpus =
        u64::from_str_radix("0100101110111011001000101111101110111100001010011101100110110101", 2)
            .unwrap();
    let query =
        u64::from_str_radix("0100101110111011011000101111101110011100001010011100100110110101", 2)
            .unwrap();
    assert_eq!(run(&[corpus, query], None, 3, 6, 1, false), "1\t2\t3\n");
    assert_eq!(run(&[corpus, query], None, 2, 6, 1, false), "");
}

#[test]
fn identical_fingerprints_are_pairs_at_distance_zero() {
    assert_eq!(run(&[7, 7, 7], None, 0, 1, 1, false), "1\t2\t0\n1\t3\t0\n2\t3\t0\n");
    assert_eq!(run(&[7, 7, 7], None, 0, 1, 1, true), "1\t2\t0\n2\t3\t0\n");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn all_pairs_equal_the_oracle(fps in fingerprints(60), (k, blocks) in k_and_blocks(), threads in 1usize..=3) {
        prop_assert_eq!(run(&fps, None, k, blocks, threads, false), oracle::all_pairs(&fps, k));
    }

    #[test]
    fn against_equals_the_oracle(
        query in fingerprints(60),
        corpus in fingerprints(60),
        (k, blocks) in k_and_blocks(),
        threads in 1usize..=2,
    ) {
        // Queries and corpus drawn from one pool too, so that they share fingerprints.
        let mixed: Vec<u64> = query.iter().chain(&corpus).copied().collect();
        let half = &mixed[..mixed.len() / 2];
        prop_assert_eq!(run(&query, Some(&corpus), k, blocks, threads, false), oracle::against(&query, &corpus, k));
        prop_assert_eq!(run(half, Some(&mixed), k, blocks, threads, false), oracle::against(half, &mixed, k));
    }

    #[test]
    fn sparse_connects_the_same_clusters(fps in fingerprints(60), (k, blocks) in k_and_blocks(), threads in 1usize..=2) {
        check_sparse(&fps, k, blocks, threads);
    }
}
