//! Reading records and writing output: one reused line buffer on the way in, one large block
//! buffer on the way out, and an `--output` file that is replaced only when the command succeeds.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Read, StdoutLock, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::{Error, Result};

const READ_BUFFER: usize = 256 * 1024;
const WRITE_BUFFER: usize = 256 * 1024;

/// The path that means standard input or standard output.
pub fn is_std_stream(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads LF-terminated records through one reused buffer, dropping the LF and one CR before it.
/// A last line without LF is a record too.
pub struct RecordReader {
    source: Box<dyn BufRead>,
    name: String,
    buf: Vec<u8>,
    line: u64,
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
            return Ok(RecordReader::new(io::stdin(), "standard input".into()));
        }
        let name = format!("'{}'", path.display());
        match File::open(path) {
            Ok(file) => Ok(RecordReader::new(file, name)),
            Err(e) => Err(Error::io(format!("cannot open {name}"), e)),
        }
    }

    /// Reads records from any byte source; `name` appears in read errors.
    pub fn new(source: impl Read + 'static, name: String) -> RecordReader {
        let source = Box::new(BufReader::with_capacity(READ_BUFFER, source));
        RecordReader { source, name, buf: Vec::new(), line: 0 }
    }

    /// The next record without its line ending, or `None` at the end of input.
    pub fn next_record(&mut self) -> Result<Option<&[u8]>> {
        self.buf.clear();
        match self.source.read_until(b'\n', &mut self.buf) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(e) => return Err(Error::io(format!("error reading {}", self.name), e)),
        }
        self.line += 1;
        let mut record = &self.buf[..];
        if let Some(rest) = record.strip_suffix(b"\n") {
            record = rest.strip_suffix(b"\r").unwrap_or(rest);
        }
        Ok(Some(record))
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
}

/// Standard output, or a temporary file beside the target that replaces it on [`Output::finish`].
#[derive(Debug)]
pub struct Output {
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    Stdout(BufWriter<StdoutLock<'static>>),
    File { writer: BufWriter<NamedTempFile>, target: PathBuf },
}

impl Output {
    /// Standard output for `-`; otherwise a temporary file in the target's directory.
    pub fn create(path: &Path) -> Result<Output> {
        if is_std_stream(path) {
            let writer = BufWriter::with_capacity(WRITE_BUFFER, io::stdout().lock());
            return Ok(Output { sink: Sink::Stdout(writer) });
        }
        let cannot =
            |e| Error::io(format!("cannot create output '{}'", path.display()), without_path(e));
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let file_name = path.file_name().ok_or_else(|| {
            cannot(io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))
        })?;
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{}.", file_name.to_string_lossy()))
            .suffix(".partial")
            .tempfile_in(dir)
            .map_err(cannot)?;
        // A temporary file is private (0600); the finished output gets the permissions the old
        // file had, or those of an ordinary new file.
        let permissions = match fs::metadata(path) {
            Ok(meta) => meta.permissions(),
            Err(_) => default_permissions(),
        };
        fs::set_permissions(temp.path(), permissions).map_err(cannot)?;
        let writer = BufWriter::with_capacity(WRITE_BUFFER, temp);
        Ok(Output { sink: Sink::File { writer, target: path.to_path_buf() } })
    }

    /// Flushes everything and, for a file, moves it over the target.
    pub fn finish(self) -> Result<()> {
        match self.sink {
            Sink::Stdout(mut writer) => writer.flush().map_err(Error::from),
            Sink::File { writer, target } => {
                let temp = writer.into_inner().map_err(|e| Error::from(e.into_error()))?;
                temp.as_file().sync_all().map_err(Error::from)?;
                temp.persist(&target).map_err(|e| {
                    Error::io(format!("cannot replace '{}'", target.display()), e.error)
                })?;
                Ok(())
            }
        }
    }
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
            Sink::File { writer, .. } => writer.write(buf),
        }
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::File { writer, .. } => writer.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(w) => w.flush(),
            Sink::File { writer, .. } => writer.flush(),
        }
    }
}

/// Raw I/O errors in a command's own code come from writing its output.
impl From<io::Error> for Error {
    fn from(source: io::Error) -> Error {
        Error::io("error writing output", source)
    }
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
    fn output_into_missing_directory_is_an_error() {
        let err = Output::create(Path::new("/nonexistent-dir/x/out")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot create output '/nonexistent-dir/x/out': No such file or directory (os error 2)"
        );
    }
}
