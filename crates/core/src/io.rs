//! Reading records and writing output: one reused line buffer on the way in, one large block
//! buffer on the way out, and an `--output` file that is replaced only when the command succeeds.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, StdoutLock, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::closed_streams::{closed_stream_error, was_closed_at_start, Stream};
use crate::error::{Error, Result};
use crate::pending::{pending_files, Pending};

const READ_BUFFER: usize = 256 * 1024;
const WRITE_BUFFER: usize = 256 * 1024;

/// A stage that builds an output line in a buffer writes it out once it holds this many bytes,
/// and goes on: a line of any length then needs no more than this beside its input, while an
/// ordinary line is still written whole, after all of it was checked.
pub const LINE_PIECE: usize = 1 << 20;

/// The path that means standard input or standard output.
pub fn is_std_stream(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads LF-terminated records, dropping the LF and one CR before it; a last line without LF
/// is a record too. Records are handed out from one block buffer without a copy; a line that
/// straddles a refill is moved to the front first, and a line longer than the buffer grows it.
pub struct RecordReader {
    source: Box<dyn Read>,
    name: String,
    /// `data[start..end]` is read and not yet handed out.
    data: Vec<u8>,
    start: usize,
    end: usize,
    at_eof: bool,
    line: u64,
    /// The source again, when it is a regular file: for a reader that reads blocks of it at
    /// their positions, on threads ([`RecordReader::take_file`]).
    file: Option<File>,
}

impl std::fmt::Debug for RecordReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordReader").field("name", &self.name).field("line", &self.line).finish()
    }
}

impl RecordReader {
    /// Opens a file, or standard input for `-`.
    pub fn open(path: &Path) -> Result<RecordReader> {
        if is_std_stream(path) {
            let name = "standard input".to_string();
            if was_closed_at_start(Stream::Input) {
                return Err(read_error(&name, closed_stream_error()));
            }
            grow_pipe(io::stdin());
            let file = regular_file(io::stdin());
            return Ok(RecordReader { file, ..RecordReader::new(io::stdin(), name) });
        }
        let name = format!("'{}'", path.display());
        match File::open(path) {
            Ok(source) => {
                let file = regular_file(&source);
                Ok(RecordReader { file, ..RecordReader::new(source, name) })
            }
            Err(e) => Err(Error::io(format!("cannot open {name}"), e)),
        }
    }

    /// The source as a regular file and the position the reader stands at, when the source is
    /// one and this reader has read nothing of it; the reader is then at its end (it reads no
    /// more), and the caller reads the file from that position on.
    pub fn take_file(&mut self) -> Option<(File, u64)> {
        if self.line != 0 || self.start != self.end || self.at_eof {
            return None;
        }
        let mut file = self.file.take()?;
        let at = io::Seek::stream_position(&mut file).ok()?;
        self.at_eof = true;
        Some((file, at))
    }

    /// What read errors call the source.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads records from any byte source; `name` appears in read errors.
    pub fn new(source: impl Read + 'static, name: String) -> RecordReader {
        RecordReader {
            source: Box::new(source),
            name,
            data: vec![0; READ_BUFFER],
            start: 0,
            end: 0,
            at_eof: false,
            line: 0,
            file: None,
        }
    }

    /// The next record without its line ending, or `None` at the end of input.
    pub fn next_record(&mut self) -> Result<Option<&[u8]>> {
        // Where the search for the LF goes on: the bytes before it hold none.
        let mut searched = self.start;
        loop {
            if let Some(at) = crate::record::find_byte(&self.data[searched..self.end], b'\n') {
                let (first, lf) = (self.start, searched + at);
                self.start = lf + 1;
                self.line += 1;
                return Ok(Some(strip_cr(&self.data[first..lf])));
            }
            if self.at_eof {
                if self.start == self.end {
                    return Ok(None);
                }
                // A last line without LF keeps a final CR: it ends no line.
                let first = std::mem::replace(&mut self.start, self.end);
                self.line += 1;
                return Ok(Some(&self.data[first..self.end]));
            }
            searched = self.end - self.start;
            self.refill()?;
        }
    }

    /// Moves the unread bytes to the front, grows the buffer when they fill it, and reads.
    fn refill(&mut self) -> Result<()> {
        self.data.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.data.len() {
            self.data.resize(self.data.len() * 2, 0);
        }
        loop {
            match self.source.read(&mut self.data[self.end..]) {
                Ok(0) => self.at_eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error(&self.name, e)),
            }
            return Ok(());
        }
    }

    /// The next block of whole lines, about `size` bytes or more, into `block` (cleared first),
    /// its line endings kept: every line of it ends with LF but perhaps the last line of the
    /// input. `false` at the end of input. A line longer than `size` makes a longer block. For
    /// readers that parse blocks on threads ([`block_lines`] splits one); [`RecordReader::line`]
    /// counts no line of a block.
    pub fn next_block(&mut self, size: usize, block: &mut Vec<u8>) -> Result<bool> {
        block.clear();
        block.extend_from_slice(&self.data[self.start..self.end]);
        (self.start, self.end) = (0, 0);
        // Where the search for the last LF goes on: the bytes before it were searched.
        let mut searched = 0;
        loop {
            if self.at_eof {
                return Ok(!block.is_empty());
            }
            if block.len() >= size {
                if let Some(at) = memchr::memrchr(b'\n', &block[searched..]) {
                    let rest = &block[searched + at + 1..];
                    if self.data.len() < rest.len() {
                        self.data.resize(rest.len(), 0);
                    }
                    self.data[..rest.len()].copy_from_slice(rest);
                    self.end = rest.len();
                    block.truncate(searched + at + 1);
                    return Ok(true);
                }
                searched = block.len();
            }
            let filled = block.len();
            block.resize(filled + (size - filled.min(size)).max(READ_BUFFER), 0);
            loop {
                match self.source.read(&mut block[filled..]) {
                    Ok(0) => self.at_eof = true,
                    Ok(n) => block.truncate(filled + n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(read_error(&self.name, e)),
                }
                break;
            }
            if self.at_eof {
                block.truncate(filled);
            }
        }
    }

    /// The next record with its 1-based line number, for loops that report errors by line.
    pub fn next_numbered(&mut self) -> Result<Option<(u64, &[u8])>> {
        let line = self.line + 1;
        Ok(self.next_record()?.map(|record| (line, record)))
    }

    /// The 1-based line number of the record last returned.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Whether the next record needs a read of the source, which may wait (a pipe with nothing
    /// in it yet): no whole line is buffered and the end was not seen. A command answering
    /// line by line flushes its output then, so that the other end of the pipe gets its answer.
    pub fn needs_read(&self) -> bool {
        !self.at_eof && crate::record::find_byte(&self.data[self.start..self.end], b'\n').is_none()
    }
}

/// Pipes between stages carry the bulk of the data: the kernel's default of 64 KB made a
/// writer of 256 KB blocks wait four times per block, and four stages on two cores switched
/// constantly. Where the stream is a pipe smaller than 1 MB (Linux's limit for unprivileged
/// processes) it is grown to that; a larger pipe is left alone, and where growing fails, or on
/// other systems, nothing changes.
fn grow_pipe(stream: impl std::os::fd::AsFd) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use nix::fcntl::{fcntl, FcntlArg};
        /// Bytes a pipe between stages may hold.
        const PIPE_SIZE: nix::libc::c_int = 1 << 20;
        let fd = stream.as_fd();
        let is_pipe = nix::sys::stat::fstat(fd)
            .is_ok_and(|st| st.st_mode & nix::libc::S_IFMT == nix::libc::S_IFIFO);
        if is_pipe && fcntl(fd, FcntlArg::F_GETPIPE_SZ).is_ok_and(|size| size < PIPE_SIZE) {
            let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(PIPE_SIZE));
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = stream;
}

/// Another handle on `stream` when it is a regular file (standard input redirected from one
/// included); `None` for pipes, terminals and anything that fails.
fn regular_file(stream: impl std::os::fd::AsFd) -> Option<File> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    // A file opened for writing only (`0>>file`) is read through the stream, whose read
    // error the runtime takes for the end of the input, as it always was.
    let flags = OFlag::from_bits_truncate(fcntl(stream.as_fd(), FcntlArg::F_GETFL).ok()?);
    if flags & OFlag::O_ACCMODE == OFlag::O_WRONLY {
        return None;
    }
    let file = File::from(stream.as_fd().try_clone_to_owned().ok()?);
    file.metadata().ok()?.is_file().then_some(file)
}

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

pub(crate) fn read_error(name: &str, e: io::Error) -> Error {
    Error::io(format!("error reading {name}"), e)
}

/// A record without the CR of its CRLF ending.
/// The records of a block of [`RecordReader::next_block`], by the reader's rule: LF ends a
/// line and one CR before it is dropped; a last line without LF is a record too (its CR kept).
pub fn block_lines(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = block;
    std::iter::from_fn(move || {
        let (line, after) = next_line(rest)?;
        rest = after;
        Some(line)
    })
}

/// The first line of `text` by the rule of [`block_lines`] and the text after it; `None`
/// when `text` is empty.
#[inline]
pub fn next_line(text: &[u8]) -> Option<(&[u8], &[u8])> {
    if text.is_empty() {
        return None;
    }
    Some(match crate::record::find_byte(text, b'\n') {
        Some(at) => (strip_cr(&text[..at]), &text[at + 1..]),
        None => (text, &[]),
    })
}

fn strip_cr(record: &[u8]) -> &[u8] {
    record.strip_suffix(b"\r").unwrap_or(record)
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

    fn records(input: &'static [u8]) -> Vec<Vec<u8>> {
        let mut reader = RecordReader::new(input, "test".into());
        let mut out = Vec::new();
        while let Some(record) = reader.next_record().unwrap() {
            out.push(record.to_vec());
        }
        assert_eq!(reader.line(), out.len() as u64);
        out
    }

    /// Lines longer than the read buffer, and lines that straddle a refill.
    #[test]
    fn lines_across_buffer_boundaries() {
        let long = "x".repeat(READ_BUFFER * 2 + 17);
        let text: String =
            (0..2000).map(|i| format!("{i}\r\n")).collect::<String>() + &long + "\nend";
        let text: &'static str = Box::leak(text.into_boxed_str());
        let got = records(text.as_bytes());
        assert_eq!(got.len(), 2002);
        assert_eq!(got[1999], b"1999");
        assert_eq!(got[2000], long.as_bytes());
        assert_eq!(got[2001], b"end");
    }

    #[test]
    fn line_endings() {
        assert_eq!(records(b""), Vec::<Vec<u8>>::new());
        assert_eq!(records(b"a\nb"), [b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(records(b"a\r\n\r\n"), [b"a".to_vec(), b"".to_vec()]);
        assert_eq!(records(b"a\r\r\n"), [b"a\r".to_vec()]);
        assert_eq!(records(b"\n\n"), [b"".to_vec(), b"".to_vec()]);
        assert_eq!(records(b"x\r"), [b"x\r".to_vec()]);
    }

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
