//! The counting: ids numbered once, the gold standard as a set of pairs or as labels, the
//! predicted pairs as a set, and the true and false positives among them.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// Every id seen in either file, numbered in order of first appearance.
#[derive(Debug, Default)]
pub struct Ids {
    numbers: HashMap<Vec<u8>, u32>,
}

impl Ids {
    /// The id's number; `None` when there are already 2^32 - 1 ids.
    pub fn number(&mut self, id: &[u8]) -> Option<u32> {
        if let Some(&n) = self.numbers.get(id) {
            return Some(n);
        }
        let n = u32::try_from(self.numbers.len()).ok().filter(|&n| n < u32::MAX)?;
        self.numbers.insert(id.to_vec(), n);
        Some(n)
    }
}

/// An unordered pair of id numbers as one key: the smaller number in the high half.
pub fn pair_key(a: u32, b: u32) -> u64 {
    let (low, high) = if a < b { (a, b) } else { (b, a) };
    (u64::from(low) << 32) | u64::from(high)
}

/// What the gold file says: which pairs are near duplicates.
#[derive(Debug)]
pub enum Gold {
    /// Every distinct unordered pair listed.
    Pairs(std::collections::HashSet<u64>),
    /// A label for every listed id (by id number; `NO_LABEL` for ids not in the gold); two ids
    /// are a gold pair when they have the same label.
    Labels { of: Vec<u32>, sizes: Vec<u64> },
}

pub const NO_LABEL: u32 = u32::MAX;

/// Why a label could not be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelError {
    /// The id already has another label.
    Conflict,
    TooMany,
}

/// Builds the labels form of [`Gold`] one line at a time.
#[derive(Debug, Default)]
pub struct LabelsBuilder {
    of: Vec<u32>,
    sizes: Vec<u64>,
    labels: HashMap<Vec<u8>, u32>,
}

impl LabelsBuilder {
    /// Gives the id numbered `id` the label `label`; the same id and label again count once.
    pub fn add(&mut self, id: u32, label: &[u8]) -> Result<(), LabelError> {
        let label = match self.labels.get(label) {
            Some(&n) => n,
            None => {
                let n = u32::try_from(self.sizes.len())
                    .ok()
                    .filter(|&n| n < NO_LABEL)
                    .ok_or(LabelError::TooMany)?;
                self.labels.insert(label.to_vec(), n);
                self.sizes.push(0);
                n
            }
        };
        let id = id as usize;
        if self.of.len() <= id {
            self.of.resize(id + 1, NO_LABEL);
        }
        match self.of[id] {
            NO_LABEL => {
                self.of[id] = label;
                self.sizes[label as usize] += 1;
                Ok(())
            }
            same if same == label => Ok(()),
            _ => Err(LabelError::Conflict),
        }
    }

    pub fn finish(self) -> Gold {
        Gold::Labels { of: self.of, sizes: self.sizes }
    }
}

impl Gold {
    /// The number of distinct gold pairs.
    pub fn pair_count(&self) -> u64 {
        match self {
            Gold::Pairs(pairs) => pairs.len() as u64,
            Gold::Labels { sizes, .. } => sizes
                .iter()
                .map(|&n| u128::from(n) * u128::from(n.saturating_sub(1)) / 2)
                .sum::<u128>() as u64,
        }
    }

    /// Whether the unordered pair of id numbers `a`, `b` (distinct) is a gold pair.
    pub fn contains(&self, a: u32, b: u32) -> bool {
        match self {
            Gold::Pairs(pairs) => pairs.contains(&pair_key(a, b)),
            Gold::Labels { of, .. } => {
                let label = |id: u32| of.get(id as usize).copied().unwrap_or(NO_LABEL);
                let la = label(a);
                la != NO_LABEL && la == label(b)
            }
        }
    }
}

/// The distinct predicted pairs, each with the smallest distance it was given (0 when the
/// distance is not used).
#[derive(Debug, Default)]
pub struct Predicted {
    pairs: HashMap<u64, u8>,
}

impl Predicted {
    pub fn add(&mut self, a: u32, b: u32, distance: u8) {
        match self.pairs.entry(pair_key(a, b)) {
            Entry::Occupied(mut seen) => {
                let smaller = (*seen.get()).min(distance);
                seen.insert(smaller);
            }
            Entry::Vacant(new) => {
                new.insert(distance);
            }
        }
    }

    /// True and false positives by distance: `counts[d]` for the pairs at distance d.
    pub fn tally(&self, gold: &Gold) -> Vec<(u64, u64)> {
        let mut counts = vec![(0u64, 0u64); usize::from(sh_core::pairs::MAX_DISTANCE) + 1];
        for (&key, &distance) in &self.pairs {
            let (a, b) = ((key >> 32) as u32, key as u32);
            let slot = &mut counts[distance as usize];
            if gold.contains(a, b) {
                slot.0 += 1;
            } else {
                slot.1 += 1;
            }
        }
        counts
    }
}

/// The score of a set of predicted pairs against the gold pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub true_positives: u64,
    pub false_positives: u64,
    pub false_negatives: u64,
}

impl Score {
    pub fn new(true_positives: u64, false_positives: u64, gold: u64) -> Score {
        Score { true_positives, false_positives, false_negatives: gold - true_positives }
    }

    /// TP / (TP + FP); 1 when nothing was predicted (no predicted pair is wrong).
    pub fn precision(&self) -> f64 {
        ratio(self.true_positives, self.true_positives + self.false_positives)
    }

    /// TP / (TP + FN); 1 when the gold has no pairs (there was nothing to find).
    pub fn recall(&self) -> f64 {
        ratio(self.true_positives, self.true_positives + self.false_negatives)
    }

    /// 2TP / (2TP + FP + FN), the harmonic mean of precision and recall; 1 when both the gold
    /// and the prediction are empty, 0 when only one of them is.
    pub fn f1(&self) -> f64 {
        let tp2 = 2 * self.true_positives;
        ratio(tp2, tp2 + self.false_positives + self.false_negatives)
    }
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_keys_are_unordered() {
        assert_eq!(pair_key(1, 2), pair_key(2, 1));
        assert_ne!(pair_key(1, 2), pair_key(1, 3));
        assert_eq!(pair_key(0, u32::MAX - 1), (u32::MAX - 1) as u64);
    }

    #[test]
    fn labels_count_pairs_within_each_label_once() {
        let mut builder = LabelsBuilder::default();
        for (id, label) in [(0, &b"x"[..]), (1, b"x"), (2, b"x"), (3, b"y"), (4, b"y"), (5, b"z")] {
            builder.add(id, label).unwrap();
        }
        builder.add(1, b"x").unwrap(); // a duplicate line
        assert_eq!(builder.add(1, b"y"), Err(LabelError::Conflict));
        let gold = builder.finish();
        assert_eq!(gold.pair_count(), 3 + 1);
        assert!(gold.contains(0, 2) && gold.contains(2, 0) && gold.contains(4, 3));
        assert!(!gold.contains(2, 3) && !gold.contains(5, 0) && !gold.contains(5, 99));
        assert!(!gold.contains(98, 99), "ids without a label are in no pair");
    }

    #[test]
    fn zero_over_zero() {
        let nothing = Score::new(0, 0, 0);
        assert_eq!((nothing.precision(), nothing.recall(), nothing.f1()), (1.0, 1.0, 1.0));
        let none_found = Score::new(0, 0, 4);
        assert_eq!((none_found.precision(), none_found.recall(), none_found.f1()), (1.0, 0.0, 0.0));
        let all_wrong = Score::new(0, 3, 0);
        assert_eq!((all_wrong.precision(), all_wrong.recall(), all_wrong.f1()), (0.0, 1.0, 0.0));
        let some = Score::new(2, 2, 4);
        assert_eq!((some.precision(), some.recall()), (0.5, 0.5));
        assert!((some.f1() - 0.5).abs() < 1e-12);
    }
}
