//! sh-pairs against a brute-force oracle on small fuzzed inputs.
//!
//! Header bytes choose K (0..=8), B (the cost model's choice, or any of K+1..=64), the thread
//! count (1..=3) and the selection (all pairs, --sparse, or --against with the records split
//! into query and corpus); then up to 4 base fingerprints, and 3 bytes per record: which base,
//! and up to two bits to flip, so that there are many exact and near duplicates. All pairs and
//! --against must equal the O(n^2) oracle of sh-testkit line for line; --sparse must pass its
//! check: near pairs only, in order, connecting the same components as all pairs do.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sh_core::progress::Progress;
use sh_pairs::{write_pairs, Format, Options, RecordNames, Records};
use sh_testkit::oracle;

fn records(fingerprints: &[u64]) -> Records {
    Records { fingerprints: fingerprints.to_vec(), names: RecordNames::default() }
}

fn run(query: &[u64], corpus: Option<&[u64]>, options: &Options) -> String {
    let mut out = Vec::new();
    write_pairs(
        records(query),
        corpus.map(records),
        options,
        &mut out,
        &mut Progress::new(true, ""),
    )
    .expect("the search succeeds");
    String::from_utf8(out).expect("UTF-8 output")
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (header, rest) = data.split_at(4);
    let k = u32::from(header[0]) % 9;
    let blocks = match header[1] {
        0..=63 => None,
        b => Some(k + 1 + u32::from(b) % (64 - k)),
    };
    let threads = 1 + usize::from(header[2] % 3);
    let selection = header[3] % 3;
    let bases_count = 1 + usize::from(header[3] >> 2) % 4;
    if rest.len() < 8 * bases_count {
        return;
    }
    let (base_bytes, record_bytes) = rest.split_at(8 * bases_count);
    let bases: Vec<u64> =
        base_bytes.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect();
    let fingerprints: Vec<u64> = record_bytes
        .chunks_exact(3)
        .take(300)
        .map(|r| {
            let mut fp = bases[usize::from(r[0]) % bases.len()];
            for &flip in &r[1..] {
                if flip < 128 {
                    fp ^= 1 << (flip % 64);
                }
            }
            fp
        })
        .collect();

    let sparse = selection == 1;
    let options = Options { k, blocks, threads, format: Format::Tsv, sparse };
    match selection {
        0 => assert_eq!(run(&fingerprints, None, &options), oracle::all_pairs(&fingerprints, k)),
        1 => {
            let sparse = run(&fingerprints, None, &options);
            if let Err(what) = oracle::check_sparse(&fingerprints, k, &sparse) {
                panic!("--sparse: {what}");
            }
        }
        _ => {
            let split = usize::from(header[2]) % (fingerprints.len() + 1);
            let (query, corpus) = fingerprints.split_at(split);
            assert_eq!(run(query, Some(corpus), &options), oracle::against(query, corpus, k));
        }
    }
});
