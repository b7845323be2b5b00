//! One error type for every command. Bad input names its line; I/O errors name what was being
//! done. `sh-NAME: error: ` is put in front by [`crate::cli::run_main`].

use std::fmt;
use std::io;

/// A result whose error is an [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How many characters of offending input an error message quotes.
const QUOTE_LIMIT: usize = 60;

/// What went wrong, worded for the user; [`Error::exit_code`] gives the exit status.
#[derive(Debug)]
pub enum Error {
    /// Input that breaks the line format: exit status 1.
    Input {
        /// The 1-based line number.
        line: u64,
        /// What is wrong.
        what: String,
        /// The offending text, quoted in the message; none where the fault is the line's
        /// absence or a sum over the input, not a text that could be shown.
        text: Option<Vec<u8>>,
    },
    /// Reading or writing failed: exit status 1 (a broken pipe on output is no error at all).
    Io {
        /// What was being done ("error reading 'file'").
        doing: String,
        /// What the system said.
        source: io::Error,
    },
    /// Flags that cannot work together: exit status 2.
    Usage(String),
    /// An error in an input other than the main one (`sh-pairs --against FILE`), shown as
    /// `FILE: ` and the error.
    InFile {
        /// The file, as given.
        file: String,
        /// The error in it.
        error: Box<Error>,
    },
}

impl Error {
    /// Bad input on `line`; `text` is the offending part, quoted shortened in the message.
    pub fn input(line: u64, what: impl Into<String>, text: &[u8]) -> Error {
        let text = text[..text.len().min(4 * QUOTE_LIMIT)].to_vec();
        Error::Input { line, what: what.into(), text: Some(text) }
    }

    /// Bad input on `line` with no text to quote (an empty table, a sum too large), told as
    /// `line N: WHAT` alone: an empty quote would read as an empty line.
    pub fn at_line(line: u64, what: impl Into<String>) -> Error {
        Error::Input { line, what: what.into(), text: None }
    }

    /// Reading or writing failed while `doing` something.
    pub fn io(doing: impl Into<String>, source: io::Error) -> Error {
        Error::Io { doing: doing.into(), source }
    }

    /// Writing the output failed. (There is no `From<io::Error>`: a read error must not be
    /// taken for a write error, so each `?` on an I/O result says which it is.)
    pub fn writing(source: io::Error) -> Error {
        crate::output::writing_error(source)
    }

    /// Flags that cannot work together.
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    /// Names the file that bad input came from: for an input other than the main one, whose
    /// line numbers would be taken for the main input's. Other errors name their file already.
    /// `-` is named "standard input", as the readers name it.
    pub fn in_file(self, file: &std::path::Path) -> Error {
        match self {
            Error::Input { .. } => Error::InFile { file: file_name(file), error: Box::new(self) },
            other => other,
        }
    }

    /// The exit status: 2 for usage errors, 1 for the others.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::InFile { error, .. } => error.exit_code(),
            _ => 1,
        }
    }

    /// True when the reader of our output went away (`| head`): the command ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::Io { source, .. } => source.kind() == io::ErrorKind::BrokenPipe,
            Error::InFile { error, .. } => error.is_broken_pipe(),
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input { line, what, text: Some(text) } => {
                write!(f, "line {line}: {what}: '{}'", quote(text))
            }
            Error::Input { line, what, text: None } => write!(f, "line {line}: {what}"),
            Error::Io { doing, source } => write!(f, "{doing}: {source}"),
            Error::Usage(message) => f.write_str(message),
            Error::InFile { file, error } => write!(f, "{file}: {error}"),
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

/// How a message names the file at `path`: `standard input` for `-`, else the path as given
/// (`/dev/stdin` too).
pub fn file_name(path: &std::path::Path) -> String {
    match crate::is_std_stream(path) {
        true => "standard input".to_string(),
        false => path.display().to_string(),
    }
}

/// [`file_name`] with a path quoted (`'/dev/stdin'`), as an error names a file beside others.
pub(crate) fn quoted_file_name(path: &std::path::Path) -> String {
    match crate::is_std_stream(path) {
        true => "standard input".to_string(),
        false => format!("'{}'", path.display()),
    }
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
    fn an_error_with_nothing_to_quote_shows_no_quote() {
        let e = Error::at_line(1, "empty table").in_file(std::path::Path::new("df"));
        assert_eq!(e.to_string(), "df: line 1: empty table");
        assert_eq!(e.exit_code(), 1);
        // An empty text that is the fault is still quoted.
        assert_eq!(Error::input(3, "bad", b"").to_string(), "line 3: bad: ''");
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
    fn an_error_in_a_second_file_names_it() {
        let e = Error::input(2, "bad", b"x").in_file(std::path::Path::new("corpus.tsv"));
        assert_eq!(e.to_string(), "corpus.tsv: line 2: bad: 'x'");
        assert_eq!(e.exit_code(), 1);
        let piped = Error::input(3, "bad", b"y").in_file(std::path::Path::new("-"));
        assert_eq!(piped.to_string(), "standard input: line 3: bad: 'y'");
        let open = Error::io("cannot open 'c'", io::Error::other("gone"));
        assert_eq!(open.in_file(std::path::Path::new("c")).to_string(), "cannot open 'c': gone");
    }

    #[test]
    fn usage_errors_exit_2_and_broken_pipe_is_recognised() {
        assert_eq!(Error::usage("x").exit_code(), 2);
        let pipe = Error::io("writing", io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(pipe.is_broken_pipe());
        assert!(!Error::io("writing", io::Error::other("disk")).is_broken_pipe());
    }
}
