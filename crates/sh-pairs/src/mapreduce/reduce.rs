//! The reduce: map lines sorted by key, read one group (a run of equal keys) at a time, and the
//! pairs that each group's table reports under the first-table rule (see `mapreduce.rs`).

use std::io::{self, Write};
use std::ops::Range;

use sh_core::fingerprint::WidthTracker;
use sh_core::number::write_u64;
use sh_core::progress::Progress;
use sh_core::records::IdsThroughout;
use sh_core::{Error, RecordReader, Result};

use super::map_line::{hex_digits, parse_fingerprint, parse_hex, parse_line_number, MapLine};
use super::{Layout, MapReduce};
use crate::tables::Table;

impl MapReduce {
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
            group.members.push(Member { at, position, id, line });
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
                // Named at the later of its two lines: the repeat.
                return Err(Error::input(
                    twice[0].line.max(twice[1].line),
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
    /// The input line it was read from.
    line: u64,
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
