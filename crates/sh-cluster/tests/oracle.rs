//! sh-cluster's output against a naive oracle: breadth-first search over the pair graph, with
//! the ordering rules written out the plain way.

use std::collections::{HashMap, VecDeque};

use proptest::prelude::*;
use sh_cluster::{cluster_lines, Style};

/// An id as the oracle sees it: a canonical decimal u64 or not, found the slow way.
fn is_canonical(id: &str) -> bool {
    id.parse::<u64>().is_ok_and(|value| value.to_string() == id)
}

/// Clusters in the order the contract promises, each the ids in order of first appearance.
fn oracle(pairs: &[(String, String)], min_size: usize) -> Vec<Vec<String>> {
    let mut first_seen: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    for (a, b) in pairs {
        let mut node = |id: &String| {
            *index.entry(id.clone()).or_insert_with(|| {
                first_seen.push(id.clone());
                edges.push(Vec::new());
                first_seen.len() - 1
            })
        };
        let (a, b) = (node(a), node(b));
        edges[a].push(b);
        edges[b].push(a);
    }
    let mut done = vec![false; first_seen.len()];
    let mut clusters = Vec::new();
    // Starting from each not-yet-seen node in order of first appearance gives the clusters in
    // order of their first member.
    for start in 0..first_seen.len() {
        if done[start] {
            continue;
        }
        let mut component = vec![start];
        let mut queue = VecDeque::from([start]);
        done[start] = true;
        while let Some(node) = queue.pop_front() {
            for &next in &edges[node] {
                if !done[next] {
                    done[next] = true;
                    component.push(next);
                    queue.push_back(next);
                }
            }
        }
        component.sort_unstable();
        if component.len() >= min_size {
            clusters.push(component.into_iter().map(|n| first_seen[n].clone()).collect());
        }
    }
    clusters
}

fn expected(clusters: &[Vec<String>], style: Style) -> String {
    let mut out = String::new();
    for (n, cluster) in clusters.iter().enumerate() {
        match style {
            Style::Tsv => out += &(cluster.join("\t") + "\n"),
            Style::Json => {
                let ids: Vec<String> = cluster
                    .iter()
                    .map(|id| {
                        if is_canonical(id) {
                            id.clone()
                        } else {
                            serde_json::to_string(id).unwrap()
                        }
                    })
                    .collect();
                out += &format!("[{}]\n", ids.join(", "));
            }
            Style::Labels => {
                for id in cluster {
                    out += &format!("{id}\t{}\n", n + 1);
                }
            }
            Style::Duplicates => {
                for id in &cluster[1..] {
                    out += &format!("{id}\n");
                }
            }
        }
    }
    out
}

/// Small pools of ids so that random pairs share ids: numbers, number-like text (`007`, `00`),
/// and text that JSON must escape.
fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..24).prop_map(|n| n.to_string()),
        Just(u64::MAX.to_string()),
        "[0ab\"\\\\é]{1,3}",
    ]
}

/// How a pair is written: TSV (perhaps with a distance), or a JSON array (perhaps with more
/// elements, ids as numbers where they can be).
fn write_pair(a: &str, b: &str, form: u8) -> String {
    let json = |id: &str, as_number: bool| {
        if as_number && is_canonical(id) {
            id.to_string()
        } else {
            serde_json::to_string(id).unwrap()
        }
    };
    match form % 5 {
        0 => format!("{a}\t{b}\n"),
        1 => format!("{a}\t{b}\t{}\r\n", form / 5),
        2 => format!("[{}, {}]\n", json(a, true), json(b, true)),
        3 => format!("[{},{},{}]\n", json(a, false), json(b, true), form),
        _ => format!("\n{a}\t{b}\n"),
    }
}

proptest! {
    #[test]
    fn matches_the_oracle(
        pairs in prop::collection::vec((id(), id(), any::<u8>()), 0..40),
        min_size in 1u32..4,
    ) {
        let input: String = pairs.iter().map(|(a, b, form)| write_pair(a, b, *form)).collect();
        let plain: Vec<(String, String)> =
            pairs.iter().map(|(a, b, _)| (a.clone(), b.clone())).collect();
        let clusters = oracle(&plain, min_size as usize);
        for style in [Style::Tsv, Style::Json, Style::Labels, Style::Duplicates] {
            let got = cluster_lines(input.as_bytes(), min_size, style).unwrap();
            prop_assert_eq!(String::from_utf8(got).unwrap(), expected(&clusters, style));
        }
    }

    #[test]
    fn never_panics_on_any_line(lines in prop::collection::vec(
        prop_oneof![
            "[\\[\\]\"\\\\0-9a-z,. \t\u{e9}-]{0,16}",
            prop::collection::vec(any::<u8>(), 0..16)
                .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        ],
        0..8,
    )) {
        let input = lines.join("\n");
        for style in [Style::Tsv, Style::Json] {
            let _ = cluster_lines(input.as_bytes(), 1, style);
        }
    }
}

#[test]
fn dense_and_sparse_numbers_mix() {
    // Line numbers grow past the direct array's first size, big numbers go to the hash table,
    // and later small numbers must still meet the ids they were paired with.
    let mut input = String::new();
    let mut pairs = Vec::new();
    for i in 0..30_000u64 {
        let (a, b) = match i % 3 {
            0 => (i, i + 1),
            1 => (i * 1_000_003, i / 2),
            _ => (u64::MAX - i, i * 7),
        };
        input += &format!("{a}\t{b}\n");
        pairs.push((a.to_string(), b.to_string()));
    }
    let got = cluster_lines(input.as_bytes(), 2, Style::Tsv).unwrap();
    assert_eq!(String::from_utf8(got).unwrap(), expected(&oracle(&pairs, 2), Style::Tsv));
}

#[test]
fn many_batches_of_mixed_ids() {
    // Enough pairs to fill many batches, with text ids, number-like text and numbers mixed.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut id = || match next() % 4 {
        0 => (next() % 5000).to_string(),
        1 => format!("doc{}", next() % 3000),
        2 => format!("0{}", next() % 500),
        _ => (next() % 64 * 0x0400_0000_0000_0000 + next() % 100).to_string(),
    };
    let pairs: Vec<(String, String)> = (0..6000).map(|_| (id(), id())).collect();
    let input: String = pairs.iter().map(|(a, b)| format!("{a}\t{b}\t0\n")).collect();
    for min_size in [1, 2, 5] {
        let clusters = oracle(&pairs, min_size as usize);
        for style in [Style::Tsv, Style::Json, Style::Labels, Style::Duplicates] {
            let got = cluster_lines(input.as_bytes(), min_size, style).unwrap();
            assert_eq!(String::from_utf8(got).unwrap(), expected(&clusters, style));
        }
    }
}
