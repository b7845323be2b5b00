//! What a run of sh-pairs did: the figures of --stats.

use std::time::Duration;

use crate::tables::binomial;
use crate::wide::WideRule;

/// What a run did, for --stats.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub records: u64,
    pub distinct: usize,
    /// Words per fingerprint: 1, 2 or 4.
    pub words: usize,
    /// K, and the k of each word's search (K itself for 64 bits).
    pub k: u32,
    pub word_k: u32,
    /// The byte rule's t (wide fingerprints).
    pub word_bytes: Option<u32>,
    /// B of each word's search.
    pub blocks: Vec<u32>,
    /// Pairs of distinct fingerprints (of distinct word values, for wide ones) compared.
    pub compared: u64,
    /// Wide fingerprints: candidate pairs whose total distance was checked.
    pub verified: u64,
    pub near_groups: usize,
    pub pairs: u64,
    pub group_time: Duration,
    pub search_time: Duration,
    pub write_time: Duration,
}

impl Summary {
    /// The line of --stats.
    pub(crate) fn stats_line(&self, total: Duration, read_time: Duration) -> String {
        let search = if self.words == 1 {
            // --word-k below K narrows a 64-bit search too: its one word within k bits.
            let k = self.word_k.min(self.k);
            let within = if k < self.k {
                format!(" (searched within k={k}: --word-k)")
            } else {
                String::new()
            };
            let b = self.blocks.first().copied().unwrap_or(k + 1);
            format!(
                "K={}{within}, B={b}, {} tables, {} candidates compared",
                self.k,
                binomial(b, k),
                self.compared
            )
        } else {
            let blocks: Vec<String> = self.blocks.iter().map(u32::to_string).collect();
            let rule = WideRule::new(self.words, self.k, Some(self.word_k))
                .with_word_bytes(self.word_bytes);
            let exact = match rule.word_bytes {
                _ if rule.is_exact() => "exact".to_string(),
                Some(t) => format!("approximate, at most {t} of 8 bytes differing"),
                None => "approximate".to_string(),
            };
            format!(
                "{}-bit, K={} in total, {} words searched within k={} bits ({exact}), B={}, \
                 {} candidates compared, {} candidates verified",
                64 * self.words,
                self.k,
                self.words,
                self.word_k,
                blocks.join(","),
                self.compared,
                self.verified,
            )
        };
        format!(
            "sh-pairs: {} records, {} distinct fingerprints, {search}, {} near pairs of distinct \
             fingerprints, {} pairs written, {:.3} s (read {:.3}, group {:.3}, search {:.3}, \
             write {:.3})",
            self.records,
            self.distinct,
            self.near_groups,
            self.pairs,
            total.as_secs_f64(),
            read_time.as_secs_f64(),
            self.group_time.as_secs_f64(),
            self.search_time.as_secs_f64(),
            self.write_time.as_secs_f64(),
        )
    }
}
