//! Segments whose checksums are right but whose values are made up (a buggy writer, or a file
//! forged on purpose): the checks behind the checksums refuse them, never a panic.

use std::fs;
use std::path::Path;

use sh_index::{
    write_segment_laid_out, Batch, Manifest, Names, Segment, SegmentHeader, BLOCK, SUMS_PER_PAGE,
};

/// Replaces 8 bytes of the data of the segment at `path` from `at`, and makes the block sums,
/// the page sums and the header's CRC-32 right again.
fn forge_data(path: &Path, at: usize, value: u64) {
    let mut bytes = fs::read(path).unwrap();
    let len = bytes.len();
    let header_len = u64::from_le_bytes(bytes[len - 16..len - 8].try_into().unwrap()) as usize;
    let header_at = len - 16 - header_len;
    let mut header = SegmentHeader::decode(&bytes[header_at..len - 16], len as u64).unwrap();
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    let data_end = header.data_end as usize;
    let sums: Vec<u8> = bytes[16..data_end]
        .chunks(BLOCK as usize)
        .flat_map(|b| crc32fast::hash(b).to_le_bytes())
        .collect();
    bytes[data_end..data_end + sums.len()].copy_from_slice(&sums);
    header.page_sums = sums.chunks(4 * SUMS_PER_PAGE as usize).map(crc32fast::hash).collect();
    bytes[header_at..len - 16].copy_from_slice(&header.encode());
    fs::write(path, bytes).unwrap();
}

#[test]
fn record_and_line_numbers_past_2_64_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seg");
    for (first, line_base) in [(u64::MAX - 1, 0), (0, u64::MAX - 1), (u64::MAX - 2, 0)] {
        let batch =
            Batch { fingerprints: vec![5, 7, 5], names: Names::ImplicitLines, first, line_base };
        write_segment_laid_out(&path, &batch, 2, None).unwrap();
        let refused = Segment::open(&path).expect_err("made-up numbers are refused");
        assert_eq!(refused.to_string(), "record or line numbers past 2^64");
    }
    // At the edge: the last record is number 2^64 - 1 and on line 2^64 - 1.
    let batch = Batch {
        fingerprints: vec![5, 7, 5],
        names: Names::ImplicitLines,
        first: u64::MAX - 3,
        line_base: u64::MAX - 3,
    };
    write_segment_laid_out(&path, &batch, 2, None).unwrap();
    let segment = Segment::open(&path).unwrap();
    assert_eq!(segment.name(2).unwrap(), sh_index::Name::Line(u64::MAX));
    let mut found = Vec::new();
    segment.search(5, 0, &mut found).unwrap();
    found.sort_unstable();
    assert_eq!(found, [(u64::MAX - 3, 0), (u64::MAX - 1, 0)]);
}

#[test]
fn an_id_offset_past_the_names_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seg");
    let names = Names::Ids { bytes: b"abc".to_vec(), ends: vec![1, 2, 3] };
    let batch = Batch { fingerprints: vec![5, 7, 9], names, first: 0, line_base: 0 };
    write_segment_laid_out(&path, &batch, 2, None).unwrap();
    let names_at = Segment::open(&path).unwrap().header.names_at as usize;
    // The end of record 0's id (the second offset), made up: huge, and one past the names.
    for end in [u64::MAX, u64::MAX - 20, 4] {
        forge_data(&path, names_at + 8, end);
        let segment = Segment::open(&path).expect("the checksums are right");
        let error = segment.name(0).expect_err("an id outside the names");
        assert_eq!(error.to_string(), "an id lies outside the names", "end {end}");
        assert_eq!(segment.name(2).unwrap(), sh_index::Name::Id(b"c"), "the others read");
    }
}

#[test]
fn a_manifest_with_a_k_above_63_is_refused() {
    let mut manifest = Manifest::new(63);
    assert_eq!(Manifest::decode(&manifest.encode()).unwrap(), manifest);
    for k in [64, 1000, u32::MAX] {
        manifest.k = k;
        let refused = Manifest::decode(&manifest.encode()).expect_err("a K above 63");
        assert_eq!(refused.to_string(), format!("a K of {k}, above 63"));
    }
}
