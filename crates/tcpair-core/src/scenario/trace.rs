//! `[trace]`: which events the trace and the pcap files keep, resolved from
//! names to the indices the simulator filters on.

use super::{check_secs, err, FlowPlan, TraceSpec};
use crate::engine::{secs, Time};
use crate::error::ConfigError;
use crate::limits::{MAX_PCAP_PACKET_SIZE, PCAP_SNAPLEN};
use crate::net::{DirId, Topology};
use crate::packet::{FlowId, NodeId};

/// The resolved `[trace]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFilter {
    /// Per flow: kept (all true when no flow was named).
    pub flows: Vec<bool>,
    /// Per link direction: kept by `links` or by `nodes` (an end is a named node).
    pub dirs: Vec<bool>,
    /// Per node: kept by `nodes`.
    pub nodes: Vec<bool>,
    /// No place was named: every node and link is kept.
    pub everywhere: bool,
    pub start: Time,
    pub end: Time,
    pub events: bool,
    pub pcap: Option<String>,
}

impl TraceFilter {
    #[inline]
    pub fn keeps_flow(&self, flow: FlowId) -> bool {
        self.flows.get(flow as usize).copied().unwrap_or(false)
    }

    /// A row at `node`, on link direction `dir` if any, at time `t`.
    #[inline]
    pub fn keeps_place(&self, node: Option<NodeId>, dir: Option<DirId>, t: Time) -> bool {
        if t < self.start || t >= self.end {
            return false;
        }
        self.everywhere
            || dir.is_some_and(|d| self.dirs[d as usize])
            || node.is_some_and(|n| self.nodes[n as usize])
    }
}

/// Every captured flow's data packets fit a pcap frame.
fn check_pcap_sizes(flows: &[FlowPlan], keep: &[bool]) -> Result<(), ConfigError> {
    let too_big = flows
        .iter()
        .enumerate()
        .find(|&(i, f)| keep[i] && f.packet_size > MAX_PCAP_PACKET_SIZE);
    let Some((i, f)) = too_big else {
        return Ok(());
    };
    Err(err(
        format!("flows[{i}].packet_size"),
        format!(
            "must be at most {MAX_PCAP_PACKET_SIZE} bytes to be captured into pcap files \
             (trace.pcap; a frame holds at most {PCAP_SNAPLEN} bytes), got {}",
            f.packet_size
        ),
    ))
}

/// Resolve `spec` (the scenario's `[trace]`) against the built network.
pub(super) fn build(
    spec: &TraceSpec,
    topo: &Topology,
    flows: &[FlowPlan],
    duration: f64,
) -> Result<TraceFilter, ConfigError> {
    let mut keep_flows = vec![spec.flows.is_empty(); flows.len()];
    for (i, name) in spec.flows.iter().enumerate() {
        let Some(f) = flows.iter().position(|f| &f.name == name) else {
            return Err(err(
                format!("trace.flows[{i}]"),
                format!("no flow named {name:?}"),
            ));
        };
        keep_flows[f] = true;
    }
    let mut nodes = vec![false; topo.nodes.len()];
    for (i, name) in spec.nodes.iter().enumerate() {
        let Some(n) = topo.node_id(name) else {
            return Err(err(
                format!("trace.nodes[{i}]"),
                format!("no node named {name:?}"),
            ));
        };
        nodes[n as usize] = true;
    }
    let mut dirs: Vec<bool> = topo
        .dirs
        .iter()
        .map(|d| nodes[d.from as usize] || nodes[d.to as usize])
        .collect();
    for (i, name) in spec.links.iter().enumerate() {
        let Some(l) = topo.link_names.iter().position(|n| n == name) else {
            return Err(err(
                format!("trace.links[{i}]"),
                format!("no link named {name:?}"),
            ));
        };
        for (d, dir) in topo.dirs.iter().enumerate() {
            if dir.link as usize == l {
                dirs[d] = true;
            }
        }
    }
    let start = check_secs("trace.start", &spec.start, true)?;
    let end = match &spec.end {
        Some(q) => check_secs("trace.end", q, false)?,
        None => duration,
    };
    if end <= start {
        return Err(err(
            "trace.end",
            format!("must be later than trace.start ({start} s), got {end}"),
        ));
    }
    if spec.pcap.as_deref() == Some("") {
        return Err(err("trace.pcap", "must name a directory, got \"\""));
    }
    if spec.pcap.is_some() {
        check_pcap_sizes(flows, &keep_flows)?;
    }
    Ok(TraceFilter {
        flows: keep_flows,
        dirs,
        nodes,
        everywhere: spec.nodes.is_empty() && spec.links.is_empty(),
        start: secs(start),
        // The run's last instant is included.
        end: if spec.end.is_some() {
            secs(end)
        } else {
            Time::MAX
        },
        events: spec.events,
        pcap: spec.pcap.clone(),
    })
}
