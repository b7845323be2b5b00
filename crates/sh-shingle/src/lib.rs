//! sh-shingle: tokens to shingles (runs of N consecutive tokens joined by `_`).

use std::io::Write;
use std::ops::Range;

use clap::Parser;
use sh_core::cli::IoArgs;
use sh_core::record::{items, split_nonempty_id, write_id};
use sh_core::{Error, Result};

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

pub fn run(args: Args) -> Result<()> {
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    let mut shingler = Shingler::new(args.window as usize);
    while let Some((line, record)) = input.next_numbered()? {
        let (id, payload) = split_nonempty_id(line, record)?;
        write_id(&mut out, id).map_err(Error::writing)?;
        out.write_all(shingler.shingle(payload)).map_err(Error::writing)?;
        out.write_all(b"\n").map_err(Error::writing)?;
    }
    out.finish()
}

/// Turns one line's tokens into its shingles, reusing its buffers from line to line.
#[derive(Debug)]
pub struct Shingler {
    window: usize,
    tokens: Vec<Range<usize>>,
    /// The line with every space made `_`: a shingle of tokens separated by single spaces is
    /// one slice of it.
    joined: Vec<u8>,
    line: Vec<u8>,
}

impl Shingler {
    pub fn new(window: usize) -> Shingler {
        assert!(window >= 1, "a window of at least one token");
        Shingler { window, tokens: Vec::new(), joined: Vec::new(), line: Vec::new() }
    }

    /// The shingles of `payload`, separated by spaces.
    pub fn shingle(&mut self, payload: &[u8]) -> &[u8] {
        self.tokens.clear();
        self.tokens.extend(items(payload).map(|item| offset_in(payload, item)));
        self.line.clear();
        if self.tokens.is_empty() {
            return &self.line;
        }
        self.joined.clear();
        self.joined.extend(payload.iter().map(|&b| if b == b' ' { b'_' } else { b }));
        let width = self.window.min(self.tokens.len());
        for shingle in self.tokens.windows(width) {
            if !self.line.is_empty() {
                self.line.push(b' ');
            }
            let (first, last) = (&shingle[0], &shingle[width - 1]);
            let span = first.start..last.end;
            // Single spaces between the tokens: the span holds exactly the tokens and one
            // `_` between each two.
            if span.len() == shingle.iter().map(|t| t.len()).sum::<usize>() + width - 1 {
                self.line.extend_from_slice(&self.joined[span]);
            } else {
                for (k, token) in shingle.iter().enumerate() {
                    if k > 0 {
                        self.line.push(b'_');
                    }
                    self.line.extend_from_slice(&payload[token.clone()]);
                }
            }
        }
        &self.line
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
        String::from_utf8(Shingler::new(window).shingle(payload.as_bytes()).to_vec()).unwrap()
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
    fn multibyte_tokens_are_copied_whole() {
        assert_eq!(shingles("中 文 字", 2), "中_文 文_字");
    }
}
