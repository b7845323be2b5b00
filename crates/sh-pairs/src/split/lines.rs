//! Dealing items out to many places (a counting sort's second pass), for a large output a cache
//! line at a time, written past the caches.
//!
//! A counting sort by a block of 13 bits writes each item to one of 8,192 places spread over an
//! output far larger than the caches. An ordinary store first reads the line it writes into the
//! cache, so each item costs a read of memory as well as a write. For an output of
//! [`PAST_CACHES_FROM`] bytes or more, each value's items are gathered in a line of their own
//! (a line a value and output array: 8,192 lines of 64 bytes for a sort by a 13-bit block, in
//! the L2 cache) that mirrors the cache line of the output they go to; when it is full, the
//! whole line is written to memory with non-temporal stores, which read nothing. The partial
//! lines at either end of a value's room (shared with the rooms beside it, which another thread
//! may be filling) are written item by item with ordinary stores. A smaller output is written
//! item by item where it goes: it stays in the caches for the pass that reads it next, which
//! the lines' stores would have sent to memory. On x86-64 each item's place is then asked for
//! `PREFETCH_AHEAD` items before its store, so that the store seldom waits for its line.
//!
//! On the development machine (2 cores, `sh-pairs -k 3`, random fingerprints, medians of 7-15
//! alternating runs): at 10M the three sorts of the search and the grouping's deal together
//! 0.654 -> 0.631 s of the whole run; at 5M 0.305 -> 0.297 s; at 3M (24 MB of fingerprints)
//! the same; at 1M 0.062 -> 0.065 s, hence the threshold.

/// Bytes in a cache line.
const LINE_BYTES: usize = 64;

/// What may be dealt through lines: plain integers, every bit of them a value (no padding to
/// read, no pointer to lose), their alignment their size.
pub(crate) trait Item: Copy + Default + sealed::Sealed {}
impl Item for u32 {}
impl Item for u64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// Full lines written past the caches, for the tests to see that a large sort goes through
/// lines.
#[cfg(test)]
pub(crate) static LINES_WRITTEN: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// A line of `N` items, on a cache line of its own.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Line<T, const N: usize>([T; N]);

/// Outputs of this many bytes or more are written through lines, past the caches.
const PAST_CACHES_FROM: usize = 32 << 20;

/// Whether an output of `output_bytes` bytes in all (of every array dealt into together) is
/// dealt through lines.
pub(crate) fn past_caches(output_bytes: usize) -> bool {
    output_bytes >= PAST_CACHES_FROM
}

/// Deals items into the places of their values, each place the room of its value, exactly as
/// long as the items of the value still to come (a counting sort's counts).
pub(crate) trait Deal<T> {
    /// Adds `item` of value `v`, in the order of the items.
    fn push(&mut self, v: usize, item: T);
    /// Writes what is still held: the places are then filled, and safe to read from any thread
    /// once this one is joined.
    fn finish(self);
}

/// Deals `items` into `places`, the room of each value (`value` below `places.len()`), through
/// lines when the output of `output_bytes` is large ([`past_caches`]).
pub(crate) fn deal<T: Item, const N: usize>(
    items: &[T],
    value: impl Fn(T) -> usize,
    places: Vec<&mut [T]>,
    output_bytes: usize,
) {
    // Each way's loop compiled on its own.
    fn each<T: Copy>(items: &[T], value: impl Fn(T) -> usize, mut dealer: impl Deal<T>) {
        for &item in items {
            dealer.push(value(item), item);
        }
        dealer.finish();
    }
    match past_caches(output_bytes) {
        true => each(items, value, Lines::<T, N>::new(places)),
        #[cfg(target_arch = "x86_64")]
        false => {
            let mut dealer = Direct::new(places);
            for (i, &item) in items.iter().enumerate() {
                if let Some(&later) = items.get(i + PREFETCH_AHEAD) {
                    dealer.prefetch(value(later));
                }
                dealer.push(value(item), item);
            }
            dealer.finish();
        }
        #[cfg(not(target_arch = "x86_64"))]
        false => each(items, value, Direct::new(places)),
    }
}

/// How many items ahead [`Direct`] asks for the place of an item. At 1M random fingerprints
/// (the search's three sorts, `--stats`, 21 alternating runs a loop) one loop took the search
/// from 35 ms to 31, 30 and 28 ms with 8, 16 and 32 ahead, another from 50 ms to 47, 46 and
/// 44 with 16, 32 and 64. (The grouping's deal into 128 buckets at 1M, asked for the same way,
/// gained nothing: its few places stream.)
#[cfg(target_arch = "x86_64")]
const PREFETCH_AHEAD: usize = 32;

/// Writes each item where it goes, at once.
pub(crate) struct Direct<'a, T>(Vec<std::slice::IterMut<'a, T>>);

impl<'a, T> Direct<'a, T> {
    pub(crate) fn new(places: Vec<&'a mut [T]>) -> Direct<'a, T> {
        Direct(places.into_iter().map(|place| place.iter_mut()).collect())
    }
}

impl<T> Direct<'_, T> {
    /// Asks for the cache line where the next item of value `v` goes, so that its store finds
    /// the line in the cache: 8,192 places, each written a few times a line, are more lines
    /// than the processor fetches ahead on its own. No effect on what is written.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn prefetch(&self, v: usize) {
        let next = self.0[v].as_slice().as_ptr();
        // SAFETY: a prefetch reads nothing that the program sees and cannot fault (the address
        // is the next item's place, or one past the end of its room). SSE, which the
        // instruction needs, is in every x86-64.
        #[allow(unsafe_code, unused_unsafe)]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(next.cast::<i8>());
        }
    }
}

impl<T> Deal<T> for Direct<'_, T> {
    #[inline(always)]
    fn push(&mut self, v: usize, item: T) {
        if let Some(slot) = self.0[v].next() {
            *slot = item;
        }
    }

    fn finish(self) {}
}

/// Gathers each value's items in a line that mirrors the output's cache line they go to, and
/// writes a full line past the caches; `N` items to a cache line.
pub(crate) struct Lines<'a, T, const N: usize> {
    /// The room of each value not yet written: it starts with the items its line holds.
    places: Vec<&'a mut [T]>,
    lines: Vec<Line<T, N>>,
    /// How many items each line holds.
    held: Vec<u8>,
}

impl<'a, T: Item, const N: usize> Lines<'a, T, N> {
    pub(crate) fn new(places: Vec<&'a mut [T]>) -> Lines<'a, T, N> {
        const { assert!(N * size_of::<T>() == LINE_BYTES, "a line of items is a cache line") };
        let values = places.len();
        Lines { places, lines: vec![Line([T::default(); N]); values], held: vec![0; values] }
    }
}

impl<T: Item, const N: usize> Deal<T> for Lines<'_, T, N> {
    #[inline(always)]
    fn push(&mut self, v: usize, item: T) {
        let place = &mut self.places[v];
        let held = &mut self.held[v];
        // The slot of the output's cache line that this item goes to.
        let slot = (place.as_ptr() as usize / size_of::<T>() + usize::from(*held)) % N;
        let line = &mut self.lines[v].0;
        line[slot] = item;
        *held += 1;
        if slot == N - 1 {
            let count = usize::from(std::mem::take(held));
            let (written, rest) = std::mem::take(place).split_at_mut(count);
            if count == N {
                write_past_caches(line, written);
                #[cfg(test)]
                LINES_WRITTEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            } else {
                // The value's first line, which starts in the room before it.
                written.copy_from_slice(&line[N - count..]);
            }
            *place = rest;
        }
    }

    /// Writes what every line still holds (each value's last, partial line) with ordinary
    /// stores; dropped, the lines then order the lines written past the caches before this
    /// thread's later stores.
    fn finish(mut self) {
        for (v, place) in self.places.iter_mut().enumerate() {
            let count = usize::from(self.held[v]);
            let first = place.as_ptr() as usize / size_of::<T>() % N;
            let (written, rest) = std::mem::take(place).split_at_mut(count);
            written.copy_from_slice(&self.lines[v].0[first..first + count]);
            *place = rest;
        }
        debug_assert!(self.places.iter().all(|p| p.is_empty()), "every place filled");
    }
}

impl<T, const N: usize> Drop for Lines<'_, T, N> {
    /// The fence after the last line written past the caches, whether the lines finished or
    /// not (a panic on the way), before the output is touched again.
    fn drop(&mut self) {
        store_fence();
    }
}

/// Copies a full `line` to `to`, a cache line of the output, with non-temporal stores where
/// the processor has them (x86-64's SSE2, always there), else with ordinary ones.
#[inline(always)]
fn write_past_caches<T: Item, const N: usize>(line: &[T; N], to: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_load_si128, _mm_stream_si128};
        assert!(to.len() == N && (to.as_ptr() as usize).is_multiple_of(LINE_BYTES));
        let from = line.as_ptr().cast::<__m128i>();
        let into = to.as_mut_ptr().cast::<__m128i>();
        // SAFETY: both are 64 bytes (`Lines::new` holds N items to a cache line), `line` on a
        // cache line of its own (`Line`'s alignment), `to` on one by the assertion above, so
        // each 16-byte access is aligned and in bounds; `to` is borrowed mutably, so nothing
        // else reads or writes it, and the stores are ordered by the fence of the lines' drop
        // before the output is touched again. T is a plain integer ([`Item`]: no padding, no
        // pointer), so the bytes read from the line are all initialised and the bytes written
        // are a valid T.
        #[allow(unsafe_code)]
        unsafe {
            for i in 0..LINE_BYTES / 16 {
                _mm_stream_si128(into.add(i), _mm_load_si128(from.add(i)));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    to.copy_from_slice(line);
}

/// Orders the non-temporal stores made so far before every later store of this thread.
fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a fence has no operands; SSE2 is part of x86-64.
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_sfence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items dealt through lines, or not, land where a plain counting sort puts them: in order
    /// within each value, every place filled; values with fewer, exactly and more items than a
    /// line, rooms that start anywhere in a cache line, items of 4 and 8 bytes.
    #[test]
    fn deals_as_a_counting_sort_does() {
        let mut next = sh_testkit::xorshift(0x853c_49e6_748f_ea9b);
        for (values, n) in [(1usize, 5usize), (4, 40), (16, 17), (256, 5000), (8192, 100_000)] {
            for (offset, lines) in
                [0, 1, 5, 7, 15].into_iter().flat_map(|o| [(o, true), (o, false)])
            {
                let items: Vec<u64> = (0..n).map(|_| next()).collect();
                check::<u64, 8>(&items, values, offset, lines);
                let items: Vec<u32> = items.iter().map(|&x| x as u32).collect();
                check::<u32, 16>(&items, values, offset, lines);
            }
        }
    }

    /// `items` dealt by [`deal`] by their bits from the 8th up, into `values` values, land as a
    /// stable sort by those values puts them.
    fn check<T: Item + Into<u64> + PartialEq + std::fmt::Debug, const N: usize>(
        items: &[T],
        values: usize,
        offset: usize,
        lines: bool,
    ) {
        let value = |x: T| (x.into() >> 7) as usize % values;
        let out = dealt::<T, N>(items, values, offset, lines, value);
        let case = format!("{values} values, offset {offset}, lines {lines}, {N} a line");
        assert_eq!(out, sorted(items, value), "{case}");
    }

    /// `items` ordered by `value`, stably.
    fn sorted<T: Copy>(items: &[T], value: impl Fn(T) -> usize) -> Vec<T> {
        let mut sorted = items.to_vec();
        sorted.sort_by_key(|&x| value(x));
        sorted
    }

    /// `items` dealt by [`deal`] (through lines or not) into an output that starts `offset`
    /// items past a cache line.
    fn dealt<T: Item + std::fmt::Debug, const N: usize>(
        items: &[T],
        values: usize,
        offset: usize,
        lines: bool,
        value: impl Fn(T) -> usize,
    ) -> Vec<T> {
        let mut counts = vec![0usize; values];
        for &x in items {
            counts[value(x)] += 1;
        }
        let mut buffer = vec![T::default(); N + offset + items.len()];
        // The first item on a cache line.
        let skip = (N - buffer.as_ptr() as usize / size_of::<T>() % N) % N;
        let out = &mut buffer[skip + offset..skip + offset + items.len()];
        let mut places: Vec<&mut [T]> = Vec::new();
        let mut rest = &mut out[..];
        for &count in &counts {
            let (place, tail) = std::mem::take(&mut rest).split_at_mut(count);
            places.push(place);
            rest = tail;
        }
        let bytes = if lines { PAST_CACHES_FROM } else { 0 };
        deal::<T, N>(items, value, places, bytes);
        out.to_vec()
    }
}
