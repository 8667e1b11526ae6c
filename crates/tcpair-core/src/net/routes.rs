use super::{DirId, Topology};
use crate::packet::NodeId;
use std::collections::VecDeque;

/// Shortest path (fewest hops) from `src` to `dst` as the list of link
/// directions to traverse. Ties are broken by link declaration order, so the
/// choice is deterministic. `None` if `dst` is unreachable.
pub fn shortest_path(topo: &Topology, src: NodeId, dst: NodeId) -> Option<Vec<DirId>> {
    shortest_path_avoiding(topo, src, dst, None)
}

/// As [`shortest_path`], never passing through node `avoid` (a mobile host
/// must not forward between its base stations).
pub fn shortest_path_avoiding(
    topo: &Topology,
    src: NodeId,
    dst: NodeId,
    avoid: Option<NodeId>,
) -> Option<Vec<DirId>> {
    if src == dst {
        return Some(Vec::new());
    }
    let n = topo.nodes.len();
    // Adjacency built once per query: routes are computed at set-up only.
    let mut adj: Vec<Vec<DirId>> = vec![Vec::new(); n];
    for (i, d) in topo.dirs.iter().enumerate() {
        adj[d.from as usize].push(i as DirId);
    }
    let mut via: Vec<Option<DirId>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[src as usize] = true;
    if let Some(a) = avoid {
        seen[a as usize] = a != dst;
    }
    let mut q = VecDeque::from([src]);
    while let Some(u) = q.pop_front() {
        for &d in &adj[u as usize] {
            let v = topo.dirs[d as usize].to;
            if !seen[v as usize] {
                seen[v as usize] = true;
                via[v as usize] = Some(d);
                if v == dst {
                    let mut path = Vec::new();
                    let mut cur = dst;
                    while cur != src {
                        let d = via[cur as usize].expect("BFS tree");
                        path.push(d);
                        cur = topo.dirs[d as usize].from;
                    }
                    path.reverse();
                    return Some(path);
                }
                q.push_back(v);
            }
        }
    }
    None
}

/// Precomputed paths, one per (flow, direction of travel). Packets carry the
/// index of their next hop, so forwarding is an array lookup (source routing
/// of static shortest paths; equivalent to per-node routing tables but with
/// memory linear in the number of flows instead of quadratic in nodes).
#[derive(Debug, Default)]
pub struct Routes {
    paths: Vec<Vec<DirId>>,
}

impl Routes {
    /// Register a path, returning its id.
    pub fn add(&mut self, path: Vec<DirId>) -> u32 {
        self.paths.push(path);
        (self.paths.len() - 1) as u32
    }

    /// The whole path `path`.
    pub fn path(&self, path: u32) -> &[DirId] {
        &self.paths[path as usize]
    }

    /// Link direction for hop `hop` of path `path`, or `None` at the destination.
    #[inline]
    pub fn hop(&self, path: u32, hop: u16) -> Option<DirId> {
        self.paths[path as usize].get(hop as usize).copied()
    }
}
