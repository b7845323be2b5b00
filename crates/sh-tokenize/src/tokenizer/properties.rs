//! The Unicode properties of a character that the tokenizer's modes look at, as bits of one
//! byte: from a table for the Basic Multilingual Plane, built from the Unicode crates the first
//! time it is needed, and computed for the rest.

use std::sync::OnceLock;

use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_script::{Script, UnicodeScript};

// The properties, a bit each.
pub(super) const LETTER: u8 = 1;
pub(super) const DIGIT: u8 = 1 << 1;
pub(super) const MARK: u8 = 1 << 2;
pub(super) const KANJI_OR_KANA: u8 = 1 << 3;
pub(super) const SPACE: u8 = 1 << 4;
pub(super) const CHANGED_BY_LOWERCASE: u8 = 1 << 5;

/// The properties of a character: from a table for the Basic Multilingual Plane, which holds
/// nearly all text, and computed for the rest.
#[inline]
pub(super) fn properties(ch: char) -> u8 {
    static BMP: OnceLock<Box<[u8]>> = OnceLock::new();
    let bmp = BMP.get_or_init(|| {
        (0..=0xFFFF).map(|code| char::from_u32(code).map_or(0, compute_properties)).collect()
    });
    match bmp.get(ch as usize) {
        Some(&properties) => properties,
        None => compute_properties(ch),
    }
}

fn compute_properties(ch: char) -> u8 {
    let category = get_general_category(ch);
    let mut properties = 0;
    if is_letter(category) {
        properties |= LETTER;
        if in_kanji_or_kana_script(ch) {
            properties |= KANJI_OR_KANA;
        }
    }
    if category == GeneralCategory::DecimalNumber {
        properties |= DIGIT;
    }
    if is_mark(category) {
        properties |= MARK;
    }
    if ch.is_whitespace() {
        properties |= SPACE;
    }
    let mut lower = ch.to_lowercase();
    if !(lower.next() == Some(ch) && lower.next().is_none()) {
        properties |= CHANGED_BY_LOWERCASE;
    }
    properties
}

pub(super) fn is_letter(category: GeneralCategory) -> bool {
    use GeneralCategory::*;
    matches!(
        category,
        UppercaseLetter | LowercaseLetter | TitlecaseLetter | ModifierLetter | OtherLetter
    )
}

pub(super) fn is_mark(category: GeneralCategory) -> bool {
    use GeneralCategory::*;
    matches!(category, NonspacingMark | SpacingMark | EnclosingMark)
}

/// Script_Extensions rather than Script, so that the prolonged sound mark ー (Common by Script)
/// counts as Kana.
fn in_kanji_or_kana_script(ch: char) -> bool {
    let scripts = ch.script_extension();
    // Common and Inherited contain every script as far as `contains_script` is concerned.
    !scripts.is_common()
        && !scripts.is_inherited()
        && (scripts.contains_script(Script::Han)
            || scripts.contains_script(Script::Hiragana)
            || scripts.contains_script(Script::Katakana))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kanji_and_kana_by_script_extensions() {
        for ch in ['漢', '々', 'か', 'カ', 'ー', 'ｱ', 'ｰ', '\u{20000}'] {
            assert!(properties(ch) & KANJI_OR_KANA != 0, "{ch}");
        }
        for ch in ['한', 'ʰ', 'a', '・', '\u{3099}', '〇', 'ㄅ'] {
            assert!(properties(ch) & KANJI_OR_KANA == 0, "{ch}");
        }
    }

    #[test]
    fn properties_in_the_table_and_outside_it() {
        assert_eq!(properties('A'), LETTER | CHANGED_BY_LOWERCASE);
        assert_eq!(properties('ǅ'), LETTER | CHANGED_BY_LOWERCASE);
        assert_eq!(properties('Ⅻ'), CHANGED_BY_LOWERCASE);
        assert_eq!(properties('\u{3000}'), SPACE);
        assert_eq!(properties('\u{301}'), MARK);
        assert_eq!(properties('٣'), DIGIT);
        assert_eq!(properties('𐐀'), LETTER | CHANGED_BY_LOWERCASE);
        assert_eq!(properties('𝟘'), DIGIT);
        assert_eq!(properties('😀'), 0);
    }
}
