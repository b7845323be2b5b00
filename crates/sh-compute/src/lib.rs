//! sh-compute: a document's hashes to its 64-bit simhash fingerprint.

mod simhash;
mod weight;

use std::io::Write;

use clap::Parser;
use sh_core::cli::IoArgs;
use sh_core::number::{leading_decimal, parse_u64, split_weight, write_u64, WEIGHT_ERROR};
use sh_core::record::{find_byte, items, split_nonempty_id, write_id};
use sh_core::{Error, Result};

pub use simhash::Simhash;
pub use weight::Weight;

const DESCRIPTION: &str = "\
Computes one simhash fingerprint (Charikar) per line from the line's 64-bit hashes.

Input: one record per line, `[ID<TAB>]HASH HASH …`: unsigned 64-bit integers in decimal or \
`0x` hex, separated by spaces; an item may carry a weight as `HASH:WEIGHT` (WEIGHT a finite \
decimal number; items without one weigh 1). An id, everything before the first TAB, is copied \
through byte for byte; an empty id (a line that starts with a TAB) is an error. Output: one line per input line, in order: `[ID<TAB>]FINGERPRINT` in \
decimal. A line with no hashes gives an empty line (or `ID<TAB>`), never a made-up value.

For each bit i (bit 0 the least significant), every item adds its weight when its hash has bit \
i set and subtracts it otherwise; bit i of the fingerprint is 1 when the sum is above 0 (a tie \
gives 0). Every occurrence counts, so a repeated item weighs more. Weights with at most 18 \
decimal places and magnitude below 10^18 are summed exactly (so 0.1 + 0.2 against 0.3 is a \
tie); larger or finer weights are summed in double precision.

A sign, trailing junk, a value above 2^64-1 or a bad weight is an error that names the line.";

#[derive(Debug, Parser)]
#[command(
    name = "sh-compute",
    version,
    about = "Compute a simhash fingerprint from each line's hashes"
)]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// Show no progress on standard error (this command shows none; every command takes
    /// --quiet, so that scripts can pass it to all)
    #[arg(short, long)]
    pub quiet: bool,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-tokenize < docs.txt | sh-shingle | sh-hash | sh-compute > fingerprints.txt",
        "One fingerprint per document, line for line.",
    ),
    ("echo '43981 48350 52719' | sh-compute", "Prints 44495."),
    ("echo 'doc7\t1:2.0 2:1.0' | sh-compute", "Weighted items; prints doc7, a TAB and 1."),
];

pub fn run(args: Args) -> Result<()> {
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    let mut simhash = Simhash::new();
    while let Some((line, record)) = input.next_numbered()? {
        let (id, payload) = split_nonempty_id(line, record)?;
        simhash.clear();
        // One scan of the line tells whether any item can carry a weight.
        let weighted = memchr::memchr(b':', payload).is_some();
        if weighted {
            for item in items(payload) {
                add_item(&mut simhash, item).map_err(|what| Error::input(line, what, item))?;
            }
        } else {
            add_plain_items(&mut simhash, payload)
                .map_err(|(what, item)| Error::input(line, what, item))?;
        }
        write_id(&mut out, id).map_err(Error::writing)?;
        if let Some(fingerprint) = simhash.fingerprint() {
            write_u64(&mut out, fingerprint).map_err(Error::writing)?;
        }
        out.write_all(b"\n").map_err(Error::writing)?;
    }
    out.finish()
}

/// Adds every item of a payload without weights: the items of [`items`], each read with
/// [`leading_decimal`] when it is plain decimal and with `parse_u64` otherwise; on bad input,
/// what is wrong and the offending item.
fn add_plain_items<'a>(
    simhash: &mut Simhash,
    payload: &'a [u8],
) -> std::result::Result<(), (String, &'a [u8])> {
    let mut rest = payload;
    loop {
        let Some(start) = rest.iter().position(|&b| b != b' ') else {
            return Ok(());
        };
        rest = &rest[start..];
        if let Some((hash, len)) = leading_decimal(rest) {
            simhash.add(hash);
            rest = &rest[len..];
            continue;
        }
        let end = find_byte(rest, b' ').unwrap_or(rest.len());
        let item = &rest[..end];
        simhash.add(parse_u64(item).map_err(|e| (e.to_string(), item))?);
        rest = &rest[end..];
    }
}

/// Adds `HASH` or `HASH:WEIGHT`; the error is what is wrong with it.
fn add_item(simhash: &mut Simhash, item: &[u8]) -> std::result::Result<(), String> {
    match split_weight(item) {
        None => simhash.add(parse_u64(item).map_err(|e| e.to_string())?),
        Some((hash, weight)) => {
            let hash = parse_u64(hash).map_err(|e| e.to_string())?;
            let weight = Weight::parse(weight).ok_or(WEIGHT_ERROR)?;
            simhash.add_weighted(hash, weight);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTORS: &str = include_str!("../../../tests/data/vectors/compute.jsonl");

    #[test]
    fn reference_vectors() {
        let mut checked = 0;
        for line in VECTORS.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let mut simhash = Simhash::new();
            let hashes = v["hashes"].as_array().unwrap();
            match v.get("weights") {
                Some(weights) => {
                    for (h, w) in hashes.iter().zip(weights.as_array().unwrap()) {
                        let weight = Weight::parse(w.to_string().as_bytes()).unwrap();
                        simhash.add_weighted(h.as_u64().unwrap(), weight);
                    }
                }
                None => hashes.iter().for_each(|h| simhash.add(h.as_u64().unwrap())),
            }
            assert_eq!(simhash.fingerprint(), v["fingerprint"].as_u64(), "{line}");
            checked += 1;
        }
        assert!(checked >= 5, "the vector file was read");
    }

    #[test]
    fn item_errors_say_what_is_wrong() {
        let mut s = Simhash::new();
        for bad in [&b"12a"[..], b"-1", b"18446744073709551616", b"1.5", b"1:x", b"1:inf", b"x:1"] {
            assert!(add_item(&mut s, bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        assert!(add_item(&mut s, b"0xff:-2.5").is_ok());
    }
}
