//! Layer 4 (agents at base stations): a base station is a router with a
//! chain of *BS agents* that see every packet it forwards, in both
//! directions, and may rewrite it (options, the ELN bit), discard it, or
//! inject packets (local retransmissions).
//!
//! Agents are sans-IO like the TCP end points: the `sim` layer calls
//! [`BsAgent::on_packet`] with the packet and a [`BsCtx`] saying which way it
//! travels relative to the wireless hop, and carries out the [`BsOut`]
//! (injected packets continue through the rest of the chain, then onto the
//! next link). Timers are lazy and per connection: the agent reports a
//! connection's deadline ([`BsAgent::deadline`]) and the sim calls
//! [`BsAgent::on_timer`] for that connection when it is due.
//!
//! This module is the framework only; the agents themselves live with their
//! schemes (`crate::schemes`). A new agent is one new file implementing
//! [`BsAgent`] plus one line in `schemes::BS_AGENTS`.

use crate::engine::Time;
use crate::error::ConfigError;
use crate::net::LinkKind;
use crate::packet::{FlowId, NodeId, Packet};
use crate::registry::{self, Entry};

pub mod cache;
pub mod meter;
mod meter_codes;
mod meter_log;

pub use meter::{Holding, Meters, StateMeter, SEQ_BYTES};

/// Where a packet passing a BS comes from and goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BsCtx {
    /// The node the agent sits on.
    pub node: NodeId,
    /// Kind of the link the packet arrived on.
    pub in_kind: LinkKind,
    /// Kind of the link it leaves on.
    pub out_kind: LinkKind,
}

impl BsCtx {
    /// The packet is about to cross a wireless hop (FH -> MH data, or ACKs
    /// from the FH toward an MH sender).
    #[inline]
    pub fn toward_wireless(&self) -> bool {
        self.out_kind == LinkKind::Wireless
    }
    /// The packet has just crossed a wireless hop.
    #[inline]
    pub fn from_wireless(&self) -> bool {
        self.in_kind == LinkKind::Wireless
    }
}

/// What an agent does with the packet it was shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Pass it on (possibly rewritten) to the next agent, then the link.
    Forward,
    /// Discard it (e.g. a suppressed duplicate ACK). Not a loss: it is
    /// counted as absorbed by the BS.
    Absorb,
}

/// Packets an agent wants sent from its node, reused between calls.
#[derive(Debug, Default)]
pub struct BsOut {
    /// Packets to inject (e.g. local retransmissions: a cached copy with
    /// `retx = Retx::BaseStation`). The sim gives each a fresh id and routes
    /// it along its flow's path from this node.
    pub inject: Vec<Packet>,
}

/// State held by an agent for one connection (or in total).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StateSummary {
    pub pkts_peak: u64,
    pub pkts_mean: f64,
    pub bytes_peak: u64,
    pub bytes_mean: f64,
}

/// One BS agent on one node.
pub trait BsAgent: Send + std::fmt::Debug {
    /// The registry name ("snoop", ...).
    fn name(&self) -> &'static str;

    /// A packet of `pkt.flow` forwarded by this node (never one addressed to
    /// it). The agent may rewrite `pkt`, push packets to `out.inject`, and
    /// says whether the packet goes on.
    fn on_packet(&mut self, now: Time, ctx: &BsCtx, pkt: &mut Packet, out: &mut BsOut) -> Verdict;

    /// Ask for what [`BsAgent::on_packet`] will read for `flow` to be loaded
    /// (a hint for many-flow runs, `sim::prefetch`): at `stage` 0 the
    /// connection's own state, at 1 (a few events later, when that state
    /// is in cache) what it points to. The default does nothing.
    fn prefetch(&self, _flow: FlowId, _stage: u8) {}

    /// A packet this agent let through was dropped by the node's own output
    /// queue (before leaving the BS).
    fn on_queue_drop(&mut self, _now: Time, _pkt: &Packet) {}

    /// When connection `flow`'s timer wants [`BsAgent::on_timer`], if it
    /// runs. Timers are per connection: a call about one connection
    /// (`on_packet` with its packet, `on_queue_drop`, `on_timer`,
    /// `take_over`) may change that connection's timer and no other, so the
    /// simulator keeps one lazy timer event per connection in its queue.
    fn deadline(&self, _flow: FlowId) -> Option<Time> {
        None
    }

    /// Connection `flow`'s timer is due: called at `now` only when
    /// [`BsAgent::deadline`] is at or before it (the simulator checks).
    fn on_timer(&mut self, _now: Time, _flow: FlowId, _out: &mut BsOut) {}

    /// Whether what the agent does with one connection's packets can depend
    /// on another connection (state shared across connections, as the
    /// function-static DUPACK counter of ns-2's `snoop.cc`). The connections
    /// of an agent that says `false` are independent: the simulator may run
    /// them in different parts of the network, one after another
    /// (`sim::parts`). The default is the safe answer.
    fn couples_connections(&self) -> bool {
        true
    }

    /// The state meters (packets and bytes held, per flow and in total).
    fn meters(&self) -> &Meters;

    /// The same, to defer and settle their total (`sim::parts`).
    fn meters_mut(&mut self) -> &mut Meters;

    /// At a handoff that moves BS state (`mobility.move_state`): give up
    /// `flow`'s per-connection state, to be handed to the same agent at the
    /// new BS. `None` (the default): this agent's state does not move.
    fn hand_over(&mut self, _now: Time, _flow: FlowId) -> Option<Box<dyn std::any::Any + Send>> {
        None
    }

    /// Take over `flow`'s state from the same agent at the old BS; packets
    /// in it that the agent may send again follow the flow's data path
    /// `data_path` (a `net::Routes` id) from now on.
    fn take_over(
        &mut self,
        _now: Time,
        _flow: FlowId,
        _state: Box<dyn std::any::Any + Send>,
        _data_path: u32,
    ) {
    }

    /// At the run's end, once every packet is counted: give back the memory
    /// of the packets the agent holds (its cache's store), before the run's
    /// results are built beside the rest of its state. Only the meters and
    /// [`BsAgent::counters`] are read afterwards. The default: nothing to
    /// give back.
    fn release_packets(&mut self) {}

    /// Agent-specific counters of one flow (e.g. local retransmissions), in a
    /// fixed order (the same names for every flow).
    fn counters(&self, flow: FlowId) -> Vec<(&'static str, u64)>;
}

/// Index of `flow`'s per-connection state in `conns`, growing it with
/// `make()` on first sight (flow ids are dense, so a `Vec` indexed by flow
/// id is the table). The one per-connection table of every BS agent: at
/// 10,000 flows several MiB, so it takes its room as `engine::room` says.
pub(crate) fn conn_slot<T>(conns: &mut Vec<T>, flow: FlowId, make: impl FnMut() -> T) -> usize {
    let i = flow as usize;
    if conns.len() <= i {
        crate::engine::room::make_room(conns, i + 1);
        conns.resize_with(i + 1, make);
    }
    i
}

/// Builds an agent from its table in the scenario (the `agent` key already
/// removed). Errors name fields relative to that table.
pub type BuildFn = fn(&serde_json::Value, NodeId) -> Result<Box<dyn BsAgent>, ConfigError>;

/// One registered BS agent: a registry entry whose builder takes the
/// agent's parameter table and its node.
pub type AgentInfo = Entry<BuildFn>;

/// Build the agent described by `v` from `agents`: a name (`"snoop"`) or
/// a table with an `agent` key and the agent's parameters. `path` is its
/// place in the scenario, for error messages.
pub fn build_from(
    agents: &[AgentInfo],
    v: &serde_json::Value,
    node: NodeId,
    path: &str,
) -> Result<Box<dyn BsAgent>, ConfigError> {
    let (info, params) = registry::pick_by(agents, v, "BS agent", "agent", path)?;
    (info.build)(&params, node).map_err(|e| e.within(path))
}

#[cfg(test)]
pub(crate) mod testing {
    //! The BS agents' shared test helpers: packets, contexts, counters.
    use super::{BsAgent, BsCtx, BsOut};
    use crate::net::LinkKind;
    use crate::packet::{FlowId, Packet, PktKind};

    /// FH -> MH data, and ACKs toward the FH from the MH.
    pub(crate) const DOWN: BsCtx = BsCtx {
        node: 1,
        in_kind: LinkKind::Wired,
        out_kind: LinkKind::Wireless,
    };
    /// MH -> FH data, and ACKs toward the MH from the FH.
    pub(crate) const UP: BsCtx = BsCtx {
        node: 1,
        in_kind: LinkKind::Wireless,
        out_kind: LinkKind::Wired,
    };

    pub(crate) fn pkt(flow: FlowId, kind: PktKind, seq: u32) -> Packet {
        match kind {
            PktKind::Data => Packet::data(flow, (0, 2), 1000, seq, 0),
            PktKind::Ack => Packet::ack(flow, (2, 0), 40, seq, 0, 0),
        }
    }

    /// The agent's counter `name` for `flow`.
    pub(crate) fn counter(bs: &dyn BsAgent, flow: FlowId, name: &str) -> u64 {
        let all = bs.counters(flow).into_iter();
        all.filter(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .next()
            .unwrap()
    }

    /// The earliest timer of any connection (flows 0 to 63), as one agent-wide
    /// timer would report it.
    pub(crate) fn earliest(bs: &dyn BsAgent) -> Option<crate::engine::Time> {
        (0..64).filter_map(|f| bs.deadline(f)).min()
    }

    /// Fire every connection's timer due at `now`, in flow order.
    pub(crate) fn fire(bs: &mut dyn BsAgent, now: crate::engine::Time, out: &mut BsOut) {
        for f in 0..64 {
            if bs.deadline(f).is_some_and(|t| t <= now) {
                bs.on_timer(now, f, out);
            }
        }
    }

    /// The sequence numbers the agent injected, drained.
    pub(crate) fn injected(out: &mut BsOut) -> Vec<u32> {
        out.inject.drain(..).map(|p| p.seq).collect()
    }
}
