//! Printing clusters: TSV, JSON arrays, cluster labels, or the list of duplicates to drop.

use std::io::{self, Write};

use crate::ids::{Names, NodeName};
use crate::union_find::Clusters;

/// What to print for the clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// One cluster per line, ids TAB-separated.
    Tsv,
    /// One JSON array per cluster: numbers as numbers, other ids as strings.
    Json,
    /// `ID<TAB>N` for every member, clusters numbered from 1.
    Labels,
    /// Every member except each cluster's first, one per line.
    Duplicates,
}

pub fn write_clusters<W: Write>(
    out: &mut W,
    names: &Names,
    clusters: &Clusters,
    style: Style,
) -> io::Result<()> {
    let mut label = itoa::Buffer::new();
    for (n, cluster) in clusters.iter().enumerate() {
        match style {
            Style::Tsv => {
                for (k, &node) in cluster.iter().enumerate() {
                    if k > 0 {
                        out.write_all(b"\t")?;
                    }
                    write_id(out, names.get(node))?;
                }
                out.write_all(b"\n")?;
            }
            Style::Json => {
                out.write_all(b"[")?;
                for (k, &node) in cluster.iter().enumerate() {
                    if k > 0 {
                        out.write_all(b", ")?;
                    }
                    write_json_id(out, names.get(node))?;
                }
                out.write_all(b"]\n")?;
            }
            Style::Labels => {
                let label = label.format(n + 1).as_bytes();
                for &node in cluster {
                    write_id(out, names.get(node))?;
                    out.write_all(b"\t")?;
                    out.write_all(label)?;
                    out.write_all(b"\n")?;
                }
            }
            Style::Duplicates => {
                for &node in cluster.iter().skip(1) {
                    write_id(out, names.get(node))?;
                    out.write_all(b"\n")?;
                }
            }
        }
    }
    Ok(())
}

/// An id as it came in: numbers in decimal, text byte for byte.
#[inline]
fn write_id<W: Write>(out: &mut W, id: NodeName<'_>) -> io::Result<()> {
    match id {
        NodeName::Number(value) => out.write_all(itoa::Buffer::new().format(value).as_bytes()),
        NodeName::Text(text) => out.write_all(text),
    }
}

/// An id in JSON: a number, or a string with bytes that are not UTF-8 replaced by U+FFFD.
fn write_json_id<W: Write>(out: &mut W, id: NodeName<'_>) -> io::Result<()> {
    match id {
        NodeName::Number(value) => out.write_all(itoa::Buffer::new().format(value).as_bytes()),
        NodeName::Text(text) => {
            out.write_all(b"\"")?;
            for chunk in text.utf8_chunks() {
                write_json_escaped(out, chunk.valid().as_bytes())?;
                if !chunk.invalid().is_empty() {
                    out.write_all("\u{fffd}".as_bytes())?;
                }
            }
            out.write_all(b"\"")
        }
    }
}

/// Valid UTF-8 with `"`, `\` and control characters escaped.
fn write_json_escaped<W: Write>(out: &mut W, text: &[u8]) -> io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut plain = 0;
    for (at, &byte) in text.iter().enumerate() {
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => {
                &[b'\\', b'u', b'0', b'0', HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 15)]]
            }
            _ => continue,
        };
        out.write_all(&text[plain..at])?;
        out.write_all(escape)?;
        plain = at + 1;
    }
    out.write_all(&text[plain..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &[u8]) -> String {
        let mut out = Vec::new();
        write_json_id(&mut out, NodeName::Text(text)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json(b"doc-1"), r#""doc-1""#);
        assert_eq!(json(b"a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(json(b"\x01\x1f\x08\x0c\r\x7f"), "\"\\u0001\\u001f\\b\\f\\r\x7f\"");
        assert_eq!(json("é😀".as_bytes()), "\"é😀\"");
        assert_eq!(json(b"a\xffb\xc3"), "\"a\u{fffd}b\u{fffd}\"");
    }

    #[test]
    fn json_numbers_are_numbers() {
        let mut out = Vec::new();
        write_json_id(&mut out, NodeName::Number(u64::MAX)).unwrap();
        assert_eq!(out, b"18446744073709551615");
    }
}
