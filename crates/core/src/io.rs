//! Reading records: one reused block buffer on the way in, lines handed out of it without a
//! copy. Writing is `output.rs`'s.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::closed_streams::{closed_stream_error, was_closed_at_start, Stream};
use crate::error::{Error, Result};

const READ_BUFFER: usize = 256 * 1024;

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
        // Standard input under another name (`/dev/stdin`, `/dev/fd/0`) closed at start: an
        // error as for `-`, not an empty read of the runtime's stand-in /dev/null.
        if was_closed_at_start(Stream::Input)
            && crate::descriptors::descriptor_named(path) == Some(0)
        {
            return Err(read_error(&name, closed_stream_error()));
        }
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

    /// The next bytes of the input, up to `want` of them, without taking them: what the next
    /// record starts with, seen before the records are read. Fewer where the input ends first,
    /// or from a stream once a line end is among them: a line typed at a terminal, or sent by a
    /// program that waits for its answer, is all there is to read until it is answered. A
    /// regular file not read yet is read at its position by another call and left where it
    /// was, so that [`RecordReader::take_file`] still hands it over whole.
    pub fn peek(&mut self, want: usize) -> Result<Vec<u8>> {
        if let (Some(file), 0, true, false) =
            (&self.file, self.line, self.start == self.end, self.at_eof)
        {
            use std::os::unix::fs::FileExt;
            let at =
                io::Seek::stream_position(&mut &*file).map_err(|e| read_error(&self.name, e))?;
            let mut bytes = vec![0; want];
            let mut got = 0;
            while got < want {
                match file.read_at(&mut bytes[got..], at + got as u64) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(read_error(&self.name, e)),
                }
            }
            bytes.truncate(got);
            return Ok(bytes);
        }
        while self.end - self.start < want
            && !self.at_eof
            && crate::record::find_byte(&self.data[self.start..self.end], b'\n').is_none()
        {
            self.refill()?;
        }
        let end = self.end.min(self.start + want);
        Ok(self.data[self.start..end].to_vec())
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
pub(crate) fn grow_pipe(stream: impl std::os::fd::AsFd) {
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
}
