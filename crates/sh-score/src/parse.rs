//! The lines sh-score reads: pair lines, parsed by [`sh_core::pairs`] with one rule of sh-score's
//! own (a pair of an id with itself is an error), and cluster labels `ID<TAB>LABEL[<TAB>…]`.

use memchr::memchr;
use sh_core::pairs::{parse_pair, Pair};
use sh_core::record::without_bom;

pub const NO_LABEL: &str = "a label line needs an id, a TAB and a label";
pub const EMPTY_ID: &str = "empty id";
pub const EMPTY_LABEL: &str = "empty label";
pub const SELF_PAIR: &str = "a pair of an id with itself";

/// A pair line's ids as text (a JSON number in decimal, so `7`, `[7, …]` and `["7", …]` name one
/// id) and the pair, for its distance.
pub type PairLine<'a> = (&'a [u8], &'a [u8], Pair<'a>);

/// Reads a pair line, a byte-order mark at its start dropped ([`without_bom`]); `Ok(None)`
/// for an empty line. `scratch` and `spelling` are reused from line to line.
pub fn pair<'a>(
    line: &'a [u8],
    scratch: &'a mut Vec<u8>,
    spelling: &'a mut [itoa::Buffer; 2],
) -> Result<Option<PairLine<'a>>, &'static str> {
    let Some(pair) = parse_pair(without_bom(line), scratch).map_err(|e| e.message())? else {
        return Ok(None);
    };
    let [for_a, for_b] = spelling;
    let (a, b) = (pair.a.spelled(for_a), pair.b.spelled(for_b));
    if a == b {
        return Err(SELF_PAIR);
    }
    Ok(Some((a, b, pair)))
}

/// A label line's id and label.
pub type LabelLine<'a> = (&'a [u8], &'a [u8]);

/// Splits a label line `ID<TAB>LABEL[<TAB>…]` (a byte-order mark at its start dropped).
/// `Ok(None)` for an empty line.
pub fn label(line: &[u8]) -> Result<Option<LabelLine<'_>>, &'static str> {
    let line = without_bom(line);
    if line.is_empty() {
        return Ok(None);
    }
    let tab = memchr(b'\t', line).ok_or(NO_LABEL)?;
    let (id, rest) = (&line[..tab], &line[tab + 1..]);
    let label = &rest[..memchr(b'\t', rest).unwrap_or(rest.len())];
    if id.is_empty() {
        return Err(EMPTY_ID);
    }
    if label.is_empty() {
        return Err(EMPTY_LABEL);
    }
    Ok(Some((id, label)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sh_core::pairs::PairError;

    type Parsed = (Vec<u8>, Vec<u8>, Result<u8, PairError>);

    fn read(line: &[u8]) -> Result<Option<Parsed>, &'static str> {
        let (mut scratch, mut spelling) = (Vec::new(), [itoa::Buffer::new(), itoa::Buffer::new()]);
        let parsed = pair(line, &mut scratch, &mut spelling)?;
        Ok(parsed.map(|(a, b, pair)| (a.to_vec(), b.to_vec(), pair.distance())))
    }

    fn ok(
        a: &str,
        b: &str,
        distance: Result<u8, PairError>,
    ) -> Result<Option<Parsed>, &'static str> {
        Ok(Some((a.as_bytes().to_vec(), b.as_bytes().to_vec(), distance)))
    }

    #[test]
    fn tsv_and_json_pairs_with_and_without_distance() {
        assert_eq!(read(b"a\tb"), ok("a", "b", Err(PairError::NoDistance)));
        assert_eq!(read(b"a\tb\t3\tx\ty"), ok("a", "b", Ok(3)));
        assert_eq!(read(br#"["a", "b", 64]"#), ok("a", "b", Ok(64)));
        assert_eq!(read(br#"[7, "x"]"#), ok("7", "x", Err(PairError::NoDistance)));
        assert_eq!(read(br#"["a", "b", 65, "extra"]"#), ok("a", "b", Ok(65)));
        assert_eq!(read(br#"["a", "b", 256, "extra"]"#), ok("a", "b", Err(PairError::BadDistance)));
        assert_eq!(read(b""), Ok(None));
        assert_eq!(read(b"a"), Err(PairError::OneField.message()));
        assert_eq!(read(br#"["a"]"#), Err(PairError::TooFew.message()));
    }

    #[test]
    fn a_pair_of_an_id_with_itself_is_an_error_however_spelled() {
        assert_eq!(read(b"a\ta\t0"), Err(SELF_PAIR));
        assert_eq!(read(br#"["a", "a"]"#), Err(SELF_PAIR));
        assert_eq!(read(br#"[7, "7", 1]"#), Err(SELF_PAIR));
        assert_eq!(read(b"7\t[7]"), ok("7", "[7]", Err(PairError::NoDistance)));
        assert_eq!(read(br#"["007", 7]"#), ok("007", "7", Err(PairError::NoDistance)));
    }

    /// A byte-order mark at the start of a line (a gold file saved by an editor) is no part
    /// of the first id; one after the start is.
    #[test]
    fn a_byte_order_mark_at_the_start_of_a_line_is_dropped() {
        let bom = "\u{feff}";
        assert_eq!(read(format!("{bom}a\tb\t3").as_bytes()), ok("a", "b", Ok(3)));
        assert_eq!(
            read(format!("{bom}[\"a\", 7]").as_bytes()),
            ok("a", "7", Err(PairError::NoDistance))
        );
        assert_eq!(
            read(format!("a\t{bom}b").as_bytes()),
            ok("a", &format!("{bom}b"), Err(PairError::NoDistance))
        );
        assert_eq!(read(bom.as_bytes()), Ok(None));
        assert_eq!(label(format!("{bom}doc\t7").as_bytes()), Ok(Some((&b"doc"[..], &b"7"[..]))));
        assert_eq!(label(format!("{bom}\t7").as_bytes()), Err(EMPTY_ID));
    }

    #[test]
    fn label_lines() {
        assert_eq!(label(b"doc\t7"), Ok(Some((&b"doc"[..], &b"7"[..]))));
        assert_eq!(label(b"doc\t7\textra"), Ok(Some((&b"doc"[..], &b"7"[..]))));
        assert_eq!(label(b""), Ok(None));
        assert_eq!(label(b"doc"), Err(NO_LABEL));
        assert_eq!(label(b"\t7"), Err(EMPTY_ID));
        assert_eq!(label(b"doc\t"), Err(EMPTY_LABEL));
    }
}
