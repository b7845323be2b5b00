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
    pub fn build(fingerprints: Vec<u64>) -> Index {
        let mut by_value: Vec<(u64, RecordIndex)> =
            fingerprints.iter().enumerate().map(|(r, &fp)| (fp, r as RecordIndex)).collect();
        drop(fingerprints);
        by_value.sort_unstable();
        let mut index = Index {
            distinct: Vec::new(),
            group_start: Vec::new(),
            members: Vec::with_capacity(by_value.len()),
            group_of: vec![0; by_value.len()],
        };
        for (position, &(fp, record)) in by_value.iter().enumerate() {
            if index.distinct.last() != Some(&fp) {
                index.distinct.push(fp);
                index.group_start.push(position as RecordIndex);
            }
            index.members.push(record);
            index.group_of[record as usize] = (index.distinct.len() - 1) as u32;
        }
        index.group_start.push(by_value.len() as RecordIndex);
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
