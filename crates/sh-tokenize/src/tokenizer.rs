//! Text to tokens. The tokenizer appends to a caller's buffer so that a whole output line is
//! built in one reused `Vec` and written with one call: nothing is allocated per line or token.
//!
//! Bytes below 0x80 are classified and lowercased through a per-mode table. Other characters are
//! decoded and looked up in a table of their Unicode properties (`tokenizer/properties.rs`),
//! built from the Unicode crates the first time it is needed: the crates' own lookups (general
//! category, then script) and `to_lowercase` cost far more than the rest of the work per
//! character.

use bstr::decode_utf8;

use crate::runs::Runs;

mod properties;

use properties::{properties, CHANGED_BY_LOWERCASE, DIGIT, KANJI_OR_KANA, LETTER, MARK, SPACE};

/// How text is cut into tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Mode {
    /// Runs of letters, digits and combining marks; each Han, Hiragana or Katakana character is
    /// a token of its own
    Words,
    /// Like words, but digits separate tokens
    Alpha,
    /// Runs of the ASCII letters A-Z and a-z; every other byte separates tokens
    Ascii,
    /// Runs of anything but whitespace
    Space,
    /// Every character but whitespace, with the combining marks that follow it
    Chars,
}

/// What a character does to the token around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Ends any token and is dropped.
    Sep,
    /// Continues a run token, or starts one.
    Run,
    /// A token by itself (a Han or Kana character; any character in chars mode).
    Single,
    /// A combining mark: stays with whatever token it follows.
    Mark,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Between,
    InRun,
    InSingle,
}

/// A tokenizer for one mode and case rule.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    mode: Mode,
    lowercase: bool,
    ascii: [AsciiByte; 128],
    runs: Runs,
}

/// What an ASCII byte does, and what it becomes in a token.
#[derive(Debug, Clone, Copy)]
struct AsciiByte {
    class: Class,
    output: u8,
}

impl Tokenizer {
    pub fn new(mode: Mode, keep_case: bool) -> Tokenizer {
        let ascii = std::array::from_fn(|b| {
            let byte = b as u8;
            let output = if keep_case { byte } else { byte.to_ascii_lowercase() };
            AsciiByte { class: ascii_class(mode, byte), output }
        });
        let runs = Runs::new(|byte| ascii_class(mode, byte) == Class::Run, !keep_case);
        Tokenizer { mode, lowercase: !keep_case, ascii, runs }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Appends the tokens of `text` to `out`, separated by single spaces, with no space before
    /// the first or after the last. Any bytes are accepted; what is appended is valid UTF-8 and
    /// no token holds a space, TAB, CR or LF.
    pub fn tokenize(&self, text: &[u8], out: &mut Vec<u8>) {
        self.tokenize_into(text, &mut Spaced { start: out.len() }, out);
    }

    /// Appends the tokens of `text` to `out` as [`Tokenizer::tokenize`] does, but separated by
    /// `separator`, and hands each token to `each` once it is complete: `out` as it is then,
    /// and where in it the token lies. (sh-fingerprint joins tokens by `_`, as shingles join
    /// them, and learns where they are without looking for them.)
    pub fn tokenize_each(
        &self,
        text: &[u8],
        separator: u8,
        out: &mut Vec<u8>,
        each: impl FnMut(&[u8], std::ops::Range<usize>),
    ) {
        let mut told = Told { separator, token: out.len(), start: out.len(), each };
        self.tokenize_into(text, &mut told, out);
        told.close(out);
    }

    fn tokenize_into(&self, text: &[u8], tokens: &mut impl Tokens, out: &mut Vec<u8>) {
        if self.mode == Mode::Ascii {
            self.tokenize_ascii(text, tokens, out);
        } else {
            self.tokenize_unicode(text, tokens, out);
        }
    }

    fn tokenize_ascii(&self, text: &[u8], tokens: &mut impl Tokens, out: &mut Vec<u8>) {
        out.reserve(text.len());
        let mut i = 0;
        while let Some(&byte) = text.get(i) {
            if self.continues_run(byte) {
                tokens.open(out);
                i += self.take_run(&text[i..], out);
            } else {
                i += 1;
            }
        }
    }

    #[inline]
    fn continues_run(&self, byte: u8) -> bool {
        matches!(self.ascii.get(usize::from(byte)), Some(AsciiByte { class: Class::Run, .. }))
    }

    /// Appends the run of ASCII token bytes at the start of `text`, case-mapped: sixteen bytes
    /// at a time where it can ([`Runs::take`]), the rest byte by byte. Returns its length.
    #[inline]
    fn take_run(&self, text: &[u8], out: &mut Vec<u8>) -> usize {
        let taken = self.runs.take(text, out);
        let rest = self.ascii_run(&text[taken..]);
        self.push_run(&text[taken..taken + rest], out);
        taken + rest
    }

    /// How many bytes at the start of `text` are ASCII bytes that continue a token run.
    #[inline]
    fn ascii_run(&self, text: &[u8]) -> usize {
        text.iter().take_while(|&&b| self.continues_run(b)).count()
    }

    /// Appends a run of ASCII token bytes, case-mapped, in one pass without per-byte growth.
    #[inline]
    fn push_run(&self, run: &[u8], out: &mut Vec<u8>) {
        out.extend(run.iter().map(|&b| self.ascii[usize::from(b)].output));
    }

    fn tokenize_unicode(&self, text: &[u8], tokens: &mut impl Tokens, out: &mut Vec<u8>) {
        out.reserve(text.len());
        // A mark with no token before it opens a token: in words and alpha mode letters may
        // follow it in the same run; in chars mode it stands alone.
        let after_lone_mark = if self.mode == Mode::Chars { State::InSingle } else { State::InRun };
        let mut state = State::Between;
        let mut i = 0;
        while i < text.len() {
            if let Some(&AsciiByte { class, output }) = self.ascii.get(usize::from(text[i])) {
                match class {
                    Class::Run => {
                        if state != State::InRun {
                            tokens.open(out);
                            state = State::InRun;
                        }
                        i += self.take_run(&text[i..], out);
                        continue;
                    }
                    Class::Single => {
                        tokens.open(out);
                        out.push(output);
                        state = State::InSingle;
                    }
                    Class::Sep | Class::Mark => state = State::Between,
                }
                i += 1;
                continue;
            }
            let (decoded, len) = decode_utf8(&text[i..]);
            let len = len.max(1);
            let bytes = &text[i..i + len];
            i += len;
            let Some(ch) = decoded else {
                state = State::Between;
                continue;
            };
            let properties = properties(ch);
            match (self.classify(properties), state) {
                (Class::Sep, _) => state = State::Between,
                (Class::Run, State::InRun) | (Class::Mark, State::InRun | State::InSingle) => {
                    self.extend_char(ch, properties, bytes, out);
                }
                (Class::Run, _) => {
                    tokens.open(out);
                    self.extend_char(ch, properties, bytes, out);
                    state = State::InRun;
                }
                (Class::Single, _) => {
                    tokens.open(out);
                    self.extend_char(ch, properties, bytes, out);
                    state = State::InSingle;
                }
                (Class::Mark, State::Between) => {
                    tokens.open(out);
                    self.extend_char(ch, properties, bytes, out);
                    state = after_lone_mark;
                }
            }
        }
    }

    fn classify(&self, properties: u8) -> Class {
        let has = |property| properties & property != 0;
        match self.mode {
            Mode::Space if has(SPACE) => Class::Sep,
            Mode::Space => Class::Run,
            Mode::Chars if has(SPACE) => Class::Sep,
            Mode::Chars if has(MARK) => Class::Mark,
            Mode::Chars => Class::Single,
            Mode::Words | Mode::Alpha if has(KANJI_OR_KANA) => Class::Single,
            Mode::Words | Mode::Alpha if has(LETTER) => Class::Run,
            Mode::Words | Mode::Alpha if has(MARK) => Class::Mark,
            Mode::Words if has(DIGIT) => Class::Run,
            Mode::Words | Mode::Alpha | Mode::Ascii => Class::Sep,
        }
    }

    /// Appends one decoded character; `bytes` is its UTF-8 encoding in the input.
    fn extend_char(&self, ch: char, properties: u8, bytes: &[u8], out: &mut Vec<u8>) {
        if self.lowercase && properties & CHANGED_BY_LOWERCASE != 0 {
            let mut buf = [0; 4];
            for lower in ch.to_lowercase() {
                out.extend_from_slice(lower.encode_utf8(&mut buf).as_bytes());
            }
        } else {
            out.extend_from_slice(bytes);
        }
    }
}

/// What is done where a token starts.
trait Tokens {
    /// A token starts at the end of `out`.
    fn open(&mut self, out: &mut Vec<u8>);
}

/// Tokens separated by spaces; `start` is where this text's tokens began in `out`.
struct Spaced {
    start: usize,
}

impl Tokens for Spaced {
    #[inline]
    fn open(&mut self, out: &mut Vec<u8>) {
        if out.len() > self.start {
            out.push(b' ');
        }
    }
}

/// Tokens separated by `separator`, each told to `each` when the next one opens or the text
/// ends; `token` is where the last one opened began.
struct Told<F> {
    separator: u8,
    start: usize,
    token: usize,
    each: F,
}

impl<F: FnMut(&[u8], std::ops::Range<usize>)> Told<F> {
    /// Tells the last token, if there is one.
    fn close(&mut self, out: &[u8]) {
        if out.len() > self.token {
            (self.each)(out, self.token..out.len());
        }
    }
}

impl<F: FnMut(&[u8], std::ops::Range<usize>)> Tokens for Told<F> {
    #[inline]
    fn open(&mut self, out: &mut Vec<u8>) {
        if out.len() > self.start {
            self.close(out);
            out.push(self.separator);
        }
        self.token = out.len();
    }
}

fn ascii_class(mode: Mode, byte: u8) -> Class {
    let letter = byte.is_ascii_alphabetic();
    let digit = byte.is_ascii_digit();
    // `char::is_whitespace` on ASCII, which unlike `u8::is_ascii_whitespace` includes VT (0x0B);
    // a test checks the two agree.
    let space = matches!(byte, b'\t'..=b'\r' | b' ');
    let class = match mode {
        Mode::Words => letter || digit,
        Mode::Alpha | Mode::Ascii => letter,
        Mode::Space => !space,
        Mode::Chars if space => false,
        Mode::Chars => return Class::Single,
    };
    if class {
        Class::Run
    } else {
        Class::Sep
    }
}

#[cfg(test)]
mod tests {
    use super::properties::{is_letter, is_mark};
    use super::*;
    use proptest::prelude::*;
    use unicode_general_category::{get_general_category, GeneralCategory};

    const ALL_MODES: [Mode; 5] = [Mode::Words, Mode::Alpha, Mode::Ascii, Mode::Space, Mode::Chars];

    fn tokens(mode: Mode, keep_case: bool, text: impl AsRef<[u8]>) -> String {
        let mut out = Vec::new();
        Tokenizer::new(mode, keep_case).tokenize(text.as_ref(), &mut out);
        String::from_utf8(out).expect("tokens are UTF-8")
    }

    fn words(text: impl AsRef<[u8]>) -> String {
        tokens(Mode::Words, false, text)
    }

    #[test]
    fn words_ascii() {
        assert_eq!(words("The quick, brown fox!"), "the quick brown fox");
        assert_eq!(words("  leading and trailing  "), "leading and trailing");
        assert_eq!(words(""), "");
        assert_eq!(words(" .,;!? "), "");
        assert_eq!(words("snake_case kebab-case don't"), "snake case kebab case don t");
        assert_eq!(tokens(Mode::Words, true, "Keep THE Case"), "Keep THE Case");
    }

    #[test]
    fn words_latin_greek_cyrillic() {
        assert_eq!(words("ÉCOLE Straße"), "école straße");
        assert_eq!(words("Ærøskøbing, Łódź"), "ærøskøbing łódź");
        assert_eq!(words("Καλημέρα ΚΌΣΜΕ"), "καλημέρα κόσμε");
        // Lowercasing is per character, so a final capital sigma becomes σ, not ς.
        assert_eq!(words("ΟΔΟΣ"), "οδοσ");
        assert_eq!(words("Привет, МИР!"), "привет мир");
        assert_eq!(words("İstanbul"), "i\u{307}stanbul");
    }

    #[test]
    fn words_cjk_characters_are_tokens_but_hangul_words_are_not() {
        assert_eq!(words("我爱北京天安门。"), "我 爱 北 京 天 安 门");
        assert_eq!(words("東京タワーへ行った"), "東 京 タ ワ ー へ 行 っ た");
        assert_eq!(words("ラーメンRamen2杯"), "ラ ー メ ン ramen2 杯");
        assert_eq!(words("ﾗｰﾒﾝ"), "ﾗ ｰ ﾒ ﾝ");
        assert_eq!(words("안녕하세요, 세계!"), "안녕하세요 세계");
        assert_eq!(words("한국어ABC"), "한국어abc");
    }

    #[test]
    fn combining_marks_stay_with_what_they_follow() {
        assert_eq!(words("CAFE\u{301} au lait"), "cafe\u{301} au lait");
        assert_eq!(words("か\u{3099}ぎ"), "か\u{3099} ぎ");
        assert_eq!(words("漢\u{301}a"), "漢\u{301} a");
        assert_eq!(words("x \u{301}y"), "x \u{301}y");
        assert_eq!(words("नमस्ते दुनिया"), "नमस्ते दुनिया");
    }

    #[test]
    fn digits_are_word_characters_but_not_alpha_ones() {
        assert_eq!(words("R2D2 route66 ٣٤ 2024"), "r2d2 route66 ٣٤ 2024");
        assert_eq!(tokens(Mode::Alpha, false, "R2D2 route66 ٣٤ 2024"), "r d route");
        assert_eq!(tokens(Mode::Alpha, false, "東京2タワー"), "東 京 タ ワ ー");
        assert_eq!(tokens(Mode::Alpha, false, "É1\u{301}x"), "é \u{301}x");
    }

    #[test]
    fn invalid_utf8_nul_cr_and_tabs_separate() {
        assert_eq!(words(b"ab\xffcd"), "ab cd");
        assert_eq!(words(b"ab\xe6\x97cd"), "ab cd");
        assert_eq!(words(b"\xed\xa0\x80x\xc0\xaf"), "x");
        assert_eq!(words(b"a\0b\rc\td\x0be"), "a b c d e");
        assert_eq!(tokens(Mode::Space, false, b"A\0B\rc\td\xffe\xc3"), "a\0b c d e");
        assert_eq!(tokens(Mode::Chars, false, b"a\xffB"), "a b");
    }

    #[test]
    fn ascii_mode_is_the_seed_tokenizer() {
        let seed = "what's new?How5is _ the ^# stuff";
        assert_eq!(tokens(Mode::Ascii, true, seed), "what s new How is the stuff");
        assert_eq!(tokens(Mode::Ascii, false, seed), "what s new how is the stuff");
        assert_eq!(tokens(Mode::Ascii, false, "École naïve Straße"), "cole na ve stra e");
        assert_eq!(tokens(Mode::Ascii, false, b"ab\xffcd\0e"), "ab cd e");
    }

    #[test]
    fn space_mode_splits_on_unicode_whitespace_only() {
        assert_eq!(
            tokens(Mode::Space, false, "Don't STOP\u{a0}me\u{3000}now!"),
            "don't stop me now!"
        );
        assert_eq!(tokens(Mode::Space, true, " a\t\tB \u{2028}c_d "), "a B c_d");
        assert_eq!(tokens(Mode::Space, false, "我爱北京"), "我爱北京");
    }

    #[test]
    fn chars_mode_gives_every_character_with_its_marks() {
        assert_eq!(tokens(Mode::Chars, false, "Ab c!"), "a b c !");
        assert_eq!(tokens(Mode::Chars, false, "CAFE\u{301}"), "c a f e\u{301}");
        assert_eq!(tokens(Mode::Chars, false, "\u{301}\u{302}x"), "\u{301}\u{302} x");
        assert_eq!(tokens(Mode::Chars, false, "東京 タワー"), "東 京 タ ワ ー");
        assert_eq!(tokens(Mode::Chars, true, "İ"), "İ");
        assert_eq!(tokens(Mode::Chars, false, "İ"), "i\u{307}");
    }

    #[test]
    fn tokens_are_appended_after_what_the_buffer_holds() {
        let mut out = b"id\t".to_vec();
        Tokenizer::new(Mode::Words, false).tokenize(b"A b", &mut out);
        assert_eq!(out, b"id\ta b");
        let mut out = b"id\t".to_vec();
        Tokenizer::new(Mode::Ascii, false).tokenize(b"A b", &mut out);
        assert_eq!(out, b"id\ta b");
    }

    #[test]
    fn ascii_table_agrees_with_char_properties() {
        for byte in 0..0x80u8 {
            let ch = char::from(byte);
            let space = ascii_class(Mode::Space, byte) == Class::Sep;
            assert_eq!(space, ch.is_whitespace(), "{byte:#x}");
            let word = ascii_class(Mode::Words, byte) == Class::Run;
            let category = get_general_category(ch);
            assert_eq!(word, is_letter(category) || category == GeneralCategory::DecimalNumber);
            assert!(!is_mark(category));
        }
    }

    #[test]
    fn every_character_retokenizes_to_itself() {
        // Ascii mode never decodes; keeping the case only changes what is copied, not how.
        let tokenizers = [Mode::Words, Mode::Alpha, Mode::Space, Mode::Chars]
            .map(|mode| Tokenizer::new(mode, false));
        let (mut text, mut once, mut twice) = (String::new(), Vec::new(), Vec::new());
        // Unassigned and private-use characters are all alike to every mode, and so are the
        // ideographs of planes 2 and 3; plane 14 has variation selectors, which are marks.
        let characters = ('\0'..='\u{1FFFF}').chain('\u{E0000}'..='\u{E0FFF}').filter(|&ch| {
            let category = get_general_category(ch);
            category != GeneralCategory::Unassigned && category != GeneralCategory::PrivateUse
        });
        for ch in characters {
            // Alone, and after a Han character, which marks attach to but letters do not.
            for before in ["", "漢"] {
                text.clear();
                text.push_str(before);
                text.push(ch);
                for tokenizer in &tokenizers {
                    once.clear();
                    tokenizer.tokenize(text.as_bytes(), &mut once);
                    twice.clear();
                    tokenizer.tokenize(&once, &mut twice);
                    assert_eq!(once, twice, "{:?} on {text:?}", tokenizer.mode());
                }
            }
        }
    }

    fn arbitrary_text() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..64),
            any::<String>().prop_map(String::into_bytes),
            // Text that is mostly tokens, with marks after letters, Han and Kana.
            "[a-zA-Z0-9 .\u{300}-\u{36f}\u{3040}-\u{30ff}\u{4e00}-\u{4e2f}ÉİΣ가각\t\r\u{ff}-]{0,40}"
                .prop_map(String::into_bytes),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn output_is_utf8_tokens_without_separators(text in arbitrary_text()) {
            for mode in ALL_MODES {
                for keep_case in [false, true] {
                    let mut out = Vec::new();
                    Tokenizer::new(mode, keep_case).tokenize(&text, &mut out);
                    let out = std::str::from_utf8(&out);
                    prop_assert!(out.is_ok(), "{mode:?}: not UTF-8");
                    let out = out.unwrap_or_default();
                    let spaces_between = !out.starts_with(' ') && !out.ends_with(' ');
                    prop_assert!(spaces_between && !out.contains("  "), "{mode:?}: {out:?}");
                    prop_assert!(!out.contains(['\t', '\n', '\r']), "{mode:?}: {out:?}");
                }
            }
        }

        #[test]
        fn tokens_told_one_by_one_are_the_tokens(text in arbitrary_text()) {
            for mode in ALL_MODES {
                let tokenizer = Tokenizer::new(mode, false);
                let mut spaced = b"id\t".to_vec();
                tokenizer.tokenize(&text, &mut spaced);
                let mut joined = b"id\t".to_vec();
                let mut told = Vec::new();
                tokenizer.tokenize_each(&text, b'_', &mut joined, |so_far, token| {
                    told.push(so_far[token].to_vec());
                });
                // Tokens hold no space: the spaces between them are what became `_`.
                let expected: Vec<u8> =
                    spaced.iter().map(|&b| if b == b' ' { b'_' } else { b }).collect();
                prop_assert_eq!(&joined, &expected, "{:?}", mode);
                let tokens: Vec<Vec<u8>> = spaced[3..]
                    .split(|&b| b == b' ')
                    .filter(|t| !t.is_empty())
                    .map(<[u8]>::to_vec)
                    .collect();
                prop_assert_eq!(told, tokens, "{:?}", mode);
            }
        }

        /// Long runs (past the sixteen bytes that are looked up at once, ending anywhere,
        /// the line's end too) as simple references cut them: in ascii mode any text, in words
        /// and space mode ASCII text.
        #[test]
        fn long_runs_are_cut_as_a_byte_loop_cuts_them(
            segments in prop::collection::vec(
                ("[A-Za-z0-9]{0,70}", prop::sample::select(vec![" ", ".", "\t", "_", "\x0b", "é", "\u{3000}"])),
                0..6),
            last_run in "[A-Za-z0-9]{0,40}",
            keep_case: bool,
        ) {
            let mut text = String::new();
            for (run, separator) in &segments {
                text.push_str(run);
                text.push_str(separator);
            }
            text.push_str(&last_run);
            let reference = |text: &str, is_run: fn(u8) -> bool| -> String {
                let tokens: Vec<String> = text
                    .as_bytes()
                    .split(|&b| !is_run(b))
                    .filter(|t| !t.is_empty())
                    .map(|t| String::from_utf8_lossy(t).into_owned())
                    .map(|t| if keep_case { t } else { t.to_ascii_lowercase() })
                    .collect();
                tokens.join(" ")
            };
            prop_assert_eq!(tokens(Mode::Ascii, keep_case, &text),
                            reference(&text, |b| b.is_ascii_alphabetic()));
            if text.is_ascii() {
                prop_assert_eq!(tokens(Mode::Words, keep_case, &text),
                                reference(&text, |b| b.is_ascii_alphanumeric()));
                prop_assert_eq!(tokens(Mode::Space, keep_case, &text),
                                reference(&text, |b| !matches!(b, b'\t'..=b'\r' | b' ')));
            }
        }

        #[test]
        fn tokenizing_tokens_changes_nothing(text in arbitrary_text()) {
            for mode in ALL_MODES {
                for keep_case in [false, true] {
                    let tokenizer = Tokenizer::new(mode, keep_case);
                    let mut once = Vec::new();
                    tokenizer.tokenize(&text, &mut once);
                    let mut twice = Vec::new();
                    tokenizer.tokenize(&once, &mut twice);
                    prop_assert_eq!(
                        String::from_utf8_lossy(&once),
                        String::from_utf8_lossy(&twice),
                        "{:?} keep_case={}", mode, keep_case
                    );
                }
            }
        }
    }
}
