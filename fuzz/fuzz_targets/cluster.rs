//! sh-cluster on arbitrary pair lines (TSV and JSON arrays), against a reference built from
//! serde_json and a naive connected-components search.
//!
//! First byte: --min-size (1..=4); the rest is the input. The output in every style must be
//! produced without panic; when every JSON line is valid UTF-8, the TSV output (or the error
//! and its line) must equal the reference's. One byte-order mark at the start of a line is no
//! part of it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sh_cluster::{cluster_lines, Style};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Number(u64),
    Text(Vec<u8>),
}

impl Key {
    fn from_text(text: &[u8]) -> Key {
        let canonical = match text {
            [b'0'] => Some(0),
            [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit) => {
                std::str::from_utf8(text).unwrap().parse::<u64>().ok()
            }
            _ => None,
        };
        canonical.map_or_else(|| Key::Text(text.to_vec()), Key::Number)
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Key::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
            Key::Text(text) => out.extend_from_slice(text),
        }
    }
}

enum Parsed {
    Skip,
    Pair(Key, Key),
    Error,
    /// A JSON line that is not UTF-8: serde_json cannot be the reference.
    Unknown,
}

fn json_id(value: &Value) -> Option<Key> {
    match value {
        Value::String(s) if !s.is_empty() && !s.contains(['\t', '\n']) => {
            Some(Key::from_text(s.as_bytes()))
        }
        Value::Number(n) => {
            n.as_u64().filter(|_| !n.to_string().contains(['.', 'e', 'E'])).map(Key::Number)
        }
        _ => None,
    }
}

fn parse(line: &[u8]) -> Parsed {
    // One byte-order mark at the start of a line is no part of it.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.is_empty() {
        return Parsed::Skip;
    }
    if line[0] == b'[' {
        let Ok(text) = std::str::from_utf8(line) else {
            return Parsed::Unknown;
        };
        let elements = match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(elements)) => elements,
            // Valid JSON that a double cannot hold, which sh-cluster need not evaluate.
            Err(e) if e.to_string().contains("number out of range") => return Parsed::Unknown,
            _ => return Parsed::Error,
        };
        if elements.len() < 2 || elements[2..].iter().any(|e| e.is_array() || e.is_object()) {
            return Parsed::Error;
        }
        return match (json_id(&elements[0]), json_id(&elements[1])) {
            (Some(a), Some(b)) => Parsed::Pair(a, b),
            _ => Parsed::Error,
        };
    }
    let mut fields = line.split(|&b| b == b'\t');
    let a = fields.next().unwrap();
    let Some(b) = fields.next() else {
        return Parsed::Error;
    };
    if a.is_empty() || b.is_empty() {
        return Parsed::Error;
    }
    Parsed::Pair(Key::from_text(a), Key::from_text(b))
}

/// The TSV output, or the line number of the first error; `None` when the reference cannot tell.
fn reference(input: &[u8], min_size: usize) -> Option<Result<Vec<u8>, u64>> {
    // One CR before an LF is dropped; a last line without LF keeps its CR.
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let last = pieces.pop().expect("split gives one piece at least");
    let mut pieces: Vec<&[u8]> =
        pieces.into_iter().map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect();
    if !last.is_empty() {
        pieces.push(last);
    }
    let mut keys: Vec<Key> = Vec::new();
    let mut edges = Vec::new();
    let node = |keys: &mut Vec<Key>, key: Key| match keys.iter().position(|k| *k == key) {
        Some(n) => n,
        None => {
            keys.push(key);
            keys.len() - 1
        }
    };
    for (n, line) in pieces.into_iter().enumerate() {
        match parse(line) {
            Parsed::Skip => {}
            Parsed::Pair(a, b) => {
                let a = node(&mut keys, a);
                let b = node(&mut keys, b);
                edges.push((a, b));
            }
            Parsed::Error => return Some(Err(n as u64 + 1)),
            Parsed::Unknown => return None,
        }
    }
    // Components by repeated relabelling: slow and obviously right.
    let mut label: Vec<usize> = (0..keys.len()).collect();
    loop {
        let mut changed = false;
        for &(a, b) in &edges {
            let low = label[a].min(label[b]);
            for end in [a, b] {
                if label[end] != low {
                    label[end] = low;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = Vec::new();
    for first in 0..keys.len() {
        if label[first] != first {
            continue;
        }
        let members: Vec<usize> = (0..keys.len()).filter(|&m| label[m] == first).collect();
        if members.len() < min_size {
            continue;
        }
        for (i, &m) in members.iter().enumerate() {
            if i > 0 {
                out.push(b'\t');
            }
            keys[m].write(&mut out);
        }
        out.push(b'\n');
    }
    Some(Ok(out))
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let min_size = 1 + u32::from(selector % 4);
    let tsv = cluster_lines(input, min_size, Style::Tsv);
    for style in [Style::Json, Style::Labels, Style::Duplicates] {
        let other = cluster_lines(input, min_size, style);
        assert_eq!(other.is_ok(), tsv.is_ok());
    }
    let Some(expected) = reference(input, min_size as usize) else {
        return;
    };
    match (tsv, expected) {
        (Ok(got), Ok(expected)) => assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&expected),
            "input {:?}",
            String::from_utf8_lossy(input)
        ),
        (Err(e), Err(line)) => {
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("line {line}: ")),
                "{message}: expected line {line}"
            );
        }
        (got, expected) => panic!(
            "got {:?}, expected {:?}, input {:?}",
            got.map(|o| String::from_utf8_lossy(&o).into_owned()).map_err(|e| e.to_string()),
            expected.map(|o| String::from_utf8_lossy(&o).into_owned()),
            String::from_utf8_lossy(input)
        ),
    }
});
