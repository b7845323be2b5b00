//! The items of a table in its order: by decreasing count, then by item bytes.

use sh_core::number::push_u64;

/// The items of an [`ItemCounts`] in the table's order.
#[derive(Debug)]
pub struct SortedItems {
    pub(crate) text: Vec<u8>,
    /// Where each item's text starts and ends, and its count.
    pub(crate) items: Vec<(usize, usize, u64)>,
}

impl SortedItems {
    /// An empty list with room for `items` items, to be [`pushed`](SortedItems::push) in order.
    pub(crate) fn with_capacity(items: usize) -> SortedItems {
        SortedItems { text: Vec::new(), items: Vec::with_capacity(items) }
    }

    /// Appends an item: after those pushed before it in the table's order.
    pub(crate) fn push(&mut self, item: &[u8], count: u64) {
        let start = self.text.len();
        self.text.extend_from_slice(item);
        self.items.push((start, self.text.len(), count));
    }

    /// Appends a number item, written in decimal.
    pub(crate) fn push_number(&mut self, value: u64, count: u64) {
        let start = self.text.len();
        push_u64(&mut self.text, value);
        self.items.push((start, self.text.len(), count));
    }

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
