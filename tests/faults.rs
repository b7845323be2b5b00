//! Ordinary faults around the real binaries: a reader that goes away (`| head`), a full disk,
//! closed standard streams, input that cannot be read, and a repository that must stand alone.
//! Output files (that cannot be created, runs that fail midway with an existing `--output`
//! file, outputs that are devices, pipes or links: `output_files.rs`), runs ended by signals
//! (`signals.rs`), memory that must stay bounded (`memory.rs`), a system that refuses threads
//! (`threads.rs`), a damaged index (`index.rs`) and its writers ended midway
//! (`index_writers.rs`) have files of their own.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{binary, run, STREAMING_COMMANDS as ALL};

mod index;
mod index_writers;
mod memory;
mod output_files;
mod signals;
mod threads;

/// A valid input line for each command, and the first line of output it gives.
fn sample(name: &str) -> (&'static str, &'static str) {
    match name {
        "sh-tokenize" => ("Hello, World!\n", "hello world"),
        "sh-shingle" => ("a b c d e\n", "a_b b_c c_d d_e"),
        "sh-hash" => ("hello a\n", "3804341492420753273 6401452390262130604"),
        "sh-compute" => ("0xffffffffffffffff 1\n", "1"),
        "sh-fingerprint" => ("Hello, World!\n", "7423247871364183214"),
        "sh-pairs" => ("5\n", "1\t2\t0"),
        "sh-cluster" => ("a\tb\n", "a\tb"),
        other => panic!("no such command: {other}"),
    }
}

/// Input for `name` whose output is many lines (megabytes).
fn large_input(name: &str) -> Vec<u8> {
    match name {
        // 3,000 identical fingerprints: 4.5 million pairs.
        "sh-pairs" => "5\n".repeat(3000).into_bytes(),
        // 200,000 clusters of two.
        "sh-cluster" => {
            (0..200_000).map(|i| format!("a{i}\tb{i}\n")).collect::<String>().into_bytes()
        }
        _ => sample(name).0.repeat(200_000).into_bytes(),
    }
}

fn first_line_of_large_output(name: &str) -> &'static str {
    match name {
        "sh-cluster" => "a0\tb0",
        _ => sample(name).1,
    }
}

/// A good and a bad input line for `name` with `bad_flags(name)` (sh-shingle takes any bytes).
fn good_and_bad_lines(name: &str) -> (&'static str, &'static str) {
    match name {
        "sh-tokenize" | "sh-fingerprint" => ("{\"text\": \"Hello\"}\n", "{\"no text\": 1}\n"),
        "sh-hash" => ("hello:1 a:2\n", "a\n"),
        "sh-cluster" => ("a\tb\n", "one-field\n"),
        _ => (sample(name).0, "-1\n"),
    }
}

/// Extra flags that make `bad_line` bad.
fn bad_flags(name: &str) -> &'static [&'static str] {
    match name {
        "sh-tokenize" | "sh-fingerprint" => &["--json"],
        "sh-hash" => &["--weighted"],
        _ => &[],
    }
}

fn spawn(name: &str, args: &[&str], stdout: Stdio) -> Child {
    crate::util::remember_command(name, args);
    // A command started from a shell prompt has the default SIGINT action; one started by a
    // script's `&` (or nohup) inherits "ignore", and the interrupt tests would then wait on a
    // command that rightly ignores SIGINT. GNU env starts every child as from a prompt, and
    // execs it, so the child's pid is the command's.
    Command::new("env")
        .arg("--default-signal=INT,TERM,HUP")
        .arg(binary(name))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

/// Waits for a child that should end soon; a child still running after a minute fails the
/// test (and is killed) instead of hanging the run.
pub(crate) fn wait_briefly(child: &mut Child) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the command did not end within a minute");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Writes `input` to the child's stdin from a thread; the child may stop reading early.
fn feed(child: &mut Child, input: Vec<u8>) -> std::thread::JoinHandle<()> {
    let mut stdin = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    })
}

fn read_stderr(child: &mut Child) -> std::thread::JoinHandle<String> {
    let mut stderr = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    })
}

/// The entries of a directory, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

// ---------------------------------------------------------------------------------------------
// The output end.

#[test]
fn a_reader_that_goes_away_ends_every_command_quietly() {
    for name in ALL {
        let mut child = spawn(name, &[], Stdio::piped());
        let feeder = feed(&mut child, large_input(name));
        let stderr = read_stderr(&mut child);
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        stdout.read_line(&mut first).expect("first line");
        drop(stdout); // `| head -n 1`
        let status = child.wait().expect("wait");
        feeder.join().expect("feeder");
        let stderr = stderr.join().expect("stderr");
        assert_eq!(first, format!("{}\n", first_line_of_large_output(name)), "{name}");
        assert_eq!(status.code(), Some(0), "{name}: {stderr}");
        assert_eq!(stderr, "", "{name}");
    }
}

#[test]
fn a_full_disk_is_exit_1_and_one_message_for_every_command() {
    for name in ALL {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let mut child = spawn(name, &[], Stdio::from(full));
        let feeder = feed(&mut child, large_input(name));
        let stderr = read_stderr(&mut child);
        let status = child.wait().expect("wait");
        feeder.join().expect("feeder");
        let stderr = stderr.join().expect("stderr");
        assert_eq!(status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(
            stderr,
            format!("{name}: error: error writing output: No space left on device (os error 28)\n")
        );
    }
}

/// Makes a named pipe at `path`.
fn make_fifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success(), "mkfifo");
}

/// Runs `name args…` from a shell with `redirect` (`>&-`, `<&-`) applied; stdin is `input`
/// unless the redirection closes it.
pub(crate) fn run_redirected(
    name: &str,
    args: &[&str],
    redirect: &str,
    input: &str,
) -> crate::util::Run {
    let script = format!("exec \"$0\" \"$@\" {redirect}");
    let mut command = Command::new("sh");
    command.arg("-c").arg(script).arg(binary(name)).args(args);
    let child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = child.spawn().expect("spawn");
    let feeder = feed(&mut child, input.as_bytes().to_vec());
    let output = child.wait_with_output().expect("wait");
    feeder.join().expect("feeder");
    crate::util::Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        command_line: format!("{name} {} {redirect} (input {input:?})", args.join(" ")),
    }
}

/// Every command, with the flags it needs to run on `sample(name)`'s kind of input.
fn every_command(gold: &Path) -> Vec<(&'static str, Vec<String>, &'static str)> {
    let mut commands: Vec<_> = ALL.iter().map(|&name| (name, Vec::new(), sample(name).0)).collect();
    commands.push(("sh-score", vec!["--gold".into(), path_str(gold).into()], "a\tb\t1\n"));
    commands
}

#[test]
fn a_closed_standard_output_or_input_is_exit_1_and_bad_file_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let gold = dir.path().join("gold.tsv");
    fs::write(&gold, "a\tb\n").unwrap();
    for (name, args, input) in every_command(&gold) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let closed_out = run_redirected(name, &args, ">&-", input);
        assert_eq!(
            (closed_out.code, closed_out.stderr.as_str()),
            (
                Some(1),
                &*format!(
                    "{name}: error: error writing output: Bad file descriptor (os error 9)\n"
                )
            ),
            "{name} >&-"
        );
        // Standard input closed, as `-` and under its other names: an error for each, not an
        // empty read of the /dev/null that the runtime puts in its place.
        for (named, shown) in [
            (None, "standard input"),
            (Some("/dev/stdin"), "'/dev/stdin'"),
            (Some("/dev/fd/0"), "'/dev/fd/0'"),
        ] {
            let args = [&args[..], &named.map_or(vec![], |path| vec!["-i", path])].concat();
            let closed_in = run_redirected(name, &args, "<&-", input);
            assert_eq!(
                (closed_in.code, closed_in.stderr.as_str()),
                (
                    Some(1),
                    &*format!(
                        "{name}: error: error reading {shown}: Bad file descriptor (os error 9)\n"
                    )
                ),
                "{name} {} <&-",
                args.join(" ")
            );
            assert!(closed_in.stdout.is_empty(), "{name} {} <&-: no output", args.join(" "));
        }
        // /dev/null, opened as a shell opens it, is no closed stream.
        let null_out = run_redirected(name, &args, ">/dev/null", input);
        assert_eq!((null_out.code, null_out.stderr.as_str()), (Some(0), ""), "{name} >/dev/null");
        let null_in = run_redirected(name, &args, "</dev/null", input);
        assert_eq!((null_in.code, null_in.stderr.as_str()), (Some(0), ""), "{name} </dev/null");
        // Nor is /dev/null opened for reading and writing, as Python's subprocess.DEVNULL opens
        // it (and as the Rust runtime opens it in place of a closed stream).
        for redirect in ["1<>/dev/null", "0<>/dev/null"] {
            let null = run_redirected(name, &args, redirect, input);
            assert_eq!((null.code, null.stderr.as_str()), (Some(0), ""), "{name} {redirect}");
        }
    }
}

/// The gold pairs from standard input under another name, closed at start: an error, where it
/// read the runtime's /dev/null and scored every pair as a false positive with exit 0.
#[test]
fn gold_pairs_from_a_closed_standard_input_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = dir.path().join("pairs.tsv");
    fs::write(&pairs, "a\tb\t1\n").unwrap();
    let closed =
        run_redirected("sh-score", &["--gold", "/dev/stdin", "-i", path_str(&pairs)], "<&-", "");
    assert_eq!(
        (closed.code, closed.stderr.as_str()),
        (
            Some(1),
            "sh-score: error: error reading '/dev/stdin': Bad file descriptor (os error 9)\n"
        )
    );
}

/// `--help` and `--version` are output like any other: lost output (a full disk, a standard
/// output closed at start) is exit 1 and one message, not exit 0 and nothing.
#[test]
fn help_and_version_that_cannot_be_written_are_errors() {
    let commands = [&ALL[..], &["sh-df", "sh-weight", "sh-score", "sh-index"]].concat();
    for name in commands {
        for asked in [&["--help"][..], &["-h"], &["--version"], &["-k", "999", "--help"]] {
            if asked.len() == 2 && !matches!(name, "sh-pairs" | "sh-index") {
                continue; // a bad flag beside --help: the commands with -k
            }
            let what = format!("{name} {}", asked.join(" "));
            let shown = run_redirected(name, asked, "", "");
            assert_eq!((shown.code, shown.stderr.as_str()), (Some(0), ""), "{what}");
            assert!(!shown.stdout.is_empty(), "{what}: shown");
            let closed = run_redirected(name, asked, ">&-", "");
            assert_eq!(
                (closed.code, closed.stderr),
                (
                    Some(1),
                    format!(
                        "{name}: error: error writing output: Bad file descriptor (os error 9)\n"
                    )
                ),
                "{what} >&-"
            );
            let full = run_redirected(name, asked, ">/dev/full", "");
            assert_eq!(
                (full.code, full.stderr),
                (
                    Some(1),
                    format!("{name}: error: error writing output: No space left on device (os error 28)\n")
                ),
                "{what} >/dev/full"
            );
        }
    }
}

#[test]
fn every_command_takes_quiet() {
    // The manual pages promise --quiet for all; where there is no progress nor note it changes
    // nothing.
    let dir = tempfile::tempdir().unwrap();
    let gold = dir.path().join("gold.tsv");
    fs::write(&gold, "a\tb\n").unwrap();
    for (name, args, input) in every_command(&gold) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let plain = run(name, &args, input);
        let expected = plain.success();
        for quiet in ["--quiet", "-q"] {
            let with_quiet = [&args[..], &[quiet]].concat();
            assert_eq!(run(name, &with_quiet, input).success(), expected, "{name} {quiet}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Input that cannot be read.

#[test]
fn unreadable_input_is_exit_1_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    let folder = dir.path().join("folder");
    fs::create_dir(&folder).unwrap();
    for name in ALL {
        let result = run(name, &["-i", path_str(&missing)], "");
        assert_eq!(
            result.stderr,
            format!(
                "{name}: error: cannot open '{}': No such file or directory (os error 2)\n",
                missing.display()
            )
        );
        let result = run(name, &["-i", path_str(&folder)], "");
        assert_eq!(result.code, Some(1), "{name}");
        assert_eq!(
            result.stderr,
            format!(
                "{name}: error: error reading '{}': Is a directory (os error 21)\n",
                folder.display()
            )
        );
        // Failing to read after the output was opened leaves an existing output as it was.
        let target = dir.path().join("out.txt");
        keep_precious(&target);
        run(name, &["-i", path_str(&folder), "-o", path_str(&target)], "").failure(1, name);
        assert_untouched(&target, name);
        assert_eq!(entries(dir.path()), ["folder", "out.txt"], "{name}: no temporary file left");
    }
    let result = run("sh-pairs", &["--against", path_str(&missing)], "5\n");
    assert_eq!(result.code, Some(1));
    assert_eq!(
        result.stderr,
        format!(
            "sh-pairs: error: cannot open '{}': No such file or directory (os error 2)\n",
            missing.display()
        )
    );
}

/// An existing output file that a failed or interrupted run must leave as it was.
fn keep_precious(target: &Path) {
    fs::write(target, "precious\n").unwrap();
}

fn assert_untouched(target: &Path, name: &str) {
    assert_eq!(fs::read_to_string(target).unwrap(), "precious\n", "{name}: output untouched");
}

// ---------------------------------------------------------------------------------------------
// The repository stands alone.

/// Files a build or test reads must be in the repository: a clone on its own has nothing
/// beside it. (`.ci/run` proves it by running the tests in such a clone.)
#[test]
fn no_file_reads_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Spelled in two parts so that this file does not name it.
    let outside = ["../", "shared"].concat();
    let mut offenders = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap();
            let skipped =
                ["target", ".git", "fuzz/target", "fuzz/corpus", "bench/work", "eval/work"];
            if skipped.iter().any(|s| relative == Path::new(s)) {
                continue;
            }
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(text) = fs::read(&path) {
                if text.windows(outside.len()).any(|w| w == outside.as_bytes()) {
                    offenders.push(relative.display().to_string());
                }
            }
        }
    }
    assert!(offenders.is_empty(), "these files read {outside}: {offenders:?}");
}
