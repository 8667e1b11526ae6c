use super::{DirId, Topology};
use crate::packet::NodeId;
use std::collections::{HashMap, VecDeque};

/// Shortest path (fewest hops) from `src` to `dst` as the list of link
/// directions to traverse. Ties are broken by link declaration order, so the
/// choice is deterministic. `None` if `dst` is unreachable. For many queries
/// on one topology use a [`Router`], which builds the adjacency once.
pub fn shortest_path(topo: &Topology, src: NodeId, dst: NodeId) -> Option<Vec<DirId>> {
    Router::new(topo).path(src, dst, None)
}

/// As [`shortest_path`], never passing through node `avoid` (a mobile host
/// must not forward between its base stations).
pub fn shortest_path_avoiding(
    topo: &Topology,
    src: NodeId,
    dst: NodeId,
    avoid: Option<NodeId>,
) -> Option<Vec<DirId>> {
    Router::new(topo).path(src, dst, avoid)
}

/// Breadth-first routing over one topology: the adjacency (link directions
/// leaving each node, in declaration order) is built once, and the search's
/// marks are reused between queries (a query stamps the nodes it reaches
/// instead of clearing an array), so a scenario with N flows costs N
/// searches and no per-query allocation beyond the path itself.
pub struct Router<'a> {
    topo: &'a Topology,
    /// Directions leaving node `u`: `out[start[u]..start[u + 1]]`, and the
    /// node each leads to beside it (`out_to`), so a search reads two dense
    /// arrays rather than the link directions themselves.
    start: Vec<u32>,
    out: Vec<DirId>,
    out_to: Vec<NodeId>,
    /// The first direction (in declaration order) from one node to another:
    /// a search that reaches a neighbour of the destination stops there
    /// without scanning the rest of its directions (a base station with
    /// 10,000 mobile hosts would otherwise be scanned once per flow).
    first_dir: HashMap<(NodeId, NodeId), DirId>,
    /// `stamp[v] == query` when node `v` was reached in the current query.
    stamp: Vec<u32>,
    via: Vec<DirId>,
    query: u32,
    queue: VecDeque<NodeId>,
}

impl<'a> Router<'a> {
    pub fn new(topo: &'a Topology) -> Self {
        let n = topo.nodes.len();
        let mut start = vec![0u32; n + 1];
        for d in &topo.dirs {
            start[d.from as usize + 1] += 1;
        }
        for u in 0..n {
            start[u + 1] += start[u];
        }
        let mut fill = start.clone();
        let mut out = vec![0 as DirId; topo.dirs.len()];
        let mut out_to = vec![0 as NodeId; topo.dirs.len()];
        let mut first_dir = HashMap::with_capacity(topo.dirs.len());
        for (i, d) in topo.dirs.iter().enumerate() {
            let slot = &mut fill[d.from as usize];
            out[*slot as usize] = i as DirId;
            out_to[*slot as usize] = d.to;
            *slot += 1;
            first_dir.entry((d.from, d.to)).or_insert(i as DirId);
        }
        Router {
            topo,
            start,
            out,
            out_to,
            first_dir,
            stamp: vec![0; n],
            via: vec![0; n],
            query: 0,
            queue: VecDeque::new(),
        }
    }

    /// Fewest-hop path from `src` to `dst` that does not pass through `avoid`
    /// (which may still be the destination); ties go to the earlier-declared
    /// link direction, as in [`shortest_path`].
    pub fn path(&mut self, src: NodeId, dst: NodeId, avoid: Option<NodeId>) -> Option<Vec<DirId>> {
        if src == dst {
            return Some(Vec::new());
        }
        self.query += 1;
        let q = self.query;
        self.stamp[src as usize] = q;
        if let Some(a) = avoid.filter(|&a| a != dst) {
            self.stamp[a as usize] = q;
        }
        self.queue.clear();
        self.queue.push_back(src);
        while let Some(u) = self.queue.pop_front() {
            // Scanning `u`'s directions in order would reach `dst` by the
            // first direction to it: the same path, found at once.
            if let Some(&d) = self.first_dir.get(&(u, dst)) {
                self.via[dst as usize] = d;
                return Some(self.walk_back(src, dst));
            }
            let (lo, hi) = (self.start[u as usize], self.start[u as usize + 1]);
            for k in lo as usize..hi as usize {
                let (d, v) = (self.out[k], self.out_to[k]);
                if self.stamp[v as usize] == q {
                    continue;
                }
                self.stamp[v as usize] = q;
                self.via[v as usize] = d;
                if v == dst {
                    return Some(self.walk_back(src, dst));
                }
                self.queue.push_back(v);
            }
        }
        None
    }

    fn walk_back(&self, src: NodeId, dst: NodeId) -> Vec<DirId> {
        let mut path = Vec::new();
        let mut cur = dst;
        while cur != src {
            let d = self.via[cur as usize];
            path.push(d);
            cur = self.topo.dirs[d as usize].from;
        }
        path.reverse();
        path
    }
}

/// Precomputed paths, one per (flow, direction of travel). Packets carry the
/// index of their next hop, so forwarding is an array lookup (source routing
/// of static shortest paths; equivalent to per-node routing tables but with
/// memory linear in the number of flows instead of quadratic in nodes).
#[derive(Debug)]
pub struct Routes {
    /// Every path's hops, one after another (path `p` is
    /// `hops[start[p]..start[p + 1]]`): two flat arrays that stay in cache
    /// with thousands of flows, where a vector per path would be one more
    /// scattered allocation to read per packet and hop.
    hops: Vec<DirId>,
    start: Vec<usize>,
}

impl Default for Routes {
    fn default() -> Self {
        Self {
            hops: Vec::new(),
            start: vec![0],
        }
    }
}

impl Routes {
    /// Register a path, returning its id.
    pub fn add(&mut self, path: Vec<DirId>) -> u32 {
        self.hops.extend_from_slice(&path);
        self.start.push(self.hops.len());
        (self.start.len() - 2) as u32
    }

    /// The whole path `path`.
    pub fn path(&self, path: u32) -> &[DirId] {
        let p = path as usize;
        &self.hops[self.start[p]..self.start[p + 1]]
    }

    /// Link direction for hop `hop` of path `path`, or `None` at the destination.
    #[inline]
    pub fn hop(&self, path: u32, hop: u16) -> Option<DirId> {
        let p = path as usize;
        let i = self.start[p] + usize::from(hop);
        (i < self.start[p + 1]).then(|| self.hops[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impair::pipeline::ImpairSpec;
    use crate::impair::Pipeline;
    use crate::net::{LinkDir, LinkKind, Node, NodeKind};
    use proptest::prelude::*;

    /// Nodes 0..n and one direction per `(from, to)` pair, in that order.
    fn topo(n: usize, edges: &[(u8, u8)]) -> Topology {
        let mut t = Topology::default();
        for i in 0..n {
            t.add_node(Node {
                name: format!("n{i}"),
                kind: NodeKind::Router,
            });
        }
        for (k, &(a, b)) in edges.iter().enumerate() {
            let p = Pipeline::build(&ImpairSpec::default(), "l", 1, "l").unwrap();
            let (a, b) = (a as NodeId % n as NodeId, b as NodeId % n as NodeId);
            t.dirs.push(LinkDir::new(
                k as u32,
                true,
                a,
                b,
                1_000_000,
                0,
                10,
                LinkKind::Wired,
                p,
            ));
        }
        t
    }

    /// Fewest hops by exhaustive relaxation (Bellman-Ford on unit weights).
    fn hops(t: &Topology, src: NodeId, dst: NodeId) -> Option<usize> {
        let mut dist = vec![usize::MAX; t.nodes.len()];
        dist[src as usize] = 0;
        for _ in 0..t.nodes.len() {
            for d in &t.dirs {
                let du = dist[d.from as usize];
                if du != usize::MAX && du + 1 < dist[d.to as usize] {
                    dist[d.to as usize] = du + 1;
                }
            }
        }
        (dist[dst as usize] != usize::MAX).then_some(dist[dst as usize])
    }

    /// Breadth-first search scanning every direction of each node in
    /// declaration order, without the router's shortcut: the reference
    /// for which of several shortest paths is chosen.
    fn plain_bfs(
        t: &Topology,
        src: NodeId,
        dst: NodeId,
        avoid: Option<NodeId>,
    ) -> Option<Vec<DirId>> {
        if src == dst {
            return Some(Vec::new());
        }
        let mut via: Vec<Option<DirId>> = vec![None; t.nodes.len()];
        let mut seen = vec![false; t.nodes.len()];
        seen[src as usize] = true;
        if let Some(a) = avoid.filter(|&a| a != dst) {
            seen[a as usize] = true;
        }
        let mut queue = VecDeque::from([src]);
        while let Some(u) = queue.pop_front() {
            for (i, d) in t.dirs.iter().enumerate().filter(|(_, d)| d.from == u) {
                if seen[d.to as usize] {
                    continue;
                }
                seen[d.to as usize] = true;
                via[d.to as usize] = Some(i as DirId);
                if d.to == dst {
                    let mut path = Vec::new();
                    let mut cur = dst;
                    while cur != src {
                        let d = via[cur as usize].unwrap();
                        path.push(d);
                        cur = t.dirs[d as usize].from;
                    }
                    path.reverse();
                    return Some(path);
                }
                queue.push_back(d.to);
            }
        }
        None
    }

    #[test]
    fn ties_go_to_the_earlier_direction_and_avoid_is_honoured() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3: the first declared wins; avoiding 1 takes 2.
        let t = topo(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let mut r = Router::new(&t);
        assert_eq!(r.path(0, 3, None), Some(vec![0, 2]));
        assert_eq!(r.path(0, 3, Some(1)), Some(vec![1, 3]));
        assert_eq!(
            r.path(0, 1, Some(1)),
            Some(vec![0]),
            "the avoided node may be the goal"
        );
        assert_eq!(r.path(3, 0, None), None);
        assert_eq!(r.path(2, 2, None), Some(vec![]));
        assert_eq!(t.node_id("n2"), Some(2));
        assert_eq!(t.node_id("n9"), None);
    }

    proptest! {
        /// One router answering many queries gives each query's answer from a
        /// fresh router and from a plain breadth-first search (the same path
        /// among equally short ones), a valid path, and the fewest hops.
        #[test]
        fn reused_router_equals_fresh_and_is_shortest(
            n in 2usize..12,
            edges in prop::collection::vec((0u8..12, 0u8..12), 0..40),
            queries in prop::collection::vec((0u8..12, 0u8..12, 0u8..24), 1..20),
        ) {
            let t = topo(n, &edges);
            let mut shared = Router::new(&t);
            for (a, b, c) in queries {
                let (a, b) = (a as NodeId % n as NodeId, b as NodeId % n as NodeId);
                // Half of the queries avoid a node other than the source.
                let avoid = (usize::from(c) < n && NodeId::from(c) != a).then_some(NodeId::from(c));
                prop_assert_eq!(shared.path(a, b, avoid), plain_bfs(&t, a, b, avoid));
                let got = shared.path(a, b, None);
                prop_assert_eq!(&got, &Router::new(&t).path(a, b, None));
                prop_assert_eq!(got.as_ref().map(Vec::len), hops(&t, a, b));
                if let Some(p) = got {
                    let mut at = a;
                    for d in p {
                        prop_assert_eq!(t.dirs[d as usize].from, at);
                        at = t.dirs[d as usize].to;
                    }
                    prop_assert_eq!(at, b);
                }
            }
        }
    }
}
