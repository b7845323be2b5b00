//! Records grouped by fingerprint: the distinct fingerprints in ascending order, and for each
//! the records that carry it, in input order. The search runs over distinct fingerprints only;
//! records that share one are expanded into pairs while writing.
//!
//! Fingerprints are 64-bit (one word) or wide (2 or 4 words, `sh-compute --bits 128|256`); a
//! wide fingerprint is held as its words end to end, word 0 first, and wide ones ascend as
//! numbers (the highest word decides first).

use sh_core::fingerprint::Fingerprint;

mod buckets;
mod neighbours;
mod record_set;

pub(crate) use buckets::bucket_runs;
use buckets::{
    bucket_bits, bucket_starts, deal_into_buckets, sort_buckets, top_bits, Buckets, Found,
    LOOKUP_BUCKET, PARALLEL_FROM, SORT_BUCKET,
};
pub use neighbours::Neighbours;
pub use record_set::RecordSet;
use sh_core::memory::prefer_huge_pages;
use sh_core::threads::spawn_or_run;

/// A record's number in the run, from 0: the query's records, then the corpus's. A u32, so up
/// to 4,294,967,295 records per run.
pub type RecordIndex = u32;

/// A group's number: the rank of its distinct fingerprint among all, ascending.
pub type GroupIndex = u32;

#[derive(Debug)]
pub struct Index {
    /// Every distinct fingerprint, ascending: `words` words each, end to end.
    distinct: Vec<u64>,
    /// Words per fingerprint: 1, 2 or 4.
    words: usize,
    /// `members[group_start[g]..group_start[g + 1]]` are the records of `distinct[g]`; empty
    /// when every fingerprint is one record's (group `g` is then `members[g]` alone), so that
    /// its pages, fresh memory, are never touched.
    group_start: Vec<RecordIndex>,
    members: Vec<RecordIndex>,
    /// The group of each record that can be in a pair, plus 1 (0 for the others): noted by
    /// [`Index::note_partners`] once the search has found the near groups, so that the records
    /// without a partner, nearly all of them in most corpora, are never looked at.
    group_of: Vec<GroupIndex>,
    /// Where the distinct fingerprints of each value of the top `lookup_bits` bits start: a
    /// fingerprint is looked up in a bucket of a few hundred, not in all.
    lookup: Vec<GroupIndex>,
    lookup_bits: u32,
    /// The buffer of the 64-bit fingerprints grouped, kept (its pages already in memory) as
    /// room for the search's copy of the distinct ones: see [`Index::take_room`].
    room: Vec<u64>,
}

impl Index {
    /// Groups `fingerprints` of `words` words each (one fingerprint per record, in input
    /// order, its words end to end).
    pub fn build_words(fingerprints: Vec<u64>, words: usize, threads: usize) -> Index {
        match words {
            1 => Index::build(fingerprints, threads),
            2 => Index::build_wide::<2>(&fingerprints),
            4 => Index::build_wide::<4>(&fingerprints),
            _ => panic!("a fingerprint has 1, 2 or 4 words, not {words}"),
        }
    }

    /// Groups wide fingerprints of `L` words: a sort of (fingerprint, record), highest word
    /// first, so groups ascend as numbers and list their records in input order.
    fn build_wide<const L: usize>(fingerprints: &[u64]) -> Index {
        let n = fingerprints.len() / L;
        let mut keyed: Vec<([u64; L], RecordIndex)> = fingerprints
            .chunks_exact(L)
            .enumerate()
            .map(|(record, words)| {
                let mut key = [0; L];
                for (k, &w) in key.iter_mut().zip(words.iter().rev()) {
                    *k = w;
                }
                (key, record as RecordIndex)
            })
            .collect();
        keyed.sort_unstable();
        let mut distinct = Vec::new();
        let mut group_start: Vec<RecordIndex> = Vec::new();
        let mut members: Vec<RecordIndex> = Vec::with_capacity(n);
        for (i, (key, record)) in keyed.iter().enumerate() {
            if i == 0 || keyed[i - 1].0 != *key {
                distinct.extend(key.iter().rev());
                group_start.push(i as RecordIndex);
            }
            members.push(*record);
        }
        drop(keyed);
        group_start.push(n as RecordIndex);
        Index {
            distinct,
            words: L,
            group_start,
            members,
            group_of: Vec::new(),
            lookup: Vec::new(),
            lookup_bits: 0,
            room: Vec::new(),
        }
    }

    /// Groups `fingerprints` (64-bit, one per record, in input order).
    ///
    /// Records are first dealt into buckets by the top bits of their fingerprint (a counting
    /// sort: the input cut into `threads` chunks, each counted and dealt out by a thread of its
    /// own into its share of every bucket); then each bucket, small enough to stay in cache, is
    /// sorted by fingerprint and record on its own, the buckets cut into `threads` runs sorted
    /// side by side.
    pub fn build(fingerprints: Vec<u64>, threads: usize) -> Index {
        let n = fingerprints.len();
        let threads = if n < PARALLEL_FROM { 1 } else { threads.max(1) };
        let bucket_bits = bucket_bits(n, SORT_BUCKET);
        let mut members: Vec<RecordIndex> = vec![0; n];
        let mut distinct = vec![0u64; n];
        prefer_huge_pages(&mut members);
        prefer_huge_pages(&mut distinct);
        let bucket_start =
            deal_into_buckets(&fingerprints, bucket_bits, threads, &mut members, &mut distinct);
        // Each run of buckets is sorted by a thread of its own, which writes the run's
        // distinct fingerprints (in place of its fingerprints) and their first positions from
        // the run's first position on (a run of m records has at most m of them); the runs are
        // then closed up.
        let mut group_start: Vec<RecordIndex> = vec![0; n + 1];
        prefer_huge_pages(&mut group_start);
        let runs = bucket_runs(&bucket_start, threads);
        let found: Vec<Found> = std::thread::scope(|scope| {
            let (mut members, mut distinct, mut group_start) =
                (&mut members[..], &mut distinct[..], &mut group_start[..]);
            let mut workers = Vec::new();
            for run in &runs {
                let len = bucket_start[run.end] - bucket_start[run.start];
                let (run_members, rest) = std::mem::take(&mut members).split_at_mut(len);
                members = rest;
                let (run_distinct, rest) = std::mem::take(&mut distinct).split_at_mut(len);
                distinct = rest;
                let (run_starts, rest) = std::mem::take(&mut group_start).split_at_mut(len);
                group_start = rest;
                let buckets =
                    Buckets { bits: bucket_bits, bounds: &bucket_start[run.start..=run.end] };
                workers.push(spawn_or_run(scope, move || {
                    sort_buckets(buckets, run_members, run_distinct, run_starts)
                }));
            }
            workers.into_iter().map(|w| w.join()).collect()
        });
        let mut groups = 0;
        let every_one_alone = found.iter().all(|f| f.alone);
        for (run, &Found { count, alone }) in runs.iter().zip(&found) {
            let first = bucket_start[run.start];
            distinct.copy_within(first..first + count, groups);
            // With every fingerprint alone no start is needed (nor was one written).
            if !every_one_alone && alone {
                // A run without repeats beside others with some: its starts were not written.
                for (g, start) in group_start[groups..groups + count].iter_mut().enumerate() {
                    *start = (first + g) as RecordIndex;
                }
            } else if !every_one_alone {
                group_start.copy_within(first..first + count, groups);
            }
            groups += count;
        }
        distinct.truncate(groups);
        distinct.shrink_to_fit();
        if every_one_alone {
            group_start = Vec::new();
        } else {
            group_start.truncate(groups);
            group_start.push(n as RecordIndex);
            group_start.shrink_to_fit();
        }

        let lookup_bits = self::bucket_bits(distinct.len(), LOOKUP_BUCKET);
        let lookup = bucket_starts(&distinct, lookup_bits, threads);
        Index {
            distinct,
            words: 1,
            group_start,
            members,
            group_of: Vec::new(),
            lookup,
            lookup_bits,
            room: fingerprints,
        }
    }

    /// Room for as many 64-bit fingerprints as there are records, in memory already (the
    /// buffer they were grouped from; empty for wide ones): a search that reorders a copy of
    /// the distinct fingerprints writes it there instead of into fresh pages.
    pub fn take_room(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.room)
    }

    /// The number of groups: of distinct fingerprints.
    pub fn groups(&self) -> usize {
        self.distinct.len() / self.words
    }

    /// Words per fingerprint: 1, 2 or 4.
    pub fn words(&self) -> usize {
        self.words
    }

    /// The distinct 64-bit fingerprints, ascending: one per group. Only for 64-bit ones.
    pub fn distinct64(&self) -> &[u64] {
        assert_eq!(self.words, 1, "distinct64 is for 64-bit fingerprints");
        &self.distinct
    }

    /// Word `w` of group `g`'s fingerprint (word 0 the lowest).
    pub fn word(&self, g: GroupIndex, w: usize) -> u64 {
        self.distinct[g as usize * self.words + w]
    }

    /// The words of group `g`'s fingerprint, word 0 first.
    pub fn words_of(&self, g: GroupIndex) -> &[u64] {
        let start = g as usize * self.words;
        &self.distinct[start..start + self.words]
    }

    /// The Hamming distance of the fingerprints of groups `g` and `h`: the sum over the words.
    pub fn distance(&self, g: GroupIndex, h: GroupIndex) -> u32 {
        let (a, b) = (self.words_of(g), self.words_of(h));
        a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
    }

    /// Group `g`'s fingerprint.
    pub fn fingerprint(&self, g: GroupIndex) -> Fingerprint {
        Fingerprint::from_words(self.words_of(g)).expect("1, 2 or 4 words")
    }

    pub fn records(&self) -> usize {
        self.members.len()
    }

    /// Notes the group of every record that can be in a pair (its group has two records or
    /// more, or a near neighbour), for [`Index::group_of`], and returns those records.
    pub fn note_partners(&mut self, neighbours: &Neighbours) -> RecordSet {
        let mut paired = RecordSet::new(self.records());
        // Zeroed by the system as its pages are first touched: a record without a partner
        // costs nothing here.
        let mut group_of: Vec<GroupIndex> = vec![0; self.records()];
        let shared = self.groups() < self.records();
        if !shared && neighbours.pair_count() == 0 {
            self.group_of = group_of;
            return paired; // every fingerprint alone, and none near another
        }
        for g in 0..self.groups() as GroupIndex {
            let members = self.members(g);
            if members.len() >= 2 || !neighbours.of(g).is_empty() {
                for &r in members {
                    paired.insert(r);
                    group_of[r as usize] = g + 1;
                }
            }
        }
        self.group_of = group_of;
        paired
    }

    /// The group of a record with a partner (see [`Index::note_partners`]).
    pub fn group_of(&self, record: RecordIndex) -> GroupIndex {
        self.group_of[record as usize]
            .checked_sub(1)
            .expect("the group of a record with a partner is noted before it is asked")
    }

    /// The records of group `g`, ascending.
    pub fn members(&self, g: GroupIndex) -> &[RecordIndex] {
        let g = g as usize;
        if self.group_start.is_empty() {
            return &self.members[g..g + 1];
        }
        &self.members[self.group_start[g] as usize..self.group_start[g + 1] as usize]
    }

    /// The groups of 64-bit fingerprints that are in the index, into `groups` (cleared): the
    /// same as [`Index::group_of_fingerprint`] for each, with their binary searches taken a
    /// step at a time side by side, so that the loads of a step wait for memory together.
    pub fn groups_of_fingerprints(&self, fps: &[u64], groups: &mut Vec<GroupIndex>) {
        debug_assert_eq!(self.words, 1, "looked up by 64-bit fingerprints");
        groups.clear();
        // A batch at a time, its ranges on the stack: per fingerprint, the start of the range
        // left and its length.
        for batch in fps.chunks(LOOK_UP_TOGETHER) {
            let mut ranges = [(0usize, 0usize); LOOK_UP_TOGETHER];
            for (range, &fp) in ranges.iter_mut().zip(batch) {
                let bucket = top_bits(fp, self.lookup_bits);
                let start = self.lookup[bucket] as usize;
                *range = (start, self.lookup[bucket + 1] as usize - start);
            }
            let ranges = &mut ranges[..batch.len()];
            loop {
                let mut narrowed = false;
                for ((start, len), &fp) in ranges.iter_mut().zip(batch) {
                    if *len > 1 {
                        let half = *len / 2;
                        if self.distinct[*start + half] <= fp {
                            *start += half;
                        }
                        *len -= half;
                        narrowed = true;
                    }
                }
                if !narrowed {
                    break;
                }
            }
            groups.extend(ranges.iter().zip(batch).map(|(&(start, _), &fp)| {
                assert_eq!(self.distinct[start], fp, "fingerprint found by the search is indexed");
                start as GroupIndex
            }));
        }
    }

    /// The group of a 64-bit fingerprint that is in the index.
    pub fn group_of_fingerprint(&self, fp: u64) -> GroupIndex {
        debug_assert_eq!(self.words, 1, "looked up by a 64-bit fingerprint");
        let bucket = top_bits(fp, self.lookup_bits);
        let (start, end) = (self.lookup[bucket] as usize, self.lookup[bucket + 1] as usize);
        let at = self.distinct[start..end]
            .binary_search(&fp)
            .expect("fingerprint found by the search is indexed");
        (start + at) as GroupIndex
    }
}

/// Fingerprints whose binary searches [`Index::groups_of_fingerprints`] takes side by side.
const LOOK_UP_TOGETHER: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_buckets_keep_groups_whole_and_in_input_order() {
        let fingerprints: Vec<u64> =
            (0..5000u64).map(|i| (i % 1000).wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let mut index = Index::build(fingerprints.clone(), 2);
        index.note_partners(&Neighbours::default());
        assert_eq!(index.groups(), 1000);
        assert!(index.distinct64().windows(2).all(|w| w[0] < w[1]));
        for g in 0..1000 {
            let members = index.members(g);
            assert_eq!(members.len(), 5);
            assert!(members.windows(2).all(|w| w[0] < w[1]));
            for &r in members {
                assert_eq!(fingerprints[r as usize], index.word(g, 0));
                assert_eq!(index.group_of(r), g);
            }
        }
    }

    /// The index of `fingerprints` on any number of threads against one made by a plain sort
    /// of (fingerprint, record).
    fn check_index(fingerprints: &[u64]) {
        let mut expected: Vec<(u64, Vec<RecordIndex>)> = Vec::new();
        let mut order: Vec<usize> = (0..fingerprints.len()).collect();
        order.sort_by_key(|&r| (fingerprints[r], r));
        for r in order {
            match expected.last_mut() {
                Some((fp, members)) if *fp == fingerprints[r] => members.push(r as RecordIndex),
                _ => expected.push((fingerprints[r], vec![r as RecordIndex])),
            }
        }
        for threads in [1, 2, 3, 8] {
            let mut index = Index::build(fingerprints.to_vec(), threads);
            let paired = index.note_partners(&Neighbours::default());
            assert_eq!(index.groups(), expected.len(), "{threads} threads");
            for (g, (fp, members)) in expected.iter().enumerate() {
                assert_eq!(index.word(g as u32, 0), *fp);
                assert_eq!(index.group_of_fingerprint(*fp), g as u32);
                assert_eq!(index.members(g as u32), members.as_slice(), "{threads} threads");
                // Without near groups, the records that share a fingerprint have partners.
                let shared = members.len() >= 2;
                assert!(members.iter().all(|&r| paired.contains(r) == shared));
                if shared {
                    assert!(members.iter().all(|&r| index.group_of(r) == g as u32));
                }
            }
        }
    }

    #[test]
    fn any_number_of_threads_builds_the_same_index() {
        // Enough records for several runs, with repeats, skewed top bits (a crowded bucket)
        // and the extremes.
        let mut next = sh_testkit::xorshift(0x2545_f491_4f6c_dd1d);
        let mut fingerprints: Vec<u64> = (0..(PARALLEL_FROM as u64) * 3)
            .map(|i| {
                let x = next();
                match i % 7 {
                    0 => x % 5000,
                    1 => x >> 40,
                    // Repeats spread over the buckets: a part of a bucket holds a few.
                    2 => (x % 20_000).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    _ => x,
                }
            })
            .collect();
        fingerprints.extend([0, u64::MAX, 0, u64::MAX]);
        check_index(&fingerprints);
    }

    /// Enough records for the grouping's deal to go through lines written past the caches
    /// (`split/lines.rs`), with repeats: the same index as a plain sort gives.
    #[test]
    fn a_large_index_dealt_through_lines_is_the_same() {
        let mut next = sh_testkit::xorshift(0x94d0_49bb_1331_11eb);
        let n = (32 << 20) / (size_of::<u64>() + size_of::<RecordIndex>()) + 777;
        assert!(crate::split::past_caches(n * 12));
        let fingerprints: Vec<u64> = (0..n as u64)
            .map(|i| match i % 5 {
                0 => (next() % 100_000).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                _ => next(),
            })
            .collect();
        let lines = || crate::split::LINES_WRITTEN.load(std::sync::atomic::Ordering::Relaxed);
        let written = lines();
        check_index(&fingerprints);
        // The records and the fingerprints of most records, in full lines (other tests may add
        // to the count, not take).
        assert!(lines() - written >= n / 16 + n / 8 / 2, "through lines");
    }

    /// Runs of buckets whose fingerprints are all alone write no group starts: the groups are
    /// the same with no repeat at all, and with repeats in some runs only (the first, the last,
    /// those between, one repeat in all).
    #[test]
    fn runs_without_repeats_give_the_same_groups() {
        let mut next = sh_testkit::xorshift(0x853c_49e6_748f_ea9b);
        let mut seen = std::collections::HashSet::new();
        let all_alone: Vec<u64> =
            (0..PARALLEL_FROM * 3).map(|_| next()).filter(|&fp| seen.insert(fp)).collect();
        // A repeat of every tenth fingerprint that `keep` takes, at the end of the input.
        let repeats_where = |keep: &dyn Fn(u64) -> bool| -> Vec<u64> {
            let repeated = all_alone.iter().copied().filter(|&fp| keep(fp)).step_by(10);
            all_alone.iter().copied().chain(repeated).collect()
        };
        check_index(&all_alone);
        check_index(&repeats_where(&|fp| fp < 1 << 62));
        check_index(&repeats_where(&|fp| fp >= 3 << 62));
        check_index(&repeats_where(&|fp| (1 << 63..3 << 62).contains(&fp)));
        check_index(&repeats_where(&|fp| fp == all_alone[all_alone.len() / 2]));
    }

    /// Looked up a batch at a time, each fingerprint's group is the one of its lookup alone:
    /// buckets of one, of many and crowded ones, in any order and with repeats.
    #[test]
    fn groups_looked_up_together_are_those_looked_up_alone() {
        let mut next = sh_testkit::xorshift(0x9e37_79b9_7f4a_7c15);
        let fingerprints: Vec<u64> = (0..50_000u64)
            .map(|i| match i % 4 {
                0 => next() % 3000, // crowded into the first bucket
                1 => next() >> 20,
                _ => next(),
            })
            .chain([0, u64::MAX])
            .collect();
        let index = Index::build(fingerprints.clone(), 2);
        let alone: Vec<GroupIndex> =
            fingerprints.iter().map(|&fp| index.group_of_fingerprint(fp)).collect();
        let mut groups = Vec::new();
        for batch in [1, 2, 7, 64, fingerprints.len()] {
            let mut together = Vec::new();
            for fps in fingerprints.chunks(batch) {
                index.groups_of_fingerprints(fps, &mut groups);
                together.extend_from_slice(&groups);
            }
            assert_eq!(together, alone, "batches of {batch}");
        }
        index.groups_of_fingerprints(&[], &mut groups);
        assert!(groups.is_empty());
    }

    #[test]
    fn runs_cover_every_bucket_once() {
        for (starts, threads) in [
            (vec![0, 0, 0, 0], 2),
            (vec![0, 10, 10, 10, 30], 3),
            (vec![0, 100, 100, 101], 8),
            (vec![0, 1, 2, 3, 4, 5], 2),
        ] {
            let runs = bucket_runs(&starts, threads);
            assert!(runs.len() <= threads);
            assert_eq!(runs.first().unwrap().start, 0);
            assert_eq!(runs.last().unwrap().end, starts.len() - 1);
            assert!(runs.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end));
        }
    }

    #[test]
    fn groups_keep_input_order() {
        let mut index = Index::build(vec![5, 3, 5, 9, 3, 5], 2);
        index.note_partners(&Neighbours::default());
        assert_eq!(index.distinct64(), [3, 5, 9]);
        assert_eq!(index.members(0), [1, 4]);
        assert_eq!(index.members(1), [0, 2, 5]);
        assert_eq!(index.members(2), [3]);
        assert_eq!(index.group_of(5), 1);
        assert_eq!(index.group_of_fingerprint(9), 2);
    }

    #[test]
    fn partners_share_a_fingerprint_or_have_a_near_group() {
        // Groups: 3 (record 1), 7 (records 0 and 3), 9 (record 2), 12 (record 4).
        for wide in [false, true] {
            let fingerprints = vec![7, 3, 9, 7, 12];
            let mut index = if wide {
                let words = fingerprints.iter().flat_map(|&fp| [fp, 1]).collect();
                Index::build_words(words, 2, 1)
            } else {
                Index::build(fingerprints, 2)
            };
            let paired = index.note_partners(&Neighbours::build(4, &[(0, 2)]));
            for (record, group) in [(0, 1), (1, 0), (2, 2), (3, 1)] {
                assert!(paired.contains(record), "record {record}, wide {wide}");
                assert_eq!(index.group_of(record), group);
            }
            assert!(!paired.contains(4));
            assert_eq!(paired.range(0, 5).collect::<Vec<_>>(), [0, 1, 2, 3]);
            assert_eq!(paired.range(0, 2).collect::<Vec<_>>(), [0, 1]);
            assert_eq!(paired.range(1, 3).collect::<Vec<_>>(), [1, 2]);
        }
    }
}
