//! Ordinary faults around the real binaries: a reader that goes away (`| head`), a full disk,
//! input that cannot be read, output that cannot be created, runs that fail midway or are
//! interrupted with an existing `--output` file, outputs that are devices, pipes or links, and
//! memory that must stay bounded on huge outputs and many ids.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{binary, run};

const ALL: [&str; 6] =
    ["sh-tokenize", "sh-shingle", "sh-hash", "sh-compute", "sh-pairs", "sh-cluster"];

/// A valid input line for each command, and the first line of output it gives.
fn sample(name: &str) -> (&'static str, &'static str) {
    match name {
        "sh-tokenize" => ("Hello, World!\n", "hello world"),
        "sh-shingle" => ("a b c d e\n", "a_b b_c c_d d_e"),
        "sh-hash" => ("hello a\n", "3804341492420753273 6401452390262130604"),
        "sh-compute" => ("0xffffffffffffffff 1\n", "1"),
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
        "sh-tokenize" => ("{\"text\": \"Hello\"}\n", "{\"no text\": 1}\n"),
        "sh-hash" => ("hello:1 a:2\n", "a\n"),
        "sh-cluster" => ("a\tb\n", "one-field\n"),
        _ => (sample(name).0, "-1\n"),
    }
}

/// Extra flags that make `bad_line` bad.
fn bad_flags(name: &str) -> &'static [&'static str] {
    match name {
        "sh-tokenize" => &["--json"],
        "sh-hash" => &["--weighted"],
        _ => &[],
    }
}

fn spawn(name: &str, args: &[&str], stdout: Stdio) -> Child {
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
fn wait_briefly(child: &mut Child) -> std::process::ExitStatus {
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

/// Runs `name args…` from a shell with `redirect` (`>&-`, `<&-`) applied; stdin is `input`
/// unless the redirection closes it.
fn run_redirected(name: &str, args: &[&str], redirect: &str, input: &str) -> crate::util::Run {
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
        let closed_in = run_redirected(name, &args, "<&-", input);
        assert_eq!(
            (closed_in.code, closed_in.stderr.as_str()),
            (Some(1), &*format!("{name}: error: error reading standard input: Bad file descriptor (os error 9)\n")),
            "{name} <&-"
        );
        assert!(closed_in.stdout.is_empty(), "{name} <&-: no output");
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

#[test]
fn every_command_takes_quiet() {
    // The manual pages promise --quiet for all; where there is no progress it changes nothing.
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

#[test]
fn a_write_error_on_an_output_file_names_the_file_not_its_temporary() {
    // A full file system, as a file size limit: writes fail with EFBIG (SIGXFSZ ignored), just
    // as they fail with ENOSPC on a full disk.
    for name in ALL {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        keep_precious(&target);
        let script = "ulimit -f 8; trap '' XFSZ; exec \"$0\" \"$@\"";
        let mut child = Command::new("sh")
            .args(["-c", script])
            .arg(binary(name))
            .args(["-o", path_str(&target)])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let feeder = feed(&mut child, large_input(name));
        let stderr = read_stderr(&mut child);
        let status = wait_briefly(&mut child);
        feeder.join().unwrap();
        assert_eq!(
            (status.code(), stderr.join().unwrap()),
            (
                Some(1),
                format!(
                    "{name}: error: error writing '{}': File too large (os error 27)\n",
                    target.display()
                )
            ),
            "{name}"
        );
        assert_untouched(&target, name);
        assert_eq!(entries(dir.path()), ["out.txt"], "{name}: no temporary file left");
    }
}

// ---------------------------------------------------------------------------------------------
// Input that cannot be read, output that cannot be created.

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

#[test]
fn output_into_a_missing_directory_or_onto_a_directory_is_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("out.txt");
    for name in ALL {
        let result = run(name, &["-o", path_str(&missing)], sample(name).0);
        assert_eq!(result.code, Some(1), "{name}");
        assert_eq!(
            result.stderr,
            format!(
                "{name}: error: cannot create output '{}': No such file or directory (os error 2)\n",
                missing.display()
            )
        );
        let result = run(name, &["-o", path_str(dir.path())], sample(name).0);
        assert_eq!(result.code, Some(1), "{name}");
        assert_eq!(
            result.stderr,
            format!(
                "{name}: error: cannot create output '{}': is a directory\n",
                dir.path().display()
            )
        );
        assert!(result.stdout.is_empty());
    }
    assert!(!dir.path().join("no-such-dir").exists());
    assert!(entries(dir.path()).is_empty(), "nothing left behind");
}

// ---------------------------------------------------------------------------------------------
// An existing --output file is replaced only by a run that succeeds.

/// An existing output file that a failed or interrupted run must leave as it was.
fn keep_precious(target: &Path) {
    fs::write(target, "precious\n").unwrap();
}

fn assert_untouched(target: &Path, name: &str) {
    assert_eq!(fs::read_to_string(target).unwrap(), "precious\n", "{name}: output untouched");
}

#[test]
fn a_run_that_fails_midway_leaves_the_output_file_untouched() {
    for name in ["sh-tokenize", "sh-hash", "sh-compute", "sh-pairs", "sh-cluster"] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        keep_precious(&target);
        // Many good lines first, so that output was written before the error.
        let (good, bad) = good_and_bad_lines(name);
        let input = [good.repeat(100_000), bad.to_string()].concat();
        let mut args = vec!["-o", path_str(&target)];
        args.extend_from_slice(bad_flags(name));
        let result = run(name, &args, input);
        let line = 100_001;
        result.failure(1, &format!("{name}: error: line {line}: "));
        assert_untouched(&target, name);
        assert_eq!(entries(dir.path()), ["out.txt"], "{name}: no temporary file left");
    }
}

#[test]
fn a_successful_run_replaces_the_output_keeping_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    for name in ALL {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        fs::write(&target, "old\n").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let input = sample(name).0.repeat(2);
        run(name, &["-o", path_str(&target)], input).success();
        let written = fs::read_to_string(&target).unwrap();
        assert_eq!(written.lines().next(), Some(sample(name).1), "{name}");
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o640, "{name}");
        assert_eq!(entries(dir.path()), ["out.txt"], "{name}");
    }
}

#[test]
fn the_input_file_can_be_the_output_file() {
    for name in ["sh-tokenize", "sh-shingle", "sh-hash", "sh-compute"] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data.txt");
        fs::write(&file, sample(name).0.repeat(50_000)).unwrap();
        run(name, &["-i", path_str(&file), "-o", path_str(&file)], "").success();
        let expected = format!("{}\n", sample(name).1).repeat(50_000);
        assert!(fs::read_to_string(&file).unwrap() == expected, "{name}: rewritten in place");
        assert_eq!(entries(dir.path()), ["data.txt"]);
    }
}

#[test]
fn an_output_that_is_a_pipe_is_written_not_replaced_and_a_link_stays_a_link() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    // A named pipe, like /dev/null or /dev/stdout: renaming over it would replace it.
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || fs::read_to_string(fifo).unwrap()
    });
    run("sh-tokenize", &["-o", path_str(&fifo)], "Hello, World!\n").success();
    assert_eq!(reader.join().unwrap(), "hello world\n");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo(), "still a pipe");

    let real = dir.path().join("real.txt");
    fs::write(&real, "old\n").unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("real.txt", &link).unwrap();
    run("sh-tokenize", &["-o", path_str(&link)], "New\n").success();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a link");
    assert_eq!(fs::read_to_string(&real).unwrap(), "new\n");
    assert_eq!(entries(dir.path()), ["fifo", "link.txt", "real.txt"]);
}

// ---------------------------------------------------------------------------------------------
// Interrupted runs.

fn interrupt(child: &Child) {
    signal(child, "INT");
}

/// Sends the signal `name` (INT, TERM, HUP) to the child.
fn signal(child: &Child, name: &str) {
    // The shell's own kill: no package beyond the shell is needed.
    let status =
        Command::new("sh").args(["-c", &format!("kill -{name} {}", child.id())]).status().unwrap();
    assert!(status.success(), "kill -{name}");
}

/// The signals that end a run as an interrupt does, and the exit status each gives (128 + N).
const ENDING_SIGNALS: [(&str, i32); 3] = [("INT", 130), ("TERM", 143), ("HUP", 129)];

/// Waits until a temporary output file shows up in `dir` (the run is writing its output).
fn wait_for_partial(dir: &Path) -> PathBuf {
    let started = Instant::now();
    loop {
        if let Some(name) = entries(dir).into_iter().find(|n| n.ends_with(".partial")) {
            return dir.join(name);
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn an_interrupted_run_leaves_the_output_untouched_and_no_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    // The per-document stages write while they read, and sh-cluster opens its output before
    // reading: interrupted with the output open, they remove the temporary file and exit 130.
    // SIGTERM (kill, timeout, a job scheduler) and SIGHUP (a closed terminal) likewise.
    for name in ["sh-tokenize", "sh-shingle", "sh-hash", "sh-compute", "sh-cluster"] {
        for (sig, code) in ENDING_SIGNALS {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("out.txt");
            keep_precious(&target);
            let mut child = spawn(name, &["-o", path_str(&target)], Stdio::null());
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(sample(name).0.repeat(1000).as_bytes()).unwrap();
            // stdin stays open: the command is in the middle of its input.
            wait_for_partial(dir.path());
            signal(&child, sig);
            let status = wait_briefly(&mut child);
            drop(stdin);
            assert_eq!(status.code(), Some(code), "{name} SIG{sig}");
            assert_untouched(&target, name);
            assert_eq!(entries(dir.path()), ["out.txt"], "{name} SIG{sig}: temporary file removed");
        }
    }
    // sh-pairs writing a huge output (20,000 identical fingerprints: 2 * 10^8 pairs).
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("pairs.tsv");
    keep_precious(&target);
    let mut child = spawn("sh-pairs", &["-k", "0", "-o", path_str(&target)], Stdio::null());
    let feeder = feed(&mut child, "5\n".repeat(20_000).into_bytes());
    wait_for_partial(dir.path());
    interrupt(&child);
    let status = wait_briefly(&mut child);
    feeder.join().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_untouched(&target, "sh-pairs");
    assert_eq!(entries(dir.path()), ["pairs.tsv"]);
    // sh-pairs reads all its input before it creates the output: interrupted while reading, it
    // ends at once and there is nothing to clean.
    {
        let name = "sh-pairs";
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        keep_precious(&target);
        let mut child = spawn(name, &["-o", path_str(&target)], Stdio::null());
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(sample(name).0.repeat(1000).as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        interrupt(&child);
        let status = wait_briefly(&mut child);
        drop(stdin);
        assert_eq!(status.signal(), Some(2), "{name}: ended by SIGINT");
        assert_untouched(&target, name);
        assert_eq!(entries(dir.path()), ["out.txt"], "{name}");
    }
}

#[test]
fn an_ignored_hangup_stays_ignored() {
    // `nohup CMD -o FILE &` ignores SIGHUP so that the run outlives the terminal: the command
    // must not take it back.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    let mut child = Command::new("env")
        .args(["--default-signal=INT,TERM", "--ignore-signal=HUP"])
        .arg(binary("sh-tokenize"))
        .args(["-o", path_str(&target)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all("Hello, World!\n".repeat(1000).as_bytes()).unwrap();
    wait_for_partial(dir.path());
    signal(&child, "HUP");
    std::thread::sleep(Duration::from_millis(200));
    stdin.write_all(b"Last\n").unwrap();
    drop(stdin);
    let status = wait_briefly(&mut child);
    assert_eq!(status.code(), Some(0));
    let written = fs::read_to_string(&target).unwrap();
    assert_eq!(written, "hello world\n".repeat(1000) + "last\n");
}

// ---------------------------------------------------------------------------------------------
// Memory.

/// The peak resident memory of a running process, in bytes (VmHWM).
fn peak_memory(child: &Child) -> u64 {
    let status = fs::read_to_string(format!("/proc/{}/status", child.id())).expect("/proc status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

/// Reads from `out` until `lines` lines came; returns the first one.
fn read_lines(out: &mut impl Read, lines: u64) -> String {
    let mut buf = vec![0u8; 1 << 16];
    let mut first = Vec::new();
    let mut seen = 0u64;
    while seen < lines {
        let n = out.read(&mut buf).expect("read");
        assert!(n > 0, "output ended after {seen} lines");
        if seen == 0 {
            first.extend_from_slice(&buf[..n]);
        }
        seen += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    let first = String::from_utf8_lossy(&first).into_owned();
    first.lines().next().unwrap_or_default().to_string()
}

#[test]
fn pairs_of_a_million_identical_fingerprints_stream_in_bounded_memory() {
    let mut child = spawn("sh-pairs", &["-k", "0"], Stdio::piped());
    let feeder = feed(&mut child, "12345\n".repeat(1_000_000).into_bytes());
    let mut stdout = child.stdout.take().unwrap();
    // 10^6 records give 5 * 10^11 pairs; 10^7 lines of them must come without the rest held.
    let first = read_lines(&mut stdout, 10_000_000);
    let peak = peak_memory(&child);
    drop(stdout);
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    assert_eq!(first, "1\t2\t0");
    assert_eq!(status.code(), Some(0));
    assert!(peak < 300 << 20, "peak memory {} MB", peak >> 20);
}

#[test]
fn clusters_of_two_million_distinct_ids_stay_within_the_documented_memory() {
    // 10^6 pairs of distinct numeric ids; the output (10^6 lines) fills the pipe, so the command
    // is still alive, holding all it needs, when its peak memory is read.
    let ids = 2_000_000u64;
    let input: String = (0..ids / 2).map(|i| format!("{}\t{}\n", 2 * i + 1, 2 * i + 2)).collect();
    let mut child = spawn("sh-cluster", &[], Stdio::piped());
    let feeder = feed(&mut child, input.into_bytes());
    let mut stdout = child.stdout.take().unwrap();
    let first = read_lines(&mut stdout, 1);
    let peak = peak_memory(&child);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status = child.wait().unwrap();
    feeder.join().unwrap();
    assert_eq!(first, "1\t2");
    assert_eq!(status.code(), Some(0));
    // The manual says about 20 bytes per id for such ids; allow 64, and 64 MB for the rest.
    let bound = ids * 64 + (64 << 20);
    assert!(peak < bound, "peak memory {} MB for {ids} ids", peak >> 20);
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

#[test]
fn one_long_line_takes_a_small_multiple_of_its_length_in_every_per_document_stage() {
    // 30 MB of 2-byte tokens: 10^7 items on one line, whose output is up to 7 times as long
    // (a hash per item). Short lines after it push the long line's output through the
    // command's output buffer; stdin stays open, so the command is alive, waiting for more,
    // when its peak memory is read.
    const LINE: usize = 30 << 20;
    for name in ["sh-tokenize", "sh-shingle", "sh-hash", "sh-compute"] {
        // sh-compute reads hashes.
        let (item, short) = if name == "sh-compute" { ("12 ", "12\n") } else { ("ab ", "ab\n") };
        let input = item.repeat(LINE / 3) + "\n" + &short.repeat(200_000);
        let mut child = spawn(name, &[], Stdio::piped());
        let mut stdin = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || {
            stdin.write_all(input.as_bytes()).unwrap();
            stdin // kept open until the peak is read
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut long_line = Vec::new();
        stdout.read_until(b'\n', &mut long_line).unwrap();
        let peak = peak_memory(&child);
        drop(feeder.join().unwrap());
        let mut rest = Vec::new();
        stdout.read_to_end(&mut rest).unwrap();
        let status = wait_briefly(&mut child);
        assert_eq!(status.code(), Some(0), "{name}");
        assert!(long_line.len() > 1 && long_line.ends_with(b"\n"), "{name}: the long line out");
        assert_eq!(rest.iter().filter(|&&b| b == b'\n').count(), 200_000, "{name}");
        let bound = 4 * LINE as u64 + (64 << 20);
        assert!(peak < bound, "{name}: peak memory {} MB for a {} MB line", peak >> 20, LINE >> 20);
    }
}
