//! Writing the pairs on threads. Finding a record's pairs looks up its group, the group's
//! members and its near groups, scattered in memory: with many pairs, the write is most of a
//! run on one thread, waiting for memory. The records are cut into chunks, handed to the
//! threads in turn; each thread puts its chunk's lines together in pieces of text, which this
//! thread writes out in chunk order, so the output is that of [`super::emit_pairs`].

use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use sh_core::threads::spawn_with;

use super::{firsts, Emitter, PairLines, Selection};
use crate::index::{Neighbours, RecordIndex, RecordSet};

/// Records per chunk.
const CHUNK: RecordIndex = 1 << 15;

/// A thread hands a piece of text over once it holds this many bytes, so a chunk with many
/// pairs (a record with many) is written as it is found, in bounded memory.
const PIECE: usize = 1 << 20;

/// Chunks handed to a thread and not yet written, and pieces a thread may have ready.
const IN_FLIGHT: usize = 2;

/// A piece of a chunk's text; the chunk's last tells how many pairs it had (or why it failed).
struct Piece {
    text: Vec<u8>,
    end: Option<io::Result<u64>>,
}

/// [`super::emit_pairs`] of `lines.index` on `threads` threads, each writing its lines as
/// `lines` tells into memory; the text goes to `out` in order. Returns how many pairs there
/// were.
pub fn emit_pairs_on_threads<W: Write>(
    neighbours: &Neighbours,
    paired: &RecordSet,
    selection: Selection,
    threads: usize,
    lines: PairLines,
    out: &mut W,
) -> io::Result<u64> {
    let sizes = Sizes { chunk: CHUNK, piece: PIECE };
    emit_in_chunks(neighbours, paired, selection, threads, lines, out, sizes)
}

/// Records per chunk and bytes per piece.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    chunk: RecordIndex,
    piece: usize,
}

/// [`emit_pairs_on_threads`] in chunks and pieces of the given sizes.
fn emit_in_chunks<W: Write>(
    neighbours: &Neighbours,
    paired: &RecordSet,
    selection: Selection,
    threads: usize,
    lines: PairLines,
    out: &mut W,
    Sizes { chunk: records_per_chunk, piece }: Sizes,
) -> io::Result<u64> {
    let index = lines.index;
    let end = firsts(index, selection);
    let chunks = end.div_ceil(records_per_chunk) as usize;
    let chunk_pieces = |chunk: usize, send: &mut dyn FnMut(Piece) -> bool| {
        let start = chunk as RecordIndex * records_per_chunk;
        let records = paired.range(start, end.min(start.saturating_add(records_per_chunk)));
        pieces(records, neighbours, selection, lines, piece, send);
    };
    std::thread::scope(|scope| {
        let mut workers: Vec<(SyncSender<usize>, Receiver<Piece>)> = Vec::new();
        for _ in 0..threads.max(1) {
            let (to_worker, jobs) = sync_channel::<usize>(IN_FLIGHT);
            let (to_writer, pieces) = sync_channel::<Piece>(IN_FLIGHT);
            let chunk_pieces = &chunk_pieces;
            let started = spawn_with(scope, (jobs, to_writer), move |(jobs, to_writer)| {
                for chunk in jobs {
                    let mut open = true;
                    chunk_pieces(chunk, &mut |piece| {
                        open = to_writer.send(piece).is_ok();
                        open
                    });
                    if !open {
                        break;
                    }
                }
            });
            if started.is_err() {
                break;
            }
            workers.push((to_worker, pieces));
        }
        if workers.is_empty() {
            // No thread: the one loop, on this thread.
            return super::emit_pairs(index, neighbours, paired, selection, &mut lines.writer(out));
        }
        let mut total = 0;
        // Chunks go to the threads in turn, and their pieces are taken in the same turn.
        let threads = workers.len();
        let mut sent = 0;
        for chunk in 0..chunks {
            while sent < chunks && sent < chunk + threads * IN_FLIGHT {
                let worker = &workers[sent % threads].0;
                worker.send(sent).expect("a thread ends only when its sender does");
                sent += 1;
            }
            let pieces = &workers[chunk % threads].1;
            loop {
                let piece = pieces.recv().expect("a thread sends every piece of its chunks");
                if write_piece(out, piece, &mut total)? {
                    break;
                }
            }
        }
        Ok(total)
    })
}

/// Writes a piece's text to `out`; at its chunk's end adds the chunk's pairs to `total` and
/// returns true.
fn write_piece(out: &mut impl Write, piece: Piece, total: &mut u64) -> io::Result<bool> {
    out.write_all(&piece.text)?;
    match piece.end {
        None => Ok(false),
        Some(pairs) => {
            *total += pairs?;
            Ok(true)
        }
    }
}

/// The pairs of `records` as pieces of text of about `piece` bytes, each given to `send`
/// (which tells whether to go on) as it fills, however many pairs one record has; the last one
/// tells how many pairs there were.
fn pieces(
    records: impl Iterator<Item = RecordIndex>,
    neighbours: &Neighbours,
    selection: Selection,
    lines: PairLines,
    piece: usize,
    send: &mut dyn FnMut(Piece) -> bool,
) {
    let mut text = PieceWriter { text: Vec::with_capacity(piece + piece / 4), piece, send };
    let mut writer = lines.writer(&mut text);
    let mut emitter = Emitter::new(lines.index, neighbours, &mut writer);
    let result = emitter.pairs_of_records(records, selection);
    let pairs = emitter.count;
    let PieceWriter { text, send, .. } = text;
    send(Piece { text, end: Some(result.map(|()| pairs)) });
}

/// A chunk's text, handed over a piece at a time as it fills.
struct PieceWriter<'s> {
    text: Vec<u8>,
    piece: usize,
    send: &'s mut dyn FnMut(Piece) -> bool,
}

impl Write for PieceWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.text.extend_from_slice(bytes);
        if self.text.len() >= self.piece {
            let room = Vec::with_capacity(self.piece + self.piece / 4);
            let text = std::mem::replace(&mut self.text, room);
            if !(self.send)(Piece { text, end: None }) {
                return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the writing stopped"));
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{Index, RecordIndex};
    use crate::output::{emit_pairs, Format};
    use crate::search::find_near_groups;
    use crate::tables::Tables;
    use sh_core::records::RecordNames;

    /// In chunks of a few records and pieces of a few lines, on 1 to 3 threads, the output and
    /// the count are those of the one loop: every selection and format, names or line numbers,
    /// shared fingerprints and near ones.
    #[test]
    fn the_pairs_written_on_threads_are_those_of_one_loop() {
        let mut next = sh_testkit::xorshift(0x5851_f42d_4c95_7f2d);
        let mut fingerprints: Vec<u64> = (0..600).map(|_| next()).collect();
        for i in 0..300 {
            let copy = match i % 3 {
                0 => fingerprints[i * 2],                       // the same fingerprint
                1 => fingerprints[i * 2] ^ 1 << (next() % 64),  // a bit apart
                _ => fingerprints[(i * 7) % 600] ^ 0b101 << 20, // two bits apart
            };
            fingerprints.push(copy);
        }
        let records = fingerprints.len();
        let tables = Tables::new(5, 3).unwrap();
        let names = [
            RecordNames::LineNumbers { lines: None },
            RecordNames::Named {
                bytes: (0..records).flat_map(|r| format!("r{r}").into_bytes()).collect(),
                ends: (0..records)
                    .scan(0, |end, r| {
                        *end += format!("r{r}").len();
                        Some(*end)
                    })
                    .collect(),
            },
        ];
        let selections = [Selection::All, Selection::Sparse, Selection::Against { queries: 400 }];
        for selection in selections {
            let mut index = Index::build(fingerprints.clone(), 1);
            let (near, _) = find_near_groups(&index, &tables, 1, selection, Vec::new()).unwrap();
            let neighbours = Neighbours::build(index.groups(), &near);
            let paired = index.note_partners(&neighbours);
            let index = &index;
            for names in &names {
                for format in [Format::Tsv, Format::Json] {
                    let lines = PairLines {
                        format,
                        index,
                        query_names: names,
                        corpus_names: None,
                        queries: 400,
                    };
                    let mut expected = Vec::new();
                    let count = emit_pairs(
                        index,
                        &neighbours,
                        &paired,
                        selection,
                        &mut lines.writer(&mut expected),
                    )
                    .unwrap();
                    assert!(count > 200, "{selection:?}: {count} pairs");
                    for (threads, chunk, piece) in [(1, 5, 40), (2, 7, 1), (3, 64, 300)] {
                        let mut out = Vec::new();
                        let sizes = Sizes { chunk: chunk as RecordIndex, piece };
                        let written = emit_in_chunks(
                            &neighbours,
                            &paired,
                            selection,
                            threads,
                            lines,
                            &mut out,
                            sizes,
                        )
                        .unwrap();
                        let context = format!("{selection:?} {format:?} {threads} {chunk}");
                        assert_eq!(written, count, "{context}");
                        assert!(out == expected, "{context}");
                    }
                }
            }
        }
    }
}
