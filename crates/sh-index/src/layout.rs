//! How a segment's tables cut a 64-bit fingerprint, and which keys a query probes.
//!
//! The tables split the 64 bits into m consecutive keys (substrings). If two fingerprints
//! are within K bits, their distances on the m keys add up to at most K, so for any radii r_t
//! with sum(r_t + 1) >= K + 1 over the probed tables, some key t is within r_t bits
//! (generalized pigeonhole). A query therefore probes, in each table t, every key within r_t
//! bits of its own key t, and checks the whole distance of what it finds there.
//!
//! Table t holds the fingerprints rotated left by the key's offset, so that its key is the top
//! bits, sorted. A directory on the top `dir_bits` bits gives where each bucket starts; an
//! entry keeps only the bits below them, in `entry_bytes` bytes.

/// One table: where its key sits in the fingerprint and how its entries are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSpec {
    /// Where the key starts, in bits from the top of the fingerprint.
    pub offset: u32,
    /// The key's width in bits (1..=64).
    pub key_bits: u32,
    /// The bits of the directory (0..=key_bits, at most [`MAX_DIR_BITS`]).
    pub dir_bits: u32,
}

/// The largest directory: 2^28 + 1 offsets of 4 bytes, 1 GiB, for about 2^31 fingerprints.
pub const MAX_DIR_BITS: u32 = 28;

impl TableSpec {
    /// The fingerprint as this table sorts it: its key on top.
    #[inline]
    pub fn rotate(self, fingerprint: u64) -> u64 {
        fingerprint.rotate_left(self.offset)
    }

    /// The fingerprint of a value of this table.
    #[inline]
    pub fn unrotate(self, value: u64) -> u64 {
        value.rotate_right(self.offset)
    }

    /// The key of a fingerprint in this table.
    #[inline]
    pub fn key(self, fingerprint: u64) -> u64 {
        top(self.rotate(fingerprint), self.key_bits)
    }

    /// The bytes of one entry: the bits below the directory's, rounded up to bytes.
    pub fn entry_bytes(self) -> usize {
        (64 - self.dir_bits as usize).div_ceil(8)
    }

    /// The directory bucket of a rotated value.
    #[inline]
    pub fn bucket(self, value: u64) -> usize {
        top(value, self.dir_bits) as usize
    }

    /// What an entry stores of a rotated value.
    #[inline]
    pub fn low(self, value: u64) -> u64 {
        low_bits(value, 64 - self.dir_bits)
    }
}

/// The top `bits` bits of `value` (0 for 0 bits).
#[inline]
pub fn top(value: u64, bits: u32) -> u64 {
    if bits == 0 {
        0
    } else {
        value >> (64 - bits)
    }
}

/// The low `bits` bits of `value`.
#[inline]
pub fn low_bits(value: u64, bits: u32) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

/// The m tables of a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub tables: Vec<TableSpec>,
}

/// At most this many tables in a segment.
pub const MAX_TABLES: usize = 16;

/// The bytes per record beyond which a layout is not chosen unless nothing smaller is: the
/// size target of the index (24 bytes a record at K = 3, ids aside).
const SIZE_CAP: f64 = 24.0;

/// How much slower a layout within [`SIZE_CAP`] may make queries before a larger one is chosen.
const SIZE_PRICE: f64 = 4.0;

impl Layout {
    /// m tables with keys of nearly equal width (the wider first), directories sized for
    /// `entries` values each.
    pub fn even(m: usize, entries: u64) -> Layout {
        assert!((1..=MAX_TABLES).contains(&m));
        let (base, wider) = (64 / m as u32, 64 % m as u32);
        let mut offset = 0;
        let tables = (0..m as u32)
            .map(|t| {
                let key_bits = base + u32::from(t < wider);
                let dir_bits = directory_bits(entries, key_bits);
                let spec = TableSpec { offset, key_bits, dir_bits };
                offset += key_bits;
                spec
            })
            .collect();
        Layout { tables }
    }

    /// The layout a segment of `distinct` fingerprints (`records` records) searched up to `k`
    /// bits is built with: the least expected query cost among those within the size cap,
    /// unless a larger one makes queries several times cheaper.
    pub fn choose(k: u32, records: u64, distinct: u64) -> Layout {
        let candidates: Vec<(f64, f64, Layout)> = (1..=MAX_TABLES.min(k as usize + 1))
            .map(|m| {
                let layout = Layout::even(m, distinct);
                let cost = layout.query_cost(k, distinct);
                let size = layout.bytes_per_record(records, distinct);
                (cost, size, layout)
            })
            .collect();
        let best = cheapest(candidates.iter()).expect("at least one layout");
        let within = cheapest(candidates.iter().filter(|(_, size, _)| *size <= SIZE_CAP));
        // Within the size cap unless that costs queries more than SIZE_PRICE times as much.
        match within {
            Some(small) if small.0 <= SIZE_PRICE * best.0 => small.2.clone(),
            _ => best.2.clone(),
        }
    }

    /// Expected cost of one query at `k`, in units of one probe (a cache miss or two): the
    /// probes plus the entries they scan, each far cheaper.
    pub fn query_cost(&self, k: u32, distinct: u64) -> f64 {
        const PER_ENTRY: f64 = 0.03;
        let radii = self.radii(k);
        let mut cost = 0.0;
        for (spec, radius) in self.tables.iter().zip(&radii) {
            let Some(r) = *radius else { continue };
            let probes = keys_within(spec.key_bits, r);
            let per_key = distinct as f64 / 2f64.powi(spec.key_bits as i32);
            cost += probes * (1.0 + PER_ENTRY * per_key);
        }
        cost
    }

    /// Bytes per record: every table's entries, table 0 holding every record and the others
    /// every distinct fingerprint, their directories, and a 4-byte record number per record.
    pub fn bytes_per_record(&self, records: u64, distinct: u64) -> f64 {
        let records_f = records.max(1) as f64;
        let mut bytes = 4.0 * records_f;
        for (t, spec) in self.tables.iter().enumerate() {
            let entries = if t == 0 { records } else { distinct };
            bytes += (entries as f64) * spec.entry_bytes() as f64;
            bytes += 4.0 * (2f64.powi(spec.dir_bits as i32) + 1.0);
        }
        bytes / records_f
    }

    /// The radius of each table for a search within `k` bits, `None` for a table not probed:
    /// k + 1 units spread over the first min(m, k + 1) tables, the wider keys first.
    pub fn radii(&self, k: u32) -> Vec<Option<u32>> {
        let units = k as usize + 1;
        let used = self.tables.len().min(units);
        let (base, extra) = (units / used, units % used);
        (0..self.tables.len())
            .map(|t| (t < used).then(|| (base + usize::from(t < extra) - 1) as u32))
            .collect()
    }
}

/// The (cost, size, layout) of least cost, then size.
fn cheapest<'a>(
    pool: impl Iterator<Item = &'a (f64, f64, Layout)>,
) -> Option<&'a (f64, f64, Layout)> {
    pool.min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)))
}

/// Directory bits for a table of `entries` values keyed on `key_bits` bits: the most whose
/// table (directory and entries) is within 5% of the smallest. More bits make smaller buckets
/// and, once they save a byte of every entry, a smaller table; each costs a directory twice
/// as large.
pub fn directory_bits(entries: u64, key_bits: u32) -> u32 {
    let size = |d: u32| entries * (64 - u64::from(d)).div_ceil(8) + 4 * (1u64 << d);
    let limit = key_bits.min(MAX_DIR_BITS);
    let smallest = (0..=limit).map(size).min().expect("at least 0 bits");
    (0..=limit).rev().find(|&d| size(d) * 100 <= smallest * 105).unwrap_or(0)
}

/// How many keys of `bits` bits are within `radius` bits of one key.
pub fn keys_within(bits: u32, radius: u32) -> f64 {
    let mut total = 0.0;
    let mut term = 1.0;
    for i in 0..=radius.min(bits) {
        if i > 0 {
            term = term * f64::from(bits - i + 1) / f64::from(i);
        }
        total += term;
    }
    total
}

/// Calls `visit` with every `bits`-bit key within `radius` bits of `key` (`key` itself first),
/// each once.
pub fn for_each_key_within(key: u64, bits: u32, radius: u32, visit: &mut impl FnMut(u64)) {
    visit(key);
    flip_from(key, bits, 0, radius, visit);
}

fn flip_from(key: u64, bits: u32, from: u32, left: u32, visit: &mut impl FnMut(u64)) {
    if left == 0 {
        return;
    }
    for bit in from..bits {
        let flipped = key ^ (1u64 << bit);
        visit(flipped);
        flip_from(flipped, bits, bit + 1, left - 1, visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_within_counts_what_the_enumeration_visits() {
        for (bits, radius) in [(16, 0), (16, 1), (21, 2), (22, 3), (5, 7), (64, 2)] {
            let mut seen = std::collections::HashSet::new();
            for_each_key_within(0b1011, bits, radius, &mut |k| {
                assert!(seen.insert(k), "visited twice");
                assert!(k < 1u64.checked_shl(bits).unwrap_or(0).wrapping_sub(1).max(k + 1));
                assert!((k ^ 0b1011).count_ones() <= radius);
            });
            assert_eq!(seen.len() as f64, keys_within(bits, radius), "{bits} {radius}");
        }
    }

    #[test]
    fn radii_meet_the_pigeonhole_bound() {
        for m in 1..=MAX_TABLES {
            let layout = Layout::even(m, 1000);
            assert_eq!(layout.tables.iter().map(|t| t.key_bits).sum::<u32>(), 64);
            for k in 0..=20 {
                let units: u32 = layout.radii(k).iter().flatten().map(|r| r + 1).sum();
                assert!(units > k, "m {m} k {k}");
            }
        }
    }

    #[test]
    fn rotation_puts_the_key_on_top() {
        let layout = Layout::even(3, 1 << 20);
        let f = 0x0123_4567_89ab_cdefu64;
        for spec in &layout.tables {
            assert_eq!(spec.unrotate(spec.rotate(f)), f);
            let expected = (f << spec.offset) >> (64 - spec.key_bits);
            assert_eq!(spec.key(f), expected);
        }
    }

    #[test]
    fn the_chosen_layouts_fit_the_size_cap_unless_a_larger_one_is_much_faster() {
        // The sizes of the index's figures fit: 10M and 100M records at K = 3 (and K = 6).
        for (k, n) in [(3, 10_000_000u64), (3, 100_000_000), (6, 10_000_000), (6, 100_000_000)] {
            let layout = Layout::choose(k, n, n);
            assert!(layout.bytes_per_record(n, n) <= SIZE_CAP, "{k} {n}: {layout:?}");
        }
        for k in 0..=10 {
            for n in [1u64, 10, 1000, 1_000_000, 10_000_000, 1_000_000_000] {
                let chosen = Layout::choose(k, n, n);
                let cost = chosen.query_cost(k, n);
                for m in 1..=MAX_TABLES.min(k as usize + 1) {
                    let other = Layout::even(m, n);
                    let small = other.bytes_per_record(n, n) <= SIZE_CAP;
                    if chosen.bytes_per_record(n, n) <= SIZE_CAP {
                        assert!(!small || other.query_cost(k, n) >= cost, "{k} {n} {m}");
                    } else {
                        assert!(
                            !small || other.query_cost(k, n) > SIZE_PRICE * cost,
                            "{k} {n} {m}"
                        );
                    }
                }
            }
        }
    }
}
