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
//! ([`crate::first_table`]): every pair within K bits exactly once over all groups, however the
//! sorted lines are cut between reduce tasks at key boundaries, and nothing to de-duplicate.
//! Identical fingerprints agree on every block, so table 0 reports their pairs. Its memory is
//! that of its largest group (about 40 bytes and the id for each record).

use std::io::Write;

use memchr::memchr;
use sh_core::number::{parse_u64, write_u64};
use sh_core::progress::Progress;
use sh_core::record::{items, split_nonempty_id};
use sh_core::{Error, RecordReader, Result};

use crate::blocks::{first_table, Blocks};
use crate::Args;

/// One step of the map/reduce form, with the B and K that the map and the reduce share.
#[derive(Debug, Clone)]
pub struct MapReduce {
    tables: Tables,
    distance: u32,
    /// Map: input lines start with `LINE<TAB>`. Reduce: pairs start with `LINE_A<TAB>LINE_B<TAB>`.
    pub numbered: bool,
    /// Reduce: only enough pairs to connect the same clusters (as `sh-pairs --sparse`).
    pub sparse: bool,
}

impl MapReduce {
    /// `blocks` B and `distance` K, K < B <= 64.
    pub fn new(blocks: u32, distance: u32) -> Result<MapReduce> {
        if !(1..=64).contains(&blocks) || blocks <= distance {
            return Err(Error::usage(format!(
                "--blocks ({blocks}) must be greater than --distance ({distance}) and at most 64"
            )));
        }
        Ok(MapReduce {
            tables: Tables::new(blocks, distance),
            distance,
            numbered: false,
            sparse: false,
        })
    }

    /// The number of tables, C(B, K): lines written per record by [`MapReduce::map`].
    pub fn tables(&self) -> u64 {
        self.tables.count
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
        let mut named: Option<bool> = None;
        let mut value = Vec::new();
        let mut key = Vec::new();
        let mut combination = Vec::with_capacity(tables.size);
        let mut mapped = 0u64;
        while let Some((line, record)) = input.next_numbered()? {
            progress.tick();
            let (position, rest) = if self.numbered {
                let Some(tab) = memchr(b'\t', record) else {
                    return Err(Error::input(line, "no TAB after the line number", record));
                };
                (parse_line_number(&record[..tab], line)?, &record[tab + 1..])
            } else {
                (line, record)
            };
            let (id, payload) = split_nonempty_id(line, rest)?;
            let mut fields = items(payload);
            let Some(text) = fields.next() else { continue };
            if fields.next().is_some() {
                return Err(Error::input(line, "more than one fingerprint on a line", payload));
            }
            let fingerprint =
                parse_u64(text).map_err(|e| Error::input(line, e.to_string(), text))?;
            match (*named.get_or_insert(id.is_some()), id.is_some()) {
                (true, false) => {
                    return Err(Error::input(
                        line,
                        "a line without an id among lines with ids",
                        record,
                    ))
                }
                (false, true) => {
                    return Err(Error::input(
                        line,
                        "a line with an id among lines without ids",
                        record,
                    ))
                }
                _ => {}
            }

            // The part after the key is the same for every table.
            value.clear();
            value.push(b'\t');
            write_hex(&mut value, fingerprint, 16);
            value.push(b'\t');
            write_u64(&mut value, position)?;
            if let Some(id) = id {
                value.push(b'\t');
                value.extend_from_slice(id);
            }
            value.push(b'\n');

            combination.clear();
            combination.extend(0..tables.size);
            let mut table = 0u64;
            loop {
                let set = combination.iter().fold(0u64, |set, &j| set | 1 << j);
                let (bits, width) = tables.bits(set, fingerprint);
                key.clear();
                write_hex(&mut key, table, tables.digits);
                write_hex(&mut key, bits, hex_digits(width));
                out.write_all(&key)?;
                out.write_all(&value)?;
                if !next_combination(&mut combination, tables.blocks.count()) {
                    break;
                }
                table += 1;
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
        let mut named: Option<bool> = None;
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
            if self.tables.bits(group.set, fingerprint).0 != group.bits {
                return Err(Error::input(
                    line,
                    "the fingerprint's bits differ from the key's: were --map and --reduce given \
                     the same --blocks and --distance?",
                    record,
                ));
            }
            let position = parse_line_number(fields.line, line)?;
            match (*named.get_or_insert(fields.id.is_some()), fields.id) {
                (true, Some(id)) => {
                    let start = group.ids.len();
                    group.ids.extend_from_slice(id);
                    group.members.push(Member {
                        fingerprint,
                        position,
                        id: start..group.ids.len(),
                    });
                }
                (false, None) => group.members.push(Member { fingerprint, position, id: 0..0 }),
                (true, None) => {
                    return Err(Error::input(
                        line,
                        "a record without an id among records with ids",
                        record,
                    ))
                }
                (false, Some(_)) => {
                    return Err(Error::input(
                        line,
                        "a record with an id among records without ids",
                        record,
                    ))
                }
            }
            group.named = named == Some(true);
        }
        written += self.finish_group(&mut group, out)?;
        Ok(written)
    }

    /// Checks a new key and makes it the current group's.
    fn start_group(&self, group: &mut Group, key: &[u8], line: u64) -> Result<()> {
        let tables = &self.tables;
        let bad = |what: &str| Error::input(line, what.to_string(), key);
        let table_part = key.get(..tables.digits).ok_or_else(|| bad("key too short"))?;
        let table =
            parse_hex(table_part).ok_or_else(|| bad("key does not start with a table number"))?;
        if table >= tables.count {
            return Err(bad(&format!(
                "table number {table} out of range: C(B, K) = {} tables; were --map and \
                 --reduce given the same --blocks and --distance?",
                tables.count
            )));
        }
        let set = tables.unrank(table);
        let width = tables.width(set);
        let bits_part = &key[tables.digits..];
        if bits_part.len() != hex_digits(width) {
            return Err(bad(
                "key of the wrong width for its table: were --map and --reduce given the same \
                 --blocks and --distance?",
            ));
        }
        let bits = parse_hex(bits_part).ok_or_else(|| bad("key is not lowercase hex"))?;
        group.key.clear();
        group.key.extend_from_slice(key);
        group.table = table;
        group.set = set;
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
        if group.table == 0 {
            for run in &group.runs {
                let members = &group.members[run.clone()];
                if self.sparse {
                    for pair in members.windows(2) {
                        writer.pair(&pair[0], &pair[1], 0)?;
                    }
                } else {
                    for (i, a) in members.iter().enumerate() {
                        for b in &members[i + 1..] {
                            writer.pair(a, b, 0)?;
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
                if distance > self.distance
                    || first_table(&self.tables.blocks, self.distance, x) != Some(group.set)
                {
                    continue;
                }
                if self.sparse {
                    // The first record of each fingerprint, as sh-pairs --sparse writes them.
                    writer.pair(
                        &group.members[run.start],
                        &group.members[other.start],
                        distance,
                    )?;
                } else {
                    for a in &group.members[run.clone()] {
                        for b in &group.members[other.clone()] {
                            writer.pair(a, b, distance)?;
                        }
                    }
                }
            }
        }
        Ok(writer.written)
    }
}

/// The `sh-pairs --map` and `sh-pairs --reduce` commands.
pub fn run(args: &Args) -> Result<()> {
    if !args.map && !args.reduce {
        return Err(Error::usage("--numbered needs --map or --reduce"));
    }
    let blocks = args
        .blocks
        .ok_or_else(|| Error::usage("--map and --reduce need --blocks (the same for both)"))?;
    let mut job = MapReduce::new(blocks, args.distance)?;
    job.numbered = args.numbered;
    job.sparse = args.sparse;
    let mut input = args.io.open_input()?;
    let mut out = args.io.create_output()?;
    let mut progress = Progress::new(args.quiet, "lines read");
    if args.map {
        job.map(&mut input, &mut out, &mut progress)?;
    } else {
        job.reduce(&mut input, &mut out, &mut progress)?;
    }
    out.finish()?;
    progress.finish();
    Ok(())
}

/// The C(B, K) tables: which blocks each holds, and how its keys are written.
#[derive(Debug, Clone)]
struct Tables {
    blocks: Blocks,
    /// Blocks per table, B - K.
    size: usize,
    count: u64,
    /// Hex digits of a table number.
    digits: usize,
}

impl Tables {
    fn new(blocks: u32, distance: u32) -> Tables {
        let size = (blocks - distance) as usize;
        let count = exact_binomial(blocks, distance);
        Tables {
            blocks: Blocks::new(blocks),
            size,
            count,
            digits: hex_digits(64 - (count - 1).leading_zeros()),
        }
    }

    /// The blocks (bit j = block j) of table `rank`, tables in lexicographic order of their
    /// sorted block lists.
    fn unrank(&self, mut rank: u64) -> u64 {
        let n = self.blocks.count() as u32;
        let mut set = 0u64;
        let mut next = 0u32;
        for chosen in 0..self.size as u32 {
            loop {
                // Tables whose next block is `next`: the rest chosen from the blocks after it.
                let with_next = exact_binomial(n - 1 - next, self.size as u32 - 1 - chosen);
                if rank < with_next {
                    set |= 1 << next;
                    next += 1;
                    break;
                }
                rank -= with_next;
                next += 1;
            }
        }
        set
    }

    /// The number of bits in the blocks of `set`.
    fn width(&self, set: u64) -> u32 {
        (0..self.blocks.count())
            .filter(|&j| set >> j & 1 == 1)
            .map(|j| self.blocks.mask(j).count_ones())
            .sum()
    }

    /// The bits of `fingerprint` in the blocks of `set`, most significant block first, and
    /// their number.
    fn bits(&self, set: u64, fingerprint: u64) -> (u64, u32) {
        let mut rest = set;
        let (mut bits, mut width) = (0u64, 0u32);
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mask = self.blocks.mask(j);
            let part = (fingerprint & mask) >> mask.trailing_zeros();
            let w = mask.count_ones();
            bits = bits.checked_shl(w).unwrap_or(0) | part;
            width += w;
        }
        (bits, width)
    }
}

/// The current group of the reduce: the records of one key.
#[derive(Debug, Default)]
struct Group {
    key: Vec<u8>,
    table: u64,
    set: u64,
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
    fn pair(&mut self, a: &Member, b: &Member, distance: u32) -> Result<()> {
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

/// The fields of a map line.
struct MapLine<'a> {
    key: &'a [u8],
    fingerprint: &'a [u8],
    line: &'a [u8],
    id: Option<&'a [u8]>,
}

impl<'a> MapLine<'a> {
    fn parse(record: &'a [u8]) -> std::result::Result<MapLine<'a>, &'static str> {
        const SHAPE: &str = "not a line of sh-pairs --map: KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID]";
        let mut fields = record.splitn(4, |&b| b == b'\t');
        let key = fields.next().filter(|k| !k.is_empty()).ok_or(SHAPE)?;
        let fingerprint = fields.next().ok_or(SHAPE)?;
        let line = fields.next().ok_or(SHAPE)?;
        let id = fields.next();
        if id.is_some_and(|id| id.contains(&b'\t')) {
            return Err("an id holds a TAB");
        }
        Ok(MapLine { key, fingerprint, line, id })
    }
}

/// A line number: a decimal integer from 1 on.
fn parse_line_number(text: &[u8], line: u64) -> Result<u64> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return Err(Error::input(line, "not a line number (a decimal integer from 1 on)", text));
    }
    match parse_u64(text) {
        Ok(0) => Err(Error::input(line, "line number 0: line numbers start at 1", text)),
        Ok(n) => Ok(n),
        Err(e) => Err(Error::input(line, e.to_string(), text)),
    }
}

fn parse_fingerprint(text: &[u8]) -> Option<u64> {
    if text.len() != 16 {
        return None;
    }
    parse_hex(text)
}

/// Lowercase hex digits, as the map writes them; at most 16.
fn parse_hex(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 16 {
        return None;
    }
    text.iter().try_fold(0u64, |value, &b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        Some(value << 4 | u64::from(digit))
    })
}

/// Writes `value` as `digits` lowercase hex digits (its low `4 * digits` bits).
fn write_hex(out: &mut Vec<u8>, value: u64, digits: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits).rev() {
        out.push(HEX[(value >> (4 * i) & 0xf) as usize]);
    }
}

/// Hex digits for `bits` bits, at least one.
fn hex_digits(bits: u32) -> usize {
    (bits.max(1) as usize).div_ceil(4)
}

/// Advances `c`, a sorted choice of blocks out of `n`, to the next in lexicographic order;
/// false after the last.
fn next_combination(c: &mut [usize], n: usize) -> bool {
    let m = c.len();
    let Some(i) = (0..m).rev().find(|&i| c[i] < n - m + i) else {
        return false;
    };
    c[i] += 1;
    for j in i + 1..m {
        c[j] = c[j - 1] + 1;
    }
    true
}

/// C(n, k) exactly; n <= 64, so it fits in a u64.
fn exact_binomial(n: u32, k: u32) -> u64 {
    let k = k.min(n - k);
    let mut value: u128 = 1;
    for i in 0..k {
        value = value * u128::from(n - i) / u128::from(i + 1);
    }
    value as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_numbered_in_lexicographic_order() {
        for b in 1..=12u32 {
            for k in 0..b {
                let tables = Tables::new(b, k);
                let mut c: Vec<usize> = (0..tables.size).collect();
                let mut rank = 0;
                loop {
                    let set = c.iter().fold(0u64, |s, &j| s | 1 << j);
                    assert_eq!(tables.unrank(rank), set, "B={b} K={k} rank {rank}");
                    if !next_combination(&mut c, b as usize) {
                        break;
                    }
                    rank += 1;
                }
                assert_eq!(rank + 1, tables.count, "B={b} K={k}");
            }
        }
        assert_eq!(exact_binomial(64, 32), 1_832_624_140_942_590_534);
        let wide = Tables::new(64, 32);
        assert_eq!(wide.unrank(wide.count - 1), u64::MAX << 32);
        assert_eq!(wide.digits, 16);
    }

    #[test]
    fn table_zero_is_the_first_table_of_identical_fingerprints() {
        for b in 1..=64 {
            for k in 0..b.min(8) {
                let tables = Tables::new(b, k);
                assert_eq!(first_table(&tables.blocks, k, 0), Some(tables.unrank(0)));
            }
        }
    }

    #[test]
    fn bits_of_a_table() {
        let tables = Tables::new(1, 0);
        assert_eq!(tables.bits(1, u64::MAX), (u64::MAX, 64));
        let tables = Tables::new(4, 2); // four blocks of 16 bits
        let fp = 0x1111_2222_3333_4444;
        assert_eq!(tables.bits(0b0101, fp), (0x1111_3333, 32));
        assert_eq!(tables.bits(0b1010, fp), (0x2222_4444, 32));
        assert_eq!(tables.width(0b1010), 32);
        let mut key = Vec::new();
        write_hex(&mut key, 5, tables.digits);
        write_hex(&mut key, 0x2222_4444, hex_digits(32));
        assert_eq!(key, b"522224444");
    }
}
