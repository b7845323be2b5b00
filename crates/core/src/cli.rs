//! The flags every command has and the thin `main` they share.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::closed_streams::{closed_stream_error, was_closed_at_start, Stream};
use crate::error::{Error, Result};
use crate::io::RecordReader;
use crate::output::Output;

/// The hidden `--chunk-bytes` of the commands that work on `-j` threads through
/// [`crate::in_order`]: the size of their chunks of lines, for tests of the ordering.
#[derive(Debug, Clone, clap::Args)]
pub struct ChunkArgs {
    /// Bytes of input per chunk of lines handed to a thread (for tests of the ordering)
    #[arg(long, value_name = "BYTES", default_value_t = crate::in_order::CHUNK_BYTES,
          value_parser = clap::value_parser!(u32).range(1..), hide = true)]
    pub chunk_bytes: u32,
}

impl ChunkArgs {
    /// The work spread over `threads` threads in chunks of this size.
    pub fn spread(&self, threads: usize) -> crate::in_order::Spread {
        crate::in_order::Spread { threads, chunk_bytes: self.chunk_bytes as usize }
    }
}

/// `-i/--input` and `-o/--output`, common to all commands.
#[derive(Debug, Clone, clap::Args)]
pub struct IoArgs {
    /// Read from FILE ('-' is standard input)
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub input: PathBuf,

    /// Write to FILE ('-' is standard output); a file is replaced only on success, a stream, pipe
    /// or device written as the output goes
    ///
    /// A file is written as a temporary file beside it, which takes its place only when the
    /// command succeeds: a failed run leaves the file as it was. Written in place instead, as the
    /// output goes, and keeping what a failed run wrote before the fault: standard output and
    /// standard error under any of their names (/dev/stdout, /dev/fd/2), a descriptor given open
    /// for writing only (/dev/fd/3 of 3>log or 3>>log) or open on a pipe, socket or terminal, a
    /// device and a named pipe. A descriptor open for reading and writing on a file (3<>f) names
    /// the file, which is replaced. Output written in place to the file being read (< f >> f,
    /// -i f -o /dev/fd/3 3>>f, < f 1<>f), or to another file the command reads (a table, a
    /// corpus, the gold pairs, an index's files), is an error before anything is written, as
    /// cat makes it: a command that streams would read what it wrote, or overwrite what it has
    /// yet to read.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
}

impl IoArgs {
    /// The reader of `--input`.
    pub fn open_input(&self) -> Result<RecordReader> {
        RecordReader::open(&self.input)
    }

    /// The writer of `--output`; call [`Output::finish`] when done. An error when it would
    /// write in place to the input file (see [`Output::refuse_input_file`]).
    pub fn create_output(&self) -> Result<Output> {
        self.create_output_reading([])
    }

    /// [`IoArgs::create_output`] for a command that reads other files too (a table, the gold
    /// pairs, a corpus, an index's files): an error as well when it would write in place to
    /// one of `also_read`, each named in the error as its first part says (`the table of
    /// --df`), which `sh-weight --df t >> t` would have grown by its output.
    pub fn create_output_reading<'p>(
        &self,
        also_read: impl IntoIterator<Item = (&'p str, &'p Path)>,
    ) -> Result<Output> {
        let output = Output::create(&self.output)?;
        let input = std::iter::once(("the input file", self.input.as_path()));
        // (Each pair taken down to the shorter life of the input's path.)
        let also_read = also_read.into_iter().map(|(what, path): (&str, &Path)| (what, path));
        output.refuse_files_read(input.chain(also_read), &self.output)?;
        Ok(output)
    }
}

/// A usage error when the file of `option` and the input are one stream read twice: both
/// standard input (`-`), or one pipe or socket under two names (`--gold /dev/stdin` with the
/// input piped in). The first read would take all of it and the other would be read empty, a
/// run that finds nothing and says nothing. `either` names what could be given as a file
/// instead.
pub fn refuse_stdin_twice(option: &str, path: &Path, input: &Path, either: &str) -> Result<()> {
    if crate::is_std_stream(path) && crate::is_std_stream(input) {
        return Err(Error::usage(format!(
            "{option} - and the input are both standard input: give {either} as a file (-i FILE)"
        )));
    }
    if shared_stream(path).is_some_and(|stream| shared_stream(input) == Some(stream)) {
        let path = match crate::is_std_stream(path) {
            true => "-".to_string(),
            false => crate::error::quoted_file_name(path),
        };
        return Err(Error::usage(format!(
            "{option} {path} and the input ({}) are one pipe or socket, which only one of them \
             can read: give {either} as a file (-i FILE)",
            crate::error::quoted_file_name(input),
        )));
    }
    Ok(())
}

/// [`refuse_stdin_twice`] among the files of one option (`sh-df --merge - /dev/stdin`): a
/// usage error when two of `paths` are standard input or one pipe. `what` names the files.
pub fn refuse_one_stream_twice(option: &str, paths: &[PathBuf], what: &str) -> Result<()> {
    let mut seen: Vec<(SharedStream, &Path)> = Vec::new();
    for path in paths {
        let Some(stream) = shared_stream(path) else { continue };
        if let Some((_, earlier)) = seen.iter().find(|(s, _)| *s == stream) {
            let how = match crate::is_std_stream(earlier) && crate::is_std_stream(path) {
                true => "standard input twice".to_string(),
                false => {
                    let (earlier, path) = (
                        crate::error::quoted_file_name(earlier),
                        crate::error::quoted_file_name(path),
                    );
                    format!("one pipe or socket twice ({earlier} and {path})")
                }
            };
            return Err(Error::usage(format!(
                "{option} names {how}: only the first would read it; give {what} as files"
            )));
        }
        seen.push((stream, path));
    }
    Ok(())
}

/// A stream that a second read would find taken: standard input, or a pipe or socket (by its
/// device and inode, under whatever name: `-` when standard input is one, `/dev/stdin`,
/// `/dev/fd/0`, a named pipe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SharedStream {
    StandardInput,
    Pipe { dev: u64, ino: u64 },
}

/// The stream `path` reads, when it is one a second read would find taken; `None` for a file,
/// a device, or a path that cannot be looked at (its read will say why): a file opened twice is
/// read twice.
fn shared_stream(path: &Path) -> Option<SharedStream> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let stdin = crate::is_std_stream(path);
    let file = match stdin {
        true => crate::output::std_file(std::io::stdin().as_fd()),
        false => std::fs::metadata(path).ok(),
    };
    match file {
        Some(f) if f.file_type().is_fifo() || f.file_type().is_socket() => {
            Some(SharedStream::Pipe { dev: f.dev(), ino: f.ino() })
        }
        _ if stdin => Some(SharedStream::StandardInput),
        _ => None,
    }
}

/// The running command's name, once [`run_main`] has started it.
static NAME: OnceLock<String> = OnceLock::new();

/// The name that a message of the running command starts with (`sh-tools` outside a command).
pub(crate) fn command_name() -> &'static str {
    NAME.get().map_or("sh-tools", String::as_str)
}

/// Whether `--quiet` was given to the running command: its notes are then not shown.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Tells the user of something the command goes on with: `NAME: note: MESSAGE` on standard
/// error, unless the command was given `--quiet`.
pub fn note(message: impl std::fmt::Display) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("{}: note: {message}", command_name());
    }
}

/// Parses the flags, runs the command and exits: 0 on success or when the reader of the output
/// went away, otherwise `NAME: error: …` on stderr and the error's exit status (1, or 2 for
/// usage and flag errors).
pub fn run_main<A: clap::Parser>(name: &str, run: impl FnOnce(A) -> Result<()>) -> ! {
    let _ = NAME.set(name.to_string());
    let args = match parse::<A>() {
        Ok(args) => args,
        Err(e) if e.use_stderr() && asks_for_help().is_some() => {
            // Help asked for beside a bad flag (`-k 99 --help`): the help, as without it.
            let flag = asks_for_help().unwrap_or("--help");
            match <A as clap::CommandFactory>::command().try_get_matches_from([name, flag]) {
                Err(help) => show(name, help),
                Ok(_) => e.exit(),
            }
        }
        Err(e) if e.use_stderr() => {
            // clap's message starts with "error: "; put the command's name in front, as for
            // every other error.
            let _ = write!(std::io::stderr().lock(), "{name}: {}", e.render());
            std::process::exit(2)
        }
        Err(e) => show(name, e), // --help and --version
    };
    let code = match run(args) {
        Ok(()) => 0,
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => report(name, &e),
    };
    std::process::exit(code)
}

/// The command's flags, as `A::try_parse` gives them; a `--quiet` among them (every command
/// takes it) is noted for [`note`].
fn parse<A: clap::Parser>() -> std::result::Result<A, clap::Error> {
    let mut command = <A as clap::CommandFactory>::command();
    let mut matches = command.try_get_matches_from_mut(std::env::args_os())?;
    let quiet = matches.try_get_one::<bool>("quiet").ok().flatten().copied().unwrap_or(false);
    QUIET.store(quiet, Ordering::Relaxed);
    A::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut command))
}

/// Shows what `--help` or `--version` asked for on standard output and exits, 0 once it is
/// written (or the reader went away); a write that fails (a full disk, an output closed at
/// start, which the runtime replaced by /dev/null) is an error as for any output, not a silent
/// loss.
fn show(name: &str, shown: clap::Error) -> ! {
    if shown.use_stderr() {
        shown.exit(); // not help or version: clap's own message and status
    }
    let written = if was_closed_at_start(Stream::Output) {
        Err(closed_stream_error())
    } else {
        shown.print().and_then(|()| std::io::stdout().flush())
    };
    let code = match written.map_err(Error::writing) {
        Ok(()) => shown.exit_code(),
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => report(name, &e),
    };
    std::process::exit(code)
}

/// `--help` or `-h` when one is on the command line (before a `--`).
fn asks_for_help() -> Option<&'static str> {
    std::env::args_os().skip(1).take_while(|arg| arg != "--").find_map(|arg| {
        if arg == "--help" {
            Some("--help")
        } else if arg == "-h" {
            Some("-h")
        } else {
            None
        }
    })
}

fn report(name: &str, error: &Error) -> i32 {
    let _ = writeln!(std::io::stderr().lock(), "{name}: error: {error}");
    error.exit_code()
}
