//! sh-shingle: tokens to shingles (runs of N consecutive tokens joined by `_`).

use std::io::Write;
use std::ops::Range;

use clap::Parser;
use sh_core::cli::IoArgs;
use sh_core::record::{items, split_id, write_id};
use sh_core::Result;

const DESCRIPTION: &str = "\
Turns each line's tokens into shingles: every run of N consecutive tokens, joined by `_`.

Input: one record per line, `[ID<TAB>]TOKEN TOKEN …`: tokens separated by spaces (runs of \
spaces and leading or trailing spaces are ignored). An id, everything before the first TAB, is \
copied through byte for byte. Output: one line per input line, in order: \
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

    /// Tokens per shingle
    #[arg(short, long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub window: u32,
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "echo 'the quick brown fox jumps' | sh-shingle -w 3",
        "Prints `the_quick_brown quick_brown_fox brown_fox_jumps`.",
    ),
    (
        "echo 'hello world' | sh-shingle",
        "Fewer tokens than the window: one shingle, `hello_world`.",
    ),
    (
        "sh-tokenize --with-id < docs.tsv | sh-shingle -w 5 | sh-hash | sh-compute",
        "Fingerprints from 5-token shingles, ids kept.",
    ),
];

pub fn run(args: Args) -> Result<()> {
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    let window = args.window as usize;
    let mut tokens: Vec<Range<usize>> = Vec::new();
    while let Some(record) = input.next_record()? {
        let (id, payload) = split_id(record);
        write_id(&mut out, id)?;
        tokens.clear();
        tokens.extend(items(payload).map(|item| offset_in(payload, item)));
        write_shingles(&mut out, payload, &tokens, window)?;
        out.write_all(b"\n")?;
    }
    out.finish()
}

/// Where `item`, a sub-slice of `payload`, lies in it.
fn offset_in(payload: &[u8], item: &[u8]) -> Range<usize> {
    let start = item.as_ptr() as usize - payload.as_ptr() as usize;
    start..start + item.len()
}

/// Writes the shingles of one line, separated by spaces.
pub fn write_shingles<W: Write>(
    out: &mut W,
    payload: &[u8],
    tokens: &[Range<usize>],
    window: usize,
) -> std::io::Result<()> {
    if tokens.is_empty() {
        return Ok(());
    }
    let width = window.min(tokens.len());
    for (n, shingle) in tokens.windows(width).enumerate() {
        if n > 0 {
            out.write_all(b" ")?;
        }
        for (k, token) in shingle.iter().enumerate() {
            if k > 0 {
                out.write_all(b"_")?;
            }
            out.write_all(&payload[token.clone()])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shingles(payload: &str, window: usize) -> String {
        let tokens: Vec<_> =
            items(payload.as_bytes()).map(|item| offset_in(payload.as_bytes(), item)).collect();
        let mut out = Vec::new();
        write_shingles(&mut out, payload.as_bytes(), &tokens, window).unwrap();
        String::from_utf8(out).unwrap()
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
