//! What sh-weight does to one document's items, given the document-frequency table.

use std::path::Path;

use sh_core::number::{parse_weight, split_weight, WEIGHT_ERROR};
use sh_core::record::items;
use sh_core::{Error, Result};
use sh_df::read_table;

use crate::idf::{idf, push_weight, IdfTexts};
use crate::inserts::Inserts;
use crate::items::{Found, Repeats};
use crate::table::TableItems;

/// What is done to the items: drop the common ones, weigh by IDF, or both; and count at most
/// so many occurrences of an item in one document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// Leave out items found in more than this fraction of the documents...
    pub max_df: Option<f64>,
    /// ... but never one found in at most this many documents.
    pub floor: u64,
    /// Weigh every item kept by log(N / df).
    pub idf: bool,
    /// Leave out the occurrences of an item after this many in one document (`None`: keep
    /// them all).
    pub max_tf: Option<u32>,
    /// A document of which the table would keep less than this fraction of the items keeps
    /// them all: it is made of text that many documents share, such as a member of a large
    /// family of near duplicates. Where one run of items left out in a row covers more than
    /// half of the document, the fraction is of the items outside that run, and the items kept
    /// must come at most [`EDIT_RUN`] in a row ([`Share::too_small`]). 0: only a document of
    /// which none would be kept.
    pub min_kept: f64,
    /// A common item (one that --max-df leaves out) goes only where at least this many common
    /// items stand in a row; 1: wherever it stands. A common word pair alone amid a document's
    /// own text is language, and the document's; a template's text comes in runs.
    pub min_run: usize,
}

impl Rule {
    /// The rule of the flags --max-df, --df-floor, --idf, --max-tf (0: no limit), --min-kept
    /// and --min-run (0 is taken as 1): with neither --max-df nor --idf, the default rule with
    /// the others given.
    pub fn from_flags(
        max_df: Option<f64>,
        floor: u64,
        idf: bool,
        max_tf: u32,
        min_kept: f64,
        min_run: usize,
    ) -> Rule {
        let max_tf = (max_tf > 0).then_some(max_tf);
        let min_run = min_run.max(1);
        if max_df.is_none() && !idf {
            Rule { floor, max_tf, min_kept, min_run, ..crate::DEFAULT_RULE }
        } else {
            Rule { max_df, floor, idf, max_tf, min_kept, min_run }
        }
    }
}

/// The most items that [`Weights::load`] makes room for before it reads the table's items:
/// 2 Mi (128 MiB of slots).
const RESERVED_MAX: u64 = 1 << 21;

/// The lines of the regular file at `path` ([`is_regular_file`]): a pass over its bytes, which
/// the system's cache then holds for the reading that follows.
fn lines_of(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    let mut buffer = vec![0; 1 << 20];
    let mut lines = 0;
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return Some(lines),
            Ok(n) => lines += memchr::memchr_iter(b'\n', &buffer[..n]).count() as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None, // the reading that follows says what is wrong
        }
    }
}

/// Whether `path` is a regular file (standard input, `-`, is taken as none).
fn is_regular_file(path: &Path) -> bool {
    path != Path::new("-") && std::fs::metadata(path).is_ok_and(|meta| meta.is_file())
}

/// The table as the rule needs it.
#[derive(Debug)]
pub struct Weights {
    rule: Rule,
    /// Items and their document counts: with IDF every item of the table, otherwise only those
    /// to leave out.
    items: TableItems,
    documents: u64,
    /// Counts above this are left out.
    drop_above: u64,
    /// The weight of an item not in the table: that of the table's rarest items.
    unseen_weight: f64,
    /// With --idf, the text of the weights of the rarest counts, written once.
    texts: IdfTexts,
}

impl Weights {
    /// Reads the table in `path`, holding at most `capacity` items.
    pub fn load(path: &Path, rule: Rule, capacity: usize) -> Result<Weights> {
        let mut items = TableItems::default();
        let mut rarest = u64::MAX;
        let mut first = true;
        // Every item is held with --idf. From a regular file (not from a pipe, which may wait
        // before its next lines), each insert's read of memory is asked for ahead, and room is
        // made for every line at once.
        let whole_file = rule.idf && is_regular_file(path);
        let mut inserts = Inserts::new(whole_file);
        let read = read_table(path, |header, line, item, count| {
            if std::mem::take(&mut first) && whole_file {
                // Once the header is read, room for as many items as the file has lines
                // (RESERVED_MAX at most: a larger table grows as it is read), so that the
                // table does not grow line by line.
                let ahead = lines_of(path).map_or(0, |lines| lines.min(RESERVED_MAX));
                items.reserve((ahead as usize).min(capacity));
            }
            rarest = rarest.min(count);
            if !rule.idf && count <= drop_above(rule, header.documents) {
                return Ok(()); // kept as it is: nothing to remember
            }
            inserts.push(&mut items, line, item, count, capacity)
        });
        // The lines still to insert come before any line that read_table found wrong.
        inserts.finish(&mut items, capacity).map_err(|e| e.in_file(path))?;
        let header = read?;
        items.seal();
        let unseen_weight = idf(header.documents, if rarest == u64::MAX { 1 } else { rarest });
        let texts = match rule.idf {
            true => IdfTexts::new(header.documents, unseen_weight),
            false => IdfTexts::default(),
        };
        Ok(Weights {
            rule,
            items,
            documents: header.documents,
            drop_above: drop_above(rule, header.documents),
            unseen_weight,
            texts,
        })
    }

    /// The number of documents the table counts.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// The error, on the first line of the table (read from `path`), of a table that counts no
    /// documents, if this one is such: an empty corpus has an empty table, and nothing to weigh
    /// a document with. For a command that has a document to weigh.
    pub fn counts_no_documents(&self, path: &Path) -> Option<Error> {
        (self.documents == 0)
            .then(|| Error::at_line(1, "the table counts no documents").in_file(path))
    }

    /// Writes the items of `payload` that the rule keeps, weighted when it weighs, to `out`;
    /// when it would keep none, or too few ([`Share::too_small`]), every item as it is (up to
    /// the rule's --max-tf occurrences each). `weighted`: items are `ITEM:WEIGHT`. `repeats`:
    /// scratch, reused from call to call.
    pub fn apply(
        &self,
        payload: &[u8],
        weighted: bool,
        line: u64,
        out: &mut Vec<u8>,
        repeats: &mut Repeats,
    ) -> Result<()> {
        let hasher = self.items.hasher();
        let mut kept = false;
        let mut run = std::mem::take(&mut repeats.common_run);
        let share = match self.rule.max_tf {
            Some(max) if payload.len() <= TWO_PASSES_UP_TO => {
                // The items that the table keeps first, then those within --max-tf.
                repeats.start(payload.len());
                let share = self
                    .table_keeps(payload, weighted, line, &mut run, |found| repeats.note(found))?;
                if !share.too_small(self.rule.min_kept) {
                    repeats.within_limit(payload, hasher, max, |found| {
                        self.push_kept(out, &mut kept, payload, found);
                    });
                }
                share
            }
            max => {
                repeats.clear();
                self.table_keeps(payload, weighted, line, &mut run, |found| {
                    let key = &payload[found.start..found.start + found.key_len];
                    let over = |max| repeats.count(payload, key, found.hash, hasher) > max;
                    if !max.is_some_and(over) {
                        self.push_kept(out, &mut kept, payload, &found);
                    }
                })?
            }
        };
        repeats.common_run = run;
        if !kept || share.too_small(self.rule.min_kept) {
            // Nothing, or too little, would be left: the document keeps all its items, as they
            // came, so that documents made (nearly) only of common text still match each other.
            out.clear();
            kept = false;
            repeats.clear();
            for item in items(payload) {
                let key =
                    if weighted { split_weight(item).map_or(item, |(key, _)| key) } else { item };
                let over = |max| repeats.count(payload, key, hasher.hash(key), hasher) > max;
                if self.rule.max_tf.is_some_and(over) {
                    continue;
                }
                separate(out, &mut kept);
                out.extend_from_slice(item);
            }
        }
        Ok(())
    }

    /// Hands `keep` each item of `payload` that the rule keeps, in order, hashed once (for
    /// both the table and the count of repeats): those that the table keeps, and the common
    /// ones in runs of fewer than --min-run in a row, held in `run` until the run ends. Tells
    /// how many of how many items the table keeps (the common ones counted as left out
    /// wherever they stand); bad input is an error on `line`. Where the table is large, each
    /// item's slot is asked for a few items ahead of its turn ([`crate::ahead`]).
    #[inline]
    fn table_keeps(
        &self,
        payload: &[u8],
        weighted: bool,
        line: u64,
        run: &mut Vec<Found>,
        mut keep: impl FnMut(Found),
    ) -> Result<Share> {
        let mut state = Keeping {
            share: Share { kept: 0, all: 0, longest_out: 0, longest_kept: 0 },
            out_run: 0,
            kept_run: 0,
            run,
        };
        state.run.clear();
        let look = |item: &[u8]| self.look(payload, item, weighted, line);
        if self.items.far() {
            let warm = |found: &Found| self.items.prefetch(found.hash);
            let step = |found| self.step(payload, line, found, &mut state, &mut keep);
            crate::ahead::each(items(payload), look, warm, step)?;
        } else {
            for item in items(payload) {
                self.step(payload, line, look(item)?, &mut state, &mut keep)?;
            }
        }
        state.run.drain(..).for_each(&mut keep);
        Ok(state.share)
    }

    /// An item of `payload` as [`Weights::table_keeps`] takes it: where it is, its key's hash
    /// and, with `weighted`, its own weight (`count` is left for the step); bad input is an
    /// error on `line`.
    #[inline(always)]
    fn look(&self, payload: &[u8], item: &[u8], weighted: bool, line: u64) -> Result<Found> {
        let (key, weight) = if weighted {
            let (key, weight) = split_weight(item)
                .ok_or_else(|| Error::input(line, "weighted item has no ':WEIGHT'", item))?;
            if key.is_empty() {
                // As sh-df, which reads the same items, says of it.
                return Err(Error::input(line, "weighted item has an empty ITEM", item));
            }
            let weight =
                parse_weight(weight).ok_or_else(|| Error::input(line, WEIGHT_ERROR, item))?;
            (key, Some(weight))
        } else {
            (item, None)
        };
        let start = item.as_ptr() as usize - payload.as_ptr() as usize;
        let (len, key_len, hash) = (item.len(), key.len(), self.items.hasher().hash(key));
        Ok(Found { start, len, key_len, hash, count: None, weight })
    }

    /// Decides the next item of the document, `found`, for [`Weights::table_keeps`].
    #[inline(always)]
    fn step(
        &self,
        payload: &[u8],
        line: u64,
        mut found: Found,
        state: &mut Keeping,
        keep: &mut impl FnMut(Found),
    ) -> Result<()> {
        state.share.all += 1;
        let count = self.items.get(found.hash, &payload[found.start..][..found.key_len]);
        found.count = count;
        if let (Some(weight), true) = (found.weight, self.rule.idf) {
            let weight = self.idf_of(count) * weight;
            if !weight.is_finite() {
                let what = "the weight times the item's IDF is beyond a finite number";
                return Err(Error::input(line, what, &payload[found.start..][..found.len]));
            }
            found.weight = Some(weight); // the weight to write
        }
        if count.is_some_and(|count| count > self.drop_above) {
            state.out_run += 1;
            state.kept_run = 0;
            state.share.longest_out = state.share.longest_out.max(state.out_run);
            if state.out_run < self.rule.min_run {
                state.run.push(found);
            } else {
                state.run.clear(); // a run long enough to leave out
            }
            return Ok(());
        }
        // A run of common items too short to leave out ends here: its items are kept.
        state.run.drain(..).for_each(&mut *keep);
        state.out_run = 0;
        state.kept_run += 1;
        state.share.longest_kept = state.share.longest_kept.max(state.kept_run);
        state.share.kept += 1;
        keep(found);
        Ok(())
    }

    /// The IDF weight of an item of `count` in the table (`None`: not in it).
    #[inline]
    fn idf_of(&self, count: Option<u64>) -> f64 {
        count.map_or(self.unseen_weight, |count| idf(self.documents, count))
    }

    /// Writes a kept item of `payload` to `out`, weighted when the rule weighs; `kept`: whether
    /// `out` holds an item.
    #[inline]
    fn push_kept(&self, out: &mut Vec<u8>, kept: &mut bool, payload: &[u8], found: &Found) {
        let item = &payload[found.start..found.start + found.len];
        if !self.rule.idf {
            separate(out, kept);
            out.extend_from_slice(item);
            return;
        }
        let start = out.len();
        separate(out, kept);
        out.extend_from_slice(&item[..found.key_len]);
        out.push(b':');
        let written = match (found.weight, self.texts.get(found.count)) {
            // With --weighted, its own weight times its IDF (`Weights::step`).
            (Some(weight), _) => push_weight(out, weight),
            (None, Some(text)) => {
                out.extend_from_slice(text);
                !text.is_empty()
            }
            (None, None) => push_weight(out, self.idf_of(found.count)),
        };
        if !written {
            // Weight 0 changes nothing in the sum: the item is left out.
            out.truncate(start);
            *kept = start > 0;
        }
    }
}

/// Where [`Weights::table_keeps`] is in a document: the share so far, the runs of items left
/// out and kept that end at the last item, and the common items of a run too short so far.
struct Keeping<'r> {
    share: Share,
    out_run: usize,
    kept_run: usize,
    run: &'r mut Vec<Found>,
}

/// How many of a document's items (occurrences, before --max-tf) the table keeps, and the
/// longest runs of items in a row that it leaves out and keeps.
#[derive(Debug, Clone, Copy)]
struct Share {
    kept: usize,
    all: usize,
    longest_out: usize,
    longest_kept: usize,
}

/// The most items in a row that one edited word makes new, with shingles of up to 3 words (a
/// word put in: w + 1 shingles): where one run left out covers more than half of a document,
/// the items kept must be in runs of at most this many for the document to be kept whole.
const EDIT_RUN: usize = 4;

impl Share {
    /// Whether the table keeps less than the fraction `min_kept` of the items. Where one run
    /// of items left out in a row covers more than half of the document, the share is of the
    /// items outside that run, and the items kept must stand in runs of at most [`EDIT_RUN`].
    /// A copy of a text that many documents copy keeps only its edits, a few items here and
    /// there: few of its items wherever they are counted, however far apart two edits stand.
    /// A page within its site's navigation, headers and footers keeps a text of its own beside
    /// the blocks that go: a good share of what is outside the largest block, or, for a short
    /// text between a header and a footer, a run of words longer than an edit makes.
    fn too_small(self, min_kept: f64) -> bool {
        let kept = self.kept as f64;
        if 2 * self.longest_out <= self.all {
            kept < min_kept * self.all as f64
        } else {
            self.longest_kept <= EDIT_RUN && kept < min_kept * (self.all - self.longest_out) as f64
        }
    }
}

/// Documents of up to this many bytes are weighed in two passes (`Repeats`), whose notes take
/// 64 bytes an item (at most 8 MiB, for items of one byte); longer ones in one pass, each
/// occurrence counted exactly, as without --max-tf none is counted.
const TWO_PASSES_UP_TO: usize = 256 << 10;

fn separate(out: &mut Vec<u8>, kept: &mut bool) {
    if *kept {
        out.push(b' ');
    }
    *kept = true;
}

/// The largest count kept: items in more than `max_df` of the documents go, unless they are
/// in at most `floor` documents.
fn drop_above(rule: Rule, documents: u64) -> u64 {
    match rule.max_df {
        Some(fraction) => ((fraction * documents as f64).floor() as u64).max(rule.floor),
        None => u64::MAX,
    }
}

#[cfg(test)]
#[path = "weights_tests.rs"]
mod tests;
