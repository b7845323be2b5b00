//! Appending short pieces of bytes. A copy of a length known only at run time is a call to the
//! C library's `memcpy`, which for the few bytes of a token, a shingle or a hash costs more than
//! the copy; a copy of a fixed 32 bytes is two vector stores. So a short piece with 32 bytes of
//! its source from its start is copied as 32 bytes and the output cut back to the piece.

/// The longest piece copied as a block.
const BLOCK: usize = 32;

/// Appends `source[start..start + len]` to `out`.
///
/// # Panics
///
/// When the range is not within `source`, as slicing it would.
#[inline]
pub fn extend_from_within(out: &mut Vec<u8>, source: &[u8], start: usize, len: usize) {
    match source.get(start..start + BLOCK) {
        Some(block) if len <= BLOCK => {
            let kept = out.len() + len;
            out.extend_from_slice(block);
            out.truncate(kept);
        }
        _ => out.extend_from_slice(&source[start..start + len]),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn appends_the_piece(source in prop::collection::vec(any::<u8>(), 0..100),
                             start in 0usize..100, len in 0usize..60,
                             before in prop::collection::vec(any::<u8>(), 0..40)) {
            prop_assume!(start + len <= source.len());
            let mut out = before.clone();
            extend_from_within(&mut out, &source, start, len);
            let mut expected = before;
            expected.extend_from_slice(&source[start..start + len]);
            prop_assert_eq!(out, expected);
        }
    }

    #[test]
    #[should_panic]
    fn a_range_beyond_the_source_is_refused() {
        extend_from_within(&mut Vec::new(), b"abc", 2, 2);
    }
}
