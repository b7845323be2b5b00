//! `Weights::apply` on a table large enough that items are looked up ahead (`crate::ahead`),
//! against the rule of `--idf` worked out item by item.

use super::*;
use crate::idf::push_weight;
use proptest::prelude::*;
use std::sync::OnceLock;

/// Items held: more than a filter covers, so that the table is looked up ahead.
const HELD: u64 = 70_000;
const DOCUMENTS: u64 = 1_000_000;

/// Item `n`: a hash's decimal of up to 20 digits, or, one in ten, an item past the 20 bytes a
/// slot holds.
fn item(n: u64) -> String {
    match n % 10 {
        0 => format!("{n}-an-item-longer-than-a-slot-holds"),
        _ => n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_string(),
    }
}

/// Its count in the table: some in every document (weight 0, so left out).
fn count(n: u64) -> u64 {
    if n.is_multiple_of(97) {
        DOCUMENTS
    } else {
        1 + n % 5000
    }
}

fn weights() -> &'static Weights {
    static WEIGHTS: OnceLock<Weights> = OnceLock::new();
    WEIGHTS.get_or_init(|| {
        let mut text = format!("#documents\t{DOCUMENTS}\n");
        for n in 0..HELD {
            text.push_str(&format!("{}\t{}\n", item(n), count(n)));
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        let rule = Rule::from_flags(None, 0, true, 0, 0.1, 1);
        Weights::load(file.path(), rule, usize::MAX).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Each item weighed by ln(N / df) of its own count (an item not held, as the rarest),
    /// in order, those of weight 0 left out; a document of none but those keeps them all.
    #[test]
    fn each_item_has_its_own_weight(
        document in prop::collection::vec(0..HELD + 1000, 0..80),
    ) {
        let weights = weights();
        prop_assert!(weights.items.far());
        let payload = document.iter().map(|&n| item(n)).collect::<Vec<_>>().join(" ");
        let mut out = Vec::new();
        weights.apply(payload.as_bytes(), false, 1, &mut out, &mut Repeats::default()).unwrap();
        let mut want = Vec::new();
        for &n in &document {
            let mut weighed = format!("{}:", item(n)).into_bytes();
            let df = if n < HELD { count(n) } else { 1 };
            if push_weight(&mut weighed, (DOCUMENTS as f64 / df as f64).ln()) {
                want.push(String::from_utf8(weighed).unwrap());
            }
        }
        let want = if want.is_empty() { payload.clone() } else { want.join(" ") };
        prop_assert_eq!(String::from_utf8(out).unwrap(), want);
    }
}
