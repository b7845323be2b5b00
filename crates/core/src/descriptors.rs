//! `-o /dev/stdout` and its like: names of a descriptor the command already has open. Such a
//! name leads, through links, to the file behind the descriptor, and writing a new file and
//! renaming it over that one (as `-o FILE` does) would replace the file that the shell opened:
//! `{ echo a; cmd -o /dev/stdout; echo b; } > f` would leave `f` holding `cmd`'s output alone,
//! and `b` written to a file no longer there. The output is written to the open descriptor
//! instead, as `-` writes to standard output: standard output and standard error, the streams
//! such names are used for. Standard input keeps the ordinary path (a file behind it is
//! replaced, as `-o FILE` replaces a file): it is read, so that `-o /dev/stdin` with the input
//! redirected from a file rewrites it as `-i f -o f` does.
//! A descriptor above the standard three that the command was given open for writing
//! (`/dev/fd/3` of `3>>log`) is written in place too, at the offset it shares with the shell;
//! any other keeps the ordinary path: one open for reading only, a regular file open for
//! reading and writing (`3<>f`, as likely the input as the output), and the command's own.

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

/// A writer on descriptor `n` (above the standard three), copied, when the command was
/// given it open for writing: inherited (without close-on-exec, which every descriptor the
/// command opens itself has), and either write-only or, for a pipe, socket or terminal, open
/// for reading and writing. `Ok(None)` for any other (not open, the command's own, read-only,
/// a regular file open for reading and writing: as likely the input as the output, so
/// replaced as `-i f -o f` replaces it); an error when such a descriptor cannot be copied.
pub(crate) fn writable_descriptor(n: u32) -> io::Result<Option<File>> {
    use nix::fcntl::{fcntl, FcntlArg, FdFlag, OFlag};
    let Some(raw) = i32::try_from(n).ok().filter(|&raw| raw > 2) else { return Ok(None) };
    let link = format!("/proc/self/fd/{n}");
    let Ok(target) = fs::metadata(&link) else { return Ok(None) };
    // SAFETY: `BorrowedFd` asks that the descriptor stay open while it is borrowed. It is
    // open (its entry in /proc/self/fd was just read); no thread of the command closes a
    // descriptor while an output is being created, and the command closes only the ones it
    // opened itself, as owned handles, all close-on-exec, which are turned away below before
    // anything else is done with them. The borrow ends with this function and serves only to
    // read the descriptor's flags and copy it.
    #[allow(unsafe_code)]
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(raw) };
    let (Ok(fd_flags), Ok(status)) = (fcntl(fd, FcntlArg::F_GETFD), fcntl(fd, FcntlArg::F_GETFL))
    else {
        return Ok(None);
    };
    if FdFlag::from_bits_truncate(fd_flags).contains(FdFlag::FD_CLOEXEC) {
        return Ok(None);
    }
    let mode = OFlag::from_bits_truncate(status) & OFlag::O_ACCMODE;
    let written = mode == OFlag::O_WRONLY || (mode == OFlag::O_RDWR && !target.is_file());
    if !written {
        return Ok(None);
    }
    fd.try_clone_to_owned().map(|copy| Some(File::from(copy)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor given open for writing is copied, and what the copy writes lands at the
    /// offset it shares with the original; a regular file open for reading and writing, one
    /// open for reading only, one the command opened itself (close-on-exec) and the standard
    /// three (their own handles serve them) are not.
    #[test]
    fn only_descriptors_given_open_for_writing_are_copied() {
        use nix::fcntl::{fcntl, FcntlArg, FdFlag};
        use std::io::Write;
        use std::os::fd::AsRawFd;
        let inherited = |f: &File| {
            fcntl(f, FcntlArg::F_SETFD(FdFlag::empty())).unwrap();
            u32::try_from(f.as_raw_fd()).unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut original = File::create(&path).unwrap();
        let own = u32::try_from(original.as_raw_fd()).unwrap();
        assert!(writable_descriptor(own).unwrap().is_none(), "the command's own");
        original.write_all(b"a").unwrap();
        let mut copy = writable_descriptor(inherited(&original)).unwrap().expect("given");
        copy.write_all(b"b").unwrap();
        original.write_all(b"c").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"abc");
        let both = fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        assert!(writable_descriptor(inherited(&both)).unwrap().is_none(), "read-write file");
        let reading = File::open(&path).unwrap();
        assert!(writable_descriptor(inherited(&reading)).unwrap().is_none(), "read-only");
        let (_reader, writer) = std::io::pipe().unwrap();
        let writer = File::from(std::os::fd::OwnedFd::from(writer));
        assert!(writable_descriptor(inherited(&writer)).unwrap().is_some(), "a pipe");
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
