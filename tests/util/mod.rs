#![allow(dead_code)] // each test module uses a different part of the harness

//! The harness every integration test uses: run a built command with arguments and standard
//! input, and look at what it printed and how it exited.

use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Once;

/// The path of one of the binaries built for these tests.
pub fn binary(name: &str) -> PathBuf {
    PathBuf::from(match name {
        "sh-tokenize" => env!("CARGO_BIN_EXE_sh-tokenize"),
        "sh-shingle" => env!("CARGO_BIN_EXE_sh-shingle"),
        "sh-hash" => env!("CARGO_BIN_EXE_sh-hash"),
        "sh-compute" => env!("CARGO_BIN_EXE_sh-compute"),
        "sh-pairs" => env!("CARGO_BIN_EXE_sh-pairs"),
        "sh-cluster" => env!("CARGO_BIN_EXE_sh-cluster"),
        "sh-score" => env!("CARGO_BIN_EXE_sh-score"),
        "sh-df" => env!("CARGO_BIN_EXE_sh-df"),
        "sh-weight" => env!("CARGO_BIN_EXE_sh-weight"),
        "sh-index" => env!("CARGO_BIN_EXE_sh-index"),
        "sh-fingerprint" => env!("CARGO_BIN_EXE_sh-fingerprint"),
        other => panic!("no such command: {other}"),
    })
}

/// What a finished command left behind.
#[derive(Debug)]
pub struct Run {
    /// How to run it again: the command line and what its standard input held.
    pub command_line: String,
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    pub fn stdout_str(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }

    /// Asserts exit status 0 and an empty stderr, and returns stdout.
    #[track_caller]
    pub fn success(&self) -> &str {
        assert_eq!(
            self.code,
            Some(0),
            "command failed: {}\n--- stderr ---\n{}",
            self.command_line,
            self.stderr
        );
        assert_eq!(self.stderr, "", "unexpected stderr: {}", self.command_line);
        self.stdout_str()
    }

    /// Asserts the given exit status and one stderr line starting with `prefix`.
    #[track_caller]
    pub fn failure(&self, code: i32, prefix: &str) -> &str {
        assert_eq!(
            self.code,
            Some(code),
            "exit status of {}; stderr:\n{}\nstdout:\n{}",
            self.command_line,
            self.stderr,
            String::from_utf8_lossy(&self.stdout)
        );
        assert!(
            self.stderr.starts_with(prefix),
            "{}: stderr should start with\n    {prefix}\nbut is\n    {}",
            self.command_line,
            self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "panic: {}", self.stderr);
        &self.stderr
    }
}

/// Runs `name args…` with `stdin` fed from a thread (so large inputs cannot deadlock).
pub fn run(name: &str, args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
    run_in(name, args, stdin, None)
}

pub fn run_in(
    name: &str,
    args: &[&str],
    stdin: impl Into<Vec<u8>>,
    dir: Option<&std::path::Path>,
) -> Run {
    let stdin = stdin.into();
    let command_line = describe(name, args, &stdin, dir);
    remember(&command_line);
    let mut command = Command::new(binary(name));
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        // The command may stop reading early (an error, or it needs no more input).
        let _ = pipe.write_all(&stdin);
    });
    let watchdog = Watchdog::start(child.id());
    let output = child.wait_with_output().expect("wait");
    watchdog.stop();
    feeder.join().expect("feeder thread");
    Run {
        command_line,
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A command that waits forever (a regression: an open of a named pipe, a read of a stream
/// never closed) is killed after this long, so that its test fails instead of hanging the run.
/// Far above the slowest command of any test in a debug build (seconds).
const HANG_SECONDS: u64 = 300;

/// Kills a child still running after [`HANG_SECONDS`], unless stopped first.
struct Watchdog {
    done: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Watchdog {
    fn start(pid: u32) -> Watchdog {
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let limit = std::time::Duration::from_secs(HANG_SECONDS);
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(limit) {
                eprintln!("killing process {pid}: still running after {HANG_SECONDS} s");
                let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            }
        });
        Watchdog { done, thread }
    }

    /// Called as soon as the child has been waited for.
    fn stop(self) {
        let _ = self.done.send(());
        self.thread.join().expect("watchdog thread");
    }
}

/// A command for a test that wires its standard streams itself; the command line is printed
/// if the test fails, as for [`run`].
pub fn command(name: &str, args: &[&str]) -> Command {
    remember_command(name, args);
    let mut command = Command::new(binary(name));
    command.args(args);
    command
}

/// Keeps `name args…` to be printed if the test fails, for a command started some other way.
pub fn remember_command(name: &str, args: &[&str]) {
    let line = describe(name, args, b"", None);
    remember(&line.replace(" with 0 bytes of input \"\"", " with input from the test"));
}

/// The command line as a shell would take it, and a glimpse of its input.
fn describe(name: &str, args: &[&str], stdin: &[u8], dir: Option<&std::path::Path>) -> String {
    let quoted = |arg: &str| {
        let plain = !arg.is_empty()
            && arg.bytes().all(|b| b.is_ascii_alphanumeric() || b"_./=:,+-".contains(&b));
        if plain {
            arg.to_string()
        } else {
            format!("'{}'", arg.replace('\'', r"'\''"))
        }
    };
    let mut line: Vec<String> = vec![name.to_string()];
    line.extend(args.iter().map(|arg| quoted(arg)));
    let shown: String = String::from_utf8_lossy(&stdin[..stdin.len().min(120)]).into_owned();
    let more = if stdin.len() > 120 { "…" } else { "" };
    let place = dir.map(|d| format!(" (in {})", d.display())).unwrap_or_default();
    format!("{}{place} with {} bytes of input {shown:?}{more}", line.join(" "), stdin.len())
}

thread_local! {
    /// The command lines this test thread ran last, to print when it fails.
    static LAST_RUNS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Keeps `command_line` to be printed if the test fails; the first call puts in the panic hook
/// that prints them, so that a failing assertion on a field of [`Run`] says how to reproduce it
/// too.
fn remember(command_line: &str) {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            LAST_RUNS.with(|runs| {
                for run in runs.borrow().iter() {
                    eprintln!("command run by the failing test: {run}");
                }
            });
            default(info);
        }));
    });
    LAST_RUNS.with(|runs| {
        let mut runs = runs.borrow_mut();
        if runs.len() == 3 {
            runs.remove(0);
        }
        runs.push(command_line.to_string());
    });
}

/// Runs a pipeline of commands, each one's stdout the next one's stdin; returns the last run.
pub fn pipeline(stages: &[(&str, &[&str])], stdin: impl Into<Vec<u8>>) -> Run {
    let mut data = stdin.into();
    let mut last = None;
    for (name, args) in stages {
        let result = run(name, args, data);
        assert_eq!(result.code, Some(0), "{} failed: {}", result.command_line, result.stderr);
        data = result.stdout.clone();
        last = Some(result);
    }
    last.expect("at least one stage")
}

/// The commands that read a stream and write one as they go (the per-document stages, the
/// fused one, and the pair and cluster steps).
pub const STREAMING_COMMANDS: [&str; 7] = [
    "sh-tokenize",
    "sh-shingle",
    "sh-hash",
    "sh-compute",
    "sh-fingerprint",
    "sh-pairs",
    "sh-cluster",
];

/// Lines joined by LF or CRLF, the last one with or without its line ending.
pub fn join_lines(lines: Vec<(Vec<u8>, bool)>, final_newline: bool) -> Vec<u8> {
    let count = lines.len();
    let mut input = Vec::new();
    for (n, (line, crlf)) in lines.into_iter().enumerate() {
        input.extend(line);
        if n + 1 < count || final_newline {
            input.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
    }
    input
}
