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
    let mut tail = [0u8; 12];
    tail[..rest.len()].copy_from_slice(rest);
    a = a.wrapping_add(le32(&tail[0..4]));
    b = b.wrapping_add(le32(&tail[4..8]));
    c = c.wrapping_add(le32(&tail[8..12]));
    final_mix(&mut a, &mut b, &mut c);
    (c, b)
}

#[inline(always)]
fn le32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
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
