//! sh-df and sh-weight through the real binaries: the table, merging shards, heavy hitters
//! against exact counts, the weighting rules, and faults in tables and flags.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proptest::prelude::*;

use crate::util::run;

/// The exact table of `docs` (one document per line, items separated by spaces), as sh-df
/// should write it.
fn exact_table(docs: &str) -> String {
    let mut df: BTreeMap<&str, u64> = BTreeMap::new();
    let mut documents = 0;
    for line in docs.lines() {
        documents += 1;
        let payload = line.split_once('\t').map_or(line, |(_, p)| p);
        for item in payload.split(' ').filter(|i| !i.is_empty()).collect::<BTreeSet<_>>() {
            *df.entry(item).or_insert(0) += 1;
        }
    }
    let mut rows: Vec<(&str, u64)> = df.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.as_bytes().cmp(b.0.as_bytes())));
    let mut table = format!("#documents\t{documents}\n");
    for (item, count) in rows {
        table += &format!("{item}\t{count}\n");
    }
    table
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

#[test]
fn table_of_a_small_corpus() {
    let got = run("sh-df", &[], "d1\ta b a\nd2\tb c\n\n");
    assert_eq!(got.success(), "#documents\t3\nb\t2\na\t1\nc\t1\n");
    // Numbers are items like any other: compared as text, sorted as bytes.
    let got = run("sh-df", &[], "10 9 010\n9\n");
    assert_eq!(got.success(), "#documents\t2\n9\t2\n010\t1\n10\t1\n");
    let got = run("sh-df", &["--weighted"], "x:1 y:2.5\nx:3\n");
    assert_eq!(got.success(), "#documents\t2\nx\t2\ny\t1\n");
    assert_eq!(run("sh-df", &[], "").success(), "#documents\t0\n");
}

/// Documents of items from a small skewed vocabulary (numbers, numbers with a leading zero,
/// text), some lines with ids, some empty.
fn corpus() -> impl Strategy<Value = String> {
    let item = prop_oneof![
        (0u64..40).prop_map(|n| (n * n).to_string()),
        // The same numbers with a leading zero: other items, which the tables and the count of
        // repeats must keep apart from the canonical ones.
        (0u64..6).prop_map(|n| format!("0{}", n * n)),
        "[a-c]{1,3}",
        Just("0x1f".to_string()),
    ];
    let doc = (prop::collection::vec(item, 0..12), prop::option::of("[a-z0-9]{1,4}")).prop_map(
        |(items, id)| match id {
            Some(id) => format!("{id}\t{}", items.join(" ")),
            None => items.join(" "),
        },
    );
    prop::collection::vec(doc, 0..25)
        .prop_map(|docs| docs.iter().map(|d| d.clone() + "\n").collect())
}

/// The first `limit` occurrences of each item (all when 0), in order: what --max-tf keeps.
fn first_occurrences<'a>(items: impl IntoIterator<Item = &'a str>, limit: u32) -> Vec<&'a str> {
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    items
        .into_iter()
        .filter(|i| {
            let n = seen.entry(i).or_default();
            *n += 1;
            limit == 0 || *n <= limit
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Exact mode: the table is the exact document frequencies, and merging the tables of
    /// shards gives the table of the whole, line for line.
    #[test]
    fn merged_shards_equal_the_whole(docs in corpus(), cuts in prop::collection::vec(0usize..30, 0..3)) {
        let whole = run("sh-df", &[], docs.clone());
        prop_assert_eq!(whole.success(), exact_table(&docs));
        let lines: Vec<&str> = docs.split_inclusive('\n').collect();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(lines.len())).collect();
        cuts.push(0);
        cuts.push(lines.len());
        cuts.sort_unstable();
        let dir = tempfile::tempdir().unwrap();
        let mut tables = Vec::new();
        for (n, range) in cuts.windows(2).enumerate() {
            let shard: String = lines[range[0]..range[1]].concat();
            let path = dir.path().join(format!("part-{n}.df"));
            let part = run("sh-df", &["-o", path_str(&path)], shard);
            part.success();
            tables.push(path);
        }
        let mut args = vec!["--merge"];
        args.extend(tables.iter().map(|p| path_str(p)));
        let merged = run("sh-df", &args, "");
        prop_assert_eq!(merged.success(), whole.stdout_str());
    }

    /// Beyond --capacity: no count above the exact one, none more than the undercount of the
    /// first line below it, and every item above the undercount present.
    #[test]
    fn heavy_hitters_against_exact_counts(docs in corpus(), capacity in 1u32..12) {
        let exact = exact_table(&docs);
        let exact: BTreeMap<String, u64> = exact.lines().skip(1)
            .map(|l| { let (i, c) = l.rsplit_once('\t').unwrap(); (i.to_string(), c.parse().unwrap()) })
            .collect();
        let got = run("sh-df", &["--quiet", "--capacity", &capacity.to_string()], docs.clone());
        let text = got.success();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let undercount: u64 = header.get(2).map_or(0, |e| e.parse().unwrap());
        let held: BTreeMap<String, u64> = lines
            .map(|l| { let (i, c) = l.rsplit_once('\t').unwrap(); (i.to_string(), c.parse().unwrap()) })
            .collect();
        prop_assert!(held.len() <= capacity as usize);
        for (item, &count) in &exact {
            match held.get(item) {
                Some(&h) => prop_assert!(h <= count && h + undercount >= count, "{} {} {} {}", item, h, count, undercount),
                None => prop_assert!(count <= undercount, "{} missing: {} > {}", item, count, undercount),
            }
        }
        if held.len() == exact.len() && undercount == 0 {
            prop_assert_eq!(held, exact);
        }
    }

    /// sh-weight writes one line per input line with its id, whatever the rule (and the same on
    /// threads as on one); with --max-df
    /// it keeps exactly the items at or below the fraction and those above it in runs of
    /// fewer than --min-run in a row (all of them when none is left, or when fewer than
    /// --min-kept of them are at or below the fraction, counted outside a run above it over
    /// half the document and then at most 4 in a row), with --max-tf the first occurrences of
    /// each item only, and with --idf every item it writes carries ln(N / df).
    #[test]
    fn weight_keeps_lines_and_ids(docs in corpus(), fraction in 1u32..=10, max_tf in 0u32..4,
                                  share in 0u32..=10, chunk_bytes in 1u32..200, min_run in 1usize..=5) {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("df");
        run("sh-df", &["-o", path_str(&table)], docs.clone()).success();
        let table_text = std::fs::read_to_string(&table).unwrap();
        let documents: f64 = table_text.lines().next().unwrap().split('\t').nth(1).unwrap().parse().unwrap();
        let df: BTreeMap<&str, f64> = table_text.lines().skip(1)
            .map(|l| { let (i, c) = l.rsplit_once('\t').unwrap(); (i, c.parse().unwrap()) })
            .collect();
        let f = f64::from(fraction) / 10.0;
        let f_text = f.to_string();
        let tf_text = max_tf.to_string();
        let default_tf = sh_weight::DEFAULT_MAX_TF;
        let m = f64::from(share) / 10.0;
        let m_text = m.to_string();
        let default_m = sh_weight::DEFAULT_MIN_KEPT;
        let r_text = min_run.to_string();
        let default_r = sh_weight::DEFAULT_MIN_RUN as usize;
        // Each rule with the fraction, floor, occurrence limit (0: none), least share kept and
        // shortest run left out that it means: --df alone is --max-df 0.02 --df-floor 50
        // --max-tf 8 --min-kept 0.1 --min-run 1, and the floor, the limit, the share and the
        // run hold unless others are given.
        type Case<'a> = (Vec<&'a str>, f64, f64, u32, f64, usize);
        let rules: [Case; 12] = [
            (vec![], 0.02, 50.0, default_tf, default_m, default_r),
            (vec!["--max-df", &f_text], f, 50.0, default_tf, default_m, default_r),
            (vec!["--max-df", &f_text, "--df-floor", "0"], f, 0.0, default_tf, default_m, default_r),
            (vec!["--max-df", &f_text, "--df-floor", "2", "--max-tf", &tf_text], f, 2.0, max_tf, default_m, default_r),
            (vec!["--max-df", &f_text, "--df-floor", "0", "--min-kept", &m_text], f, 0.0, default_tf, m, default_r),
            (vec!["--max-df", &f_text, "--df-floor", "0", "--min-run", &r_text], f, 0.0, default_tf, default_m, min_run),
            (vec!["--idf"], 1.0, 0.0, default_tf, default_m, default_r),
            (vec!["--idf", "--max-df", &f_text, "--df-floor", "0"], f, 0.0, default_tf, default_m, default_r),
            (vec!["--idf", "--max-df", &f_text, "--df-floor", "0", "--min-kept", &m_text], f, 0.0, default_tf, m, default_r),
            (vec!["--idf", "--max-df", &f_text, "--df-floor", "0", "--min-run", &r_text], f, 0.0, default_tf, default_m, min_run),
            (vec!["--idf", "--max-tf", &tf_text], 1.0, 0.0, max_tf, default_m, default_r),
            (vec!["--max-df", &f_text, "--df-floor", "0", "--max-tf", &tf_text, "--min-kept", &m_text, "--min-run", &r_text], f, 0.0, max_tf, m, min_run),
        ];
        for (args, max_df, floor, limit, min_kept, min_run) in rules {
            let mut full = vec!["--df", path_str(&table), "-j", "1"];
            full.extend(args.iter().copied());
            let got = run("sh-weight", &full, docs.clone());
            let out = got.success();
            // On threads, in chunks of a few lines: the same output.
            let chunk_text = chunk_bytes.to_string();
            let mut threaded = vec!["--df", path_str(&table), "-j", "3", "--chunk-bytes", &chunk_text];
            threaded.extend(args.iter().copied());
            let on_threads = run("sh-weight", &threaded, docs.clone());
            prop_assert_eq!(on_threads.success(), out, "{:?}", threaded);
            if docs.is_empty() {
                prop_assert_eq!(out, "");
            }
            prop_assert_eq!(out.lines().count(), docs.lines().count(), "{:?}", args);
            for (line_in, line_out) in docs.lines().zip(out.lines()) {
                let (id_in, payload) = line_in.split_once('\t').map_or((None, line_in), |(i, p)| (Some(i), p));
                let (id_out, written) = line_out.split_once('\t').map_or((None, line_out), |(i, p)| (Some(i), p));
                prop_assert_eq!(id_in, id_out);
                let items: Vec<&str> = payload.split(' ').filter(|i| !i.is_empty()).collect();
                let idf = args.contains(&"--idf");
                let table_keeps: Vec<&str> = items.iter().copied()
                    .filter(|i| df[i] <= (max_df * documents).floor().max(floor))
                    .collect();
                // The longest runs of items left out and kept in a row.
                let keeps = |i: &&str| df[i] <= (max_df * documents).floor().max(floor);
                let longest = |kept: bool| items.iter()
                    .scan(0usize, |run, i| {
                        *run = if keeps(i) == kept { *run + 1 } else { 0 };
                        Some(*run)
                    })
                    .max()
                    .unwrap_or(0);
                let (longest_out, longest_kept) = (longest(false), longest(true));
                // The items written: those the table keeps, and the others where fewer than
                // --min-run of them stand in a row (each maximal run measured whole).
                let mut rule_keeps: Vec<&str> = Vec::new();
                let mut i = 0;
                while i < items.len() {
                    let end = (i..items.len()).find(|&j| keeps(&items[j]) != keeps(&items[i])).unwrap_or(items.len());
                    if keeps(&items[i]) || end - i < min_run {
                        rule_keeps.extend_from_slice(&items[i..end]);
                    }
                    i = end;
                }
                // Too few kept: where the run left out covers more than half of the document,
                // counted outside it, and only if the items kept come at most 4 in a row.
                let too_few = if 2 * longest_out <= items.len() {
                    (table_keeps.len() as f64) < min_kept * items.len() as f64
                } else {
                    longest_kept <= 4 && (table_keeps.len() as f64) < min_kept * (items.len() - longest_out) as f64
                };
                let kept: Vec<&str> = first_occurrences(rule_keeps, limit)
                    .into_iter()
                    .filter(|i| !idf || ((documents / df[i]).ln() * 1e4).round() > 0.0)
                    .collect();
                // Items joined by single spaces, none before the first or after the last.
                prop_assert!(!written.starts_with(' ') && !written.ends_with(' ') && !written.contains("  "),
                             "spaces in {:?}, {:?}", written, args);
                let written: Vec<&str> = written.split(' ').filter(|i| !i.is_empty()).collect();
                if kept.is_empty() || too_few {
                    prop_assert_eq!(written, first_occurrences(items, limit), "all or nearly all would go: all stay, as they came, {:?}", args);
                } else if idf {
                    let expected: Vec<String> = kept.iter()
                        .map(|i| format!("{i}:{:.4}", (documents / df[i]).ln())).collect();
                    prop_assert_eq!(written, expected);
                } else {
                    prop_assert_eq!(written, kept, "{:?}", args);
                }
            }
        }
    }
}

/// Documents on both sides of 256 KiB (weighed in two passes below it, in one above it), of
/// items repeated up to hundreds of times, some left out by the table, alone or two in a row:
/// the first occurrences of the items kept (the common ones too where --min-run is above their
/// run), with --idf too, and one line per document.
#[test]
fn long_documents_keep_the_first_occurrences() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("df");
    // Two documents: "common" is in both (left out at --max-df 0.5 --df-floor 0, and weighs 0
    // with --idf), the rest in one (an item not in the table weighs as "rare", ln 2).
    std::fs::write(&table, "#documents\t2\ncommon\t2\nrare\t1\n").unwrap();
    // "common" alone every 7 items, and two in a row every 91.
    let item = |i: usize| match (i % 7, i % 91) {
        (0, _) | (_, 1) => "common".to_string(),
        (1, _) => format!("0{}", i % 13),
        _ => (i % 501).to_string(),
    };
    for items in [1_000, 60_000, 70_000, 200_000] {
        let words: Vec<String> = (0..items).map(item).collect();
        let doc = words.join(" ");
        let kept_by_table: Vec<&str> =
            words.iter().map(String::as_str).filter(|w| *w != "common").collect();
        // With --min-run 2 a lone "common" stays and two in a row go.
        let lone_kept: Vec<&str> = (0..items)
            .filter(|&i| i % 91 != 0 && i % 91 != 1 || words[i] != "common")
            .map(|i| words[i].as_str())
            .collect();
        let all: Vec<&str> = words.iter().map(String::as_str).collect();
        for (min_run, kept) in [("1", &kept_by_table), ("2", &lone_kept), ("3", &all)] {
            for limit in [1u32, 8, 300] {
                let limit_text = limit.to_string();
                let args = [
                    "--df",
                    path_str(&table),
                    "--max-df",
                    "0.5",
                    "--df-floor",
                    "0",
                    "--max-tf",
                    &limit_text,
                    "--min-run",
                    min_run,
                ];
                let got = run("sh-weight", &args, format!("id\t{doc}\nshort\n"));
                let want = first_occurrences(kept.iter().copied(), limit).join(" ");
                assert_eq!(
                    got.success(),
                    format!("id\t{want}\nshort\n"),
                    "{} bytes, --max-tf {limit} --min-run {min_run}",
                    doc.len()
                );
            }
        }
        let args = ["--df", path_str(&table), "--idf", "--max-tf", "2"];
        let got = run("sh-weight", &args, format!("{doc}\n"));
        let want: Vec<String> = first_occurrences(kept_by_table.iter().copied(), 2)
            .into_iter()
            .map(|w| format!("{w}:0.6931"))
            .collect();
        assert_eq!(got.success(), want.join(" ") + "\n", "{} bytes, --idf", doc.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// --min-kept and --min-run on documents made of runs of common items (in 90% of the
    /// documents) and of items of their own (in none), against the rule as the manual states
    /// it: a document keeps its own items and the common ones in runs of fewer than --min-run;
    /// it keeps all its items when none would be kept or under F of them are its own; where
    /// one run of common items covers more than half of it, under F of the items outside that
    /// run, and at most 4 of its own in a row.
    #[test]
    fn min_kept_on_runs_of_common_and_own_items(
        // Runs as short as an edit makes (around the limit of 4 kept in a row) as often as
        // longer ones.
        docs in prop::collection::vec(
            prop::collection::vec((any::<bool>(), prop_oneof![1usize..=6, 1usize..40]), 1..8),
            1..6,
        ),
        share in 0u32..=10,
        min_run in 1usize..=5,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("df");
        let mut text = String::from("#documents\t1000\n");
        for i in 0..320 {
            text += &format!("c{i}\t900\n");
        }
        std::fs::write(&table, text).unwrap();
        let (mut input, mut want) = (String::new(), String::new());
        for runs in &docs {
            // Each item once: c0, c1, ... for the common ones, o0, o1, ... for the own ones.
            let (mut items, mut own) = (Vec::new(), Vec::new());
            for &(common, len) in runs {
                for _ in 0..len {
                    let item = if common { format!("c{}", items.len()) } else { format!("o{}", items.len()) };
                    if !common {
                        own.push(item.clone());
                    }
                    items.push((common, item));
                }
            }
            let longest = |kind: bool| items.iter()
                .scan(0usize, |run, (common, _)| { *run = if *common == kind { *run + 1 } else { 0 }; Some(*run) })
                .max()
                .unwrap_or(0);
            let (all, kept, longest_out, longest_kept) = (items.len(), own.len(), longest(true), longest(false));
            let f = f64::from(share) / 10.0;
            let too_few = if 2 * longest_out <= all {
                (kept as f64) < f * all as f64
            } else {
                longest_kept <= 4 && (kept as f64) < f * (all - longest_out) as f64
            };
            // Its own items, and the common ones of a (maximal) run shorter than --min-run.
            let mut written = Vec::new();
            for run in items.chunk_by(|a, b| a.0 == b.0) {
                if !run[0].0 || run.len() < min_run {
                    written.extend(run.iter().map(|(_, item)| item.as_str()));
                }
            }
            let every: Vec<&str> = items.iter().map(|(_, item)| item.as_str()).collect();
            input += &(every.join(" ") + "\n");
            want += &(if written.is_empty() || too_few { every.join(" ") } else { written.join(" ") } + "\n");
        }
        let f_text = (f64::from(share) / 10.0).to_string();
        let r_text = min_run.to_string();
        for tf in ["8", "0"] {
            let args = ["--df", path_str(&table), "--min-kept", &f_text, "--max-tf", tf, "--min-run", &r_text];
            let got = run("sh-weight", &args, input.clone());
            prop_assert_eq!(got.success(), want.clone(), "{:?}", args);
        }
    }
}

/// --min-kept: a copy of a common text, its few items kept scattered through it, keeps all its
/// items, even where one stretch between two of its edits covers more than half of it; a page
/// whose common text stands in a block beside a short text of its own keeps only that text, as
/// does a short text between a header and a footer, unless its own items come at most 4 in a
/// row (as an edit's do), and any document when the share kept is at least F or F is 0.
#[test]
fn a_copy_of_common_text_keeps_its_items_and_a_page_in_a_template_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("df");
    let common: Vec<String> = (0..125).map(|i| format!("c{i}")).collect();
    let mut text = String::from("#documents\t1000\n");
    for item in &common {
        text += &format!("{item}\t900\n");
    }
    std::fs::write(&table, text).unwrap();
    // 1 item of 21 kept (under 0.1): between two runs of 10 left out, or after one run of 20
    // (of the 1 item outside it, all are kept).
    let copy = format!("{} own {}", common[..10].join(" "), common[10..20].join(" "));
    let page = format!("{} own", common[..20].join(" "));
    // 1 item of 41: after a run of 25 left out, over half, and before 15 more (1 of the 16
    // outside the run kept, under 0.1); with 2 items of the page's own, 2 of 17 (over 0.1).
    let far = format!("{} own {}", common[..25].join(" "), common[25..40].join(" "));
    let page2 = format!("{} own two {}", common[..25].join(" "), common[25..40].join(" "));
    // A short text of 5 items of its own between a header of 60 items and a footer of 50: 5
    // of the 55 outside the header, under 0.1, but 5 in a row, more than an edit makes.
    let stub = format!("{} a b c d e {}", common[..60].join(" "), common[60..110].join(" "));
    // After a header of 70: 4 items of its own in a row and a footer of 45 (4 of the 49
    // outside the header, under 0.1), as many in a row as an edit makes; or 3, 10 left out, 3
    // more and 45 (6 of 61): runs of 3, whatever they make together.
    let four = format!("{} a b c d {}", common[..70].join(" "), common[70..115].join(" "));
    let split = format!(
        "{} a b c {} d e f {}",
        common[..70].join(" "),
        common[70..80].join(" "),
        common[80..125].join(" ")
    );
    let input = format!(
        "copy\t{copy}\npage\t{page}\nfar\t{far}\npage2\t{page2}\nstub\t{stub}\n\
         four\t{four}\nsplit\t{split}\n"
    );
    let df = path_str(&table);
    // Both ways of weighing: in two passes (--max-tf), and in one (--max-tf 0), where the
    // items kept are written before the rule is known to apply.
    for tf in ["8", "0"] {
        let got = run("sh-weight", &["--df", df, "--max-tf", tf], input.clone());
        let want = format!(
            "copy\t{copy}\npage\town\nfar\t{far}\npage2\town two\nstub\ta b c d e\n\
             four\t{four}\nsplit\t{split}\n"
        );
        assert_eq!(got.success(), want, "--max-tf {tf}");
    }
    for args in [vec!["--df", df, "--min-kept", "0"], vec!["--df", df, "--min-kept", "0.04"]] {
        let got = run("sh-weight", &args, input.clone());
        let want = "copy\town\npage\town\nfar\town\npage2\town two\nstub\ta b c d e\n\
                    four\ta b c d\nsplit\ta b c d e f\n";
        assert_eq!(got.success(), want, "{args:?}");
    }
}

#[test]
fn items_not_in_the_table_weigh_as_its_rarest() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("df");
    std::fs::write(&table, "#documents\t100\ncommon\t100\nmid\t10\nrare\t4\n").unwrap();
    let got = run("sh-weight", &["--df", path_str(&table), "--idf"], "d\tcommon mid rare new\n");
    // common weighs ln(1) = 0 and goes; new weighs as rare: ln(100/4).
    assert_eq!(got.success(), "d\tmid:2.3026 rare:3.2189 new:3.2189\n");
    let args = ["--df", path_str(&table), "--max-df", "0.5", "--min-run", "1"];
    let got = run("sh-weight", &args, "common mid\ncommon\n");
    assert_eq!(got.success(), "mid\ncommon\n");
    // With --min-run 2 a common item goes only with another beside it.
    let got = run(
        "sh-weight",
        &["--df", path_str(&table), "--max-df", "0.5", "--min-run", "2"],
        "common mid\ncommon common mid common\nmid common common\n",
    );
    assert_eq!(got.success(), "common mid\nmid common\nmid\n");
    let got =
        run("sh-weight", &["--df", path_str(&table), "--idf", "--weighted"], "mid:2 common:5\n");
    assert_eq!(got.success(), "mid:4.6052\n");
    // --max-tf counts the occurrences of an ITEM whatever its weights, and only those the
    // table keeps; with --idf, the weight of each occurrence kept is its own times the IDF.
    let args = [
        "--df",
        path_str(&table),
        "--weighted",
        "--max-tf",
        "2",
        "--max-df",
        "0.5",
        "--min-run",
        "1",
    ];
    let got = run("sh-weight", &args, "mid:1 mid:2 common:1 mid:3 rare:1 mid:4 rare:2\n");
    assert_eq!(got.success(), "mid:1 mid:2 rare:1 rare:2\n");
    let args = ["--df", path_str(&table), "--weighted", "--max-tf", "1", "--idf"];
    let got = run("sh-weight", &args, "mid:1 mid:2 new:2 new:1\n");
    assert_eq!(got.success(), "mid:2.3026 new:6.4378\n");
}

#[test]
fn faults_in_tables_name_the_command_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("df");
    let t = path_str(&table).to_string();
    for (text, args, error) in [
        ("#documents\t0\n", vec![], format!("sh-weight: error: {t}: line 1: the table counts no documents: ''\n")),
        ("#documents\t2\nx\t3\n", vec![], format!("sh-weight: error: {t}: line 2: count above the table's 2 documents: 'x\\t3'\n")),
        ("#documents\t2\nx 1\n", vec![], format!("sh-weight: error: {t}: line 2: table line is not ITEM<TAB>COUNT: 'x 1'\n")),
        ("#documents\t2\nx\t1\nx\t2\n", vec!["--idf"], format!("sh-weight: error: {t}: line 3: item listed twice: 'x'\n")),
        ("documents\t2\n", vec![], format!("sh-weight: error: {t}: line 1: first line is not '#documents<TAB>N': 'documents\\t2'\n")),
        ("#documents\t9\na\t1\nb\t1\nc\t1\n", vec!["--idf", "--capacity", "2"], format!(
            "sh-weight: error: {t}: line 4: the table holds more than 2 items (raise --capacity, or use --max-df without --idf, which holds only the items to leave out): 'c'\n")),
        // A repeat when the table is full is a repeat.
        ("#documents\t9\n7\t1\n007\t1\n7\t1\n", vec!["--idf", "--capacity", "2"], format!("sh-weight: error: {t}: line 4: item listed twice: '7'\n")),
    ] {
        std::fs::write(&table, text).unwrap();
        let mut full = vec!["--df", t.as_str()];
        full.extend(args);
        let got = run("sh-weight", &full, "a b\n");
        assert_eq!((got.code, got.stderr.as_str(), got.stdout_str()), (Some(1), error.as_str(), ""), "{text:?}");
    }
    // The same faults in a table to merge.
    std::fs::write(&table, "#documents\t2\nx\t1\nx\t2\n").unwrap();
    let got = run("sh-df", &["--merge", &t], "");
    assert_eq!(got.stderr, format!("sh-df: error: {t}: line 3: item listed twice: 'x'\n"));
    assert_eq!(got.code, Some(1));
    let got = run("sh-weight", &["--df", "/nonexistent/df"], "");
    assert_eq!(got.code, Some(1));
    assert!(
        got.stderr.starts_with("sh-weight: error: cannot open '/nonexistent/df'"),
        "{}",
        got.stderr
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    for fraction in ["0", "1.5", "-0.1", "x", "nan"] {
        let got = run("sh-weight", &["--df", "df", "--max-df", fraction], "");
        got.failure(2, "sh-weight: error: invalid value");
    }
    for share in ["1.5", "-0.1", "x", "nan"] {
        let got = run("sh-weight", &["--df", "df", "--min-kept", share], "");
        got.failure(2, "sh-weight: error: invalid value");
    }
    run("sh-weight", &[], "").failure(2, "sh-weight: error: the following required arguments");
    run("sh-df", &["--capacity", "0"], "").failure(2, "sh-df: error: invalid value '0'");
}

#[test]
fn a_failed_run_leaves_the_output_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::write(&out, "old").unwrap();
    let got = run("sh-df", &["--weighted", "-o", path_str(&out)], "a:1\nb\n");
    got.failure(1, "sh-df: error: line 2: weighted item has no ':WEIGHT': 'b'");
    let got = run("sh-df", &["--weighted", "-o", path_str(&out)], "a:1\nb:2 :1\n");
    got.failure(1, "sh-df: error: line 2: weighted item has an empty ITEM: ':1'");
    let table = dir.path().join("df");
    std::fs::write(&table, "#documents\t1\na\t1\n").unwrap();
    let got = run(
        "sh-weight",
        &["--df", path_str(&table), "--weighted", "-o", path_str(&out)],
        "a:1\na:x\n",
    );
    got.failure(1, "sh-weight: error: line 2:");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no partial file is left");
}
