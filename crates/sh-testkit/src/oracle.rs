//! sh-pairs the slow way: every pair of records compared, O(n^2). Records are named by their
//! 1-based line numbers, as sh-pairs names records without ids, and pairs are written as it
//! writes them: `A<TAB>B<TAB>DISTANCE`, sorted by A, then B. 64-bit fingerprints here, wide
//! ones in [`wide`].

pub mod wide;

/// Every pair `(i, j, distance)` of positions `i < j` in `fps` whose fingerprints are within
/// `k` bits, in (i, j) order.
pub fn near_pairs(fps: &[u64], k: u32) -> impl Iterator<Item = (usize, usize, u32)> + '_ {
    fps.iter().enumerate().flat_map(move |(i, &a)| {
        fps.iter().enumerate().skip(i + 1).filter_map(move |(j, &b)| {
            let distance = (a ^ b).count_ones();
            (distance <= k).then_some((i, j, distance))
        })
    })
}

/// The output of `sh-pairs -k K` on `fps`.
pub fn all_pairs(fps: &[u64], k: u32) -> String {
    lines(near_pairs(fps, k))
}

/// The output of `sh-pairs -k K --against CORPUS` on `query`: pairs of a query record with a
/// corpus record, each input numbering its own records.
pub fn against(query: &[u64], corpus: &[u64], k: u32) -> String {
    let queries = query.len();
    let both = [query, corpus].concat();
    let crossing = near_pairs(&both, k).filter(|&(i, j, _)| i < queries && j >= queries);
    lines(crossing.map(|(i, j, distance)| (i, j - queries, distance)).collect::<Vec<_>>())
}

/// The pairs of distinct fingerprints within `k` bits, each as `(smaller, larger)`, sorted: what
/// the search of sh-pairs finds before records are expanded into pairs.
pub fn distinct_pairs(fps: &[u64], k: u32) -> Vec<(u64, u64)> {
    let mut distinct = fps.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    near_pairs(&distinct, k).map(|(i, j, _)| (distinct[i], distinct[j])).collect()
}

fn lines(pairs: impl IntoIterator<Item = (usize, usize, u32)>) -> String {
    pairs
        .into_iter()
        .map(|(i, j, distance)| format!("{}\t{}\t{distance}\n", i + 1, j + 1))
        .collect()
}

/// The connected components of the pairs in `output` (`A<TAB>B…` lines) over records 1..=n, as
/// one label per record: the smallest record of its component.
pub fn components(n: usize, output: &str) -> Vec<usize> {
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..=n).collect();
    for line in output.lines() {
        let mut fields = line.split('\t').map(|f| f.parse::<usize>().expect("a line number"));
        let (a, b) = (fields.next().expect("A"), fields.next().expect("B"));
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    (1..=n).map(|x| root(&mut parent, x)).collect()
}

/// Checks the output of `sh-pairs -k K --sparse` on `fps`: near pairs only, each once, sorted
/// with A before B; the same clusters as all pairs; and no more lines than the repeated records
/// plus the near pairs of distinct fingerprints. The error says what is wrong.
pub fn check_sparse(fps: &[u64], k: u32, sparse: &str) -> Result<(), String> {
    let wide: Vec<Vec<u64>> = fps.iter().map(|&fp| vec![fp]).collect();
    wide::check_sparse(&wide, k, k, sparse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracle_by_hand() {
        let fps = [7, 7, 6, 0];
        assert_eq!(all_pairs(&fps, 1), "1\t2\t0\n1\t3\t1\n2\t3\t1\n");
        assert_eq!(against(&[7], &[0, 6, 7], 1), "1\t2\t1\n1\t3\t0\n");
        assert_eq!(distinct_pairs(&fps, 3), [(0, 6), (0, 7), (6, 7)]);
        assert_eq!(components(4, "1\t3\t1\n"), [1, 2, 1, 4]);
        assert_eq!(check_sparse(&fps, 1, "1\t2\t0\n2\t3\t1\n"), Ok(()));
        assert!(check_sparse(&fps, 1, "1\t2\t0\n").is_err(), "record 3 left out");
        assert!(check_sparse(&fps, 1, "1\t2\t0\n1\t3\t1\n1\t3\t1\n").is_err(), "twice");
        assert!(check_sparse(&fps, 1, "1\t2\t0\n1\t3\t0\n").is_err(), "wrong distance");
    }
}
