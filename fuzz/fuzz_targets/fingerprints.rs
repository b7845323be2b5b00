//! sh-pairs' input, `[ID<TAB>]FINGERPRINT` lines, on arbitrary bytes, against a restatement of
//! the rules: an empty id is an error, a blank payload is skipped, one fingerprint per line, ids
//! on every line or on none, and without ids a record is named by its line number; `0x` and
//! exactly 32 or 64 hex digits is a wide fingerprint (16 digits a word, the highest first),
//! every record has the first one's width, and one byte-order mark at the start of a line is no
//! part of it.

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use sh_core::number::parse_u64;
use sh_core::progress::Progress;
use sh_core::RecordReader;
use sh_pairs::read_records;

/// A fingerprint's words, word 0 first: wide when `0x` and 32 or 64 hex digits, else 64-bit.
fn words(text: &[u8]) -> Option<Vec<u64>> {
    if let [b'0', b'x' | b'X', digits @ ..] = text {
        if matches!(digits.len(), 32 | 64) {
            let runs = digits.chunks(16).rev();
            let parse = |run: &[u8]| u64::from_str_radix(std::str::from_utf8(run).ok()?, 16).ok();
            // from_str_radix takes a leading '+', which is no hex digit.
            if digits.contains(&b'+') {
                return None;
            }
            return runs.map(parse).collect();
        }
    }
    parse_u64(text).ok().map(|value| vec![value])
}

/// The records as (name, fingerprint's words), or the line of the first error.
fn reference(input: &[u8]) -> Result<Vec<(Vec<u8>, Vec<u64>)>, u64> {
    // One CR before an LF is dropped; a last line without LF keeps its CR.
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let last = pieces.pop().expect("split gives one piece at least");
    let mut pieces: Vec<&[u8]> =
        pieces.into_iter().map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect();
    if !last.is_empty() {
        pieces.push(last);
    }
    let mut records = Vec::new();
    let mut named = None;
    let mut width = None;
    for (n, line) in pieces.into_iter().enumerate() {
        let number = n as u64 + 1;
        // One byte-order mark at the start of a line is no part of it.
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let (id, payload) = match line.iter().position(|&b| b == b'\t') {
            Some(tab) => (Some(&line[..tab]), &line[tab + 1..]),
            None => (None, line),
        };
        if id == Some(&[][..]) {
            return Err(number);
        }
        let fields: Vec<&[u8]> = payload.split(|&b| b == b' ').filter(|f| !f.is_empty()).collect();
        match fields[..] {
            [] => continue,
            [text] => {
                let fingerprint = words(text).ok_or(number)?;
                if *named.get_or_insert(id.is_some()) != id.is_some() {
                    return Err(number);
                }
                if *width.get_or_insert(fingerprint.len()) != fingerprint.len() {
                    return Err(number);
                }
                let name = match id {
                    Some(id) => id.to_vec(),
                    None => number.to_string().into_bytes(),
                };
                records.push((name, fingerprint));
            }
            _ => return Err(number),
        }
    }
    Ok(records)
}

fuzz_target!(|data: &[u8]| {
    let mut reader = RecordReader::new(Cursor::new(data.to_vec()), "fuzz".into());
    let ours = read_records(&mut reader, &mut Progress::new(true, ""));
    match (ours, reference(data)) {
        (Ok(records), Ok(expected)) => {
            assert_eq!(records.len(), expected.len());
            let flat: Vec<u64> = expected.iter().flat_map(|(_, words)| words.clone()).collect();
            assert_eq!(records.fingerprints, flat);
            for (r, (name, _)) in expected.iter().enumerate() {
                let mut text = Vec::new();
                records.names.get(r).push_text(&mut text);
                assert_eq!(&text, name, "record {r}");
            }
        }
        (Err(e), Err(line)) => {
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("line {line}: ")),
                "{message}, expected line {line}"
            );
        }
        (ours, expected) => {
            panic!("ours {:?}, expected {expected:?}", ours.map(|r| r.fingerprints))
        }
    }
});
