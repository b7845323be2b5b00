//! How 64 bits are cut into B blocks. Block 0 holds the most significant bits; boundaries fall at
//! `floor(i * 64 / B)` counted from bit 0, the layout of the seomoz tools (for B = 6: 63–53,
//! 52–42, 41–32, 31–21, 20–10, 9–0).

/// The bit masks of B blocks, most significant block first.
#[derive(Debug, Clone)]
pub struct Blocks {
    masks: Vec<u64>,
}

impl Blocks {
    /// `count` blocks, 1 to 64.
    pub fn new(count: u32) -> Blocks {
        assert!((1..=64).contains(&count), "1 to 64 blocks");
        let boundary = |i: u32| (u64::from(i) * 64 / u64::from(count)) as u32;
        let masks = (0..count)
            .rev()
            .map(|i| {
                let (low, high) = (boundary(i), boundary(i + 1));
                let width = high - low;
                let ones = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                ones << low
            })
            .collect();
        Blocks { masks }
    }

    pub fn count(&self) -> usize {
        self.masks.len()
    }

    pub fn mask(&self, block: usize) -> u64 {
        self.masks[block]
    }

    /// The blocks on which two fingerprints with XOR `x` agree, as a bit set (bit j = block j).
    pub fn agreeing(&self, x: u64) -> u64 {
        self.masks
            .iter()
            .enumerate()
            .filter(|(_, &m)| x & m == 0)
            .fold(0, |set, (j, _)| set | 1 << j)
    }
}

/// C(n, k) as a float: the number of tables, which can be astronomically large.
pub fn binomial(n: u32, k: u32) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// The table (set of B-K blocks) that reports a pair with XOR `x`: the first in lexicographic
/// order among those whose blocks all agree, which is the B-K lowest-numbered agreeing blocks.
/// `None` when fewer than B-K blocks agree (the pair is further than K bits apart).
pub fn first_table(blocks: &Blocks, k: u32, x: u64) -> Option<u64> {
    let needed = blocks.count() - k as usize;
    let mut agreeing = blocks.agreeing(x);
    if (agreeing.count_ones() as usize) < needed {
        return None;
    }
    let mut table = 0u64;
    for _ in 0..needed {
        let lowest = agreeing & agreeing.wrapping_neg();
        table |= lowest;
        agreeing ^= lowest;
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_blocks_follow_the_seed_layout() {
        let blocks = Blocks::new(6);
        let spans: Vec<(u32, u32)> = (0..6)
            .map(|j| {
                let m = blocks.mask(j);
                (63 - m.leading_zeros(), m.trailing_zeros())
            })
            .collect();
        assert_eq!(spans, [(63, 53), (52, 42), (41, 32), (31, 21), (20, 10), (9, 0)]);
    }

    #[test]
    fn blocks_cover_every_bit_once() {
        for count in 1..=64 {
            let blocks = Blocks::new(count);
            let mut seen = 0u64;
            for j in 0..blocks.count() {
                assert_eq!(seen & blocks.mask(j), 0);
                assert_ne!(blocks.mask(j), 0);
                seen |= blocks.mask(j);
            }
            assert_eq!(seen, u64::MAX, "{count} blocks");
        }
    }

    /// The example of the seed's README: three differing bits in blocks B, D and E of six, so
    /// the table of blocks A, C and F reports the pair.
    #[test]
    fn seed_example_is_found_by_table_acf() {
        let corpus = u64::from_str_radix(
            "0100101110111011001000101111101110111100001010011101100110110101",
            2,
        )
        .unwrap();
        let query = u64::from_str_radix(
            "0100101110111011011000101111101110011100001010011100100110110101",
            2,
        )
        .unwrap();
        let x = corpus ^ query;
        assert_eq!(x.count_ones(), 3);
        let blocks = Blocks::new(6);
        let (a, c, f) = (1 << 0, 1 << 2, 1 << 5);
        assert_eq!(blocks.agreeing(x), a | c | f);
        assert_eq!(first_table(&blocks, 3, x), Some(a | c | f));
        assert_eq!(first_table(&blocks, 2, x), None);
    }

    #[test]
    fn table_counts() {
        assert_eq!(binomial(6, 3), 20.0);
        assert_eq!(binomial(64, 61), 41664.0);
        assert_eq!(binomial(5, 5), 1.0);
    }
}
