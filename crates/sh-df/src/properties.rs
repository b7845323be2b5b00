//! Property tests of counting documents (`count.rs`, `document.rs`, `partitions.rs`) against a
//! naive count: random documents of number and text items with repeats, small budgets so that
//! the buffers are flushed many times (mid-document too), in one pass and in parts.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::Arc;

use proptest::prelude::*;
use sh_core::progress::Progress;
use sh_core::RecordReader;

use crate::count::{count_parts, count_records, Counting};
use crate::partitions::DocumentCounts;

/// The table as (item, count) in the table's order, and the undercount.
type Table = (Vec<(Vec<u8>, u64)>, u64);

fn count_text(text: &[u8], capacity: usize, budget: usize, weighted: bool) -> (u64, Table) {
    let mut counts = DocumentCounts::with_budget(capacity, budget);
    let mut reader = RecordReader::new(std::io::Cursor::new(text.to_vec()), "t".into());
    let n = count_records(&mut reader, &mut counts, weighted, Progress::new(true, "")).unwrap();
    (n, table(counts))
}

fn table(counts: DocumentCounts) -> Table {
    let (items, undercount) = counts.finish(2);
    (items.iter().map(|(i, c)| (i.to_vec(), c)).collect(), undercount)
}

/// The exact document frequencies of the items (runs between spaces; with `weighted`, the
/// part before the last ':'), by bytes.
fn naive(text: &[u8], weighted: bool) -> BTreeMap<Vec<u8>, u64> {
    let mut df = BTreeMap::new();
    for line in text.split(|&b| b == b'\n') {
        let payload = match line.iter().position(|&b| b == b'\t') {
            Some(tab) => &line[tab + 1..],
            None => line,
        };
        let distinct: BTreeSet<&[u8]> = payload
            .split(|&b| b == b' ')
            .filter(|item| !item.is_empty())
            .map(|item| match weighted {
                true => &item[..item.iter().rposition(|&b| b == b':').unwrap()],
                false => item,
            })
            .collect();
        for item in distinct {
            *df.entry(item.to_vec()).or_insert(0) += 1;
        }
    }
    df
}

/// The naive counts in the table's order: by decreasing count, then by bytes.
fn in_order(df: &BTreeMap<Vec<u8>, u64>) -> Vec<(Vec<u8>, u64)> {
    let mut items: Vec<_> = df.iter().map(|(i, &c)| (i.clone(), c)).collect();
    items.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    items
}

/// An item: mostly numbers from a small range (repeats within and across documents), some
/// large numbers, and text: words, leading zeros, hex, numbers above 2^64, digits then junk.
fn item() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u64..60).prop_map(|n| (n * n / 8).to_string()),
        2 => any::<u64>().prop_map(|n| n.to_string()),
        1 => (0u64..3).prop_map(|n| (u64::MAX - n).to_string()),
        1 => "[a-c]{1,3}",
        1 => "0[0-9]{1,2}",
        1 => (0u64..20).prop_map(|n| format!("0x{n:x}")),
        1 => Just("18446744073709551616".to_string()),
        1 => "[0-9]{1,3}[a:]",
    ]
}

/// Documents as text: `[ID<TAB>]ITEM ITEM …`, items between one or more spaces.
fn documents() -> impl Strategy<Value = Vec<u8>> {
    let document = (any::<bool>(), prop::collection::vec((item(), 1usize..3), 0..40));
    prop::collection::vec(document, 0..60).prop_map(|docs| {
        let mut text = Vec::new();
        for (n, (with_id, items)) in docs.iter().enumerate() {
            if *with_id {
                write!(text, "d{n}\t").unwrap();
            }
            for (item, spaces) in items {
                write!(text, "{item}{}", " ".repeat(*spaces)).unwrap();
            }
            text.push(b'\n');
        }
        text
    })
}

/// The guarantees of a summary beyond the capacity, against the truth.
fn check_bounds(held: &Table, truth: &BTreeMap<Vec<u8>, u64>, capacity: usize) {
    let (items, e) = held;
    assert!(items.len() <= capacity, "{} items held, capacity {capacity}", items.len());
    let occurrences: u64 = truth.values().sum();
    assert!(*e <= occurrences / (capacity as u64 + 1), "undercount {e}, {occurrences} occurrences");
    let held: BTreeMap<&[u8], u64> = items.iter().map(|(i, c)| (&i[..], *c)).collect();
    assert_eq!(held.len(), items.len(), "an item listed twice");
    for (item, &true_count) in truth {
        match held.get(&item[..]) {
            Some(&c) => {
                assert!(c <= true_count && c + e >= true_count, "{item:?}: {c} {true_count}")
            }
            None => assert!(true_count <= *e, "{item:?} missing with {true_count} > {e}"),
        }
    }
    assert!(held.keys().all(|item| truth.contains_key(*item)));
    let order: Vec<_> = items.iter().map(|(i, c)| (std::cmp::Reverse(*c), i)).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "not in the table's order");
}

fn in_parts(text: &[u8], parts: usize, capacity: usize) -> (u64, Table) {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(text).unwrap();
    let how = Counting { capacity, weighted: false, threads: parts, quiet: true };
    let mut counts = DocumentCounts::new(capacity);
    let n = count_parts(Arc::new(file), text.len() as u64, parts, how, &mut counts).unwrap();
    (n, table(counts))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// While the distinct items fit, the table is the naive count, whatever the budget.
    #[test]
    fn exact_equals_a_naive_count(text in documents(), budget in 1usize..50) {
        let truth = naive(&text, false);
        let capacity = truth.len().max(1);
        let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
        let (n, (items, e)) = count_text(&text, capacity, budget, false);
        prop_assert_eq!(n, lines);
        prop_assert_eq!(e, 0);
        prop_assert_eq!(&items, &in_order(&truth));
        prop_assert_eq!(count_text(&text, capacity, 1 << 20, false).1, (items.clone(), 0));
        let parts = in_parts(&text, 3, capacity);
        prop_assert_eq!(parts, (lines, (items, 0)));
    }

    /// Weighted items count by their ITEM.
    #[test]
    fn weighted_items_count_by_item(text in documents(), weight in "[0-9]{1,2}") {
        let text: Vec<u8> = String::from_utf8(text).unwrap().split('\n').map(|line| {
            let (id, payload) = line.split_once('\t').map_or(("", line), |(i, p)| (i, p));
            let items: Vec<String> =
                payload.split(' ').filter(|i| !i.is_empty()).map(|i| format!("{i}:{weight}")).collect();
            if id.is_empty() { items.join(" ") } else { format!("{id}\t{}", items.join(" ")) }
        }).collect::<Vec<_>>().join("\n").into_bytes();
        let truth = naive(&text, true);
        let (_, (items, e)) = count_text(&text, truth.len().max(1), 7, true);
        prop_assert_eq!(e, 0);
        prop_assert_eq!(items, in_order(&truth));
    }

    /// Beyond the capacity, the Misra-Gries bounds hold, in one pass or in parts.
    #[test]
    fn heavy_hitters_within_the_bounds(text in documents(), capacity in 1usize..40,
                                       budget in 1usize..100) {
        let truth = naive(&text, false);
        check_bounds(&count_text(&text, capacity, budget, false).1, &truth, capacity);
        check_bounds(&in_parts(&text, 4, capacity).1, &truth, capacity);
    }
}

/// A document of more numbers than the per-document set takes is deduplicated by sorting.
#[test]
fn a_long_document_counts_each_item_once() {
    let mut text = Vec::new();
    for round in 0..3u64 {
        for n in 0..40_000u64 {
            write!(text, "{} ", n * 7 + round % 2).unwrap();
        }
    }
    text.extend_from_slice(b"x x\n7 x\n");
    let truth = naive(&text, false);
    for (capacity, budget) in [(1 << 20, 1000), (1 << 20, 1 << 20)] {
        let (n, (items, e)) = count_text(&text, capacity, budget, false);
        assert_eq!((n, e), (2, 0));
        assert_eq!(items, in_order(&truth));
    }
    let held = count_text(&text, 1000, 5000, false).1;
    check_bounds(&held, &truth, 1000);
}
