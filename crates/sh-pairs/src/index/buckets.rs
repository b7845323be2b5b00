//! Grouping 64-bit fingerprints: records dealt into buckets by the top bits of their
//! fingerprint, runs of buckets filled and sorted on threads of their own.

use super::RecordIndex;

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

/// A run of buckets: those of the top `bits` bits from `first` on, `bounds` their starts and
/// the run's end, in positions of the whole.
#[derive(Debug, Clone, Copy)]
pub(super) struct Buckets<'a> {
    pub bits: u32,
    pub first: usize,
    pub bounds: &'a [usize],
}

impl Buckets<'_> {
    /// Puts each of `fingerprints` that falls in the run, in input order, and its record in
    /// its bucket's next place of `distinct` and `members` (positions from the run's start).
    pub(super) fn fill(
        &self,
        fingerprints: &[u64],
        members: &mut [RecordIndex],
        distinct: &mut [u64],
    ) {
        let start = self.bounds[0];
        let mut next: Vec<usize> =
            self.bounds[..self.bounds.len() - 1].iter().map(|&b| b - start).collect();
        let buckets = self.first..self.first + next.len();
        for (record, &fp) in fingerprints.iter().enumerate() {
            let bucket = top_bits(fp, self.bits);
            if buckets.contains(&bucket) {
                let slot = &mut next[bucket - self.first];
                members[*slot] = record as RecordIndex;
                distinct[*slot] = fp;
                *slot += 1;
            }
        }
    }
}

/// Sorts a run of buckets (`bounds` are their starts and the run's end, in positions of the
/// whole), reordering `members` by fingerprint within each bucket; `distinct` holds each
/// member's fingerprint beside it. Writes the run's distinct fingerprints and their first
/// positions to the fronts of `distinct` and `starts`; returns how many there are.
pub(super) fn sort_buckets(
    Buckets { bits, bounds, .. }: Buckets,
    members: &mut [RecordIndex],
    distinct: &mut [u64],
    starts: &mut [RecordIndex],
) -> usize {
    let first = bounds[0];
    let mut count = 0;
    let mut bucket: Vec<(u64, RecordIndex)> = Vec::new();
    let mut parts = [0u32; PARTS + 1];
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
                starts[count] = (b[0] + i) as RecordIndex;
                count += 1;
            }
            records[i] = record;
        }
    }
    count
}

/// A bucket is dealt into this many parts by the bits below the bucket's before its sort.
const PARTS: usize = 256;

/// Sorts the records of one bucket of the top `bits` bits by fingerprint (`fingerprints` and
/// `records` side by side, in input order) into `sorted`, records of one fingerprint in
/// input order. A counting sort by the next 8 bits deals them into parts of a record or two
/// for random fingerprints, each then sorted by insertion; a larger part (fingerprints alike
/// in those bits too) by `sort_unstable`, so no input costs more than n log n.
fn sort_bucket(
    fingerprints: &[u64],
    records: &[RecordIndex],
    bits: u32,
    parts: &mut [u32; PARTS + 1],
    sorted: &mut Vec<(u64, RecordIndex)>,
) {
    sorted.clear();
    let pairs = fingerprints.iter().zip(records).map(|(&fp, &r)| (fp, r));
    if fingerprints.len() < PARTS / 4 {
        sorted.extend(pairs);
        sorted.sort_unstable();
        return;
    }
    let shift = 64 - bits - PARTS.trailing_zeros();
    let part_of = |fp: u64| (fp >> shift) as usize % PARTS;
    parts.fill(0);
    for &fp in fingerprints {
        parts[part_of(fp) + 1] += 1;
    }
    for p in 1..=PARTS {
        parts[p] += parts[p - 1];
    }
    sorted.resize(fingerprints.len(), (0, 0));
    // Each part's start moves on as it fills; part p then starts where p - 1 ended.
    for pair in pairs {
        let next = &mut parts[part_of(pair.0)];
        sorted[*next as usize] = pair;
        *next += 1;
    }
    let mut start = 0;
    for &end in &parts[..PARTS] {
        let part = &mut sorted[start..end as usize];
        if part.len() <= 16 {
            insertion_sort(part);
        } else {
            part.sort_unstable();
        }
        start = end as usize;
    }
}

/// Sorts a few pairs in place.
fn insertion_sort(pairs: &mut [(u64, RecordIndex)]) {
    for i in 1..pairs.len() {
        let mut j = i;
        while j > 0 && pairs[j - 1] > pairs[j] {
            pairs.swap(j - 1, j);
            j -= 1;
        }
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

/// Buckets of about 256 records: sorting one stays in cache.
pub(super) fn bucket_bits(records: usize) -> u32 {
    let wanted = (records / 256).max(1);
    (usize::BITS - wanted.leading_zeros()).min(20) - 1
}
