//! The tests of `map_lines_in_order`: order, errors, and files read in blocks.

use std::sync::atomic::{AtomicBool, Ordering};

use super::*;

/// The output of `input` through `map_lines_in_order` with a document function that
/// writes `LINE:TEXT` and fails on a line that says "bad".
fn run(input: &[u8], threads: usize, chunk_bytes: usize) -> (Vec<u8>, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out");
    let mut reader = RecordReader::new(input.to_vec().leak() as &[u8], "test".into());
    let spread = Spread { threads, chunk_bytes };
    let result = map_lines_in_order(
        &mut reader,
        || Output::create(&path),
        Progress::new(true, "documents"),
        spread,
        || {
            |line: u64, text: &[u8], out: &mut Vec<u8>| {
                if text == b"bad" {
                    return Err(Error::input(line, "bad line", text));
                }
                out.extend_from_slice(format!("{line}:").as_bytes());
                out.extend_from_slice(text);
                out.push(b'\n');
                Ok(())
            }
        },
    );
    match result {
        Ok(()) => (std::fs::read(&path).unwrap(), None),
        // A failed run leaves no output file: what it wrote is gone with its temporary file.
        Err(e) => (std::fs::read(&path).unwrap_or_default(), Some(e.to_string())),
    }
}

/// The output of `input`, written to a file and read from it (in blocks, with more than
/// one thread), through a document function that copies each line and fails on one that
/// says "bad"; the line numbers handed to it are only for its errors.
fn run_file(input: &[u8], threads: usize, chunk_bytes: usize) -> (Vec<u8>, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let (source, path) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::write(&source, input).unwrap();
    let mut reader = RecordReader::open(&source).unwrap();
    let result = map_lines_in_order(
        &mut reader,
        || Output::create(&path),
        Progress::new(true, "documents"),
        Spread { threads, chunk_bytes },
        || {
            |line: u64, text: &[u8], out: &mut Vec<u8>| {
                if text == b"bad" {
                    return Err(Error::input(line, "bad line", text));
                }
                out.extend_from_slice(text);
                out.push(b'\n');
                Ok(())
            }
        },
    );
    match result {
        Ok(()) => (std::fs::read(&path).unwrap(), None),
        Err(e) => (std::fs::read(&path).unwrap_or_default(), Some(e.to_string())),
    }
}

/// A file read in blocks of every size gives its lines once each, in order, as a stream
/// read line by line does: lines longer than a block (which leave blocks with no line of
/// their own), empty lines, CRLF, a last line without LF (its CR kept), an empty file.
#[test]
fn a_file_in_blocks_gives_every_line_once_in_order() {
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for i in 0..400usize {
        let line = "y".repeat([0, 1, 5, 37, 300][i % 5] + i % 3);
        input.extend_from_slice(line.as_bytes());
        input.extend_from_slice(if i % 7 == 3 { b"\r\n" } else { b"\n" });
        expected.extend_from_slice(line.as_bytes());
        expected.push(b'\n');
    }
    input.extend_from_slice(b"last\r");
    expected.extend_from_slice(b"last\r\n");
    for threads in [1, 2, 3, 8] {
        for chunk_bytes in [1, 2, 40, 299, 1000, 1 << 20] {
            let (out, error) = run_file(&input, threads, chunk_bytes);
            assert_eq!(error, None);
            assert!(out == expected, "{threads} threads, blocks of {chunk_bytes} bytes");
        }
    }
    assert_eq!(run_file(b"", 3, 10), (Vec::new(), None));
    assert_eq!(run_file(b"\n\n", 2, 1), (b"\n\n".to_vec(), None));
}

/// An error in a file read in blocks names its line in the whole file, whatever block it is
/// in, and is the first in input order.
#[test]
fn an_error_in_a_block_names_its_line_in_the_file() {
    for bad in [0, 1, 119, 120, 299] {
        let mut lines: Vec<String> = (0..300).map(|i| "z".repeat(i % 23)).collect();
        lines[bad] = "bad".into();
        if bad + 50 < 300 {
            lines[bad + 50] = "bad".into();
        }
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let expected = format!("line {}: bad line: 'bad'", bad + 1);
        for threads in [2, 4] {
            for chunk_bytes in [1, 7, 100, 1 << 20] {
                let (out, error) = run_file(input.as_bytes(), threads, chunk_bytes);
                assert_eq!(error.as_deref(), Some(expected.as_str()), "{threads} {chunk_bytes}");
                assert!(out.is_empty(), "the output file is replaced only on success");
            }
        }
    }
}

fn numbered(lines: &[&str]) -> Vec<u8> {
    lines.iter().enumerate().flat_map(|(n, l)| format!("{}:{l}\n", n + 1).into_bytes()).collect()
}

/// An input that must not be read: an output that cannot be made is told before any
/// reading, as a pipe kept open would hold the reader (and so the error) until it ended.
#[test]
fn an_output_that_cannot_be_made_is_told_before_any_reading() {
    struct Unread;
    impl std::io::Read for Unread {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            panic!("the input was read before the output was open");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let nowhere = dir.path().join("no-such-directory").join("out");
    for threads in [1, 2, 3] {
        let mut reader = RecordReader::new(Unread, "test".into());
        let result = map_lines_in_order(
            &mut reader,
            || Output::create(&nowhere),
            Progress::new(true, "documents"),
            Spread { threads, chunk_bytes: 10 },
            || |_: u64, _: &[u8], _: &mut Vec<u8>| Ok(()),
        );
        let error = result.expect_err("no output").to_string();
        assert!(error.starts_with("cannot create output"), "{threads} threads: {error}");
    }
}

#[test]
fn every_line_in_input_order_whatever_the_threads_and_chunks() {
    let lines: Vec<String> = (0..500).map(|i| "x".repeat(i % 37)).collect();
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let expected = numbered(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    for threads in [1, 2, 3, 8] {
        for chunk_bytes in [1, 2, 40, 1000, 1 << 20] {
            let (out, error) = run(input.as_bytes(), threads, chunk_bytes);
            assert_eq!(error, None);
            assert!(out == expected, "{threads} threads, chunks of {chunk_bytes} bytes");
        }
    }
    assert_eq!(run(b"", 3, 10), (Vec::new(), None));
    assert_eq!(run(b"a\r\nb", 2, 1), (numbered(&["a", "b"]), None));
}

#[test]
fn the_first_error_in_input_order_wins_and_no_output_file_is_left() {
    let mut lines: Vec<&str> = vec!["ok"; 300];
    lines[120] = "bad";
    lines[250] = "bad";
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    for threads in [1, 2, 4] {
        for chunk_bytes in [1, 7, 100] {
            let (out, error) = run(input.as_bytes(), threads, chunk_bytes);
            assert_eq!(error.as_deref(), Some("line 121: bad line: 'bad'"));
            assert!(out.is_empty(), "the output file is replaced only on success");
        }
    }
}

/// A file that grows while it is read, its last line without LF when the run begins: the lines
/// are those of the file before or after the growth, never a line split or lost.
#[test]
fn a_file_that_grows_while_read_loses_no_line() {
    for chunk_bytes in [1, 3, 10, 64] {
        let dir = tempfile::tempdir().unwrap();
        let (source, path) = (dir.path().join("in"), dir.path().join("out"));
        let head: String = (0..40).map(|i| format!("line{i}\n")).collect();
        std::fs::write(&source, format!("{head}last-line-without-lf")).unwrap();
        let mut reader = RecordReader::open(&source).unwrap();
        let grown = AtomicBool::new(false);
        let result = map_lines_in_order(
            &mut reader,
            || Output::create(&path),
            Progress::new(true, "documents"),
            Spread { threads: 2, chunk_bytes },
            || {
                |_: u64, text: &[u8], out: &mut Vec<u8>| {
                    // Once the last line is taken: in blocks, before the blocks after it are read.
                    if text.starts_with(b"last") && !grown.swap(true, Ordering::SeqCst) {
                        let mut file =
                            std::fs::OpenOptions::new().append(true).open(&source).unwrap();
                        std::io::Write::write_all(&mut file, b"0000\nadded\n").unwrap();
                    }
                    out.extend_from_slice(text);
                    out.push(b'\n');
                    Ok(())
                }
            },
        );
        result.unwrap();
        let out = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
        let before = format!("{head}last-line-without-lf\n");
        let after = format!("{head}last-line-without-lf0000\nadded\n");
        assert!(out == before || out == after, "blocks of {chunk_bytes} bytes: {out:?}");
    }
}
