//! (b) Whole indexes through the command: built whole, added in pieces, in every layout,
//! compacted.

use super::segments::{corpus_and_queries, feasible};
use super::*;

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
