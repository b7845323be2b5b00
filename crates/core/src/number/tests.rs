//! Tests of `number.rs`: both ways of reading against each other and against the standard
//! library, spelling, weights.

use super::*;

#[test]
fn canonical_numbers() {
    assert_eq!(canonical_u64(b"0"), Some(0));
    assert_eq!(canonical_u64(b"7"), Some(7));
    assert_eq!(canonical_u64(b"18446744073709551615"), Some(u64::MAX));
    for text in [
        &b""[..],
        b"007",
        b"00",
        b"07",
        b"+7",
        b"-7",
        b"0x7",
        b"7 ",
        b" 7",
        b"7a",
        b"1.0",
        b"18446744073709551616",
        b"99999999999999999999999",
    ] {
        assert_eq!(canonical_u64(text), None, "{:?}", String::from_utf8_lossy(text));
    }
}
use proptest::prelude::*;

#[test]
fn long_decimal_line_examples() {
    let line = |text: &str| {
        let mut bytes = text.as_bytes().to_vec();
        bytes.resize(bytes.len().max(24), b'7');
        long_decimal_line(&bytes)
    };
    assert_eq!(line("18446744073709551615\n"), Some((u64::MAX, 20)));
    assert_eq!(line("10000000000000000\n"), Some((10_000_000_000_000_000, 17)));
    assert_eq!(line("00000000000000000000\n"), Some((0, 20)));
    for refused in [
        "18446744073709551616\n",
        "99999999999999999999\n",
        "1000000000000000\n",
        "100000000000000000000\n",
        "1844674407370955161\r\n",
        "184467440737095516x5\n",
        "12\n18446744073709551615\n",
        "123456789012345678901234",
    ] {
        assert_eq!(line(refused), None, "{refused:?}");
    }
}

#[test]
fn decimal_and_hex() {
    assert_eq!(parse_u64(b"0"), Ok(0));
    assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
    assert_eq!(parse_u64(b"0xffffffffffffffff"), Ok(u64::MAX));
    assert_eq!(parse_u64(b"0XAbC"), Ok(0xabc));
    assert_eq!(parse_u64(b"00000000000000000000000042"), Ok(42));
    assert_eq!(parse_u64(b"0x00000000000000000001"), Ok(1));
}

#[test]
fn refuses_what_is_not_an_unsigned_integer() {
    assert_eq!(parse_u64(b""), Err(NumberError::Empty));
    assert_eq!(parse_u64(b"-1"), Err(NumberError::Signed));
    assert_eq!(parse_u64(b"+1"), Err(NumberError::Signed));
    assert_eq!(parse_u64(b"12a"), Err(NumberError::NotAnInteger));
    assert_eq!(parse_u64(b"1.5"), Err(NumberError::NotAnInteger));
    assert_eq!(parse_u64(b" 1"), Err(NumberError::NotAnInteger));
    assert_eq!(parse_u64(b"0x"), Err(NumberError::NotAnInteger));
    assert_eq!(parse_u64(b"0xg"), Err(NumberError::NotAnInteger));
    assert_eq!(parse_u64(b"18446744073709551616"), Err(NumberError::TooLarge));
    assert_eq!(parse_u64(b"99999999999999999999"), Err(NumberError::TooLarge));
    assert_eq!(parse_u64(b"123456789012345678901234"), Err(NumberError::TooLarge));
    assert_eq!(parse_u64(b"12345678901234567890123x"), Err(NumberError::NotAnInteger));
    assert_eq!(parse_u64(b"1844674407370955161x"), Err(NumberError::NotAnInteger));
    assert_eq!(parse_u64(b"0000"), Ok(0));
    assert_eq!(parse_u64(b"0x10000000000000000"), Err(NumberError::TooLarge));
}

#[test]
fn spelling_at_the_edges_of_every_length() {
    let mut edges = vec![0, u64::MAX];
    for digits in 1..20 {
        let power = 10u64.pow(digits);
        edges.extend([power - 1, power, power + 1]);
    }
    for value in edges {
        let mut text = Vec::new();
        push_u64(&mut text, value);
        assert_eq!(text, value.to_string().as_bytes());
        let mut words = Vec::new();
        push_u64_by_words(&mut words, value);
        assert_eq!(words, text);
        write_u64(&mut text, value).unwrap();
        assert_eq!(text, format!("{value}{value}").as_bytes());
        assert_eq!(parse_u64(value.to_string().as_bytes()), Ok(value));
    }
    for value in 0..100_000u64 {
        let mut text = Vec::new();
        push_u64(&mut text, value * 1000 + value % 1000);
        assert_eq!(text, (value * 1000 + value % 1000).to_string().as_bytes());
    }
}

#[test]
fn every_byte_in_an_eight_digit_word() {
    // Each position with every byte value: only '0'..='9' pass the word test.
    for position in 0..8 {
        for byte in 0..=255u8 {
            let mut chunk = *b"12345678";
            chunk[position] = byte;
            let expected = std::str::from_utf8(&chunk)
                .ok()
                .filter(|t| t.bytes().all(|b| b.is_ascii_digit()))
                .map(|t| t.parse::<u64>().unwrap());
            assert_eq!(parse_u64(&chunk).ok(), expected, "{chunk:?}");
        }
    }
}

#[test]
fn weights() {
    assert_eq!(parse_weight(b"2"), Some(2.0));
    assert_eq!(parse_weight(b"-0.5"), Some(-0.5));
    assert_eq!(parse_weight(b".5"), Some(0.5));
    assert_eq!(parse_weight(b"5."), Some(5.0));
    assert_eq!(parse_weight(b"1e3"), Some(1000.0));
    assert_eq!(parse_weight(b"+1E-2"), Some(0.01));
    for bad in [&b""[..], b"inf", b"NaN", b"-inf", b"1e999", b".", b"1e", b"1x", b"0x1", b"1 "] {
        assert_eq!(parse_weight(bad), None, "{:?}", String::from_utf8_lossy(bad));
    }
    assert_eq!(split_weight(b"a:b:2"), Some((&b"a:b"[..], &b"2"[..])));
    assert_eq!(split_weight(b"ab"), None);
}

/// A number's digits, a byte after them that may or may not end it, and more text: the
/// bytes next to the digits' range and with their high bit set among them.
fn number_then_text() -> impl Strategy<Value = Vec<u8>> {
    let edge = prop_oneof![
        Just(b' '),
        Just(b'\n'),
        Just(b'/'),
        Just(b':'),
        Just(0xB0u8),
        Just(0xB9u8),
        Just(0u8),
        any::<u8>()
    ];
    let digits = prop_oneof![
        "[0-9]{0,25}",
        "1844674407370955161[0-9]",
        "[2-9][0-9]{19}",
        "0{1,4}[0-9]{16}",
    ];
    let end = prop_oneof![Just(&b" "[..]), Just(&b"\n"[..]), Just(&b""[..])];
    let more = proptest::collection::vec(any::<u8>(), 0..30);
    (digits, edge.clone(), any::<usize>(), edge, end, more).prop_map(
        |(digits, inside, at, edge, end, more)| {
            let mut text = digits.into_bytes();
            // Now and then a byte inside the digits changed too.
            if !text.is_empty() && at % 4 == 0 {
                let at = at / 4 % text.len();
                text[at] = inside;
            }
            [&text, &[edge][..], end, &more].concat()
        },
    )
}

#[test]
fn both_ways_read_the_edges_of_the_range_alike() {
    for digits in [
        "18446744073709551615",
        "1234567890123456789:",
        "123456789012345678/",
        "18446744073709551616",
        "99999999999999999999",
        "10000000000000000000",
        "00000000000000000000",
        "1000000000000000",
        "9999999999999999",
        "0000000000000001",
        "12345678901234567",
        "123456789012345678",
        "1234567890123456789",
        "000000000000000000001",
        "00000000000000000000001",
    ] {
        for end in [b' ', b'\n'] {
            let text = [digits.as_bytes(), &[end], b"0123456789"].concat();
            let expected = parse_u64(digits.as_bytes()).ok().map(|v| (v, digits.len()));
            // An item of 1 to 20 digits; a line of 17 to 20.
            let n = digits.len();
            let line = (end == b'\n' && (17..=20).contains(&n)).then_some(expected).flatten();
            let item = (end == b' ' && n <= 20).then_some(expected).flatten();
            assert_eq!(leading_decimal(&text), item, "{digits}");
            assert_eq!(leading_decimal_by_words(&text), item, "{digits}");
            assert_eq!(long_decimal_line(&text), line, "{digits}");
            assert_eq!(long_decimal_line_by_words(&text), line, "{digits}");
        }
    }
}

/// The workspace builds for x86-64-v2 (`.cargo/config.toml`), so the vector way is the one
/// that ships and the one the tests above compare: a build whose RUSTFLAGS replaced the
/// workspace's would compare the word way with itself.
#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[allow(clippy::assertions_on_constants)] // the constant is the build's: that is the test
fn the_vector_way_is_built() {
    assert!(
        cfg!(target_feature = "sse4.1"),
        "built without SSE4.1: RUSTFLAGS replaced the workspace's -C target-cpu=x86-64-v2"
    );
}

proptest! {
    /// The vector way (where the build has it) and the way by words agree on any text,
    /// long enough for the vectors or not.
    #[test]
    fn both_ways_read_numbers_alike(text in number_then_text(), cut in 0usize..64) {
        let text = &text[..cut.min(text.len())];
        prop_assert_eq!(leading_decimal(text), leading_decimal_by_words(text));
        if text.len() >= 24 {
            prop_assert_eq!(long_decimal_line(text), long_decimal_line_by_words(text));
        }
    }

    #[test]
    fn the_fast_and_the_slow_path_agree(text in "[0-9a+-]{0,20}") {
        let slow = if text.starts_with(['+', '-']) {
            Err(NumberError::Signed)
        } else if text.is_empty() {
            Err(NumberError::Empty)
        } else {
            parse_decimal(text.as_bytes())
        };
        prop_assert_eq!(parse_u64(text.as_bytes()), slow);
    }

    #[test]
    fn push_u64_spells_like_std(value: u64, shift in 0u32..64) {
        for value in [value, value >> shift] {
            let mut text = b"x".to_vec();
            push_u64(&mut text, value);
            prop_assert_eq!(String::from_utf8_lossy(&text[1..]), value.to_string());
            // The words' way too, which builds without the vectors use.
            let mut words = b"x".to_vec();
            push_u64_by_words(&mut words, value);
            prop_assert_eq!(words, text);
        }
    }

    #[test]
    fn digit_strings_of_every_length_parse_like_std(text in "[0-9]{1,20}") {
        prop_assert_eq!(parse_u64(text.as_bytes()).ok(), text.parse::<u64>().ok());
    }

    #[test]
    fn one_bad_byte_anywhere_is_refused(text in "[0-9]{1,20}", at: usize, bad: u8) {
        prop_assume!(!bad.is_ascii_digit());
        let mut bytes = text.into_bytes();
        let at = at % bytes.len();
        bytes[at] = bad;
        let expected = match (at, bad) {
            (0, b'+' | b'-') => NumberError::Signed,
            _ => NumberError::NotAnInteger,
        };
        // "0x..." is hex: only a leading '0' then 'x' changes the meaning.
        prop_assume!(!(at == 1 && bytes[0] == b'0' && (bad == b'x' || bad == b'X')));
        prop_assert_eq!(parse_u64(&bytes), Err(expected));
    }

    #[test]
    fn leading_decimal_is_the_first_item_when_it_is_plain_decimal(
        text in "[0-9]{0,22}[ x:/]?[0-9 ]{0,4}"
    ) {
        let bytes = text.as_bytes();
        let item = &bytes[..bytes.iter().position(|&b| b == b' ').unwrap_or(bytes.len())];
        let plain = !item.is_empty() && item.len() <= 20 && item.iter().all(u8::is_ascii_digit);
        let expected = if plain {
            parse_u64(item).ok().map(|value| (value, item.len()))
        } else {
            None
        };
        prop_assert_eq!(leading_decimal(bytes), expected);
    }

    #[test]
    fn digit_run_counts_leading_digits(text in "[0-9]{0,30}[^0-9]?.{0,3}", at in 0usize..8) {
        let bytes = &text.as_bytes()[at.min(text.len())..];
        let expected = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        let got = digit_run(bytes);
        if expected <= 24 {
            prop_assert_eq!(got, expected);
        } else {
            prop_assert!(got >= 24);
        }
    }

    #[test]
    fn decimal_round_trips(value: u64) {
        let mut text = Vec::new();
        write_u64(&mut text, value).unwrap();
        prop_assert_eq!(parse_u64(&text), Ok(value));
        prop_assert_eq!(parse_u64(format!("{value:#x}").as_bytes()), Ok(value));
    }

    #[test]
    fn agrees_with_std_on_arbitrary_text(text in "[0-9a-fx+-]{0,24}") {
        let ours = parse_u64(text.as_bytes()).ok();
        let std = if let Some(hex) = text.strip_prefix("0x") {
            if hex.starts_with(['+', '-']) { None } else { u64::from_str_radix(hex, 16).ok() }
        } else if text.starts_with('+') {
            None
        } else {
            text.parse::<u64>().ok()
        };
        prop_assert_eq!(ours, std);
    }

    /// The quick line reader takes a line exactly when it is 17 to 20 digits, a `\n` and
    /// a value of 64 bits, and then reads the value parse_u64 reads; anything else on the
    /// line (a `\r`, junk, a byte changed anywhere, fewer or more digits) is left to it.
    #[test]
    fn long_decimal_lines_are_read_as_parse_u64_reads_them(
        digits in "[0-9]{14,23}",
        change in proptest::option::of((any::<usize>(), any::<u8>())),
        after in proptest::collection::vec(any::<u8>(), 24),
    ) {
        let mut line = digits.into_bytes();
        if let Some((at, byte)) = change {
            let at = at % line.len();
            line[at] = byte;
        }
        let mut text = line.clone();
        text.push(b'\n');
        text.extend_from_slice(&after);
        let expected = match line.iter().position(|&b| b == b'\n') {
            // The changed byte ended the line early: the line before it is what counts.
            Some(end) => {
                let short = &line[..end];
                let digits = short.iter().all(u8::is_ascii_digit);
                (digits && (17..=20).contains(&end))
                    .then(|| parse_u64(short).ok().map(|v| (v, end)))
                    .flatten()
            }
            None => {
                let digits = line.iter().all(u8::is_ascii_digit);
                (digits && (17..=20).contains(&line.len()))
                    .then(|| parse_u64(&line).ok().map(|v| (v, line.len())))
                    .flatten()
            }
        };
        prop_assert_eq!(long_decimal_line(&text), expected);
    }
}
