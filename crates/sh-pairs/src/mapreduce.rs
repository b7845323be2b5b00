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
//! `--reduce` reads those lines sorted by key, holds one group (a run of equal keys) at a time,
//! and writes the pairs of the group that the group's table reports under the first-table rule
//! ([`Tables::first_table`]): every pair within K bits exactly once over all groups, however the
//! sorted lines are cut between reduce tasks at key boundaries, and nothing to de-duplicate.
//! Identical fingerprints agree on every block, so table 0 reports their pairs. Its memory is
//! that of its largest group (about 40 bytes and the id for each record).

use std::io::{self, Write};

use sh_core::fingerprint::Width;
use sh_core::number::{push_u64, write_u64};
use sh_core::progress::Progress;
use sh_core::{Error, RecordReader, Result};

use crate::records::{IdsThroughout, RecordLine};
use crate::tables::{Table, Tables};

mod map_line;

use map_line::{
    hex_digits, parse_fingerprint, parse_hex, parse_line_number, split_line_number, write_hex,
    MapLine,
};

/// One step of the map/reduce form, with the B and K that the map and the reduce share.
#[derive(Debug, Clone)]
pub struct MapReduce {
    tables: Tables,
    /// Hex digits of a table number in a key: those of C(B, K) - 1.
    rank_digits: usize,
    /// Map: input lines start with `LINE<TAB>`. Reduce: pairs start with `LINE_A<TAB>LINE_B<TAB>`.
    pub numbered: bool,
    /// Reduce: only enough pairs to connect the same clusters (as `sh-pairs --sparse`).
    pub sparse: bool,
}

impl MapReduce {
    /// `blocks` B and `k` K, K < B <= 64 (a usage error otherwise).
    pub fn new(blocks: u32, k: u32) -> Result<MapReduce> {
        let tables = Tables::new(blocks, k)?;
        let rank_digits = hex_digits(64 - (tables.count() - 1).leading_zeros());
        Ok(MapReduce { tables, rank_digits, numbered: false, sparse: false })
    }

    /// The number of tables, C(B, K): lines written per record by [`MapReduce::map`].
    pub fn tables(&self) -> u64 {
        self.tables.count()
    }

    /// Writes every record's line for every table; returns the number of records mapped.
    /// Records with an empty fingerprint are skipped (their line numbers still count).
    pub fn map<W: Write>(
        &self,
        input: &mut RecordReader,
        out: &mut W,
        progress: &mut Progress,
    ) -> Result<u64> {
        let tables = &self.tables;
        let mut ids = IdsThroughout::new("line");
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
            if fingerprint.width() != Width::Bits64 {
                let what =
                    format!("a {} fingerprint: --map reads 64-bit ones", fingerprint.width());
                return Err(Error::input(line, what, rest));
            }
            let fingerprint = fingerprint.words()[0];

            // The part after the key is the same for every table.
            value.clear();
            value.push(b'\t');
            write_hex(&mut value, fingerprint, 16);
            value.push(b'\t');
            push_u64(&mut value, position);
            if let Some(id) = id {
                value.push(b'\t');
                value.extend_from_slice(id);
            }
            value.push(b'\n');

            for (rank, table) in tables.in_order().enumerate() {
                let (bits, width) = tables.bits(table, fingerprint);
                key.clear();
                write_hex(&mut key, rank as u64, self.rank_digits);
                write_hex(&mut key, bits, hex_digits(width));
                out.write_all(&key).map_err(Error::writing)?;
                out.write_all(&value).map_err(Error::writing)?;
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
        let mut written = 0u64;
        while let Some((line, record)) = input.next_numbered()? {
            progress.tick();
            if record.is_empty() {
                continue;
            }
            let fields = MapLine::parse(record).map_err(|what| Error::input(line, what, record))?;
            if fields.key != group.key.as_slice() {
                written += self.finish_group(&mut group, out)?;
                if !group.key.is_empty() && fields.key <= group.key.as_slice() {
                    return Err(Error::input(
                        line,
                        "keys out of order: the input of --reduce must be sorted by key \
                         (LC_ALL=C sort)",
                        fields.key,
                    ));
                }
                self.start_group(&mut group, fields.key, line)?;
            }
            let fingerprint = parse_fingerprint(fields.fingerprint).ok_or_else(|| {
                Error::input(line, "not 16 lowercase hex digits", fields.fingerprint)
            })?;
            if self.tables.bits(group.table, fingerprint).0 != group.bits {
                return Err(Error::input(
                    line,
                    "the fingerprint's bits differ from the key's: were --map and --reduce given \
                     the same --blocks and --distance?",
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
            group.members.push(Member { fingerprint, position, id });
        }
        written += self.finish_group(&mut group, out)?;
        Ok(written)
    }

    /// Checks a new key and makes it the current group's.
    fn start_group(&self, group: &mut Group, key: &[u8], line: u64) -> Result<()> {
        let tables = &self.tables;
        let bad = |what: &str| Error::input(line, what.to_string(), key);
        let rank_part = key.get(..self.rank_digits).ok_or_else(|| bad("key too short"))?;
        let rank =
            parse_hex(rank_part).ok_or_else(|| bad("key does not start with a table number"))?;
        if rank >= tables.count() {
            return Err(bad(&format!(
                "table number {rank} out of range: C(B, K) = {} tables; were --map and \
                 --reduce given the same --blocks and --distance?",
                tables.count()
            )));
        }
        let table = tables.unrank(rank);
        let width = tables.width(table);
        let bits_part = &key[self.rank_digits..];
        if bits_part.len() != hex_digits(width) {
            return Err(bad(
                "key of the wrong width for its table: were --map and --reduce given the same \
                 --blocks and --distance?",
            ));
        }
        let bits = parse_hex(bits_part).ok_or_else(|| bad("key is not lowercase hex"))?;
        group.key.clear();
        group.key.extend_from_slice(key);
        group.rank = rank;
        group.table = table;
        group.bits = bits;
        group.first_line = line;
        Ok(())
    }

    /// Writes the pairs of the group held and empties it; returns how many.
    fn finish_group<W: Write>(&self, group: &mut Group, out: &mut W) -> Result<u64> {
        let written = if group.members.len() < 2 { 0 } else { self.write_group(group, out)? };
        group.members.clear();
        group.ids.clear();
        Ok(written)
    }

    fn write_group<W: Write>(&self, group: &mut Group, out: &mut W) -> Result<u64> {
        group.members.sort_unstable_by_key(|m| (m.fingerprint, m.position));
        if let Some(twice) = group
            .members
            .windows(2)
            .find(|w| (w[0].fingerprint, w[0].position) == (w[1].fingerprint, w[1].position))
        {
            return Err(Error::input(
                group.first_line,
                format!("line number {} appears twice in one group", twice[0].position),
                &group.key,
            ));
        }
        // Runs of one fingerprint: the members are sorted by fingerprint, then position.
        group.runs.clear();
        let mut start = 0;
        while start < group.members.len() {
            let fp = group.members[start].fingerprint;
            let len = group.members[start..].iter().take_while(|m| m.fingerprint == fp).count();
            group.runs.push(start..start + len);
            start += len;
        }
        let group = &*group;
        let mut writer = GroupWriter { group, out, numbered: self.numbered, written: 0 };
        // Identical fingerprints agree on every block: the first table, number 0, reports them.
        if group.rank == 0 {
            for run in &group.runs {
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
        for (i, run) in group.runs.iter().enumerate() {
            let fp = group.members[run.start].fingerprint;
            for other in &group.runs[i + 1..] {
                let x = fp ^ group.members[other.start].fingerprint;
                let distance = x.count_ones();
                if distance > self.tables.k() || self.tables.first_table(x) != Some(group.table) {
                    continue;
                }
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

/// The current group of the reduce: the records of one key.
#[derive(Debug, Default)]
struct Group {
    key: Vec<u8>,
    /// The table's number in the key.
    rank: u64,
    table: Table,
    /// The bits of the group's fingerprints in the table's blocks.
    bits: u64,
    first_line: u64,
    named: bool,
    members: Vec<Member>,
    /// The members' ids, end to end.
    ids: Vec<u8>,
    /// Runs of members with one fingerprint.
    runs: Vec<std::ops::Range<usize>>,
}

#[derive(Debug, Clone)]
struct Member {
    fingerprint: u64,
    position: u64,
    id: std::ops::Range<usize>,
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

    #[test]
    fn table_numbers_have_the_width_of_the_last() {
        assert_eq!(MapReduce::new(4, 2).unwrap().rank_digits, 1); // 6 tables
        assert_eq!(MapReduce::new(7, 3).unwrap().rank_digits, 2); // 35 tables
        assert_eq!(MapReduce::new(64, 32).unwrap().rank_digits, 16);
        assert_eq!(MapReduce::new(1, 0).unwrap().rank_digits, 1); // one table, number 0
    }
}
