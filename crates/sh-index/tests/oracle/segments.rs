//! (a) Segments in every layout.

use super::*;

/// Whether a search within `k` bits of a segment of `m` tables probes few enough keys to run
/// in a debug build's test (1,000 a query): one table of all 64 bits searched within 8 probes
/// 5 * 10^9 keys a query, a layout no index chooses for that K (it is chosen for K = 0). Every
/// m is still tested at the K it can serve.
pub(crate) fn feasible(m: usize, k: u32) -> bool {
    let layout = Layout::even(m, 1);
    let radii = layout.radii(k);
    let probes: f64 = layout
        .tables
        .iter()
        .zip(radii)
        .map(|(table, radius)| radius.map_or(0.0, |r| keys_within(table.key_bits, r)))
        .sum();
    probes <= 1_000.0
}

fn batch(fingerprints: &[u64]) -> Batch {
    Batch {
        fingerprints: fingerprints.to_vec(),
        names: Names::ImplicitLines,
        first: 0,
        line_base: 0,
    }
}

/// What a segment answers for `queries` within `k`, as sh-pairs --against writes it: query
/// number, corpus record number, distance, both 1-based. The queries are searched together
/// (`search_batch`, eight at a time, as `sh-index query` searches them) when `together`, else
/// one by one.
fn segment_answers(segment: &Segment, queries: &[u64], k: u32, together: bool) -> String {
    let mut found: Vec<(u32, u64, u32)> = Vec::new();
    if together {
        let mut scratch = Scratch::default();
        segment.search_batch(queries, k, &mut scratch, &mut found).expect("the search succeeds");
    } else {
        let mut one = Vec::new();
        for (q, &query) in queries.iter().enumerate() {
            one.clear();
            segment.search(query, k, &mut one).expect("the search succeeds");
            found.extend(one.iter().map(|&(r, distance)| (q as u32, r, distance)));
        }
    }
    found.sort_unstable();
    let mut out = String::new();
    for &(q, r, distance) in &found {
        writeln!(out, "{}\t{}\t{distance}", q + 1, r + 1).unwrap();
    }
    out
}

/// Writes `corpus` as a segment laid out for `k` with each m in 1..=k+1 (at most 16) and checks
/// every search within 0..=8 bits against the oracle, and the records read back.
fn check_every_layout(corpus: &[u64], queries: &[u64], k: u32) -> Result<(), TestCaseError> {
    let dir = scratch();
    for m in 1..=(k as usize + 1).min(16) {
        let path = dir.path().join(format!("seg-{m}"));
        write_segment_laid_out(&path, &batch(corpus), k, Some(m)).expect("the segment is written");
        let segment = Segment::open(&path).expect("the segment opens");
        prop_assert_eq!(segment.header.tables.len(), m);
        for query_k in (0..=8).filter(|&query_k| feasible(m, query_k)) {
            let expected = oracle::against(queries, corpus, query_k);
            let got = segment_answers(
                &segment,
                queries,
                query_k,
                (query_k as usize + m).is_multiple_of(2),
            );
            prop_assert_eq!(
                got,
                expected,
                "m {} built for K {}, searched within {}",
                m,
                k,
                query_k
            );
        }
        if !corpus.is_empty() {
            prop_assert_eq!(segment.fingerprints().expect("the records read back"), corpus);
        }
        for r in 0..corpus.len() as u64 {
            prop_assert_eq!(segment.name(r).expect("a name"), Name::Line(r + 1));
        }
        segment.check_all().expect("every block checks");
    }
    Ok(())
}

/// Fingerprints at exactly `d` bits from a base, for d around K: K - 1, K and K + 1 (a cluster
/// whose members are at the boundary from the base and at up to 2K + 2 from each other).
fn boundary_cluster(k: u32) -> impl Strategy<Value = Vec<u64>> {
    let bits: Vec<u32> = (0..64).collect();
    let at = move |d: u32| proptest::sample::subsequence(bits.clone(), d as usize);
    let member = prop_oneof![at(k.saturating_sub(1)), at(k), at(k + 1)];
    (any::<u64>(), proptest::collection::vec(member, 1..24)).prop_map(|(base, members)| {
        let mut fps = vec![base, base];
        fps.extend(members.iter().map(|flips| flips.iter().fold(base, |x, &b| x ^ 1 << b)));
        fps
    })
}

/// A corpus for K: random or structured (sh-testkit's strategies), the adversarial set for
/// some number of blocks, a boundary cluster, none, one record, many identical ones, or
/// enough near ones (up to 400) that the directories have bits.
fn corpus(k: u32) -> impl Strategy<Value = Vec<u64>> {
    let planted =
        (any::<u64>(), proptest::collection::vec(0u32..64, 0..6)).prop_flat_map(|(base, _)| {
            proptest::collection::vec(proptest::collection::vec(0u32..64, 0..6), 50..400).prop_map(
                move |flips| {
                    flips.iter().map(|f| f.iter().fold(base, |x, &b| x ^ 1 << b)).collect()
                },
            )
        });
    prop_oneof![
        3 => fingerprints(40),
        2 => (1u32..=16).prop_map(move |blocks| adversarial(k, blocks)),
        2 => boundary_cluster(k),
        1 => Just(Vec::new()),
        1 => any::<u64>().prop_map(|fp| vec![fp]),
        1 => (any::<u64>(), 2usize..40).prop_map(|(fp, n)| vec![fp; n]),
        1 => planted,
    ]
}

/// Queries: random ones, and corpus records with up to K + 2 bits flipped (so that most find
/// something, some at exactly K and K + 1).
fn queries(corpus: Vec<u64>, k: u32) -> impl Strategy<Value = Vec<u64>> {
    let bits: Vec<u32> = (0..64).collect();
    let flips = proptest::collection::vec(
        (any::<proptest::sample::Index>(), proptest::sample::subsequence(bits, 0..=k as usize + 2)),
        0..16,
    );
    (proptest::collection::vec(any::<u64>(), 0..4), flips).prop_map(move |(random, near)| {
        let mut queries = random;
        if !corpus.is_empty() {
            for (at, flips) in near {
                let base = corpus[at.index(corpus.len())];
                queries.push(flips.iter().fold(base, |x, &b| x ^ 1 << b));
            }
        }
        queries
    })
}

pub(crate) fn corpus_and_queries() -> impl Strategy<Value = (u32, Vec<u64>, Vec<u64>)> {
    (0u32..=8).prop_flat_map(|k| {
        corpus(k).prop_flat_map(move |corpus| (Just(k), Just(corpus.clone()), queries(corpus, k)))
    })
}

#[test]
fn the_adversarial_sets_in_every_layout() {
    for k in 0..=8 {
        for blocks in [1, 3, k + 1, 16] {
            let corpus = adversarial(k, blocks);
            check_every_layout(&corpus, &corpus, k).unwrap();
        }
    }
}

#[test]
fn a_corpus_of_many_blocks_in_every_layout() {
    // 8,000 records (about 150 to 450 1 KiB blocks, directories of 9 bits), clusters of near
    // and identical fingerprints among random ones; queried with a sample of them, flipped.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        state
    };
    let mut corpus = Vec::new();
    while corpus.len() < 8_000 {
        let base = next();
        corpus.push(base);
        for _ in 0..next() % 4 {
            let r = next();
            corpus.push(base ^ (1 << (r % 64)) ^ (1 << ((r >> 8) % 64)) ^ (1 << ((r >> 16) % 64)));
        }
    }
    let queries: Vec<u64> = corpus
        .iter()
        .step_by(50)
        .map(|&fp| fp ^ (1 << (fp % 64)) ^ (1 << ((fp >> 40) % 64)))
        .collect();
    let expected: Vec<String> = (0..=6).map(|k| oracle::against(&queries, &corpus, k)).collect();
    let dir = scratch();
    for m in 1..=7 {
        let path = dir.path().join(format!("seg-{m}"));
        write_segment_laid_out(&path, &batch(&corpus), 6, Some(m)).unwrap();
        let segment = Segment::open(&path).unwrap();
        assert!(segment.header.blocks() >= 20, "{} blocks", segment.header.blocks());
        for k in [0, 3, 6].into_iter().filter(|&k| feasible(m, k)) {
            assert_eq!(
                segment_answers(&segment, &queries, k, k != 3),
                expected[k as usize],
                "m {m} K {k}"
            );
        }
        assert_eq!(segment.fingerprints().unwrap(), corpus);
    }
}

#[test]
fn names_and_record_numbers_of_a_later_segment() {
    // A segment whose records follow others': record numbers from `first`, line numbers from
    // the line base or as given, ids as given.
    let dir = scratch();
    let fps = [5u64, 7, 5, 1 << 40];
    let cases = [
        (
            Names::ImplicitLines,
            vec![Name::Line(11), Name::Line(12), Name::Line(13), Name::Line(14)],
        ),
        (
            Names::Lines(vec![12, 14, 15, 19]),
            vec![Name::Line(12), Name::Line(14), Name::Line(15), Name::Line(19)],
        ),
        (
            Names::Ids { bytes: b"ab\xc3\xa9c".to_vec(), ends: vec![1, 2, 2, 5] },
            vec![Name::Id(b"a"), Name::Id(b"b"), Name::Id(b""), Name::Id("éc".as_bytes())],
        ),
    ];
    for (m, (names, expected)) in (1..).zip(cases) {
        let path = dir.path().join(format!("seg-{m}"));
        let batch = Batch { fingerprints: fps.to_vec(), names, first: 100, line_base: 10 };
        write_segment_laid_out(&path, &batch, 2, Some(m)).unwrap();
        let segment = Segment::open(&path).unwrap();
        let got: Vec<Name> = (0..4).map(|r| segment.name(r).unwrap()).collect();
        assert_eq!(got, expected, "m {m}");
        let mut found = Vec::new();
        segment.search(5, 1, &mut found).unwrap();
        found.sort_unstable();
        assert_eq!(found, [(100, 0), (101, 1), (102, 0)], "m {m}");
        assert_eq!(segment.fingerprints().unwrap(), fps);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn segments_in_every_layout_equal_the_oracle((k, corpus, queries) in corpus_and_queries()) {
        check_every_layout(&corpus, &queries, k)?;
        // (Some of) the corpus as its own queries: every record finds itself.
        check_every_layout(&corpus, &corpus[..corpus.len().min(24)], k)?;
    }
}
