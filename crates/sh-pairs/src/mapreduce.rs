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

use std::io::{self, Write};
use std::ops::Range;

use sh_core::fingerprint::{Width, WidthTracker};
use sh_core::number::{push_u64, write_u64};
use sh_core::progress::Progress;
use sh_core::{Error, RecordReader, Result};

use crate::tables::{Table, Tables};
use crate::wide::{rule_for, WideRule};
use sh_core::records::{IdsThroughout, RecordLine};

mod map_line;

use map_line::{
    hex_digits, parse_fingerprint, parse_hex, parse_line_number, split_line_number,
    write_fingerprint, write_hex, MapLine,
};

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
            Tables::new(self.blocks, rule.word_k).map_err(|_| {
                let why = if rule.is_exact() {
                    format!("floor(K/{}) with K = {}", rule.words, rule.k)
                } else {
                    format!("--word-k, with K = {}", rule.k)
                };
                Error::usage(format!(
                    "--blocks ({}) must be greater than the k of each word's search ({}: {why}) \
                     for {width} fingerprints, and at most 64",
                    self.blocks, rule.word_k
                ))
            })?
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

    /// Reads map lines sorted by key and writes the pairs each group's table reports; returns
    /// the number of pairs written.
    pub fn reduce<W: Write>(
        &self,
        input: &mut RecordReader,
        out: &mut W,
        progress: &mut Progress,
    ) -> Result<u64> {
        let mut group = Group::default();
        let mut ids = IdsThroughout::new("record");
        let mut widths = WidthTracker::new();
        let mut layout: Option<Layout> = None;
        let mut written = 0u64;
        while let Some((line, record)) = input.next_numbered()? {
            progress.tick();
            if record.is_empty() {
                continue;
            }
            let fields = MapLine::parse(record).map_err(|what| Error::input(line, what, record))?;
            let fingerprint = parse_fingerprint(fields.fingerprint).ok_or_else(|| {
                Error::input(
                    line,
                    "not 16 lowercase hex digits (a 64-bit fingerprint), nor 32 or 64 (128- or \
                     256-bit)",
                    fields.fingerprint,
                )
            })?;
            widths.check(line, fingerprint.width(), fields.fingerprint)?;
            let layout = match &mut layout {
                Some(layout) => &*layout,
                slot @ None => &*slot.insert(self.layout(fingerprint.width())?),
            };
            if fields.key != group.key.as_slice() {
                written += self.finish_group(layout, &mut group, out)?;
                if !group.key.is_empty() && fields.key <= group.key.as_slice() {
                    return Err(Error::input(
                        line,
                        "keys out of order: the input of --reduce must be sorted by key \
                         (LC_ALL=C sort)",
                        fields.key,
                    ));
                }
                start_group(layout, &mut group, fields.key, line)?;
            }
            let words = fingerprint.words();
            if layout.tables.bits(group.table, words[group.word]).0 != group.bits {
                return Err(Error::input(
                    line,
                    format!(
                        "the fingerprint's bits differ from the key's: {}",
                        layout.same_flags()
                    ),
                    record,
                ));
            }
            let position = parse_line_number(fields.line_number, line)?;
            group.named = ids.check(line, fields.id.is_some(), record)?;
            let id = match fields.id {
                Some(id) => {
                    let start = group.ids.len();
                    group.ids.extend_from_slice(id);
                    start..group.ids.len()
                }
                None => 0..0,
            };
            let at = group.words.len();
            group.words.extend_from_slice(words);
            group.members.push(Member { at, position, id });
        }
        if let Some(layout) = &layout {
            written += self.finish_group(layout, &mut group, out)?;
        }
        Ok(written)
    }

    /// Writes the pairs of the group held and empties it; returns how many.
    fn finish_group<W: Write>(
        &self,
        layout: &Layout,
        group: &mut Group,
        out: &mut W,
    ) -> Result<u64> {
        let written =
            if group.members.len() < 2 { 0 } else { self.write_group(layout, group, out)? };
        group.members.clear();
        group.words.clear();
        group.ids.clear();
        Ok(written)
    }

    fn write_group<W: Write>(
        &self,
        layout: &Layout,
        group: &mut Group,
        out: &mut W,
    ) -> Result<u64> {
        let n = layout.width.words();
        {
            let words = &group.words;
            let fingerprint = |m: &Member| &words[m.at..m.at + n];
            group.members.sort_unstable_by(|a, b| {
                fingerprint(a).cmp(fingerprint(b)).then(a.position.cmp(&b.position))
            });
            if let Some(twice) = group.members.windows(2).find(|w| {
                w[0].position == w[1].position && fingerprint(&w[0]) == fingerprint(&w[1])
            }) {
                return Err(Error::input(
                    group.first_line,
                    format!("line number {} appears twice in one group", twice[0].position),
                    &group.key,
                ));
            }
        }
        // Runs of one fingerprint: the members are sorted by fingerprint, then position.
        group.runs.clear();
        let mut start = 0;
        while start < group.members.len() {
            let words = &group.words;
            let fingerprint = |m: &Member| &words[m.at..m.at + n];
            let fp = fingerprint(&group.members[start]);
            let len = group.members[start..].iter().take_while(|m| fingerprint(m) == fp).count();
            group.runs.push(start..start + len);
            start += len;
        }
        let group = &*group;
        let runs = &group.runs;
        let fingerprint = |m: &Member| &group.words[m.at..m.at + n];
        let mut writer = GroupWriter { group, out, numbered: self.numbered, written: 0 };
        // Identical fingerprints agree on every block of every word: word 0 is within k bits,
        // and its first table, number 0, reports them.
        if group.word == 0 && group.rank == 0 {
            for run in runs {
                let members = &group.members[run.clone()];
                if self.sparse {
                    for pair in members.windows(2) {
                        writer.pair(&pair[0], &pair[1], 0).map_err(Error::writing)?;
                    }
                } else {
                    for (i, a) in members.iter().enumerate() {
                        for b in &members[i + 1..] {
                            writer.pair(a, b, 0).map_err(Error::writing)?;
                        }
                    }
                }
            }
        }
        let (rule, tables, w) = (&layout.rule, &layout.tables, group.word);
        for (i, run) in runs.iter().enumerate() {
            let a = fingerprint(&group.members[run.start]);
            for other in &runs[i + 1..] {
                let b = fingerprint(&group.members[other.start]);
                // This group's word within k bits and this table its first; then the rule of
                // the wide search (no earlier word within k, the total within K), which for 64
                // bits always holds.
                let x = a[w] ^ b[w];
                if !tables.finds(x) || tables.first_table(x) != Some(group.table) {
                    continue;
                }
                let Some(distance) = rule.reported_at(a, b, w) else {
                    continue;
                };
                if self.sparse {
                    // The first record of each fingerprint, as sh-pairs --sparse writes them.
                    writer
                        .pair(&group.members[run.start], &group.members[other.start], distance)
                        .map_err(Error::writing)?;
                } else {
                    for a in &group.members[run.clone()] {
                        for b in &group.members[other.clone()] {
                            writer.pair(a, b, distance).map_err(Error::writing)?;
                        }
                    }
                }
            }
        }
        Ok(writer.written)
    }
}

/// Checks a new key and makes it the current group's.
fn start_group(layout: &Layout, group: &mut Group, key: &[u8], line: u64) -> Result<()> {
    let tables = &layout.tables;
    let bad = |what: &str| Error::input(line, what.to_string(), key);
    let (word, rest) = if layout.is_wide() {
        let words = layout.width.words();
        let word = match key.first() {
            Some(&digit) if (b'0'..b'0' + words as u8).contains(&digit) => {
                usize::from(digit - b'0')
            }
            _ => {
                return Err(bad(&format!(
                    "key does not start with a word number (0 to {} for {} fingerprints)",
                    words - 1,
                    layout.width
                )))
            }
        };
        (word, &key[1..])
    } else {
        (0, key)
    };
    let rank_part = rest.get(..layout.rank_digits).ok_or_else(|| bad("key too short"))?;
    let rank = parse_hex(rank_part).ok_or_else(|| bad("key does not start with a table number"))?;
    if rank >= tables.count() {
        let what = if layout.is_wide() {
            format!(
                "table number {rank} out of range: C(B, k) = {} tables for each word (k = {}); {}",
                tables.count(),
                layout.rule.layout_k(),
                layout.same_flags()
            )
        } else {
            format!(
                "table number {rank} out of range: C(B, K) = {} tables; {}",
                tables.count(),
                layout.same_flags()
            )
        };
        return Err(bad(&what));
    }
    let table = tables.unrank(rank);
    let width = tables.width(table);
    let bits_part = &rest[layout.rank_digits..];
    if bits_part.len() != hex_digits(width) {
        return Err(bad(&format!("key of the wrong width for its table: {}", layout.same_flags())));
    }
    let bits = parse_hex(bits_part).ok_or_else(|| bad("key is not lowercase hex"))?;
    group.key.clear();
    group.key.extend_from_slice(key);
    group.word = word;
    group.rank = rank;
    group.table = table;
    group.bits = bits;
    group.first_line = line;
    Ok(())
}

/// The current group of the reduce: the records of one key.
#[derive(Debug, Default)]
struct Group {
    key: Vec<u8>,
    /// The word whose search the key is of (0 for 64 bits).
    word: usize,
    /// The table's number in the key.
    rank: u64,
    table: Table,
    /// The bits of the group's fingerprints in the table's blocks.
    bits: u64,
    first_line: u64,
    named: bool,
    members: Vec<Member>,
    /// The members' fingerprints, each its words end to end (word 0 first).
    words: Vec<u64>,
    /// The members' ids, end to end.
    ids: Vec<u8>,
    /// Runs of members with one fingerprint.
    runs: Vec<Range<usize>>,
}

#[derive(Debug, Clone)]
struct Member {
    /// Where the fingerprint's words start in [`Group::words`].
    at: usize,
    position: u64,
    id: Range<usize>,
}

struct GroupWriter<'a, W> {
    group: &'a Group,
    out: &'a mut W,
    numbered: bool,
    written: u64,
}

impl<W: Write> GroupWriter<'_, W> {
    /// Writes a pair of two distinct records, the one earlier in the input first.
    fn pair(&mut self, a: &Member, b: &Member, distance: u32) -> io::Result<()> {
        let (a, b) = if a.position < b.position { (a, b) } else { (b, a) };
        let out = &mut *self.out;
        if self.numbered {
            write_u64(out, a.position)?;
            out.write_all(b"\t")?;
            write_u64(out, b.position)?;
            out.write_all(b"\t")?;
        }
        for member in [a, b] {
            if self.group.named {
                out.write_all(&self.group.ids[member.id.clone()])?;
            } else {
                write_u64(out, member.position)?;
            }
            out.write_all(b"\t")?;
        }
        write_u64(out, u64::from(distance))?;
        out.write_all(b"\n")?;
        self.written += 1;
        Ok(())
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
