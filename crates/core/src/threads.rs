//! Starting threads that the system may refuse. A system at its limit of threads or of memory
//! (`ulimit -u`, `ulimit -v`, a container's pids limit) refuses a new thread, and
//! `std::thread::Scope::spawn` then panics. Every command starts its threads here instead, and
//! does the work with fewer threads, or on the calling thread, when a thread is refused: the
//! output is the same, only slower, and a note on standard error (once) tells why.
//!
//! For tests, the environment variable `SH_TOOLS_REFUSE_THREADS_AFTER=N` makes the process
//! refuse every thread after its first N (0: every one), as such a system would.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::{Builder, Scope, ScopedJoinHandle};

/// The environment variable that makes threads refused, for tests.
pub const REFUSE_AFTER_VARIABLE: &str = "SH_TOOLS_REFUSE_THREADS_AFTER";

/// The number of threads to use when none is asked for (`-j`): all cores.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Work started on a thread of a scope, or done already on the calling thread.
#[derive(Debug)]
pub enum Task<'scope, T> {
    /// Running (or run) on its own thread.
    Started(ScopedJoinHandle<'scope, T>),
    /// Done here, since no thread could be started.
    Done(T),
}

impl<T> Task<'_, T> {
    /// The work's result; a panic of its thread goes on in the caller.
    pub fn join(self) -> T {
        match self {
            Task::Started(handle) => {
                handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
            Task::Done(result) => result,
        }
    }
}

/// Runs `work` on a new thread of `scope`, or at once on this one when no thread can be
/// started. Only for work that does not wait for something the caller does afterwards (run
/// here, such work would wait forever); [`spawn_with`] serves that.
pub fn spawn_or_run<'scope, T, F>(scope: &'scope Scope<'scope, '_>, work: F) -> Task<'scope, T>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    match spawn_with(scope, work, |work| work()) {
        Ok(handle) => Task::Started(handle),
        Err(work) => Task::Done(work()),
    }
}

/// Runs `work(input)` on a new thread of `scope`; when no thread can be started, gives `input`
/// back, so that the caller can do without the thread.
pub fn spawn_with<'scope, A, T, F>(
    scope: &'scope Scope<'scope, '_>,
    input: A,
    work: F,
) -> Result<ScopedJoinHandle<'scope, T>, A>
where
    A: Send + 'scope,
    T: Send + 'scope,
    F: FnOnce(A) -> T + Send + 'scope,
{
    if refused_for_tests() {
        note_refused(&io::Error::other(format!("{REFUSE_AFTER_VARIABLE} is set")));
        return Err(input);
    }
    start(Builder::new(), scope, input, work).map_err(|(input, why)| {
        note_refused(&why);
        input
    })
}

/// Tells, once, that a thread was refused.
fn note_refused(why: &io::Error) {
    static TOLD: AtomicBool = AtomicBool::new(false);
    if !TOLD.swap(true, Ordering::Relaxed) {
        crate::cli::note(format_args!(
            "the system refused a thread ({why}); the work goes on with fewer"
        ));
    }
}

/// [`spawn_with`] by `builder`, silent: a refusal gives back the input and the system's error.
fn start<'scope, A, T, F>(
    builder: Builder,
    scope: &'scope Scope<'scope, '_>,
    input: A,
    work: F,
) -> Result<ScopedJoinHandle<'scope, T>, (A, io::Error)>
where
    A: Send + 'scope,
    T: Send + 'scope,
    F: FnOnce(A) -> T + Send + 'scope,
{
    // The input waits in a slot that the thread empties; when the thread is not started, the
    // closure is dropped unrun and the input is still there to give back.
    let slot = Arc::new(Mutex::new(Some(input)));
    let theirs = Arc::clone(&slot);
    let started = builder.spawn_scoped(scope, move || {
        let input = theirs.lock().unwrap_or_else(PoisonError::into_inner).take();
        work(input.expect("a started thread finds its input"))
    });
    match started {
        Ok(handle) => Ok(handle),
        Err(why) => {
            let input = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
            Err((input.expect("a thread not started leaves its input"), why))
        }
    }
}

/// Whether [`REFUSE_AFTER_VARIABLE`] says to refuse this thread.
fn refused_for_tests() -> bool {
    static LIMIT: OnceLock<Option<usize>> = OnceLock::new();
    static STARTED: AtomicUsize = AtomicUsize::new(0);
    let limit = LIMIT.get_or_init(|| std::env::var(REFUSE_AFTER_VARIABLE).ok()?.parse().ok());
    match limit {
        Some(limit) => STARTED.fetch_add(1, Ordering::Relaxed) >= *limit,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_a_thread_when_one_starts() {
        let here = std::thread::current().id();
        let (ran_on, value) = std::thread::scope(|scope| {
            spawn_or_run(scope, || (std::thread::current().id(), 7)).join()
        });
        assert_eq!(value, 7);
        // Unless the variable refuses threads to this test's process.
        if std::env::var_os(REFUSE_AFTER_VARIABLE).is_none() {
            assert_ne!(ran_on, here);
        }
    }

    /// A thread the system refuses (here: one with a stack larger than the address space)
    /// gives its input back, its work not done.
    #[test]
    fn a_refused_thread_gives_its_input_back() {
        let mut numbers = vec![1, 2, 3];
        let left = std::thread::scope(|scope| {
            let too_large = Builder::new().stack_size(1 << 50);
            match start(too_large, scope, &mut numbers, |numbers| numbers.push(4)) {
                Ok(_) => None,
                Err((numbers, _)) => {
                    numbers.push(5);
                    Some(numbers.len())
                }
            }
        });
        assert_eq!(left, Some(4), "refused");
        assert_eq!(numbers, [1, 2, 3, 5], "the work was not done, and the input came back");
        let started = std::thread::scope(|scope| {
            start(Builder::new(), scope, &mut numbers, |numbers| numbers.push(6)).is_ok()
        });
        assert!(started && numbers == [1, 2, 3, 5, 6]);
    }
}
