//! sh-pairs on wide fingerprints (128 and 256 bits) against the brute-force oracle: every pair
//! within K bits in total, exactly once, for any B and threads, exact, with --word-k and with
//! --word-bytes; with --against and --sparse too.

use proptest::prelude::*;
use sh_core::fingerprint::Width;
use sh_core::progress::Progress;
use sh_pairs::{write_pairs, Format, Options, RecordNames, Records, WideRule};
use sh_testkit::oracle::wide as oracle;
use sh_testkit::strategies::wide_fingerprints;

fn records(fingerprints: &[Vec<u64>], words: usize) -> Records {
    let width = (!fingerprints.is_empty()).then(|| Width::from_words(words).expect("2 or 4"));
    Records { fingerprints: fingerprints.concat(), width, names: RecordNames::default() }
}

/// One search: K, --word-k, --word-bytes, B (None: the cost model's), threads.
#[derive(Debug, Clone, Copy)]
struct Search {
    k: u32,
    word_k: Option<u32>,
    word_bytes: Option<u32>,
    blocks: Option<u32>,
    threads: usize,
}

impl Search {
    /// Which words count, as the oracle applies it.
    fn word_k(&self, words: usize) -> oracle::WordRule {
        let rule = WideRule::new(words, self.k, self.word_k).with_word_bytes(self.word_bytes);
        oracle::WordRule { k: rule.word_k, bytes: rule.word_bytes }
    }
}

fn run(
    words: usize,
    query: &[Vec<u64>],
    corpus: Option<&[Vec<u64>]>,
    search: Search,
    sparse: bool,
) -> String {
    let options = Options {
        k: Some(search.k),
        word_k: search.word_k,
        word_bytes: search.word_bytes,
        blocks: search.blocks,
        threads: search.threads,
        format: Format::Tsv,
        sparse,
    };
    let corpus = corpus.map(|c| records(c, words));
    let mut out = Vec::new();
    write_pairs(records(query, words), corpus, &options, &mut out, &mut Progress::new(true, ""))
        .expect("search succeeds");
    String::from_utf8(out).expect("UTF-8 output")
}

/// K up to 70, --word-k sometimes (below, at and above floor(K / words)), --word-bytes
/// sometimes (then B is 8 or the default), B sometimes.
fn searches(words: usize) -> impl Strategy<Value = Search> {
    let word_bytes = proptest::option::weighted(0.3, 0u32..=7);
    (0u32..=70, proptest::option::of(0u32..=20), word_bytes, any::<bool>(), 1usize..=3)
        .prop_flat_map(move |(k, word_k, word_bytes, choose_b, threads)| {
            let rule = WideRule::new(words, k, word_k).with_word_bytes(word_bytes);
            let blocks = match (choose_b, rule.word_bytes) {
                (false, _) => Just(None).boxed(),
                (true, Some(_)) => Just(Some(8)).boxed(),
                (true, None) => proptest::option::of(rule.word_k + 1..=64).boxed(),
            };
            blocks.prop_map(move |blocks| Search { k, word_k, word_bytes, blocks, threads })
        })
}

#[test]
fn adversarial_boundaries_for_every_k() {
    for words in [2, 4] {
        for k in 0..=48 {
            let fps = oracle::adversarial(words, k);
            for word_k in [None, Some(0), Some(k / words as u32 / 2)] {
                for blocks in [None, Some(WideRule::new(words, k, word_k).word_k + 1)] {
                    let search = Search { k, word_k, word_bytes: None, blocks, threads: 2 };
                    let expected = oracle::all_pairs(&fps, k, search.word_k(words));
                    assert_eq!(
                        run(words, &fps, None, search, false),
                        expected,
                        "{words} words {search:?}"
                    );
                }
            }
        }
    }
}

/// The byte rule at its boundaries: a word d = 1 to 9 bits apart over every number of bytes,
/// for every k up to 9 and t up to 7, the total K at, below and above the words' sums.
#[test]
fn byte_rule_boundaries_for_every_k_and_t() {
    for words in [2, 4] {
        let fps = oracle::byte_boundaries(words);
        for word_k in 0..=9 {
            for word_bytes in 0..=7 {
                for k in [word_k, 6 + 3 * words as u32, 40] {
                    for (blocks, threads) in [(None, 1), (Some(8), 2)] {
                        let word_k = Some(word_k);
                        let word_bytes = Some(word_bytes);
                        let search = Search { k, word_k, word_bytes, blocks, threads };
                        let expected = oracle::all_pairs(&fps, k, search.word_k(words));
                        assert_eq!(
                            run(words, &fps, None, search, false),
                            expected,
                            "{words} words {search:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn identical_wide_fingerprints_are_pairs_at_distance_zero() {
    let fp = vec![1, 2, 3, 4];
    let fps = [fp.clone(), fp.clone(), fp];
    let search = Search { k: 0, word_k: None, word_bytes: None, blocks: None, threads: 1 };
    assert_eq!(run(4, &fps, None, search, false), "1\t2\t0\n1\t3\t0\n2\t3\t0\n");
    assert_eq!(run(4, &fps, None, search, true), "1\t2\t0\n2\t3\t0\n");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn wide_pairs_equal_the_oracle(
        (words, fps, search) in prop_oneof![Just(2usize), Just(4)]
            .prop_flat_map(|w| (Just(w), wide_fingerprints(50, w), searches(w))),
    ) {
        let expected = oracle::all_pairs(&fps, search.k, search.word_k(words));
        prop_assert_eq!(run(words, &fps, None, search, false), expected);
    }

    #[test]
    fn wide_against_equals_the_oracle(
        (words, query, corpus, search) in prop_oneof![Just(2usize), Just(4)]
            .prop_flat_map(|w| (Just(w), wide_fingerprints(40, w), wide_fingerprints(40, w), searches(w))),
    ) {
        let word_k = search.word_k(words);
        // Drawn from one pool too, so that queries and corpus share fingerprints.
        let mixed: Vec<Vec<u64>> = query.iter().chain(&corpus).cloned().collect();
        let half = &mixed[..mixed.len() / 2];
        prop_assert_eq!(run(words, &query, Some(&corpus), search, false), oracle::against(&query, &corpus, search.k, word_k));
        prop_assert_eq!(run(words, half, Some(&mixed), search, false), oracle::against(half, &mixed, search.k, word_k));
    }

    #[test]
    fn wide_sparse_connects_the_same_clusters(
        (words, fps, search) in prop_oneof![Just(2usize), Just(4)]
            .prop_flat_map(|w| (Just(w), wide_fingerprints(50, w), searches(w))),
    ) {
        let sparse = run(words, &fps, None, search, true);
        if let Err(what) = oracle::check_sparse(&fps, search.k, search.word_k(words), &sparse) {
            panic!("{words} words {search:?}: {what}\n{sparse}");
        }
    }
}
