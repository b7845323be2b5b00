//! A system that refuses threads (at its limit of processes or of memory): every command that
//! starts threads does the work on fewer, or on its calling thread, with the same output,
//! instead of panicking. `SH_TOOLS_REFUSE_THREADS_AFTER=N` makes a process refuse every thread
//! after its first N, as such a system would (`sh_core::threads`).

use super::*;

/// Runs `name args…` on `input` (a file, so that sh-df cuts it into parts), with threads
/// refused after the first `after` (`None`: none refused); its standard output and error.
fn run(name: &str, args: &[&str], input: &Path, after: Option<usize>) -> (Vec<u8>, String) {
    let mut command = crate::util::command(name, args);
    command.stdin(fs::File::open(input).unwrap());
    if let Some(after) = after {
        command.env("SH_TOOLS_REFUSE_THREADS_AFTER", after.to_string());
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{name} {args:?}, threads after {after:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.stdout, stderr)
}

fn output(name: &str, args: &[&str], input: &Path) -> Vec<u8> {
    run(name, args, input, None).0
}

/// The output with every thread refused, and with the first one to three started, equals the
/// output with none refused; a refusal is told, once. With `-q` added, the same output with
/// every thread refused, and no note.
fn same_whatever_the_threads(name: &str, args: &[&str], input: &Path) {
    let expected = output(name, args, input);
    assert!(!expected.is_empty(), "{name}: some output");
    let note = format!("{name}: note: the system refused a thread (");
    for after in 0..4 {
        let (got, stderr) = run(name, args, input, Some(after));
        assert!(got == expected, "{name} {args:?}: other output with threads after {after}");
        assert!(stderr.matches(&note).count() <= 1, "{stderr}");
        if after == 0 {
            assert!(stderr.starts_with(&note), "{name}: the refusal told: {stderr}");
        }
    }
    let quiet = [args, &["-q"]].concat();
    let (got, stderr) = run(name, &quiet, input, Some(0));
    assert!(got == expected, "{name} {quiet:?}: other output with every thread refused");
    assert_eq!(stderr, "", "{name} {quiet:?}: no note");
}

/// A small generator of pseudo-random numbers, the same on every run.
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 ^ (self.0 >> 29)
    }
}

#[test]
fn per_line_stages_do_their_work_on_the_threads_they_get() {
    let dir = tempfile::tempdir().unwrap();
    let mut numbers = Numbers(7);
    let words = ["menu", "home", "news", "alpha", "beta", "gamma", "delta", "rho", "tau", "mu"];
    let text: String = (0..3000)
        .map(|doc| {
            let body: Vec<&str> = (0..40).map(|_| words[numbers.next() as usize % 10]).collect();
            format!("d{doc}\tmenu home news {}\n", body.join(" "))
        })
        .collect();
    let docs = dir.path().join("docs");
    fs::write(&docs, &text).unwrap();
    let args = ["--with-id", "-j", "3", "--chunk-bytes", "2000"];
    same_whatever_the_threads("sh-fingerprint", &args, &docs);

    let stages: [(&str, &[&str]); 3] =
        [("sh-tokenize", &["--with-id"]), ("sh-shingle", &[]), ("sh-hash", &[])];
    let hashes = dir.path().join("hashes");
    let hashed = crate::util::pipeline(&stages, text);
    hashed.success();
    fs::write(&hashes, &hashed.stdout).unwrap();
    let df = dir.path().join("df");
    fs::write(&df, output("sh-df", &[], &hashes)).unwrap();
    let df = df.to_str().unwrap();
    same_whatever_the_threads(
        "sh-weight",
        &["--df", df, "-j", "3", "--chunk-bytes", "2000"],
        &hashes,
    );
    same_whatever_the_threads("sh-df", &["-j", "3"], &hashes);
    same_whatever_the_threads(
        "sh-compute",
        &["--bits", "256", "-j", "3", "--chunk-bytes", "2000"],
        &hashes,
    );
}

/// sh-df cuts a file of more than 32 MB into parts, one per thread, and sorts a large table on
/// threads.
#[test]
fn sh_df_counts_the_parts_of_a_large_file_on_the_threads_it_gets() {
    let dir = tempfile::tempdir().unwrap();
    let mut numbers = Numbers(11);
    let mut text = String::with_capacity(34 << 20);
    while text.len() < 33 << 20 {
        for _ in 0..100 {
            // Items of every frequency: a few in every document, most rare.
            let item = numbers.next() % (1 << (numbers.next() % 20));
            text.push_str(&item.to_string());
            text.push(' ');
        }
        text.push('\n');
    }
    let items = dir.path().join("items");
    fs::write(&items, text).unwrap();
    same_whatever_the_threads("sh-df", &["-j", "2"], &items);
}

/// sh-pairs reads, sorts and searches on threads; sh-index answers on threads.
#[test]
fn searches_run_on_the_threads_they_get() {
    let dir = tempfile::tempdir().unwrap();
    let mut numbers = Numbers(5);
    let mut text = String::new();
    for n in 0..300_000u64 {
        let fingerprint = numbers.next();
        text.push_str(&format!("r{n}\t{fingerprint}\n"));
        if n % 1000 == 0 {
            // A near copy, a bit or two apart.
            let near = fingerprint ^ (1 << (n % 64)) ^ (1 << ((n / 7) % 64));
            text.push_str(&format!("c{n}\t{near}\n"));
        }
    }
    let records = dir.path().join("records");
    fs::write(&records, text).unwrap();
    same_whatever_the_threads("sh-pairs", &["-k", "3", "-j", "3"], &records);
    // Enough records in a pair that the pairs are written on threads too.
    let mut copies = String::new();
    for n in 0..100_000u64 {
        let fingerprint = numbers.next();
        copies.push_str(&format!("r{n}\t{fingerprint}\n"));
        if n % 4 == 0 {
            copies.push_str(&format!("c{n}\t{}\n", fingerprint ^ (1 << (n % 64))));
        }
    }
    let copies_file = dir.path().join("copies");
    fs::write(&copies_file, copies).unwrap();
    for args in [&["-k", "3", "-j", "3"][..], &["-k", "3", "-j", "3", "--sparse"]] {
        same_whatever_the_threads("sh-pairs", args, &copies_file);
    }

    let index = dir.path().join("index");
    let index = index.to_str().unwrap();
    output("sh-index", &["build", "-q", "-k", "3", "-o", index], &records);
    same_whatever_the_threads("sh-index", &["query", "-j", "3", index], &records);
}
