//! The table's items put into [`TableItems`] a few lines after they are read. The table file
//! hands its lines one at a time, and each insert into a large table (with `--idf`, every item
//! of the corpus) begins with a read of memory: the slot of each line is asked for when the
//! line is read ([`TableItems::prefetch`]) and the item inserted [`AHEAD`] lines later, so that
//! the reads of several lines are in flight at once. Inserts are made in the lines' order, so
//! an item listed twice, or one past the capacity, is refused at the same line as by inserting
//! each line as it comes; the error is known [`AHEAD`] lines later (or at the table's end).
//! So the delay is made only for a table read from a regular file: a table on a pipe, whose
//! writer may wait before its next lines, gets each line inserted as it comes, and its fault
//! reported at once.

use sh_core::{Error, Result};

use crate::ahead::AHEAD;
use crate::table::{Refused, TableItems};

/// A line read and not yet inserted.
#[derive(Debug, Default)]
struct Pending {
    hash: u64,
    line: u64,
    count: u64,
    /// Its item's bytes (the buffer is kept from line to line).
    item: Vec<u8>,
}

/// Up to [`AHEAD`] lines read and not yet inserted (or one, inserted at once), oldest first.
#[derive(Debug, Default)]
pub(crate) struct Inserts {
    ring: [Pending; AHEAD],
    head: usize,
    len: usize,
    /// Lines inserted as they come: no slot asked for ahead.
    at_once: bool,
}

impl Inserts {
    /// Inserts made [`AHEAD`] lines behind the reading where `ahead`, otherwise at once.
    pub(crate) fn new(ahead: bool) -> Inserts {
        Inserts { at_once: !ahead, ..Inserts::default() }
    }

    /// Takes the item of table line `line` with its count: asks for its slot now, and inserts
    /// it once [`AHEAD`] more lines are taken (or at [`Inserts::finish`]); at once where the
    /// inserts are not made ahead. The error is that of the oldest line's insert.
    pub(crate) fn push(
        &mut self,
        items: &mut TableItems,
        line: u64,
        item: &[u8],
        count: u64,
        capacity: usize,
    ) -> Result<()> {
        if self.len == AHEAD {
            self.insert_oldest(items, capacity)?;
        }
        let hash = items.hasher().hash(item);
        items.prefetch(hash);
        let pending = &mut self.ring[(self.head + self.len) % AHEAD];
        pending.hash = hash;
        pending.line = line;
        pending.count = count;
        pending.item.clear();
        pending.item.extend_from_slice(item);
        self.len += 1;
        match self.at_once {
            true => self.insert_oldest(items, capacity),
            false => Ok(()),
        }
    }

    /// Inserts every line taken and not yet inserted, in order, up to the first refused.
    pub(crate) fn finish(&mut self, items: &mut TableItems, capacity: usize) -> Result<()> {
        while self.len > 0 {
            self.insert_oldest(items, capacity)?;
        }
        Ok(())
    }

    /// Inserts the oldest line taken. A refused line ends the inserts: the lines after it are
    /// let go, so that [`Inserts::finish`] then inserts nothing (as a loop ends at its error).
    fn insert_oldest(&mut self, items: &mut TableItems, capacity: usize) -> Result<()> {
        let pending = &self.ring[self.head];
        self.head = (self.head + 1) % AHEAD;
        self.len -= 1;
        let refused =
            match items.insert_hashed(pending.hash, &pending.item, pending.count, capacity) {
                Ok(()) => return Ok(()),
                Err(refused) => refused,
            };
        self.len = 0;
        Err(refusal(refused, capacity, pending.line, &pending.item))
    }
}

/// The error of table line `line`, whose `item` was refused.
fn refusal(refused: Refused, capacity: usize, line: u64, item: &[u8]) -> Error {
    match refused {
        Refused::Held => Error::input(line, "item listed twice", item),
        Refused::Full => {
            let what = format!(
                "the table holds more than {capacity} items (raise --capacity, or use \
                 --max-df without --idf, which holds only the items to leave out)"
            );
            Error::input(line, what, item)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What inserting each line as it comes gives: the items held, and the first error.
    fn one_by_one(lines: &[(Vec<u8>, u64)], capacity: usize) -> (TableItems, Result<()>) {
        let mut items = TableItems::default();
        let result = (|| {
            for (at, (item, count)) in lines.iter().enumerate() {
                items
                    .insert(item, *count, capacity)
                    .map_err(|refused| refusal(refused, capacity, at as u64 + 1, item))?;
            }
            Ok(())
        })();
        (items, result)
    }

    proptest! {
        /// Inserted behind the reading, or at once, the lines give the same items, counts and
        /// first error (its line and text) as inserting each line into the table as it comes;
        /// lines past an error are never inserted.
        #[test]
        fn as_inserted_one_by_one(
            lines in prop::collection::vec(
                (prop::collection::vec(b'0'..b'8', 0..4), 1u64..1000), 0..60),
            capacity in 1usize..80,
            ahead: bool,
        ) {
            let (expected, expected_result) = one_by_one(&lines, capacity);
            let mut items = TableItems::default();
            let mut inserts = Inserts::new(ahead);
            let mut result = Ok(());
            for (at, (item, count)) in lines.iter().enumerate() {
                result = inserts.push(&mut items, at as u64 + 1, item, *count, capacity);
                if result.is_err() {
                    break;
                }
            }
            // As Weights::load does: the lines still held are inserted whatever ended the
            // reading, and the first error wins.
            let finished = inserts.finish(&mut items, capacity);
            let result = result.and(finished);
            prop_assert_eq!(
                result.map_err(|e| e.to_string()),
                expected_result.map_err(|e| e.to_string())
            );
            prop_assert_eq!(items.len(), expected.len());
            for (item, _) in &lines {
                let hash = items.hasher().hash(item);
                prop_assert_eq!(items.get(hash, item), expected.get(hash, item));
            }
        }
    }
}
