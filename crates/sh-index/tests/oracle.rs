//! sh-index against sh-testkit's brute-force oracle of `sh-pairs --against`.
//!
//! Part (a), segments: a segment written with every number of tables m (every layout a K can
//! use, 1..=K+1) must find, for every query and every K, exactly the corpus records the oracle
//! finds, each once, and give back its fingerprints and names. Part (b), whole indexes through
//! `sh_index::run`: an index built whole, built from a first piece and `add`ed the others, with
//! its segments rewritten in every layout, and compacted, must answer `query` as the oracle
//! answers the corpus file (`cat` of the pieces), at its K and below, for records named by line
//! numbers (blank lines among them) or by ids.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use clap::Parser;
use proptest::prelude::*;
use sh_index::{
    keys_within, write_segment_laid_out, Args, Batch, Index, Layout, Name, Names, Scratch, Segment,
};
use sh_testkit::strategies::fingerprints;
use sh_testkit::{adversarial, oracle};

/// A temporary directory, in memory where there is one: every file sh-index writes is synced
/// to disk, which on a disk costs these tests ten times their run time and tests nothing here.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    match shm.is_dir() {
        true => tempfile::tempdir_in(shm).or_else(|_| tempfile::tempdir()).unwrap(),
        false => tempfile::tempdir().unwrap(),
    }
}

// ---------------------------------------------------------------------------------------------
// (a) Segments in every layout.

/// Whether a search within `k` bits of a segment of `m` tables probes few enough keys to run
/// in a debug build's test (1,000 a query): one table of all 64 bits searched within 8 probes
/// 5 * 10^9 keys a query, a layout no index chooses for that K (it is chosen for K = 0). Every
/// m is still tested at the K it can serve.
fn feasible(m: usize, k: u32) -> bool {
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

fn corpus_and_queries() -> impl Strategy<Value = (u32, Vec<u64>, Vec<u64>)> {
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

// ---------------------------------------------------------------------------------------------
// (b) Whole indexes through the command: built whole, added in pieces, in every layout,
// compacted.

/// Runs `sh-index ARGS… -q`.
fn sh_index(args: &[&str]) -> sh_core::Result<()> {
    let argv = ["sh-index"].iter().chain(args).chain(&["-q"]).copied();
    sh_index::run(Args::parse_from(argv))
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// Records as lines of a file: ids or none, skipped lines before some.
#[derive(Debug, Clone)]
struct Lines {
    text: String,
    /// The names sh-pairs gives the records: their ids, or their line numbers in the file.
    names: Vec<String>,
    lines: u64,
}

/// Writes `fps` as `[ID<TAB>]FINGERPRINT` lines, a skipped line (blank, or an id without a
/// fingerprint) before record i where `skip[i]`, and `trailing` skipped lines at the end; line
/// numbers from `line_base` + 1, ids `PREFIX-N` (some the same as others').
fn lines(fps: &[u64], ids: Option<&str>, skip: &[bool], trailing: usize, line_base: u64) -> Lines {
    let (mut text, mut names, mut line) = (String::new(), Vec::new(), line_base);
    let skipped = |text: &mut String, line: &mut u64, n: usize| {
        for i in 0..n {
            text.push_str(if ids.is_some() && i % 2 == 0 { "no fingerprint\t\n" } else { "\n" });
            *line += 1;
        }
    };
    for (i, &fp) in fps.iter().enumerate() {
        skipped(&mut text, &mut line, usize::from(skip.get(i).copied().unwrap_or(false)));
        line += 1;
        match ids {
            Some(prefix) => {
                // Every seventh id repeats an earlier one: ids need not be unique.
                let id = format!("{prefix}-{}", if i % 7 == 6 { i / 2 } else { i });
                writeln!(text, "{id}\t{fp}").unwrap();
                names.push(id);
            }
            None => {
                // Decimal and hexadecimal, as sh-compute and people write them.
                if i % 3 == 1 {
                    writeln!(text, "{fp:#x}").unwrap();
                } else {
                    writeln!(text, "{fp}").unwrap();
                }
                names.push(line.to_string());
            }
        }
    }
    skipped(&mut text, &mut line, trailing);
    Lines { text, names, lines: line - line_base }
}

/// The oracle's answer with the records renamed as sh-pairs names them in these files.
fn named(oracle_text: &str, queries: &Lines, corpus: &[String]) -> String {
    let mut out = String::new();
    for line in oracle_text.lines() {
        let fields: Vec<usize> = line.split('\t').map(|f| f.parse().unwrap()).collect();
        let (q, c, distance) = (fields[0], fields[1], fields[2]);
        writeln!(out, "{}\t{}\t{distance}", queries.names[q - 1], corpus[c - 1]).unwrap();
    }
    out
}

/// A corpus cut into pieces (1 to 4, some possibly without records), with ids or without and
/// skipped lines, queries likewise, and the index's K.
#[derive(Debug, Clone)]
struct Case {
    k: u32,
    corpus: Vec<u64>,
    cuts: Vec<usize>,
    queries: Vec<u64>,
    ids: bool,
    skip: Vec<bool>,
    trailing: Vec<usize>,
}

fn case() -> impl Strategy<Value = Case> {
    corpus_and_queries().prop_flat_map(|(k, corpus, queries)| {
        let n = corpus.len();
        (
            Just(k),
            Just(corpus),
            proptest::collection::vec(0..=n, 0..=3),
            Just(queries),
            any::<bool>(),
            proptest::collection::vec(proptest::bool::weighted(0.15), n.max(20)),
            proptest::collection::vec(prop_oneof![4 => Just(0usize), 1 => 1usize..3], 5),
        )
            .prop_map(|(k, corpus, mut cuts, queries, ids, skip, trailing)| {
                cuts.sort_unstable();
                Case { k, corpus, cuts, queries, ids, skip, trailing }
            })
    })
}

/// Rewrites every segment of the index in `dir` with `m` tables (the manifest updated to the
/// new files' lengths and header sums), the records and their names as they were.
fn relayout(dir: &Path, m: usize) {
    let index = Index::open(dir).unwrap();
    let mut manifest = index.manifest.clone();
    for (segment, entry) in index.segments.iter().zip(&mut manifest.segments) {
        let h = &segment.header;
        let (mut lines, mut bytes, mut ends) = (Vec::new(), Vec::new(), Vec::new());
        for r in 0..h.records {
            match segment.name(r).unwrap() {
                Name::Line(line) => lines.push(line),
                Name::Id(id) => {
                    bytes.extend_from_slice(id);
                    ends.push(bytes.len() as u64);
                }
            }
        }
        let names = if !ends.is_empty() {
            Names::Ids { bytes, ends }
        } else if lines.iter().zip(h.line_base + 1..).all(|(&l, expected)| l == expected) {
            Names::ImplicitLines
        } else {
            Names::Lines(lines)
        };
        let batch = Batch {
            fingerprints: segment.fingerprints().unwrap(),
            names,
            first: h.first,
            line_base: h.line_base,
        };
        entry.file_len = write_segment_laid_out(segment.path(), &batch, h.k, Some(m)).unwrap();
        entry.header_sum = Segment::open(segment.path()).unwrap().header.sum();
    }
    drop(index);
    fs::write(dir.join("MANIFEST"), manifest.encode()).unwrap();
    let reopened = Index::open(dir).unwrap();
    assert!(reopened.segments.iter().all(|s| s.header.tables.len() == m));
}

/// Checks `sh-index query` on the index in `dir` at its K and every K below against `expected`
/// (by K), and a K above it refused.
fn check_queries(
    dir: &Path,
    query_file: &Path,
    expected: &[String],
    what: &str,
) -> Result<(), TestCaseError> {
    let out = dir.parent().unwrap().join("answers.txt");
    let k = expected.len() - 1;
    for (query_k, expected) in expected.iter().enumerate() {
        let k_arg = query_k.to_string();
        let mut args =
            vec!["query", path_str(dir), "-i", path_str(query_file), "-o", path_str(&out)];
        if query_k < k || query_k % 2 == 0 {
            // At the index's K, with -k and without.
            args.extend(["-k", &k_arg]);
        }
        sh_index(&args).expect("the query succeeds");
        let got = fs::read_to_string(&out).unwrap();
        prop_assert_eq!(&got, expected, "{}, K {} of {}", what, query_k, k);
    }
    let above = (k + 1).to_string();
    let refused = sh_index(&["query", path_str(dir), "-i", path_str(query_file), "-k", &above])
        .expect_err("a K above the index's is refused");
    prop_assert_eq!(refused.exit_code(), 2);
    let message = refused.to_string();
    prop_assert!(
        message.contains(&format!("-k {above} is above the index's K, {k}")),
        "{}",
        message
    );
    Ok(())
}

fn check_index_case(case: &Case) -> Result<(), TestCaseError> {
    let Case { k, corpus, cuts, queries, ids, skip, trailing } = case;
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);

    // The pieces, their lines numbered on from the pieces before, and the whole file.
    let bounds: Vec<usize> =
        [0].into_iter().chain(cuts.iter().copied()).chain([corpus.len()]).collect();
    let (mut pieces, mut line_base) = (Vec::new(), 0);
    for (p, window) in bounds.windows(2).enumerate() {
        let (from, to) = (window[0], window[1]);
        let piece =
            lines(&corpus[from..to], ids.then_some("c"), &skip[from..to], trailing[p], line_base);
        line_base += piece.lines;
        pieces.push(piece);
    }
    let whole: String = pieces.iter().map(|p| p.text.as_str()).collect();
    let corpus_names: Vec<String> = pieces.iter().flat_map(|p| p.names.clone()).collect();
    let query_lines = lines(
        queries,
        ids.then_some("q"),
        &skip[skip.len() - queries.len().min(skip.len())..],
        1,
        0,
    );
    fs::write(at("whole.txt"), &whole).unwrap();
    fs::write(at("queries.txt"), &query_lines.text).unwrap();
    for (p, piece) in pieces.iter().enumerate() {
        fs::write(at(&format!("piece-{p}.txt")), &piece.text).unwrap();
    }
    let expected: Vec<String> = (0..=*k)
        .map(|query_k| {
            named(&oracle::against(queries, corpus, query_k), &query_lines, &corpus_names)
        })
        .collect();
    let k_arg = k.to_string();

    // Built whole.
    let whole_index = at("whole.idx");
    sh_index(&[
        "build",
        "-o",
        path_str(&whole_index),
        "-k",
        &k_arg,
        "-i",
        path_str(&at("whole.txt")),
    ])
    .expect("build");
    check_queries(&whole_index, &at("queries.txt"), &expected, "built whole")?;

    // Built from the first piece, the others added.
    let index = at("pieces.idx");
    let first = at("piece-0.txt");
    sh_index(&["build", "-o", path_str(&index), "-k", &k_arg, "-i", path_str(&first)])
        .expect("build");
    for p in 1..pieces.len() {
        sh_index(&["add", path_str(&index), "-i", path_str(&at(&format!("piece-{p}.txt")))])
            .expect("add");
    }
    let opened = Index::open(&index).unwrap();
    let with_records = pieces.iter().filter(|p| !p.names.is_empty()).count();
    prop_assert_eq!(opened.segments.len(), with_records);
    prop_assert_eq!(opened.manifest.lines, line_base);
    drop(opened);
    check_queries(&index, &at("queries.txt"), &expected, "added in pieces")?;

    // The same segments in every layout K can use.
    for m in (1..=(*k as usize + 1).min(8)).filter(|&m| feasible(m, *k)) {
        relayout(&index, m);
        check_queries(&index, &at("queries.txt"), &expected, &format!("pieces, {m} tables"))?;
    }

    // Compacted: one segment (none without records), the same answers.
    sh_index(&["compact", path_str(&index)]).expect("compact");
    let opened = Index::open(&index).unwrap();
    prop_assert_eq!(opened.segments.len(), usize::from(!corpus.is_empty()));
    drop(opened);
    check_queries(&index, &at("queries.txt"), &expected, "compacted")?;
    let mut files: Vec<String> = fs::read_dir(&index)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.retain(|f| f.starts_with("seg-") || f.ends_with(".partial"));
    prop_assert_eq!(
        files.len(),
        usize::from(!corpus.is_empty()),
        "old segments removed: {:?}",
        files
    );
    Ok(())
}

#[test]
fn an_index_of_k_0_and_few_records_answers() {
    // K = 0 lays a segment out as one table of the whole 64 bits; with few records its
    // directory has no bits.
    let case = Case {
        k: 0,
        corpus: vec![5, 7, 5],
        cuts: vec![1],
        queries: vec![5, 6],
        ids: false,
        skip: vec![false; 20],
        trailing: vec![0; 5],
    };
    check_index_case(&case).unwrap();
}

#[test]
fn ids_blank_lines_and_pieces_by_hand() {
    let case = Case {
        k: 2,
        corpus: vec![5, 7, 1000, 4, 5, 1 << 63],
        cuts: vec![2, 2, 5],
        queries: vec![5, 1 << 62],
        ids: true,
        skip: vec![
            true, false, true, false, false, true, false, true, false, false, false, false, false,
            false, false, false, false, false, false, false,
        ],
        trailing: vec![1, 2, 0, 1, 0],
    };
    check_index_case(&case).unwrap();
    let case = Case { ids: false, ..case };
    check_index_case(&case).unwrap();
}

#[test]
fn many_queries_on_several_threads() {
    // 3,000 queries (answered in parallel from 256 on) against three segments, one thread and
    // three: the same lines, in input order.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        state
    };
    let bases: Vec<u64> = (0..50).map(|_| next()).collect();
    let mut near = |n: usize| -> Vec<u64> {
        (0..n)
            .map(|_| {
                let r = next();
                bases[r as usize % 50] ^ (1 << ((r >> 8) % 64)) ^ (1 << ((r >> 16) % 64))
            })
            .collect()
    };
    let corpus = near(600);
    let queries = near(3000);
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    for (p, piece) in corpus.chunks(200).enumerate() {
        let text: String = piece.iter().map(|fp| format!("{fp}\n")).collect();
        fs::write(at(&format!("piece-{p}.txt")), text).unwrap();
    }
    let text: String = queries.iter().map(|fp| format!("{fp}\n")).collect();
    fs::write(at("queries.txt"), text).unwrap();
    let index = at("index");
    sh_index(&["build", "-o", path_str(&index), "-k", "3", "-i", path_str(&at("piece-0.txt"))])
        .unwrap();
    for p in 1..3 {
        sh_index(&["add", path_str(&index), "-i", path_str(&at(&format!("piece-{p}.txt")))])
            .unwrap();
    }
    let expected = oracle::against(&queries, &corpus, 3);
    assert!(expected.lines().count() > 3000, "most queries find something");
    for threads in ["1", "3"] {
        let out = at("answers.txt");
        let queries = at("queries.txt");
        let args = ["query", path_str(&index), "-i", path_str(&queries), "-o", path_str(&out)];
        sh_index(&[&args[..], &["-j", threads]].concat()).unwrap();
        assert!(fs::read_to_string(&out).unwrap() == expected, "-j {threads}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn indexes_built_added_and_compacted_equal_the_oracle(case in case()) {
        check_index_case(&case)?;
    }
}
