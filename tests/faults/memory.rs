//! Memory that must stay bounded: huge outputs, many ids, one long line.

use super::*;

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

#[test]
fn one_long_line_takes_a_small_multiple_of_its_length_in_every_per_document_stage() {
    // 30 MB of 2-byte tokens: 10^7 items on one line, whose output is up to 7 times as long
    // (a hash per item). Short lines after it push the long line's output through the
    // command's output buffer; stdin stays open, so the command is alive, waiting for more,
    // when its peak memory is read.
    const LINE: usize = 30 << 20;
    for name in ["sh-tokenize", "sh-shingle", "sh-hash", "sh-compute", "sh-fingerprint"] {
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

/// Memory the system refuses (here `ulimit -v`, against a line longer than the limit) ends the
/// command with an error that names it, exit status 1, the `-o` file as it was and no temporary
/// file beside it; not with Rust's abort, which leaves the temporary file.
#[test]
fn memory_refused_is_an_error_that_leaves_the_output_as_it_was() {
    let line = "ab ".repeat((100 << 20) / 3) + "\n";
    let table_dir = tempfile::tempdir().unwrap();
    let table = table_dir.path().join("df");
    fs::write(&table, "#documents\t1\nab\t1\n").unwrap();
    let table = table.to_str().unwrap();
    let commands: [(&str, &[&str]); 9] = [
        ("sh-tokenize", &[]),
        ("sh-shingle", &[]),
        ("sh-hash", &[]),
        ("sh-compute", &[]),
        ("sh-fingerprint", &[]),
        ("sh-weight", &["--df", table]),
        ("sh-df", &[]),
        ("sh-pairs", &[]),
        ("sh-cluster", &[]),
    ];
    for (name, args) in commands {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::write(&out, "before\n").unwrap();
        let out_arg = out.to_str().unwrap();
        let args: Vec<&str> = args.iter().copied().chain(["-o", out_arg]).collect();
        crate::util::remember_command(name, &args);
        // 100 MB of address space: the command starts, and its line buffer, doubling, cannot
        // reach the line's 100 MB.
        let mut child = Command::new("sh")
            .args(["-c", "ulimit -v 100000 && exec \"$0\" \"$@\""])
            .arg(binary(name))
            .args(&args)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let feeder = feed(&mut child, line.clone().into_bytes());
        let output = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        let expected = format!("{name}: error: out of memory: the system refused ");
        assert!(stderr.starts_with(&expected), "{name}: {stderr}");
        assert_eq!(fs::read_to_string(&out).unwrap(), "before\n", "{name}: the output as it was");
        let files: Vec<_> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(files, ["out"], "{name}: nothing beside the output");
    }
}
