//! Cross-layer schemes: each folder holds every part of one scheme (its BS
//! agents, its end-host parts, its parameters) and its `mod.rs` doc is the
//! scheme's map: which paper sections it implements, where each part runs,
//! the scenario keys, the docs page, the tests and the reproduce targets.
//!
//! | scheme | BS part | sender part | receiver part | packet option |
//! |---|---|---|---|---|
//! | [`snoop`] (Snoop, ELN-Snoop) | `snoop`, `eln_snoop` agents | ELN detector (`tcp::detect::eln`) | plain sink | ELN flag |
//! | [`syndrome`] | `syndrome` counter agent | ELN detector | [`syndrome::receiver`] | `SynTags` |
//! | [`clrp`] | `clrp` agent (both directions) | [`clrp::mh`] (TCP-MH notice list) | hole detector ([`clrp::holes`]) | `LossBlocks` |
//!
//! Generic machinery stays in its layer: the BS-agent framework in
//! [`crate::bs`], options in [`crate::packet`], the sender's decision point
//! in [`crate::tcp`]. Schemes import those, never `scenario` or `sim`; this
//! module holds the registry of BS agents that the scenario builds from.

pub mod clrp;
pub mod snoop;
pub mod syndrome;

use crate::bs::{AgentInfo, BsAgent};
use crate::error::ConfigError;
use crate::packet::NodeId;

/// Every BS agent, by the name used in scenario files.
pub static BS_AGENTS: &[AgentInfo] = &[
    syndrome::counter::INFO,
    snoop::agent::INFO,
    snoop::eln_snoop::INFO,
    snoop::ns2::INFO,
    clrp::bs::INFO,
];

/// Build the agent described by `v`: a name (`"snoop"`) or a table with an
/// `agent` key and the agent's parameters (`{ agent = "snoop", cache = 50 }`).
/// `path` is its place in the scenario, for error messages.
pub fn build_agent(
    v: &serde_json::Value,
    node: NodeId,
    path: &str,
) -> Result<Box<dyn BsAgent>, ConfigError> {
    crate::bs::build_from(BS_AGENTS, v, node, path)
}
