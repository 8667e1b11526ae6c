//! The network part of a run: forwarding along precomputed paths, link
//! queues, impairment pipelines at link exits, and the ground truth of
//! every drop.

use super::{Ev, Sim};
use crate::bs::BsCtx;
use crate::impair::{DropCause, PipeOut};
use crate::metrics::trace::TraceKind;
use crate::metrics::{DropCauseKind, DropRecord};
use crate::net::{Accept, DirId};
use crate::packet::{flags, Packet, PktKind, PktRef};

impl Sim {
    /// Send `pkt` on its next hop (or hand it to the local agent at the end).
    /// Returns false if the next link's queue dropped it.
    #[inline]
    pub(super) fn forward(&mut self, pkt: PktRef) -> bool {
        let p = self.arena.head(pkt);
        match self.routes.hop(p.path, p.hop) {
            None => {
                self.deliver_local(pkt);
                true
            }
            Some(dir) => self.offer(dir, pkt),
        }
    }

    /// Offer `pkt` to link direction `dir`; false if its queue dropped it.
    #[inline]
    fn offer(&mut self, dir: DirId, pkt: PktRef) -> bool {
        self.offer_with(dir, pkt, false)
    }

    /// [`Self::offer`]; with `keep`, a packet the queue drops is recorded
    /// but stays allocated (the caller shows it to the BS agents, then frees
    /// it). `dir` must not be on a shared medium when `keep` is set.
    #[inline(always)]
    pub(super) fn offer_with(&mut self, dir: DirId, pkt: PktRef, keep: bool) -> bool {
        let now = self.q.now();
        let size = self.arena.head(pkt).size;
        let d = &mut self.topo.dirs[dir as usize];
        if let Some(m) = d.medium {
            return self.wifi_offer(m, dir, pkt);
        }
        match d.offer(now, size) {
            Accept::ArrivesAt(t) => {
                self.arena.head_mut(pkt).hop += 1;
                let lane = self.parts.lane[dir as usize];
                self.q.schedule_in(lane, t, Ev::Arrive { dir, pkt });
                if self.trace.is_some() {
                    self.trace_link(dir, pkt, t);
                }
                true
            }
            Accept::QueueFull => {
                if keep {
                    self.note_drop(dir, pkt, DropCauseKind::Queue);
                } else {
                    self.record_drop(dir, pkt, DropCauseKind::Queue);
                }
                false
            }
        }
    }

    /// `pkt` has reached the far end of `in_dir`: through the node's BS
    /// agents (if it has any and the packet goes on), then onward.
    #[inline(always)]
    pub(super) fn at_node(&mut self, in_dir: DirId, pkt: PktRef) {
        let node = self.topo.dirs[in_dir as usize].to;
        if self.mobility.is_some() {
            self.rebind_at(node, pkt);
        }
        if let Some((s, e)) = self.node_chain[node as usize] {
            let p = self.arena.head(pkt);
            if let Some(out_dir) = self.routes.hop(p.path, p.hop) {
                let ctx = BsCtx {
                    node,
                    in_kind: self.topo.dirs[in_dir as usize].kind,
                    out_kind: self.topo.dirs[out_dir as usize].kind,
                };
                self.run_chain(s, e, &ctx, pkt);
                return;
            }
        }
        self.forward(pkt);
    }

    #[inline]
    pub(super) fn on_arrive(&mut self, dir: DirId, pkt: PktRef) {
        let now = self.q.now();
        if self.trace.is_some() {
            self.trace_arrive(dir, pkt);
        }
        self.topo.dirs[dir as usize].in_transit -= 1;
        if self.mobility.is_some() && self.handoff_cut(dir, pkt) {
            return;
        }
        let d = &mut self.topo.dirs[dir as usize];
        if d.transparent() {
            self.at_node(dir, pkt);
            return;
        }
        let size = self.arena.head(pkt).size;
        let entered = d.entered_at(now, size);
        let pipeline = d.pipeline_mut().expect("a direction with impairments");
        if pipeline.judges_alone() {
            // No stage holds packets back: this arrival is delivered or
            // dropped now, and nothing else is released.
            match pipeline.judge(now, entered, size) {
                None => self.at_node(dir, pkt),
                Some(cause) => self.record_drop(dir, pkt, cause.into()),
            }
            return;
        }
        let arena = &mut self.arena;
        let counters = &mut self.counters;
        let mut clone = |h: u32| -> u32 {
            let mut c: Packet = arena.get(h);
            c.flags |= flags::IMPAIR_COPY;
            counters.copies += 1;
            arena.alloc(c)
        };
        let mut out = std::mem::take(&mut self.pipe_out);
        pipeline.on_arrival(now, entered, pkt, size, &mut clone, &mut out);
        self.after_pipeline(dir, &mut out);
        self.pipe_out = out;
    }

    pub(super) fn on_pipe_timer(&mut self, dir: DirId) {
        let now = self.q.now();
        if self.pipe_timer_at[dir as usize] != Some(now) {
            return; // superseded
        }
        self.pipe_timer_at[dir as usize] = None;
        let Some(pipeline) = self.topo.dirs[dir as usize].pipeline_mut() else {
            return;
        };
        let mut out = std::mem::take(&mut self.pipe_out);
        pipeline.on_timer(now, &mut out);
        self.after_pipeline(dir, &mut out);
        self.pipe_out = out;
    }

    pub(super) fn after_pipeline(&mut self, dir: DirId, out: &mut Vec<PipeOut>) {
        for o in out.drain(..) {
            match o {
                PipeOut::Deliver(h) => self.at_node(dir, h),
                PipeOut::Drop(h, cause) => self.record_drop(dir, h, cause.into()),
            }
        }
        let pipeline = self.topo.dirs[dir as usize].pipeline();
        if let Some(dl) = pipeline.and_then(|p| p.next_deadline()) {
            let slot = &mut self.pipe_timer_at[dir as usize];
            if slot.is_none_or(|t| t > dl) {
                *slot = Some(dl);
                self.q.schedule(dl, Ev::PipeTimer { dir });
            }
        }
    }

    /// Record the drop of `pkt` and free it.
    #[cold]
    #[inline(never)]
    pub(super) fn record_drop(&mut self, dir: DirId, pkt: PktRef, cause: DropCauseKind) {
        self.note_drop(dir, pkt, cause);
        self.arena.free(pkt);
    }

    /// Record the drop of `pkt` (its row, its ground truth, the trace),
    /// leaving it allocated.
    #[cold]
    #[inline(never)]
    pub(super) fn note_drop(&mut self, dir: DirId, pkt: PktRef, cause: DropCauseKind) {
        let p = self.arena.get(pkt);
        let link_kind = self.topo.dirs[dir as usize].kind;
        if self.trace.is_some() {
            let d = &self.topo.dirs[dir as usize];
            let node = if cause == DropCauseKind::Queue {
                d.from
            } else {
                d.to
            };
            let now = self.q.now();
            self.trace_packet(now, TraceKind::Drop, &p, (node, Some(dir)), cause.name());
        }
        if self.scenario.keep_drops {
            self.drops.push(DropRecord {
                time: self.q.now(),
                flow: p.flow,
                kind: p.kind,
                seq: p.seq,
                packet_id: p.id,
                dir,
                cause,
                link_kind,
                retx: p.retx,
            });
        }
        if p.kind == PktKind::Data {
            let f = &mut self.flows[p.flow as usize];
            f.lost_max = f.lost_max.max(p.seq);
            if let Some((c, k)) = f.lost.insert(p.seq, (cause, link_kind)) {
                if c.loss_cause(k) != cause.loss_cause(link_kind) {
                    f.lost_mixed.insert(p.seq);
                }
            }
        }
        self.counters.dropped += 1;
    }

    /// Packets currently inside the network (queued, on a wire, or held by an
    /// impairment), counted from the links' own counters, plus those a
    /// sender's processing jitter holds.
    pub fn in_flight(&self) -> u64 {
        let links: u64 = self
            .topo
            .dirs
            .iter()
            .map(|d| d.in_transit + d.pipeline().map_or(0, |p| p.held()) as u64)
            .sum();
        links + self.flows.iter().map(|f| f.held).sum::<u64>()
    }
}

impl From<DropCause> for DropCauseKind {
    fn from(c: DropCause) -> Self {
        match c {
            DropCause::Corruption => DropCauseKind::Corruption,
            DropCause::Outage => DropCauseKind::Outage,
        }
    }
}
