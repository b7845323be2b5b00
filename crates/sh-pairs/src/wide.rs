//! The search on wide fingerprints (128 or 256 bits: 2 or 4 words of 64), made of the 64-bit
//! search of each word.
//!
//! Pigeonhole: if two fingerprints of L words are within K bits in total, some word is within
//! floor(K / L) bits. So the 64-bit search of each word within k = floor(K / L) bits finds every
//! such pair as a candidate, and a check of the total keeps those within K: the search is exact.
//! A smaller k (`--word-k`) finds a pair only when some word is within k bits: fewer candidates
//! and less work, and the recall of [`WideRule::recall`].
//!
//! `--word-bytes t` (t < k) narrows the words found: a word within k bits counts only if at most t
//! of its 8 bytes differ (every word within t bits does). Each word is then searched with the
//! tables of a search within t bits over its 8 bytes, whose leaves accept k bits
//! ([`Tables::reaching`]): about the cost of the search within t, and nearly the recall of k
//! (a random placement of 7 bits touches 7 different bytes with probability 0.027).
//!
//! Each pair once: a candidate is reported by the first word within k bits. The search of word
//! w meets a pair once (its own first-table rule), and drops it when an earlier word is within
//! k bits, because that word's search has reported it.
//!
//! For each word the distinct fingerprints are grouped by the word's value with the same
//! [`Index`] that groups records by fingerprint: fingerprints that share the value are
//! candidates of each other (0 bits apart in that word), and the 64-bit search runs over the
//! distinct values, each pair of values giving the pairs of their fingerprints.

use sh_core::{Error, Result};

use crate::cost::choose_blocks;
use crate::index::{GroupIndex, Index};
use crate::output::Selection;
use crate::search::{find_near_groups, search_in_parallel, GroupPairs, OnPair};
use crate::tables::Tables;

/// Which pairs of fingerprints of `words` words are reported: total distance at most `k`, and
/// some word within `word_k` bits (and, with `word_bytes`, differing in at most that many of
/// its 8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WideRule {
    pub words: usize,
    /// K, in bits over the whole fingerprint.
    pub k: u32,
    /// k of each word's search: floor(K / words) for the exact search, or less.
    pub word_k: u32,
    /// t: a word within k bits is found only if at most t of its bytes differ (`None`: any).
    /// Always below k and 8.
    pub word_bytes: Option<u32>,
}

/// The blocks of the byte rule: the 8 bytes of a word.
pub const BYTES: u32 = 8;

/// How many of the 8 bytes of `x` are not zero.
fn differing_bytes(x: u64) -> u32 {
    x.to_le_bytes().iter().filter(|&&b| b != 0).count() as u32
}

impl WideRule {
    /// The rule for K = `k` over `words` words; `word_k`, if given, is the largest distance a
    /// word may have for the pair to be found (more than floor(K / words) adds nothing: the
    /// search is exact from there).
    pub fn new(words: usize, k: u32, word_k: Option<u32>) -> WideRule {
        let exact = k / words as u32;
        WideRule { words, k, word_k: word_k.map_or(exact, |w| w.min(exact)), word_bytes: None }
    }

    /// The rule with the byte rule `--word-bytes t` (`None`: without); a t that narrows
    /// nothing (at least k) is dropped.
    pub fn with_word_bytes(self, word_bytes: Option<u32>) -> WideRule {
        WideRule { word_bytes: word_bytes.filter(|&t| t < self.word_k && t < BYTES), ..self }
    }

    /// Whether every pair within K bits is found.
    pub fn is_exact(&self) -> bool {
        self.word_k == self.k / self.words as u32 && self.word_bytes.is_none()
    }

    /// Whether a word with XOR `x` is found: within k bits, and within t bits or differing in
    /// at most t bytes.
    pub fn word_found(&self, x: u64) -> bool {
        let distance = x.count_ones();
        distance <= self.word_k
            && self.word_bytes.is_none_or(|t| distance <= t || differing_bytes(x) <= t)
    }

    /// The k of the tables of each word's search: t with the byte rule, else k.
    pub fn layout_k(&self) -> u32 {
        self.word_bytes.unwrap_or(self.word_k)
    }

    /// The tables of one word's search over `distinct` values: B = `blocks`, or the cost
    /// model's; with the byte rule, the 8 bytes (a usage error for another B).
    pub fn word_tables(&self, blocks: Option<u32>, distinct: usize) -> Result<Tables> {
        match self.word_bytes {
            Some(t) => {
                if blocks.is_some_and(|b| b != BYTES) {
                    return Err(Error::usage(format!(
                        "--blocks {}: with --word-bytes {t} (the default for 256-bit \
                         fingerprints without -k and --word-k) each word is searched by its 8 \
                         bytes, so --blocks must be 8 (or give --word-k without --word-bytes)",
                        blocks.unwrap_or_default()
                    )));
                }
                Tables::reaching(BYTES, t, self.word_k)
            }
            None => {
                let b = blocks.unwrap_or_else(|| choose_blocks(distinct, self.word_k));
                Tables::new(b, self.word_k).map_err(|_| self.too_few_blocks(b))
            }
        }
    }

    /// The usage error for `blocks` too few (or too many) for the k of each word's search: the
    /// message names that k and where it comes from, not only a K the user may not have given.
    pub fn too_few_blocks(&self, blocks: u32) -> Error {
        let why = if self.is_exact() {
            format!("floor(K/{}) with K = {}", self.words, self.k)
        } else {
            format!("--word-k, with K = {}", self.k)
        };
        Error::usage(format!(
            "--blocks ({blocks}) must be greater than the k of each word's search ({}: {why}) \
             for {}-bit fingerprints, and at most 64",
            self.word_k,
            64 * self.words
        ))
    }

    /// The chance that a pair `distance` bits apart (at most K) is found, if its differing bits
    /// fall at random places: 1 - N / C(64L, d), N the number of ways to place d differing bits
    /// in L words of 64 with more than k in every word. 1 for the exact search.
    pub fn recall(&self, distance: u32) -> f64 {
        if distance > self.k {
            return 0.0;
        }
        let d = distance as usize;
        let binomial = binomials(64 * self.words);
        let missed = self.missed_placements(&binomial);
        // ways[j]: placements of j bits in the words so far, none of the words found.
        let mut ways = vec![0.0f64; d + 1];
        ways[0] = 1.0;
        for _ in 0..self.words {
            let mut next = vec![0.0f64; d + 1];
            for (j, &w) in ways.iter().enumerate().filter(|(_, &w)| w > 0.0) {
                for here in 0..=(d - j).min(64) {
                    next[j + here] += w * missed[here];
                }
            }
            ways = next;
        }
        1.0 - ways[d] / binomial[64 * self.words][d]
    }

    /// For each i in 0..=64: the placements of i differing bits in one word that the rule does
    /// not find. All of them beyond k; with the byte rule, between t and k those that touch
    /// more than t bytes: C(8, j) ways to choose j bytes times the i-subsets of their 8j bits
    /// that touch each of them (inclusion-exclusion), summed over j > t.
    fn missed_placements(&self, binomial: &[Vec<f64>]) -> Vec<f64> {
        let choose = |n: usize, r: usize| if r > n { 0.0 } else { binomial[n][r] };
        (0..=64usize)
            .map(|i| match self.word_bytes {
                _ if i > self.word_k as usize => choose(64, i),
                Some(t) if i > t as usize => (t as usize + 1..=BYTES as usize)
                    .map(|j| {
                        let onto: f64 = (0..=j)
                            .map(|m| {
                                let term = choose(j, m) * choose(8 * (j - m), i);
                                if m % 2 == 0 {
                                    term
                                } else {
                                    -term
                                }
                            })
                            .sum();
                        choose(BYTES as usize, j) * onto
                    })
                    .sum(),
                _ => 0.0,
            })
            .collect()
    }

    /// Whether the pair (g, h), met by the search of word `word`, is reported there.
    fn reports(&self, index: &Index, g: GroupIndex, h: GroupIndex, word: usize) -> bool {
        self.reported_at(index.words_of(g), index.words_of(h), word).is_some()
    }

    /// The check of a pair of fingerprints `a` and `b` (their words, word 0 first) that the
    /// search of word `word` met as a candidate: reported there when no earlier word is within
    /// k bits (that word's search reports it) and the total is within K. The total distance
    /// if so. The search itself ensures that word `word` is within k bits; the reduce of
    /// `--map` checks it before (see mapreduce.rs).
    pub(crate) fn reported_at(&self, a: &[u64], b: &[u64], word: usize) -> Option<u32> {
        let near = |w: usize| self.word_found(a[w] ^ b[w]);
        if (0..word).any(near) {
            return None; // an earlier word's search reports it
        }
        let total = a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum::<u32>();
        (total <= self.k).then_some(total)
    }
}

/// Pascal's triangle up to row `n`, as floats (C(256, 128) is about 5.8e75).
fn binomials(n: usize) -> Vec<Vec<f64>> {
    let mut rows: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
    for i in 0..=n {
        let mut row = vec![1.0; i + 1];
        for j in 1..i {
            row[j] = rows[i - 1][j - 1] + rows[i - 1][j];
        }
        rows.push(row);
    }
    rows
}

/// What the search did, for --stats.
#[derive(Debug, Clone, Default)]
pub struct WideSummary {
    /// B of each word's search.
    pub blocks: Vec<u32>,
    /// Pairs of distinct word values compared bit by bit by the word searches.
    pub compared: u64,
    /// Wide fingerprints: pairs whose total distance was checked.
    pub verified: u64,
}

/// Every pair of groups (distinct fingerprints of any width) that `rule` reports and the
/// selection can use. `blocks`: B of each word's search; `None`: chosen by the cost model for
/// each. 64-bit fingerprints are one word searched within K.
pub fn find_near(
    index: &Index,
    rule: WideRule,
    blocks: Option<u32>,
    threads: usize,
    selection: Selection,
    room: Vec<u64>,
) -> Result<(Vec<(GroupIndex, GroupIndex)>, WideSummary)> {
    if rule.words > 1 {
        return find_near_groups_wide(index, rule, blocks, threads, selection);
    }
    let b = blocks.unwrap_or_else(|| choose_blocks(index.groups(), rule.word_k));
    let tables = Tables::new(b, rule.word_k)?;
    let (near, compared) = find_near_groups(index, &tables, threads, selection, room)?;
    Ok((near, WideSummary { blocks: vec![b], compared, ..WideSummary::default() }))
}

/// [`find_near`] for wide fingerprints: the search of each word and the check of every
/// candidate.
fn find_near_groups_wide(
    index: &Index,
    rule: WideRule,
    blocks: Option<u32>,
    threads: usize,
    selection: Selection,
) -> Result<(Vec<(GroupIndex, GroupIndex)>, WideSummary)> {
    assert_eq!(index.words(), rule.words, "the rule is for the index's width");
    let threads = threads.max(1);
    let mut summary = WideSummary::default();
    let mut found = Vec::new();
    for word in 0..rule.words {
        // The groups of the index are the records of this one, grouped by the word's value.
        let values: Vec<u64> =
            (0..index.groups() as GroupIndex).map(|g| index.word(g, word)).collect();
        let mut by_value = Index::build(values, threads);
        let room = by_value.take_room();
        let check = Check { index, rule, word, selection };

        // Fingerprints that share the word's value.
        let mut same =
            WordPairs { by_value: &by_value, check, pairs: GroupPairs::default(), verified: 0 };
        for v in 0..by_value.groups() as GroupIndex {
            let members = by_value.members(v);
            for (i, &g) in members.iter().enumerate() {
                for &h in &members[i + 1..] {
                    same.verify(g, h);
                }
            }
        }
        summary.verified += same.verified;
        found.push(same.pairs);

        // Fingerprints whose word values are near.
        let tables = rule.word_tables(blocks, by_value.groups())?;
        summary.blocks.push(tables.blocks().count() as u32);
        let mut handlers: Vec<WordPairs> = (0..threads)
            .map(|_| WordPairs {
                by_value: &by_value,
                check,
                pairs: GroupPairs::default(),
                verified: 0,
            })
            .collect();
        summary.compared += search_in_parallel(&tables, by_value.distinct64(), room, &mut handlers);
        for handler in handlers {
            summary.verified += handler.verified;
            found.push(handler.pairs);
        }
    }
    Ok((GroupPairs::gather(found)?, summary))
}

/// The check of a candidate met by the search of one word.
#[derive(Debug, Clone, Copy)]
struct Check<'a> {
    index: &'a Index,
    rule: WideRule,
    word: usize,
    selection: Selection,
}

/// One thread's pairs of fingerprints from one word's search.
struct WordPairs<'a> {
    by_value: &'a Index,
    check: Check<'a>,
    pairs: GroupPairs,
    verified: u64,
}

impl WordPairs<'_> {
    fn verify(&mut self, g: GroupIndex, h: GroupIndex) {
        let Check { index, rule, word, selection } = self.check;
        self.verified += 1;
        if selection.useful(index, g, h) && rule.reports(index, g, h, word) {
            self.pairs.push(g.min(h), g.max(h));
        }
    }
}

impl OnPair for WordPairs<'_> {
    /// Two distinct values of the word within k bits: every fingerprint with one against every
    /// fingerprint with the other.
    fn found(&mut self, a: u64, b: u64) {
        let by_value = self.by_value;
        let (va, vb) = (by_value.group_of_fingerprint(a), by_value.group_of_fingerprint(b));
        for &g in by_value.members(va) {
            for &h in by_value.members(vb) {
                self.verify(g, h);
            }
        }
    }
}

/// The defaults of sh-pairs for fingerprints of each width, when no -k is given: K, the k of
/// each word's search, and the byte rule's t. Chosen by the evaluation (docs/QUALITY.md, "Wide fingerprints"):
/// with 2-token shingles and corpus statistics (`sh-weight --df`, with its limit on repeated
/// items), the most of issue #12's figures met at the least cost. An explicit -k searches exactly unless --word-k is given too.
pub fn default_rule(words: usize) -> (u32, Option<u32>, Option<u32>) {
    match words {
        1 => (6, None, None),
        2 => (20, Some(8), None),
        _ => (44, Some(8), Some(6)),
    }
}

/// The rule of sh-pairs for fingerprints of `words` words, given -k, --word-k and --word-bytes
/// (each `None` when not given: the defaults of [`default_rule`], the byte rule's only when
/// neither -k nor --word-k is given); a usage error for a K that the width cannot have. One
/// word is the 64-bit search within `word_k` = min(K, --word-k), without the byte rule.
pub fn rule_for(
    words: usize,
    k: Option<u32>,
    word_k: Option<u32>,
    word_bytes: Option<u32>,
) -> Result<WideRule> {
    let (default_k, default_word_k, default_word_bytes) = default_rule(words);
    let given = k.is_some() || word_k.is_some();
    let word_k = if k.is_some() { word_k } else { word_k.or(default_word_k) };
    let word_bytes = word_bytes.or(if given { None } else { default_word_bytes });
    let k = k.unwrap_or(default_k);
    check_k(words, k)?;
    let rule = WideRule::new(words, k, word_k);
    Ok(if words > 1 { rule.with_word_bytes(word_bytes) } else { rule })
}

/// The usage error for a K that the fingerprints' width cannot have.
pub fn check_k(words: usize, k: u32) -> Result<()> {
    let bits = 64 * words as u32;
    if k >= bits {
        return Err(Error::usage(format!("-k {k}: a {bits}-bit fingerprint needs K below {bits}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recall_of_the_exact_rule_is_one() {
        for (words, k) in [(2, 20), (4, 32), (4, 3), (4, 44)] {
            let rule = WideRule::new(words, k, None);
            assert!(rule.is_exact());
            for d in 0..=k {
                assert!((rule.recall(d) - 1.0).abs() < 1e-12, "L={words} K={k} d={d}");
            }
            assert_eq!(rule.recall(k + 1), 0.0);
        }
    }

    #[test]
    fn the_recall_of_a_smaller_word_k_counts_placements() {
        // Two words, k = 0, d = 2: the pair is missed when each word has one differing bit,
        // 64 * 64 of the C(128, 2) placements.
        let rule = WideRule::new(2, 10, Some(0));
        let expected = 1.0 - 64.0 * 64.0 / (128.0 * 127.0 / 2.0);
        assert!((rule.recall(2) - expected).abs() < 1e-12);
        assert_eq!(rule.recall(1), 1.0);
        assert_eq!(rule.recall(0), 1.0);
        // It falls with the distance.
        let rule = WideRule::new(4, 40, Some(6));
        let recalls: Vec<f64> = (0..=40).map(|d| rule.recall(d)).collect();
        assert!(recalls.windows(2).all(|w| w[1] <= w[0] + 1e-12));
        assert!(recalls[27] == 1.0 && recalls[28] < 1.0, "{recalls:?}");
    }

    #[test]
    fn the_recalls_in_the_manual_page() {
        // Computed apart, in Python with exact integers (math.comb).
        let rule = WideRule::new(4, 60, Some(6));
        for (d, expected) in [(28, 0.9922), (32, 0.8287), (36, 0.5448)] {
            assert!((rule.recall(d) - expected).abs() < 5e-5, "k=6 d={d}: {}", rule.recall(d));
        }
        let rule = WideRule::new(4, 60, Some(8));
        assert_eq!(rule.recall(35), 1.0);
        assert!((rule.recall(40) - 0.8636).abs() < 5e-5, "k=8 d=40: {}", rule.recall(40));
        // The byte rule, computed apart the same way (the bytes touched counted by a walk over
        // the 8 bytes, not by inclusion-exclusion).
        let rule = WideRule::new(4, 60, Some(7)).with_word_bytes(Some(6));
        for (d, expected) in [(32, 0.99148), (36, 0.84166), (40, 0.57256), (44, 0.33064)] {
            assert!((rule.recall(d) - expected).abs() < 5e-5, "k=7 t=6 d={d}: {}", rule.recall(d));
        }
        assert!(rule.recall(28) > 0.999_999_99 && rule.recall(28) < 1.0);
        // The 256-bit default's (the figures of its help), computed apart with exact integers.
        let rule = WideRule::new(4, 60, Some(8)).with_word_bytes(Some(6));
        for (d, expected) in [(34, 0.99879), (36, 0.98498), (40, 0.83650), (44, 0.58000)] {
            assert!((rule.recall(d) - expected).abs() < 5e-5, "k=8 t=6 d={d}: {}", rule.recall(d));
        }
        assert_eq!((default_rule(4).1, default_rule(4).2), (Some(8), Some(6)));
    }

    #[test]
    fn the_byte_rule_misses_words_that_touch_more_bytes() {
        let rule = WideRule::new(4, 44, Some(7)).with_word_bytes(Some(6));
        // 7 bits in 7 different bytes of 8: C(8, 7) * 8^7 placements.
        let missed = rule.missed_placements(&binomials(256));
        assert_eq!(missed[7], 8.0 * 8f64.powi(7));
        assert_eq!(missed[6], 0.0);
        assert_eq!(missed[8], binomials(64)[64][8]);
        assert!(rule.word_found(0x7f) && rule.word_found(0x0000_0101_0101_0103));
        assert!(!rule.word_found(0x0001_0101_0101_0101) && !rule.word_found(0xff));
        // A t that narrows nothing is dropped.
        assert_eq!(WideRule::new(4, 44, Some(7)).with_word_bytes(Some(7)).word_bytes, None);
        assert!(!rule.is_exact() && rule.layout_k() == 6);
    }
}
