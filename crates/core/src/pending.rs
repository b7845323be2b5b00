//! The temporary files of `--output`s not yet in place, and their removal when a signal ends
//! the run: an interrupted command leaves neither a changed target nor a stray temporary file.

use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use tempfile::NamedTempFile;

/// The temporary files of outputs not yet moved over their targets. A signal that ends the run
/// (SIGINT from Ctrl-C, SIGTERM from kill or a job scheduler, SIGHUP from a closed terminal)
/// removes them and exits with status 128 + the signal's number, so that a run ended early
/// leaves neither a changed target nor a stray `.NAME.XXXX.partial` file; without a handler the
/// process would die at once and the temporary file would stay.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

pub(crate) fn pending_files() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes the temporary files of the outputs not yet in place, for a run that ends at once
/// (memory refused). The list is held by another thread for a moment at most, but it may be
/// held by this one (memory refused while adding to it): after 200 ms of waiting, better a
/// stray temporary file than a run that never ends.
pub(crate) fn remove_unfinished_outputs() {
    for _ in 0..200 {
        match PENDING.try_lock() {
            Ok(files) => return remove_all(&files),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                return remove_all(&poisoned.into_inner())
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
        }
    }
}

fn remove_all(files: &[PathBuf]) {
    for path in files {
        let _ = fs::remove_file(path);
    }
}

/// The signals that end a run with its temporary files removed.
const ENDING_SIGNALS: [i32; 3] =
    [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP];

/// Starts a thread that, on any of [`ENDING_SIGNALS`], removes the pending temporary files and
/// exits. A signal the process was started with ignored stays ignored (`nohup` ignores SIGHUP,
/// a script's `&` SIGINT): whoever started it chose that the run goes on.
fn handle_ending_signals() {
    let ignored = ignored_signals();
    let wanted: Vec<i32> = ENDING_SIGNALS.into_iter().filter(|s| !ignored.contains(s)).collect();
    // Fails only when signals cannot be registered at all; then they end the run as before,
    // leaving the temporary file.
    let Ok(mut signals) = signal_hook::iterator::Signals::new(wanted) else { return };
    let _ = std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Held until the exit: a finishing output is either in place or removed.
            let files = pending_files();
            remove_all(&files);
            std::process::exit(128 + signal);
        }
    });
}

/// The signals this process ignores (Linux: the SigIgn mask of /proc/self/status; elsewhere
/// none are known).
fn ignored_signals() -> Vec<i32> {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mask = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0);
    (1..=64).filter(|signal| mask >> (signal - 1) & 1 == 1).collect()
}

/// A temporary output file registered for removal on a signal, for as long as this lives.
#[derive(Debug)]
pub(crate) struct Pending(PathBuf);

impl Pending {
    /// Creates a temporary file with `create` and registers it. The handler is in place first,
    /// and the file is created and registered under the lock the handler takes, so a signal at
    /// any moment finds every temporary file that exists.
    pub(crate) fn create(
        create: impl FnOnce() -> io::Result<NamedTempFile>,
    ) -> io::Result<(NamedTempFile, Pending)> {
        static HANDLER: Once = Once::new();
        HANDLER.call_once(handle_ending_signals);
        let mut files = pending_files();
        let temp = create()?;
        files.push(temp.path().to_path_buf());
        let pending = Pending(temp.path().to_path_buf());
        Ok((temp, pending))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut files = pending_files();
        if let Some(at) = files.iter().position(|path| *path == self.0) {
            files.swap_remove(at);
        }
    }
}
