//! Records grouped by fingerprint: the distinct fingerprints in ascending order, and for each
//! the records that carry it, in input order. The search runs over distinct fingerprints only;
//! records that share one are expanded into pairs while writing.

/// Record numbers are u32: up to 4,294,967,295 records per run.
pub type RecordIndex = u32;

#[derive(Debug, Default)]
pub struct Index {
    /// Every distinct fingerprint, ascending.
    pub distinct: Vec<u64>,
    /// `members[group_start[g]..group_start[g + 1]]` are the records of `distinct[g]`.
    group_start: Vec<RecordIndex>,
    members: Vec<RecordIndex>,
    /// The group of each record.
    group_of: Vec<u32>,
}

impl Index {
    /// Groups `fingerprints` (one per record, in input order).
    ///
    /// Records are first dealt into buckets by the top bits of their fingerprint (a counting
    /// sort, stable, so each bucket lists its records in input order); then each bucket, small
    /// enough to stay in cache, is sorted by fingerprint on its own.
    pub fn build(fingerprints: Vec<u64>) -> Index {
        let n = fingerprints.len();
        let bucket_bits = bucket_bits(n);
        let bucket_of =
            |fp: u64| if bucket_bits == 0 { 0 } else { (fp >> (64 - bucket_bits)) as usize };
        let mut bucket_start = vec![0usize; (1 << bucket_bits) + 1];
        for &fp in &fingerprints {
            bucket_start[bucket_of(fp) + 1] += 1;
        }
        for b in 1..bucket_start.len() {
            bucket_start[b] += bucket_start[b - 1];
        }
        let mut members: Vec<RecordIndex> = vec![0; n];
        let mut fill = bucket_start.clone();
        for (record, &fp) in fingerprints.iter().enumerate() {
            let slot = &mut fill[bucket_of(fp)];
            members[*slot] = record as RecordIndex;
            *slot += 1;
        }
        drop(fill);

        let mut index = Index {
            distinct: Vec::new(),
            group_start: Vec::new(),
            members: Vec::new(),
            group_of: vec![0; n],
        };
        let mut bucket: Vec<(u64, RecordIndex)> = Vec::new();
        for b in 0..bucket_start.len() - 1 {
            let records = &mut members[bucket_start[b]..bucket_start[b + 1]];
            bucket.clear();
            bucket.extend(records.iter().map(|&r| (fingerprints[r as usize], r)));
            bucket.sort_unstable();
            for (i, &(fp, record)) in bucket.iter().enumerate() {
                if index.distinct.last() != Some(&fp) {
                    index.distinct.push(fp);
                    index.group_start.push((bucket_start[b] + i) as RecordIndex);
                }
                records[i] = record;
                index.group_of[record as usize] = (index.distinct.len() - 1) as u32;
            }
        }
        index.group_start.push(n as RecordIndex);
        index.members = members;
        index.distinct.shrink_to_fit();
        index.group_start.shrink_to_fit();
        index
    }

    pub fn records(&self) -> usize {
        self.group_of.len()
    }

    pub fn group_of(&self, record: RecordIndex) -> u32 {
        self.group_of[record as usize]
    }

    /// The records of group `g`, ascending.
    pub fn members(&self, g: u32) -> &[RecordIndex] {
        let g = g as usize;
        &self.members[self.group_start[g] as usize..self.group_start[g + 1] as usize]
    }

    /// The group of a fingerprint that is in the index.
    pub fn group_of_fingerprint(&self, fp: u64) -> u32 {
        self.distinct.binary_search(&fp).expect("fingerprint found by the search is indexed") as u32
    }

    pub fn fingerprint(&self, g: u32) -> u64 {
        self.distinct[g as usize]
    }
}

/// Buckets of about 256 records: sorting one stays in cache.
fn bucket_bits(records: usize) -> u32 {
    let wanted = (records / 256).max(1);
    (usize::BITS - wanted.leading_zeros()).min(20) - 1
}

/// Near pairs of groups as adjacency lists, each pair stored in both directions.
#[derive(Debug, Default)]
pub struct Neighbours {
    start: Vec<usize>,
    list: Vec<u32>,
}

impl Neighbours {
    /// From pairs of groups; memory is about 8 bytes per pair here plus the 8 of the pairs.
    pub fn build(groups: usize, pairs: &[(u32, u32)]) -> Neighbours {
        if pairs.is_empty() {
            return Neighbours::default();
        }
        let mut start = vec![0usize; groups + 1];
        for &(a, b) in pairs {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for g in 0..groups {
            start[g + 1] += start[g];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; pairs.len() * 2];
        for &(a, b) in pairs {
            list[fill[a as usize]] = b;
            fill[a as usize] += 1;
            list[fill[b as usize]] = a;
            fill[b as usize] += 1;
        }
        Neighbours { start, list }
    }

    /// How many pairs of groups there are.
    pub fn pair_count(&self) -> usize {
        self.list.len() / 2
    }

    pub fn of(&self, g: u32) -> &[u32] {
        if self.start.is_empty() {
            return &[];
        }
        &self.list[self.start[g as usize]..self.start[g as usize + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_buckets_keep_groups_whole_and_in_input_order() {
        let fingerprints: Vec<u64> =
            (0..5000u64).map(|i| (i % 1000).wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let index = Index::build(fingerprints.clone());
        assert_eq!(index.distinct.len(), 1000);
        assert!(index.distinct.windows(2).all(|w| w[0] < w[1]));
        for g in 0..1000 {
            let members = index.members(g);
            assert_eq!(members.len(), 5);
            assert!(members.windows(2).all(|w| w[0] < w[1]));
            for &r in members {
                assert_eq!(fingerprints[r as usize], index.fingerprint(g));
                assert_eq!(index.group_of(r), g);
            }
        }
    }

    #[test]
    fn groups_keep_input_order() {
        let index = Index::build(vec![5, 3, 5, 9, 3, 5]);
        assert_eq!(index.distinct, [3, 5, 9]);
        assert_eq!(index.members(0), [1, 4]);
        assert_eq!(index.members(1), [0, 2, 5]);
        assert_eq!(index.members(2), [3]);
        assert_eq!(index.group_of(5), 1);
        assert_eq!(index.group_of_fingerprint(9), 2);
    }

    #[test]
    fn neighbours_in_both_directions() {
        let n = Neighbours::build(4, &[(0, 2), (2, 3)]);
        assert_eq!(n.of(0), [2]);
        assert_eq!(n.of(1), [] as [u32; 0]);
        assert_eq!(n.of(2), [0, 3]);
        assert_eq!(n.of(3), [2]);
        assert_eq!(Neighbours::build(4, &[]).of(3), [] as [u32; 0]);
    }
}
