//! sh-weight through the real binary: the weighting rules (--max-df, --min-run, --max-tf,
//! --idf, --min-kept) against oracles, on sh-df's tables.

use std::collections::BTreeMap;

use proptest::prelude::*;

use crate::corpus_stats::{corpus, first_occurrences, path_str};
use crate::util::run;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

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
/// items repeated up to hundreds of times, some left out by the table, alone or two in a row,
/// ending in one or two of them: the first occurrences of the items kept (the common ones too
/// where --min-run is above their run), with --idf too, and one line per document.
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
    // The items that --min-run keeps: all but the runs of "common" at least that long.
    let kept_by_runs = |words: &[String], min_run: usize| -> Vec<String> {
        let runs = words.chunk_by(|a, b| (a == "common") == (b == "common"));
        runs.filter(|run| run[0] != "common" || run.len() < min_run).flatten().cloned().collect()
    };
    for (items, tail) in [(1_000, 1), (60_000, 2), (70_000, 1), (200_000, 2)] {
        let mut words: Vec<String> = (0..items).map(item).collect();
        assert_ne!(words[items - 1], "common", "the tail is a run of its own");
        words.extend(std::iter::repeat_n("common".to_string(), tail));
        let doc = words.join(" ");
        let kept_by_table = kept_by_runs(&words, 1);
        let lone_kept = kept_by_runs(&words, 2);
        let all = kept_by_runs(&words, 3);
        assert!(kept_by_table.len() < lone_kept.len() && lone_kept.len() < all.len());
        assert_eq!(all, words);
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
                let want = first_occurrences(kept.iter().map(String::as_str), limit).join(" ");
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
        let want: Vec<String> = first_occurrences(kept_by_table.iter().map(String::as_str), 2)
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

/// A weight that --idf would make infinite is an error on its line, not an item that the next
/// stage refuses; so is an empty ITEM, as in sh-df.
#[test]
fn a_weight_past_the_largest_number_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("df");
    std::fs::write(&table, "#documents\t3\n1\t2\n2\t1\n").unwrap();
    let args = ["--df", path_str(&table), "--weighted", "--idf"];
    assert_eq!(run("sh-weight", &args, "2:2 1:0.5\n").success(), "2:2.1972 1:0.2027\n");
    run("sh-weight", &args, "2:2\n:5\n")
        .failure(1, "sh-weight: error: line 2: weighted item has an empty ITEM: ':5'\n");
    run("sh-weight", &args, "2:2\n2:1.7e308\n").failure(
        1,
        "sh-weight: error: line 2: the weight times the item's IDF is beyond a finite number: \
         '2:1.7e308'\n",
    );
}
