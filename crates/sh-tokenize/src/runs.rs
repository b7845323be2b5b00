//! Runs of ASCII token bytes (letters and digits in the default mode), taken sixteen bytes at a
//! time where the build has 16-byte vectors (SSE4.1, in every x86-64-v2 processor, which the
//! workspace builds for): which bytes continue a run is looked up for all sixteen at once, and
//! the run is case-mapped and appended in one piece. Byte by byte, a lookup and a branch a
//! byte, most of `sh-tokenize`'s time went here.
//!
//! The lookup splits a byte into its high and low four bits: for the eight high halves of
//! ASCII, entry l of [`Runs::low`] has bit h set when byte 16h + l continues a run, and the
//! high half h selects bit h (none for bytes of 0x80 and up, which are never ASCII runs). Any
//! set of ASCII bytes is so written, whatever the mode.

/// Which ASCII bytes continue a run, and whether a run's capitals become small letters. (A build
/// without the vectors reads neither: its caller takes every run byte by byte.)
#[derive(Debug, Clone)]
#[cfg_attr(not(all(target_arch = "x86_64", target_feature = "sse4.1")), allow(dead_code))]
pub(crate) struct Runs {
    low: [u8; 16],
    lowercase: bool,
}

impl Runs {
    /// The runs of the ASCII bytes for which `is_run` holds.
    pub(crate) fn new(is_run: impl Fn(u8) -> bool, lowercase: bool) -> Runs {
        let mut low = [0u8; 16];
        for byte in 0..128u8 {
            if is_run(byte) {
                low[usize::from(byte & 15)] |= 1 << (byte >> 4);
            }
        }
        Runs { low, lowercase }
    }

    /// Whether `byte` continues a run.
    #[cfg(test)]
    fn is_run(&self, byte: u8) -> bool {
        byte < 128 && self.low[usize::from(byte & 15)] & 1 << (byte >> 4) != 0
    }

    /// Appends to `out` the run at the start of `text` (case-mapped), as far as it goes in the
    /// first sixteen bytes of each piece of sixteen; returns how many bytes it took. A shorter
    /// text (fewer than sixteen bytes left) is the caller's to take byte by byte.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    #[inline]
    pub(crate) fn take(&self, text: &[u8], out: &mut Vec<u8>) -> usize {
        // SAFETY: the build enables SSE4.1 for every function where this is compiled.
        #[allow(unsafe_code)]
        unsafe {
            sse::take(&self.low, self.lowercase, text, out)
        }
    }

    /// Elsewhere the caller takes every run byte by byte.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
    #[inline]
    pub(crate) fn take(&self, _text: &[u8], _out: &mut Vec<u8>) -> usize {
        0
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
mod sse {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cvtsi128_si64,
        _mm_extract_epi64, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x, _mm_setzero_si128,
        _mm_shuffle_epi8, _mm_srli_epi16,
    };

    /// Bit h for the high half h of an ASCII byte; nothing for the others.
    const HIGH: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0];

    #[inline]
    #[target_feature(enable = "sse4.1")]
    fn vector(bytes: &[u8; 16]) -> __m128i {
        let value = u128::from_le_bytes(*bytes);
        _mm_set_epi64x((value >> 64) as i64, value as i64)
    }

    #[inline]
    #[target_feature(enable = "sse4.1")]
    pub(super) fn take(low: &[u8; 16], lowercase: bool, text: &[u8], out: &mut Vec<u8>) -> usize {
        let (low, high) = (vector(low), vector(&HIGH));
        let nibble = _mm_set1_epi8(15);
        let mut taken = 0;
        while let Some(piece) = text[taken..].first_chunk::<16>() {
            let bytes = vector(piece);
            let low_half = _mm_and_si128(bytes, nibble);
            let high_half = _mm_and_si128(_mm_srli_epi16::<4>(bytes), nibble);
            let bits =
                _mm_and_si128(_mm_shuffle_epi8(low, low_half), _mm_shuffle_epi8(high, high_half));
            let ends = _mm_movemask_epi8(_mm_cmpeq_epi8(bits, _mm_setzero_si128())) as u32;
            let run = (ends | 1 << 16).trailing_zeros() as usize;
            let mapped = if lowercase {
                // 'A' to 'Z' (bytes of 0x80 and up are below both as signed bytes) plus 0x20.
                let above = _mm_cmpgt_epi8(bytes, _mm_set1_epi8(b'A' as i8 - 1));
                let below = _mm_cmpgt_epi8(_mm_set1_epi8(b'Z' as i8 + 1), bytes);
                let capitals = _mm_and_si128(above, below);
                _mm_add_epi8(bytes, _mm_and_si128(capitals, _mm_set1_epi8(0x20)))
            } else {
                bytes
            };
            let first = _mm_cvtsi128_si64(mapped) as u64;
            let second = _mm_extract_epi64::<1>(mapped) as u64;
            let mapped = (u128::from(first) | u128::from(second) << 64).to_le_bytes();
            // All sixteen stored at once (no copy of a varying length), then the run kept.
            let kept = out.len() + run;
            out.extend_from_slice(&mapped);
            out.truncate(kept);
            taken += run;
            if run < 16 {
                break;
            }
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn any_set_of_ascii_bytes_is_looked_up() {
        let sets: [fn(u8) -> bool; 4] =
            [|b| b.is_ascii_alphanumeric(), |b| !b.is_ascii_whitespace(), |b| b % 3 == 0, |_| true];
        for is_run in sets {
            let runs = Runs::new(is_run, true);
            for byte in 0..=255u8 {
                assert_eq!(runs.is_run(byte), byte < 128 && is_run(byte), "{byte}");
            }
        }
    }

    /// The run as a byte-by-byte loop takes it, whatever the bytes around it and wherever it
    /// crosses a piece of sixteen.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    fn check(text: &[u8], mode: u8, lowercase: bool) -> Result<(), TestCaseError> {
        let is_run = move |b: u8| match mode {
            0 => b.is_ascii_alphanumeric(),
            1 => b.is_ascii_alphabetic(),
            _ => !matches!(b, b'\t'..=b'\r' | b' '),
        };
        let runs = Runs::new(is_run, lowercase);
        for start in 0..text.len() {
            let text = &text[start..];
            let mut out = b"x".to_vec();
            let taken = runs.take(text, &mut out);
            let whole = text.iter().take_while(|&&b| b < 128 && is_run(b)).count();
            // All of it, or all but a last piece shorter than sixteen.
            prop_assert!(taken == whole || (taken <= whole && text.len() - taken < 16));
            prop_assert!(taken.is_multiple_of(16) || taken == whole);
            let expected: Vec<u8> = text[..taken]
                .iter()
                .map(|&b| if lowercase { b.to_ascii_lowercase() } else { b })
                .collect();
            prop_assert_eq!(&out[1..], &expected[..]);
        }
        Ok(())
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn takes_what_a_byte_loop_takes(
            text in prop::collection::vec(prop_oneof![
                4 => prop::sample::select(b"aZz09AM_ -\t\n.".to_vec()),
                1 => any::<u8>(),
            ], 0..70),
            mode in 0u8..3,
            lowercase: bool,
        ) {
            check(&text, mode, lowercase)?;
        }
    }

    /// Every byte value in every place of a piece.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    #[test]
    fn every_byte_ends_or_continues_a_run_as_it_should() {
        for byte in 0..=255u8 {
            for at in [0, 1, 7, 15, 16, 17, 31] {
                let mut text = b"AbCdEfGhIjKlMnOpQrStUvWxYz012345".to_vec();
                text[at] = byte;
                for mode in 0..3 {
                    for lowercase in [false, true] {
                        check(&text, mode, lowercase).unwrap();
                    }
                }
            }
        }
    }
}
