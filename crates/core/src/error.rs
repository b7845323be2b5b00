//! One error type for every command. Bad input names its line; I/O errors name what was being
//! done. `sh-NAME: error: ` is put in front by [`crate::cli::run_main`].

use std::fmt;
use std::io;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How many characters of offending input an error message quotes.
const QUOTE_LIMIT: usize = 60;

#[derive(Debug)]
pub enum Error {
    /// Input that breaks the line format: exit status 1.
    Input { line: u64, what: String, text: Vec<u8> },
    /// Reading or writing failed: exit status 1 (a broken pipe on output is no error at all).
    Io { doing: String, source: io::Error },
    /// Flags that cannot work together: exit status 2.
    Usage(String),
    /// An error in a file other than the main input (a table, a second input): the file named.
    InFile { file: String, source: Box<Error> },
}

impl Error {
    /// Bad input on `line`; `text` is the offending part, quoted shortened in the message.
    pub fn input(line: u64, what: impl Into<String>, text: &[u8]) -> Error {
        let text = text[..text.len().min(4 * QUOTE_LIMIT)].to_vec();
        Error::Input { line, what: what.into(), text }
    }

    pub fn io(doing: impl Into<String>, source: io::Error) -> Error {
        Error::Io { doing: doing.into(), source }
    }

    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    /// The same error, told as being in `file` (`FILE: line N: …`).
    pub fn in_file(self, file: &str) -> Error {
        Error::InFile { file: file.to_string(), source: Box::new(self) }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::InFile { source, .. } => source.exit_code(),
            _ => 1,
        }
    }

    /// True when the reader of our output went away (`| head`): the command ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::Io { source, .. } => source.kind() == io::ErrorKind::BrokenPipe,
            Error::InFile { source, .. } => source.is_broken_pipe(),
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input { line, what, text } => {
                write!(f, "line {line}: {what}: '{}'", quote(text))
            }
            Error::Io { doing, source } => write!(f, "{doing}: {source}"),
            Error::Usage(message) => f.write_str(message),
            Error::InFile { file, source } => write!(f, "{file}: {source}"),
        }
    }
}

impl std::error::Error for Error {}

/// Offending input as printable text, long text cut. Control characters and invalid UTF-8 are
/// escaped (`\t`, `\x00`, `\xFF`), and so are the characters a terminal shows as nothing or as
/// a plain space (`\u{FEFF}` for a BOM, `\u{A0}` for a no-break space): in `'5 6'` the gap
/// must show whether it is the space that separates items.
pub fn quote(text: &[u8]) -> String {
    let mut shown = String::new();
    for chunk in text.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                match c {
                    '\t' => shown += "\\t",
                    '\r' => shown += "\\r",
                    '\n' => shown += "\\n",
                    _ => shown += &format!("\\x{:02X}", u32::from(c)),
                }
            } else if looks_blank(c) {
                shown += &format!("\\u{{{:X}}}", u32::from(c));
            } else {
                shown.push(c);
            }
        }
        for byte in chunk.invalid() {
            shown += &format!("\\x{byte:02X}");
        }
    }
    match shown.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => format!("{}…", &shown[..cut]),
        None => shown,
    }
}

/// Characters other than the ASCII space that print as blank or as nothing: Unicode white
/// space, the format characters (general category Cf: BOM, zero-width spaces and joiners,
/// bidirectional controls, soft hyphen, invisible operators, tags) and the variation selectors.
fn looks_blank(c: char) -> bool {
    if c == ' ' {
        return false;
    }
    c.is_whitespace()
        || matches!(
            u32::from(c),
            0xAD | 0x600..=0x605
                | 0x61C
                | 0x6DD
                | 0x70F
                | 0x890..=0x891
                | 0x8E2
                | 0x180E
                | 0x200B..=0x200F
                | 0x202A..=0x202E
                | 0x2060..=0x2064
                | 0x2066..=0x206F
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0xFFF9..=0xFFFB
                | 0x110BD
                | 0x110CD
                | 0x13430..=0x1343F
                | 0x1BCA0..=0x1BCA3
                | 0x1D173..=0x1D17A
                | 0xE0001
                | 0xE0020..=0xE007F
                | 0xE0100..=0xE01EF
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_error_names_line_and_quotes_text() {
        let e = Error::input(7, "invalid number", b"12a\tx");
        assert_eq!(e.to_string(), r"line 7: invalid number: '12a\tx'");
        assert_eq!(e.exit_code(), 1);
    }

    #[test]
    fn long_text_is_shortened_and_invalid_utf8_escaped() {
        let long = vec![b'x'; 500];
        let shown = Error::input(1, "bad", &long).to_string();
        assert!(shown.ends_with("…'"), "{shown}");
        assert_eq!(shown.matches('x').count(), QUOTE_LIMIT);
        assert_eq!(quote(b"a\xffb"), r"a\xFFb");
        assert_eq!(quote(b"{\"a\": 1}\0\r"), r#"{"a": 1}\x00\r"#);
    }

    #[test]
    fn blank_looking_characters_are_escaped_and_visible_ones_kept() {
        assert_eq!(quote("\u{feff}5 6\u{a0}7".as_bytes()), r"\u{FEFF}5 6\u{A0}7");
        assert_eq!(quote("a\u{200b}\u{2028}\u{3000}b".as_bytes()), r"a\u{200B}\u{2028}\u{3000}b");
        assert_eq!(quote("é 東 😀 ·".as_bytes()), "é 東 😀 ·");
    }

    #[test]
    fn usage_errors_exit_2_and_broken_pipe_is_recognised() {
        assert_eq!(Error::usage("x").exit_code(), 2);
        let pipe = Error::io("writing", io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(pipe.is_broken_pipe());
        assert!(!Error::io("writing", io::Error::other("disk")).is_broken_pipe());
    }
}
