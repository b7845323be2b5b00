//! The oracle for wide fingerprints (128 and 256 bits): a fingerprint is its 64-bit words, word
//! 0 first, and the distance of two is the sum of their words' distances. sh-pairs reports a
//! pair when the total is at most K and some word is within k bits (`--word-k`; the exact search
//! has k = floor(K / words), which every pair within K meets). With `--word-bytes t`, a word
//! within k bits counts only if it is within t bits or at most t of its 8 bytes differ.

use super::{components, lines};

/// Which words count: within `k` bits, and with `bytes` = Some(t) also within t bits or with at
/// most t of their 8 bytes differing. A plain k converts to the rule without bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordRule {
    pub k: u32,
    pub bytes: Option<u32>,
}

impl From<u32> for WordRule {
    fn from(k: u32) -> WordRule {
        WordRule { k, bytes: None }
    }
}

impl WordRule {
    fn counts(self, a: u64, b: u64) -> bool {
        let mut differing_bytes = 0;
        let mut bits = 0;
        for byte in 0..8 {
            let (x, y) = ((a >> (8 * byte)) as u8, (b >> (8 * byte)) as u8);
            bits += (x ^ y).count_ones();
            differing_bytes += u32::from(x != y);
        }
        bits <= self.k && self.bytes.is_none_or(|t| bits <= t || differing_bytes <= t)
    }
}

/// The distance of two fingerprints of one width, and whether some word counts by the rule.
fn distance(a: &[u64], b: &[u64], word: WordRule) -> (u32, bool) {
    assert_eq!(a.len(), b.len(), "fingerprints of one width");
    a.iter().zip(b).fold((0, false), |(total, near), (&x, &y)| {
        (total + (x ^ y).count_ones(), near || word.counts(x, y))
    })
}

/// Every pair `(i, j, distance)`, `i < j`, that the rule reports, in (i, j) order.
pub fn near_pairs(
    fps: &[Vec<u64>],
    k: u32,
    word_k: impl Into<WordRule>,
) -> Vec<(usize, usize, u32)> {
    let word_k = word_k.into();
    let mut pairs = Vec::new();
    for (i, a) in fps.iter().enumerate() {
        for (j, b) in fps.iter().enumerate().skip(i + 1) {
            let (total, near) = distance(a, b, word_k);
            if total <= k && near {
                pairs.push((i, j, total));
            }
        }
    }
    pairs
}

/// The output of `sh-pairs -k K --word-k WORD_K [--word-bytes T]` on `fps`.
pub fn all_pairs(fps: &[Vec<u64>], k: u32, word_k: impl Into<WordRule>) -> String {
    lines(near_pairs(fps, k, word_k))
}

/// The output of `sh-pairs -k K --word-k WORD_K --against CORPUS` on `query`.
pub fn against(
    query: &[Vec<u64>],
    corpus: &[Vec<u64>],
    k: u32,
    word_k: impl Into<WordRule>,
) -> String {
    let queries = query.len();
    let both = [query, corpus].concat();
    let crossing = near_pairs(&both, k, word_k)
        .into_iter()
        .filter(|&(i, j, _)| i < queries && j >= queries)
        .map(|(i, j, distance)| (i, j - queries, distance));
    lines(crossing.collect::<Vec<_>>())
}

/// Checks the output of `sh-pairs -k K --word-k WORD_K --sparse` on `fps` as
/// [`super::check_sparse`] does for 64 bits.
pub fn check_sparse(
    fps: &[Vec<u64>],
    k: u32,
    word_k: impl Into<WordRule>,
    sparse: &str,
) -> Result<(), String> {
    let word_k = word_k.into();
    let mut previous = (0, 0);
    for line in sparse.lines() {
        let fields: Vec<usize> = line
            .split('\t')
            .map(|f| f.parse().map_err(|_| format!("not a pair line: {line}")))
            .collect::<Result<_, _>>()?;
        let &[a, b, reported] = fields.as_slice() else {
            return Err(format!("not A<TAB>B<TAB>DISTANCE: {line}"));
        };
        if !(0 < a && a < b && (a, b) > previous) {
            return Err(format!("not sorted with A before B, or twice: {line}"));
        }
        previous = (a, b);
        if b > fps.len() {
            return Err(format!("no such record: {line}"));
        }
        let (total, near) = distance(&fps[a - 1], &fps[b - 1], word_k);
        if total as usize != reported {
            return Err(format!("wrong distance: {line}"));
        }
        if total > k || !near {
            return Err(format!("not a pair within K = {k} with a word by {word_k:?}: {line}"));
        }
    }
    let all = all_pairs(fps, k, word_k);
    if components(fps.len(), sparse) != components(fps.len(), &all) {
        return Err("not the clusters of all pairs".to_string());
    }
    let mut distinct = fps.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let bound = fps.len() - distinct.len() + near_pairs(&distinct, k, word_k).len();
    if sparse.lines().count() > bound {
        return Err(format!("{} lines, more than {bound}", sparse.lines().count()));
    }
    Ok(())
}

/// Wide fingerprints of `words` words meant to break the search within `k` bits in total:
/// identical ones; pairs with every word exactly at floor(K / words) bits and one more; totals
/// of exactly K and K + 1 with the bits piled into one word or spread; fingerprints that share
/// some words exactly and differ in the others; all zeros and all ones.
pub fn adversarial(words: usize, k: u32) -> Vec<Vec<u64>> {
    let base: Vec<u64> =
        (0..words as u64).map(|i| 0x9e37_79b9_7f4a_7c15u64.rotate_left(7 * i as u32) ^ i).collect();
    let flip = |per_word: &[u32]| -> Vec<u64> {
        base.iter()
            .zip(per_word)
            .enumerate()
            .map(|(w, (&x, &d))| {
                // d low bits of the word, shifted by the word's number so words differ.
                let ones = if d >= 64 { u64::MAX } else { (1u64 << d) - 1 };
                x ^ ones.rotate_left(w as u32 * 13)
            })
            .collect()
    };
    let per = k / words as u32;
    let mut fps = vec![base.clone(), base.clone(), vec![0; words], vec![u64::MAX; words]];
    // Every word at the word boundary, and one past it.
    fps.push(flip(&vec![per; words]));
    fps.push(flip(&vec![per + 1; words]));
    // The total at exactly K and K + 1: piled into the last word, or spread from the first.
    for total in [k, k + 1] {
        let mut piled = vec![0; words];
        piled[words - 1] = total.min(64);
        fps.push(flip(&piled));
        let mut spread = vec![0; words];
        let mut left = total;
        for d in spread.iter_mut() {
            *d = left.min(per + 1);
            left -= *d;
        }
        if left == 0 {
            fps.push(flip(&spread));
        }
    }
    // Shares word 0 (or the last word) with the base, far in the others.
    let mut far = base.iter().map(|x| !x).collect::<Vec<u64>>();
    far[0] = base[0];
    fps.push(far.clone());
    fps.push(far);
    let mut far_last = base.iter().map(|x| x.rotate_left(17)).collect::<Vec<u64>>();
    far_last[words - 1] = base[words - 1];
    fps.push(far_last);
    fps
}

/// Fingerprints of `words` words around one base whose first or last word differs from the
/// base's by d = 1 to 9 bits spread over as many bytes as they can fill (from the fewest to
/// min(d, 8)), the other words equal to the base's or 3 bits from them: the boundaries of the
/// byte rule (`--word-bytes`) for every t and k up to 9.
pub fn byte_boundaries(words: usize) -> Vec<Vec<u64>> {
    let base: Vec<u64> = (0..words as u64)
        .map(|i| 0x0123_4567_89ab_cdefu64.rotate_left(11 * i as u32) ^ (i * 0x1111))
        .collect();
    let mut fps = vec![base.clone()];
    for w in [0, words - 1] {
        for d in 1..=9u32 {
            for touched in d.div_ceil(8)..=d.min(8) {
                // Bit j in byte j % touched, at place j / touched within it.
                let x = (0..d).fold(0u64, |x, j| x | 1 << (8 * (j % touched) + j / touched));
                for others in [0u64, 0b111 << 20] {
                    let mut fp: Vec<u64> = base.iter().map(|&v| v ^ others).collect();
                    fp[w] = base[w] ^ x;
                    fps.push(fp);
                }
            }
        }
    }
    fps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wide_oracle_by_hand() {
        let fps = vec![vec![0, 0], vec![1, 0], vec![1, 3], vec![u64::MAX, 0]];
        // Totals: (1,2)=1, (1,3)=3, (2,3)=2, (1,4)=64, (2,4)=63, (3,4)=65.
        assert_eq!(all_pairs(&fps, 3, 1), "1\t2\t1\n1\t3\t3\n2\t3\t2\n");
        // k = 0: (1,3) has words at 1 and 2 bits, (1,2) has word 1 at 0, (2,3) word 0 at 0.
        assert_eq!(all_pairs(&fps, 3, 0), "1\t2\t1\n2\t3\t2\n");
        assert_eq!(against(&fps[..1], &fps[1..], 2, 1), "1\t1\t1\n");
        assert_eq!(check_sparse(&fps, 3, 1, "1\t2\t1\n2\t3\t2\n"), Ok(()));
        assert!(check_sparse(&fps, 3, 0, "1\t3\t3\n").is_err(), "no word within 0");
    }

    #[test]
    fn the_byte_rule_by_hand() {
        // Word 0: 7 bits in 7 bytes, 7 bits in 6 bytes, 6 bits in 6 bytes from the first.
        let spread = |bytes: &[u32], extra: u64| bytes.iter().fold(extra, |x, &b| x | 1 << (8 * b));
        // Word 1 at least 8 bits apart in every pair, so that only word 0 can count.
        let fps = vec![
            vec![0, 0],
            vec![spread(&[0, 1, 2, 3, 4, 5, 6], 0), 0xff],
            vec![spread(&[0, 1, 2, 3, 4, 5], 2), 0xff00],
            vec![spread(&[0, 1, 2, 3, 4, 5], 0), 0xff_0000],
        ];
        let rule = WordRule { k: 7, bytes: Some(6) };
        let found: Vec<(usize, usize)> =
            near_pairs(&fps, 40, rule).iter().map(|&(i, j, _)| (i, j)).collect();
        // (0, 1) is 7 bits in 7 bytes: not counted; (1, 2): bits 1 and 48 differ, 2 bits.
        assert!(!found.contains(&(0, 1)) && found.contains(&(0, 2)) && found.contains(&(0, 3)));
        assert!(found.contains(&(1, 2)), "{found:?}");
        assert!(near_pairs(&fps, 40, 7).iter().any(|&(i, j, _)| (i, j) == (0, 1)));
        for fp in byte_boundaries(4) {
            assert_eq!(fp.len(), 4);
        }
        assert_eq!(
            byte_boundaries(2).len(),
            1 + 2 * 2 * (1..=9u32).map(|d| d.min(8) - d.div_ceil(8) + 1).sum::<u32>() as usize
        );
    }

    #[test]
    fn adversarial_sets_hold_the_boundaries() {
        for (words, k) in [(2, 16), (4, 32), (4, 3), (2, 0)] {
            let fps = adversarial(words, k);
            assert!(fps.iter().all(|fp| fp.len() == words));
            let totals: Vec<u32> = near_pairs(&fps, 64 * words as u32, 64)
                .iter()
                .filter(|&&(i, _, _)| i == 0)
                .map(|&(_, _, d)| d)
                .collect();
            assert!(
                totals.contains(&0) && totals.contains(&k) && totals.contains(&(k + 1)),
                "{totals:?}"
            );
        }
    }
}
