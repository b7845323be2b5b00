//! The document-frequency table reader (sh-weight --df, sh-df --merge) on arbitrary bytes,
//! against a restatement of the format: a `#documents<TAB>N[<TAB>E]` first line, then
//! `ITEM<TAB>COUNT` lines split at the last TAB, with a non-empty ITEM and 1 <= COUNT <= N.

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use sh_core::number::parse_u64;
use sh_core::RecordReader;
use sh_df::read_table_from;

/// A number of the table: decimal digits only, as the format says (no `0x` hex).
fn decimal(text: &[u8]) -> Result<u64, ()> {
    match text.iter().all(u8::is_ascii_digit) {
        true => parse_u64(text).map_err(|_| ()),
        false => Err(()),
    }
}

/// (N, E, items) or the line of the first fault.
fn reference(input: &[u8]) -> Result<(u64, u64, Vec<(Vec<u8>, u64)>), u64> {
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let last = lines.pop().expect("one piece at least");
    let mut lines: Vec<&[u8]> =
        lines.into_iter().map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect();
    if !last.is_empty() {
        lines.push(last);
    }
    let first = *lines.first().ok_or(1u64)?;
    let fields: Vec<&[u8]> = first.split(|&b| b == b'\t').collect();
    let (n, e) = match fields[..] {
        [b"#documents", n] => (decimal(n).map_err(|_| 1u64)?, 0),
        [b"#documents", n, e] => (decimal(n).map_err(|_| 1u64)?, decimal(e).map_err(|_| 1u64)?),
        _ => return Err(1),
    };
    let mut items = Vec::new();
    for (at, line) in lines.iter().enumerate().skip(1) {
        let number = at as u64 + 1;
        let tab = line.iter().rposition(|&b| b == b'\t').ok_or(number)?;
        let (item, count) = (&line[..tab], &line[tab + 1..]);
        let count = decimal(count).map_err(|_| number)?;
        if item.is_empty() || count == 0 || count > n {
            return Err(number);
        }
        items.push((item.to_vec(), count));
    }
    Ok((n, e, items))
}

fuzz_target!(|input: &[u8]| {
    let mut reader = RecordReader::new(Cursor::new(input.to_vec()), "fuzz".into());
    let mut items = Vec::new();
    let got = read_table_from(&mut reader, &mut |_, _, item: &[u8], count| {
        items.push((item.to_vec(), count));
        Ok(())
    });
    match (got, reference(input)) {
        (Ok(header), Ok((n, e, expected))) => {
            assert_eq!((header.documents, header.undercount), (n, e));
            assert_eq!(items, expected);
        }
        (Err(error), Err(line)) => {
            let message = error.to_string();
            assert!(message.starts_with(&format!("line {line}: ")), "{message} (expected line {line})");
        }
        (got, expected) => panic!("reader {got:?}, reference {expected:?}"),
    }
});
