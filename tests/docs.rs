//! The documents a new user reads first tell the truth: every command is in the README and the
//! overview page, with the right count, and the demo's expected results are what the demo gives.

use std::path::Path;

use sh_tools::TOOLS;

use crate::util::{pipeline, run};

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const COUNTS: [&str; 12] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
];

#[test]
fn readme_and_overview_name_every_command_and_count_them_right() {
    let right = COUNTS[TOOLS.len() - 1];
    for file in ["README.md", "man/sh-tools.7"] {
        let text = read(file);
        let lower = text.to_lowercase();
        for wrong in COUNTS.iter().filter(|&&word| word != right) {
            for phrase in [" commands", " small commands", " thin"] {
                let said = format!("{wrong}{phrase}");
                assert!(!lower.contains(&said), "{file} says \"{said}\"; there are {right}");
            }
        }
        for tool in TOOLS {
            let named = match file {
                "README.md" => format!("| `{}` |", tool.name),
                _ => format!("{}(1)", tool.name),
            };
            assert!(text.contains(&named), "{file} does not name {} ({named})", tool.name);
        }
    }
}

/// The groups of examples/demo/expected-groups.md's table: the ids, and the distances of their
/// pairs in order (first-second, first-third, second-third).
fn documented_groups() -> Vec<(Vec<String>, Vec<u32>)> {
    let text = read("examples/demo/expected-groups.md");
    let rows = text.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| #"));
    rows.map(|row| {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let ids = cells[2].split(", ").map(|id| id.trim_matches('`').to_string()).collect();
        let distances = cells[4]
            .split(", ")
            .map(|d| d.split(' ').next().unwrap().parse().expect("a distance"))
            .collect();
        (ids, distances)
    })
    .collect()
}

#[test]
fn the_demo_gives_the_documented_distances_and_pair_count() {
    let docs = read("examples/demo/docs.jsonl");
    let fingerprints = pipeline(
        &[
            ("sh-tokenize", &["--json", "--id-field", "id"]),
            ("sh-shingle", &[]),
            ("sh-hash", &[]),
            ("sh-compute", &[]),
        ],
        docs,
    );
    let fingerprints: std::collections::HashMap<String, u64> = fingerprints
        .success()
        .lines()
        .map(|line| {
            let (id, fp) = line.split_once('\t').expect("ID<TAB>FINGERPRINT");
            (id.to_string(), fp.parse().expect("a fingerprint"))
        })
        .collect();
    let distance = |a: &str, b: &str| (fingerprints[a] ^ fingerprints[b]).count_ones();
    let groups = documented_groups();
    assert_eq!(groups.len(), 11, "the table's groups");
    for (ids, documented) in groups {
        let mut measured = Vec::new();
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                measured.push(distance(a, b));
            }
        }
        assert_eq!(measured, documented, "{ids:?}");
    }
    let text = read("examples/demo/expected-groups.md");
    let said: usize = text
        .split("there are ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("\"there are N pairs\"");
    let pairs = pipeline(
        &[
            ("sh-tokenize", &["--json", "--id-field", "id"]),
            ("sh-shingle", &[]),
            ("sh-hash", &[]),
            ("sh-compute", &[]),
            ("sh-pairs", &[]),
        ],
        read("examples/demo/docs.jsonl"),
    );
    assert_eq!(pairs.success().lines().count(), said, "pairs at the defaults");
}

#[test]
fn the_demo_s_index_step_gives_the_documented_answers() {
    let fingerprints = pipeline(
        &[
            ("sh-tokenize", &["--json", "--id-field", "id"]),
            ("sh-shingle", &[]),
            ("sh-hash", &[]),
            ("sh-compute", &[]),
        ],
        read("examples/demo/docs.jsonl"),
    );
    let lines: Vec<&str> = fingerprints.success().lines().collect();
    let joined = |part: &[&str]| part.iter().map(|l| format!("{l}\n")).collect::<String>();
    let (indexed, queries) = (joined(&lines[..30]), joined(&lines[30..]));
    // As run.sh does it: 20 records, then 10 more as a second segment.
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let index = index.to_str().unwrap();
    run("sh-index", &["build", "-q", "-o", index], joined(&lines[..20])).success();
    run("sh-index", &["add", "-q", index], joined(&lines[20..30])).success();
    let answers = run("sh-index", &["query", index], queries.clone());
    let corpus = dir.path().join("indexed.tsv");
    std::fs::write(&corpus, indexed).unwrap();
    let against = run("sh-pairs", &["--against", corpus.to_str().unwrap()], queries);
    assert_eq!(answers.success(), against.success(), "sh-index query and sh-pairs --against");
    let text = read("examples/demo/expected-groups.md");
    let said: usize = text
        .split("asks about the other 23: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("\"asks about the other 23: N answers\"");
    assert_eq!(answers.success().lines().count(), said, "the index step's answers");
}
