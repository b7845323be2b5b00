//! sh-index's reader on damaged and made-up files: it must never panic, and a search that
//! succeeds must never give a wrong answer.
//!
//! The first byte chooses one of four modes:
//!
//! - 0, raw segment: the rest is written as a segment file and opened; if it opens, its records
//!   and names are read and it is searched.
//! - 1, raw manifest: the rest is written as the MANIFEST of a directory beside a real segment
//!   (`seg-00000001`, so that made-up manifests can list it), and the index opened; if it
//!   opens, it is searched and its records read.
//! - 2, damaged index: a real index of up to 1,000 fuzz-provided fingerprints (built from one
//!   piece and added another, its first segment rewritten with m tables), then bytes flipped or
//!   a file cut or extended at places the fuzzer chooses (or nothing changed, one time in
//!   four). Every search that succeeds must equal sh-testkit's oracle, and the records, when
//!   read, the ones indexed.
//! - 3, forged index: as 2, but after the bytes are changed the checksums are made right again
//!   (block sums, page sums, the header's CRC-32, the manifest's entry), so that the structural
//!   checks behind them are what stands between the made-up values and a panic. Answers may
//!   be wrong here (the file says something else, consistently); nothing may panic.
//!
//! Searches go up to K = 8, on layouts whose probes stay few (a made-up layout of one 64-bit
//! table at K = 8 would probe 5 * 10^9 keys: slow, not wrong).

#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use sh_index::{
    keys_within, write_segment_laid_out, Args, Batch, Index, Layout, Manifest, Name, Names,
    Segment, SegmentHeader, BLOCK, SUMS_PER_PAGE,
};
use sh_testkit::oracle;

/// The fuzzer's bytes, taken a few at a time (zeros once they run out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let Some((&first, rest)) = self.0.split_first() else { return 0 };
        self.0 = rest;
        first
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |x, _| x << 8 | u64::from(self.u8()))
    }

    /// A made-up length or offset: any u64, or one near the ends of the range, where sums
    /// overflow.
    fn edgy_u64(&mut self) -> u64 {
        match self.u8() % 4 {
            0 => u64::MAX - u64::from(self.u8()),
            1 => u64::from(u32::MAX) - u64::from(self.u8()),
            _ => self.u64(),
        }
    }
}

/// A directory of this process's own, emptied for each input; in memory where possible (every
/// file sh-index writes is synced). Those of earlier runs (whose process is gone) are removed.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = Path::new("/dev/shm");
        let base = if base.is_dir() { base.to_path_buf() } else { std::env::temp_dir() };
        for entry in fs::read_dir(&base).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let pid = name.strip_prefix("sh-index-fuzz-").and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
        let dir = base.join(format!("sh-index-fuzz-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    })
}

fn fresh_dir() -> &'static Path {
    let dir = scratch();
    for entry in fs::read_dir(dir).expect("the scratch directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            let _ = fs::remove_dir_all(&path);
        } else {
            let _ = fs::remove_file(&path);
        }
    }
    dir
}

/// Whether a search within `k` of these tables probes few enough keys to be quick.
fn feasible(header: &SegmentHeader, k: u32) -> bool {
    let layout = Layout { tables: header.tables.iter().map(|t| t.spec).collect() };
    let radii = layout.radii(k);
    let probes: f64 = layout
        .tables
        .iter()
        .zip(radii)
        .map(|(spec, radius)| radius.map_or(0.0, |r| keys_within(spec.key_bits, r)))
        .sum();
    probes <= 4096.0
}

/// Opens a made-up segment and uses everything it offers.
fn use_segment(path: &Path, queries: &[u64], k: u32) {
    let Ok(segment) = Segment::open(path) else { return };
    let h = &segment.header;
    let _ = segment.check_all();
    let _ = segment.fingerprints();
    for r in 0..h.records.min(64) {
        let _ = segment.name(r);
    }
    if feasible(h, k) {
        let mut found = Vec::new();
        for &query in queries {
            found.clear();
            let _ = segment.search(query, k, &mut found);
        }
    }
}

/// Opens a made-up index and uses everything it offers.
fn use_index(dir: &Path, queries: &[u64], k: u32) {
    let Ok(index) = Index::open(dir) else { return };
    let _ = index.records();
    let _ = index.check_all();
    if index.segments.iter().all(|s| feasible(&s.header, k)) {
        let mut found = Vec::new();
        for &query in queries {
            if index.search(query, k, &mut found).is_ok() {
                for &(r, _) in &found {
                    let _ = index.name(r);
                }
            }
        }
    }
}

/// Runs `sh-index ARGS… -q`.
fn sh_index(args: &[&str]) {
    let argv = ["sh-index"].iter().chain(args).chain(&["-q"]).copied();
    sh_index::run(Args::parse_from(argv)).expect("sh-index succeeds on a good index");
}

/// The id of the record on line `line`, when records have ids.
fn id(line: u64) -> String {
    format!("r{line}")
}

/// A real index in `dir`/idx of `fps` at K `k`: the first `split` records built, the others
/// added, the first segment rewritten with `m` tables (1..=16) when `m` is given; the records
/// named by ids ([`id`]) or line numbers.
fn real_index(
    dir: &Path,
    fps: &[u64],
    split: usize,
    k: u32,
    m: Option<usize>,
    ids: bool,
) -> PathBuf {
    let index = dir.join("idx");
    let piece = |part: &[u64], from: usize, name: &str| {
        let path = dir.join(name);
        let text: String = (from + 1..)
            .zip(part)
            .map(|(line, fp)| match ids {
                true => format!("{}\t{fp}\n", id(line as u64)),
                false => format!("{fp}\n"),
            })
            .collect();
        fs::write(&path, text).unwrap();
        path
    };
    let (first, second) = fps.split_at(split);
    let first = piece(first, 0, "first.txt");
    let k_arg = k.to_string();
    let index_str = index.to_str().unwrap();
    sh_index(&["build", "-o", index_str, "-k", &k_arg, "-i", first.to_str().unwrap()]);
    if !second.is_empty() {
        let second = piece(second, split, "second.txt");
        sh_index(&["add", index_str, "-i", second.to_str().unwrap()]);
    }
    if let (Some(m), false) = (m, split == 0) {
        let opened = Index::open(&index).unwrap();
        let mut manifest = opened.manifest.clone();
        let segment = &opened.segments[0];
        let names = match ids {
            true => {
                let (mut bytes, mut ends) = (Vec::new(), Vec::new());
                for r in 0..segment.header.records {
                    bytes.extend_from_slice(id(r + 1).as_bytes());
                    ends.push(bytes.len() as u64);
                }
                Names::Ids { bytes, ends }
            }
            false => Names::ImplicitLines,
        };
        let batch =
            Batch { fingerprints: segment.fingerprints().unwrap(), names, first: 0, line_base: 0 };
        let path = segment.path().to_path_buf();
        drop(opened);
        manifest.segments[0].file_len = write_segment_laid_out(&path, &batch, k, Some(m)).unwrap();
        manifest.segments[0].header_sum = Segment::open(&path).unwrap().header.sum();
        fs::write(index.join("MANIFEST"), manifest.encode()).unwrap();
    }
    index
}

/// The records of a damaged index: each search that succeeds equals the oracle, and so do the
/// records when they can be read.
fn check_damaged(index: &Path, fps: &[u64], queries: &[u64], k: u32, ids: bool) {
    let Ok(opened) = Index::open(index) else { return };
    if !opened.segments.iter().all(|s| feasible(&s.header, k)) {
        return;
    }
    // The oracle's lines of each query, named as the index names its records.
    let mut expected = vec![String::new(); queries.len()];
    for line in oracle::against(queries, fps, k).lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let (q, record): (usize, u64) = (fields[0].parse().unwrap(), fields[1].parse().unwrap());
        let name = if ids { id(record) } else { record.to_string() };
        expected[q - 1].push_str(&format!("{name}\t{}\n", fields[2]));
    }
    let mut found = Vec::new();
    for (q, &query) in queries.iter().enumerate() {
        if opened.search(query, k, &mut found).is_err() {
            continue;
        }
        let got: String = found
            .iter()
            .map(|&(r, distance)| {
                let name = match opened.name(r) {
                    Ok(Name::Line(line)) if !ids => line.to_string(),
                    Ok(Name::Id(id)) if ids => String::from_utf8_lossy(id).into_owned(),
                    Ok(name) => panic!("{name:?} in an index with ids: {ids}"),
                    Err(_) => "?".to_string(),
                };
                format!("{name}\t{distance}\n")
            })
            .collect();
        // A name that cannot be read is an error the command reports: only what is read must
        // be right.
        if !got.contains('?') {
            assert_eq!(got, expected[q], "query {q}: {query:#x} within {k}");
        }
    }
    if let Ok((records, _)) = opened.records() {
        assert_eq!(records, fps, "the records read back");
    }
}

/// A file of the index to change: a segment or the manifest.
fn target(index: &Path, which: u8) -> PathBuf {
    let mut segments: Vec<PathBuf> = fs::read_dir(index)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("seg-")))
        .collect();
    segments.sort();
    match usize::from(which) % (segments.len() + 1) {
        0 => index.join("MANIFEST"),
        s => segments[s - 1].clone(),
    }
}

/// Flips, cuts and extensions of the files of `index`, as the fuzzer says (none, sometimes).
fn damage(index: &Path, bytes: &mut Bytes) {
    // None at all one time in four: the index as written must answer as the oracle.
    for _ in 0..bytes.u8() % 4 {
        let file = target(index, bytes.u8());
        let mut contents = fs::read(&file).unwrap();
        if contents.is_empty() {
            continue;
        }
        let at = (bytes.u64() % contents.len() as u64) as usize;
        match bytes.u8() % 8 {
            0 => contents.truncate(at),
            1 => contents.extend_from_slice(&[bytes.u8(); 3]),
            _ => contents[at] ^= 1 << (bytes.u8() % 8),
        }
        fs::write(&file, contents).unwrap();
    }
}

/// Changes bytes of a segment of `index` and then makes every checksum right again: the block
/// sums, the page sums, the header's CRC-32, and the manifest's entry for it.
fn forge(index: &Path, bytes: &mut Bytes) {
    let file = target(index, bytes.u8());
    if !file.file_name().is_some_and(|n| n.to_string_lossy().starts_with("seg-")) {
        return;
    }
    let mut contents = fs::read(&file).unwrap();
    let len = contents.len();
    let header_len = u64::from_le_bytes(contents[len - 16..len - 8].try_into().unwrap()) as usize;
    let header_at = len - 16 - header_len;
    let mut header = SegmentHeader::decode(&contents[header_at..len - 16], len as u64).unwrap();
    let data_end = header.data_end as usize;
    // The data and the header's fields, changed.
    let (data_changes, header_changes) = (bytes.u8() % 8, bytes.u8() % 4);
    for _ in 0..data_changes {
        // A byte, or (odd counts) a whole u64 where it fits: a length or offset made up.
        let at = 16 + (bytes.u64() % (data_end as u64 - 16)) as usize;
        if data_changes % 2 == 1 && at + 8 <= data_end {
            contents[at..at + 8].copy_from_slice(&bytes.edgy_u64().to_le_bytes());
        } else {
            contents[at] = bytes.u8();
        }
    }
    let sums: Vec<u8> = contents[16..data_end]
        .chunks(BLOCK as usize)
        .flat_map(|block| crc32(block).to_le_bytes())
        .collect();
    contents[data_end..data_end + sums.len()].copy_from_slice(&sums);
    header.page_sums = sums.chunks(4 * SUMS_PER_PAGE as usize).map(crc32).collect();
    let mut encoded = header.encode();
    assert_eq!(encoded.len(), header_len);
    for _ in 0..header_changes {
        let at = (bytes.u64() % (header_len as u64 - 4)) as usize;
        if bytes.u8().is_multiple_of(2) && at < 80 {
            // One of the header's u64 fields (records, first, line base, offsets) made up.
            let field = at / 8 * 8;
            encoded[field..field + 8].copy_from_slice(&bytes.edgy_u64().to_le_bytes());
        } else {
            encoded[at] = bytes.u8();
        }
    }
    let body = encoded.len() - 4;
    let sum = crc32(&encoded[..body]);
    encoded[body..].copy_from_slice(&sum.to_le_bytes());
    contents[header_at..len - 16].copy_from_slice(&encoded);
    fs::write(&file, &contents).unwrap();
    // The manifest lists it as it is now.
    let manifest_path = index.join("MANIFEST");
    let mut manifest = Manifest::decode(&fs::read(&manifest_path).unwrap()).unwrap();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    for entry in &mut manifest.segments {
        if entry.file_name() == name {
            entry.header_sum = sum;
        }
    }
    fs::write(&manifest_path, manifest.encode()).unwrap();
}

/// The CRC-32 sh-index uses (zlib's), bit by bit: slow and plain, and not the code under test.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { crc >> 1 ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let mode = bytes.u8() % 4;
    let k = u32::from(bytes.u8() % 9);
    let dir = fresh_dir();
    match mode {
        0 | 1 => {
            let queries: Vec<u64> = (0..4).map(|_| bytes.u64()).collect();
            let rest = bytes.0;
            if mode == 0 {
                let path = dir.join("seg-00000001");
                fs::write(&path, rest).unwrap();
                use_segment(&path, &queries, k);
            } else {
                let index = real_index(dir, &[5, 7, 1 << 40, 5], 4, 3, None, k % 2 == 0);
                fs::write(index.join("MANIFEST"), rest).unwrap();
                use_index(&index, &queries, k);
            }
        }
        _ => {
            // Up to 1,000 fingerprints (segments of several 4 KiB blocks, so that a damaged
            // block can be one a query does not read) near up to four bases.
            let bases: Vec<u64> = (0..1 + bytes.u8() % 4).map(|_| bytes.u64()).collect();
            let count = (usize::from(bytes.u8()) << 8 | usize::from(bytes.u8())) % 1000 + 1;
            // Each a base with 0 to 4 bits flipped, drawn from a generator the fuzzer seeds (a
            // few bytes make a thousand records that differ).
            let mut state = bytes.u64();
            let fps: Vec<u64> = (0..count)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let r = state >> 16;
                    let flips = (r >> 2) % 5;
                    (0..flips).fold(bases[r as usize % bases.len()], |fp, i| {
                        fp ^ 1 << (r >> (6 + 6 * i) & 63)
                    })
                })
                .collect();
            let split = usize::from(bytes.u8()) % (count + 1);
            let m = match bytes.u8() % 20 {
                0..=15 => Some(1 + usize::from(bytes.u8()) % (k as usize + 1).min(16)),
                _ => None,
            };
            let ids = bytes.u8() % 2 == 0;
            let index = real_index(dir, &fps, split, k, m, ids);
            let queries: Vec<u64> = fps.iter().step_by(1 + count / 16).copied().collect();
            if mode == 2 {
                damage(&index, &mut bytes);
                check_damaged(&index, &fps, &queries, k, ids);
            } else {
                forge(&index, &mut bytes);
                use_index(&index, &queries, k);
                for segment in ["seg-00000001", "seg-00000002"] {
                    use_segment(&index.join(segment), &queries, k);
                }
            }
        }
    }
});
