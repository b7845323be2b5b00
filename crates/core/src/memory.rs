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
// `unsafe impl` by nature. Each method hands the call to the system's allocator as it is and
// only looks at the pointer that comes back.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promises about `layout` are passed on unchanged.
        let pointer = unsafe { System.alloc(layout) };
        if pointer.is_null() {
            refused(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if pointer.is_null() {
            refused(layout.size());
        }
        pointer
    }

    unsafe fn realloc(&self, old: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // SAFETY: `old` was allocated by this allocator, that is by `System`, with `layout`.
        let pointer = unsafe { System.realloc(old, layout, size) };
        if pointer.is_null() {
            refused(size);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: `pointer` was allocated by this allocator, that is by `System`, with `layout`.
        unsafe { System.dealloc(pointer, layout) }
    }
}

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
}
