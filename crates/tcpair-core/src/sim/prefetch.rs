//! Loading what the coming events will read while the current one runs.
//!
//! With thousands of flows an event's state (its link direction, lane,
//! packet, the next direction's queue, the flow's end point) lies far
//! outside the caches, and most of it is found through what the step before
//! read: each event would wait for several loads from memory in turn. The
//! event queue takes the coming events from its heap ahead of time
//! ([`LOOKAHEAD`]), so the loop requests their state in stages, one level of
//! indirection per stage, about five events apart: an event's link
//! direction, packet and lane; then (by then in cache) what those point to;
//! then what that points to in turn. Prefetches change no value, so results
//! do not depend on this file.

use super::{Ev, Sim};
use crate::engine::{prefetch, prefetch_all};
use crate::net::DirId;
use crate::packet::Stored;

/// Events taken from the heap ahead of time: the first stage's requests are
/// made this many events before the event runs (about 15 events: several
/// microseconds at 10,000 flows, longer than a load from memory takes).
pub(super) const LOOKAHEAD: usize = 16;

/// The position among the events ahead at which each stage runs: about five
/// events apart, so what a stage requests has arrived when the next reads it.
const STAGES: [usize; 4] = [LOOKAHEAD - 1, 10, 5, 1];

/// From this many flows on the loop prefetches. Below, the flows' state
/// mostly stays in the caches and the requests only cost instructions.
/// Measured with `tcpair-sim` on the scale scenarios (`tcpair.bench.scale`), loop
/// time with against without, 2 cores (AMD EPYC): Reno 1.20 at 1,000 flows,
/// 0.93 at 2,000, 0.55 at 10,000; Snoop 1.02 at 1,000, 0.87 at 2,000, 0.63
/// at 5,000; one flow 1.22 (docs/performance.md).
pub(super) const MIN_FLOWS: usize = 2000;

impl Sim {
    /// Issue the prefetches for the events after the one about to run.
    #[inline]
    pub(super) fn prefetch_coming(&self) {
        for (stage, i) in STAGES.into_iter().enumerate() {
            if let Some((t, &Ev::Arrive { dir, pkt })) = self.q.ahead(i) {
                match stage {
                    0 => self.prefetch_arrival(dir, pkt),
                    1 => self.prefetch_hop(dir, pkt),
                    2 => self.prefetch_queue_or_reply(t, dir, pkt),
                    _ => self.prefetch_reply_queue(pkt),
                }
            }
        }
    }

    /// Stage 1: what an arrival reads first (its link direction, packet and lane).
    #[inline]
    fn prefetch_arrival(&self, dir: u32, pkt: u32) {
        prefetch_all(&self.topo.dirs[dir as usize]);
        prefetch_all(self.arena.head(pkt));
        self.q.prefetch_lane(self.parts.lane[dir as usize]);
    }

    /// Stage 2: what stage 1's data leads to: the lane's next event, the
    /// direction's impairments, the next hop's direction and lane, or at the
    /// end of the path the flow's end point.
    #[inline]
    fn prefetch_hop(&self, dir: u32, pkt: u32) {
        self.q.prefetch_lane_ends(self.parts.lane[dir as usize]);
        let d = &self.topo.dirs[dir as usize];
        if let Some(pipeline) = d.pipeline() {
            prefetch_all(pipeline);
        }
        let p = self.arena.head(pkt);
        match self.routes.hop(p.path, p.hop) {
            Some(next) => {
                self.prefetch_dir(next);
                self.prefetch_agents(d.to, p.flow, 0);
            }
            None => self.flows[p.flow as usize].prefetch(p.kind),
        }
    }

    /// The BS agents of `node` (if any): their state for `flow` at `stage`.
    #[inline]
    fn prefetch_agents(&self, node: u32, flow: u32, stage: u8) {
        if let Some((s, e)) = self.node_chain[node as usize] {
            for a in &self.agents[s as usize..e as usize] {
                a.prefetch(flow, stage);
            }
        }
    }

    /// Stage 3: the loss model's state, the next hop's queue and lane ends
    /// (and the agents' held packets); at the end of the path the delay
    /// histograms' bucket, the first-transmission record and the direction
    /// the reply leaves on.
    #[inline]
    fn prefetch_queue_or_reply(&self, at: crate::engine::Time, dir: u32, pkt: u32) {
        let d = &self.topo.dirs[dir as usize];
        if let Some(pipeline) = d.pipeline() {
            pipeline.prefetch_parts();
        }
        let p = self.arena.head(pkt);
        match self.routes.hop(p.path, p.hop) {
            Some(next) => {
                self.prefetch_dir_ends(next);
                self.prefetch_agents(d.to, p.flow, 1);
            }
            None => {
                self.flows[p.flow as usize].prefetch_records(p, at);
                if let Some(reply) = self.reply_dir(p) {
                    self.prefetch_dir(reply);
                }
            }
        }
    }

    /// Stage 4: at the end of the path, the reply direction's queue and lane ends.
    #[inline]
    fn prefetch_reply_queue(&self, pkt: u32) {
        let p = self.arena.head(pkt);
        if self.routes.hop(p.path, p.hop).is_none() {
            if let Some(reply) = self.reply_dir(p) {
                self.prefetch_dir_ends(reply);
            }
        }
    }

    /// The direction on which the end point that `p` reached sends its reply.
    #[inline]
    fn reply_dir(&self, p: &Stored) -> Option<DirId> {
        let f = &self.flows[p.flow as usize];
        self.routes.hop(f.reply_path(p.kind), 0)
    }

    /// A direction a packet is about to be offered to: its first line and its lane's bookkeeping.
    #[inline]
    fn prefetch_dir(&self, dir: DirId) {
        prefetch(&self.topo.dirs[dir as usize]);
        self.q.prefetch_lane(self.parts.lane[dir as usize]);
    }

    /// The same direction's departure queue and lane ends (its first line in cache).
    #[inline]
    fn prefetch_dir_ends(&self, dir: DirId) {
        self.topo.dirs[dir as usize].prefetch_queue();
        self.q.prefetch_lane_ends(self.parts.lane[dir as usize]);
    }
}
