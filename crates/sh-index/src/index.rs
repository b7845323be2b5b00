//! An index directory: its manifest and segments. Writers replace the manifest by renaming a
//! new one over it, after the segments it lists are in place, so a reader sees the old index
//! or the new one, and an interrupted writer leaves the old one intact.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sh_core::{Error, Output, Result};

use crate::build::{write_segment, Batch, Names};
use crate::format::{corrupt, segment_file_name, IndexNames, Manifest, NameKind, SegmentEntry};
use crate::segment::{Found, Name, Scratch, Segment};

pub const MANIFEST: &str = "MANIFEST";

/// An open index.
#[derive(Debug)]
pub struct Index {
    dir: PathBuf,
    pub manifest: Manifest,
    pub segments: Vec<Segment>,
}

fn read_manifest(dir: &Path) -> io::Result<Vec<u8>> {
    let path = dir.join(MANIFEST);
    crate::format::check_regular(&path).map_err(|e| corrupt(format!("{MANIFEST}: {e}")))?;
    fs::read(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound if dir.is_dir() => {
            corrupt(format!("not a sh-index index (no {MANIFEST} in it)"))
        }
        _ => e,
    })
}

/// Whether `path` is an index directory (one with a manifest). A build takes over only such
/// a directory (or one of its own leftovers): one whose MANIFEST is not a regular file is
/// someone else's.
pub fn is_index(path: &Path) -> bool {
    path.join(MANIFEST).is_file()
}

/// Whether `path` is meant as an index: a directory with a MANIFEST of any kind, so that a
/// reader names a manifest that is not a regular file (opening the index refuses it) instead
/// of reading the directory as a file of records.
pub fn names_an_index(path: &Path) -> bool {
    path.join(MANIFEST).exists()
}

impl Index {
    /// Opens the index in `dir`: its manifest and every segment's header. A segment removed
    /// between reading the manifest and opening it (a writer replaced it) is looked for again
    /// in the new manifest.
    pub fn open(dir: &Path) -> Result<Index> {
        let failed = |e: io::Error| Error::io(format!("cannot open index '{}'", dir.display()), e);
        let mut attempts = 0;
        loop {
            let bytes = read_manifest(dir).map_err(failed)?;
            match Index::open_with(dir, &bytes) {
                Err(e) if e.kind() == io::ErrorKind::NotFound && attempts < 10 => {
                    attempts += 1;
                    if read_manifest(dir).ok().as_ref() == Some(&bytes) {
                        return Err(failed(e));
                    }
                }
                other => return other.map_err(failed),
            }
        }
    }

    fn open_with(dir: &Path, bytes: &[u8]) -> io::Result<Index> {
        let manifest = Manifest::decode(bytes).map_err(|e| in_file(MANIFEST.as_ref(), e))?;
        let mut segments = Vec::with_capacity(manifest.segments.len());
        for entry in &manifest.segments {
            let name = entry.file_name();
            let segment = Segment::open(&dir.join(&name)).map_err(|e| in_file(name.as_ref(), e))?;
            let h = &segment.header;
            let names_agree = match manifest.names {
                IndexNames::Ids => h.names == NameKind::Ids,
                IndexNames::Lines => h.names != NameKind::Ids,
                IndexNames::Unknown => false,
            };
            if h.records != entry.records
                || h.first != entry.first
                || h.line_base != entry.line_base
                || h.k != manifest.k
                || !names_agree
                || segment.file_len() != entry.file_len
                || h.sum() != entry.header_sum
            {
                let e = corrupt("it does not match the manifest (replaced or cut short)");
                return Err(in_file(name.as_ref(), e));
            }
            segments.push(segment);
        }
        Ok(Index { dir: dir.to_path_buf(), manifest, segments })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn failed(&self, e: io::Error) -> Error {
        Error::io(format!("cannot read index '{}'", self.dir.display()), e)
    }

    /// Every record within `k` bits of `query`, by record number.
    pub fn search(&self, query: u64, k: u32, found: &mut Vec<Found>) -> Result<()> {
        let mut hits = Vec::new();
        self.search_batch(&[query], k, &mut Scratch::default(), &mut hits)?;
        found.clear();
        found.extend(hits.into_iter().map(|(_, r, d)| (r, d)));
        Ok(())
    }

    /// `(q, record, distance)` for every record within `k` bits of `queries[q]`, sorted by q
    /// and then record number, in `found` (cleared first).
    pub fn search_batch(
        &self,
        queries: &[u64],
        k: u32,
        scratch: &mut Scratch,
        found: &mut Vec<(u32, u64, u32)>,
    ) -> Result<()> {
        found.clear();
        for segment in &self.segments {
            segment
                .search_batch(queries, k, scratch, found)
                .map_err(|e| self.failed(in_file(segment.path(), e)))?;
        }
        found.sort_unstable();
        Ok(())
    }

    /// The name of record `r` of the index.
    pub fn name(&self, r: u64) -> Result<Name<'_>> {
        let at = self.segments.partition_point(|s| s.header.first <= r);
        let segment = at.checked_sub(1).map(|s| &self.segments[s]);
        let Some(segment) = segment.filter(|s| r < s.header.first + s.header.records) else {
            return Err(self.failed(corrupt(format!("no record {r}"))));
        };
        segment.name(r - segment.header.first).map_err(|e| self.failed(in_file(segment.path(), e)))
    }

    /// Every record, in record order: the fingerprints and the names.
    pub fn records(&self) -> Result<(Vec<u64>, Names)> {
        let mut fingerprints = Vec::with_capacity(self.manifest.records as usize);
        for segment in &self.segments {
            let part =
                segment.fingerprints().map_err(|e| self.failed(in_file(segment.path(), e)))?;
            fingerprints.extend(part);
        }
        let failed = |segment: &Segment, e| self.failed(in_file(segment.path(), e));
        let names = match self.manifest.names {
            IndexNames::Ids => {
                let (mut bytes, mut ends) = (Vec::new(), Vec::with_capacity(fingerprints.len()));
                for segment in &self.segments {
                    segment.all_ids(&mut bytes, &mut ends).map_err(|e| failed(segment, e))?;
                }
                Names::Ids { bytes, ends }
            }
            IndexNames::Lines | IndexNames::Unknown => {
                let mut lines = Vec::with_capacity(fingerprints.len());
                for segment in &self.segments {
                    segment.all_lines(&mut lines).map_err(|e| failed(segment, e))?;
                }
                if lines.iter().enumerate().all(|(r, &l)| l == r as u64 + 1) {
                    Names::ImplicitLines
                } else {
                    Names::Lines(lines)
                }
            }
        };
        Ok((fingerprints, names))
    }

    /// Checks every block of every segment.
    pub fn check_all(&self) -> Result<()> {
        for segment in &self.segments {
            segment.check_all().map_err(|e| self.failed(in_file(segment.path(), e)))?;
        }
        Ok(())
    }
}

/// Makes the directory of a new index if it is missing (true when it made it): a file in the
/// way is an error.
pub fn make_dir(dir: &Path) -> Result<bool> {
    let failed = |e: io::Error| Error::io(format!("cannot create index '{}'", dir.display()), e);
    match fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => Err(failed(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "a file of that name is in the way",
        ))),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir(dir).map(|()| true).map_err(failed)
        }
        Err(e) => Err(failed(e)),
    }
}

/// Removes what a failed build left in a directory that held no index: its temporary files,
/// then its lock file, unlinked while `lock` still holds it (a writer that opened the file
/// meanwhile finds, once it has the lock, that the file is no longer the lock: see [`lock`]),
/// then the directory itself when the build made it (left as it is if anything else is in
/// it).
pub fn remove_failed_build(dir: &Path, lock: fs::File, made: bool) {
    if let Ok(entries) = fs::read_dir(dir) {
        remove_temporaries(entries);
    }
    let _ = fs::remove_file(dir.join(LOCK));
    drop(lock);
    if made {
        let _ = fs::remove_dir(dir);
    }
}

/// Removes the temporary files among `entries` (a killed or failed writer's).
fn remove_temporaries(entries: fs::ReadDir) {
    for entry in entries.flatten() {
        if is_temporary(&entry.file_name().to_string_lossy()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Whether `file` is the file at `path` (the same device and inode; false when none is there).
fn is_the_file_at(file: &fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => (open.dev(), open.ino()) == (named.dev(), named.ino()),
        _ => false,
    }
}

/// The file whose lock a writer holds: one writer at a time.
const LOCK: &str = "LOCK";

/// Takes the writer's lock of the index in `dir` (held until the file is dropped), and then
/// removes what killed writers may have left: temporary files, and segments the manifest does
/// not list.
pub fn lock(dir: &Path) -> Result<fs::File> {
    let failed = |e: io::Error| Error::io(format!("cannot lock index '{}'", dir.display()), e);
    crate::format::check_regular(&dir.join(LOCK))
        .map_err(|e| failed(corrupt(format!("{LOCK}: {e}"))))?;
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK))
        .map_err(failed)?;
    lock_opened(dir, file)
}

/// [`lock`] of the lock file already opened as `file`.
fn lock_opened(dir: &Path, file: fs::File) -> Result<fs::File> {
    let failed = |e: io::Error| Error::io(format!("cannot lock index '{}'", dir.display()), e);
    let busy = || {
        failed(io::Error::new(
            io::ErrorKind::WouldBlock,
            "another sh-index is changing it (build, add or compact); try again when it ends",
        ))
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => return Err(busy()),
        Err(fs::TryLockError::Error(e)) => return Err(failed(e)),
    }
    // The file locked must still be the lock: a failed build unlinks it while holding it
    // ([`remove_failed_build`]), and a lock on the unlinked file would exclude no one.
    if !is_the_file_at(&file, &dir.join(LOCK)) {
        return Err(busy());
    }
    remove_temporaries(fs::read_dir(dir).map_err(failed)?);
    // Segments are strays only when a readable manifest does not list them; with a damaged
    // manifest, none is.
    match read_manifest(dir).map(|b| Manifest::decode(&b)) {
        Ok(Ok(manifest)) => remove_unlisted(dir, &manifest.segments),
        Err(e) if e.kind() == io::ErrorKind::NotFound => remove_unlisted(dir, &[]),
        _ => {}
    }
    Ok(file)
}

/// A temporary file of a writer: `.seg-NNNNNNNN.*.partial` or `.MANIFEST.*.partial`.
fn is_temporary(name: &str) -> bool {
    name.ends_with(".partial")
        && (name.starts_with(".seg-") || name.starts_with(&format!(".{MANIFEST}.")))
}

/// `seg-` and at least eight digits.
pub(crate) fn is_segment_name(name: &str) -> bool {
    name.strip_prefix("seg-").is_some_and(|n| n.len() >= 8 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The number of every segment-named file in `dir`.
fn segment_files(dir: &Path) -> io::Result<Vec<u64>> {
    let mut numbers = Vec::new();
    for entry in fs::read_dir(dir)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_segment_name(&name) {
            numbers.extend(name[4..].parse::<u64>().ok());
        }
    }
    Ok(numbers)
}

/// Checks that `dir` is an index, or holds nothing but what a killed writer of one leaves
/// (which [`lock`] removes): a build must not take over a directory of other files.
pub fn check_ours(dir: &Path) -> Result<()> {
    let failed = |e: io::Error| Error::io(format!("cannot create index '{}'", dir.display()), e);
    if is_index(dir) {
        return Ok(());
    }
    let foreign = fs::read_dir(dir).map_err(failed)?.flatten().any(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        !(name == LOCK || is_temporary(&name) || is_segment_name(&name))
    });
    if foreign {
        return Err(failed(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "a directory that is not empty and holds no index",
        )));
    }
    Ok(())
}

/// Writes a new index in `dir` holding `batch` (the writer's lock held, [`check_ours`]
/// passed): an index there is replaced, even one that cannot be read (damaged, or of another
/// format version). Its files are removed only once the new manifest is in place.
pub fn create(dir: &Path, k: u32, batch: Batch, names: IndexNames, lines: u64) -> Result<()> {
    let failed = |e: io::Error| Error::io(format!("cannot create index '{}'", dir.display()), e);
    let old = segment_files(dir).map_err(failed)?;
    let mut manifest = Manifest::new(k);
    // A number no file has: a segment of the old index is never overwritten.
    let readable = read_manifest(dir).ok().and_then(|b| Manifest::decode(&b).ok());
    let after = old.iter().max().map_or(0, |&n| n.saturating_add(1));
    manifest.next_segment = after.max(readable.map_or(1, |m| m.next_segment)).max(1);
    manifest.names = names;
    manifest.lines = lines;
    append_segment(dir, &mut manifest, batch)?;
    write_manifest(dir, &manifest)?;
    remove_unlisted(dir, &manifest.segments);
    Ok(())
}

/// Adds `batch` to the index in `dir` as a new segment.
pub fn add(index: &Index, batch: Batch, names: IndexNames, lines: u64) -> Result<()> {
    let mut manifest = index.manifest.clone();
    manifest.names = names;
    manifest.lines = lines;
    append_segment(index.dir(), &mut manifest, batch)?;
    write_manifest(index.dir(), &manifest)
}

/// Rewrites the index as one segment.
pub fn compact(index: &Index) -> Result<()> {
    let (fingerprints, names) = index.records()?;
    let old = index.manifest.clone();
    let mut manifest = Manifest::new(old.k);
    manifest.names = old.names;
    manifest.lines = old.lines;
    manifest.next_segment = old.next_segment;
    let batch = Batch { fingerprints, names, first: 0, line_base: 0 };
    append_segment(index.dir(), &mut manifest, batch)?;
    write_manifest(index.dir(), &manifest)?;
    remove_unlisted(index.dir(), &manifest.segments);
    Ok(())
}

/// Writes a segment of `batch` (if it holds records) and lists it in `manifest`.
fn append_segment(dir: &Path, manifest: &mut Manifest, batch: Batch) -> Result<()> {
    let records = batch.fingerprints.len() as u64;
    if records == 0 {
        return Ok(());
    }
    let number = manifest.next_segment;
    let path = dir.join(segment_file_name(number));
    let file_len = write_segment(&path, &batch, manifest.k)?;
    let written = Segment::open(&path)
        .map_err(|e| Error::io(format!("cannot read '{}'", path.display()), e))?;
    manifest.segments.push(SegmentEntry {
        number,
        records,
        first: batch.first,
        line_base: batch.line_base,
        file_len,
        header_sum: written.header.sum(),
    });
    manifest.next_segment += 1;
    manifest.records += records;
    Ok(())
}

fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<()> {
    let path = dir.join(MANIFEST);
    let mut out = Output::create(&path)?;
    out.write_all(&manifest.encode())
        .map_err(|e| Error::io(format!("cannot write '{}'", path.display()), e))?;
    out.finish()?;
    // The rename is durable once the directory is.
    if let Ok(handle) = fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    Ok(())
}

/// Removes the segment files that `listed` (the segments of the manifest in place) does not
/// hold. A failure leaves a stray file, not a wrong index.
fn remove_unlisted(dir: &Path, listed: &[SegmentEntry]) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_segment_name(&name) && !listed.iter().any(|s| s.file_name() == name) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

fn in_file(file: &Path, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("{}: {e}", file.file_name().unwrap_or(file.as_os_str()).to_string_lossy()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that opened the lock file before a failed build unlinked it gets no lock from
    /// it (it would exclude no one: the next writer makes a new file); the next writer does.
    #[test]
    fn a_lock_file_unlinked_by_a_failed_build_locks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock(dir.path()).unwrap();
        let opened_meanwhile =
            fs::OpenOptions::new().write(true).open(dir.path().join(LOCK)).unwrap();
        assert!(lock_opened(dir.path(), opened_meanwhile.try_clone().unwrap()).is_err(), "held");
        remove_failed_build(dir.path(), held, false);
        assert!(!dir.path().join(LOCK).exists());
        let stale = lock_opened(dir.path(), opened_meanwhile);
        assert!(stale.is_err(), "a lock on the unlinked file");
        let next = lock(dir.path()).unwrap();
        assert!(is_the_file_at(&next, &dir.path().join(LOCK)));
        remove_failed_build(dir.path(), next, true);
        assert!(!dir.path().exists(), "the directory a build made is removed");
    }
}
