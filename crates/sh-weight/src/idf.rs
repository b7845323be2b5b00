//! IDF weights and the text they are written in.

use std::io::Write;

/// log(N / df), natural logarithm.
pub(crate) fn idf(documents: u64, count: u64) -> f64 {
    (documents as f64 / count as f64).ln()
}

/// Writes `weight` with four decimals; false (and nothing written) when that rounds to 0.
pub(crate) fn push_weight(out: &mut Vec<u8>, weight: f64) -> bool {
    const SCALE: f64 = 10_000.0;
    let scaled = (weight.abs() * SCALE).round();
    if scaled == 0.0 {
        return false;
    }
    if weight < 0.0 {
        out.push(b'-');
    }
    if scaled >= 1e18 {
        // Beyond exact integers: the plain decimal form (sh-compute reads it).
        let _ = write!(out, "{}", weight.abs());
        return true;
    }
    let scaled = scaled as u64;
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(digits.format(scaled / 10_000).as_bytes());
    let fraction = scaled % 10_000;
    out.push(b'.');
    let fraction = digits.format(fraction + 10_000);
    out.extend_from_slice(&fraction.as_bytes()[1..]);
    true
}

/// The text of the IDF weights of the counts 1 to [`TEXTS`] (or the table's documents, if
/// fewer), and of an item not in the table, as [`push_weight`] writes them: most items of a
/// corpus are in few documents, and writing the text once saves a logarithm and a number's
/// digits for each of them.
#[derive(Debug, Default)]
pub(crate) struct IdfTexts {
    /// The texts one after another; the text of count c ends at `ends[c]` (`ends[0]` is 0),
    /// and that of an item not in the table at `unseen_end`, after them. An empty text: the
    /// weight rounds to 0.
    bytes: Vec<u8>,
    ends: Vec<usize>,
    unseen_end: usize,
}

/// The counts whose weight's text is written once.
const TEXTS: u64 = 4096;

impl IdfTexts {
    /// The texts for a table of `documents` documents whose items not in it weigh
    /// `unseen_weight`.
    pub(crate) fn new(documents: u64, unseen_weight: f64) -> IdfTexts {
        let mut texts = IdfTexts { ends: vec![0], ..IdfTexts::default() };
        for count in 1..=documents.min(TEXTS) {
            push_weight(&mut texts.bytes, idf(documents, count));
            texts.ends.push(texts.bytes.len());
        }
        push_weight(&mut texts.bytes, unseen_weight);
        texts.unseen_end = texts.bytes.len();
        texts
    }

    /// The text of the weight of an item of `count` in the table (`None`: not in it), if it
    /// is written here; empty where the weight rounds to 0.
    #[inline]
    pub(crate) fn get(&self, count: Option<u64>) -> Option<&[u8]> {
        let (start, end) = match count {
            None => (*self.ends.last()?, self.unseen_end),
            Some(count) => {
                let at = usize::try_from(count).ok()?;
                (*self.ends.get(at.checked_sub(1)?)?, *self.ends.get(at)?)
            }
        };
        Some(&self.bytes[start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_have_four_decimals() {
        for (weight, text) in [
            (1.0, "1.0000"),
            (0.54931, "0.5493"),
            (12.00005, "12.0001"),
            (-2.5, "-2.5000"),
            (0.00004, ""),
            (1e30, "1000000000000000000000000000000"),
        ] {
            let mut out = Vec::new();
            assert_eq!(push_weight(&mut out, weight), !text.is_empty(), "{weight}");
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
    }

    /// Each text written once is what [`push_weight`] writes for its weight, for tables of
    /// one document to many more than the texts held.
    #[test]
    fn texts_are_the_weights_written() {
        for documents in [1, 2, 7, 4096, 4097, 1 << 40, u64::MAX] {
            let unseen = idf(documents, documents.min(3));
            let texts = IdfTexts::new(documents, unseen);
            let written = |weight| {
                let mut out = Vec::new();
                push_weight(&mut out, weight);
                out
            };
            assert_eq!(texts.get(None), Some(&written(unseen)[..]));
            assert_eq!(texts.get(Some(0)), None);
            let counts = (1..=documents.min(5000)).chain([documents / 2, documents]);
            for count in counts.filter(|&count| count > 0) {
                match texts.get(Some(count)) {
                    Some(text) => assert_eq!(text, written(idf(documents, count)), "{count}"),
                    None => assert!(count > TEXTS.min(documents), "{documents}: {count}"),
                }
            }
        }
        assert_eq!(IdfTexts::new(5, idf(5, 5)).get(Some(5)), Some(&b""[..]), "ln 1 is 0");
        assert_eq!(IdfTexts::default().get(None), None);
    }
}
