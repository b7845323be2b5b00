//! Rows of the matrix for the per-document stages: sh-tokenize, sh-shingle, sh-hash and
//! sh-compute.

use super::*;

fn hash(item: &[u8]) -> String {
    sh_hash::hash64(item, 0).to_string()
}

/// `{"a":{"a":…1…}}` nested `depth` deep.
fn deep_object(depth: usize) -> String {
    r#"{"a":"#.repeat(depth) + "1" + &"}".repeat(depth)
}

fn big_text() -> Vec<u8> {
    "Hello wOrld ".repeat(BIG / 12).into_bytes()
}

fn big_tokens() -> Vec<u8> {
    let mut tokens = "hello world ".repeat(BIG / 12).into_bytes();
    *tokens.last_mut().expect("not empty") = b'\n';
    tokens
}

pub(super) fn tokenize_rows() -> Vec<Row> {
    let t = "sh-tokenize";
    let json = ["--json"];
    let json_id = ["--json", "--id-field", "id"];
    let not_object = "expected a JSON object";
    vec![
        out(t, &[], "", ""),
        out(t, &[], "Hello World", "hello world\n"),
        out(t, &[], "A b\r\nC\r\n", "a b\nc\n"),
        out(t, &[], "x\r", "x\n"),
        out(t, &[], "\n\n", "\n\n"),
        out(t, &[], " \t \n   \n", "\n\n"),
        out(t, &[], "a\0b\0\n", "a b\n"),
        out(t, &[], b"a\xffb\xc3\n\xed\xa0\x80\n".to_vec(), "a b\n\n"),
        out(t, &["--mode", "ascii"], b"ab\xffcd\0e\n".to_vec(), "ab cd e\n"),
        out(t, &["--mode", "space"], b"A\0B\xffc\n".to_vec(), "a\0b c\n"),
        out(t, &["--mode", "chars"], b"a\xffB\n".to_vec(), "a b\n"),
        out(t, &["--with-id"], "d1\tHello\nno id here\n", "d1\thello\nno id here\n"),
        line_error(t, &["--with-id"], "d1\tHello\n\tEmpty Id\n", 2, EMPTY_ID, "\\tEmpty Id"),
        out(t, &["--with-id"], b"\0\xff\r x[\tA\r\n".to_vec(), b"\0\xff\r x[\ta\n".to_vec()),
        out(t, &["--with-id"], "d\t\n", "d\t\n"),
        // A byte-order mark at the start of a line is dropped; inside a line it is kept.
        out(t, &["--with-id"], "\u{feff}d1\tA\n\u{feff}d2\tB\n", "d1\ta\nd2\tb\n"),
        out(t, &["--mode", "chars"], "\u{feff}Ab\u{feff}\n", "a b \u{feff}\n"),
        out(t, &json_id, "\u{feff}{\"id\": 1, \"text\": \"X\"}", "1\tx\n"),
        line_error(t, &["--with-id"], "d\t\n\t\n", 2, EMPTY_ID, "\\t"),
        line_error(
            t,
            &json_id,
            "{\"id\": \"\", \"text\": \"x\"}",
            1,
            EMPTY_ID,
            "{\"id\": \"\", \"text\": \"x\"}",
        ),
        out(t, &json, "{\"text\": \"A b\"}\r\n\n  \n", "a b\n\n\n"),
        out(t, &json, b"{\"text\": \"a\xffb\"}\n".to_vec(), "a b\n"),
        out(t, &json, r#"{"text": "a\ud800b\u0000c"}"#, "a b c\n"),
        out(
            t,
            &json_id,
            "{\"id\": 7, \"text\": \"x\"}\n{\"id\": \"\\u00e9\\r\", \"text\": \"\"}",
            "7\tx\n\u{e9}\r\t\n",
        ),
        out(
            t,
            &json,
            format!(
                r#"{{"a": {}, "b": {}, "text": "deep"}}"#,
                deep_array(10_000),
                deep_object(10_000)
            ),
            "deep\n",
        ),
        line_error(t, &json, "5\n", 1, &format!("invalid type: integer `5`, {not_object}"), "5"),
        line_error(
            t,
            &json,
            "\"s\"\n",
            1,
            &format!("invalid type: string \"s\", {not_object}"),
            "\"s\"",
        ),
        line_error(
            t,
            &json,
            "{\"text\": \"a\"}\nnull\n",
            2,
            &format!("invalid type: null, {not_object}"),
            "null",
        ),
        line_error(
            t,
            &json,
            "[\"text\"]\n",
            1,
            &format!("invalid type: sequence, {not_object}"),
            "[\"text\"]",
        ),
        line_error(
            t,
            &json,
            deep_array(10_000),
            1,
            &format!("invalid type: sequence, {not_object}"),
            &cut(&deep_array(10_000)),
        ),
        line_error(
            t,
            &json,
            deep_object(10_000),
            1,
            "no field \"text\"",
            &cut(&deep_object(10_000)),
        ),
        line_error(
            t,
            &json,
            format!(r#"{{"text": {}}}"#, deep_object(10_000)),
            1,
            "field \"text\": invalid type: map, expected a string",
            &cut(&format!(r#"{{"text": {}}}"#, deep_object(10_000))),
        ),
        line_error(
            t,
            &json,
            "{\"text\": \"a\"}\n{\"text\": \"b\"}x\n",
            2,
            "invalid JSON: trailing characters at column 14",
            "{\"text\": \"b\"}x",
        ),
        line_error(
            t,
            &json,
            b"{\"text\": \"a\0".to_vec(),
            1,
            "invalid JSON: EOF while parsing a string at column 12",
            "{\"text\": \"a\\x00",
        ),
        line_error(
            t,
            &json,
            "{\"text\": 1}",
            1,
            "field \"text\": invalid type: integer `1`, expected a string",
            "{\"text\": 1}",
        ),
        line_error(
            t,
            &json,
            "{\"text\": \"a\", \"text\": \"b\"}",
            1,
            "field \"text\": given twice",
            "{\"text\": \"a\", \"text\": \"b\"}",
        ),
        line_error(
            t,
            &json_id,
            "{\"id\": \"a\\tb\", \"text\": \"x\"}",
            1,
            "an id cannot hold a TAB or line feed",
            "a\\tb",
        ),
        line_error(
            t,
            &json_id,
            "{\"id\": 1.5, \"text\": \"x\"}",
            1,
            "field \"id\": invalid type: floating point `1.5`, expected a string or an integer",
            "{\"id\": 1.5, \"text\": \"x\"}",
        ),
        big(t, &[], big_text, big_tokens),
        flag_error(t, &["--mode", "nope"], "sh-tokenize: error: invalid value 'nope'"),
        flag_error(t, &["--json", "--with-id"], "sh-tokenize: error: the argument"),
        flag_error(
            t,
            &["--json", "--id-field", "text"],
            "sh-tokenize: error: --id-field and --text-field must name different fields",
        ),
    ]
}

pub(super) fn shingle_rows() -> Vec<Row> {
    let s = "sh-shingle";
    let w2 = ["-w", "2"];
    vec![
        out(s, &w2, "", ""),
        out(s, &w2, "a b c", "a_b b_c\n"),
        out(s, &w2, "a b\r\nc\r\n", "a_b\nc\n"),
        out(s, &w2, "\n\n", "\n\n"),
        out(s, &w2, "   \n \t \n", "\n \t\n"),
        out(s, &w2, "a\0 b\0\n", "a\0_b\0\n"),
        out(s, &w2, b"\xff \xfe  \xc3\n".to_vec(), b"\xff_\xfe \xfe_\xc3\n".to_vec()),
        out(s, &w2, "d\ta b\nc d\n", "d\ta_b\nc_d\n"),
        out(s, &w2, b"\0\xff\r [\ta b\n \tc\n".to_vec(), b"\0\xff\r [\ta_b\n \tc\n".to_vec()),
        line_error(s, &w2, "d\ta b\n\tc d\n", 2, EMPTY_ID, "\\tc d"),
        big(s, &w2, || spaces_then("x y"), || b"x_y\n".to_vec()),
        flag_error(s, &["-w", "0"], "sh-shingle: error: invalid value '0'"),
        flag_error(s, &["-w", "-1"], "sh-shingle: error: unexpected argument '-1'"),
        flag_error(s, &["-w", "4294967296"], "sh-shingle: error: invalid value '4294967296'"),
    ]
}

pub(super) fn hash_rows() -> Vec<Row> {
    let h = "sh-hash";
    let weighted = ["--weighted"];
    let hello = hash(b"hello");
    vec![
        out(h, &[], "", ""),
        out(h, &[], "hello", format!("{hello}\n")),
        out(h, &[], "hello\r\na\r\n", format!("{hello}\n{}\n", hash(b"a"))),
        out(h, &[], "\n\n", "\n\n"),
        out(h, &[], "  \n \t \n", "\n \t\n"),
        out(h, &[], "a\0b\n", format!("{}\n", hash(b"a\0b"))),
        out(h, &[], b"\xff \xc3\n".to_vec(), format!("{} {}\n", hash(b"\xff"), hash(b"\xc3"))),
        out(h, &[], "d\thello\nhello\n", format!("d\t{hello}\n{hello}\n")),
        line_error(h, &[], "d\thello\n\thello\n", 2, EMPTY_ID, "\\thello"),
        out(h, &[], b"\0\xff\r [\thello\n".to_vec(), [&b"\0\xff\r [\t"[..], hello.as_bytes(), b"\n"].concat()),
        out(h, &weighted, "hello:-2.5 a:b:1e3", format!("{hello}:-2.5 {}:1e3\n", hash(b"a:b"))),
        line_error(h, &weighted, "a:1\nb:2 :0\n", 2, "weighted item has an empty ITEM", ":0"),
        line_error(h, &weighted, "a:1\nb:nan\n", 2, BAD_WEIGHT, "b:nan"),
        line_error(h, &weighted, "a:NaN", 1, BAD_WEIGHT, "a:NaN"),
        line_error(h, &weighted, "a:inf", 1, BAD_WEIGHT, "a:inf"),
        line_error(h, &weighted, "a:-inf", 1, BAD_WEIGHT, "a:-inf"),
        line_error(h, &weighted, "a:1e999", 1, BAD_WEIGHT, "a:1e999"),
        line_error(h, &weighted, "a:0x10", 1, BAD_WEIGHT, "a:0x10"),
        line_error(h, &weighted, "a:", 1, BAD_WEIGHT, "a:"),
        line_error(h, &weighted, "a", 1, "weighted item has no ':WEIGHT'", "a"),
        line_error(h, &weighted, "a:1\u{2009}", 1, BAD_WEIGHT, "a:1\\u{2009}"),
        out(h, &["--seed", "0x0"], "hello\n", format!("{hello}\n")),
        flag_error(h, &["--seed", "-1"], "sh-hash: error: unexpected argument '-1'"),
        flag_error(h, &["--seed", "+1"], "sh-hash: error: invalid value '+1' for '--seed <SEED>': signed number"),
        flag_error(h, &["--seed", "18446744073709551616"], "sh-hash: error: invalid value '18446744073709551616' for '--seed <SEED>': integer larger"),
        flag_error(h, &["--seed", "12a"], "sh-hash: error: invalid value '12a' for '--seed <SEED>': not an unsigned"),
        big(h, &[], || spaces_then("hello"), || format!("{}\n", hash(b"hello")).into_bytes()),
    ]
}

pub(super) fn compute_rows() -> Vec<Row> {
    let c = "sh-compute";
    vec![
        out(c, &[], "", ""),
        out(c, &[], "5", "5\n"),
        out(c, &[], "5\r\n6\r\n", "5\n6\n"),
        out(c, &[], "\n\n", "\n\n"),
        out(c, &[], "  \n \t \n", "\n \t\n"),
        out(c, &[], "0xff 0XFF 0xFf", "255\n"),
        out(c, &[], "18446744073709551615 0xffffffffffffffff", "18446744073709551615\n"),
        out(c, &[], "00000000000000000000000042", "42\n"),
        out(c, &[], "d\t5\n6\n", "d\t5\n6\n"),
        line_error(c, &[], "d\t5\n\t6\n", 2, EMPTY_ID, "\\t6"),
        out(c, &[], b"\0\xff\r [\t5\n".to_vec(), b"\0\xff\r [\t5\n".to_vec()),
        out(c, &[], "1:-1", "18446744073709551614\n"),
        out(c, &[], "1:0.1 1:0.2 0:0.3", "0\n"),
        out(c, &[], "1:1e308 1:1e308 0:1e308 0:1e308 0:1e308", "0\n"),
        line_error(c, &[], "5\0\n", 1, NOT_INTEGER, "5\\x00"),
        line_error(c, &[], b"5\n\xff\n".to_vec(), 2, NOT_INTEGER, "\\xFF"),
        line_error(c, &[], "-1", 1, SIGNED, "-1"),
        line_error(c, &[], "1\n+1\n", 2, SIGNED, "+1"),
        line_error(c, &[], "12a", 1, NOT_INTEGER, "12a"),
        line_error(c, &[], "1.5", 1, NOT_INTEGER, "1.5"),
        line_error(c, &[], "0x", 1, NOT_INTEGER, "0x"),
        line_error(c, &[], "0xg", 1, NOT_INTEGER, "0xg"),
        line_error(c, &[], "18446744073709551616", 1, TOO_LARGE, "18446744073709551616"),
        line_error(c, &[], "0x10000000000000000", 1, TOO_LARGE, "0x10000000000000000"),
        line_error(c, &[], "99999999999999999999999", 1, TOO_LARGE, "99999999999999999999999"),
        line_error(c, &[], "1:NaN", 1, BAD_WEIGHT, "1:NaN"),
        line_error(c, &[], "1:inf", 1, BAD_WEIGHT, "1:inf"),
        line_error(c, &[], "1:-inf", 1, BAD_WEIGHT, "1:-inf"),
        line_error(c, &[], "1:1e400", 1, BAD_WEIGHT, "1:1e400"),
        line_error(c, &[], "1:", 1, BAD_WEIGHT, "1:"),
        line_error(c, &[], "x:1", 1, NOT_INTEGER, "x:1"),
        line_error(c, &[], "-1:1", 1, SIGNED, "-1:1"),
        // Invisible and look-alike characters are shown escaped: a BOM, a zero-width space.
        line_error(c, &[], "\u{feff}5\n", 1, NOT_INTEGER, "\\u{FEFF}5"),
        line_error(c, &[], "5\u{200b}\n", 1, NOT_INTEGER, "5\\u{200B}"),
        big(c, &[], || spaces_then("7"), || b"7\n".to_vec()),
    ]
}
