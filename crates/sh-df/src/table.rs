//! The document-frequency table, as text: a first line `#documents<TAB>N` (with a third field,
//! the undercount, when counts may be low), then one `ITEM<TAB>COUNT` line per item, by
//! decreasing count and then by item bytes.

use std::io::Write;
use std::path::Path;

use sh_core::number::{parse_u64, write_u64};
use sh_core::{Error, RecordReader, Result};

/// The first line of a table.
const HEADER: &[u8] = b"#documents";

/// What the first line of a table says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// How many documents were counted.
    pub documents: u64,
    /// The most by which any count may be below the truth (0: the counts are exact).
    pub undercount: u64,
}

/// Writes a whole table: the header, then the items in the order given.
pub fn write_table<'a, W: Write>(
    out: &mut W,
    header: Header,
    items: impl IntoIterator<Item = (&'a [u8], u64)>,
) -> std::io::Result<()> {
    write_header(out, header)?;
    for (item, count) in items {
        out.write_all(item)?;
        out.write_all(b"\t")?;
        write_u64(out, count)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes the first line of a table.
pub(crate) fn write_header(out: &mut impl Write, header: Header) -> std::io::Result<()> {
    out.write_all(HEADER)?;
    out.write_all(b"\t")?;
    write_u64(out, header.documents)?;
    if header.undercount > 0 {
        out.write_all(b"\t")?;
        write_u64(out, header.undercount)?;
    }
    out.write_all(b"\n")
}

/// Reads the table in `path`, handing each item and its count (with the header and the line
/// number) to `each`, and returns its header. Every fault names the file and the line.
pub fn read_table(
    path: &Path,
    mut each: impl FnMut(&Header, u64, &[u8], u64) -> Result<()>,
) -> Result<Header> {
    let mut reader = RecordReader::open(path)?;
    read_table_from(&mut reader, &mut each).map_err(|e| e.in_file(path))
}

/// [`read_table`] from any reader; errors name the line only.
pub fn read_table_from(
    reader: &mut RecordReader,
    each: &mut impl FnMut(&Header, u64, &[u8], u64) -> Result<()>,
) -> Result<Header> {
    let Some((line, first)) = reader.next_numbered()? else {
        return Err(Error::at_line(1, "empty table: no '#documents<TAB>N' line"));
    };
    let header = parse_header(first).map_err(|what| Error::input(line, what, first))?;
    while let Some((line, record)) = reader.next_numbered()? {
        let Some(tab) = record.iter().rposition(|&b| b == b'\t') else {
            return Err(Error::input(line, "table line is not ITEM<TAB>COUNT", record));
        };
        let (item, count) = (&record[..tab], &record[tab + 1..]);
        if item.is_empty() {
            return Err(Error::input(line, "empty item", record));
        }
        let count = parse_decimal(count)
            .map_err(|_| Error::input(line, "COUNT is not a whole number of documents", record))?;
        if count == 0 {
            return Err(Error::input(
                line,
                "count of 0 (an item in the table is in a document)",
                record,
            ));
        }
        if count > header.documents {
            return Err(Error::input(
                line,
                format!("count above the table's {} documents", header.documents),
                record,
            ));
        }
        each(&header, line, item, count)?;
    }
    Ok(header)
}

/// A number of the table: decimal digits only (the table's format, docs/DESIGN.md), not the
/// `0x` hex that fingerprints and hashes may be written in.
fn parse_decimal(text: &[u8]) -> std::result::Result<u64, ()> {
    if !text.iter().all(u8::is_ascii_digit) {
        return Err(());
    }
    parse_u64(text).map_err(|_| ())
}

fn parse_header(line: &[u8]) -> std::result::Result<Header, &'static str> {
    const EXPECTED: &str = "first line is not '#documents<TAB>N'";
    let mut fields = line.split(|&b| b == b'\t');
    if fields.next() != Some(HEADER) {
        return Err(EXPECTED);
    }
    let documents = fields.next().ok_or(EXPECTED)?;
    let documents = parse_decimal(documents).map_err(|_| EXPECTED)?;
    let undercount = match fields.next() {
        None => 0,
        Some(text) => parse_decimal(text).map_err(|_| "the undercount is not a whole number")?,
    };
    if fields.next().is_some() {
        return Err("first line has more than three fields");
    }
    Ok(Header { documents, undercount })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> std::result::Result<(Header, Vec<(String, u64)>), String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("df.tsv");
        std::fs::write(&path, text).unwrap();
        let mut items = Vec::new();
        let header = read_table(&path, |_, _, item, count| {
            items.push((String::from_utf8_lossy(item).into_owned(), count));
            Ok(())
        })
        .map_err(|e| e.to_string().replace(&path.display().to_string(), "FILE"))?;
        Ok((header, items))
    }

    #[test]
    fn round_trip() {
        let mut text = Vec::new();
        let items: [(&[u8], u64); 2] = [(b"a\tb", 3), (b"c", 1)];
        write_table(&mut text, Header { documents: 3, undercount: 0 }, items).unwrap();
        assert_eq!(text, b"#documents\t3\na\tb\t3\nc\t1\n");
        let (header, got) = read(std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!(header, Header { documents: 3, undercount: 0 });
        assert_eq!(got, [("a\tb".to_string(), 3), ("c".to_string(), 1)]);
        let (header, _) = read("#documents\t9\t2\n").unwrap();
        assert_eq!(header, Header { documents: 9, undercount: 2 });
    }

    #[test]
    fn faults_name_the_file_and_line() {
        for (text, error) in [
            ("", "FILE: line 1: empty table: no '#documents<TAB>N' line"),
            ("#docs\t3\n", "FILE: line 1: first line is not '#documents<TAB>N': '#docs\\t3'"),
            (
                "#documents\t-1\n",
                "FILE: line 1: first line is not '#documents<TAB>N': '#documents\\t-1'",
            ),
            ("#documents\t3\nx 2\n", "FILE: line 2: table line is not ITEM<TAB>COUNT: 'x 2'"),
            ("#documents\t3\nx\t4\n", "FILE: line 2: count above the table's 3 documents: 'x\\t4'"),
            (
                "#documents\t3\nx\t0\n",
                "FILE: line 2: count of 0 (an item in the table is in a document): 'x\\t0'",
            ),
            ("#documents\t3\n\t1\n", "FILE: line 2: empty item: '\\t1'"),
            (
                "#documents\t3\nx\t1\ny\tz\n",
                "FILE: line 3: COUNT is not a whole number of documents: 'y\\tz'",
            ),
            (
                "#documents\t3\nx\t0x2\n",
                "FILE: line 2: COUNT is not a whole number of documents: 'x\\t0x2'",
            ),
            (
                "#documents\t0x3\n",
                "FILE: line 1: first line is not '#documents<TAB>N': '#documents\\t0x3'",
            ),
            (
                "#documents\t3\t0x1\n",
                "FILE: line 1: the undercount is not a whole number: '#documents\\t3\\t0x1'",
            ),
        ] {
            assert_eq!(read(text).unwrap_err(), error, "{text:?}");
        }
    }
}
