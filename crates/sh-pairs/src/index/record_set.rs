//! A set of records as one bit each: the records that have a partner, noted once the search
//! has found the near groups.

use super::RecordIndex;

/// A set of records as one bit each.
#[derive(Debug)]
pub struct RecordSet {
    words: Vec<u64>,
}

impl RecordSet {
    pub(super) fn new(records: usize) -> RecordSet {
        RecordSet { words: vec![0; records.div_ceil(64)] }
    }

    pub(super) fn insert(&mut self, r: RecordIndex) {
        self.words[r as usize / 64] |= 1 << (r % 64);
    }

    /// How many records the set holds.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    pub fn contains(&self, r: RecordIndex) -> bool {
        self.words[r as usize / 64] >> (r % 64) & 1 == 1
    }

    /// The records of the set from `start` to below `end`, ascending (64 records without a
    /// partner passed over at once).
    pub fn range(
        &self,
        start: RecordIndex,
        end: RecordIndex,
    ) -> impl Iterator<Item = RecordIndex> + '_ {
        let first = (start / 64) as usize;
        self.words
            .iter()
            .enumerate()
            .skip(first)
            .flat_map(move |(w, &word)| {
                // The first word's records before `start` left out.
                let mut bits = if w == first { word & (u64::MAX << (start % 64)) } else { word };
                std::iter::from_fn(move || {
                    if bits == 0 {
                        return None;
                    }
                    let bit = bits.trailing_zeros();
                    bits &= bits - 1;
                    Some((w * 64) as RecordIndex + bit)
                })
            })
            .take_while(move |&r| r < end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_set_lists_its_records_in_order() {
        let records: Vec<RecordIndex> = vec![0, 5, 63, 64, 65, 127, 128, 200, 255, 256, 1000];
        let mut set = RecordSet::new(1001);
        for &r in &records {
            set.insert(r);
        }
        let ends = [0, 1, 5, 6, 63, 64, 65, 128, 129, 256, 257, 1000, 1001];
        for start in ends {
            for end in ends {
                let expected: Vec<RecordIndex> =
                    records.iter().copied().filter(|&r| r >= start && r < end).collect();
                let found: Vec<RecordIndex> = set.range(start, end).collect();
                assert_eq!(found, expected, "from {start} below {end}");
            }
        }
        assert_eq!(RecordSet::new(0).range(0, 10).count(), 0);
        assert_eq!(RecordSet::new(100).range(200, 300).count(), 0);
    }
}
