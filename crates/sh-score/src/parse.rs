//! The lines sh-score reads: pairs `A<TAB>B[<TAB>DISTANCE[<TAB>…]]` (or sh-pairs' JSON arrays
//! `["A", "B", DISTANCE]`) and cluster labels `ID<TAB>LABEL[<TAB>…]`.

use std::borrow::Cow;

use memchr::memchr;

pub const ONE_FIELD: &str = "a pair needs two TAB-separated ids";
pub const NO_LABEL: &str = "a label line needs an id, a TAB and a label";
pub const EMPTY_ID: &str = "empty id";
pub const EMPTY_LABEL: &str = "empty label";
pub const SELF_PAIR: &str = "a pair of an id with itself";
pub const NO_DISTANCE: &str = "no distance (third field) on a pair line";
pub const BAD_DISTANCE: &str = "the distance is not an integer from 0 to 64";
pub const BAD_JSON: &str =
    "a JSON pair must be an array of two ids (strings or unsigned integers) and an optional distance";

/// The largest distance between two 64-bit fingerprints.
pub const MAX_DISTANCE: u8 = 64;

/// One pair line: its two ids and the third field, when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairLine<'a> {
    pub a: Cow<'a, [u8]>,
    pub b: Cow<'a, [u8]>,
    pub distance: Option<Cow<'a, [u8]>>,
}

/// Splits a pair line. `Ok(None)` for an empty line. A line starting with `[` is a JSON array.
pub fn pair(line: &[u8]) -> Result<Option<PairLine<'_>>, &'static str> {
    match line.first() {
        None => Ok(None),
        Some(b'[') => json_pair(line).map(Some),
        Some(_) => tsv_pair(line).map(Some),
    }
}

fn tsv_pair(line: &[u8]) -> Result<PairLine<'_>, &'static str> {
    let tab = memchr(b'\t', line).ok_or(ONE_FIELD)?;
    let (a, rest) = (&line[..tab], &line[tab + 1..]);
    let (b, distance) = match memchr(b'\t', rest) {
        Some(tab) => {
            let rest_after_b = &rest[tab + 1..];
            let end = memchr(b'\t', rest_after_b).unwrap_or(rest_after_b.len());
            (&rest[..tab], Some(&rest_after_b[..end]))
        }
        None => (rest, None),
    };
    checked(PairLine {
        a: Cow::Borrowed(a),
        b: Cow::Borrowed(b),
        distance: distance.map(Cow::Borrowed),
    })
}

fn json_pair(line: &[u8]) -> Result<PairLine<'_>, &'static str> {
    let values: Vec<serde_json::Value> = serde_json::from_slice(line).map_err(|_| BAD_JSON)?;
    let id = |value: &serde_json::Value| -> Result<Cow<'static, [u8]>, &'static str> {
        match value {
            serde_json::Value::String(text) => Ok(Cow::Owned(text.clone().into_bytes())),
            serde_json::Value::Number(n) => {
                n.as_u64().map(|n| Cow::Owned(n.to_string().into_bytes())).ok_or(BAD_JSON)
            }
            _ => Err(BAD_JSON),
        }
    };
    let (a, b, distance) = match values.as_slice() {
        [a, b] => (id(a)?, id(b)?, None),
        [a, b, d] => {
            let d = d.as_u64().filter(|&d| d <= u64::from(MAX_DISTANCE)).ok_or(BAD_DISTANCE)?;
            (id(a)?, id(b)?, Some(Cow::Owned(d.to_string().into_bytes())))
        }
        _ => return Err(BAD_JSON),
    };
    if a.contains(&b'\t') || b.contains(&b'\t') || a.contains(&b'\n') || b.contains(&b'\n') {
        return Err(BAD_JSON);
    }
    checked(PairLine { a, b, distance })
}

fn checked(pair: PairLine<'_>) -> Result<PairLine<'_>, &'static str> {
    if pair.a.is_empty() || pair.b.is_empty() {
        return Err(EMPTY_ID);
    }
    if pair.a == pair.b {
        return Err(SELF_PAIR);
    }
    Ok(pair)
}

/// A pair's distance: a decimal integer from 0 to 64, as sh-pairs writes it.
pub fn distance(field: Option<&[u8]>) -> Result<u8, &'static str> {
    let field = field.ok_or(NO_DISTANCE)?;
    if field.is_empty() || field.len() > 2 || !field.iter().all(u8::is_ascii_digit) {
        return Err(BAD_DISTANCE);
    }
    let value = field.iter().fold(0u8, |value, &digit| value * 10 + (digit - b'0'));
    if value > MAX_DISTANCE {
        return Err(BAD_DISTANCE);
    }
    Ok(value)
}

/// A label line's id and label.
pub type LabelLine<'a> = (&'a [u8], &'a [u8]);

/// Splits a label line `ID<TAB>LABEL[<TAB>…]`. `Ok(None)` for an empty line.
pub fn label(line: &[u8]) -> Result<Option<LabelLine<'_>>, &'static str> {
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

    fn ids(line: &[u8]) -> (Vec<u8>, Vec<u8>, Option<Vec<u8>>) {
        let p = pair(line).unwrap().unwrap();
        (p.a.into_owned(), p.b.into_owned(), p.distance.map(Cow::into_owned))
    }

    #[test]
    fn tsv_pairs_with_and_without_distance_and_extra_fields() {
        assert_eq!(ids(b"a\tb"), (b"a".to_vec(), b"b".to_vec(), None));
        assert_eq!(ids(b"a\tb\t3"), (b"a".to_vec(), b"b".to_vec(), Some(b"3".to_vec())));
        assert_eq!(ids(b"a\tb\t3\tx\ty"), (b"a".to_vec(), b"b".to_vec(), Some(b"3".to_vec())));
        assert_eq!(ids(b"a b\tc d"), (b"a b".to_vec(), b"c d".to_vec(), None));
        assert_eq!(pair(b""), Ok(None));
        assert_eq!(pair(b"a"), Err(ONE_FIELD));
        assert_eq!(pair(b"\tb"), Err(EMPTY_ID));
        assert_eq!(pair(b"a\t\t3"), Err(EMPTY_ID));
        assert_eq!(pair(b"a\ta\t0"), Err(SELF_PAIR));
    }

    #[test]
    fn json_pairs_as_sh_pairs_writes_them() {
        assert_eq!(ids(br#"["a", "b", 3]"#), (b"a".to_vec(), b"b".to_vec(), Some(b"3".to_vec())));
        assert_eq!(ids(br#"[7, "x"]"#), (b"7".to_vec(), b"x".to_vec(), None));
        assert_eq!(ids(br#"["a","b",64]"#).2, Some(b"64".to_vec()));
        assert_eq!(ids(br#"["a","b",0]"#).2, Some(b"0".to_vec()));
        assert_eq!(pair(br#"["a"]"#), Err(BAD_JSON));
        assert_eq!(pair(br#"["a", "b", 65]"#), Err(BAD_DISTANCE));
        assert_eq!(pair(br#"["a", -1]"#), Err(BAD_JSON));
        assert_eq!(pair(br#"["a", "b""#), Err(BAD_JSON));
        assert_eq!(pair(br#"["a\tb", "c"]"#), Err(BAD_JSON));
        assert_eq!(pair(br#"["a", "a"]"#), Err(SELF_PAIR));
    }

    #[test]
    fn distances_are_0_to_64() {
        for n in 0..=64u8 {
            assert_eq!(distance(Some(n.to_string().as_bytes())), Ok(n));
        }
        for bad in [&b""[..], b"65", b"-1", b"3.0", b" 3", b"100", b"x"] {
            assert_eq!(distance(Some(bad)), Err(BAD_DISTANCE), "{bad:?}");
        }
        assert_eq!(distance(None), Err(NO_DISTANCE));
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
