//! The map/reduce form of the search, for running on a distributed engine (Spark, Hadoop) or
//! through `sort` on one machine.
//!
//! `--map` writes, for each record and each of the C(B, K) tables, one line
//! `KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID]`. KEY is the table's number in lexicographic order of
//! its blocks, in lowercase hex zero-padded to the width of C(B, K) - 1, followed by the
//! fingerprint's bits in that table's blocks (most significant block first), in lowercase hex
//! zero-padded to a quarter of their number, rounded up. FINGERPRINT is 16 lowercase hex digits;
//! LINE is the record's line number in the whole input (what names a record without id and what
//! orders a pair's two records); ID the record's id, if it has one. Every key of one table has
//! the same width and the table number comes first, so sorting the lines as plain bytes
//! (`LC_ALL=C sort`, or any sort by KEY) brings each group of one table together.
//!
//! Wide fingerprints (L = 2 or 4 words) are searched word by word within k bits (k =
//! floor(K / L), or --word-k; see wide.rs), with the C(B, k) tables of that k for every word.
//! The map writes L * C(B, k) lines per record: KEY starts with the word's number, one digit
//! from 0 (word 0 is the low 64 bits), then the table's number and the word's bits in its
//! blocks as above; FINGERPRINT is the whole fingerprint, 32 or 64 lowercase hex digits, the
//! highest word first (its text form without `0x`). The width of FINGERPRINT tells the reduce
//! the width of the run; one input holds one width.
//!
//! `--reduce` reads those lines sorted by key, holds one group (a run of equal keys) at a time,
//! and writes the pairs of the group that the group's table reports under the first-table rule
//! ([`Tables::first_table`]): every pair within K bits exactly once over all groups, however the
//! sorted lines are cut between reduce tasks at key boundaries, and nothing to de-duplicate.
//! Identical fingerprints agree on every block, so table 0 reports their pairs. On wide
//! fingerprints a group of word w and table t writes a pair when word w is within k bits and t
//! is its first table, no earlier word is within k bits (the first-word rule) and the total is
//! within K ([`WideRule`]): the search of sh-pairs without --map, cut into groups. Its memory is
//! that of its largest group (about 40 bytes, 8 more per extra word, and the id for each
//! record).

use std::io::Write;

use sh_core::fingerprint::{Width, WidthTracker};
use sh_core::number::push_u64;
use sh_core::progress::Progress;
use sh_core::record::without_bom;
use sh_core::records::{IdsThroughout, RecordLine};
use sh_core::{Error, RecordReader, Result};

use crate::tables::Tables;
use crate::wide::{rule_for, WideRule};

mod map_line;
mod reduce;

use map_line::{hex_digits, split_line_number, write_fingerprint, write_hex};

/// One step of the map/reduce form, with the B, K and --word-k that the map and the reduce
/// share. The width comes from the input: the map's first record, the reduce's first line.
#[derive(Debug, Clone)]
pub struct MapReduce {
    blocks: u32,
    /// -k and --word-k as given; `None`: the defaults for the width ([`rule_for`]).
    k: Option<u32>,
    word_k: Option<u32>,
    word_bytes: Option<u32>,
    /// Map: input lines start with `LINE<TAB>`. Reduce: pairs start with `LINE_A<TAB>LINE_B<TAB>`.
    pub numbered: bool,
    /// Reduce: only enough pairs to connect the same clusters (as `sh-pairs --sparse`).
    pub sparse: bool,
}

/// What the map and the reduce do with fingerprints of one width.
#[derive(Debug, Clone)]
struct Layout {
    width: Width,
    /// K over the whole fingerprint and k of each word (K itself for 64 bits).
    rule: WideRule,
    /// The C(B, k) tables of each word's search.
    tables: Tables,
    /// Hex digits of a table number in a key: those of C(B, k) - 1.
    rank_digits: usize,
}

impl Layout {
    /// The flags that map and reduce must share, for the errors that a mismatch gives.
    fn same_flags(&self) -> &'static str {
        if self.width == Width::Bits64 {
            "were --map and --reduce given the same --blocks and --distance?"
        } else {
            "were --map and --reduce given the same --blocks, --distance, --word-k and --word-bytes?"
        }
    }

    /// Whether keys start with a word's number.
    fn is_wide(&self) -> bool {
        self.width != Width::Bits64
    }
}

impl MapReduce {
    /// B = `blocks` and K = `k` for 64-bit fingerprints (for wide ones, K in total, searched
    /// exactly); see [`MapReduce::with_rule`].
    pub fn new(blocks: u32, k: u32) -> Result<MapReduce> {
        MapReduce::with_rule(blocks, Some(k), None, None)
    }

    /// B = `blocks`, and -k, --word-k and --word-bytes as given (`None`: the width's default).
    /// A usage error now when no width could use B (it must exceed the k of each word's
    /// search), and at the first record when the input's width cannot.
    pub fn with_rule(
        blocks: u32,
        k: Option<u32>,
        word_k: Option<u32>,
        word_bytes: Option<u32>,
    ) -> Result<MapReduce> {
        let smallest = Width::ALL
            .iter()
            .filter_map(|width| rule_for(width.words(), k, word_k, word_bytes).ok())
            .map(|rule| rule.layout_k())
            .min()
            .unwrap_or(0);
        Tables::new(blocks, smallest)?;
        Ok(MapReduce { blocks, k, word_k, word_bytes, numbered: false, sparse: false })
    }

    /// The map lines written per record of `width`: C(B, K) for 64 bits, words * C(B, k) for
    /// wide ones; a usage error if the settings do not fit the width.
    pub fn lines_per_record(&self, width: Width) -> Result<u64> {
        let layout = self.layout(width)?;
        Ok(width.words() as u64 * layout.tables.count())
    }

    fn layout(&self, width: Width) -> Result<Layout> {
        let rule = rule_for(width.words(), self.k, self.word_k, self.word_bytes)?;
        let tables = if width == Width::Bits64 {
            Tables::new(self.blocks, rule.word_k)?
        } else if rule.word_bytes.is_some() {
            rule.word_tables(Some(self.blocks), 0)?
        } else {
            Tables::new(self.blocks, rule.word_k).map_err(|_| rule.too_few_blocks(self.blocks))?
        };
        let rank_digits = hex_digits(64 - (tables.count() - 1).leading_zeros());
        Ok(Layout { width, rule, tables, rank_digits })
    }

    /// Writes every record's line for every table (of every word); returns the number of
    /// records mapped. Records with an empty fingerprint are skipped (their line numbers still
    /// count).
    pub fn map<W: Write>(
        &self,
        input: &mut RecordReader,
        out: &mut W,
        progress: &mut Progress,
    ) -> Result<u64> {
        let mut ids = IdsThroughout::new("line");
        let mut widths = WidthTracker::new();
        let mut layout: Option<Layout> = None;
        let mut value = Vec::new();
        let mut key = Vec::new();
        let mut mapped = 0u64;
        while let Some((line, record)) = input.next_numbered()? {
            progress.tick();
            let (position, rest) =
                if self.numbered { split_line_number(line, record)? } else { (line, record) };
            let Some(RecordLine { id, fingerprint }) = RecordLine::parse(line, rest)? else {
                continue;
            };
            // Errors quote the line as read, without the mark the parse dropped.
            let (record, rest) = (without_bom(record), without_bom(rest));
            ids.check(line, id.is_some(), record)?;
            widths.check(line, fingerprint.width(), rest)?;
            let layout = match &mut layout {
                Some(layout) => &*layout,
                slot @ None => &*slot.insert(self.layout(fingerprint.width())?),
            };
            let tables = &layout.tables;

            // The part after the key is the same for every table.
            value.clear();
            value.push(b'\t');
            write_fingerprint(&mut value, fingerprint.words());
            value.push(b'\t');
            push_u64(&mut value, position);
            if let Some(id) = id {
                value.push(b'\t');
                value.extend_from_slice(id);
            }
            value.push(b'\n');

            for (w, &word) in fingerprint.words().iter().enumerate() {
                for (rank, table) in tables.in_order().enumerate() {
                    let (bits, width) = tables.bits(table, word);
                    key.clear();
                    if layout.is_wide() {
                        key.push(b'0' + w as u8);
                    }
                    write_hex(&mut key, rank as u64, layout.rank_digits);
                    write_hex(&mut key, bits, hex_digits(width));
                    out.write_all(&key).map_err(Error::writing)?;
                    out.write_all(&value).map_err(Error::writing)?;
                }
            }
            mapped += 1;
        }
        Ok(mapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank_digits(blocks: u32, k: u32, width: Width) -> usize {
        MapReduce::new(blocks, k).unwrap().layout(width).unwrap().rank_digits
    }

    #[test]
    fn table_numbers_have_the_width_of_the_last() {
        assert_eq!(rank_digits(4, 2, Width::Bits64), 1); // 6 tables
        assert_eq!(rank_digits(7, 3, Width::Bits64), 2); // 35 tables
        assert_eq!(rank_digits(64, 32, Width::Bits64), 16);
        // One table, number 0.
        assert_eq!(rank_digits(1, 0, Width::Bits64), 1);
        // Wide: the tables of k = floor(K / words).
        assert_eq!(rank_digits(7, 12, Width::Bits256), 2); // k = 3: 35 tables
        assert_eq!(rank_digits(7, 12, Width::Bits128), 1); // k = 6: 7 tables
    }

    #[test]
    fn settings_no_width_can_use_are_usage_errors_at_once() {
        // B = 3 fits the 256-bit search of -k 3 (k = 0), so only the input can tell.
        let job = MapReduce::new(3, 3).unwrap();
        assert_eq!(job.layout(Width::Bits64).unwrap_err().exit_code(), 2);
        // C(3, 0) = 1 table a word.
        assert_eq!(job.lines_per_record(Width::Bits256).unwrap(), 4);
        // No width has k below 3 with -k 12 and B = 3.
        assert_eq!(MapReduce::new(3, 12).unwrap_err().exit_code(), 2);
        // The 256-bit defaults search each word by its 8 bytes (--word-bytes 6).
        let wide = MapReduce::with_rule(7, None, None, None).unwrap();
        let message = wide.layout(Width::Bits256).unwrap_err().to_string();
        assert!(message.contains("--blocks must be 8"), "{message}");
        // 64 bits: K = 6, C(7, 6) tables.
        assert_eq!(wide.lines_per_record(Width::Bits64).unwrap(), 7);
        // C(8, 6) tables a word.
        let bytes = MapReduce::with_rule(8, None, None, None).unwrap();
        assert_eq!(bytes.lines_per_record(Width::Bits256).unwrap(), 4 * 28);
        // --word-k alone: within 7 bits, exactly; B = 7 is too few.
        let message = MapReduce::with_rule(7, None, Some(7), None).unwrap().layout(Width::Bits256);
        let message = message.unwrap_err().to_string();
        assert!(
            message.contains("--blocks (7) must be greater than the k of each word's search (7"),
            "{message}"
        );
        // C(8, 4) tables a word.
        let approximate = MapReduce::with_rule(8, None, Some(4), None).unwrap();
        assert_eq!(approximate.lines_per_record(Width::Bits256).unwrap(), 4 * 70);
    }
}
