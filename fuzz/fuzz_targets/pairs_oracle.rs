//! sh-pairs against a brute-force oracle on small fuzzed inputs, at every width.
//!
//! Header bytes choose the width (64, 128 or 256 bits), K (0..=8 for 64 bits, 0..=47 for wide
//! ones), --word-k (none, or 0..=11), B (the cost model's choice, or any above the k of each
//! word's search), the thread count (1..=3) and the selection (all pairs, --sparse, or
//! --against with the records split into query and corpus); then up to 4 base fingerprints,
//! and 3 bytes per record: which base, and up to two bits to flip, so that there are many exact
//! and near duplicates (for wide ones, a flip byte above 200 takes one word from another base,
//! so that fingerprints share some words exactly and differ in the others). All pairs and --against must equal the O(n^2) oracle of
//! sh-testkit line for line; --sparse must pass its check: near pairs only, in order,
//! connecting the same components as all pairs do.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sh_core::fingerprint::Width;
use sh_core::progress::Progress;
use sh_pairs::{rule_for, write_pairs, Format, Options, RecordNames, Records};
use sh_testkit::oracle::wide as oracle;

fn records(fingerprints: &[Vec<u64>], width: Width) -> Records {
    Records {
        fingerprints: fingerprints.concat(),
        width: (!fingerprints.is_empty()).then_some(width),
        names: RecordNames::default(),
    }
}

fn run(
    query: &[Vec<u64>],
    corpus: Option<&[Vec<u64>]>,
    width: Width,
    options: &Options,
) -> String {
    let mut out = Vec::new();
    write_pairs(
        records(query, width),
        corpus.map(|c| records(c, width)),
        options,
        &mut out,
        &mut Progress::new(true, ""),
    )
    .expect("the search succeeds");
    String::from_utf8(out).expect("UTF-8 output")
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 5 {
        return;
    }
    let (header, rest) = data.split_at(5);
    let width = [Width::Bits64, Width::Bits128, Width::Bits256][usize::from(header[4] % 3)];
    let words = width.words();
    let k = if words == 1 { u32::from(header[0]) % 9 } else { u32::from(header[0]) % 48 };
    let word_k = match header[4] >> 2 {
        0..=31 => None,
        w => Some(u32::from(w) % 12),
    };
    // --word-bytes on some wide inputs (then B is 8 or the default).
    let word_bytes = (words > 1 && header[0] >= 0xc0).then(|| u32::from(header[1]) % 8);
    let rule = rule_for(words, Some(k), word_k, word_bytes).expect("K below the width");
    let per_word = oracle::WordRule { k: rule.word_k, bytes: rule.word_bytes };
    let blocks = match header[1] {
        0..=63 => None,
        _ if rule.word_bytes.is_some() => Some(8),
        b => Some(rule.word_k + 1 + u32::from(b) % (64 - rule.word_k)),
    };
    let threads = 1 + usize::from(header[2] % 3);
    let selection = header[3] % 3;
    let bases_count = 1 + usize::from(header[3] >> 2) % 4;
    if rest.len() < 8 * words * bases_count {
        return;
    }
    let (base_bytes, record_bytes) = rest.split_at(8 * words * bases_count);
    let bases: Vec<Vec<u64>> = base_bytes
        .chunks_exact(8 * words)
        .map(|b| b.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).collect())
        .collect();
    let bits = 64 * words;
    let fingerprints: Vec<Vec<u64>> = record_bytes
        .chunks_exact(3)
        .take(300)
        .map(|r| {
            let base = &bases[usize::from(r[0]) % bases.len()];
            let mut fp = base.clone();
            for &flip in &r[1..] {
                if flip < 128 {
                    let bit = (usize::from(flip) * (bits / 64) + usize::from(r[0])) % bits;
                    fp[bit / 64] ^= 1 << (bit % 64);
                } else if words > 1 && flip > 200 {
                    let w = usize::from(flip) % words;
                    fp[w] = bases[usize::from(flip) / words % bases.len()][w];
                }
            }
            fp
        })
        .collect();

    let sparse = selection == 1;
    let options =
        Options { k: Some(k), word_k, word_bytes, blocks, threads, format: Format::Tsv, sparse };
    match selection {
        0 => assert_eq!(
            run(&fingerprints, None, width, &options),
            oracle::all_pairs(&fingerprints, k, per_word)
        ),
        1 => {
            let sparse = run(&fingerprints, None, width, &options);
            if let Err(what) = oracle::check_sparse(&fingerprints, k, per_word, &sparse) {
                panic!("--sparse: {what}");
            }
        }
        _ => {
            let split = usize::from(header[2]) % (fingerprints.len() + 1);
            let (query, corpus) = fingerprints.split_at(split);
            assert_eq!(
                run(query, Some(corpus), width, &options),
                oracle::against(query, corpus, k, per_word)
            );
        }
    }
});
