//! sh-pairs against a brute-force O(n^2) oracle: the output must equal the oracle's, line for
//! line, for every number of blocks and threads.

use proptest::prelude::*;
use sh_core::progress::Progress;
use sh_pairs::{write_pairs, Format, Options, RecordNames, Records};

fn records(fingerprints: &[u64]) -> Records {
    Records { fingerprints: fingerprints.to_vec(), names: RecordNames::default() }
}

fn run(
    query: &[u64],
    corpus: Option<&[u64]>,
    k: u32,
    blocks: u32,
    threads: usize,
    sparse: bool,
) -> String {
    let options = Options { k, blocks: Some(blocks), threads, format: Format::Tsv, sparse };
    let corpus = corpus.map(records);
    let mut out = Vec::new();
    write_pairs(records(query), corpus, &options, &mut out, &mut Progress::new(true, ""))
        .expect("search succeeds");
    String::from_utf8(out).expect("UTF-8 output")
}

/// Every pair of records within K bits, by line number, in (a, b) order.
fn oracle(fps: &[u64], k: u32) -> String {
    let mut out = String::new();
    for (a, &x) in fps.iter().enumerate() {
        for (b, &y) in fps.iter().enumerate().skip(a + 1) {
            let d = (x ^ y).count_ones();
            if d <= k {
                out += &format!("{}\t{}\t{d}\n", a + 1, b + 1);
            }
        }
    }
    out
}

fn oracle_against(query: &[u64], corpus: &[u64], k: u32) -> String {
    let mut out = String::new();
    for (a, &x) in query.iter().enumerate() {
        for (b, &y) in corpus.iter().enumerate() {
            let d = (x ^ y).count_ones();
            if d <= k {
                out += &format!("{}\t{}\t{d}\n", a + 1, b + 1);
            }
        }
    }
    out
}

/// Connected components of the pairs in `output` over records 1..=n, as a label per record.
fn components(n: usize, output: &str) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..=n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for line in output.lines() {
        let mut fields = line.split('\t').map(|f| f.parse::<usize>().unwrap());
        let (a, b) = (fields.next().unwrap(), fields.next().unwrap());
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    (1..=n).map(|x| root(&mut parent, x)).collect()
}

/// Sparse output: valid near pairs, sorted, the same clusters as all pairs, and linear size.
fn check_sparse(fps: &[u64], k: u32, blocks: u32, threads: usize) {
    let sparse = run(fps, None, k, blocks, threads, true);
    let all = oracle(fps, k);
    let mut previous = (0, 0);
    for line in sparse.lines() {
        let f: Vec<usize> = line.split('\t').map(|f| f.parse().unwrap()).collect();
        let (a, b, d) = (f[0], f[1], f[2] as u32);
        assert!(a < b && (a, b) > previous, "sorted, a before b: {line}");
        previous = (a, b);
        assert_eq!((fps[a - 1] ^ fps[b - 1]).count_ones(), d, "distance of {line}");
        assert!(d <= k);
    }
    assert_eq!(components(fps.len(), &sparse), components(fps.len(), &all), "same clusters");
    let mut distinct = fps.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let near_groups = oracle(&distinct, k).lines().count();
    assert!(sparse.lines().count() <= fps.len() - distinct.len() + near_groups, "linear size");
}

/// Sets meant to break a block-based search: sparse and dense bit patterns, all zeros and all
/// ones, many identical fingerprints, and neighbours at 0..=K+1 bits whose differing bits fall
/// inside one block or straddle block edges.
fn adversarial(k: u32, blocks: u32) -> Vec<u64> {
    let mut fps = vec![0, u64::MAX, 0, 1, 1 << 63, 3, u64::MAX >> 1, u64::MAX - 1];
    let base = 0x9e37_79b9_7f4a_7c15_u64;
    fps.extend([base, base, base]);
    let edges: Vec<u32> =
        (1..blocks).map(|i| (u64::from(i) * 64 / u64::from(blocks)) as u32).collect();
    for d in 0..=k + 1 {
        // Differing bits packed at the bottom of one block …
        fps.push(base ^ ((1u64 << d) - 1));
        // … and spread over block edges.
        let mut x = 0u64;
        for (n, &edge) in edges.iter().cycle().take(d as usize).enumerate() {
            x |= 1 << ((edge + n as u32 / edges.len().max(1) as u32) % 64);
        }
        fps.push(base ^ x);
        if let Some(&edge) = edges.first() {
            fps.push(!base ^ (((1u64 << d.min(63)) - 1) << edge.saturating_sub(d / 2)));
        }
    }
    fps
}

#[test]
fn every_distance_and_every_block_count() {
    for k in 0..=8 {
        for blocks in k + 1..=64 {
            let fps = adversarial(k, blocks);
            let expected = oracle(&fps, k);
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

fn fingerprints() -> impl Strategy<Value = Vec<u64>> {
    let random = proptest::collection::vec(any::<u64>(), 0..60);
    let few_bits = proptest::collection::vec(
        proptest::collection::vec(0u32..64, 0..4)
            .prop_map(|bits| bits.iter().fold(0u64, |x, &b| x | 1 << b)),
        0..40,
    );
    let many_bits = few_bits.clone().prop_map(|v| v.into_iter().map(|x| !x).collect());
    let pool = proptest::collection::vec(any::<u64>(), 1..4)
        .prop_flat_map(|pool| proptest::collection::vec(proptest::sample::select(pool), 0..50));
    let planted = (
        any::<u64>(),
        proptest::collection::vec(proptest::collection::vec(0u32..64, 0..10), 0..40),
    )
        .prop_map(|(base, flips)| {
            flips.iter().map(|bits| bits.iter().fold(base, |x, &b| x ^ 1 << b)).collect()
        });
    prop_oneof![random, few_bits, many_bits, pool, planted]
}

fn k_and_blocks() -> impl Strategy<Value = (u32, u32)> {
    (0u32..=8).prop_flat_map(|k| (Just(k), k + 1..=64))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn all_pairs_equal_the_oracle(fps in fingerprints(), (k, blocks) in k_and_blocks(), threads in 1usize..=3) {
        prop_assert_eq!(run(&fps, None, k, blocks, threads, false), oracle(&fps, k));
    }

    #[test]
    fn against_equals_the_oracle(
        query in fingerprints(),
        corpus in fingerprints(),
        (k, blocks) in k_and_blocks(),
        threads in 1usize..=2,
    ) {
        // Queries and corpus drawn from one pool too, so that they share fingerprints.
        let mixed: Vec<u64> = query.iter().chain(&corpus).copied().collect();
        let half = &mixed[..mixed.len() / 2];
        prop_assert_eq!(run(&query, Some(&corpus), k, blocks, threads, false), oracle_against(&query, &corpus, k));
        prop_assert_eq!(run(half, Some(&mixed), k, blocks, threads, false), oracle_against(half, &mixed, k));
    }

    #[test]
    fn sparse_connects_the_same_clusters(fps in fingerprints(), (k, blocks) in k_and_blocks(), threads in 1usize..=2) {
        check_sparse(&fps, k, blocks, threads);
    }
}
