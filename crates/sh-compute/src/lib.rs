//! sh-compute: a document's hashes to its simhash fingerprint of 64, 128 or 256 bits.
//!
//! - `args.rs`: the flags and the help text.
//! - `simhash.rs`: the bit-sliced per-bit counts of one document, for any number of words.
//! - `widen.rs`: the extra words of an item for a wide fingerprint, derived from its hash.
//! - `weight.rs`: item weights, summed exactly where their decimals allow.

mod args;
mod simhash;
mod weight;
mod widen;

use std::io::Write;

use sh_core::fingerprint::{Fingerprint, Width};
use sh_core::in_order::map_lines_in_order;
use sh_core::number::{leading_decimal, parse_u64, split_weight, WEIGHT_ERROR};
use sh_core::progress::Progress;
use sh_core::record::{find_byte, items, split_nonempty_id, write_id};
use sh_core::{Error, Result};

pub use args::{parse_bits, Args, EXAMPLES};
pub use simhash::Simhash;
pub use weight::Weight;
pub use widen::widen;

/// Runs the command: one fingerprint of `--bits` bits per input line.
pub fn run(args: Args) -> Result<()> {
    match args.bits {
        Width::Bits64 => compute::<1>(&args),
        Width::Bits128 => compute::<2>(&args),
        Width::Bits256 => compute::<4>(&args),
    }
}

/// Reads every record and writes its fingerprint of `WORDS` words, on `--threads` threads.
fn compute<const WORDS: usize>(args: &Args) -> Result<()> {
    let mut input = args.io.open_input()?;
    // One thread unless asked: with more, a chunk waits to be full before it is computed.
    let threads = args.threads.map_or(1, |n| n as usize);
    // This command shows no progress.
    let progress = Progress::new(true, "documents");
    map_lines_in_order(
        &mut input,
        || args.io.create_output(),
        progress,
        args.chunks.spread(threads),
        || {
            let mut simhash = Simhash::<WORDS>::default();
            move |line: u64, record: &[u8], out: &mut Vec<u8>| {
                let (id, payload) = split_nonempty_id(line, record)?;
                simhash.clear();
                add_items(&mut simhash, line, payload)?;
                write_id(out, id).map_err(Error::writing)?;
                write_fingerprint(&mut simhash, out).map_err(Error::writing)?;
                out.push(b'\n');
                Ok(())
            }
        },
    )
}

/// Adds the items of one record's payload, `HASH` or `HASH:WEIGHT` each, to `simhash`; bad
/// input is an error on `line` naming the item.
pub fn add_items<const WORDS: usize>(
    simhash: &mut Simhash<WORDS>,
    line: u64,
    payload: &[u8],
) -> Result<()> {
    // One scan of the line tells whether any item can carry a weight.
    let weighted = memchr::memchr(b':', payload).is_some();
    if weighted {
        for item in items(payload) {
            add_item(simhash, item).map_err(|what| Error::input(line, what, item))?;
        }
    } else {
        add_plain_items(simhash, payload).map_err(|(what, item)| Error::input(line, what, item))?;
    }
    Ok(())
}

/// Writes the fingerprint of the items added since the last clear, as sh-compute writes it;
/// nothing when there are none.
pub fn write_fingerprint<const WORDS: usize, W: Write>(
    simhash: &mut Simhash<WORDS>,
    out: &mut W,
) -> std::io::Result<()> {
    match simhash.fingerprint_words() {
        Some(words) => Fingerprint::from_words(&words).expect("1, 2 or 4 words").write_to(out),
        None => Ok(()),
    }
}

/// Adds every item of a payload without weights: the items of [`items`], each read with
/// [`leading_decimal`] when it is plain decimal and with `parse_u64` otherwise; on bad input,
/// what is wrong and the offending item.
fn add_plain_items<'a, const WORDS: usize>(
    simhash: &mut Simhash<WORDS>,
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
fn add_item<const WORDS: usize>(
    simhash: &mut Simhash<WORDS>,
    item: &[u8],
) -> std::result::Result<(), String> {
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
