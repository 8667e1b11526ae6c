//! Snoop as ns-2.35 builds it (`tcp/snoop.cc`, the `Snoop` object behind
//! `LL/LLSnoop`): the comparator Chen et al. 2002 and the CLRP paper ran.
//! Selected with `bs = ["snoop_ns2"]`; the paper-faithful `snoop` stays the
//! default. docs/snoop.md tables every difference line by line.
//!
//! The state machine follows snoop.cc's, in tcpair's terms: tcpair's ACK
//! carries the next segment wanted, ns-2's the last one received, so the
//! code keeps ns-2's numbers (`last_ack` = ACK - 1, -1 before any ACK) and
//! reads each test as snoop.cc writes it.
//! - Data toward the MH (`snoop_data`, `snoop_insert`): cached unless the
//!   cache is full (then forwarded uncached, `lru_` = 0) or the BS's output
//!   queue will drop it (snoop.cc caches only while the interface queue has
//!   room; here the insertion is undone when the queue drops the packet).
//!   A packet below the highest seen is a sender retransmission or
//!   reordered: if it lands at the head of the cache it is marked
//!   `senderRxmit`, its DUPACKs then go to the sender; a sender
//!   retransmission of a cached packet resets its count and marks it too.
//!   A packet with sequence number 0 on a live connection resets it.
//! - DUPACKs (`snoop_ack`): with no DUPACKs expected, the first is passed
//!   to the sender and the second triggers the local retransmission
//!   (`RTX_THRESH` 1, a counter shared by every connection of the agent, as
//!   snoop.cc's function-static one is), unless the packet was retransmitted
//!   by the sender or locally before: a lost local retransmission is repaired
//!   only by the timer. The DUPACKs then expected are the cached packets
//!   counted from `expNextAck_` less two; -1 means "miscounted": the next
//!   DUPACK retransmits again if the packet was sent locally fewer than
//!   twice.
//! - New ACKs free the cache and give an RTT sample from the last packet
//!   freed, retransmitted or not (no Karn); older ACKs are passed on.
//! - The local timer: max(srtt + 4 rttvar, snoopTick_), no backoff, armed
//!   when a packet is cached with none pending, and re-armed at each new ACK
//!   and local retransmission; on expiry it retransmits the packet the MH
//!   waits for if it is cached.
//! - MH -> FH: the same ELN tracking as `snoop` (`eln_track`).

use super::eln_track::{on_packet, MhElnTracker, SnoopHalves};
use super::ns2_conn::{held, insert, Cached, Conn, Insert};
use super::ns2_params::{parse, Ns2Params};
use crate::bs::{conn_slot, AgentInfo, BsAgent, BsCtx, BsOut, Meters, Verdict};
use crate::engine::Time;
use crate::error::ConfigError;
use crate::packet::{FlowId, NodeId, Packet, PktKind, Retx};

pub const INFO: AgentInfo = AgentInfo {
    name: "snoop_ns2",
    summary: "Snoop as ns-2.35's snoop.cc builds it: the comparator of Chen et al. 2002",
    source: "ns-2.35 tcp/snoop.cc (Balakrishnan et al.)",
    build,
};

/// snoop.cc's `RTX_THRESH`: DUPACKs passed on before a local retransmission.
const RTX_THRESH: u32 = 1;

fn build(v: &serde_json::Value, node: NodeId) -> Result<Box<dyn BsAgent>, ConfigError> {
    Ok(Box::new(SnoopNs2::new(node, parse(v)?)))
}

/// What the last data packet changed, undone if the output queue drops it.
#[derive(Debug, Clone, Copy)]
struct Undo {
    flow: FlowId,
    seq: u32,
    last_seen: i64,
    exp_next: usize,
    timer: Option<Time>,
    /// The cache entry it changed, and whether it was there before (then
    /// its value before is `SnoopNs2::undo_before`: kept apart, so that the
    /// usual insertion does not write a whole cache entry here).
    entry: Option<(usize, bool)>,
}

#[derive(Debug)]
pub struct SnoopNs2 {
    p: Ns2Params,
    conns: Vec<Conn>,
    /// snoop.cc's function-static DUPACK counter (`thresh`).
    thresh: u32,
    undo: Option<Undo>,
    /// The entry a sender retransmission changed, as it was (see `Undo`).
    undo_before: Option<Cached>,
    mh: MhElnTracker,
    meters: Meters,
}

impl SnoopNs2 {
    pub fn new(_node: NodeId, p: Ns2Params) -> Self {
        Self {
            p,
            conns: Vec::new(),
            thresh: 0,
            undo: None,
            undo_before: None,
            mh: MhElnTracker::default(),
            meters: Meters::default(),
        }
    }

    /// `get-snoop`: the connection's object, created on first sight.
    #[inline]
    fn conn(&mut self, flow: FlowId) -> usize {
        self.meters.touch(flow);
        let p = &self.p;
        conn_slot(&mut self.conns, flow, || Conn::new(p))
    }

    /// `reset()`: a connection starting again (seq 0 on a live one). The
    /// RTT estimate survives, as in snoop.cc.
    fn reset(&mut self, now: Time, i: usize, flow: FlowId) {
        let conn = &mut self.conns[i];
        let (n, bytes) = held(conn);
        conn.cache.clear();
        conn.last_seen = -1;
        conn.last_ack = -1;
        conn.exp_next = 0;
        conn.exp_dupacks = 0;
        conn.timer = None;
        conn.c.resets += 1;
        if n > 0 {
            self.meters.add(now, flow, -n, -bytes);
        }
    }

    /// `snoop_data()`: a data packet from the FH toward the MH.
    fn snoop_data(&mut self, now: Time, pkt: &Packet) {
        self.undo = None;
        let i = self.conn(pkt.flow);
        if self.conns[i].alive && pkt.seq == 0 {
            self.reset(now, i, pkt.flow);
        }
        let p = self.p;
        let conn = &mut self.conns[i];
        conn.alive = true;
        let seq = i64::from(pkt.seq);
        if conn.cache.len() >= p.cache {
            // SNOOP_FULL (no LRU): forwarded uncached.
            conn.last_seen = conn.last_seen.max(seq);
            conn.c.cache_full += 1;
            return;
        }
        let mut undo = Undo {
            flow: pkt.flow,
            seq: pkt.seq,
            last_seen: conn.last_seen,
            exp_next: conn.exp_next,
            timer: conn.timer,
            entry: None,
        };
        let tail = match insert(conn, pkt, now) {
            Insert::Acked => false,
            Insert::New { at, tail } => {
                undo.entry = Some((at, false));
                self.meters.add(now, pkt.flow, 1, i64::from(pkt.size));
                tail
            }
            Insert::Again { at, before } => {
                undo.entry = Some((at, true));
                self.undo_before = Some(before);
                conn.c.sender_retransmits += 1;
                true
            }
        };
        if undo.entry.is_some() {
            self.undo = Some(undo);
        }
        if tail {
            conn.timer = None;
        }
        if conn.timer.is_none() && !conn.cache.is_empty() {
            conn.timer = Some(now + conn.timeout(&p));
        }
    }

    /// `snoop_rxmit()` of the cache's head: a copy toward the MH and the
    /// timer re-armed, or `Forward` once `max_local_rtx` copies were sent.
    fn rxmit(conn: &mut Conn, now: Time, p: &Ns2Params, out: &mut BsOut) -> Verdict {
        let e = &mut conn.cache[0];
        if e.num_rxmit >= p.max_local_rtx {
            return Verdict::Forward;
        }
        e.snd_time = now;
        e.num_rxmit += 1;
        let mut copy = e.pkt;
        copy.retx = Retx::BaseStation; // keeps the sender's `sent_at`
        out.inject.push(copy);
        conn.c.local_retransmits += 1;
        conn.timer = Some(now + conn.timeout(p));
        Verdict::Absorb
    }

    /// `snoop_ack()`: an ACK from the MH.
    fn snoop_ack(&mut self, now: Time, pkt: &Packet, out: &mut BsOut) -> Verdict {
        let i = self.conn(pkt.flow);
        let ack = i64::from(pkt.seq) - 1;
        let last = self.conns[i].last_ack;
        if last > ack {
            return Verdict::Forward; // out of order: passed on
        }
        if last < ack {
            self.new_ack(now, i, pkt.flow, ack);
            return Verdict::Forward;
        }
        let v = self.dupack(now, i, ack, out);
        let c = &mut self.conns[i].c;
        match v {
            Verdict::Absorb => c.dupacks_suppressed += 1,
            Verdict::Forward => c.dupacks_forwarded += 1,
        }
        v
    }

    /// A DUPACK (`lastAck_ == ack`).
    fn dupack(&mut self, now: Time, i: usize, ack: i64, out: &mut BsOut) -> Verdict {
        let p = self.p;
        let conn = &mut self.conns[i];
        let Some(head) = conn.cache.front() else {
            return Verdict::Forward;
        };
        if i64::from(head.pkt.seq) > ack + 1 {
            return Verdict::Forward; // not cached: the sender's
        }
        let (sender_rxmit, num_rxmit) = (head.sender_rxmit, head.num_rxmit);
        match conn.exp_dupacks {
            0 => {
                let passed = self.thresh < RTX_THRESH;
                self.thresh += 1;
                if passed {
                    return Verdict::Forward;
                }
                self.thresh = 0;
                if sender_rxmit {
                    return Verdict::Forward;
                }
                let ring =
                    (conn.cache.len() as i64 - conn.exp_next as i64).rem_euclid(p.cache as i64);
                conn.exp_dupacks = ring - i64::from(RTX_THRESH + 1);
                conn.exp_next = 1;
                if num_rxmit == 0 {
                    return Self::rxmit(conn, now, &p, out);
                }
                Verdict::Forward
            }
            n if n > 0 => {
                conn.exp_dupacks -= 1;
                Verdict::Absorb
            }
            -1 if num_rxmit < 2 => Self::rxmit(conn, now, &p, out),
            _ => Verdict::Forward,
        }
    }

    /// A new ACK: `snoop_cleanbufs_()` and `snoop_rtt()`.
    fn new_ack(&mut self, now: Time, i: usize, flow: FlowId, ack: i64) {
        let p = self.p;
        let conn = &mut self.conns[i];
        conn.timer = None;
        let (mut n, mut bytes, mut snd) = (0i64, 0i64, None);
        // The entries are read in place (each holds a whole packet).
        while let Some(e) = conn.cache.front() {
            if i64::from(e.pkt.seq) > ack {
                break;
            }
            n += 1;
            bytes += i64::from(e.pkt.size);
            snd = Some(e.snd_time);
            conn.cache.pop_front();
        }
        if !conn.cache.is_empty() {
            conn.timer = Some(now + conn.timeout(&p));
        }
        if let Some(t) = snd {
            conn.rtt_sample(now.saturating_sub(t) as f64 / 1e9, p.g);
        }
        conn.exp_dupacks = 0;
        conn.exp_next = 0;
        conn.last_ack = ack;
        if n > 0 {
            self.meters.add(now, flow, -n, -bytes);
        }
    }

    /// `SnoopRxmitHandler::handle()`: the local timer of connection `i`.
    fn timeout(&mut self, i: usize, now: Time, out: &mut BsOut) {
        let p = self.p;
        let conn = &mut self.conns[i];
        conn.timer = None;
        let Some(head) = conn.cache.front() else {
            return;
        };
        if i64::from(head.pkt.seq) != conn.last_ack + 1 {
            return;
        }
        conn.c.local_timeouts += 1;
        if Self::rxmit(conn, now, &p, out) == Verdict::Absorb {
            conn.exp_next = 1;
        }
    }

    /// The output queue dropped `pkt`: snoop.cc would not have cached it
    /// (it inserts only while the interface queue has room).
    fn undo_insert(&mut self, now: Time, pkt: &Packet) {
        let Some(u) = self.undo.take() else { return };
        let Some(entry) = u.entry.filter(|_| u.flow == pkt.flow && u.seq == pkt.seq) else {
            return;
        };
        let p = self.p;
        let conn = &mut self.conns[u.flow as usize];
        conn.last_seen = u.last_seen;
        conn.exp_next = u.exp_next;
        conn.timer = u.timer;
        conn.c.not_cached += 1;
        match entry {
            (at, true) => {
                conn.cache[at] = self.undo_before.take().expect("the entry as it was");
                conn.c.sender_retransmits -= 1;
            }
            (at, false) => {
                conn.cache.remove(at);
                self.meters.add(now, u.flow, -1, -i64::from(pkt.size));
            }
        }
        // Not inserted, snoop.cc still arms a timer if none is pending.
        if conn.timer.is_none() && !conn.cache.is_empty() {
            conn.timer = Some(now + conn.timeout(&p));
        }
    }
}

impl SnoopHalves for SnoopNs2 {
    #[inline]
    fn on_data_to_mh(&mut self, now: Time, pkt: &Packet) {
        self.snoop_data(now, pkt);
    }

    #[inline]
    fn on_ack_from_mh(&mut self, now: Time, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        self.snoop_ack(now, pkt, out)
    }

    #[inline]
    fn mh_half(&mut self, flow: FlowId) -> (&mut MhElnTracker, &mut Meters) {
        self.conn(flow);
        (&mut self.mh, &mut self.meters)
    }
}

impl BsAgent for SnoopNs2 {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_packet(&mut self, now: Time, ctx: &BsCtx, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        on_packet(self, now, ctx, pkt, out)
    }

    fn on_queue_drop(&mut self, now: Time, pkt: &Packet) {
        if pkt.kind == PktKind::Data {
            self.undo_insert(now, pkt);
        }
    }

    fn deadline(&self, flow: FlowId) -> Option<Time> {
        self.conns.get(flow as usize).and_then(|c| c.timer)
    }

    fn on_timer(&mut self, now: Time, flow: FlowId, out: &mut BsOut) {
        self.timeout(flow as usize, now, out);
    }

    fn meters(&self) -> &Meters {
        &self.meters
    }

    fn meters_mut(&mut self) -> &mut Meters {
        &mut self.meters
    }

    fn counters(&self, flow: FlowId) -> Vec<(&'static str, u64)> {
        let c = self
            .conns
            .get(flow as usize)
            .map(|c| c.c)
            .unwrap_or_default();
        vec![
            ("local_retransmits", c.local_retransmits),
            ("local_timeouts", c.local_timeouts),
            ("dupacks_suppressed", c.dupacks_suppressed),
            ("dupacks_forwarded", c.dupacks_forwarded),
            ("cache_full", c.cache_full),
            ("sender_retransmits", c.sender_retransmits),
            ("rtt_samples", c.rtt_samples),
            ("resets", c.resets),
            ("not_cached", c.not_cached),
            ("eln_marked", self.mh.eln_marked(flow)),
        ]
    }
}

#[cfg(test)]
#[path = "ns2_tests.rs"]
mod tests;
