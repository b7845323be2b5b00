//! The per-document stages as a pipeline: one output line per input line with ids kept, whatever
//! the bytes; fingerprints that are close for near-duplicates and far for unrelated documents;
//! and the behaviour at the output end of a pipe (a full disk, a reader that goes away).

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use crate::util::{command, join_lines, pipeline, run, Run};

// ---------------------------------------------------------------------------------------------
// Line structure survives arbitrary bytes.

/// Bytes that matter to the stages, drawn more often than the rest.
const INTERESTING: &[u8] = b"aZq09 _:.\t\r\0\xff\xfe\xc3\xa9\xe4\xb8\xad\x80\x1b";

fn text(tab_allowed: bool) -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![3 => select(INTERESTING), 1 => any::<u8>()]
        .prop_filter("a line holds no LF", move |&b| b != b'\n' && (tab_allowed || b != b'\t'));
    vec(byte, 0..40)
}

/// A line without its ending: `ID<TAB>PAYLOAD` (the payload may hold more TABs) or, with no TAB
/// at all, a line without an id.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (
            text(false)
                .prop_map(|id| id.into_iter().take(8).collect::<Vec<u8>>())
                .prop_filter("an id is never empty", |id| !id.is_empty()),
            text(true)
        )
            .prop_map(|(id, payload)| [id, b"\t".to_vec(), payload].concat()),
        text(false),
    ]
}

fn input_lines(count: std::ops::Range<usize>) -> impl Strategy<Value = Vec<u8>> {
    (vec((line(), any::<bool>()), count), any::<bool>())
        .prop_map(|(lines, final_newline)| join_lines(lines, final_newline))
}

/// The records a reader sees, by the contract: LF-terminated lines without the LF and one CR
/// before it, then a last line without LF if it is not empty.
fn records(input: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let last = lines.pop().expect("split gives at least one piece");
    let mut records: Vec<&[u8]> =
        lines.into_iter().map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect();
    if !last.is_empty() {
        records.push(last);
    }
    records
}

/// The LF-terminated lines of a command's output; a missing final LF is an error.
fn output_lines(output: &[u8]) -> Result<Vec<&[u8]>, TestCaseError> {
    let Some(body) = output.strip_suffix(b"\n") else {
        prop_assert!(output.is_empty(), "output does not end in LF: {:?}", output.escape_ascii());
        return Ok(Vec::new());
    };
    Ok(body.split(|&b| b == b'\n').collect())
}

fn split_id(record: &[u8]) -> (Option<&[u8]>, &[u8]) {
    match record.iter().position(|&b| b == b'\t') {
        Some(tab) => (Some(&record[..tab]), &record[tab + 1..]),
        None => (None, record),
    }
}

fn items(payload: &[u8]) -> impl Iterator<Item = &[u8]> {
    payload.split(|&b| b == b' ').filter(|item| !item.is_empty())
}

/// An input record and the payload of its output line.
type RecordAndOutput<'a> = (&'a [u8], &'a [u8]);

/// Runs a stage and checks the line structure: one output line per input record, each starting
/// with the record's `ID<TAB>` when `ids` is set; returns (record, output payload) pairs.
/// Nothing on stderr but sh-tokenize's note of input that starts with a UTF-16 or UTF-32 mark
/// (random bytes may).
fn lines_and_ids<'a>(
    out: &'a Run,
    input: &'a [u8],
    ids: bool,
) -> Result<Vec<RecordAndOutput<'a>>, TestCaseError> {
    prop_assert_eq!(out.code, Some(0), "{}", out.stderr);
    let marked = sh_core::record::unicode_mark(input).is_some();
    let noted = out.stderr.starts_with("sh-tokenize: note: line 1 starts with ")
        && out.stderr.ends_with(" -t UTF-8)\n")
        && out.stderr.lines().count() == 1;
    prop_assert!(out.stderr.is_empty() || (marked && noted), "stderr: {}", out.stderr);
    let records = records(input);
    let lines = output_lines(&out.stdout)?;
    prop_assert_eq!(lines.len(), records.len(), "{:?}", out.stdout.escape_ascii().to_string());
    let mut pairs = Vec::new();
    for (record, line) in records.into_iter().zip(lines) {
        let payload = match split_id(record) {
            (Some(id), _) if ids => {
                let prefix = [id, b"\t"].concat();
                prop_assert!(
                    line.starts_with(&prefix),
                    "id {:?} lost in {:?}",
                    id.escape_ascii().to_string(),
                    line.escape_ascii().to_string()
                );
                &line[prefix.len()..]
            }
            (None, _) if ids => {
                prop_assert!(!line.contains(&b'\t'), "an id appeared: {:?}", line);
                line
            }
            _ => line,
        };
        pairs.push((record, payload));
    }
    Ok(pairs)
}

/// Items separated by single spaces, none leading or trailing, as every stage writes them.
fn assert_single_spaced(payload: &[u8]) -> Result<(), TestCaseError> {
    let shown = payload.escape_ascii().to_string();
    prop_assert!(!payload.starts_with(b" ") && !payload.ends_with(b" "), "{}", shown);
    prop_assert!(!payload.windows(2).any(|w| w == b"  "), "{}", shown);
    Ok(())
}

/// `--mode ascii`: maximal runs of ASCII letters, lowercased.
fn ascii_tokens(text: &[u8]) -> Vec<u8> {
    let tokens: Vec<Vec<u8>> = text
        .split(|b| !b.is_ascii_alphabetic())
        .filter(|token| !token.is_empty())
        .map(|token| token.to_ascii_lowercase())
        .collect();
    tokens.join(&b' ')
}

fn shingles(payload: &[u8], window: usize) -> Vec<u8> {
    let tokens: Vec<&[u8]> = items(payload).collect();
    if tokens.is_empty() {
        return Vec::new();
    }
    let shingles: Vec<Vec<u8>> =
        tokens.windows(window.min(tokens.len())).map(|run| run.join(&b'_')).collect();
    shingles.join(&b' ')
}

/// The Unicode modes: one line per record, ids kept, tokens single-spaced and TAB-free.
fn check_tokenize(input: &[u8], args: &[&str]) -> Result<(), TestCaseError> {
    let out = run("sh-tokenize", args, input);
    let with_id = args.contains(&"--with-id");
    for (_, payload) in lines_and_ids(&out, input, with_id)? {
        prop_assert!(!payload.contains(&b'\t'), "{args:?}: a TAB in {:?}", payload);
        assert_single_spaced(payload)?;
    }
    Ok(())
}

/// `--mode ascii`, checked token for token.
fn check_tokenize_ascii(input: &[u8]) -> Result<(), TestCaseError> {
    for args in [&["-m", "ascii"][..], &["-m", "ascii", "--with-id"]] {
        let out = run("sh-tokenize", args, input);
        let with_id = args.contains(&"--with-id");
        for (record, payload) in lines_and_ids(&out, input, with_id)? {
            let text = if with_id { split_id(record).1 } else { record };
            prop_assert_eq!(payload, &ascii_tokens(text)[..], "{:?}", args);
        }
    }
    Ok(())
}

fn check_shingle(input: &[u8]) -> Result<(), TestCaseError> {
    let out = run("sh-shingle", &["-w", "3"], input);
    for (record, payload) in lines_and_ids(&out, input, true)? {
        prop_assert_eq!(payload, &shingles(split_id(record).1, 3)[..]);
    }
    Ok(())
}

fn check_hash(input: &[u8]) -> Result<(), TestCaseError> {
    let out = run("sh-hash", &[], input);
    for (record, payload) in lines_and_ids(&out, input, true)? {
        assert_single_spaced(payload)?;
        let hashes: Vec<&[u8]> = items(payload).collect();
        prop_assert_eq!(hashes.len(), items(split_id(record).1).count());
        for hash in hashes {
            let decimal = std::str::from_utf8(hash).ok().and_then(|h| h.parse::<u64>().ok());
            prop_assert!(decimal.is_some(), "not a hash: {:?}", hash);
        }
    }
    Ok(())
}

/// The simhash definition, bit by bit.
fn simhash(hashes: &[u64]) -> Option<u64> {
    if hashes.is_empty() {
        return None;
    }
    let mut fingerprint = 0;
    for bit in 0..64 {
        let ones = hashes.iter().filter(|&&h| h >> bit & 1 == 1).count();
        if 2 * ones > hashes.len() {
            fingerprint |= 1 << bit;
        }
    }
    Some(fingerprint)
}

/// A line of hashes: an optional id, hashes in decimal or hex separated by one or two spaces.
fn hash_line() -> impl Strategy<Value = (Option<Vec<u8>>, Vec<u64>, Vec<u8>)> {
    let id = proptest::option::of(vec(
        any::<u8>().prop_filter("no TAB, no LF", |&b| b != b'\t' && b != b'\n'),
        1..6,
    ));
    let number = (any::<u64>(), any::<bool>(), any::<bool>());
    (id, vec(number, 0..20)).prop_map(|(id, numbers)| {
        let mut line = id.clone().map(|id| [id, b"\t".to_vec()].concat()).unwrap_or_default();
        for (n, (value, hex, wide)) in numbers.iter().enumerate() {
            if n > 0 {
                line.extend_from_slice(if *wide { b"  " } else { b" " });
            }
            let text = if *hex { format!("{value:#x}") } else { value.to_string() };
            line.extend_from_slice(text.as_bytes());
        }
        (id, numbers.into_iter().map(|(value, _, _)| value).collect(), line)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn text_stages_keep_lines_and_ids_whatever_the_bytes(input in input_lines(0..12)) {
        check_tokenize_ascii(&input)?;
        check_shingle(&input)?;
        check_hash(&input)?;
    }

    #[test]
    fn compute_keeps_lines_and_ids_and_follows_the_definition(
        lines in vec((hash_line(), any::<bool>()), 0..12),
        final_newline in any::<bool>(),
    ) {
        let mut lines = lines;
        // An empty last line without LF is no line at all, and once it is gone the line
        // before it is the last one, without LF too.
        while !final_newline && lines.last().is_some_and(|((_, _, line), _)| line.is_empty()) {
            lines.pop();
        }
        let mut expected = Vec::new();
        let mut text_lines = Vec::new();
        for ((id, hashes, line), crlf) in lines {
            if let Some(id) = id {
                expected.extend(id);
                expected.push(b'\t');
            }
            if let Some(fingerprint) = simhash(&hashes) {
                expected.extend(fingerprint.to_string().into_bytes());
            }
            expected.push(b'\n');
            text_lines.push((line, crlf));
        }
        let input = join_lines(text_lines, final_newline);
        let out = run("sh-compute", &[], input.clone());
        lines_and_ids(&out, &input, true)?;
        prop_assert_eq!(out.stdout.escape_ascii().to_string(), expected.escape_ascii().to_string());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Fewer, longer inputs: in a debug build sh-tokenize takes about 0.2 s to start on
    /// non-ASCII text (it builds its Unicode table), so each run here pays for many lines.
    #[test]
    fn tokenize_keeps_lines_and_ids_in_every_unicode_mode(
        input in input_lines(0..48),
        args in select(vec![&[][..], &["-m", "chars"], &["--with-id"], &["-m", "space"]]),
    ) {
        check_tokenize(&input, args)?;
    }
}

// ---------------------------------------------------------------------------------------------
// End to end: near-duplicates against unrelated documents.

const WORDS: [&str; 200] = [
    "the", "of", "and", "to", "in", "is", "was", "that", "for", "on", "with", "as", "by", "at",
    "from", "his", "her", "they", "this", "which", "river", "mountain", "city", "village",
    "harbor", "market", "bridge", "tower", "garden", "forest", "winter", "summer", "autumn",
    "spring", "morning", "evening", "night", "storm", "rain", "snow", "wind", "cloud", "sun",
    "moon", "star", "ship", "train", "road", "street", "house", "window", "door", "table", "chair",
    "letter", "book", "paper", "pen", "song", "voice", "story", "history", "science", "music",
    "painting", "theater", "engine", "machine", "factory", "worker", "farmer", "doctor", "teacher",
    "student", "soldier", "king", "queen", "merchant", "sailor", "captain", "child", "mother",
    "father", "brother", "sister", "friend", "stranger", "neighbor", "council", "law", "court",
    "church", "school", "library", "museum", "hospital", "prison", "station", "island", "coast",
    "valley", "desert", "lake", "sea", "ocean", "field", "meadow", "hill", "stone", "iron", "gold",
    "silver", "copper", "glass", "wood", "cloth", "bread", "wine", "salt", "sugar", "coffee",
    "tea", "horse", "dog", "cat", "bird", "fish", "wolf", "bear", "apple", "orange", "lemon",
    "olive", "wheat", "corn", "rice", "built", "found", "lost", "carried", "opened", "closed",
    "crossed", "followed", "watched", "heard", "wrote", "read", "sold", "bought", "painted",
    "sang", "walked", "ran", "slept", "woke", "waited", "returned", "left", "arrived", "quiet",
    "loud", "bright", "dark", "old", "new", "young", "ancient", "small", "large", "narrow", "wide",
    "cold", "warm", "early", "late", "slowly", "quickly", "again", "never", "always", "often",
    "under", "over", "between", "behind", "beyond", "near", "across", "through", "without",
    "before", "after", "during", "because", "although", "while", "until", "beneath", "along",
];

/// A deterministic stream of words (a 64-bit linear congruential generator).
fn words(seed: u64, count: usize) -> Vec<&'static str> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            WORDS[(state >> 33) as usize % WORDS.len()]
        })
        .collect()
}

/// Word lists as texts: capitalised sentences of twelve words.
fn text_of(words: &[&str]) -> String {
    let sentences: Vec<String> = words
        .chunks(12)
        .map(|sentence| {
            let joined = sentence.join(" ");
            let mut chars = joined.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase()).into_iter();
            format!("{}.", first.chain(chars).collect::<String>())
        })
        .collect();
    sentences.join(" ")
}

const STAGES: [(&str, &[&str]); 4] = [
    ("sh-tokenize", &["--with-id"]),
    ("sh-shingle", &["-w", "4"]),
    ("sh-hash", &[]),
    ("sh-compute", &[]),
];

/// The documents of the end-to-end tests: a pair that differs by one word, the first of them
/// again, and eight unrelated documents.
fn corpus() -> Vec<(String, String)> {
    let original = words(1, 300);
    let mut edited = original.clone();
    edited[150] = WORDS.iter().find(|&&w| w != original[150]).expect("another word");
    let mut documents = vec![
        ("near-a".to_string(), text_of(&original)),
        ("near-b".to_string(), text_of(&edited)),
        ("near-a-again".to_string(), text_of(&original)),
    ];
    for seed in 0..8 {
        documents.push((format!("doc-{seed}"), text_of(&words(100 + seed, 300))));
    }
    documents
}

/// Runs the four stages over `ID<TAB>TEXT` lines; checks the ids come back in order.
fn fingerprints(documents: &[(String, String)]) -> Vec<u64> {
    let input: String = documents.iter().map(|(id, text)| format!("{id}\t{text}\n")).collect();
    let out = pipeline(&STAGES, input);
    let lines: Vec<&str> = out.success().lines().collect();
    assert_eq!(lines.len(), documents.len());
    lines
        .iter()
        .zip(documents)
        .map(|(line, (id, _))| {
            let (line_id, fingerprint) = line.split_once('\t').expect("ID<TAB>FINGERPRINT");
            assert_eq!(line_id, id, "ids stay aligned");
            fingerprint.parse().expect("a fingerprint")
        })
        .collect()
}

fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

#[test]
fn one_changed_word_moves_few_bits_and_unrelated_documents_about_half() {
    let documents = corpus();
    let prints = fingerprints(&documents);
    let near = distance(prints[0], prints[1]);
    eprintln!("one word changed out of 300: {near} bits apart");
    assert!(near <= 10, "near-duplicates are {near} bits apart");
    assert_eq!(prints[0], prints[2], "the same document gives the same fingerprint");

    let unrelated: Vec<u64> = [prints[0]].into_iter().chain(prints[3..].iter().copied()).collect();
    let mut distances = Vec::new();
    for (i, &a) in unrelated.iter().enumerate() {
        for &b in &unrelated[i + 1..] {
            distances.push(distance(a, b));
        }
    }
    let mean = f64::from(distances.iter().sum::<u32>()) / distances.len() as f64;
    eprintln!("unrelated documents: {mean:.1} bits apart on average, {distances:?}");
    assert!((24.0..=40.0).contains(&mean), "unrelated documents average {mean} bits apart");
    assert!(distances.iter().all(|&d| d > 10), "an unrelated pair is close: {distances:?}");
}

#[test]
fn fingerprints_without_ids_line_up_with_the_input_lines() {
    let documents = corpus();
    let with_ids = fingerprints(&documents);
    let input: String = documents.iter().map(|(_, text)| format!("{text}\n")).collect();
    let mut stages = STAGES;
    stages[0] = ("sh-tokenize", &[]);
    let out = pipeline(&stages, input);
    let expected: String = with_ids.iter().map(|print| format!("{print}\n")).collect();
    assert_eq!(out.success(), expected, "line i is the fingerprint of document i");
}

#[test]
fn sh_pairs_finds_the_near_duplicate_pair_and_nothing_else() {
    let mut documents = corpus();
    documents.remove(2); // the exact copy would pair with near-a too
    let prints = fingerprints(&documents);
    let near = distance(prints[0], prints[1]);
    let records: String =
        documents.iter().zip(&prints).map(|((id, _), print)| format!("{id}\t{print}\n")).collect();
    let k = near.to_string();
    let out = run("sh-pairs", &["-k", &k], records.clone());
    assert_eq!(out.success(), format!("near-a\tnear-b\t{near}\n"));
    if near > 0 {
        let k = (near - 1).to_string();
        assert_eq!(run("sh-pairs", &["-k", &k], records).success(), "", "one bit too strict");
    }
}

// ---------------------------------------------------------------------------------------------
// The output end of the pipe.

/// Each per-document stage (and sh-fingerprint, all four at once) with an input it accepts and
/// the first line it prints for it.
const PER_DOCUMENT: [(&str, &str, &str); 5] = [
    ("sh-tokenize", "Hello, World!\n", "hello world"),
    ("sh-shingle", "a b c d e\n", "a_b b_c c_d d_e"),
    ("sh-hash", "hello a\n", "3804341492420753273 6401452390262130604"),
    ("sh-compute", "0xffffffffffffffff 1\n", "1"),
    ("sh-fingerprint", "Hello, World!\n", "7423247871364183214"),
];

/// Feeds `input` to `child`'s stdin from a thread; the child may stop reading early.
fn feed(child: &mut std::process::Child, input: Vec<u8>) -> std::thread::JoinHandle<()> {
    let mut stdin = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    })
}

fn read_all(mut from: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = Vec::new();
        from.read_to_end(&mut text).expect("read");
        String::from_utf8_lossy(&text).into_owned()
    })
}

#[test]
fn a_full_disk_is_an_error_that_names_the_write() {
    for (name, line, _) in PER_DOCUMENT {
        let full = OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let mut child = command(name, &[])
            .stdin(Stdio::piped())
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let feeder = feed(&mut child, line.repeat(1000).into_bytes());
        let stderr = read_all(child.stderr.take().expect("stderr"));
        let status = child.wait().expect("wait");
        feeder.join().expect("feeder");
        let stderr = stderr.join().expect("stderr reader");
        assert_eq!(status.code(), Some(1), "{name}: {stderr}");
        let prefix = format!("{name}: error: error writing output: ");
        assert!(stderr.starts_with(&prefix), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_stage_quietly() {
    for (name, line, first) in PER_DOCUMENT {
        let mut child = command(name, &[])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let feeder = feed(&mut child, line.repeat(200_000).into_bytes());
        let stderr = read_all(child.stderr.take().expect("stderr"));
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut got = String::new();
        stdout.read_line(&mut got).expect("first line");
        drop(stdout); // `| head -n 1`
        let status = child.wait().expect("wait");
        feeder.join().expect("feeder");
        let stderr = stderr.join().expect("stderr reader");
        assert_eq!(got, format!("{first}\n"), "{name}");
        assert_eq!(status.code(), Some(0), "{name}: {stderr}");
        assert_eq!(stderr, "", "{name}");
    }
}

/// Every stage grows the pipes it reads and writes to 1 MB: with the kernel's 64 KB, four
/// stages on two cores spent their time switching (BENCHMARKS.md).
#[cfg(target_os = "linux")]
#[test]
fn stages_grow_their_pipes() {
    use nix::fcntl::{fcntl, FcntlArg};
    let limit = std::fs::read_to_string("/proc/sys/fs/pipe-max-size").unwrap_or_default();
    if limit.trim().parse::<u32>().map_or(true, |max| max < 1 << 20) {
        eprintln!("skipped: pipe-max-size below 1 MB ({})", limit.trim());
        return;
    }
    for name in crate::util::STREAMING_COMMANDS {
        // The input pipe is the test's own, so that a read end outlives the command.
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("pipe");
        let probe = read.try_clone().expect("dup");
        let mut child = command(name, &[])
            .stdin(Stdio::from(read))
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdout = child.stdout.take().expect("stdout");
        let mut writer = std::fs::File::from(write);
        // One line for a stage, a pair for sh-cluster, two equal fingerprints for sh-pairs.
        let input: &[u8] = if name == "sh-pairs" { b"5\n5\n" } else { b"1\t2\n" };
        writer.write_all(input).expect("write");
        drop(writer);
        let mut output = Vec::new();
        stdout.read_to_end(&mut output).expect("read");
        assert!(child.wait().expect("wait").success(), "{name}");
        assert!(!output.is_empty(), "{name}");
        let input_size = fcntl(&probe, FcntlArg::F_GETPIPE_SZ).expect("F_GETPIPE_SZ");
        let output_size = fcntl(&stdout, FcntlArg::F_GETPIPE_SZ).expect("F_GETPIPE_SZ");
        assert_eq!((input_size, output_size), (1 << 20, 1 << 20), "{name}");
    }
}
