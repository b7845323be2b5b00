//! sh-fingerprint against the stages it stands for, on arbitrary bytes, through each command's
//! own `run` (flags parsed by clap, input and output as files): the output of
//! `sh-fingerprint FLAGS` on one thread, and on two with chunks of 1 to 64 bytes, is byte for
//! byte that of sh-tokenize | sh-shingle | sh-hash | sh-compute with the same flags, and an
//! input the pipeline refuses it refuses with the same message.
//!
//! First byte: tokenizer mode and case, whether lines carry ids. Second: shingle window, hash
//! seed, width, chunk size.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Parser;
use libfuzzer_sys::fuzz_target;

fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base =
            if Path::new("/dev/shm").is_dir() { "/dev/shm".into() } else { std::env::temp_dir() };
        let dir = base.join(format!("sh-tools-fuzz-fingerprint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        dir
    })
}

fn file(name: &str) -> String {
    dir().join(name).to_str().expect("UTF-8 path").to_string()
}

fn parsed<A: Parser>(args: &[&str]) -> A {
    A::try_parse_from(args).expect("flags")
}

fuzz_target!(|data: &[u8]| {
    let [first, second, input @ ..] = data else {
        return;
    };
    let mode = ["words", "alpha", "ascii", "space", "chars"][usize::from(first % 5)];
    let window = (1 + (second % 4)).to_string();
    let seed = if second & 0x04 != 0 { "0x9e3779b97f4a7c15" } else { "0" };
    let bits = ["64", "128", "256", "64"][usize::from(second >> 3 & 3)];
    let chunk = (1 + (second >> 5) * 9).to_string();
    let (text, tokens, shingles, hashes, expected, got) = (
        file("text"),
        file("tokens"),
        file("shingles"),
        file("hashes"),
        file("expected"),
        file("got"),
    );
    std::fs::write(&text, input).unwrap();
    let mut tokenize = vec!["-m", mode];
    if first & 0x80 != 0 {
        tokenize.push("--keep-case");
    }
    if first & 0x40 != 0 {
        tokenize.push("--with-id");
    }

    // The pipeline, stage by stage; an error can only be sh-tokenize's (an empty id), after
    // which the other stages take the lines it wrote before it.
    let args = [&["sh-tokenize", "-q", "-i", &text, "-o", &tokens][..], &tokenize].concat();
    let refused = sh_tokenize::run(parsed(&args)).err().map(|e| e.to_string());
    if refused.is_some() {
        // A failed run leaves no output file: what it wrote before the error is the
        // pipeline's input from there, so it is made again from the lines before the error.
        let line: usize = refused
            .as_deref()
            .and_then(|m| m.strip_prefix("line "))
            .and_then(|m| m.split(':').next()?.parse().ok())
            .expect("an error on a line");
        let before: Vec<&[u8]> = input.split(|&b| b == b'\n').take(line - 1).collect();
        let mut prefix = before.join(&b"\n"[..]);
        if line > 1 {
            prefix.push(b'\n');
        }
        std::fs::write(&text, &prefix).unwrap();
        sh_tokenize::run(parsed(&args)).expect("the lines before the error");
        std::fs::write(&text, input).unwrap();
    }
    let args = ["sh-shingle", "-w", &window, "-i", &tokens, "-o", &shingles];
    sh_shingle::run(parsed(&args)).expect("sh-shingle");
    sh_hash::run(parsed(&["sh-hash", "--seed", seed, "-i", &shingles, "-o", &hashes]))
        .expect("sh-hash");
    let args = ["sh-compute", "--bits", bits, "-i", &hashes, "-o", &expected];
    sh_compute::run(parsed(&args)).expect("sh-compute");
    let expected = std::fs::read(&expected).unwrap();

    for threads in [&["-j", "1"][..], &["-j", "2", "--chunk-bytes", &chunk]] {
        let common = ["sh-fingerprint", "-w", &window, "--seed", seed, "--bits", bits];
        let files = ["-i", &text, "-o", &got];
        let args = [&common[..], &tokenize, threads, &files].concat();
        let _ = std::fs::remove_file(&got);
        let result = sh_fingerprint::run(parsed(&args)).err().map(|e| e.to_string());
        assert_eq!(result, refused, "{args:?}");
        if result.is_none() {
            assert!(
                std::fs::read(&got).unwrap() == expected,
                "{args:?}: not the pipeline's output"
            );
        }
    }
});
