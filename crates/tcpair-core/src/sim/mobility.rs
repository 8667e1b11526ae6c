//! The mobile host during a run: which base station it is attached to, the
//! losses of its handoffs, the switch of its flows' routes, the home agent's
//! tunnel decision, and what each handoff leaves behind.
//!
//! Routes are stamped on a packet when it enters the network (`Packet::path`):
//! a packet already on its way keeps its path. The home agent looks again at
//! each packet for the host (Perkins 1996, RFC 2002 §4.2.3: it tunnels to the
//! care-of address it knows *when the packet reaches it*), so only packets past
//! the home agent follow a stale route; those and everything on the air over a
//! wireless hop of a base station the host is not attached to are lost with
//! cause `handoff` when they reach the far end of that hop.

use super::tables::Columns;
use super::{Ev, Sim};
use crate::engine::{to_secs, Time};
use crate::metrics::DropCauseKind;
use crate::net::DirId;
use crate::packet::{FlowId, NodeId, PktKind, PktRef};
use crate::scenario::MobilityPlan;
use serde_json::Value;

/// What one handoff did.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct HandoffRecord {
    /// Packets the old BS's agents hold when the handoff ends (stranded
    /// state: nothing moves it to the new BS), and the new BS's.
    pub old_bs_pkts: u64,
    pub new_bs_pkts: u64,
}

/// Columns of the `handoffs` table.
const COLUMNS: &[&str] = &[
    "handoff",
    "flow",
    "start",
    "end",
    "from",
    "to",
    "resumed_at",
    "data_lost",
    "acks_lost",
    "old_bs_pkts",
    "new_bs_pkts",
];

pub(super) struct Mobility {
    pub plan: MobilityPlan,
    /// The base station the host is attached to (None during a handoff).
    pub attached: Option<NodeId>,
    /// Per link direction: the base station whose wireless hop it is.
    dir_bs: Vec<Option<NodeId>>,
    pub records: Vec<HandoffRecord>,
    /// Per handoff and flow: the first new in-order delivery at or after
    /// the handoff's end (before the next handoff ends).
    resumed: Vec<Vec<Option<Time>>>,
    /// Per handoff and flow: data and ACK packets lost from the handoff's
    /// start to the next one's.
    lost: Vec<Vec<[u64; 2]>>,
}

impl Mobility {
    pub fn new(plan: MobilityPlan, dirs: usize, flows: usize) -> Self {
        let mut dir_bs = vec![None; dirs];
        for s in &plan.stations {
            dir_bs[s.down as usize] = Some(s.node);
            dir_bs[s.up as usize] = Some(s.node);
        }
        Self {
            attached: Some(plan.home),
            records: vec![HandoffRecord::default(); plan.handoffs.len()],
            resumed: vec![vec![None; flows]; plan.handoffs.len()],
            lost: vec![vec![[0, 0]; flows]; plan.handoffs.len()],
            plan,
            dir_bs,
        }
    }

    /// A packet reaching the far end of `dir` now is lost to a handoff.
    #[inline]
    pub fn cuts(&self, dir: DirId) -> bool {
        matches!(self.dir_bs[dir as usize], Some(bs) if self.attached != Some(bs))
    }

    /// Count a handoff loss of `flow` (data or ACK) at `now` against the
    /// handoff in progress or the last one.
    fn count_loss(&mut self, now: Time, flow: usize, data: bool) {
        if let Some(i) = self.plan.handoffs.iter().rposition(|h| h.start <= now) {
            self.lost[i][flow][usize::from(!data)] += 1;
        }
    }
}

impl Sim {
    /// Schedule the start and the end of every handoff.
    pub(super) fn schedule_handoffs(&mut self) {
        let Some(m) = &self.mobility else { return };
        let mut prev_end = 0;
        for (i, h) in m.plan.handoffs.iter().enumerate() {
            let i = i as u32;
            self.q.schedule(h.start, Ev::Handoff { i, end: false });
            self.q.schedule(h.end, Ev::Handoff { i, end: true });
            // Goff et al. 2000 (Chen et al. 2002 §2): the warning comes a
            // round trip ahead, but never before the host is attached again
            // after the last handoff.
            for &(flow, warning) in &m.plan.freeze {
                let at = h.start.saturating_sub(warning).max(prev_end);
                let flow = flow as FlowId;
                self.q.schedule(at, Ev::Freeze { i, flow });
            }
            prev_end = h.end;
        }
    }

    /// Drop `pkt` at the end of `dir` if the host is not attached there.
    /// True if it was dropped.
    #[inline]
    pub(super) fn handoff_cut(&mut self, dir: DirId, pkt: PktRef) -> bool {
        let now = self.q.now();
        let Some(m) = &mut self.mobility else {
            return false;
        };
        if !m.cuts(dir) {
            return false;
        }
        let p = self.arena.head(pkt);
        m.count_loss(now, p.flow as usize, p.kind == PktKind::Data);
        self.record_drop(dir, pkt, DropCauseKind::Handoff);
        true
    }

    /// At the home agent: a packet for the host takes the route the home
    /// agent knows now (the tunnel to the current foreign agent, or the
    /// home wireless hop).
    #[inline]
    pub(super) fn rebind_at(&mut self, node: NodeId, pkt: PktRef) {
        let Some(m) = &self.mobility else { return };
        let p = self.arena.head(pkt);
        if node != m.plan.home || p.dst != m.plan.host {
            return;
        }
        let f = &self.flows[p.flow as usize];
        let cur = if p.kind == PktKind::Data {
            f.data_path
        } else {
            f.ack_path
        };
        if p.path == cur {
            return;
        }
        let path = self.routes.path(cur);
        if let Some(h) = path
            .iter()
            .position(|&d| self.topo.dirs[d as usize].from == node)
        {
            let p = self.arena.head_mut(pkt);
            p.path = cur;
            p.hop = h as u16;
        }
    }

    pub(super) fn on_handoff(&mut self, i: u32, end: bool) {
        let Some(m) = &mut self.mobility else { return };
        let h = m.plan.handoffs[i as usize];
        if !end {
            m.attached = None;
            return;
        }
        m.attached = Some(h.to);
        for f in &mut self.flows {
            if let Some(&(_, d, a)) = f.attach.iter().find(|(bs, _, _)| *bs == h.to) {
                f.data_path = d;
                f.ack_path = a;
            }
        }
        if self.mobility.as_ref().is_some_and(|m| m.plan.move_state) {
            self.move_state(h.from, h.to);
        }
        self.thaw_receivers();
        let (old, new) = (self.state_at(h.from), self.state_at(h.to));
        if let Some(m) = &mut self.mobility {
            let r = &mut m.records[i as usize];
            r.old_bs_pkts = old;
            r.new_bs_pkts = new;
        }
    }

    /// Flow `flow` delivered new data in order now.
    pub(super) fn note_delivery(&mut self, flow: usize) {
        let now = self.q.now();
        let Some(m) = &mut self.mobility else { return };
        let Some(i) = m.plan.handoffs.iter().rposition(|h| h.end <= now) else {
            return;
        };
        let slot = &mut m.resumed[i][flow];
        if slot.is_none() {
            *slot = Some(now);
        }
    }

    /// One row per handoff and flow of the mobile host: when and where it
    /// went, when the flow first delivered new data in order after it, what
    /// was lost and the state each BS held at its end.
    pub(super) fn handoff_table(&self) -> Value {
        let Some(m) = &self.mobility else {
            return Columns::new(COLUMNS, 0).into_value();
        };
        let attached = self.flows.iter().filter(|f| !f.attach.is_empty()).count();
        let mut t = Columns::new(COLUMNS, m.plan.handoffs.len() * attached);
        let name = |n: NodeId| -> Value { self.topo.nodes[n as usize].name.as_str().into() };
        for (i, (h, r)) in m.plan.handoffs.iter().zip(&m.records).enumerate() {
            for (fi, f) in self.flows.iter().enumerate() {
                if f.attach.is_empty() {
                    continue;
                }
                t.push(vec![
                    i.into(),
                    f.plan.name.as_str().into(),
                    to_secs(h.start).into(),
                    to_secs(h.end).into(),
                    name(h.from),
                    name(h.to),
                    m.resumed[i][fi].map(to_secs).into(),
                    m.lost[i][fi][0].into(),
                    m.lost[i][fi][1].into(),
                    r.old_bs_pkts.into(),
                    r.new_bs_pkts.into(),
                ]);
            }
        }
        t.into_value()
    }

    /// Freeze-TCP's warning: the receiver advertises a zero window now. A
    /// finished transfer is over (its connection would be closed): its
    /// receiver is not warned and sends nothing.
    pub(super) fn on_freeze(&mut self, _i: u32, flow: FlowId) {
        if self.flows[flow as usize].sender.finished() {
            return;
        }
        let now = self.q.now();
        let ack = self.flows[flow as usize].sink.freeze(now);
        self.sink_out.ack = Some(ack);
        self.after_sink(flow);
    }

    /// After a handoff: every frozen receiver reopens its window with three
    /// ACKs of its last in-order segment (Goff et al. 2000), but that of a
    /// transfer that finished meanwhile.
    fn thaw_receivers(&mut self) {
        let now = self.q.now();
        for flow in 0..self.flows.len() {
            let f = &self.flows[flow];
            if !f.sink.frozen() || f.sender.finished() {
                continue;
            }
            let ack = self.flows[flow].sink.thaw(now);
            for _ in 0..3 {
                self.sink_out.ack = Some(ack);
                self.after_sink(flow as FlowId);
            }
        }
    }

    /// Each agent of BS `from` hands the host's flows' state to the agent of
    /// the same name and place in `to`'s chain (Chen et al. 2002, Table 1,
    /// note +: the expensive way to survive a handoff).
    fn move_state(&mut self, from: NodeId, to: NodeId) {
        let (Some((fs, fe)), Some((ts, te))) =
            (self.node_chain[from as usize], self.node_chain[to as usize])
        else {
            return;
        };
        let now = self.q.now();
        let flows: Vec<FlowId> = (0..self.flows.len())
            .filter(|&f| !self.flows[f].attach.is_empty())
            .map(|f| f as FlowId)
            .collect();
        for (a, b) in (fs..fe).zip(ts..te) {
            if self.agents[a as usize].name() != self.agents[b as usize].name() {
                continue;
            }
            for &flow in &flows {
                let path = self.flows[flow as usize].data_path;
                if let Some(state) = self.agents[a as usize].hand_over(now, flow) {
                    self.agents[b as usize].take_over(now, flow, state, path);
                }
            }
            for agent in [a, b] {
                for &flow in &flows {
                    self.after_agent(agent, flow);
                }
            }
        }
    }

    /// Packets the BS agents of `node` hold now.
    fn state_at(&self, node: NodeId) -> u64 {
        match self.node_chain[node as usize] {
            Some((s, e)) => (s..e)
                .map(|a| self.agents[a as usize].meters().total().pkts)
                .sum(),
            None => 0,
        }
    }
}
