//! The record format: `[ID<TAB>]PAYLOAD`, the payload a list of space-separated items.

use memchr::memchr;

/// Splits a record into its id (everything before the first TAB) and payload.
pub fn split_id(record: &[u8]) -> (Option<&[u8]>, &[u8]) {
    match memchr(b'\t', record) {
        Some(tab) => (Some(&record[..tab]), &record[tab + 1..]),
        None => (None, record),
    }
}

/// The items of a payload: runs of bytes between spaces. Runs of spaces and leading or trailing
/// spaces give no empty items.
pub fn items(payload: &[u8]) -> Items<'_> {
    Items { rest: payload }
}

#[derive(Debug, Clone)]
pub struct Items<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Items<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| b != b' ')?;
        let rest = &self.rest[start..];
        let end = memchr(b' ', rest).unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

/// Writes the id part of a record (`ID<TAB>`) when there is one.
pub fn write_id<W: std::io::Write>(out: &mut W, id: Option<&[u8]>) -> std::io::Result<()> {
    if let Some(id) = id {
        out.write_all(id)?;
        out.write_all(b"\t")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_is_everything_before_the_first_tab() {
        assert_eq!(split_id(b"doc1\ta b"), (Some(&b"doc1"[..]), &b"a b"[..]));
        assert_eq!(split_id(b"a\tb\tc"), (Some(&b"a"[..]), &b"b\tc"[..]));
        assert_eq!(split_id(b"\tx"), (Some(&b""[..]), &b"x"[..]));
        assert_eq!(split_id(b"no id"), (None, &b"no id"[..]));
    }

    #[test]
    fn items_skip_runs_of_spaces() {
        let got: Vec<&[u8]> = items(b"  a  bb c ").collect();
        assert_eq!(got, [&b"a"[..], b"bb", b"c"]);
        assert_eq!(items(b"").count(), 0);
        assert_eq!(items(b"    ").count(), 0);
    }
}
