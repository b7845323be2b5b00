//! Runs ended by a signal with an existing `--output` file, and signals the caller chose to
//! ignore.

use super::*;

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
