//! The simhash of a multiset of 64-bit hashes: bit i is set when the items with bit i set
//! outweigh those without it. Ties give 0. A fingerprint of `WORDS` words (64, 128 or 256 bits)
//! counts each item's words from [`widen`], the first of which is its hash.

use crate::weight::Weight;
use crate::widen::widen;

/// Unweighted items are counted in batches of this many: a tree of carry-save adders turns a
/// batch into a 5-bit count per bit, added to the bit-sliced counters at once.
const BATCH: usize = 16;
/// Bit-sliced counters of this many bits per bit of the fingerprint ...
const PLANES: usize = 12;
/// ... hold this many batches (255 x 16 = 4080 items, below 2^12) before they are added up.
const BATCHES_PER_FLUSH: u32 = 255;

/// Accumulates one document's items for a fingerprint of `WORDS` 64-bit words (1, 2 or 4);
/// reused from document to document.
#[derive(Debug, Clone)]
pub struct Simhash<const WORDS: usize = 1> {
    /// The words of the unweighted items of the current batch; `in_batch` of them are set.
    batch: [[u64; WORDS]; BATCH],
    in_batch: usize,
    /// Plane p holds bit p of a per-bit count of the items of the batches since the last flush.
    /// A batch costs about 5 logical operations per item and word (the adder tree) and one
    /// ripple-carry addition of its count, where a carry chain per item through planes whose 64
    /// lanes never carry in step would run nearly every plane every time.
    planes: [[u64; WORDS]; PLANES],
    batches_in_planes: u32,
    ones: [[u64; 64]; WORDS],
    unweighted: u64,
    weighted: Option<WeightedSums<WORDS>>,
}

/// Signed per-bit sums of weighted items: exact in fixed point while every weight and sum fits,
/// and in floating point always, for when they do not.
#[derive(Debug, Clone)]
struct WeightedSums<const WORDS: usize> {
    exact: Option<[[i128; 64]; WORDS]>,
    /// The sums times `unit`, a power of two that is 1 until the weights come near the largest
    /// double: then every sum is scaled down by 2^-64 (exactly), so that no sum ever becomes
    /// infinite. (An infinite sum would stay so whatever came after, making the bit depend on
    /// the order of the items; two opposite infinities would give NaN.)
    approx: [[f64; 64]; WORDS],
    unit: f64,
    /// At least the magnitude of every sum in `approx`.
    bound: f64,
}

/// `approx` sums are kept at or below this (about 2^997), far enough from f64::MAX (2^1024)
/// that no addition can overflow.
const APPROX_LIMIT: f64 = 1e300;

/// 2^-64, the factor by which every sum is scaled down when one could reach `APPROX_LIMIT`.
const RESCALE: f64 = f64::from_bits((1023 - 64) << 52);

impl<const WORDS: usize> Default for Simhash<WORDS> {
    fn default() -> Self {
        Simhash {
            batch: [[0; WORDS]; BATCH],
            in_batch: 0,
            planes: [[0; WORDS]; PLANES],
            batches_in_planes: 0,
            ones: [[0; 64]; WORDS],
            unweighted: 0,
            weighted: None,
        }
    }
}

impl Simhash {
    /// An empty accumulator for 64-bit fingerprints.
    pub fn new() -> Simhash {
        Simhash::default()
    }

    /// The 64-bit fingerprint of the items added so far, or `None` when there are none.
    pub fn fingerprint(&mut self) -> Option<u64> {
        self.fingerprint_words().map(|[word]| word)
    }
}

impl<const WORDS: usize> Simhash<WORDS> {
    /// Forgets every item, ready for the next document.
    pub fn clear(&mut self) {
        self.in_batch = 0;
        self.planes = [[0; WORDS]; PLANES];
        self.batches_in_planes = 0;
        self.ones = [[0; 64]; WORDS];
        self.unweighted = 0;
        self.weighted = None;
    }

    /// Adds an item of weight 1.
    #[inline]
    pub fn add(&mut self, hash: u64) {
        self.batch[self.in_batch] = widen::<WORDS>(hash);
        self.in_batch += 1;
        self.unweighted += 1;
        if self.in_batch == BATCH {
            self.count_batch();
        }
    }

    /// Adds the batch's per-bit counts to the planes and empties it; slots beyond `in_batch`
    /// are taken as 0 (they add nothing: only set bits are counted).
    fn count_batch(&mut self) {
        self.batch[self.in_batch..].iter_mut().for_each(|words| *words = [0; WORDS]);
        for w in 0..WORDS {
            let x: [u64; BATCH] = std::array::from_fn(|i| self.batch[i][w]);
            let count = count_sixteen(&x);
            // Ripple-carry addition of the 5-bit count to the counter of PLANES bits.
            let mut carry = 0;
            for (p, plane) in self.planes.iter_mut().enumerate() {
                let term = count.get(p).copied().unwrap_or(0);
                let counter = plane[w];
                let partial = counter ^ term;
                plane[w] = partial ^ carry;
                carry = (counter & term) | (partial & carry);
                if p >= count.len() && carry == 0 {
                    break;
                }
            }
        }
        self.in_batch = 0;
        self.batches_in_planes += 1;
        if self.batches_in_planes == BATCHES_PER_FLUSH {
            self.flush_planes();
        }
    }

    /// Adds an item with its own weight.
    pub fn add_weighted(&mut self, hash: u64, weight: Weight) {
        let words = widen::<WORDS>(hash);
        let sums = self.weighted.get_or_insert_with(WeightedSums::zero);
        let mut approx = weight.approx * sums.unit;
        while sums.bound + approx.abs() > APPROX_LIMIT {
            sums.approx.iter_mut().flatten().for_each(|sum| *sum *= RESCALE);
            sums.unit *= RESCALE;
            sums.bound *= RESCALE;
            approx *= RESCALE;
        }
        sums.bound += approx.abs();
        for (sums, word) in sums.approx.iter_mut().zip(words) {
            for (bit, sum) in sums.iter_mut().enumerate() {
                if word >> bit & 1 == 1 {
                    *sum += approx;
                } else {
                    *sum -= approx;
                }
            }
        }
        let fits = match (&mut sums.exact, weight.exact) {
            (Some(exact), Some(w)) => {
                let mut fits = true;
                for (sums, word) in exact.iter_mut().zip(words) {
                    for (bit, sum) in sums.iter_mut().enumerate() {
                        let term = if word >> bit & 1 == 1 { Some(w) } else { w.checked_neg() };
                        match term.and_then(|t| sum.checked_add(t)) {
                            Some(s) => *sum = s,
                            None => fits = false,
                        }
                    }
                }
                fits
            }
            _ => false,
        };
        if !fits {
            sums.exact = None;
        }
    }

    fn flush_planes(&mut self) {
        for (p, plane) in self.planes.iter_mut().enumerate() {
            for (ones, counter) in self.ones.iter_mut().zip(plane.iter_mut()) {
                let mut bits = *counter;
                while bits != 0 {
                    let bit = bits.trailing_zeros() as usize;
                    ones[bit] += 1 << p;
                    bits &= bits - 1;
                }
                *counter = 0;
            }
        }
        self.batches_in_planes = 0;
    }

    /// True when no item was added since the last clear.
    pub fn is_empty(&self) -> bool {
        self.unweighted == 0 && self.weighted.is_none()
    }

    /// The fingerprint of the items added so far, word 0 (the 64-bit fingerprint) first, or
    /// `None` when there are none.
    pub fn fingerprint_words(&mut self) -> Option<[u64; WORDS]> {
        if self.is_empty() {
            return None;
        }
        if self.in_batch > 0 {
            self.count_batch();
        }
        self.flush_planes();
        let n = self.unweighted as i128;
        let mut fingerprint = [0u64; WORDS];
        for (w, word) in fingerprint.iter_mut().enumerate() {
            // Per bit, unweighted items contribute (ones - zeros) = 2 * ones - n.
            let balance = |bit: usize| 2 * self.ones[w][bit] as i128 - n;
            for bit in 0..64 {
                let positive = match &self.weighted {
                    None => balance(bit) > 0,
                    Some(sums) => sums.is_positive(w, bit, balance(bit)),
                };
                *word |= u64::from(positive) << bit;
            }
        }
        Some(fingerprint)
    }
}

/// A carry-save adder: the sum of three bit vectors, per bit, as (twos, ones).
#[inline]
fn add_three(a: u64, b: u64, c: u64) -> (u64, u64) {
    let partial = a ^ b;
    ((a & b) | (partial & c), partial ^ c)
}

/// The per-bit count (0 to 16) of sixteen bit vectors, bit-sliced: planes of weight 1, 2, 4, 8
/// and 16 (the Harley-Seal tree of carry-save adders).
#[inline]
fn count_sixteen(x: &[u64; BATCH]) -> [u64; 5] {
    let (mut ones, mut twos, mut fours, mut eights) = (0, 0, 0, 0);
    let mut eights_of_half = [0; 2];
    for (half, x) in eights_of_half.iter_mut().zip(x.chunks_exact(8)) {
        let mut fours_of_quarter = [0; 2];
        for (quarter, x) in fours_of_quarter.iter_mut().zip(x.chunks_exact(4)) {
            let (twos_a, o) = add_three(ones, x[0], x[1]);
            let (twos_b, o) = add_three(o, x[2], x[3]);
            ones = o;
            let (f, t) = add_three(twos, twos_a, twos_b);
            twos = t;
            *quarter = f;
        }
        let (e, f) = add_three(fours, fours_of_quarter[0], fours_of_quarter[1]);
        fours = f;
        *half = e;
    }
    let (sixteens, e) = add_three(eights, eights_of_half[0], eights_of_half[1]);
    eights = e;
    [ones, twos, fours, eights, sixteens]
}

impl<const WORDS: usize> WeightedSums<WORDS> {
    fn zero() -> WeightedSums<WORDS> {
        WeightedSums {
            exact: Some([[0; 64]; WORDS]),
            approx: [[0.0; 64]; WORDS],
            unit: 1.0,
            bound: 0.0,
        }
    }

    /// Whether bit `bit` of word `word` comes out set, given the unweighted items' `balance`
    /// on it.
    fn is_positive(&self, word: usize, bit: usize, balance: i128) -> bool {
        let exact = self.exact.as_ref().and_then(|exact| {
            balance.checked_mul(Weight::SCALE).and_then(|b| b.checked_add(exact[word][bit]))
        });
        match exact {
            Some(sum) => sum > 0,
            None => balance as f64 * self.unit + self.approx[word][bit] > 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unweighted(hashes: &[u64]) -> Option<u64> {
        let mut s = Simhash::new();
        hashes.iter().for_each(|&h| s.add(h));
        s.fingerprint()
    }

    /// The definition, bit by bit, for comparison.
    fn oracle(items: &[(u64, f64)]) -> Option<u64> {
        if items.is_empty() {
            return None;
        }
        let mut fingerprint = 0;
        for bit in 0..64 {
            let sum: f64 = items.iter().map(|&(h, w)| if h >> bit & 1 == 1 { w } else { -w }).sum();
            if sum > 0.0 {
                fingerprint |= 1 << bit;
            }
        }
        Some(fingerprint)
    }

    #[test]
    fn empty_ties_and_extremes() {
        assert_eq!(unweighted(&[]), None);
        assert_eq!(unweighted(&[0]), Some(0));
        assert_eq!(unweighted(&[u64::MAX]), Some(u64::MAX));
        assert_eq!(unweighted(&[0, u64::MAX]), Some(0), "a tie on every bit gives 0");
        assert_eq!(unweighted(&[0, u64::MAX, u64::MAX]), Some(u64::MAX));
        assert_eq!(unweighted(&[1 << 63, 1 << 63, 0]), Some(1 << 63));
    }

    #[test]
    fn many_items_cross_the_plane_capacity() {
        let mut hashes = vec![u64::MAX; 1000];
        hashes.extend(vec![0; 999]);
        assert_eq!(unweighted(&hashes), Some(u64::MAX));
        hashes.push(0);
        assert_eq!(unweighted(&hashes), Some(0));
    }

    #[test]
    fn decimal_weights_tie_exactly() {
        // 0.1 + 0.2 - 0.3 is 5.5e-17 in binary floating point, which would set the bit.
        let mut s = Simhash::new();
        s.add_weighted(1, Weight::parse(b"0.1").unwrap());
        s.add_weighted(1, Weight::parse(b"0.2").unwrap());
        s.add_weighted(0, Weight::parse(b"0.3").unwrap());
        assert_eq!(s.fingerprint(), Some(0));
    }

    #[test]
    fn huge_weights_fall_back_to_floating_point() {
        let mut s = Simhash::new();
        s.add_weighted(1, Weight::parse(b"1e300").unwrap());
        s.add_weighted(0, Weight::parse(b"1e299").unwrap());
        assert_eq!(s.fingerprint(), Some(1));
    }

    #[test]
    fn sums_near_the_largest_double_do_not_overflow() {
        // 2e308 - 3e308 < 0 in any order; summed plainly, the first two make +inf, which stays.
        let big = || Weight::parse(b"1e308").unwrap();
        for order in [[1, 1, 0, 0, 0], [0, 0, 0, 1, 1], [1, 0, 1, 0, 0]] {
            let mut s = Simhash::new();
            order.iter().for_each(|&h| s.add_weighted(h, big()));
            assert_eq!(s.fingerprint(), Some(0), "{order:?}");
        }
        // The largest weights, many times over, and an unweighted item that breaks the tie.
        let max = || Weight::parse(b"1.7976931348623157e308").unwrap();
        let mut s = Simhash::new();
        for _ in 0..1000 {
            s.add_weighted(u64::MAX, max());
            s.add_weighted(0, max());
        }
        s.add(1);
        assert_eq!(s.fingerprint(), Some(1));
        // Opposite infinities would have made NaN.
        let mut s = Simhash::new();
        for h in [1, 1, 0, 0, 0, 0, 1] {
            s.add_weighted(h, max());
        }
        assert_eq!(s.fingerprint(), Some(0));
    }

    #[test]
    fn clear_starts_a_new_document() {
        let mut s = Simhash::new();
        s.add_weighted(u64::MAX, Weight::parse(b"5").unwrap());
        s.add(3);
        s.clear();
        assert_eq!(s.fingerprint(), None);
        s.add(6);
        assert_eq!(s.fingerprint(), Some(6));
    }

    /// The definition for `WORDS` words: each word of each item's [`widen`] counted as its
    /// hash is for 64 bits.
    fn wide_oracle<const WORDS: usize>(items: &[(u64, f64)]) -> Option<[u64; WORDS]> {
        let mut words = [0; WORDS];
        for (w, word) in words.iter_mut().enumerate() {
            let column: Vec<(u64, f64)> =
                items.iter().map(|&(h, weight)| (widen::<WORDS>(h)[w], weight)).collect();
            *word = oracle(&column)?;
        }
        Some(words)
    }

    #[test]
    fn counts_cross_many_batches_and_flushes() {
        // 9,001 items: more than two flushes of the planes (4,080 items each) and a last
        // batch of one item.
        let mut state = 7u64;
        let hashes: Vec<u64> = (0..9001)
            .map(|_| {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                state ^ state >> 29
            })
            .collect();
        let items: Vec<(u64, f64)> = hashes.iter().map(|&h| (h, 1.0)).collect();
        let mut s = Simhash::<4>::default();
        hashes.iter().for_each(|&h| s.add(h));
        assert_eq!(s.fingerprint_words(), wide_oracle::<4>(&items));
        assert_eq!(unweighted(&hashes), oracle(&items));
        // 5,000 against 5,000: a tie wherever the two disagree, on every word.
        let (a, b) = (widen::<4>(1), widen::<4>(2));
        let mut s = Simhash::<4>::default();
        (0..5000).for_each(|_| s.add(1));
        (0..5000).for_each(|_| s.add(2));
        assert_eq!(s.fingerprint_words(), Some(std::array::from_fn(|w| a[w] & b[w])));
    }

    #[test]
    fn wide_empty_and_ties() {
        let mut s = Simhash::<4>::default();
        assert_eq!(s.fingerprint_words(), None);
        s.add(7);
        s.add(7);
        assert_eq!(s.fingerprint_words(), Some(widen::<4>(7)), "one item: its own words");
        s.clear();
        s.add_weighted(7, Weight::parse(b"1").unwrap());
        s.add_weighted(7, Weight::parse(b"-1").unwrap());
        assert_eq!(s.fingerprint_words(), Some([0; 4]), "a tie on every bit gives 0");
    }

    #[test]
    fn wide_counts_cross_the_plane_capacity() {
        // 1000 of one item against 999 of another, then one more of the other: a tie.
        let (a, b) = (0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
        let mut s = Simhash::<2>::default();
        (0..1000).for_each(|_| s.add(a));
        (0..999).for_each(|_| s.add(b));
        assert_eq!(s.fingerprint_words(), Some(widen::<2>(a)));
        s.add(b);
        let [wa, wb] = [widen::<2>(a), widen::<2>(b)];
        assert_eq!(s.fingerprint_words(), Some([wa[0] & wb[0], wa[1] & wb[1]]));
    }

    proptest! {
        #[test]
        fn unweighted_matches_the_definition(hashes in proptest::collection::vec(any::<u64>(), 0..600)) {
            let items: Vec<(u64, f64)> = hashes.iter().map(|&h| (h, 1.0)).collect();
            prop_assert_eq!(unweighted(&hashes), oracle(&items));
        }

        #[test]
        fn integral_weights_match_the_definition(
            items in proptest::collection::vec((any::<u64>(), -50i32..50), 0..100),
            extra in proptest::collection::vec(any::<u64>(), 0..50),
        ) {
            let mut s = Simhash::new();
            let mut all: Vec<(u64, f64)> = Vec::new();
            for &(h, w) in &items {
                s.add_weighted(h, Weight::parse(w.to_string().as_bytes()).unwrap());
                all.push((h, f64::from(w)));
            }
            for &h in &extra {
                s.add(h);
                all.push((h, 1.0));
            }
            prop_assert_eq!(s.fingerprint(), oracle(&all));
        }

        #[test]
        fn wide_matches_the_definition_and_word_0_is_64_bit(
            items in proptest::collection::vec((any::<u64>(), -5i32..5), 0..40),
            extra in proptest::collection::vec(any::<u64>(), 0..600),
        ) {
            let mut all: Vec<(u64, f64)> = Vec::new();
            let (mut narrow, mut s2, mut s4) =
                (Simhash::new(), Simhash::<2>::default(), Simhash::<4>::default());
            for &(h, w) in &items {
                let weight = Weight::parse(w.to_string().as_bytes()).unwrap();
                narrow.add_weighted(h, weight);
                s2.add_weighted(h, weight);
                s4.add_weighted(h, weight);
                all.push((h, f64::from(w)));
            }
            for &h in &extra {
                narrow.add(h);
                s2.add(h);
                s4.add(h);
                all.push((h, 1.0));
            }
            let wide = s4.fingerprint_words();
            prop_assert_eq!(wide, wide_oracle::<4>(&all));
            prop_assert_eq!(s2.fingerprint_words(), wide_oracle::<2>(&all));
            prop_assert_eq!(wide.map(|w| w[0]), narrow.fingerprint());
            prop_assert_eq!(s2.fingerprint_words().map(|w| w.to_vec()), wide.map(|w| w[..2].to_vec()));
        }
    }
}
