//! Near pairs of groups as adjacency lists.

use super::GroupIndex;

/// Near pairs of groups as adjacency lists, each pair stored in both directions.
#[derive(Debug, Default)]
pub struct Neighbours {
    start: Vec<usize>,
    list: Vec<GroupIndex>,
}

impl Neighbours {
    /// From pairs of groups; memory is about 8 bytes per pair here plus the 8 of the pairs.
    pub fn build(groups: usize, pairs: &[(GroupIndex, GroupIndex)]) -> Neighbours {
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
        let mut list: Vec<GroupIndex> = vec![0; pairs.len() * 2];
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

    pub fn of(&self, g: GroupIndex) -> &[GroupIndex] {
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
    fn neighbours_in_both_directions() {
        let n = Neighbours::build(4, &[(0, 2), (2, 3)]);
        assert_eq!(n.of(0), [2]);
        assert_eq!(n.of(1), [] as [u32; 0]);
        assert_eq!(n.of(2), [0, 3]);
        assert_eq!(n.of(3), [2]);
        assert_eq!(Neighbours::build(4, &[]).of(3), [] as [u32; 0]);
    }
}
