//! Blocks of whole lines of a regular file, each read at its position by the thread that reads
//! its records: no one thread reads the whole input for the others.
//!
//! Block `i` holds the lines that start in bytes `i * size` to `(i + 1) * size` from where the
//! reader stood (a line starts at the first byte, or after an LF), whole: its last line is read
//! on past the range up to its LF. The last block reads on to the end of the file, however far
//! it has grown since it was measured. The blocks are thus the file's lines, each once, in
//! order, as a stream reader would cut them.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// Bytes read at once past a block's range, looking for the end of its last line.
const READ_ON: usize = 64 * 1024;

/// How far behind where it last stopped [`FileBlocks::release_before`] lets pages go again: a
/// huge page's size, the largest piece of a file's cache the system maps at once.
const LAG: usize = 2 << 20;

/// The bytes [`FileBlocks::release_before`] lets go at once, at the least (a call per block of
/// a few bytes would cost far more than it saves).
const RELEASE_STEP: usize = 1 << 20;

/// Blocks of at least this many bytes have their pages mapped at once ([`FileBlocks::mapped`]);
/// for smaller ones the call would cost more than the faults it saves.
const POPULATE_FROM: usize = 64 * 1024;

/// A regular file cut into blocks of about `size` bytes.
#[derive(Debug)]
pub(crate) struct FileBlocks {
    file: File,
    /// Where the first block starts.
    start: u64,
    size: u64,
    count: usize,
    /// The bytes from `start` to the end when measured.
    bytes: u64,
    /// The file as measured, mapped into memory (when the system could map it): the lines of
    /// a block that lie within it are read there, not copied ([`FileBlocks::mapped`]).
    map: Option<memmap2::Mmap>,
    /// No byte at or past this position is read (`u64::MAX`: the last block reads on to the
    /// end of the file, however far it has grown).
    limit: u64,
}

impl FileBlocks {
    /// The blocks of `file` from `start` on (its length now decides how many there are), read
    /// in place in a map of the file where it can be made.
    pub(crate) fn new(file: File, start: u64, size: usize) -> io::Result<FileBlocks> {
        let len = file.metadata()?.len();
        let size = size.max(1) as u64;
        let bytes = len.saturating_sub(start);
        let count = bytes.div_ceil(size).max(1);
        let count = usize::try_from(count).map_err(|_| io::Error::other("file too large"))?;
        // SAFETY: the map is only read, and only within the length measured here. A file
        // truncated by another program while it is read is outside what a map can guard
        // against (the read then ends the process with SIGBUS), as for any program that maps
        // its input; changes of its bytes in place change what is read, as with `read`.
        #[allow(unsafe_code)]
        let map = if count > 1 { unsafe { memmap2::Mmap::map(&file) }.ok() } else { None };
        Ok(FileBlocks { file, start, size, count, bytes, map, limit: u64::MAX })
    }

    /// The blocks of the lines of `file` from `start` to `end`, which ends a line (or is
    /// `start`): nothing at or past `end` is read, however the file grows. Read in place in a
    /// map of the file up to `end` where it can be made, for a reader that lets the pages go
    /// as it is done with them ([`FileBlocks::release_before`]), so that its resident memory
    /// does not grow to the file's size.
    pub(crate) fn lines_until(file: File, start: u64, end: u64, size: usize) -> FileBlocks {
        let size = size.max(1) as u64;
        let bytes = end.saturating_sub(start);
        let count = usize::try_from(bytes.div_ceil(size)).unwrap_or(usize::MAX).max(1);
        // SAFETY: as in `FileBlocks::new`; the map ends at `end`, past which nothing is read.
        #[allow(unsafe_code)]
        let map = match usize::try_from(end) {
            Ok(len) if count > 1 => unsafe { memmap2::MmapOptions::new().len(len).map(&file) }.ok(),
            _ => None,
        };
        FileBlocks { file, start, size, count, bytes, map, limit: end }
    }

    /// Lets the pages of the map before block `i`'s range go from the process (they stay in
    /// the system's cache of the file), once every block before `i` is done; `released`: where
    /// the last call stopped (0 at first). Returns where this one stopped. The range starts
    /// [`LAG`] before `released`: a block at work faults in pages behind its own start (the
    /// byte before its range, and whatever the system maps around a fault: 64 KiB, or a whole
    /// large folio of its cache), which earlier calls may have let go already. A page of a
    /// block still at work that goes is mapped again when it is next read, with the same
    /// bytes. Nothing is done until [`RELEASE_STEP`] bytes have passed since the last call.
    pub(crate) fn release_before(&self, i: usize, released: usize) -> usize {
        let Some(mapping) = self.map.as_ref() else { return released };
        let Ok(to) = usize::try_from(self.start + i as u64 * self.size) else { return released };
        let to = to.min(mapping.len());
        if to < released.saturating_add(RELEASE_STEP) && to < mapping.len() {
            return released;
        }
        let first = released.saturating_sub(LAG);
        // SAFETY: the map is of a file, shared and only read: pages let go are read again
        // from the file (its cache) when touched, with the same bytes, as a page the system
        // took back under memory pressure would be. (The system rounds the range out to
        // whole pages, within the map.)
        #[allow(unsafe_code)]
        let _ = unsafe {
            mapping.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, first, to - first)
        };
        to
    }

    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// The bytes to read, as measured when the blocks were cut.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Moves the file's position to its end, as reading it through would have (a process that
    /// shares standard input then reads on from there).
    pub(crate) fn finish(&self) -> io::Result<()> {
        io::Seek::seek(&mut &self.file, io::SeekFrom::End(0)).map(|_| ())
    }

    /// The lines of block `i` as [`FileBlocks::read`] finds them, read in place in the file's
    /// map, when they lie within it: for every block but the last (which reads on to the end
    /// of the file, however far it has grown) and one whose last line runs on past the map.
    pub(crate) fn mapped(&self, i: usize) -> Option<&[u8]> {
        let mapping = self.map.as_ref()?;
        if i + 1 >= self.count {
            return None;
        }
        let from = usize::try_from(self.start + i as u64 * self.size).ok()?;
        let to = from.checked_add(usize::try_from(self.size).ok()?)?;
        if to > mapping.len() {
            return None;
        }
        // The range's pages (and the byte before it) mapped at once, not a fault at a time:
        // at 1M random fingerprints `sh-pairs` took 33.8 ms against 35.1 with the faults. An
        // advice: where the system has none such (before Linux 5.14), the faults map them.
        #[cfg(target_os = "linux")]
        if to - from >= POPULATE_FROM {
            let before = usize::from(i > 0);
            let (at, len) = (from - before, to - from + before);
            let _ = mapping.advise_range(memmap2::Advice::PopulateRead, at, len);
        }
        let map: &[u8] = mapping;
        // The first line starts at the range's start, or after the first LF from the byte
        // before it on, if that is within the range.
        let first = match i {
            0 => from,
            _ => match memchr::memchr(b'\n', &map[from - 1..to]) {
                Some(lf) if from + lf < to => from + lf,
                _ => return Some(&[]),
            },
        };
        // The last line that starts in the range ends at the first LF from its last byte on.
        let end = to + memchr::memchr(b'\n', &map[to - 1..])?;
        Some(&map[first..end])
    }

    /// Block `i` into `block` (emptied first): its lines, their line endings kept, are
    /// `block[returned..]` (what comes before them is the end of the line before).
    pub(crate) fn read(&self, i: usize, block: &mut Vec<u8>) -> io::Result<usize> {
        block.clear();
        let last = i + 1 == self.count;
        let from = self.start + i as u64 * self.size;
        let to = from + self.size;
        // The byte before the range too, but for the first block: an LF there starts a line
        // at the range's start.
        let before = u64::from(i > 0);
        let mut end = from - before + self.append(block, from - before, self.size + before)?;
        if last {
            // On to the end of the file, however far it has grown.
            loop {
                let got = self.append(block, end, READ_ON as u64)?;
                if got == 0 {
                    break;
                }
                end += got;
            }
        }
        let mut skip = 0;
        if i > 0 {
            match memchr::memchr(b'\n', block) {
                // A line starts in the range after this LF (or, in the last block, anywhere
                // after it).
                Some(lf) if last || from + (lf as u64) < to => skip = lf + 1,
                // The line that started before the range runs through all of it.
                _ => {
                    block.clear();
                    return Ok(0);
                }
            }
        }
        if last {
            return Ok(skip);
        }
        // The last line that starts in the range ends at the first LF from the range's last
        // byte on.
        if end < to || block.len() == skip || block.last() == Some(&b'\n') {
            return Ok(skip); // (a file shorter now than when it was measured ends here)
        }
        loop {
            let searched = block.len();
            let got = self.append(block, end, READ_ON as u64)?;
            if got == 0 {
                return Ok(skip); // the file ends in the line
            }
            end += got;
            if let Some(lf) = memchr::memchr(b'\n', &block[searched..]) {
                block.truncate(searched + lf + 1);
                return Ok(skip);
            }
        }
    }

    /// Appends up to `want` bytes of the file from position `at` to `block`; returns how many
    /// (fewer only at the end of the file).
    fn append(&self, block: &mut Vec<u8>, at: u64, want: u64) -> io::Result<u64> {
        let want = want.min(self.limit.saturating_sub(at));
        let filled = block.len();
        block.resize(filled + want as usize, 0);
        let mut got = 0;
        while got < want as usize {
            match self.file.read_at(&mut block[filled + got..], at + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    block.truncate(filled);
                    return Err(e);
                }
            }
        }
        block.truncate(filled + got);
        Ok(got as u64)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn blocks_of(text: &[u8], start: u64, size: usize) -> Vec<Vec<u8>> {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, text).unwrap();
        let blocks = FileBlocks::new(file, start, size).unwrap();
        let mut block = Vec::new();
        (0..blocks.count())
            .map(|i| {
                let skip = blocks.read(i, &mut block).unwrap();
                // The map, where it serves, finds the same lines.
                if let Some(mapped) = blocks.mapped(i) {
                    assert_eq!(mapped, &block[skip..], "block {i}");
                }
                block[skip..].to_vec()
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The blocks are the file's text from the start on, cut only after an LF.
        #[test]
        fn blocks_cut_the_file_at_line_ends(
            text in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a')], 0..300),
            start in 0..310usize,
            size in 1..50usize,
        ) {
            let start = start.min(text.len());
            let blocks = blocks_of(&text, start as u64, size);
            prop_assert_eq!(blocks.concat(), &text[start..]);
            // A block ends with an LF, unless the file ends in its last line.
            for (i, block) in blocks.iter().enumerate() {
                let rest_empty = blocks[i + 1..].iter().all(Vec::is_empty);
                prop_assert!(block.is_empty() || block.ends_with(b"\n") || rest_empty);
            }
        }
    }

    /// Every block but the last is found in the map, where its lines end within it.
    #[test]
    fn the_map_serves_every_block_but_the_last() {
        let text: Vec<u8> = (0..500).flat_map(|i| format!("{i}\n").into_bytes()).collect();
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &text).unwrap();
        let blocks = FileBlocks::new(file, 3, 64).unwrap();
        let mapped: Vec<&[u8]> =
            (0..blocks.count() - 1).map(|i| blocks.mapped(i).unwrap()).collect();
        assert!(blocks.mapped(blocks.count() - 1).is_none());
        let mut block = Vec::new();
        let skip = blocks.read(blocks.count() - 1, &mut block).unwrap();
        assert_eq!([mapped.concat(), block[skip..].to_vec()].concat(), &text[3..]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// The blocks of the lines up to an end are found in the map as they are read, before
        /// and after the pages of any block are let go, in any order.
        #[test]
        fn blocks_let_go_read_the_same(
            lines in proptest::collection::vec("[a-c]{0,9000}", 1..12),
            size in 1..20_000usize,
            order in any::<u64>(),
        ) {
            let text: Vec<u8> = lines.iter().flat_map(|l| format!("{l}\n").into_bytes()).collect();
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, &text).unwrap();
            // Appended past the end: never read.
            std::io::Write::write_all(&mut file, b"after the end").unwrap();
            let blocks = FileBlocks::lines_until(file, 0, text.len() as u64, size);
            let mut block = Vec::new();
            let read: Vec<Vec<u8>> = (0..blocks.count())
                .map(|i| {
                    let skip = blocks.read(i, &mut block).unwrap();
                    block[skip..].to_vec()
                })
                .collect();
            prop_assert_eq!(read.concat(), &text[..]);
            let count = blocks.count();
            let mut released = 0;
            for step in 0..count {
                let i = (step + order as usize % count) % count;
                if let Some(mapped) = blocks.mapped(i) {
                    prop_assert_eq!(mapped, &read[i][..]);
                }
                released = blocks.release_before(i + 1, released);
                if let Some(mapped) = blocks.mapped(i) {
                    prop_assert_eq!(mapped, &read[i][..], "block {} let go", i);
                }
            }
            blocks.release_before(count + 1, released); // past the last: to the end
        }
    }

    /// The resident bytes of the mapping that starts at `start`, from /proc/self/smaps.
    #[cfg(target_os = "linux")]
    fn resident_kib(start: *const u8) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let head = format!("{:x}-", start as usize);
        let mut lines = smaps.lines().skip_while(|line| !line.starts_with(&head));
        lines.next().expect("the mapping is listed");
        let rss = lines.find(|line| line.starts_with("Rss:")).unwrap();
        rss.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// Blocks read in the map in the order two threads might take them, their pages let go as
    /// the writer finds them done, leave few of the file's pages with the process, whatever its
    /// size; read and kept, all of them stay.
    #[cfg(target_os = "linux")]
    #[test]
    fn pages_let_go_leave_the_process() {
        let line = "x".repeat(999) + "\n";
        let text = line.repeat(24 << 10); // 24 MB
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
        for let_go in [false, true] {
            let file = file.try_clone().unwrap();
            let blocks = FileBlocks::lines_until(file, 0, text.len() as u64, 256 << 10);
            let start = blocks.map.as_ref().expect("a map").as_ptr();
            let (mut lines, mut released) = (0, 0);
            for pair in (0..blocks.count() - 1).collect::<Vec<_>>().chunks(2) {
                for &i in pair.iter().rev() {
                    let text = blocks.mapped(i).unwrap();
                    lines += text.iter().filter(|&&b| b == b'\n').count();
                }
                // Both done, as the writer finds them: the pages before the next block go.
                if let_go {
                    released = blocks.release_before(pair[pair.len() - 1] + 1, released);
                }
            }
            let resident = resident_kib(start);
            // Let go, what stays is at most about a step and a lag behind the last block done.
            if let_go {
                assert!(resident < 3 << 10, "{resident} KiB resident");
            } else {
                assert!(resident > 23 << 10, "{resident} KiB resident");
            }
            assert!(lines > 24000);
        }
    }

    #[test]
    fn the_last_block_reads_what_the_file_grew_by() {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, b"aaaa").unwrap();
        let blocks = FileBlocks::new(file.try_clone().unwrap(), 0, 2).unwrap();
        std::io::Write::write_all(&mut file, b"\nxx\n").unwrap();
        let mut block = Vec::new();
        let text: Vec<u8> = (0..blocks.count())
            .flat_map(|i| {
                let skip = blocks.read(i, &mut block).unwrap();
                block[skip..].to_vec()
            })
            .collect();
        assert_eq!(text, b"aaaa\nxx\n");
    }

    #[test]
    fn a_line_longer_than_blocks_is_read_whole_by_the_block_it_starts_in() {
        let text = b"short\nthis line is longer than three blocks\nend";
        let blocks = blocks_of(text, 0, 8);
        assert_eq!(blocks[0], b"short\nthis line is longer than three blocks\n");
        assert!(blocks[1..blocks.len() - 1].iter().all(Vec::is_empty), "{blocks:?}");
        assert_eq!(blocks.last().unwrap(), b"end");
        assert_eq!(blocks_of(b"", 0, 8), [Vec::<u8>::new()]);
        assert_eq!(blocks_of(b"ab\ncd\n", 1, 2), [b"b\n".to_vec(), b"cd\n".to_vec(), vec![]]);
    }
}
