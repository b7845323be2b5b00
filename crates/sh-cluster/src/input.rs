//! Pair lines: `A<TAB>B[<TAB>…]` as sh-pairs prints them, or a JSON array `[a, b, …]` as the
//! seed's simhash-find-all prints them.

use memchr::memchr;
use sh_core::number::parse_u64;

/// One id of a pair, as the line gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raw<'a> {
    /// The id's text: a TSV field or a JSON string.
    Spelled(&'a [u8]),
    /// A JSON number (always an unsigned 64-bit integer).
    Number(u64),
}

/// The two ids of a pair line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair<'a> {
    pub a: Raw<'a>,
    pub b: Raw<'a>,
}

pub const ONE_FIELD: &str = "a pair line needs two TAB-separated ids";
pub const EMPTY_ID: &str = "empty id";
pub const TOO_FEW: &str = "a JSON pair needs at least two ids";
pub const BROKEN_ARRAY: &str = "broken JSON array";
pub const BROKEN_STRING: &str = "broken JSON string";
pub const AFTER_ARRAY: &str = "text after the JSON array";
pub const BAD_ID_TYPE: &str = "a JSON id must be a string or an unsigned 64-bit integer";
pub const BAD_EXTRA: &str =
    "elements after the first two must be JSON numbers, strings, true, false or null";
pub const TAB_IN_ID: &str = "an id cannot hold a TAB or a line feed";

/// Parses one line (without its line ending). `Ok(None)` for an empty line; `Err` holds what is
/// wrong with it. `scratch` holds JSON strings whose escapes had to be decoded.
pub fn parse_pair<'a>(
    line: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Result<Option<Pair<'a>>, &'static str> {
    match line.first() {
        None => Ok(None),
        Some(b'[') => parse_json(line, scratch).map(Some),
        Some(_) => parse_tsv(line).map(Some),
    }
}

#[inline]
fn parse_tsv(line: &[u8]) -> Result<Pair<'_>, &'static str> {
    let tab = memchr(b'\t', line).ok_or(ONE_FIELD)?;
    let a = &line[..tab];
    let rest = &line[tab + 1..];
    let b = &rest[..memchr(b'\t', rest).unwrap_or(rest.len())];
    if a.is_empty() || b.is_empty() {
        return Err(EMPTY_ID);
    }
    Ok(Pair { a: Raw::Spelled(a), b: Raw::Spelled(b) })
}

/// Where a JSON id lies until the line is done.
#[derive(Debug, Clone)]
enum Slot {
    Number(u64),
    /// Bytes of the line (a string without escapes).
    Line(usize, usize),
    /// Bytes of the scratch buffer (a decoded string).
    Scratch(usize, usize),
}

fn parse_json<'a>(line: &'a [u8], scratch: &'a mut Vec<u8>) -> Result<Pair<'a>, &'static str> {
    scratch.clear();
    let mut json = Json { text: line, at: 1 };
    let mut ids = [Slot::Number(0), Slot::Number(0)];
    let mut count = 0usize;
    json.skip_space();
    if json.peek() == Some(b']') {
        return Err(TOO_FEW);
    }
    loop {
        json.skip_space();
        if count < 2 {
            ids[count] = json.id(scratch)?;
        } else {
            json.extra(scratch)?;
        }
        count += 1;
        json.skip_space();
        match json.next() {
            Some(b',') => {}
            Some(b']') => break,
            _ => return Err(BROKEN_ARRAY),
        }
    }
    json.skip_space();
    if json.at != line.len() {
        return Err(AFTER_ARRAY);
    }
    if count < 2 {
        return Err(TOO_FEW);
    }
    let scratch: &'a [u8] = scratch;
    let resolve = |slot: &Slot| match *slot {
        Slot::Number(value) => Raw::Number(value),
        Slot::Line(start, end) => Raw::Spelled(&line[start..end]),
        Slot::Scratch(start, end) => Raw::Spelled(&scratch[start..end]),
    };
    Ok(Pair { a: resolve(&ids[0]), b: resolve(&ids[1]) })
}

/// A cursor over one line of JSON.
struct Json<'a> {
    text: &'a [u8],
    at: usize,
}

impl Json<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn skip_digits(&mut self) -> usize {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.at - start
    }

    /// One of the first two elements: a string or an unsigned 64-bit integer.
    fn id(&mut self, scratch: &mut Vec<u8>) -> Result<Slot, &'static str> {
        match self.peek() {
            Some(b'"') => {
                let slot = self.string(scratch)?;
                let bytes = match slot {
                    Slot::Line(start, end) => &self.text[start..end],
                    Slot::Scratch(start, end) => &scratch[start..end],
                    Slot::Number(_) => &[][..],
                };
                if bytes.is_empty() {
                    return Err(EMPTY_ID);
                }
                if bytes.iter().any(|&b| b == b'\t' || b == b'\n') {
                    return Err(TAB_IN_ID);
                }
                Ok(slot)
            }
            Some(b'-' | b'0'..=b'9') => self.number()?.map(Slot::Number).ok_or(BAD_ID_TYPE),
            Some(b't' | b'f' | b'n' | b'[' | b'{') => Err(BAD_ID_TYPE),
            _ => Err(BROKEN_ARRAY),
        }
    }

    /// An element after the first two, checked and ignored.
    fn extra(&mut self, scratch: &mut Vec<u8>) -> Result<(), &'static str> {
        match self.peek() {
            Some(b'"') => self.string(scratch).map(drop),
            Some(b'-' | b'0'..=b'9') => self.number().map(drop),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'[' | b'{') => Err(BAD_EXTRA),
            _ => Err(BROKEN_ARRAY),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), &'static str> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(BROKEN_ARRAY)
        }
    }

    /// A JSON number; its value when it is an integer from 0 to 2^64-1 written without sign,
    /// fraction or exponent.
    fn number(&mut self) -> Result<Option<u64>, &'static str> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.skip_digits();
            }
            _ => return Err(BROKEN_ARRAY),
        }
        let integer_end = self.at;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.skip_digits() == 0 {
                return Err(BROKEN_ARRAY);
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.skip_digits() == 0 {
                return Err(BROKEN_ARRAY);
            }
        }
        if negative || self.at != integer_end {
            return Ok(None);
        }
        Ok(parse_u64(&self.text[start..integer_end]).ok())
    }

    /// A JSON string, the cursor on its opening quote. Without escapes it stays in the line;
    /// with them it is decoded into `scratch`.
    fn string(&mut self, scratch: &mut Vec<u8>) -> Result<Slot, &'static str> {
        self.at += 1;
        let start = self.at;
        loop {
            match self.next() {
                Some(b'"') => return Ok(Slot::Line(start, self.at - 1)),
                Some(b'\\') => {
                    self.at -= 1;
                    break;
                }
                Some(0..=0x1f) | None => return Err(BROKEN_STRING),
                Some(_) => {}
            }
        }
        let decoded = scratch.len();
        scratch.extend_from_slice(&self.text[start..self.at]);
        loop {
            match self.next() {
                Some(b'"') => return Ok(Slot::Scratch(decoded, scratch.len())),
                Some(b'\\') => self.escape(scratch)?,
                Some(0..=0x1f) | None => return Err(BROKEN_STRING),
                Some(byte) => scratch.push(byte),
            }
        }
    }

    /// The escape after a backslash, decoded into `scratch`.
    fn escape(&mut self, scratch: &mut Vec<u8>) -> Result<(), &'static str> {
        let byte = match self.next().ok_or(BROKEN_STRING)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut code = self.hex4()?;
                if (0xd800..0xdc00).contains(&code) {
                    if self.next() != Some(b'\\') || self.next() != Some(b'u') {
                        return Err(BROKEN_STRING);
                    }
                    let low = self.hex4()?;
                    if !(0xdc00..0xe000).contains(&low) {
                        return Err(BROKEN_STRING);
                    }
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                }
                let c = char::from_u32(code).ok_or(BROKEN_STRING)?;
                scratch.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                return Ok(());
            }
            _ => return Err(BROKEN_STRING),
        };
        scratch.push(byte);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, &'static str> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = match self.next() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(BROKEN_STRING),
            };
            code = code << 4 | u32::from(digit);
        }
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<(Raw<'static>, Raw<'static>)>, &'static str> {
        let line: &'static [u8] = Box::leak(line.as_bytes().to_vec().into_boxed_slice());
        let scratch = Box::leak(Box::new(Vec::new()));
        parse_pair(line, scratch).map(|pair| pair.map(|p| (p.a, p.b)))
    }

    fn text(s: &'static str) -> Raw<'static> {
        Raw::Spelled(s.as_bytes())
    }

    #[test]
    fn tsv_pairs() {
        assert_eq!(parse("a\tb"), Ok(Some((text("a"), text("b")))));
        assert_eq!(parse("1\t2\t3"), Ok(Some((text("1"), text("2")))));
        assert_eq!(parse("a\tb\t\tjunk\t"), Ok(Some((text("a"), text("b")))));
        assert_eq!(parse("a b\t [c]"), Ok(Some((text("a b"), text(" [c]")))));
        assert_eq!(parse(""), Ok(None));
        assert_eq!(parse("a"), Err(ONE_FIELD));
        assert_eq!(parse("a b"), Err(ONE_FIELD));
        assert_eq!(parse("\tb"), Err(EMPTY_ID));
        assert_eq!(parse("a\t"), Err(EMPTY_ID));
        assert_eq!(parse("a\t\tc"), Err(EMPTY_ID));
    }

    #[test]
    fn json_pairs() {
        assert_eq!(parse("[1, 2]"), Ok(Some((Raw::Number(1), Raw::Number(2)))));
        assert_eq!(parse("[1,2,3]"), Ok(Some((Raw::Number(1), Raw::Number(2)))));
        assert_eq!(
            parse("[ \"a\" , 18446744073709551615 , 0.5e3, -1, \"x\", true, false, null ] \t"),
            Ok(Some((text("a"), Raw::Number(u64::MAX))))
        );
        assert_eq!(
            parse(r#"["a\"b", "c\\d\/\u00e9\ud83d\ude00"]"#),
            Ok(Some((text("a\"b"), text("c\\d/é😀"))))
        );
        assert_eq!(parse(r#"["007", "7"]"#), Ok(Some((text("007"), text("7")))));
        assert_eq!(parse("[0, \"\u{e9}\"]"), Ok(Some((Raw::Number(0), text("é")))));
    }

    #[test]
    fn broken_json() {
        for (line, what) in [
            ("[", BROKEN_ARRAY),
            ("[]", TOO_FEW),
            ("[ ]", TOO_FEW),
            ("[1]", TOO_FEW),
            ("[\"a\"]", TOO_FEW),
            ("[1,]", BROKEN_ARRAY),
            ("[1 2]", BROKEN_ARRAY),
            ("[1, 2", BROKEN_ARRAY),
            ("[1, 2,", BROKEN_ARRAY),
            ("[1, 2] x", AFTER_ARRAY),
            ("[1, 2]]", AFTER_ARRAY),
            ("[007, 2]", BROKEN_ARRAY),
            ("[1x, 2]", BROKEN_ARRAY),
            ("[-1, 2]", BAD_ID_TYPE),
            ("[1.5, 2]", BAD_ID_TYPE),
            ("[1e3, 2]", BAD_ID_TYPE),
            ("[18446744073709551616, 2]", BAD_ID_TYPE),
            ("[null, 2]", BAD_ID_TYPE),
            ("[[1], 2]", BAD_ID_TYPE),
            ("[1, 2, [3]]", BAD_EXTRA),
            ("[1, 2, {}]", BAD_EXTRA),
            ("[1, 2, tru]", BROKEN_ARRAY),
            ("[1, 2, 1.]", BROKEN_ARRAY),
            ("[1, 2, 1e]", BROKEN_ARRAY),
            ("[1, -]", BROKEN_ARRAY),
            ("[\"a, 2]", BROKEN_STRING),
            ("[\"a\\\", 2]", BROKEN_STRING),
            ("[\"a\\x\", 2]", BROKEN_STRING),
            ("[\"\\u12\", 2]", BROKEN_STRING),
            ("[\"\\ud800\", 2]", BROKEN_STRING),
            ("[\"\\ud800\\u0041\", 2]", BROKEN_STRING),
            ("[\"\\udc00\", 2]", BROKEN_STRING),
            ("[\"a\tb\", 2]", BROKEN_STRING),
            ("[\"a\\tb\", 2]", TAB_IN_ID),
            ("[1, \"\\n\"]", TAB_IN_ID),
            ("[\"\", 2]", EMPTY_ID),
            ("[,1, 2]", BROKEN_ARRAY),
        ] {
            assert_eq!(parse(line), Err(what), "{line}");
        }
    }
}
