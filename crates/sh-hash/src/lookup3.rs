//! Bob Jenkins' lookup3 `hashlittle2` (public domain, 2006), the hash of the seed tools: two
//! 32-bit results from one pass over the bytes, read little-endian on every platform.

const GOLDEN: u32 = 0xdead_beef;

/// `hashlittle2` of `key` started with `pc = seed >> 32` and `pb = seed & 0xffffffff`, returned
/// as `(c << 32) | b`.
pub fn hash64(key: &[u8], seed: u64) -> u64 {
    let (c, b) = hashlittle2(key, (seed >> 32) as u32, seed as u32);
    u64::from(c) << 32 | u64::from(b)
}

/// lookup3's `hashlittle2`: returns the final `(c, b)` pair.
pub fn hashlittle2(key: &[u8], pc: u32, pb: u32) -> (u32, u32) {
    // lookup3 folds the length in as a 32-bit value.
    let initial = GOLDEN.wrapping_add(key.len() as u32).wrapping_add(pc);
    let (mut a, mut b, mut c) = (initial, initial, initial.wrapping_add(pb));

    let mut rest = key;
    // Every 12-byte block but the last is mixed; the last (1 to 12 bytes) gets the final mix.
    while rest.len() > 12 {
        a = a.wrapping_add(le32(&rest[0..4]));
        b = b.wrapping_add(le32(&rest[4..8]));
        c = c.wrapping_add(le32(&rest[8..12]));
        mix(&mut a, &mut b, &mut c);
        rest = &rest[12..];
    }
    if rest.is_empty() {
        return (c, b);
    }
    let last = last_block(key, rest.len());
    a = a.wrapping_add(last as u32);
    b = b.wrapping_add((last >> 32) as u32);
    c = c.wrapping_add((last >> 64) as u32);
    final_mix(&mut a, &mut b, &mut c);
    (c, b)
}

/// The last block: the last `len` bytes of `key` (1 to 12), zero-padded to 12, as one
/// little-endian number. It is read in two or three overlapping words, not copied into a padded
/// block: most items are that short, and the copy (a call to memcpy) cost a fifth of the hash.
#[inline(always)]
fn last_block(key: &[u8], len: usize) -> u128 {
    let n = key.len();
    if n >= 12 {
        // The key's last 12 bytes, shifted down past those that belong to the block before.
        let words = u128::from(le64(&key[n - 12..n - 4])) | u128::from(le32(&key[n - 4..])) << 64;
        return words >> (8 * (12 - len));
    }
    // The block is the whole key: two words that overlap where n is not their sum (the bytes
    // they share are the same, so OR keeps them).
    if n >= 8 {
        u128::from(le64(&key[..8])) | u128::from(le64(&key[n - 8..])) << (8 * (n - 8))
    } else if n >= 4 {
        u128::from(u64::from(le32(&key[..4])) | u64::from(le32(&key[n - 4..])) << (8 * (n - 4)))
    } else {
        let low = u32::from(key[0]) | u32::from(key[n / 2]) << (8 * (n / 2));
        u128::from(low | u32::from(key[n - 1]) << (8 * (n - 1)))
    }
}

#[inline(always)]
fn le32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

#[inline(always)]
fn le64(bytes: &[u8]) -> u64 {
    u64::from(le32(&bytes[..4])) | u64::from(le32(&bytes[4..8])) << 32
}

#[inline(always)]
fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

#[inline(always)]
fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(14));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(11));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(25));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(16));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(4));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(14));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(24));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lookup3's `hashlittle2` as its C source reads the last block: copied into twelve zero
    /// bytes, then taken as three words.
    fn padded_block_reference(key: &[u8], pc: u32, pb: u32) -> (u32, u32) {
        let initial = GOLDEN.wrapping_add(key.len() as u32).wrapping_add(pc);
        let (mut a, mut b, mut c) = (initial, initial, initial.wrapping_add(pb));
        let mut rest = key;
        while rest.len() > 12 {
            a = a.wrapping_add(le32(&rest[0..4]));
            b = b.wrapping_add(le32(&rest[4..8]));
            c = c.wrapping_add(le32(&rest[8..12]));
            mix(&mut a, &mut b, &mut c);
            rest = &rest[12..];
        }
        if rest.is_empty() {
            return (c, b);
        }
        let mut tail = [0u8; 12];
        tail[..rest.len()].copy_from_slice(rest);
        a = a.wrapping_add(le32(&tail[0..4]));
        b = b.wrapping_add(le32(&tail[4..8]));
        c = c.wrapping_add(le32(&tail[8..12]));
        final_mix(&mut a, &mut b, &mut c);
        (c, b)
    }

    #[test]
    fn the_last_block_read_in_words_is_the_padded_block() {
        // Every length to 50 (every tail length after 0 to 4 whole blocks), bytes that differ
        // everywhere, and the same with every byte 0xff (no bit of a neighbour may leak in).
        let varied: Vec<u8> = (0..50u32).map(|i| (i.wrapping_mul(167) ^ 0x5a) as u8).collect();
        let ones = vec![0xffu8; 50];
        for bytes in [&varied, &ones] {
            for start in 0..3 {
                for end in start..bytes.len() {
                    let key = &bytes[start..end];
                    for (pc, pb) in [(0, 0), (7, 0xdead_beef)] {
                        assert_eq!(
                            hashlittle2(key, pc, pb),
                            padded_block_reference(key, pc, pb),
                            "{key:?}"
                        );
                    }
                }
            }
        }
    }
}
