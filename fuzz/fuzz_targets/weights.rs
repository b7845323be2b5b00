//! sh-compute's simhash with weights, against exact rational arithmetic.
//!
//! Each item is made of 5 bytes: a hash from a small palette (so that bits agree and disagree
//! across items), and a weight written as decimal text with a sign, up to 24 digits, a point and
//! an exponent from -330 to 330 (or no weight at all). The weights are summed per bit exactly,
//! as big integers; the fingerprint must have bit i set exactly when that sum is above 0, except
//! where sh-compute is allowed to fall back to double precision (weights it cannot hold in
//! fixed point) and the sum is within the rounding error of double precision summation.

#![no_main]

use libfuzzer_sys::fuzz_target;
use num_bigint::BigInt;
use num_traits::Signed;
use sh_compute::{Simhash, Weight};

const PALETTE: [u64; 8] = [
    0,
    u64::MAX,
    0x5555_5555_5555_5555,
    0xAAAA_AAAA_AAAA_AAAA,
    0x0F0F_0F0F_0F0F_0F0F,
    0xFFFF_FFFF_0000_0000,
    0x8000_0000_0000_0001,
    0x0123_4567_89AB_CDEF,
];

/// A weight: `digits` times 10^`exponent`, negative or not, and its text.
struct Item {
    hash: u64,
    weight: Option<(bool, Vec<u8>, i32, String)>,
}

fn item(bytes: &[u8]) -> Item {
    let hash = PALETTE[usize::from(bytes[0] & 7)]
        ^ u64::from(bytes[0] >> 3).rotate_left(u32::from(bytes[1] & 63));
    if bytes[1] & 0xc0 == 0xc0 {
        return Item { hash, weight: None };
    }
    let negative = bytes[2] & 1 == 1;
    // Up to 24 significant digits from the other bytes, some leading zeros allowed.
    let count = 1 + usize::from(bytes[2] >> 1) % 24;
    let mut state = u64::from(bytes[3]) << 8 | u64::from(bytes[4]) | 1;
    let digits: Vec<u8> = (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            b'0' + (state >> 60) as u8 % 10
        })
        .collect();
    let point = usize::from(bytes[3]) % (count + 1);
    let exponent = match bytes[4] >> 6 {
        0 => None,
        1 => Some(i32::from(bytes[4] & 63) - 32),
        2 => Some(i32::from(bytes[4] & 63) * 5),
        _ => Some(-i32::from(bytes[4] & 63) * 5),
    };
    let mut text = String::new();
    if negative {
        text.push('-');
    }
    text.push_str(std::str::from_utf8(&digits[..point]).unwrap());
    if point < count {
        text.push('.');
        text.push_str(std::str::from_utf8(&digits[point..]).unwrap());
    }
    if let Some(e) = exponent {
        text.push_str(&format!("e{e}"));
    }
    // digits × 10^(exponent - fraction digits)
    let scale = exponent.unwrap_or(0) - (count - point) as i32;
    Item { hash, weight: Some((negative, digits, scale, text)) }
}

fuzz_target!(|data: &[u8]| {
    let items: Vec<Item> = data.chunks_exact(5).take(40).map(item).collect();
    let mut simhash = Simhash::new();
    // (negative, digits, scale) of every item that was added, weight 1 for unweighted items.
    let mut exact_terms: Vec<(u64, bool, BigInt, i32)> = Vec::new();
    let mut all_fixed_point = true;
    for item in &items {
        match &item.weight {
            None => {
                simhash.add(item.hash);
                exact_terms.push((item.hash, false, BigInt::from(1), 0));
            }
            Some((negative, digits, scale, text)) => {
                let Some(weight) = Weight::parse(text.as_bytes()) else {
                    // Only a weight that overflows to infinity is refused.
                    assert!(*scale + digits.len() as i32 > 308, "{text} refused");
                    continue;
                };
                all_fixed_point &= weight.exact.is_some();
                simhash.add_weighted(item.hash, weight);
                let mantissa = BigInt::parse_bytes(digits, 10).unwrap();
                exact_terms.push((item.hash, *negative, mantissa, *scale));
            }
        }
    }
    let fingerprint = simhash.fingerprint();
    if exact_terms.is_empty() {
        assert_eq!(fingerprint, None);
        return;
    }
    let fingerprint = fingerprint.expect("a document with items has a fingerprint");

    // Every term as an integer times 10^low.
    let low = exact_terms.iter().map(|t| t.3).min().unwrap();
    let ten = BigInt::from(10);
    let terms: Vec<(u64, BigInt)> = exact_terms
        .iter()
        .map(|(hash, negative, mantissa, scale)| {
            let value = mantissa * num_traits::pow(ten.clone(), (scale - low) as usize);
            (*hash, if *negative { -value } else { value })
        })
        .collect();
    let magnitude: BigInt = terms.iter().map(|(_, v)| v.abs()).sum();
    // Double precision: each weight rounded once when parsed and each sum once per addition,
    // so the error is below (n + 1) * 2^-52 of the sum of magnitudes.
    let tolerance = magnitude.clone() * BigInt::from(terms.len() + 1);
    // Fixed point holds any sum of weights below 10^18 in magnitude.
    let must_be_exact =
        all_fixed_point && magnitude < num_traits::pow(ten.clone(), (18 - low).max(0) as usize);
    for bit in 0..64 {
        let sum: BigInt = terms
            .iter()
            .map(|(hash, v)| if hash >> bit & 1 == 1 { v.clone() } else { -v.clone() })
            .sum();
        let expected = sum.is_positive();
        let got = fingerprint >> bit & 1 == 1;
        if got == expected {
            continue;
        }
        let near_tie = (sum.abs() << 52u32) <= tolerance;
        assert!(
            !must_be_exact && near_tie,
            "bit {bit}: got {got}, exact sum {sum} (x10^{low}); items {:?}",
            items
                .iter()
                .map(|i| (i.hash, i.weight.as_ref().map(|w| w.3.clone())))
                .collect::<Vec<_>>()
        );
    }
});
