//! The shared parsers of sh-core on arbitrary bytes, each against a plain restatement of the
//! line format: records and line endings, ids, items, 64-bit integers, weights and their
//! exact fixed-point form in sh-compute.

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use sh_compute::Weight;
use sh_core::number::{
    long_decimal_line, parse_u64, parse_weight, split_weight, write_u64, NumberError,
};
use sh_core::record::{items, split_id};
use sh_core::RecordReader;

/// The records of an input by the contract: LF-terminated lines without the LF and one CR
/// before it; a last line without LF is a record too (and kept whole).
fn reference_records(input: &[u8]) -> Vec<&[u8]> {
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let last = pieces.pop().expect("split gives one piece at least");
    let mut records: Vec<&[u8]> =
        pieces.into_iter().map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect();
    if !last.is_empty() {
        records.push(last);
    }
    records
}

/// An unsigned 64-bit integer: decimal digits, or 0x/0X and hex digits; nothing else.
fn reference_u64(text: &[u8]) -> Result<u64, NumberError> {
    let (digits, radix) = match text {
        [] => return Err(NumberError::Empty),
        [b'+' | b'-', ..] => return Err(NumberError::Signed),
        [b'0', b'x' | b'X', hex @ ..] => (hex, 16),
        _ => (text, 10),
    };
    if digits.is_empty() || !digits.iter().all(|&b| (b as char).is_digit(radix)) {
        return Err(NumberError::NotAnInteger);
    }
    let mut value: u128 = 0;
    for &b in digits {
        value = value * u128::from(radix) + u128::from((b as char).to_digit(radix).unwrap());
        if value > u128::from(u64::MAX) {
            return Err(NumberError::TooLarge);
        }
    }
    Ok(value as u64)
}

/// A finite decimal number: Rust's own float syntax restricted to digits, sign, point and
/// exponent (so no `inf`, `nan`).
fn reference_weight(text: &[u8]) -> Option<f64> {
    if !text.iter().all(|b| b"0123456789+-.eE".contains(b)) {
        return None;
    }
    let value: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    value.is_finite().then_some(value)
}

fuzz_target!(|data: &[u8]| {
    // The quick reader of a plain decimal line takes the first line exactly when it is 17 to
    // 20 digits ended by an LF and of 64 bits, with the value of the reference.
    if data.len() >= 24 {
        let expected = data.iter().position(|&b| b == b'\n').and_then(|end| {
            let line = &data[..end];
            let digits = (17..=20).contains(&end) && line.iter().all(u8::is_ascii_digit);
            digits.then(|| reference_u64(line).ok().map(|value| (value, end))).flatten()
        });
        assert_eq!(long_decimal_line(data), expected);
    }

    // Records through the reused buffer.
    let mut reader = RecordReader::new(Cursor::new(data.to_vec()), "fuzz".into());
    let mut records = Vec::new();
    while let Some((line, record)) = reader.next_numbered().expect("reading memory") {
        assert_eq!(line, records.len() as u64 + 1);
        records.push(record.to_vec());
    }
    assert_eq!(records, reference_records(data));

    for record in &records {
        // The id is everything before the first TAB.
        let (id, payload) = split_id(record);
        match record.iter().position(|&b| b == b'\t') {
            Some(tab) => assert_eq!((id, payload), (Some(&record[..tab]), &record[tab + 1..])),
            None => assert_eq!((id, payload), (None, &record[..])),
        }
        // Items are what lies between spaces.
        let ours: Vec<&[u8]> = items(payload).collect();
        let reference: Vec<&[u8]> =
            payload.split(|&b| b == b' ').filter(|i| !i.is_empty()).collect();
        assert_eq!(ours, reference);

        for item in ours {
            let value = parse_u64(item);
            let reference = reference_u64(item);
            match (value, reference) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                // Junk after too many digits may be reported as either.
                (
                    Err(NumberError::TooLarge | NumberError::NotAnInteger),
                    Err(NumberError::TooLarge),
                )
                | (Err(NumberError::TooLarge), Err(NumberError::NotAnInteger)) => {}
                (a, b) => assert_eq!(a, b, "{:?}", String::from_utf8_lossy(item)),
            }
            if let Ok(value) = value {
                let mut text = Vec::new();
                write_u64(&mut text, value).unwrap();
                assert_eq!(parse_u64(&text), Ok(value));
            }

            let Some((key, weight)) = split_weight(item) else {
                assert!(!item.contains(&b':'));
                continue;
            };
            assert!(!weight.contains(&b':'), "split at the last colon");
            assert_eq!(key.len() + 1 + weight.len(), item.len());
            let parsed = parse_weight(weight);
            assert_eq!(
                parsed.map(f64::to_bits),
                reference_weight(weight).map(f64::to_bits),
                "{:?}",
                String::from_utf8_lossy(weight)
            );
            let full = Weight::parse(weight);
            assert_eq!(full.map(|w| w.approx.to_bits()), parsed.map(f64::to_bits));
            if let Some(Weight { exact: Some(exact), approx }) = full {
                // The fixed-point value is the same number, 10^18 times.
                let from_exact = exact as f64 / Weight::SCALE as f64;
                let tolerance = approx.abs() * 1e-14;
                assert!(
                    (from_exact - approx).abs() <= tolerance,
                    "{:?}: exact {exact} vs {approx}",
                    String::from_utf8_lossy(weight)
                );
            }
        }
    }
});
