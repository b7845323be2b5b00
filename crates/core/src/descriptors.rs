//! `-o /dev/stdout` and its like: names of a descriptor the command already has open. Such a
//! name leads, through links, to the file behind the descriptor, and writing a new file and
//! renaming it over that one (as `-o FILE` does) would replace the file that the shell opened:
//! `{ echo a; cmd -o /dev/stdout; echo b; } > f` would leave `f` holding `cmd`'s output alone,
//! and `b` written to a file no longer there. The output is written to the open descriptor
//! instead, as `-` writes to standard output: standard output and standard error, the streams
//! such names are used for. Standard input keeps the ordinary path (a file behind it is
//! replaced, as `-o FILE` replaces a file): it is read, so that `-o /dev/stdin` with the input
//! redirected from a file rewrites it as `-i f -o f` does.
//! A descriptor above the standard three (`/dev/fd/3` of `3>>log`) is written in place too, at
//! the offset it shares with the shell, when it is open for writing; one open for reading only
//! keeps the ordinary path.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsFd;
use std::path::Path;

use crate::number::canonical_u64;

/// The most links followed in search of a descriptor's name (the system's own limit is 40).
const MOST_LINKS: usize = 40;

/// The descriptor that `path` names, when it is one of the system's names for a descriptor of
/// this process (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, or a link that
/// leads to one of them); `None` for any other path, and when anything on the way cannot be
/// read (the ordinary path then reports it).
pub(crate) fn descriptor_named(path: &Path) -> Option<u32> {
    // This process's directory as this /proc names it (its PID there, not necessarily the
    // one the process has in its own namespace).
    let own = fs::canonicalize("/proc/self").ok()?;
    let mut path = path.to_path_buf();
    for _ in 0..MOST_LINKS {
        let name = path.file_name()?.to_owned();
        let parent = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        // The directory resolved: /dev/fd and /proc/self/fd both become /proc/PID/fd.
        let dir = fs::canonicalize(parent).ok()?;
        if is_descriptor_directory(&dir, &own) {
            // The system's names: decimal, without a sign or a leading zero.
            return u32::try_from(canonical_u64(name.as_encoded_bytes())?).ok();
        }
        if !fs::symlink_metadata(&path).ok()?.file_type().is_symlink() {
            return None;
        }
        // A relative target is taken from the link's directory; an absolute one replaces it.
        path = dir.join(fs::read_link(&path).ok()?);
    }
    None
}

/// Whether `dir` (resolved) is this process's or one of its threads' directory of descriptors:
/// `OWN/fd` or `OWN/task/TID/fd`, `own` being this process's directory in /proc.
fn is_descriptor_directory(dir: &Path, own: &Path) -> bool {
    let Ok(rest) = dir.strip_prefix(own) else {
        return false;
    };
    let parts: Vec<_> = rest.iter().collect();
    match parts.as_slice() {
        [fd] => *fd == "fd",
        [task, tid, fd] => {
            *task == "task" && tid.to_str().is_some_and(|t| t.parse::<u32>().is_ok()) && *fd == "fd"
        }
        _ => false,
    }
}

/// A writer on standard error's own descriptor, copied, for an output named by it: what is
/// written goes where the shell's other writes go, at their offset.
pub(crate) fn standard_error() -> io::Result<File> {
    io::stderr().as_fd().try_clone_to_owned().map(File::from)
}

/// A writer on descriptor `n` (above the standard three), copied, when the process has it open
/// for writing; `None` when it is open for reading only, or not open.
pub(crate) fn writable_descriptor(n: u32) -> Option<File> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let raw = i32::try_from(n).ok().filter(|&raw| raw > 2)?;
    // SAFETY: `BorrowedFd` asks that the descriptor stay open while it is borrowed. This one
    // was found open in /proc/self/fd by `descriptor_named` a moment before; the commands close
    // only descriptors they opened themselves, as owned handles, and none of those is closed
    // while an output is being created; the borrow ends with this function, and is used only
    // to read the descriptor's flags and copy it (a copy that fails, were it closed after
    // all, is an error of the system, not undefined behaviour).
    #[allow(unsafe_code)]
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(raw) };
    let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL).ok()?);
    let mode = flags & OFlag::O_ACCMODE;
    if mode != OFlag::O_WRONLY && mode != OFlag::O_RDWR {
        return None;
    }
    fd.try_clone_to_owned().ok().map(File::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor open for writing (or reading and writing) is copied, one open for reading
    /// only is not, nor the standard three (their own handles serve them); what the copy
    /// writes lands at the offset it shares with the original.
    #[test]
    fn only_descriptors_open_for_writing_are_copied() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut original = File::create(&path).unwrap();
        original.write_all(b"a").unwrap();
        let number = |f: &File| u32::try_from(f.as_raw_fd()).unwrap();
        let mut copy = writable_descriptor(number(&original)).expect("open for writing");
        copy.write_all(b"b").unwrap();
        original.write_all(b"c").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"abc");
        let both = fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        assert!(writable_descriptor(number(&both)).is_some());
        let reading = File::open(&path).unwrap();
        assert!(writable_descriptor(number(&reading)).is_none());
        for standard in 0..=2 {
            assert!(writable_descriptor(standard).is_none());
        }
    }

    #[test]
    fn the_names_of_descriptors_are_known_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("out");
        std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
        let relative = dir.path().join("relative");
        std::os::unix::fs::symlink("../../../../../../../../../../proc/self/fd/2", &relative)
            .unwrap();
        for (path, want) in [
            (Path::new("/dev/stdout"), Some(1)),
            (Path::new("/dev/stderr"), Some(2)),
            (Path::new("/dev/fd/1"), Some(1)),
            (Path::new("/proc/self/fd/2"), Some(2)),
            (Path::new("/proc/thread-self/fd/1"), Some(1)),
            (&link, Some(1)),
            (&relative, Some(2)),
            (Path::new("/dev/null"), None),
            (Path::new("/dev/fd/+1"), None),
            (Path::new("/dev/fd/01"), None),
            (Path::new("/dev/stdin"), Some(0)),
            (dir.path(), None),
            (&dir.path().join("missing"), None),
        ] {
            assert_eq!(descriptor_named(path), want, "{}", path.display());
        }
        let own = format!("/proc/{}/fd/1", std::process::id());
        assert_eq!(descriptor_named(Path::new(&own)), Some(1));
        let own = fs::canonicalize("/proc/self").unwrap();
        assert!(!is_descriptor_directory(Path::new("/proc/1/fd"), &own) || std::process::id() == 1);
        assert!(is_descriptor_directory(&fs::canonicalize("/proc/self/fd").unwrap(), &own));
        assert!(!is_descriptor_directory(Path::new("/proc"), &own));
    }

    /// A loop of links ends the search, with no descriptor found.
    #[test]
    fn a_loop_of_links_names_no_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("b", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        assert_eq!(descriptor_named(&dir.path().join("a")), None);
    }
}
