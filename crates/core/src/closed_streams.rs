//! Standard streams that were closed when the command started (`cmd >&-`, `cmd <&-`).
//!
//! The Rust runtime opens /dev/null in place of a closed standard stream before `main` runs,
//! so a closed output would swallow everything and a closed input would read as empty, with
//! exit status 0. Nothing in the process can tell that /dev/null from one the caller gave
//! (`> /dev/null`, Python's `subprocess.DEVNULL`) afterwards, so the state is recorded before
//! the runtime starts, by a function in the executable's `.init_array`, which the C runtime
//! calls before `main`. Where that is not available, no stream counts as closed.

use std::sync::atomic::{AtomicU8, Ordering};

/// A standard stream the commands use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard input, file descriptor 0.
    Input,
    /// Standard output, file descriptor 1.
    Output,
    /// Standard error, file descriptor 2: closed, only `-o /dev/stderr` (and its other names)
    /// needs to know, the messages having nowhere to go.
    Error,
}

impl Stream {
    fn bit(self) -> u8 {
        match self {
            Stream::Input => 1,
            Stream::Output => 2,
            Stream::Error => 4,
        }
    }
}

/// The bits of the streams found closed at start.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// True when `stream` was closed when the process started.
pub fn was_closed_at_start(stream: Stream) -> bool {
    CLOSED_AT_START.load(Ordering::Relaxed) & stream.bit() != 0
}

/// The error a closed stream gives, as from the system: EBADF, "Bad file descriptor".
pub fn closed_stream_error() -> std::io::Error {
    std::io::Error::from_raw_os_error(nix::libc::EBADF)
}

// The one exception to the workspace's rule against unsafe code: placing a function pointer in
// `.init_array` is `#[link_section]`, which the compiler counts as unsafe because the linker
// trusts whatever it is given there. The function it names is ordinary safe code.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[allow(unsafe_code)]
#[used]
#[link_section = ".init_array"]
static RECORD_AT_START: extern "C" fn() = record_closed_streams;

#[cfg(any(target_os = "linux", target_os = "android"))]
extern "C" fn record_closed_streams() {
    use nix::fcntl::{fcntl, FcntlArg};
    use std::os::fd::AsFd;
    let is_closed = |fd: std::os::fd::BorrowedFd<'_>| {
        fcntl(fd, FcntlArg::F_GETFD) == Err(nix::errno::Errno::EBADF)
    };
    let mut closed = 0;
    if is_closed(std::io::stdin().as_fd()) {
        closed |= Stream::Input.bit();
    }
    if is_closed(std::io::stdout().as_fd()) {
        closed |= Stream::Output.bit();
    }
    if is_closed(std::io::stderr().as_fd()) {
        closed |= Stream::Error.bit();
    }
    CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_runner_starts_with_its_streams_open() {
        assert!(!was_closed_at_start(Stream::Input));
        assert!(!was_closed_at_start(Stream::Output));
        assert!(!was_closed_at_start(Stream::Error));
        assert_eq!(closed_stream_error().raw_os_error(), Some(nix::libc::EBADF));
    }
}
