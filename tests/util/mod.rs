#![allow(dead_code)] // each test module uses a different part of the harness

//! The harness every integration test uses: run a built command with arguments and standard
//! input, and look at what it printed and how it exited.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

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
        other => panic!("no such command: {other}"),
    })
}

/// What a finished command left behind.
#[derive(Debug)]
pub struct Run {
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
        assert_eq!(self.code, Some(0), "command failed:\n--- stderr ---\n{}", self.stderr);
        assert_eq!(self.stderr, "", "unexpected stderr");
        self.stdout_str()
    }

    /// Asserts the given exit status and one stderr line starting with `prefix`.
    #[track_caller]
    pub fn failure(&self, code: i32, prefix: &str) -> &str {
        assert_eq!(
            self.code,
            Some(code),
            "exit status; stderr:\n{}\nstdout:\n{}",
            self.stderr,
            String::from_utf8_lossy(&self.stdout)
        );
        assert!(
            self.stderr.starts_with(prefix),
            "stderr should start with\n    {prefix}\nbut is\n    {}",
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
    let output = child.wait_with_output().expect("wait");
    feeder.join().expect("feeder thread");
    Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs a pipeline of commands, each one's stdout the next one's stdin; returns the last run.
pub fn pipeline(stages: &[(&str, &[&str])], stdin: impl Into<Vec<u8>>) -> Run {
    let mut data = stdin.into();
    let mut last = None;
    for (name, args) in stages {
        let result = run(name, args, data);
        assert_eq!(result.code, Some(0), "{name} failed: {}", result.stderr);
        data = result.stdout.clone();
        last = Some(result);
    }
    last.expect("at least one stage")
}
