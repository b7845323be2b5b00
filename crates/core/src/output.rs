//! Writing output: one large block buffer, and an `--output` file that is replaced only when
//! the command succeeds (a temporary file beside it, renamed into place by [`Output::finish`]);
//! streams, descriptors, devices and pipes written where they are.

use std::fs::{self, File};
use std::io::{self, BufWriter, StdoutLock, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::closed_streams::{closed_stream_error, was_closed_at_start, Stream};
use crate::error::{Error, Result};
use crate::io::{grow_pipe, is_std_stream};
use crate::pending::{pending_files, Pending};

const WRITE_BUFFER: usize = 256 * 1024;

/// Whether `path` can only name a directory, as its spelling says: it ends in `/` or `/.`.
fn names_a_directory(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    bytes.ends_with(b"/") || bytes.ends_with(b"/.")
}

/// Where `path` leads when it is a symbolic link, or a chain of them, that ends at nothing:
/// the path at the end of the chain, which writing through the link creates. `None` when
/// `path` is no link. A chain longer than Linux follows (40 links, a loop among them) is an
/// error.
fn link_target(path: &Path) -> io::Result<Option<PathBuf>> {
    /// The links Linux follows in one path.
    const MAX_LINKS: usize = 40;
    let mut at = path.to_path_buf();
    for followed in 0..=MAX_LINKS {
        if !fs::symlink_metadata(&at).is_ok_and(|meta| meta.file_type().is_symlink()) {
            return Ok((followed > 0).then_some(at));
        }
        let target = fs::read_link(&at)?;
        // Relative to the link's directory; an absolute target replaces the whole path.
        at = match at.parent() {
            Some(dir) => dir.join(target),
            None => target,
        };
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Standard output, or a temporary file beside the target that replaces it on [`Output::finish`].
#[derive(Debug)]
pub struct Output {
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    Stdout(BufWriter<StdoutLock<'static>>),
    /// Standard error, a descriptor given for writing (a file, pipe, socket or terminal), a
    /// device or a named pipe: written where it is, with no file to replace.
    InPlace(BufWriter<File>),
    // `pending` is dropped after `writer`, which removes the temporary file of a failed run.
    File {
        writer: BufWriter<NamedTempFile>,
        target: PathBuf,
        pending: Pending,
    },
}

impl Output {
    /// Writes `file` where it is: a stream, device, pipe or descriptor, with nothing to replace.
    fn in_place(file: File) -> Output {
        Output { sink: Sink::InPlace(BufWriter::with_capacity(WRITE_BUFFER, file)) }
    }

    /// Standard output for `-` and for its other names (`/dev/stdout`, `/dev/fd/1`); standard
    /// error for its names (each an error when it was closed at start); a descriptor above 2
    /// given open for writing (`/dev/fd/3` of `3>>log`, see `descriptors.rs`) for its names,
    /// at its offset; a device, FIFO or socket (`/dev/null`, a named pipe) written in place;
    /// otherwise a temporary file in the directory of the target (of the file it points to,
    /// for a symbolic link, which stays a link; of the path it points to, for a link to
    /// nothing, whose target is made).
    pub fn create(path: &Path) -> Result<Output> {
        // `/dev/stdout`, `/dev/stderr` and their other names (`descriptors.rs`): the stream
        // is written, never the file behind it replaced.
        let descriptor = crate::descriptors::descriptor_named(path);
        if is_std_stream(path) || descriptor == Some(1) {
            if was_closed_at_start(Stream::Output) {
                return Err(Error::writing(closed_stream_error()));
            }
            grow_pipe(io::stdout());
            let writer = BufWriter::with_capacity(WRITE_BUFFER, io::stdout().lock());
            return Ok(Output { sink: Sink::Stdout(writer) });
        }
        let cannot =
            |e| Error::io(format!("cannot create output '{}'", path.display()), without_path(e));
        if descriptor == Some(2) {
            // As for standard output: a closed stream is an error, not the runtime's /dev/null.
            if was_closed_at_start(Stream::Error) {
                return Err(Error::writing(closed_stream_error()));
            }
            let file = crate::descriptors::standard_error().map_err(cannot)?;
            return Ok(Output::in_place(file));
        }
        // Another descriptor open for writing (`3>>log`): written at the offset it shares.
        let given = descriptor.map(crate::descriptors::writable_descriptor).transpose();
        if let Some(file) = given.map_err(cannot)?.flatten() {
            return Ok(Output::in_place(file));
        }
        let existing = fs::metadata(path).ok();
        match &existing {
            Some(meta) if meta.is_dir() => {
                return Err(cannot(io::Error::from(io::ErrorKind::IsADirectory)));
            }
            // Renaming a file over it would replace the device or pipe itself.
            Some(meta) if !meta.is_file() => {
                let file = fs::OpenOptions::new().write(true).open(path).map_err(cannot)?;
                return Ok(Output::in_place(file));
            }
            _ => {}
        }
        let resolved = match existing {
            Some(_) => fs::canonicalize(path).map_err(cannot)?,
            // A link to nothing yet: its target is made, as by the shell's `>`.
            None => link_target(path).map_err(cannot)?.unwrap_or_else(|| path.to_path_buf()),
        };
        let path = resolved.as_path();
        if names_a_directory(path) {
            // `new/` (or a link to it): no file can be made there, and the rename at the end
            // would fail after all the work.
            return Err(cannot(io::Error::from(io::ErrorKind::IsADirectory)));
        }
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let file_name = path.file_name().ok_or_else(|| {
            cannot(io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))
        })?;
        let (temp, pending) = Pending::create(|| {
            tempfile::Builder::new()
                .prefix(&format!(".{}.", file_name.to_string_lossy()))
                .suffix(".partial")
                .tempfile_in(dir)
        })
        .map_err(cannot)?;
        // A temporary file is private (0600); the finished output gets the permissions the old
        // file had, or those of an ordinary new file.
        let permissions = match fs::metadata(path) {
            Ok(meta) => meta.permissions(),
            Err(_) => default_permissions(),
        };
        fs::set_permissions(temp.path(), permissions).map_err(cannot)?;
        let writer = BufWriter::with_capacity(WRITE_BUFFER, temp);
        Ok(Output { sink: Sink::File { writer, target: path.to_path_buf(), pending } })
    }

    /// The regular file this output writes where it is, if any: standard output redirected to
    /// a file (`>> f`), a descriptor given open for writing on one (`/dev/fd/3` of `3>>f`). An
    /// output that replaces its file on success writes a new file, never one being read.
    fn in_place_file(&self) -> Option<fs::Metadata> {
        let meta = match &self.sink {
            Sink::Stdout(_) => std_file(io::stdout().as_fd())?,
            Sink::InPlace(writer) => writer.get_ref().metadata().ok()?,
            Sink::File { .. } => return None,
        };
        meta.is_file().then_some(meta)
    }

    /// An error when this output is written in place to the file that `input` names (`-`:
    /// standard input's) and that file holds something to read, as `cat f >> f` is one. A
    /// command that streams would read what it wrote, and the file would grow until the disk
    /// is full (`sh-tokenize < f >> f`), or overwrite what it has yet to read (`1<>f`); the
    /// commands that read all before writing are refused too, so that the rule is one for
    /// all. `output` names the output in the message. A file emptied by the shell (`< f > f`)
    /// has nothing to read, and `-o f` with `-i f` writes a new file: both pass.
    pub fn refuse_input_file(&self, input: &Path, output: &Path) -> Result<()> {
        self.refuse_files_read([("the input file", input)], output)
    }

    /// [`Output::refuse_input_file`] for each of the files the command reads, the first part
    /// of each saying what it is in the message (`the input file`, `the table of --df`, `a
    /// file of the index`). The output is looked at once, and the files only when it is
    /// written in place.
    pub fn refuse_files_read<'p>(
        &self,
        files: impl IntoIterator<Item = (&'p str, &'p Path)>,
        output: &Path,
    ) -> Result<()> {
        use std::os::unix::fs::MetadataExt;
        let Some(out) = self.in_place_file() else {
            return Ok(());
        };
        for (what, read) in files {
            let file = match is_std_stream(read) {
                true => std_file(io::stdin().as_fd()),
                false => fs::metadata(read).ok(),
            };
            if file.is_some_and(|f| f.dev() == out.dev() && f.ino() == out.ino() && f.len() > 0) {
                return Err(in_place_error(what, read, output));
            }
        }
        Ok(())
    }

    /// Flushes everything and, for a file, moves it over the target.
    pub fn finish(self) -> Result<()> {
        match self.sink {
            Sink::Stdout(mut writer) => writer.flush().map_err(Error::writing),
            Sink::InPlace(mut writer) => writer.flush().map_err(Error::writing),
            Sink::File { writer, target, pending } => {
                let temp = writer
                    .into_inner()
                    .map_err(|e| Error::writing(output_file_error(&target, e.into_error())))?;
                temp.as_file()
                    .sync_all()
                    .map_err(|e| Error::writing(output_file_error(&target, e)))?;
                // An interrupt now waits until the output is in place (or the rename failed and
                // the temporary file is gone).
                let files = pending_files();
                let persisted = temp.persist(&target);
                drop(files);
                drop(pending);
                persisted.map_err(|e| {
                    Error::io(format!("cannot replace '{}'", target.display()), e.error)
                })?;
                Ok(())
            }
        }
    }
}

/// The error of an output written in place to `read`, a file the command reads (`what`).
fn in_place_error(what: &str, read: &Path, output: &Path) -> Error {
    let output = match output == Path::new("-") {
        true => "standard output".to_string(),
        false => format!("'{}'", output.display()),
    };
    let read = crate::error::quoted_file_name(read);
    Error::io(
        format!("cannot write {output}"),
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "it is {what} ({read}); written as it is read, it would read the \
                 output again or lose the input"
            ),
        ),
    )
}

/// What the file behind a standard stream's descriptor is (through a copy of it).
pub(crate) fn std_file(fd: std::os::fd::BorrowedFd<'_>) -> Option<fs::Metadata> {
    File::from(fd.try_clone_to_owned().ok()?).metadata().ok()
}

/// A failed write to the temporary file of an `--output`, told as a failure to write the
/// output file itself: the temporary file is an inner detail, and it is gone by the time the
/// message is read.
#[derive(Debug)]
struct OutputFileError {
    target: PathBuf,
    source: io::Error,
}

impl std::fmt::Display for OutputFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}': {}", self.target.display(), self.source)
    }
}

impl std::error::Error for OutputFileError {}

/// Wraps an error from writing the temporary file of `target` (see [`OutputFileError`]).
fn output_file_error(target: &Path, error: io::Error) -> io::Error {
    let source = without_path(error);
    io::Error::new(source.kind(), OutputFileError { target: target.to_path_buf(), source })
}

/// tempfile's errors end in " at path …", naming the temporary file rather than the output.
fn without_path(error: io::Error) -> io::Error {
    let message = error.to_string();
    match message.split_once(" at path ") {
        Some((reason, _)) => io::Error::new(error.kind(), reason.to_string()),
        None => error,
    }
}

#[cfg(unix)]
fn default_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    fs::Permissions::from_mode(0o644)
}

#[cfg(not(unix))]
fn default_permissions() -> fs::Permissions {
    let mut permissions = fs::metadata(".").map(|m| m.permissions()).expect("cwd");
    permissions.set_readonly(false);
    permissions
}

impl Write for Output {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Stdout(w) => w.write(buf),
            Sink::InPlace(w) => w.write(buf),
            Sink::File { writer, target, .. } => {
                writer.write(buf).map_err(|e| output_file_error(target, e))
            }
        }
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::InPlace(w) => w.write_all(buf),
            Sink::File { writer, target, .. } => {
                writer.write_all(buf).map_err(|e| output_file_error(target, e))
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(w) => w.flush(),
            Sink::InPlace(w) => w.flush(),
            Sink::File { writer, target, .. } => {
                writer.flush().map_err(|e| output_file_error(target, e))
            }
        }
    }
}

/// The error for a failed write: an output file's own errors name the file (see
/// [`Error::writing`]).
pub(crate) fn writing_error(source: io::Error) -> Error {
    let file_error = source.get_ref().and_then(|inner| inner.downcast_ref::<OutputFileError>());
    if let Some(OutputFileError { target, source }) = file_error {
        let source = io::Error::new(source.kind(), source.to_string());
        return Error::io(format!("error writing '{}'", target.display()), source);
    }
    Error::io("error writing output", source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_file_replaces_target_only_on_finish() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        fs::write(&target, b"old").unwrap();
        {
            let mut out = Output::create(&target).unwrap();
            out.write_all(b"new").unwrap();
            // dropped without finish: a failed run
        }
        assert_eq!(fs::read(&target).unwrap(), b"old");
        let mut out = Output::create(&target).unwrap();
        out.write_all(b"new").unwrap();
        out.finish().unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
    }

    #[test]
    fn temporary_files_are_registered_for_removal_on_interrupt_until_done() {
        let dir = tempfile::tempdir().unwrap();
        let registered = |dir: &Path| pending_files().iter().any(|path| path.starts_with(dir));
        let failed = Output::create(&dir.path().join("failed")).unwrap();
        assert!(registered(dir.path()), "an unfinished output is removed on interrupt");
        drop(failed);
        assert!(!registered(dir.path()));
        let mut done = Output::create(&dir.path().join("done")).unwrap();
        done.write_all(b"x").unwrap();
        assert!(registered(dir.path()));
        done.finish().unwrap();
        assert!(!registered(dir.path()), "a finished output is the target itself");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_pipes_are_written_in_place_and_links_followed() {
        let dir = tempfile::tempdir().unwrap();
        // A named pipe stands for /dev/null and its like: renaming over it would replace it.
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || fs::read(fifo).unwrap()
        });
        let mut out = Output::create(&fifo).unwrap();
        out.write_all(b"through the pipe").unwrap();
        out.finish().unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(!fs::metadata(&fifo).unwrap().is_file(), "the pipe is still a pipe");

        let real = dir.path().join("real");
        fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("real", &link).unwrap();
        let mut out = Output::create(&link).unwrap();
        out.write_all(b"new").unwrap();
        out.finish().unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a link");
        assert_eq!(fs::read(&real).unwrap(), b"new");

        let err = Output::create(dir.path()).unwrap_err().to_string();
        assert!(err.starts_with("cannot create output '") && err.ends_with("': is a directory"));
    }

    #[test]
    fn output_into_missing_directory_is_an_error() {
        let err = Output::create(Path::new("/nonexistent-dir/x/out")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot create output '/nonexistent-dir/x/out': No such file or directory (os error 2)"
        );
    }
}
