//! sh-compute's flags, help text and examples.

use clap::Parser;
use sh_core::cli::{ChunkArgs, IoArgs};
use sh_core::fingerprint::Width;

const DESCRIPTION: &str = "\
Computes one simhash fingerprint (Charikar) per line from the line's 64-bit hashes.

Input: one record per line, `[ID<TAB>]HASH HASH …`: unsigned 64-bit integers in decimal or \
`0x` hex, separated by spaces; an item may carry a weight as `HASH:WEIGHT` (WEIGHT a finite \
decimal number; items without one weigh 1). An id, everything before the first TAB, is copied \
through byte for byte; an empty id (a line that starts with a TAB) is an error. Output: one line \
per input line, in order: `[ID<TAB>]FINGERPRINT`, in decimal for 64 bits. A line with no hashes gives an empty line (or `ID<TAB>`), never a made-up \
value.

For each bit i (bit 0 the least significant), every item adds its weight when its hash has bit \
i set and subtracts it otherwise; bit i of the fingerprint is 1 when the sum is above 0 (a tie \
gives 0). Every occurrence counts, so a repeated item weighs more. Weights with at most 18 \
decimal places and magnitude below 10^18 are summed exactly (so 0.1 + 0.2 against 0.3 is a \
tie); larger or finer weights are summed in double precision.

Wide fingerprints (--bits 128 or 256) give near duplicates a sharper distance: N/64 words of 64 \
bits, each computed as above. Word 0 is the 64-bit fingerprint; word i (1, 2, 3) counts, in \
place of each item's hash, the i-th output of the SplitMix64 generator seeded with that hash \
(z = hash + i * 0x9e3779b97f4a7c15; z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9; z = (z ^ z >> 27) \
* 0x94d049bb133111eb; z ^ z >> 31, all mod 2^64), with the item's weight. A wide fingerprint is \
written as `0x` and exactly N/4 lowercase hex digits: the whole fingerprint as one big-endian \
number, the highest word first, so the last 16 digits are word 0. The Hamming distance of two \
is the sum of the distances of their words (runs of 16 digits).

-j N computes on N threads (default 1): the input is read in chunks of lines (256 KB, or one \
longer line), each chunk computed by one thread, and the chunks written in input order, with at \
most four chunks per thread in memory at once (so with lines of many megabytes, up to 4 × N of \
them). The output does not depend on N. A chunk is computed once it is full or the input ends, \
so from a pipe that stays open a chunk's fingerprints, and an error in it, wait for that (with \
one thread an error is told at its line). Inside a pipeline whose other stages keep the cores busy, more \
threads gain nothing; from a file, or on a machine with cores to spare, they keep sh-compute \
from being the slowest stage. With more than one thread a regular file is read in place \
(mapped), its pages let go as the output is written; a file cut short by another program \
while it is read ends sh-compute with SIGBUS, as any program that maps its input.

A sign, trailing junk, a value above 2^64-1 or a bad weight is an error that names the line.";

#[derive(Debug, Parser)]
#[command(
    name = "sh-compute",
    version,
    about = "Compute a simhash fingerprint from each line's hashes"
)]
#[command(long_about = DESCRIPTION)]
pub struct Args {
    #[command(flatten)]
    pub io: IoArgs,

    /// Fingerprint width: 64 (decimal), 128 or 256 (0x and N/4 hex digits)
    #[arg(long, value_name = "N", default_value = "64", value_parser = parse_bits)]
    pub bits: Width,

    /// Compute on N threads, the output in input order [default: 1]
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    #[command(flatten)]
    pub chunks: ChunkArgs,

    /// Show no notes on standard error (errors are always shown; this command shows no
    /// progress; every command takes --quiet, so that scripts can pass it to all)
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--bits N`: 64, 128 or 256.
pub fn parse_bits(text: &str) -> Result<Width, String> {
    text.parse()
        .ok()
        .and_then(Width::from_bits)
        .ok_or_else(|| "the width is 64, 128 or 256 bits".to_string())
}

pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sh-tokenize < docs.txt | sh-shingle | sh-hash | sh-compute > fingerprints.txt",
        "One fingerprint per document, line for line.",
    ),
    ("echo '43981 48350 52719' | sh-compute", "Prints 44495."),
    ("echo 'doc7\t1:2.0 2:1.0' | sh-compute", "Weighted items; prints doc7, a TAB and 1."),
    (
        "echo '43981 48350 52719' | sh-compute --bits 128",
        "Prints 0x4901543c69a0a46c000000000000adcf: the last 16 hex digits are the 64-bit \
         fingerprint 44495.",
    ),
];
