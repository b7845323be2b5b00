//! Disjoint sets over nodes `0..n` (union by size, path halving), and their grouping into
//! clusters ordered by first appearance with one counting sort.

/// Disjoint sets of nodes numbered `0..len()`. Costs 8 bytes per node.
#[derive(Debug, Default, Clone)]
pub struct UnionFind {
    /// Per node: its parent (a root is its own parent) and the number of nodes in its set
    /// (valid at roots only), side by side so that a root's size is in the cache line that
    /// `find` just read.
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    size: u32,
}

impl UnionFind {
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Adds a node in a set of its own and returns it. The caller keeps `len()` below
    /// `u32::MAX` (the interner does).
    pub fn push(&mut self) -> u32 {
        let node = self.nodes.len() as u32;
        self.nodes.push(Node { parent: node, size: 1 });
        node
    }

    /// Reads `node`'s parent and grandparent and returns something computed from them, so that a
    /// caller can bring many nodes into the cache with independent loads before working on them.
    #[inline]
    pub fn touch(&self, node: u32) -> u32 {
        let parent = self.nodes[node as usize].parent;
        self.nodes[parent as usize].parent
    }

    /// The root of `node`'s set, halving the path on the way.
    #[inline]
    pub fn find(&mut self, mut node: u32) -> u32 {
        loop {
            let parent = self.nodes[node as usize].parent;
            if parent == node {
                return node;
            }
            let grandparent = self.nodes[parent as usize].parent;
            self.nodes[node as usize].parent = grandparent;
            node = grandparent;
        }
    }

    /// Joins the sets of `a` and `b`; returns the root of the joined set.
    #[inline]
    pub fn union(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return a;
        }
        let (size_a, size_b) = (self.nodes[a as usize].size, self.nodes[b as usize].size);
        let (big, small) = if size_a >= size_b { (a, b) } else { (b, a) };
        self.nodes[small as usize].parent = big;
        self.nodes[big as usize].size = size_a + size_b;
        big
    }

    /// The number of nodes in `node`'s set.
    #[cfg(test)]
    pub fn set_size(&mut self, node: u32) -> u32 {
        let root = self.find(node);
        self.nodes[root as usize].size
    }

    /// Groups the nodes into clusters and drops the sets: clusters in order of their smallest
    /// node, nodes in increasing order inside a cluster, clusters of fewer than `min_size` nodes
    /// left out. Linear time; besides the sets' own 8 bytes per node it needs 4 bytes per kept
    /// node, 4 per kept cluster and one bit per node.
    pub fn into_clusters(mut self, min_size: u32) -> Clusters {
        let n = self.nodes.len();
        // Point every node straight at its root.
        let mut total = 0usize;
        for node in 0..n {
            let root = self.find(node as u32);
            self.nodes[node].parent = root;
            let size = self.nodes[node].size;
            if root as usize == node && size >= min_size {
                total += size as usize;
            }
        }
        // One pass in node order: the first node of a set opens its cluster at the next free
        // place (so clusters come in order of their first node), and the root's size becomes
        // the place where the set's next node goes.
        let nodes = &mut self.nodes;
        let mut opened = vec![0u64; n.div_ceil(64)];
        let mut members = vec![0u32; total];
        let mut starts = Vec::new();
        let mut next_free = 0u32;
        for node in 0..n {
            let root = nodes[node].parent as usize;
            let (word, bit) = (root / 64, 1u64 << (root % 64));
            if opened[word] & bit == 0 {
                opened[word] |= bit;
                let size = nodes[root].size;
                if size < min_size {
                    nodes[root].size = SKIPPED;
                    continue;
                }
                starts.push(next_free);
                nodes[root].size = next_free;
                next_free += size;
            }
            let place = nodes[root].size;
            if place != SKIPPED {
                members[place as usize] = node as u32;
                nodes[root].size = place + 1;
            }
        }
        Clusters { members, starts }
    }
}

/// Marks a set too small to print. No real place reaches it: places stay below the node count,
/// which the interner keeps below `u32::MAX`.
const SKIPPED: u32 = u32::MAX;

/// Clusters of nodes, laid out one after another.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clusters {
    members: Vec<u32>,
    /// Where each cluster starts in `members`.
    starts: Vec<u32>,
}

impl Clusters {
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The clusters in order, each one its nodes in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let ends = self.starts.iter().skip(1).map(|&s| s as usize).chain([self.members.len()]);
        self.starts.iter().zip(ends).map(|(&start, end)| &self.members[start as usize..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(n: usize, edges: &[(u32, u32)]) -> UnionFind {
        let mut uf = UnionFind::default();
        for _ in 0..n {
            uf.push();
        }
        for &(a, b) in edges {
            uf.union(a, b);
        }
        uf
    }

    fn clusters(uf: UnionFind, min_size: u32) -> Vec<Vec<u32>> {
        uf.into_clusters(min_size).iter().map(<[u32]>::to_vec).collect()
    }

    #[test]
    fn union_joins_and_counts() {
        let mut uf = sets(6, &[(0, 1), (2, 3), (1, 3)]);
        assert_eq!(uf.find(0), uf.find(2));
        assert_ne!(uf.find(0), uf.find(4));
        assert_eq!(uf.set_size(3), 4);
        assert_eq!(uf.set_size(5), 1);
        let root = uf.find(0);
        assert_eq!(uf.union(0, 3), root, "joining a set with itself changes nothing");
        assert_eq!(uf.set_size(0), 4);
    }

    #[test]
    fn union_by_size_keeps_the_bigger_root() {
        let mut uf = sets(5, &[(1, 2), (1, 3)]);
        let big = uf.find(1);
        assert_eq!(uf.union(4, 2), big);
        assert_eq!(uf.union(0, 4), big);
    }

    #[test]
    fn long_chains_stay_shallow() {
        let n = 100_000u32;
        let mut uf = sets(n as usize, &[]);
        for node in 1..n {
            uf.union(node - 1, node);
        }
        assert_eq!(uf.set_size(0), n);
        let root = uf.find(n - 1);
        assert!((0..n).all(|node| uf.find(node) == root));
    }

    #[test]
    fn clusters_come_in_order_of_their_first_node() {
        // Sets {0,3,5}, {1,4}, {2}, {6,7}; node 5 joins late, through 3.
        let uf = sets(8, &[(4, 1), (7, 6), (3, 0), (5, 3)]);
        assert_eq!(clusters(uf.clone(), 2), [vec![0, 3, 5], vec![1, 4], vec![6, 7]]);
        assert_eq!(clusters(uf.clone(), 1), [vec![0, 3, 5], vec![1, 4], vec![2], vec![6, 7]]);
        assert_eq!(clusters(uf.clone(), 3), [vec![0, 3, 5]]);
        assert!(uf.into_clusters(4).is_empty());
        assert!(UnionFind::default().into_clusters(1).is_empty());
    }
}
