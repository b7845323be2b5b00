//! sh-shingle: tokens to shingles (runs of N consecutive tokens joined by `_`).

use std::io::{self, Write};
use std::ops::Range;

use clap::Parser;
use sh_core::cli::IoArgs;
use sh_core::copy::extend_from_within;
use sh_core::record::{items, split_nonempty_id, write_id};
use sh_core::Error;
use sh_core::LINE_PIECE;

const DESCRIPTION: &str = "\
Turns each line's tokens into shingles: every run of N consecutive tokens, joined by `_`.

Input: one record per line, `[ID<TAB>]TOKEN TOKEN …`: tokens separated by spaces (runs of \
spaces and leading or trailing spaces are ignored). An id, everything before the first TAB, is \
copied through byte for byte; an empty id (a line that starts with a TAB) is an error. Output: one line per input line, in order: \
`[ID<TAB>]SHINGLE SHINGLE …`.

A line with T >= N tokens gives T-N+1 shingles, in order. A line with 1 to N-1 tokens gives one \
shingle of all its tokens, so short documents still get a fingerprint. A line with no tokens \
gives an empty line (or `ID<TAB>`).";

#[derive(Debug, Parser)]
#[command(name = "sh-shingle", version, about = "Join every N consecutive tokens into a shingle")]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// Tokens per shingle (2 found the most near duplicates in our evaluation, docs/QUALITY.md)
    #[arg(short, long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub window: u32,

    /// Show no progress and no notes on standard error (this command shows neither; every
    /// command takes --quiet, so that scripts can pass it to all)
    #[arg(short, long)]
    pub quiet: bool,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "echo 'the quick brown fox jumps' | sh-shingle -w 3",
        "Prints `the_quick_brown quick_brown_fox brown_fox_jumps`.",
    ),
    ("echo 'the quick brown' | sh-shingle", "The default window of 2: `the_quick quick_brown`."),
    ("echo 'hello' | sh-shingle", "Fewer tokens than the window: one shingle, `hello`."),
    (
        "sh-tokenize --with-id < docs.tsv | sh-shingle -w 5 | sh-hash | sh-compute",
        "Fingerprints from 5-token shingles, ids kept.",
    ),
];

pub fn run(args: Args) -> sh_core::Result<()> {
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    let mut shingler = Shingler::new(args.window as usize);
    while let Some((line, record)) = input.next_numbered()? {
        let (id, payload) = split_nonempty_id(line, record)?;
        write_id(&mut out, id).map_err(Error::writing)?;
        shingler.shingle_into(payload, &mut out).map_err(Error::writing)?;
        out.write_all(b"\n").map_err(Error::writing)?;
    }
    out.finish()
}

/// Bytes after the joined tokens, so that a shingle of up to as many is copied in one block.
const PADDING: [u8; 32] = [0; 32];

/// Turns one line's tokens into its shingles, reusing its buffers from line to line. The
/// tokens are joined by `_` in one buffer, so that every shingle is a slice of it; a long
/// line's shingles are written out in pieces, so a line of any length takes about twice its
/// length in memory (the line and the joined tokens).
#[derive(Debug)]
pub struct Shingler {
    joined: Vec<u8>,
    window: ShingleWindow,
    /// Shingles not yet written.
    pending: Vec<u8>,
}

impl Shingler {
    pub fn new(window: usize) -> Shingler {
        Shingler { joined: Vec::new(), window: ShingleWindow::new(window), pending: Vec::new() }
    }

    /// Writes the shingles of `payload` to `out`, separated by spaces.
    pub fn shingle_into<W: Write>(&mut self, payload: &[u8], out: &mut W) -> io::Result<()> {
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        let mut first = true;
        let written = self.for_each_shingle(payload, |joined, shingle| {
            if !std::mem::take(&mut first) {
                pending.push(b' ');
            }
            extend_from_within(&mut pending, joined, shingle.start, shingle.len());
            if pending.len() >= LINE_PIECE {
                out.write_all(&pending)?;
                pending.clear();
            }
            Ok(())
        });
        let written = written.and_then(|()| out.write_all(&pending));
        self.pending = pending;
        written
    }

    /// The shingles of `payload`, separated by spaces.
    pub fn shingle(&mut self, payload: &[u8]) -> Vec<u8> {
        let mut line = Vec::new();
        self.shingle_into(payload, &mut line).expect("writing to a Vec cannot fail");
        line
    }

    /// Hands each shingle of `payload`'s items to `each`, in order, until `each` fails: the
    /// tokens joined so far, and where in them the shingle is.
    pub fn for_each_shingle<E>(
        &mut self,
        payload: &[u8],
        mut each: impl FnMut(&[u8], Range<usize>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.joined.clear();
        self.window.clear();
        let mut end = 0;
        for item in items(payload) {
            // The padding after the tokens off, the token on, the padding back: a shingle
            // always has room after it to be copied as a block (`extend_from_within`).
            self.joined.truncate(end);
            if end > 0 {
                self.joined.push(b'_');
            }
            let start = self.joined.len();
            let at = item.as_ptr() as usize - payload.as_ptr() as usize;
            extend_from_within(&mut self.joined, payload, at, item.len());
            end = self.joined.len();
            self.joined.extend_from_slice(&PADDING);
            if let Some(shingle) = self.window.push_range(start..end) {
                each(&self.joined, shingle)?;
            }
        }
        match self.window.finish_range() {
            Some(shingle) => each(&self.joined, shingle),
            None => Ok(()),
        }
    }
}

/// The rule of shingles, for tokens that come one by one into a buffer where they are joined
/// by single `_`: after each token, the shingle of the last N tokens (once there are N), and
/// at the end, for a document of 1 to N-1 tokens, the one shingle of them all. It holds the
/// starts of the last N tokens only.
#[derive(Debug, Clone)]
pub struct ShingleWindow {
    /// Where the last `window` tokens start, in a ring; `next` is the slot of the next token,
    /// and so, once the ring is full, of the oldest of the window.
    starts: Vec<usize>,
    next: usize,
    /// Tokens seen, counted up to the window.
    seen: usize,
    /// Where the first token starts, and where the last one ends.
    first: usize,
    end: usize,
}

impl ShingleWindow {
    /// The window of `window` tokens (at least one).
    pub fn new(window: usize) -> ShingleWindow {
        assert!(window >= 1, "a window of at least one token");
        ShingleWindow { starts: vec![0; window], next: 0, seen: 0, first: 0, end: 0 }
    }

    /// Forgets the tokens, for the next document.
    pub fn clear(&mut self) {
        self.next = 0;
        self.seen = 0;
    }

    /// A token was added to `joined` at `token`, after a `_` unless it is the first: the
    /// shingle that ends with it, once the window is full.
    #[inline]
    pub fn push<'j>(&mut self, joined: &'j [u8], token: Range<usize>) -> Option<&'j [u8]> {
        self.push_range(token).and_then(|shingle| joined.get(shingle))
    }

    /// [`ShingleWindow::push`], the shingle told by where it is in the joined tokens.
    #[inline]
    pub fn push_range(&mut self, token: Range<usize>) -> Option<Range<usize>> {
        let window = self.starts.len();
        self.starts[self.next] = token.start;
        self.next = if self.next + 1 == window { 0 } else { self.next + 1 };
        self.end = token.end;
        if self.seen < window {
            if self.seen == 0 {
                self.first = token.start;
            }
            self.seen += 1;
            if self.seen < window {
                return None;
            }
        }
        Some(self.starts[self.next]..token.end)
    }

    /// The document is done: the one shingle of its tokens when they are fewer than the
    /// window (and more than none).
    pub fn finish<'j>(&self, joined: &'j [u8]) -> Option<&'j [u8]> {
        self.finish_range().and_then(|shingle| joined.get(shingle))
    }

    /// [`ShingleWindow::finish`], the shingle told by where it is.
    pub fn finish_range(&self) -> Option<Range<usize>> {
        if self.seen == 0 || self.seen == self.starts.len() {
            return None;
        }
        Some(self.first..self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shingles(payload: &str, window: usize) -> String {
        String::from_utf8(Shingler::new(window).shingle(payload.as_bytes())).unwrap()
    }

    #[test]
    fn runs_of_spaces_do_not_leak_into_shingles() {
        assert_eq!(shingles("a  b c   d", 2), "a_b b_c c_d");
        assert_eq!(shingles(" a b  c ", 3), "a_b_c");
    }

    #[test]
    fn the_buffers_are_reused_from_line_to_line() {
        let mut shingler = Shingler::new(2);
        assert_eq!(shingler.shingle(b"a b c"), b"a_b b_c");
        assert_eq!(shingler.shingle(b""), b"");
        assert_eq!(shingler.shingle(b"x"), b"x");
        assert_eq!(shingler.shingle(b"c  d e"), b"c_d d_e");
    }

    #[test]
    fn every_run_of_n_tokens() {
        assert_eq!(shingles("a b c d e", 3), "a_b_c b_c_d c_d_e");
        assert_eq!(shingles("a b c d", 4), "a_b_c_d");
        assert_eq!(shingles("  a   b  ", 1), "a b");
    }

    #[test]
    fn short_documents_get_one_shingle_and_empty_ones_none() {
        assert_eq!(shingles("a b", 4), "a_b");
        assert_eq!(shingles("a", 4), "a");
        assert_eq!(shingles("", 4), "");
        assert_eq!(shingles("   ", 4), "");
    }

    #[test]
    fn a_line_longer_than_a_piece_is_written_in_pieces_and_whole() {
        // Tokens of 1 to 9 bytes with runs of spaces: several pieces of output, both the
        // joined and the token-by-token path.
        let tokens: Vec<String> = (0..400_000).map(|i| "x".repeat(1 + i % 9)).collect();
        let payload: String = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| if i % 7 == 0 { format!("{t}   ") } else { format!("{t} ") })
            .collect();
        for window in [1, 2, 5] {
            let expected: Vec<String> = tokens.windows(window).map(|w| w.join("_")).collect();
            let got = shingles(&payload, window);
            assert!(got.len() > 2 * LINE_PIECE);
            assert!(got == expected.join(" "), "window {window}");
        }
    }

    #[test]
    fn each_shingle_is_handed_out_as_written_and_an_error_stops_them() {
        let mut shingler = Shingler::new(3);
        for payload in ["a b c d e", " a  b c   d ", "a b", "", "x"] {
            let mut handed = Vec::new();
            shingler
                .for_each_shingle(payload.as_bytes(), |joined, s| {
                    handed.push(String::from_utf8(joined[s].to_vec()).unwrap());
                    Ok::<(), ()>(())
                })
                .unwrap();
            assert_eq!(handed.join(" "), shingles(payload, 3), "{payload:?}");
        }
        let mut seen = 0;
        let stopped = shingler.for_each_shingle(b"a b c d e f", |_, _| {
            seen += 1;
            if seen == 2 {
                Err("stop")
            } else {
                Ok(())
            }
        });
        assert_eq!((stopped, seen), (Err("stop"), 2));
    }

    #[test]
    fn the_window_gives_each_shingle_once_its_last_token_is_in() {
        let mut window = ShingleWindow::new(3);
        let mut joined = Vec::new();
        let mut got = Vec::new();
        for (n, token) in ["ab", "c", "d_e", "f"].iter().enumerate() {
            if n > 0 {
                joined.push(b'_');
            }
            let start = joined.len();
            joined.extend_from_slice(token.as_bytes());
            got.push(window.push(&joined, start..joined.len()).map(<[u8]>::to_vec));
        }
        let expected = [None, None, Some(b"ab_c_d_e".to_vec()), Some(b"c_d_e_f".to_vec())];
        assert_eq!(got, expected);
        assert_eq!(window.finish(&joined), None, "a full window has no shingle of them all");
        window.clear();
        assert_eq!(window.finish(&joined), None, "no tokens, no shingle");
        assert_eq!(window.push(b"x_y", 2..3), None);
        assert_eq!(window.finish(b"x_y"), Some(&b"y"[..]), "fewer tokens than the window");
        let mut one = ShingleWindow::new(1);
        assert_eq!(one.push(b"x_y", 0..1), Some(&b"x"[..]));
        assert_eq!(one.push(b"x_y", 2..3), Some(&b"y"[..]));
        assert_eq!(one.finish(b"x_y"), None);
    }

    #[test]
    fn multibyte_tokens_are_copied_whole() {
        assert_eq!(shingles("中 文 字", 2), "中_文 文_字");
    }
}
