//! What the tests, fuzz targets and benchmarks of sh-tools check against, defined once: the
//! brute-force oracle of sh-pairs ([`oracle`]), sets of fingerprints meant to break it
//! ([`adversarial`]), and the proptest strategies that draw inputs for it ([`strategies`],
//! behind the default feature `strategies`).
//!
//! Nothing here depends on sh-pairs: the oracle knows only the line format, so it can judge any
//! implementation, and sh-pairs' own unit tests can use it.

pub mod oracle;
#[cfg(feature = "strategies")]
pub mod strategies;

/// A cheap, seeded stream of pseudo-random 64-bit numbers (xorshift64) for tests that need
/// many fingerprints without a proptest strategy. `seed` must not be 0.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Fingerprints meant to break a block-based search over `blocks` blocks within `k` bits:
/// sparse and dense bit patterns, all zeros and all ones, many identical fingerprints, and
/// neighbours at 0..=K+1 bits whose differing bits fall inside one block or straddle block
/// edges.
pub fn adversarial(k: u32, blocks: u32) -> Vec<u64> {
    let mut fps = vec![0, u64::MAX, 0, 1, 1 << 63, 3, u64::MAX >> 1, u64::MAX - 1, 0];
    let base = 0x9e37_79b9_7f4a_7c15_u64;
    fps.extend([base, base, base, !base]);
    let edges: Vec<u32> =
        (1..blocks).map(|i| (u64::from(i) * 64 / u64::from(blocks)) as u32).collect();
    for d in 0..=k + 1 {
        // Differing bits packed at the bottom of one block …
        fps.push(base ^ ((1u64 << d) - 1));
        // … and spread over block edges, twice (identical fingerprints near others) …
        let mut x = 0u64;
        for (n, &edge) in edges.iter().cycle().take(d as usize).enumerate() {
            x |= 1 << ((edge + n as u32 / edges.len().max(1) as u32) % 64);
        }
        fps.push(base ^ x);
        fps.push(base ^ x);
        // … and a run of them across the first edge of the complement.
        if let Some(&edge) = edges.first() {
            fps.push(!base ^ (((1u64 << d.min(63)) - 1) << edge.saturating_sub(d / 2)));
        }
    }
    fps
}
