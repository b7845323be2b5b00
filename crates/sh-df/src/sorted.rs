//! The items of a table in its order: by decreasing count, then by item bytes; and the table of
//! the documents counted, written in that order.

use std::borrow::Cow;
use std::io::{self, Write};

use sh_core::number::push_u64;
use sh_core::threads::spawn_or_run;

use crate::mix::unrow;
use crate::table::{write_header, Header};

/// The items of an [`ItemCounts`] in the table's order.
#[derive(Debug)]
pub struct SortedItems {
    pub(crate) text: Vec<u8>,
    /// Where each item's text starts and ends, and its count.
    pub(crate) items: Vec<(usize, usize, u64)>,
}

impl SortedItems {
    /// The item at `at` (in order) and its count.
    pub(crate) fn get(&self, at: usize) -> Option<(&[u8], u64)> {
        self.items.get(at).map(|&(start, end, count)| (&self.text[start..end], count))
    }

    /// Each item's text and count, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> {
        self.items.iter().map(|&(start, end, count)| (&self.text[start..end], count))
    }

    /// How many items there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// The lines of this many number items, at least, are spelled by each thread (as in the sort).
const PARALLEL_WRITE_FROM: usize = 1 << 16;

/// The table of the documents counted, in its order: the number items as rows (`mix.rs`)
/// sorted, and the text items (rare:
/// an item that is no canonical decimal) sorted apart; the two are merged as they are read.
/// The numbers are spelled out only as they are written (on threads: each thread's run of
/// lines, then the runs in order), not listed as text beforehand.
#[derive(Debug)]
pub struct CountedTable {
    pub(crate) numbers: Vec<u128>,
    pub(crate) texts: SortedItems,
}

/// An item of a [`CountedTable`], in the table's order.
enum Item<'a> {
    Number(u64, u64),
    Text(&'a [u8], u64),
}

impl CountedTable {
    /// How many items there are.
    pub fn len(&self) -> usize {
        self.numbers.len() + self.texts.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each item and its count, in order.
    pub fn iter(&self) -> impl Iterator<Item = (Cow<'_, [u8]>, u64)> {
        self.items().map(|item| match item {
            Item::Number(value, count) => {
                let mut digits = Vec::with_capacity(20);
                push_u64(&mut digits, value);
                (Cow::Owned(digits), count)
            }
            Item::Text(text, count) => (Cow::Borrowed(text), count),
        })
    }

    /// The two lists merged: by decreasing count, then by bytes (no text is a canonical
    /// decimal, so none equals a number).
    fn items(&self) -> impl Iterator<Item = Item<'_>> {
        let mut numbers = self.numbers.iter().peekable();
        let mut next_text = 0;
        let mut digits = Vec::with_capacity(20);
        std::iter::from_fn(move || {
            let text = self.texts.get(next_text);
            let Some(&&number) = numbers.peek() else {
                next_text += 1;
                return text.map(|(text, count)| Item::Text(text, count));
            };
            let (value, count) = unrow(number);
            if let Some((text, text_count)) = text {
                digits.clear();
                push_u64(&mut digits, value);
                if text_count > count || (text_count == count && text < &digits[..]) {
                    next_text += 1;
                    return Some(Item::Text(text, text_count));
                }
            }
            numbers.next();
            Some(Item::Number(value, count))
        })
    }

    /// Writes the table with `header` to `out`. Without text items, the lines of a large table
    /// are spelled on up to `threads` threads, a run of them each, and written in order.
    pub fn write(&self, out: &mut impl Write, header: Header, threads: usize) -> io::Result<()> {
        write_header(out, header)?;
        let threads = threads.clamp(1, (self.numbers.len() / PARALLEL_WRITE_FROM).max(1));
        if !self.texts.is_empty() || threads == 1 {
            let mut line = Vec::with_capacity(64);
            for item in self.items() {
                line.clear();
                match item {
                    Item::Number(value, count) => push_line(&mut line, value, count),
                    Item::Text(text, count) => {
                        line.extend_from_slice(text);
                        push_count(&mut line, count);
                    }
                }
                out.write_all(&line)?;
            }
            return Ok(());
        }
        let run = self.numbers.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let runs: Vec<_> = self
                .numbers
                .chunks(run)
                .map(|rows| {
                    spawn_or_run(scope, move || {
                        let mut text = Vec::with_capacity(rows.len() * 24);
                        for &row in rows {
                            let (value, count) = unrow(row);
                            push_line(&mut text, value, count);
                        }
                        text
                    })
                })
                .collect();
            runs.into_iter().try_for_each(|run| out.write_all(&run.join()))
        })
    }
}

/// `VALUE<TAB>COUNT<LF>`.
#[inline]
fn push_line(line: &mut Vec<u8>, value: u64, count: u64) {
    push_u64(line, value);
    push_count(line, count);
}

/// `<TAB>COUNT<LF>`, the end of a line.
#[inline]
fn push_count(line: &mut Vec<u8>, count: u64) {
    line.push(b'\t');
    push_u64(line, count);
    line.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mix::mix;
    use crate::partitions::DocumentCounts;

    /// The lines written, on any number of threads, are the items listed in order, numbers
    /// alone (written on threads) or with texts among them (written in one pass).
    #[test]
    fn written_as_listed_whatever_the_threads() {
        for texts in [false, true] {
            let mut counts = DocumentCounts::new(1 << 20);
            for n in 0..5 * PARALLEL_WRITE_FROM as u64 {
                // Counts of 1 to 5, values from 0 to beyond 2^63.
                let value =
                    (n % (2 * PARALLEL_WRITE_FROM as u64)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                counts.push_number(mix(value >> (n % 3)));
            }
            if texts {
                for text in [&b"x"[..], b"00", b"1x", b"x", b"99999999999999999999999"] {
                    counts.push_text(text);
                }
            }
            let (table, undercount) = counts.finish(2);
            assert_eq!(undercount, 0);
            assert!(table.numbers.len() > 2 * PARALLEL_WRITE_FROM);
            let header = Header { documents: 5, undercount: 0 };
            let mut listed = b"#documents\t5\n".to_vec();
            for (item, count) in table.iter() {
                listed.extend_from_slice(&item);
                listed.extend_from_slice(format!("\t{count}\n").as_bytes());
            }
            for threads in [1, 2, 3, 8] {
                let mut written = Vec::new();
                table.write(&mut written, header, threads).unwrap();
                assert!(written == listed, "texts {texts}, {threads} threads");
            }
        }
    }
}
