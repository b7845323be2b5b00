//! The whole pipeline on arbitrary bytes, through each command's own `run` (flags parsed by
//! clap, input and output as files, the output file replaced on success):
//! sh-tokenize --with-id | sh-shingle | sh-hash | sh-compute | sh-pairs | sh-cluster.
//!
//! First byte: tokenizer mode and case, shingle window, K. Checks: sh-tokenize fails on the
//! first line with an empty id (one that starts with a TAB, after one byte-order mark) and on
//! nothing else; the per-document stages never fail on what the stage before them wrote, keep
//! one line per line with the ids byte for byte, and carry empty documents as empty payloads;
//! sh-pairs fails only on a mix of lines with and without ids, or on an id that is a
//! byte-order mark alone (which it drops); sh-cluster reads what sh-pairs wrote unless an id
//! is one it cannot take (starting with `[`, or empty or so starting once the mark that
//! sh-cluster drops is gone).

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
        let dir = base.join(format!("sh-tools-fuzz-stages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        dir
    })
}

fn file(name: &str) -> String {
    dir().join(name).to_str().expect("UTF-8 path").to_string()
}

/// The records of a stage's output: LF-terminated lines.
fn lines(path: &str) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).expect("output file");
    assert!(bytes.is_empty() || bytes.ends_with(b"\n"), "output ends in LF");
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    lines.pop();
    lines
}

fn id(line: &[u8]) -> Option<&[u8]> {
    line.iter().position(|&b| b == b'\t').map(|tab| &line[..tab])
}

fn payload(line: &[u8]) -> &[u8] {
    line.iter().position(|&b| b == b'\t').map_or(line, |tab| &line[tab + 1..])
}

/// The text with one byte-order mark (U+FEFF) at its start dropped, as sh-tokenize drops it
/// from a line, and sh-pairs and sh-cluster drop it again from a line they read.
fn unmarked(text: &[u8]) -> &[u8] {
    text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text)
}

fn item_count(payload: &[u8]) -> usize {
    payload.split(|&b| b == b' ').filter(|i| !i.is_empty()).count()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let mode = ["words", "alpha", "ascii", "space", "chars"][usize::from(selector % 5)];
    let window = (1 + (selector >> 3) % 4).to_string();
    let k = ((selector >> 5) * 9 % 65).min(63).to_string();
    let (text, tokens, shingles, hashes, fingerprints, pairs, clusters) = (
        file("text"),
        file("tokens"),
        file("shingles"),
        file("hashes"),
        file("fingerprints"),
        file("pairs"),
        file("clusters"),
    );
    std::fs::write(&text, input).unwrap();

    let mut args =
        vec!["sh-tokenize", "--with-id", "--quiet", "-m", mode, "-i", &text, "-o", &tokens];
    if selector & 0x80 != 0 {
        args.push("--keep-case");
    }
    let tokenized = sh_tokenize::run(sh_tokenize::Args::try_parse_from(args).unwrap());
    let empty_id =
        input.split(|&b| b == b'\n').position(|line| unmarked(line).first() == Some(&b'\t'));
    match (tokenized, empty_id) {
        (Ok(()), None) => {}
        (Err(e), Some(n)) => {
            let message = e.to_string();
            assert!(message.starts_with(&format!("line {}: empty id", n + 1)), "{message}");
            return;
        }
        (result, empty_id) => panic!("sh-tokenize: {result:?}, empty id on line {empty_id:?}"),
    }
    let token_lines = lines(&tokens);
    let mut count = input.split(|&b| b == b'\n').count();
    if input.is_empty() || input.ends_with(b"\n") {
        count -= 1;
    }
    assert_eq!(token_lines.len(), count, "one line out per line in");

    let args = ["sh-shingle", "-w", &window, "-i", &tokens, "-o", &shingles];
    sh_shingle::run(sh_shingle::Args::try_parse_from(args).unwrap()).expect("sh-shingle");
    let shingle_lines = lines(&shingles);
    assert_eq!(shingle_lines.len(), count);

    sh_hash::run(
        sh_hash::Args::try_parse_from(["sh-hash", "-i", &shingles, "-o", &hashes]).unwrap(),
    )
    .expect("sh-hash");
    let hash_lines = lines(&hashes);
    assert_eq!(hash_lines.len(), count);

    let args = ["sh-compute", "-i", &hashes, "-o", &fingerprints];
    sh_compute::run(sh_compute::Args::try_parse_from(args).unwrap()).expect("sh-compute");
    let fingerprint_lines = lines(&fingerprints);
    assert_eq!(fingerprint_lines.len(), count);

    for n in 0..count {
        let ids = [&token_lines[n], &shingle_lines[n], &hash_lines[n], &fingerprint_lines[n]]
            .map(|l| id(l));
        assert!(ids.iter().all(|i| *i == ids[0]), "line {}: ids {ids:?}", n + 1);
        let tokens = item_count(payload(&token_lines[n]));
        let shingles = item_count(payload(&shingle_lines[n]));
        assert_eq!(item_count(payload(&hash_lines[n])), shingles);
        assert_eq!(shingles == 0, tokens == 0, "short documents get one shingle");
        assert_eq!(item_count(payload(&fingerprint_lines[n])), usize::from(shingles > 0));
    }

    let args = ["sh-pairs", "--quiet", "-k", &k, "-j", "1", "-i", &fingerprints, "-o", &pairs];
    // An id that starts with a mark (its line started with two, and sh-tokenize dropped one)
    // loses it in sh-pairs, which drops one at the start of a line too: an id that is a mark
    // alone is empty there, an error.
    let ids: Vec<&[u8]> = fingerprint_lines.iter().filter_map(|l| id(l)).collect();
    if let Err(e) = sh_pairs::run(sh_pairs::Args::try_parse_from(args).unwrap()) {
        let message = e.to_string();
        let lone_mark = ids.iter().any(|i| unmarked(i).is_empty());
        assert!(
            message.contains("id among lines") || lone_mark && message.contains("empty id"),
            "sh-pairs: {message}"
        );
        return;
    }
    let args = ["sh-cluster", "--quiet", "-i", &pairs, "-o", &clusters];
    if let Err(e) = sh_cluster::run(sh_cluster::Args::try_parse_from(args).unwrap()) {
        // An id of sh-pairs that sh-cluster cannot take: one that starts with `[` (read as
        // JSON) or, once sh-cluster drops a mark at its start again, is empty or starts so.
        let awkward = ids.iter().map(|i| unmarked(i)).any(|i| {
            let seen = unmarked(i);
            i.first() == Some(&b'[') || seen.is_empty() || seen.first() == Some(&b'[')
        });
        assert!(awkward, "sh-cluster cannot read sh-pairs: {e}");
    }
});
