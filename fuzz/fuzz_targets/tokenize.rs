//! The tokenizer on arbitrary bytes, in every mode, with and without --keep-case.
//!
//! First byte: the mode (low bits) and --keep-case (high bit); the rest is the text. Checks:
//! the output is valid UTF-8, single-spaced tokens with no TAB, CR or LF; it is appended after
//! what the buffer held; tokenizing the tokens again changes nothing; and in the modes simple
//! enough to restate (ascii, space) it equals an independent reference.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sh_tokenize::{Mode, Tokenizer};

const MODES: [Mode; 5] = [Mode::Words, Mode::Alpha, Mode::Ascii, Mode::Space, Mode::Chars];

/// Runs of ASCII letters; every other byte separates.
fn ascii_reference(text: &[u8], keep_case: bool) -> Vec<u8> {
    let tokens: Vec<Vec<u8>> = text
        .split(|b| !b.is_ascii_alphabetic())
        .filter(|t| !t.is_empty())
        .map(|t| if keep_case { t.to_vec() } else { t.to_ascii_lowercase() })
        .collect();
    tokens.join(&b' ')
}

/// Runs of characters that are not White_Space; invalid UTF-8 separates too.
fn space_reference(text: &[u8], keep_case: bool) -> Vec<u8> {
    let mut tokens: Vec<String> = Vec::new();
    let mut current = String::new();
    let end = |current: &mut String, tokens: &mut Vec<String>| {
        if !current.is_empty() {
            tokens.push(std::mem::take(current));
        }
    };
    for chunk in text.utf8_chunks() {
        for ch in chunk.valid().chars() {
            if ch.is_whitespace() {
                end(&mut current, &mut tokens);
            } else if keep_case {
                current.push(ch);
            } else {
                current.extend(ch.to_lowercase());
            }
        }
        if !chunk.invalid().is_empty() {
            end(&mut current, &mut tokens);
        }
    }
    end(&mut current, &mut tokens);
    tokens.join(" ").into_bytes()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let mode = MODES[usize::from(selector & 0x7f) % MODES.len()];
    let keep_case = selector & 0x80 != 0;
    let tokenizer = Tokenizer::new(mode, keep_case);

    let mut line = b"id\t".to_vec();
    tokenizer.tokenize(text, &mut line);
    assert!(line.starts_with(b"id\t"), "what the buffer held is kept");
    let tokens = &line[3..];
    let shown = std::str::from_utf8(tokens).expect("tokens are valid UTF-8");
    assert!(!shown.starts_with(' ') && !shown.ends_with(' '), "{mode:?}: {shown:?}");
    assert!(!shown.contains("  "), "{mode:?}: {shown:?}");
    assert!(!shown.contains(['\t', '\n', '\r']), "{mode:?}: {shown:?}");

    let mut twice = Vec::new();
    tokenizer.tokenize(tokens, &mut twice);
    assert_eq!(
        String::from_utf8_lossy(tokens),
        String::from_utf8_lossy(&twice),
        "{mode:?} keep_case={keep_case}: tokenizing tokens changes them"
    );

    let reference = match mode {
        Mode::Ascii => Some(ascii_reference(text, keep_case)),
        Mode::Space => Some(space_reference(text, keep_case)),
        _ => None,
    };
    if let Some(reference) = reference {
        assert_eq!(
            String::from_utf8_lossy(tokens),
            String::from_utf8_lossy(&reference),
            "{mode:?} keep_case={keep_case}"
        );
    }
});
