//! BS-agent chains: each packet a node forwards passes its agents in
//! order; what they inject goes through the rest of the chain, then onward.

use super::{Ev, Sim};
use crate::bs::{BsCtx, Verdict};
use crate::engine::Time;
use crate::packet::{FlowId, PktKind, PktRef};

impl Sim {
    /// Show `pkt` to agents `from..to` of one node, carry out what they ask,
    /// and forward it unless one absorbed it.
    pub(super) fn run_chain(&mut self, from: u32, to: u32, ctx: &BsCtx, pkt: PktRef) {
        let now = self.q.now();
        let flow = self.arena.head(pkt).flow;
        for i in from..to {
            let v = if self.trace.is_some() {
                self.on_packet_traced(i, now, ctx, pkt)
            } else {
                // The agent works on the packet, options included; what it
                // changed goes back to the arena (unless it absorbed it).
                let mut p = self.arena.get(pkt);
                let v = self.agents[i as usize].on_packet(now, ctx, &mut p, &mut self.bs_out);
                if v != Verdict::Absorb {
                    self.arena.set(pkt, &p);
                }
                v
            };
            self.after_agent(i, flow);
            if v == Verdict::Absorb {
                self.counters.absorbed += 1;
                self.arena.free(pkt);
                return;
            }
        }
        let p = self.arena.head(pkt);
        match self.routes.hop(p.path, p.hop) {
            Some(dir) if self.topo.dirs[dir as usize].medium.is_none() => {
                // A packet the queue drops stays allocated until the
                // agents have seen it.
                if !self.offer_with(dir, pkt, true) {
                    let p = self.arena.get(pkt);
                    for i in from..to {
                        self.agents[i as usize].on_queue_drop(now, &p);
                    }
                    self.arena.free(pkt);
                }
            }
            _ => {
                let p = self.arena.get(pkt);
                if !self.forward(pkt) {
                    for i in from..to {
                        self.agents[i as usize].on_queue_drop(now, &p);
                    }
                }
            }
        }
    }

    /// Agent `i`'s `on_packet` in a traced run: the trace needs the packet
    /// as it was before the agent saw it. Apart from the hot path, whose
    /// stack frame would otherwise hold that copy at every call.
    #[cold]
    #[inline(never)]
    fn on_packet_traced(&mut self, i: u32, now: Time, ctx: &BsCtx, pkt: PktRef) -> Verdict {
        let before = self.arena.get(pkt);
        if let Some(t) = self.trace.as_deref_mut() {
            t.bs_reason = if before.kind == PktKind::Ack {
                "ack"
            } else {
                "data"
            };
        }
        let held = self.agents[i as usize].meters().total().pkts;
        let mut p = before;
        let v = self.agents[i as usize].on_packet(now, ctx, &mut p, &mut self.bs_out);
        self.arena.set(pkt, &p);
        self.trace_agent(i, (&before, &p), v == Verdict::Absorb, held);
        v
    }

    /// Inject what agent `i` asked for (through the rest of its node's
    /// chain) and re-arm its timer for connection `flow` (the one the call
    /// was about: only its timer can have changed, `BsAgent::deadline`).
    pub(super) fn after_agent(&mut self, i: u32, flow: FlowId) {
        if !self.bs_out.inject.is_empty() {
            let reason = self.trace.as_ref().map_or("", |t| t.bs_reason);
            let node = self.agent_node[i as usize];
            let (_, end) = self.node_chain[node as usize].expect("agent's node has a chain");
            let mut inj = std::mem::take(&mut self.bs_out.inject);
            for mut p in inj.drain(..) {
                let path = self.routes.path(p.path);
                let Some(h) = path
                    .iter()
                    .position(|&d| self.topo.dirs[d as usize].from == node)
                else {
                    debug_assert!(
                        false,
                        "agent injected a packet of a flow not routed via its node"
                    );
                    continue;
                };
                let out_dir = path[h];
                let out_kind = self.topo.dirs[out_dir as usize].kind;
                let in_kind = if h > 0 {
                    self.topo.dirs[path[h - 1] as usize].kind
                } else {
                    out_kind
                };
                p.hop = h as u16;
                if p.kind == PktKind::Data {
                    self.flows[p.flow as usize].bs_retx += 1;
                }
                let r = self.arena.alloc(p);
                self.counters.injected += 1;
                if self.trace.is_some() {
                    let q = self.arena.get(r);
                    self.trace_inject(i, &q, reason);
                }
                let ctx = BsCtx {
                    node,
                    in_kind,
                    out_kind,
                };
                self.run_chain(i + 1, end, &ctx, r);
            }
            if self.bs_out.inject.capacity() == 0 {
                self.bs_out.inject = inj; // keep the buffer
            }
        }
        self.arm_agent_timer(i, flow);
    }

    /// Keep one timer event pending for agent `i`'s connection `flow` while
    /// its deadline runs, lazily: an event is scheduled when the deadline
    /// moves earlier than the pending one; a deadline moved later is found
    /// when the pending event fires, and scheduled again then.
    fn arm_agent_timer(&mut self, i: u32, flow: FlowId) {
        let Some(dl) = self.agents[i as usize].deadline(flow) else {
            return;
        };
        let at = dl.max(self.q.now());
        let k = self.agent_timer_slot(i, flow);
        let slot = &mut self.agent_timer_at[k];
        if slot.is_none_or(|t| t > at) {
            *slot = Some(at);
            self.q.schedule(at, Ev::BsTimer { agent: i, flow });
        }
    }

    /// Index of agent `i`'s timer for connection `flow` in `agent_timer_at`.
    #[inline]
    fn agent_timer_slot(&self, i: u32, flow: FlowId) -> usize {
        i as usize * self.flows.len() + flow as usize
    }

    pub(super) fn on_bs_timer(&mut self, i: u32, flow: FlowId) {
        let now = self.q.now();
        let k = self.agent_timer_slot(i, flow);
        if self.agent_timer_at[k] != Some(now) {
            return; // superseded by an earlier deadline
        }
        self.agent_timer_at[k] = None;
        let agent = &mut self.agents[i as usize];
        // The deadline may have moved later since the event was scheduled.
        if agent.deadline(flow).is_some_and(|t| t <= now) {
            if let Some(t) = self.trace.as_deref_mut() {
                t.bs_reason = "timer";
            }
            agent.on_timer(now, flow, &mut self.bs_out);
        }
        self.after_agent(i, flow);
    }
}
