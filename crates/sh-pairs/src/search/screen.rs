//! The pairs of a small set within a distance, every member against every later one: eight
//! pairs at a time, with AVX-512's population count of eight words where the processor has it
//! (found out when the program runs), else with one `popcnt` a pair.
//!
//! Nearly every pair compared is far, so a run of eight is screened as one mask of the lanes
//! within the distance, and only a run with a lane set is looked at lane by lane.

/// Calls `near(i, j)` for each `i < j` whose members `set[i]` and `set[j]` are at most `k`
/// bits apart, in order of `i`, then `j`.
#[inline]
pub(crate) fn near_pairs(set: &[u64], k: u32, mut near: impl FnMut(usize, usize)) {
    #[cfg(target_arch = "x86_64")]
    if eight_at_once() {
        // SAFETY: the processor has the features the function is compiled for, both detected
        // (each is detected on its own).
        #[allow(unsafe_code)]
        unsafe {
            near_pairs_avx512(set, k, &mut near);
        }
        return;
    }
    near_pairs_scalar(set, k, &mut near);
}

/// Whether this processor compares eight pairs at once (AVX-512 with its population count).
#[inline]
pub(crate) fn eight_at_once() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vpopcntdq");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// [`near_pairs`] with eight lanes of AVX-512: a run is loaded, XORed, counted and compared in
/// four instructions; the last run of each row, of fewer than eight, is loaded under a mask of
/// the lanes left (computed once a row: a mask computed for every run costs more than the run).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn near_pairs_avx512(set: &[u64], k: u32, near: &mut impl FnMut(usize, usize)) {
    use std::arch::x86_64::{
        __m512i, __mmask8, _mm512_cmple_epu64_mask, _mm512_loadu_si512,
        _mm512_mask_cmple_epu64_mask, _mm512_maskz_loadu_epi64, _mm512_popcnt_epi64,
        _mm512_set1_epi64, _mm512_xor_si512,
    };
    let within = _mm512_set1_epi64(i64::from(k));
    let n = set.len();
    for (i, &a) in set.iter().enumerate() {
        let a = _mm512_set1_epi64(a as i64);
        let mut j = i + 1;
        while j + LANES <= n {
            // SAFETY: set[j..j + 8] is within the set.
            #[allow(unsafe_code)]
            let b = unsafe { _mm512_loadu_si512(set.as_ptr().add(j).cast::<__m512i>()) };
            let distance = _mm512_popcnt_epi64(_mm512_xor_si512(a, b));
            report(u32::from(_mm512_cmple_epu64_mask(distance, within)), i, j, near);
            j += LANES;
        }
        if j < n {
            let lanes: __mmask8 = (1u8 << (n - j)) - 1;
            // SAFETY: the lanes under the mask are set[j..n], in the set; a lane masked off is
            // not read and cannot fault.
            #[allow(unsafe_code)]
            let b = unsafe { _mm512_maskz_loadu_epi64(lanes, set.as_ptr().add(j).cast::<i64>()) };
            let distance = _mm512_popcnt_epi64(_mm512_xor_si512(a, b));
            report(u32::from(_mm512_mask_cmple_epu64_mask(lanes, distance, within)), i, j, near);
        }
    }
}

/// [`near_pairs`] a pair at a time, screened by runs of eight.
#[inline(always)]
fn near_pairs_scalar(set: &[u64], k: u32, near: &mut impl FnMut(usize, usize)) {
    for (i, &a) in set.iter().enumerate() {
        let mut j = i + 1;
        let mut runs = set[j..].chunks_exact(LANES);
        for run in &mut runs {
            // Without a branch a pair: the run's lanes within K folded into one test.
            if run.iter().fold(false, |any, &b| any | ((a ^ b).count_ones() <= k)) {
                report(lanes_within(a, run, k), i, j, near);
            }
            j += LANES;
        }
        report(lanes_within(a, runs.remainder(), k), i, j, near);
    }
}

/// Lanes compared at once.
const LANES: usize = 8;

/// A bit for each member of `run` (at most [`LANES`]) within `k` bits of `a`.
#[inline(always)]
fn lanes_within(a: u64, run: &[u64], k: u32) -> u32 {
    run.iter()
        .enumerate()
        .fold(0, |hits, (lane, &b)| hits | u32::from((a ^ b).count_ones() <= k) << lane)
}

/// Tells `near` of `(i, base + lane)` for each lane set in `hits`, lowest first.
#[inline(always)]
fn report(mut hits: u32, i: usize, base: usize, near: &mut impl FnMut(usize, usize)) {
    while hits != 0 {
        near(i, base + hits.trailing_zeros() as usize);
        hits &= hits - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(set: &[u64], k: u32) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        for i in 0..set.len() {
            for j in i + 1..set.len() {
                if (set[i] ^ set[j]).count_ones() <= k {
                    pairs.push((i, j));
                }
            }
        }
        pairs
    }

    /// Both ways (the one this processor takes and the scalar one) against every pair checked
    /// alone: sets of every length across the runs of eight, members near one another and far,
    /// repeated, at distances 0 to 64. (On a processor without AVX-512 both are the scalar
    /// way.)
    #[test]
    fn every_near_pair_once_in_order() {
        let mut next = sh_testkit::xorshift(0x5851_f42d_4c95_7f2d);
        for len in 0..=41 {
            for spread in [0u64, 0b1, 0xff00, 0x8000_0000_0000_0001, 0xffff_ffff, u64::MAX] {
                let base = next();
                // Each member differs from one base in bits of `spread` only, some pairs equal,
                // and some are the base's complement, 64 bits from it and 63 from its neighbours.
                let set: Vec<u64> = (0..len)
                    .map(|i| match i % 7 {
                        3 => base,
                        5 => !base,
                        6 => !base ^ 1,
                        _ => base ^ (next() & spread),
                    })
                    .collect();
                for k in [0, 1, 2, 3, 6, 13, 31, 32, 63, 64] {
                    let want = expected(&set, k);
                    let mut fast = Vec::new();
                    near_pairs(&set, k, |i, j| fast.push((i, j)));
                    let mut scalar = Vec::new();
                    near_pairs_scalar(&set, k, &mut |i, j| scalar.push((i, j)));
                    assert_eq!(fast, want, "len {len} spread {spread:x} k {k}");
                    assert_eq!(scalar, want, "scalar: len {len} spread {spread:x} k {k}");
                }
            }
        }
    }
}
