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
pub use routes::{shortest_path, shortest_path_avoiding, Router, Routes};

use crate::packet::NodeId;
use std::collections::HashMap;

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
    /// Node ids by name, for the nodes added with [`Topology::add_node`].
    names: HashMap<String, NodeId>,
    /// Link ids by name, for the links named with [`Topology::add_link_name`].
    links: HashMap<String, u32>,
}

impl Topology {
    /// Append a node and index its name; returns its id.
    pub fn add_node(&mut self, node: Node) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.names.insert(node.name.clone(), id);
        self.nodes.push(node);
        id
    }

    /// Name the next duplex link (its id is the number of links named before).
    pub fn add_link_name(&mut self, name: String) -> u32 {
        let id = self.link_names.len() as u32;
        self.links.insert(name.clone(), id);
        self.link_names.push(name);
        id
    }

    /// The duplex link named `name`, as [`Topology::node_id`] finds nodes.
    pub fn link_id(&self, name: &str) -> Option<u32> {
        if self.links.len() == self.link_names.len() {
            return self.links.get(name).copied();
        }
        self.link_names
            .iter()
            .position(|n| n == name)
            .map(|i| i as u32)
    }

    /// The node named `name`: a hash look-up, or a scan when nodes were pushed
    /// without [`Topology::add_node`].
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        if self.names.len() == self.nodes.len() {
            return self.names.get(name).copied();
        }
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| i as NodeId)
    }
}
