//! Layer 2: nodes, duplex point-to-point links and static shortest-path routes.
//!
//! A link direction computes a packet's departure time when it accepts it
//! (no separate "transmission done" event): the only event per hop is the
//! packet's arrival at the far end. Queue occupancy is derived from the
//! departure times still in the future.

mod link;
mod routes;
pub mod wifi;

pub use link::{Accept, LinkDir, LinkKind};
pub use routes::{shortest_path, shortest_path_avoiding, Routes};

use crate::packet::NodeId;

/// Index of one direction of a link (link `i` has directions `2i` forward and
/// `2i+1` reverse).
pub type DirId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// May be a flow end point; forwards packets too (as in ns-2).
    Host,
    /// Forwards only.
    Router,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
}

/// The network: nodes and link directions. Adjacency is kept for routing.
#[derive(Debug, Default)]
pub struct Topology {
    pub nodes: Vec<Node>,
    pub dirs: Vec<LinkDir>,
    /// Link names, one per duplex link.
    pub link_names: Vec<String>,
    /// Shared wireless media; their hops are entries of `dirs`.
    pub media: Vec<wifi::Medium>,
}

impl Topology {
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| i as NodeId)
    }
}
