//! sh-hash: items to 64-bit lookup3 hashes, one output line per input line.

mod lookup3;

use std::io::Write;

use clap::Parser;
use sh_core::cli::IoArgs;
use sh_core::number::{parse_u64, parse_weight, push_u64, split_weight, WEIGHT_ERROR};
use sh_core::record::{items, split_nonempty_id};
use sh_core::LINE_PIECE;
use sh_core::{Error, Result};

pub use lookup3::{hash64, hashlittle2};

const DESCRIPTION: &str = "\
Hashes every item of every line to an unsigned 64-bit integer, printed in decimal.

Input: one record per line, `[ID<TAB>]ITEM ITEM …`: items separated by spaces (runs of spaces and \
leading or trailing spaces are ignored). An id, everything before the first TAB, is copied \
through byte for byte; an empty id (a line that starts with a TAB) is an error. Output: one line per input line, in order: `[ID<TAB>]HASH HASH …`, one \
hash per item in item order. A line with no items gives an empty line (or `ID<TAB>`).

The hash is Bob Jenkins' lookup3 `hashlittle2` over the item's bytes, returned as \
`(c << 32) | b` where c and b are its two 32-bit results, started with `pc = SEED >> 32` and \
`pb = SEED & 0xffffffff`. It is the hash of the seomoz simhash tools, so fingerprints agree.

With --weighted every item is `ITEM:WEIGHT` (split at the last colon); ITEM is hashed and the \
weight is kept: `HASH:WEIGHT`. WEIGHT is a finite decimal number (`2`, `0.5`, `-1`, `1e3`); \
anything else is an error, as is an empty ITEM (`:3`).";

#[derive(Debug, Parser)]
#[command(name = "sh-hash", version, about = "Hash items to 64-bit lookup3 (Jenkins) hashes")]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// Start the hash with this 64-bit seed (decimal or 0x hex)
    #[arg(long, value_name = "SEED", default_value = "0", value_parser = parse_seed)]
    pub seed: u64,

    /// Items are ITEM:WEIGHT; hash ITEM and keep the weight (HASH:WEIGHT)
    #[arg(long)]
    pub weighted: bool,

    /// Show no progress and no notes on standard error (this command shows neither; every
    /// command takes --quiet, so that scripts can pass it to all)
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--seed SEED`: a 64-bit number, decimal or `0x` hex.
pub fn parse_seed(text: &str) -> std::result::Result<u64, String> {
    parse_u64(text.as_bytes()).map_err(|e| e.to_string())
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-tokenize < docs.txt | sh-shingle -w 4 | sh-hash | sh-compute",
        "A simhash fingerprint for every line of docs.txt.",
    ),
    ("echo 'the_quick brown_fox' | sh-hash", "Two hashes on one line."),
    (
        "echo 'rare:3.5 common:0.2' | sh-hash --weighted | sh-compute",
        "A fingerprint where each item counts with its weight.",
    ),
    (
        "sh-hash --seed 0x1234 -i shingles.txt -o hashes.txt",
        "Another family of hashes, from a file to a file.",
    ),
];

pub fn run(args: Args) -> Result<()> {
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    let mut pending = Vec::new();
    while let Some((line, record)) = input.next_numbered()? {
        let (id, payload) = split_nonempty_id(line, record)?;
        pending.clear();
        if let Some(id) = id {
            pending.extend_from_slice(id);
            pending.push(b'\t');
        }
        hash_items(line, payload, args.seed, args.weighted, &mut pending, &mut out)?;
        pending.push(b'\n');
        out.write_all(&pending).map_err(Error::writing)?;
    }
    out.finish()
}

/// Appends the hashes of a payload's items to `pending`, separated by spaces, and writes
/// `pending` to `out` whenever it holds [`LINE_PIECE`] bytes, so that a long line's hashes are
/// never all held at once; what is left is the caller's to write. Bad input is an error on
/// `line` naming the item.
pub fn hash_items<W: Write>(
    line: u64,
    payload: &[u8],
    seed: u64,
    weighted: bool,
    pending: &mut Vec<u8>,
    out: &mut W,
) -> Result<()> {
    for (n, item) in items(payload).enumerate() {
        if n > 0 {
            pending.push(b' ');
        }
        if weighted {
            let (key, weight) = split_weight(item)
                .ok_or_else(|| Error::input(line, "weighted item has no ':WEIGHT'", item))?;
            if parse_weight(weight).is_none() {
                return Err(Error::input(line, WEIGHT_ERROR, item));
            }
            if key.is_empty() {
                // As sh-df and sh-weight refuse it: no stage makes one, and its hash would
                // stand for nothing of the document.
                return Err(Error::input(line, "weighted item has an empty ITEM", item));
            }
            push_u64(pending, hash64(key, seed));
            pending.push(b':');
            pending.extend_from_slice(weight);
        } else {
            push_u64(pending, hash64(item, seed));
        }
        if pending.len() >= LINE_PIECE {
            out.write_all(pending).map_err(Error::writing)?;
            pending.clear();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_written_in_pieces_that_join_to_the_whole() {
        let items: Vec<String> = (0..200_000).map(|i| format!("w{i}:{}", i % 5)).collect();
        let payload = items.join("  ");
        for weighted in [false, true] {
            let (mut out, mut pending) = (Vec::new(), b"id\t".to_vec());
            hash_items(1, payload.as_bytes(), 7, weighted, &mut pending, &mut out).unwrap();
            assert!(!out.is_empty() && pending.len() < LINE_PIECE, "written in pieces");
            out.extend_from_slice(&pending);
            let expected: Vec<String> = items
                .iter()
                .map(|item| match item.split_once(':') {
                    Some((key, weight)) if weighted => {
                        format!("{}:{weight}", hash64(key.as_bytes(), 7))
                    }
                    _ => hash64(item.as_bytes(), 7).to_string(),
                })
                .collect();
            assert!(out == format!("id\t{}", expected.join(" ")).into_bytes(), "{weighted}");
        }
    }

    const VECTORS: &str = include_str!("../../../tests/data/vectors/jenkins.jsonl");

    #[test]
    fn reference_vectors() {
        let mut checked = 0;
        for line in VECTORS.lines().filter(|l| !l.trim().is_empty()) {
            let input = json_field(line, "input");
            let input: String = serde_json::from_str(input).unwrap();
            let seed: u64 = json_field(line, "seed").parse().unwrap();
            let hash: u64 = json_field(line, "hash").parse().unwrap();
            assert_eq!(hash64(input.as_bytes(), seed), hash, "{line}");
            checked += 1;
        }
        assert!(checked >= 6, "the vector file was read");
    }

    fn json_field<'a>(line: &'a str, name: &str) -> &'a str {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let raw = value[name].to_string();
        let start = line.find(&raw).unwrap();
        &line[start..start + raw.len()]
    }

    /// `hashlittle` is `hashlittle2` with `pb = 0` keeping only `c`, our high 32 bits. These
    /// values come from an independent implementation, `lookup3_little` of the PyPI package
    /// pyhash2 0.9.4, as `h(bytes)` and `h(bytes, seed=7)`.
    #[test]
    fn high_half_matches_an_independent_hashlittle_at_block_boundaries() {
        let cases: [(&[u8], u32, u32); 7] = [
            (b"hello", 885767278, 3037895385),
            (b"abcdefghijkl", 1074985083, 2154566824),
            (b"abcdefghijklm", 2457938169, 4154586032),
            (b"abcdefghijklmnopqrstuvwx", 459481066, 996782193),
            (b"abcdefghijklmnopqrstuvwxy", 1814676962, 1631528812),
            ("\u{e9}cole stra\u{df}e \u{4e2d}\u{6587}".as_bytes(), 268644243, 417740726),
            (b"abc\0", 4193291934, 3992486578),
        ];
        for (bytes, unseeded, seeded) in cases {
            assert_eq!((hash64(bytes, 0) >> 32) as u32, unseeded, "{bytes:?}");
            assert_eq!((hash64(bytes, 7 << 32) >> 32) as u32, seeded, "{bytes:?} seed 7");
        }
    }
}
