//! Large allocations in mappings of their own that start on a huge page. The system's allocator
//! maps a large block a page past wherever the system put it, so that a 2 MB page fits whole
//! inside an array of 4 or 8 MB only once or twice, and the rest of the array is touched 4 KB
//! at a time, a fault each (at 1M records sh-pairs took about 3,800 faults, 3,000 of them in
//! such edges; BENCHMARKS.md). Here a block of at least [`LARGE`] bytes gets a mapping of whole
//! huge pages that starts on one, all of it advised to be backed by huge pages (an advice: the
//! system may not have them), or, where free memory goes back to a host, by 4 KB pages
//! (`huge.rs`). The last huge page may hold less than 2 MB of the block: a block takes less
//! than 2 MB more address space, and memory, than it asks for. Blocks of a stricter alignment
//! than a page's, and every system but Linux, are left to the system's allocator.

use std::alloc::Layout;
use std::ffi::c_void;
use std::num::NonZeroUsize;
use std::ptr::NonNull;

use nix::sys::mman::{mmap_anonymous, mremap, munmap, MRemapFlags, MapFlags, ProtFlags};

use super::HUGE_PAGE;

/// Blocks of at least a huge page are mapped here; smaller ones stay with the system's
/// allocator, which reuses freed memory for them without fresh pages.
pub(super) const LARGE: usize = 2 << 20;

/// The alignment a mapping gives for nothing.
const PAGE: usize = 4096;

/// Whether a block of `size` bytes and `layout`'s alignment is one of this module's.
pub(super) fn is_large(size: usize, layout: Layout) -> bool {
    size >= LARGE && layout.align() <= PAGE
}

/// The length of the mapping of a block of `size` bytes: whole huge pages.
fn mapped_len(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(HUGE_PAGE)
}

/// A fresh block of `size` bytes (zeros, as every fresh mapping), starting on a huge page;
/// null when the system refuses it.
// SAFETY (for the unsafe blocks of `map`): each call maps fresh memory or unmaps a piece of
// the mapping just made, whose start and length are computed here; nothing else holds it.
#[allow(unsafe_code)]
pub(super) fn map(size: usize) -> *mut u8 {
    let Some(len) = mapped_len(size) else {
        return std::ptr::null_mut();
    };
    // A huge page more than needed, so that one of its huge page boundaries has the length
    // after it; the slack before and after is given back.
    let Some(total) = len.checked_add(HUGE_PAGE).and_then(NonZeroUsize::new) else {
        return std::ptr::null_mut();
    };
    let protection = ProtFlags::PROT_READ | ProtFlags::PROT_WRITE;
    let Ok(mapping) = (unsafe { mmap_anonymous(None, total, protection, MapFlags::MAP_PRIVATE) })
    else {
        return std::ptr::null_mut();
    };
    let at = mapping.as_ptr() as usize;
    let start = at.next_multiple_of(HUGE_PAGE);
    let before = start - at;
    let after = total.get() - before - len;
    unsafe {
        if before > 0 {
            let _ = munmap(mapping, before);
        }
        if let Some(tail) = NonNull::new((start + len) as *mut c_void) {
            if after > 0 {
                let _ = munmap(tail, after);
            }
        }
    }
    super::advise_huge_pages(start, len);
    start as *mut u8
}

/// Gives back a block of `size` bytes.
///
/// # Safety
///
/// `pointer` is a block made by [`map`] or [`remap`] with `size` bytes, not given back yet.
#[allow(unsafe_code)]
pub(super) unsafe fn unmap(pointer: *mut u8, size: usize) {
    if let (Some(at), Some(len)) = (NonNull::new(pointer.cast::<c_void>()), mapped_len(size)) {
        // SAFETY: the caller's promise: this module's mapping of `len` bytes at `at`.
        let _ = unsafe { munmap(at, len) };
    }
}

/// The block of `old` bytes at `pointer` grown or shrunk to `size` bytes, both large, its
/// contents kept; null when refused, the block then left as it was. It grows in place when
/// the address space after it is free, and otherwise its pages are moved (not copied) into a
/// fresh mapping that starts on a huge page, as [`map`]'s do.
///
/// # Safety
///
/// `pointer` is a block made by [`map`] or [`remap`] with `old` bytes, not given back yet;
/// on success the block is the one returned, of `size` bytes.
#[allow(unsafe_code)]
pub(super) unsafe fn remap(pointer: *mut u8, old: usize, size: usize) -> *mut u8 {
    let (Some(at), Some(old_len), Some(len)) =
        (NonNull::new(pointer.cast::<c_void>()), mapped_len(old), mapped_len(size))
    else {
        return std::ptr::null_mut();
    };
    if len == old_len {
        return pointer;
    }
    // SAFETY (both calls): `at` is this module's mapping of `old_len` bytes (the caller's
    // promise); the second replaces `fresh`, this module's too, of `len` bytes, and nothing
    // else holds either.
    if let Ok(same) = unsafe { mremap(at, old_len, len, MRemapFlags::empty(), None) } {
        return same.as_ptr().cast::<u8>(); // shrunk, or grown in place
    }
    let fresh = map(size);
    let Some(target) = NonNull::new(fresh.cast::<c_void>()) else {
        return std::ptr::null_mut();
    };
    let moving = MRemapFlags::MREMAP_MAYMOVE | MRemapFlags::MREMAP_FIXED;
    match unsafe { mremap(at, old_len, len, moving, Some(target)) } {
        // The pages keep their advice.
        Ok(moved) => moved.as_ptr().cast::<u8>(),
        Err(_) => {
            // SAFETY: `fresh` was just made by `map` with `size` bytes, and is still there.
            unsafe { unmap(fresh, size) };
            std::ptr::null_mut()
        }
    }
}

#[cfg(test)]
#[allow(unsafe_code)]
mod tests {
    use super::*;

    /// The first `len` bytes of a block made here.
    fn bytes<'a>(block: *mut u8, len: usize) -> &'a mut [u8] {
        assert!(!block.is_null());
        // SAFETY: the tests below ask only for bytes their block has.
        unsafe { std::slice::from_raw_parts_mut(block, len) }
    }

    fn fill(block: &mut [u8]) {
        block.iter_mut().enumerate().for_each(|(i, b)| *b = (i % 251) as u8);
    }

    fn filled(block: &[u8]) -> bool {
        block.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8)
    }

    /// Fresh blocks start on a huge page and hold zeros; grown, shrunk and grown again they
    /// keep what they held, wherever the system moves them.
    #[test]
    fn blocks_start_on_a_huge_page_and_keep_their_contents() {
        for size in [LARGE, LARGE + 1, LARGE + HUGE_PAGE - 1, 3 * LARGE + 12345] {
            let mut block = map(size);
            assert_eq!(block as usize % HUGE_PAGE, 0, "{size}");
            assert!(bytes(block, size).iter().all(|&b| b == 0));
            fill(bytes(block, size));
            let mut now = size;
            for next in [size + 1, 2 * size, size + HUGE_PAGE, LARGE, 5 * size] {
                // Another mapping made meanwhile, as a program's other blocks are.
                let neighbour = map(LARGE);
                // SAFETY: `block` is this module's, of `now` bytes.
                block = unsafe { remap(block, now, next) };
                // SAFETY: made just above with `LARGE` bytes.
                unsafe { unmap(neighbour, LARGE) };
                assert_eq!(block as usize % HUGE_PAGE, 0, "{now} -> {next}: on a huge page");
                assert!(filled(bytes(block, now.min(next))), "{now} -> {next}");
                fill(bytes(block, next));
                now = next;
            }
            let whole = now.next_multiple_of(HUGE_PAGE);
            // SAFETY: `block` is this module's, of `now` bytes, then of `whole`.
            unsafe {
                assert_eq!(remap(block, now, whole), block, "within its huge pages: in place");
                unmap(block, whole);
            }
        }
    }

    /// A block is advised as `huge.rs` finds worth it, as the kernel's list of the process's
    /// mappings shows (`hg` for huge pages asked for, `nh` for 4 KB pages).
    #[test]
    fn blocks_are_advised_as_the_machine_is_worth() {
        let block = map(LARGE);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        // The mapping that holds the block (which the kernel may have merged with a
        // neighbour): its first line is `START-END …` in hex.
        let holds = |line: &str| {
            let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
            let bounds = range.and_then(|(start, end)| {
                Some((usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?))
            });
            bounds.is_some_and(|(start, end)| (start..end).contains(&(block as usize)))
        };
        let mapping = smaps.lines().skip_while(|line| !holds(line));
        let flags = mapping.skip(1).find(|line| line.starts_with("VmFlags:")).unwrap().to_string();
        // SAFETY: made just above with `LARGE` bytes.
        unsafe { unmap(block, LARGE) };
        let flag = |name: &str| flags.split_whitespace().any(|f| f == name);
        let worth = super::super::huge::worth_asking();
        assert_eq!((flag("hg"), flag("nh")), (worth, !worth), "{flags}");
    }

    #[test]
    fn only_large_blocks_of_page_alignment_are_mapped_here() {
        let word = Layout::new::<u64>();
        assert!(!is_large(LARGE - 1, word));
        assert!(is_large(LARGE, word));
        assert!(!is_large(LARGE, Layout::from_size_align(8, 2 * PAGE).unwrap()));
    }
}
