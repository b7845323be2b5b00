//! Memory the system refuses. Rust ends a program whose allocation fails with `memory
//! allocation of N bytes failed` and an abort, which names no command and leaves the temporary
//! file of an unfinished `-o` output behind. Every command's binary allocates through
//! [`Allocator`] instead: the system's allocator, but a refused allocation ends the command
//! with `sh-NAME: error: out of memory: …` and exit status 1, its unfinished outputs removed,
//! as any other error would. Code that can do without the memory asks for it inside
//! [`fallible`], where a refusal is an error value again (`Vec::try_reserve`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// The allocator of the commands (`#[global_allocator]` in each binary).
#[derive(Debug)]
pub struct Allocator;

thread_local! {
    /// Whether this thread is inside [`fallible`]. No destructor: using it allocates nothing.
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
    /// Whether this thread is ending the command for a refused allocation.
    static ENDS_HERE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` with refused allocations handed back to it, as `Vec::try_reserve` and its like
/// expect, instead of ending the command.
pub fn fallible<T>(work: impl FnOnce() -> T) -> T {
    let before = FALLIBLE.with(|f| f.replace(true));
    let result = work();
    FALLIBLE.with(|f| f.set(before));
    result
}

/// A refused allocation of `size` bytes: an error value inside [`fallible`], else the end of
/// the command.
fn refused(size: usize) {
    if FALLIBLE.with(Cell::get) {
        return;
    }
    static ENDING: AtomicBool = AtomicBool::new(false);
    if ENDING.swap(true, Ordering::SeqCst) {
        if ENDS_HERE.with(Cell::get) {
            // Refused again while this thread ends the command: no way to say so.
            std::process::abort();
        }
        // Another thread ends the command: this one waits for the end.
        loop {
            std::thread::park();
        }
    }
    ENDS_HERE.with(|e| e.set(true));
    crate::pending::remove_unfinished_outputs();
    let _ = writeln!(
        std::io::stderr(),
        "{}: error: out of memory: the system refused {size} more bytes",
        crate::cli::command_name()
    );
    std::process::exit(1);
}

// The second exception to the workspace's rule against unsafe code: a global allocator is an
// `unsafe impl` by nature. Each method hands the call to the system's allocator as it is, or a
// large block to `large` (a mapping of its own that starts on a huge page), and only looks at
// the pointer that comes back.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promises about `layout` are passed on unchanged.
        let pointer = unsafe { allocate(layout, false) };
        if pointer.is_null() {
            refused(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let pointer = unsafe { allocate(layout, true) };
        if pointer.is_null() {
            refused(layout.size());
        }
        pointer
    }

    unsafe fn realloc(&self, old: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let (was_large, is_large) =
            (large::is_large(layout.size(), layout), large::is_large(size, layout));
        let pointer = match (was_large, is_large) {
            // SAFETY: `old` is a large block of `layout.size()` bytes, made by `large`.
            (true, true) => unsafe { large::remap(old, layout.size(), size) },
            // SAFETY: `old` was allocated by this allocator with `layout`, by `System` when
            // it is not large; the caller's promises about `size` are passed on unchanged.
            (false, false) => unsafe { System.realloc(old, layout, size) },
            _ => {
                // Across the line between the two: a new block, the bytes kept copied over.
                // SAFETY: `size` with `layout`'s alignment is a valid layout (the caller's
                // promise), and `old` was allocated by this allocator with `layout`.
                let new = unsafe { Layout::from_size_align_unchecked(size, layout.align()) };
                let pointer = unsafe { allocate(new, false) };
                if !pointer.is_null() {
                    let kept = layout.size().min(size);
                    unsafe {
                        std::ptr::copy_nonoverlapping(old, pointer, kept);
                        self.dealloc(old, layout);
                    }
                }
                pointer
            }
        };
        if pointer.is_null() {
            refused(size);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        if large::is_large(layout.size(), layout) {
            // SAFETY: `pointer` is a large block of `layout.size()` bytes, made by `large`.
            unsafe { large::unmap(pointer, layout.size()) };
        } else {
            // SAFETY: `pointer` was allocated by this allocator, by `System` as it is not
            // large, with `layout`.
            unsafe { System.dealloc(pointer, layout) }
        }
    }
}

/// A block for `layout` (of zeros when `zeroed`): a mapping of its own when it is large (a
/// fresh mapping holds zeros), else the system allocator's.
///
/// # Safety
///
/// As [`GlobalAlloc::alloc`]: `layout` has a non-zero size.
#[allow(unsafe_code)]
unsafe fn allocate(layout: Layout, zeroed: bool) -> *mut u8 {
    if large::is_large(layout.size(), layout) {
        large::map(layout.size())
    } else if zeroed {
        // SAFETY: the caller's promise about `layout`.
        unsafe { System.alloc_zeroed(layout) }
    } else {
        // SAFETY: the caller's promise about `layout`.
        unsafe { System.alloc(layout) }
    }
}

#[cfg(target_os = "linux")]
mod huge;
#[cfg(target_os = "linux")]
mod large;

/// Elsewhere every block is the system allocator's.
#[cfg(not(target_os = "linux"))]
mod large {
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) const LARGE: usize = 2 << 20;
    pub(super) fn is_large(_size: usize, _layout: std::alloc::Layout) -> bool {
        false
    }
    pub(super) fn map(_size: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
    pub(super) unsafe fn unmap(_pointer: *mut u8, _size: usize) {}
    pub(super) unsafe fn remap(_pointer: *mut u8, _old: usize, _size: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
}

/// The size of a huge page (x86-64's and aarch64's usual 2 MB).
const HUGE_PAGE: usize = 2 << 20;

/// Asks the system to back `memory`, a large array not yet touched, with huge pages where it
/// can: the whole 2 MB pages inside it (none below 2 MB). The first touch of each then
/// costs one fault instead of 512 (sh-pairs at 1M records: 4,000 fewer faults, 5 ms less;
/// BENCHMARKS.md). Advice only: nothing changes when the system has huge pages off, none
/// free, or is not Linux, and the contents stay what they are. Memory touched already keeps
/// its pages. Where free memory goes back to a host (`huge.rs`), 4 KB pages are asked for
/// instead: fresh huge pages there cost the host a fault per 4 KB when first touched. A
/// block of 2 MB or more from [`Allocator`] is advised whole when it is made (`large.rs`);
/// this asks the same of an array from any allocator (a library user's, the tests').
pub fn prefer_huge_pages<T>(memory: &mut [T]) {
    let at = memory.as_mut_ptr() as usize;
    let start = at.next_multiple_of(HUGE_PAGE);
    let end = (at + std::mem::size_of_val(memory)) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        advise_huge_pages(start, end - start);
    }
}

// Another exception to the workspace's rule against unsafe code: madvise takes a raw range.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge_pages(start: usize, len: usize) {
    use nix::sys::mman::{madvise, MmapAdvise};
    let Some(start) = std::ptr::NonNull::new(start as *mut std::ffi::c_void) else {
        return;
    };
    // 4 KB pages where huge ones are not worth it (`huge.rs`), as the system may give huge
    // pages unasked.
    let advice = match huge::worth_asking() {
        true => MmapAdvise::MADV_HUGEPAGE,
        false => MmapAdvise::MADV_NOHUGEPAGE,
    };
    // SAFETY: the range lies inside memory the caller holds (`prefer_huge_pages`), and either
    // advice is only that: it changes neither the contents nor the validity of any page. A
    // refusal (huge pages not built in) leaves the memory as it was, and is ignored.
    let _ = unsafe { madvise(start, len, advice) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocator of this test binary is the default one; what is checked here is that
    /// `fallible` marks its work and no more, nested or not.
    #[test]
    fn fallible_marks_its_work_only() {
        assert!(!FALLIBLE.with(Cell::get));
        let inside = fallible(|| (FALLIBLE.with(Cell::get), fallible(|| FALLIBLE.with(Cell::get))));
        assert_eq!(inside, (true, true));
        assert!(!FALLIBLE.with(Cell::get), "restored after");
    }

    /// Blocks grown and shrunk across the size from which they are mapped apart keep their
    /// contents, and start on a huge page while they are large.
    #[test]
    #[allow(unsafe_code)]
    fn the_allocator_keeps_contents_across_the_large_line() {
        let sizes = [24, 100_000, large::LARGE - 8, large::LARGE, 3 * large::LARGE + 40, 4096];
        let layout = |size| Layout::from_size_align(size, 8).unwrap();
        let filled = |p: *mut u8, n: usize| {
            // SAFETY: `p` holds at least `n` bytes, written by the loop below.
            let bytes = unsafe { std::slice::from_raw_parts(p, n) };
            bytes.iter().enumerate().all(|(i, &b)| b == (i % 253) as u8)
        };
        for zeroed in [false, true] {
            // SAFETY: non-zero sizes; every block is freed with the layout it has.
            unsafe {
                let first = layout(sizes[0]);
                let mut p =
                    if zeroed { Allocator.alloc_zeroed(first) } else { Allocator.alloc(first) };
                let mut now = sizes[0];
                for &next in &sizes[1..] {
                    std::slice::from_raw_parts_mut(p, now)
                        .iter_mut()
                        .enumerate()
                        .for_each(|(i, b)| *b = (i % 253) as u8);
                    p = Allocator.realloc(p, layout(now), next);
                    assert!(filled(p, now.min(next)), "{now} -> {next}");
                    if cfg!(target_os = "linux") && next >= large::LARGE && now < large::LARGE {
                        assert_eq!(p as usize % HUGE_PAGE, 0, "{now} -> {next}");
                    }
                    now = next;
                }
                Allocator.dealloc(p, layout(now));
                let big = layout(large::LARGE + 1);
                let z = Allocator.alloc_zeroed(big);
                assert!(std::slice::from_raw_parts(z, big.size()).iter().all(|&b| b == 0));
                Allocator.dealloc(z, big);
            }
        }
    }

    /// The advice changes no value, in a large array, a small one, an empty one and one
    /// filled before.
    #[test]
    fn huge_page_advice_keeps_the_contents() {
        for n in [0usize, 1, 1000, 3 << 18, 5 << 20] {
            let mut fresh: Vec<u64> = vec![0; n];
            prefer_huge_pages(&mut fresh);
            fresh.iter_mut().enumerate().for_each(|(i, v)| *v = i as u64);
            assert!(fresh.iter().enumerate().all(|(i, &v)| v == i as u64));
            let mut filled: Vec<u32> = (0..n as u32).collect();
            prefer_huge_pages(&mut filled[n / 3..]);
            assert!(filled.iter().enumerate().all(|(i, &v)| v == i as u32));
        }
    }
}
