//! Grouping 64-bit fingerprints: records dealt into buckets by the top bits of their
//! fingerprint, runs of buckets filled and sorted on threads of their own.

use super::{GroupIndex, RecordIndex};
use crate::split::{count_chunks, past_caches, Deal, Direct, Lines};
use sh_core::threads::spawn_or_run;

/// Below this many records one thread sorts all the buckets.
pub(super) const PARALLEL_FROM: usize = 1 << 16;

/// Cuts the buckets into at most `threads` runs of about equal numbers of records.
pub(crate) fn bucket_runs(bucket_start: &[usize], threads: usize) -> Vec<std::ops::Range<usize>> {
    let buckets = bucket_start.len() - 1;
    let n = bucket_start[buckets];
    let mut runs = Vec::with_capacity(threads);
    let mut start = 0;
    for t in 1..=threads {
        let end = if t == threads {
            buckets
        } else {
            // The first bucket boundary at or past t/threads of the records.
            let target = n / threads * t;
            start.max(bucket_start.partition_point(|&s| s < target).min(buckets))
        };
        if end > start {
            runs.push(start..end);
            start = end;
        }
    }
    if runs.is_empty() {
        runs.push(0..buckets);
    }
    runs
}

/// A run of buckets of the top `bits` bits: `bounds` are their starts and the run's end, in
/// positions of the whole.
#[derive(Debug, Clone, Copy)]
pub(super) struct Buckets<'a> {
    pub bits: u32,
    pub bounds: &'a [usize],
}

/// Deals each of `fingerprints` and its record (its position) into its bucket of the top
/// `bits` bits in `distinct` and `members`, buckets in order; returns the buckets' starts and
/// the end. The input is cut into `threads` chunks, each counted and dealt out by a thread of
/// its own into its own share of every bucket, so no two threads write one place (through
/// lines written past the caches when the output is large: `split/lines.rs`). Within a bucket
/// the records are in no particular order: its sort orders them.
pub(super) fn deal_into_buckets(
    fingerprints: &[u64],
    bits: u32,
    threads: usize,
    members: &mut [RecordIndex],
    distinct: &mut [u64],
) -> Vec<usize> {
    let buckets = 1usize << bits;
    let chunk = fingerprints.len().div_ceil(threads).max(1);
    let through_lines =
        past_caches(fingerprints.len() * (size_of::<RecordIndex>() + size_of::<u64>()));
    let (chunk_counts, bucket_start) =
        count_chunks(fingerprints, chunk, buckets, move |fp| top_bits(fp, bits));
    // Each bucket's places, cut into the shares of the chunks in their order.
    type Share<'s> = (Vec<&'s mut [RecordIndex]>, Vec<&'s mut [u64]>);
    let mut shares: Vec<Share> = chunk_counts
        .iter()
        .map(|_| (Vec::with_capacity(buckets), Vec::with_capacity(buckets)))
        .collect();
    let (mut members, mut distinct) = (members, distinct);
    for b in 0..buckets {
        for ((m_share, d_share), counts) in shares.iter_mut().zip(&chunk_counts) {
            let (m, rest) = std::mem::take(&mut members).split_at_mut(counts[b]);
            members = rest;
            let (d, rest) = std::mem::take(&mut distinct).split_at_mut(counts[b]);
            distinct = rest;
            m_share.push(m);
            d_share.push(d);
        }
    }
    std::thread::scope(|scope| {
        let mut tasks = Vec::with_capacity(threads);
        for (c, (part, (m_share, d_share))) in fingerprints.chunks(chunk).zip(shares).enumerate() {
            // The counts made room for every record of the chunk.
            let first = c * chunk;
            tasks.push(spawn_or_run(scope, move || match through_lines {
                true => deal_chunk(
                    part,
                    first,
                    bits,
                    Lines::<_, 16>::new(m_share),
                    Lines::<_, 8>::new(d_share),
                ),
                false => deal_chunk(part, first, bits, Direct::new(m_share), Direct::new(d_share)),
            }));
        }
        tasks.into_iter().for_each(|task| task.join());
    });
    bucket_start
}

/// Deals a chunk of fingerprints, the first of them record `first`, and their records into
/// the places of their buckets (through lines or not: [`Lines`], [`Direct`]).
fn deal_chunk(
    part: &[u64],
    first: usize,
    bits: u32,
    mut members: impl Deal<RecordIndex>,
    mut distinct: impl Deal<u64>,
) {
    for (i, &fp) in part.iter().enumerate() {
        let b = top_bits(fp, bits);
        members.push(b, (first + i) as RecordIndex);
        distinct.push(b, fp);
    }
    members.finish();
    distinct.finish();
}

/// What [`sort_buckets`] found in a run of buckets.
#[derive(Debug, Clone, Copy)]
pub(super) struct Found {
    /// The run's distinct fingerprints.
    pub count: usize,
    /// Whether every fingerprint of the run is one record's: their starts are then their
    /// positions, and none was written.
    pub alone: bool,
}

/// Sorts a run of buckets (`bounds` are their starts and the run's end, in positions of the
/// whole), reordering `members` by fingerprint within each bucket; `distinct` holds each
/// member's fingerprint beside it. Writes the run's distinct fingerprints to the front of
/// `distinct`, and their first positions to the front of `starts` unless every fingerprint
/// of the run is alone: `starts` is then left untouched (its fresh pages never faulted in),
/// the starts being the positions themselves.
pub(super) fn sort_buckets(
    Buckets { bits, bounds, .. }: Buckets,
    members: &mut [RecordIndex],
    distinct: &mut [u64],
    starts: &mut [RecordIndex],
) -> Found {
    let first = bounds[0];
    let mut count = 0;
    let mut alone = true;
    let mut bucket: Vec<(u64, RecordIndex)> = Vec::new();
    let mut parts = [0u32; MAX_PARTS + 1];
    for b in bounds.windows(2) {
        let records = &mut members[b[0] - first..b[1] - first];
        // The bucket's fingerprints, before the distinct ones found so far (never more than
        // the records before it) are written over them.
        let fingerprints = &distinct[b[0] - first..b[1] - first];
        sort_bucket(fingerprints, records, bits, &mut parts, &mut bucket);
        for (i, &(fp, record)) in bucket.iter().enumerate() {
            // Buckets hold disjoint fingerprints: a repeat can only follow within one.
            if i == 0 || bucket[i - 1].0 != fp {
                distinct[count] = fp;
                if !alone {
                    starts[count] = (b[0] + i) as RecordIndex;
                }
                count += 1;
            } else if alone {
                // The run's first repeat: every group before it has one record, at the
                // position of its number.
                alone = false;
                for (g, start) in starts[..count].iter_mut().enumerate() {
                    *start = (first + g) as RecordIndex;
                }
            }
            records[i] = record;
        }
    }
    Found { count, alone }
}

/// A bucket is dealt into parts by 8 to this many bits below the bucket's before its sort.
const MAX_PART_BITS: u32 = 12;
const MAX_PARTS: usize = 1 << MAX_PART_BITS;

/// Sorts the records of one bucket of the top `bits` bits by fingerprint (`fingerprints` and
/// `records` side by side, in input order) into `sorted`, records of one fingerprint in
/// input order. A counting sort by the next 8 to 12 bits (about as many parts as records)
/// deals them into parts of a record or two for random fingerprints, each then sorted by
/// insertion; a larger part (fingerprints alike in those bits too) by `sort_unstable`, so no
/// input costs more than n log n.
fn sort_bucket(
    fingerprints: &[u64],
    records: &[RecordIndex],
    bits: u32,
    parts: &mut [u32; MAX_PARTS + 1],
    sorted: &mut Vec<(u64, RecordIndex)>,
) {
    sorted.clear();
    let pairs = fingerprints.iter().zip(records).map(|(&fp, &r)| (fp, r));
    if fingerprints.len() < 64 {
        sorted.extend(pairs);
        sorted.sort_unstable();
        return;
    }
    let part_bits =
        (usize::BITS - fingerprints.len().leading_zeros()).clamp(8, MAX_PART_BITS).min(64 - bits);
    let parts_n = 1usize << part_bits;
    let parts = &mut parts[..=parts_n];
    let shift = 64 - bits - part_bits;
    let part_of = |fp: u64| (fp >> shift) as usize % parts_n;
    parts.fill(0);
    for &fp in fingerprints {
        parts[part_of(fp) + 1] += 1;
    }
    let largest = parts.iter().copied().max().unwrap_or(0);
    for p in 1..=parts_n {
        parts[p] += parts[p - 1];
    }
    sorted.resize(fingerprints.len(), (0, 0));
    // Each part's start moves on as it fills; part p then starts where p - 1 ended.
    for pair in pairs {
        let next = &mut parts[part_of(pair.0)];
        sorted[*next as usize] = pair;
        *next += 1;
    }
    if largest <= SMALL_PART {
        // Each pair is out of place only within its part, among a few: one insertion sort of
        // the whole moves each a few places at most (and mostly none), without a loop per part.
        insertion_sort(sorted);
        return;
    }
    let mut start = 0;
    for &end in &parts[..parts_n] {
        let part = &mut sorted[start..end as usize];
        if part.len() <= SMALL_PART as usize {
            insertion_sort(part);
        } else {
            part.sort_unstable();
        }
        start = end as usize;
    }
}

/// Parts of up to this many records are sorted by insertion.
const SMALL_PART: u32 = 16;

/// Sorts pairs by fingerprint in place, those of one fingerprint kept in their order (the
/// records of a part come in input order, so they stay in it).
fn insertion_sort(pairs: &mut [(u64, RecordIndex)]) {
    for i in 1..pairs.len() {
        let pair = pairs[i];
        let mut j = i;
        while j > 0 && pairs[j - 1].0 > pair.0 {
            pairs[j] = pairs[j - 1];
            j -= 1;
        }
        pairs[j] = pair;
    }
}

/// The top `bits` bits of a fingerprint (none for 0 bits).
pub(super) fn top_bits(fp: u64, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (fp >> (64 - bits)) as usize
    }
}

/// Records per bucket of the grouping sort: a bucket (64 KB of fingerprints and records)
/// stays in cache while it is sorted, and the records are dealt out to few enough buckets
/// that each thread's writes stream. 10M random fingerprints, 3 runs each, grouping: 0.125 s
/// at 256 a bucket, 0.119 at 1,024, 0.113 at 2,048, 0.110 at 4,096.
pub(super) const SORT_BUCKET: usize = 4096;

/// Distinct fingerprints per bucket of the lookup of a fingerprint's group: a binary search
/// among a few hundred.
pub(super) const LOOKUP_BUCKET: usize = 256;

/// Where each bucket of the top `bits` bits starts in `sorted` (ascending fingerprints, fewer
/// than 2^32), and the end: one pass, which writes the starts of the buckets up to a
/// fingerprint's own where its bucket is past the last one written, on `threads` threads for a
/// large set (each a stretch of the set, writing the starts of the buckets that begin in it).
/// Counting each fingerprint's bucket instead makes every addition wait for the one before
/// (the same bucket's count, fingerprint after fingerprint); searching each bucket's start, by
/// doubling steps from the one before, reads a few lines not in cache for each bucket. At 10M
/// random fingerprints (32,768 buckets), timed inside the program while other work shared the
/// machine: counting 34-40 ms, searching 20 ms, this pass on one thread 14-15 ms.
pub(super) fn bucket_starts(sorted: &[u64], bits: u32, threads: usize) -> Vec<GroupIndex> {
    debug_assert!(sorted.is_sorted());
    let n = sorted.len();
    let threads = if n < PARALLEL_FROM { 1 } else { threads.max(1) };
    let mut starts: Vec<GroupIndex> = vec![n as GroupIndex; (1 << bits) + 1];
    std::thread::scope(|scope| {
        // The buckets after those of the stretches before.
        let mut rest = &mut starts[..];
        let mut tasks = Vec::with_capacity(threads);
        for t in 0..threads {
            let (lo, hi) = (t * n / threads, (t + 1) * n / threads);
            if lo == hi {
                continue;
            }
            // The buckets that begin in this stretch: past the one of the fingerprint before it,
            // up to its last fingerprint's.
            let from = if lo == 0 { 0 } else { top_bits(sorted[lo - 1], bits) + 1 };
            let to = top_bits(sorted[hi - 1], bits) + 1;
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(to - from);
            rest = tail;
            tasks.push(spawn_or_run(scope, move || {
                let mut written = 0;
                for (i, &fp) in sorted[lo..hi].iter().enumerate() {
                    // Rarely: the first fingerprint of a bucket (and the buckets before it
                    // left empty). The stretch's first may be in the bucket before `from`.
                    while from + written <= top_bits(fp, bits) {
                        mine[written] = (lo + i) as GroupIndex;
                        written += 1;
                    }
                }
            }));
        }
        // Joined, so that each thread has ended (its thread-local storage freed) on return.
        tasks.into_iter().for_each(|task| task.join());
    });
    starts
}

/// The bits of buckets of about `per_bucket` of `records` (at most 19).
pub(super) fn bucket_bits(records: usize, per_bucket: usize) -> u32 {
    let wanted = (records / per_bucket).max(1);
    (usize::BITS - wanted.leading_zeros()).min(20) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The starts found in one pass, on 1 to 7 threads, are those found by counting each
    /// fingerprint's bucket: random fingerprints, all in one bucket (every stretch but the
    /// first begins no bucket), runs of empty buckets, the extremes, no bits, an empty set.
    #[test]
    fn bucket_starts_are_the_counted_ones() {
        let mut next = sh_testkit::xorshift(0xbf58_476d_1ce4_e5b9);
        // Large enough to be cut into stretches for threads.
        let n = PARALLEL_FROM + 4321;
        let random: Vec<u64> = (0..n).map(|_| next()).collect();
        let one_bucket: Vec<u64> = (0..n).map(|_| next() >> 20).collect();
        let gaps: Vec<u64> =
            (0..n).map(|i| if i % 3 == 0 { next() >> 9 } else { next() | 1 << 63 }).collect();
        let extremes = vec![0, 0, 1, u64::MAX - 1, u64::MAX, u64::MAX];
        for (name, mut set) in [
            ("random", random),
            ("one", one_bucket),
            ("gaps", gaps),
            ("extremes", extremes),
            ("empty", Vec::new()),
        ] {
            set.sort_unstable();
            for bits in [0, 1, 4, 8, 12, 19] {
                let mut counted: Vec<GroupIndex> = vec![0; (1 << bits) + 1];
                for &fp in &set {
                    counted[top_bits(fp, bits) + 1] += 1;
                }
                for b in 1..counted.len() {
                    counted[b] += counted[b - 1];
                }
                for threads in [1, 2, 3, 7] {
                    let starts = bucket_starts(&set, bits, threads);
                    assert_eq!(starts, counted, "{name}, {bits} bits, {threads} threads");
                }
            }
        }
    }
}
