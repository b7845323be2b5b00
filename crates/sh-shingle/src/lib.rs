//! sh-shingle: tokens to shingles (runs of N consecutive tokens joined by `_`).

use std::collections::VecDeque;
use std::io::{self, Write};
use std::ops::Range;

use clap::Parser;
use sh_core::cli::IoArgs;
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

    /// Show no progress on standard error (this command shows none; every command takes
    /// --quiet, so that scripts can pass it to all)
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

/// Turns one line's tokens into its shingles, reusing its buffers from line to line. It holds
/// the last N tokens, not all of them, and writes a long line's shingles out in pieces, so a
/// line of any length takes about twice its length in memory (the line and `joined`).
#[derive(Debug)]
pub struct Shingler {
    window: usize,
    /// The last `window` tokens (fewer at the start of a line), as ranges of the payload.
    recent: VecDeque<Range<usize>>,
    /// The bytes of the tokens in `recent`.
    recent_bytes: usize,
    /// The line with every space made `_`: a shingle of tokens separated by single spaces is
    /// one slice of it.
    joined: Vec<u8>,
    /// A shingle of tokens separated by more than one space, joined here.
    scratch: Vec<u8>,
    /// Shingles not yet written.
    pending: Vec<u8>,
}

impl Shingler {
    pub fn new(window: usize) -> Shingler {
        assert!(window >= 1, "a window of at least one token");
        Shingler {
            window,
            recent: VecDeque::new(),
            recent_bytes: 0,
            joined: Vec::new(),
            scratch: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Writes the shingles of `payload` to `out`, separated by spaces.
    pub fn shingle_into<W: Write>(&mut self, payload: &[u8], out: &mut W) -> io::Result<()> {
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        let mut first = true;
        let written = self.for_each_shingle(payload, |shingle| {
            if !std::mem::take(&mut first) {
                pending.push(b' ');
            }
            pending.extend_from_slice(shingle);
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

    /// Hands each shingle of `payload` to `each`, in order, until `each` fails: the shingles
    /// sh-shingle writes, for a caller that uses them at once (sh-fingerprint hashes them).
    pub fn for_each_shingle<E>(
        &mut self,
        payload: &[u8],
        mut each: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.recent.clear();
        self.recent_bytes = 0;
        self.joined.clear();
        self.joined.extend(payload.iter().map(|&b| if b == b' ' { b'_' } else { b }));
        for item in items(payload) {
            if self.recent.len() == self.window {
                if let Some(oldest) = self.recent.pop_front() {
                    self.recent_bytes -= oldest.len();
                }
            }
            self.recent_bytes += item.len();
            self.recent.push_back(offset_in(payload, item));
            if self.recent.len() == self.window {
                each(self.recent_shingle(payload))?;
            }
        }
        // Fewer tokens than the window: one shingle of them all.
        if !self.recent.is_empty() && self.recent.len() < self.window {
            each(self.recent_shingle(payload))?;
        }
        Ok(())
    }

    /// The shingle of the tokens in `recent`.
    fn recent_shingle(&mut self, payload: &[u8]) -> &[u8] {
        let (Some(oldest), Some(newest)) = (self.recent.front(), self.recent.back()) else {
            return &[];
        };
        let span = oldest.start..newest.end;
        // Single spaces between the tokens: the span holds exactly the tokens and one `_`
        // between each two.
        if span.len() == self.recent_bytes + self.recent.len() - 1 {
            return &self.joined[span];
        }
        self.scratch.clear();
        for (k, token) in self.recent.iter().enumerate() {
            if k > 0 {
                self.scratch.push(b'_');
            }
            self.scratch.extend_from_slice(&payload[token.clone()]);
        }
        &self.scratch
    }
}

/// Where `item`, a sub-slice of `payload`, lies in it.
fn offset_in(payload: &[u8], item: &[u8]) -> Range<usize> {
    let start = item.as_ptr() as usize - payload.as_ptr() as usize;
    start..start + item.len()
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
                .for_each_shingle(payload.as_bytes(), |s| {
                    handed.push(String::from_utf8(s.to_vec()).unwrap());
                    Ok::<(), ()>(())
                })
                .unwrap();
            assert_eq!(handed.join(" "), shingles(payload, 3), "{payload:?}");
        }
        let mut seen = 0;
        let stopped = shingler.for_each_shingle(b"a b c d e f", |_| {
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
    fn multibyte_tokens_are_copied_whole() {
        assert_eq!(shingles("中 文 字", 2), "中_文 文_字");
    }
}
