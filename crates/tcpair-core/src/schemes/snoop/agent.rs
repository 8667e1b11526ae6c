//! Snoop (Amir et al. 1995, Balakrishnan/Seshan/Katz): a BS agent that caches the
//! data packets it forwards toward a mobile host, watches the MH's ACKs, and
//! retransmits locally what the wireless hop lost, hiding those losses
//! (DUPACKs) from the fixed sender.
//!
//! FH -> MH, per connection, as the paper's two state machines
//! (§3.1): `snoop_output()` (`Snoop::data_to_mh`) and `snoop_input()`
//! (`Snoop::ack_from_mh`), plus the local retransmission timer. MH -> FH,
//! the ELN behaviour of Chen et al. 2002 §2.2 (shared with `eln_snoop`, see `eln_track`).
//!
//! Interpretations (each also in docs/snoop.md):
//! - A sender retransmission of a cached packet is forwarded (Amir et al. 1995 §3.1
//!   snoop_output case 2 leaves it to "the local retransmission scheme"; the
//!   sender already sent it, so dropping it could only delay the MH).
//! - Expected DUPACKs: at a local retransmission the DUPACKs still to come
//!   are those of packets forwarded before it and after the lost one, minus
//!   the DUPACK in hand. More DUPACKs than that mean the retransmission was
//!   lost too, and the next one triggers another (paper: "if we are not
//!   expecting a DUPACK for this packet, we retransmit").
//! - Partial new ACK (paper: "determine if a packet has been lost ... and if
//!   so, retransmit it"): during a local recovery, a new ACK that asks for a
//!   packet forwarded *before* the last local retransmission shows a further
//!   wireless hole (FIFO link: that packet would have arrived first); it is
//!   retransmitted at once.
//! - A DUPACK whose echoed timestamp (`ts_echo`, the FH's send time of the
//!   packet that triggered it) is older than the wanted packet's send time
//!   was triggered by a duplicate of an earlier packet (typically a local
//!   retransmission that was not needed): it reports no loss and counts as
//!   expected (case 2c, discarded). Without this, each unneeded local
//!   retransmission starts a self-sustaining chain of them.
//! - An ACK can report a packet lost only if a packet forwarded after it
//!   triggered the ACK, and on a FIFO hop such an ACK cannot arrive sooner
//!   than one round trip of the hop after that packet was last forwarded.
//!   An ACK that arrives sooner (the smallest RTT sample is the bound) is
//!   no evidence: a DUPACK is discarded as stale, a partial new ACK starts
//!   no retransmission. The echoed timestamp cannot tell this when the
//!   triggering packet left the sender in the same burst as the wanted one
//!   (equal send times): a go-back-N retransmission of a packet the MH
//!   already holds, arriving just ahead of the wanted packet, made Snoop
//!   retransmit with no wireless loss at all (docs/snoop.md).
//! - The local timer runs while packets are cached and restarts on each new
//!   ACK, local retransmission and expected DUPACK (the ACK clock runs); on
//!   expiry it retransmits the packet the MH waits for if it is cached and
//!   not marked as a congestion loss. No backoff by default (Amir et al.
//!   1995 §3: "a TCP-style round-trip time (RTT) estimate of the last
//!   (wireless) link", nothing more; `max_local_rtx` bounds the repeats);
//!   `max_backoff` doubles it per timeout up to 2^max_backoff.
//!   DUPACKs already expected stay expected, plus those of packets forwarded
//!   since the last local retransmission.
//! - Karn: the RTT sample of a new ACK is the local send time of the last
//!   packet it frees, taken only if no packet it frees was sent twice.

use super::eln_track::{on_packet, MhElnTracker, SnoopHalves};
use super::params::{parse, SnoopParams};
use super::rtt::RttEst;
use crate::bs::cache::{Cache, Entry, Store};
use crate::bs::{conn_slot, AgentInfo, BsAgent, BsCtx, BsOut, Meters, Verdict};
use crate::engine::Time;
use crate::error::ConfigError;
use crate::packet::{DataPacket, FlowId, NodeId, Packet, PktKind, Retx};

pub const INFO: AgentInfo = AgentInfo {
    name: "snoop",
    summary: "Snoop: caches FH->MH data, local retransmissions, DUPACK suppression; ELN for MH->FH",
    source: "Amir et al. 1995 §3.1; ns-2 snoop.cc",
    build,
};

fn build(v: &serde_json::Value, node: NodeId) -> Result<Box<dyn BsAgent>, ConfigError> {
    Ok(Box::new(Snoop::new(node, parse(v)?)))
}

/// One cached data packet.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cached {
    pub(super) pkt: DataPacket,
    /// When the BS last sent it toward the MH (forwarded or retransmitted).
    sent_local: Time,
    /// Local retransmissions since the sender last sent it.
    pub(super) nrtx: u32,
    /// Sent more than once through the BS (locally or by the sender): its
    /// ACK gives no RTT sample (Karn).
    ambiguous: bool,
    /// Arrived out of sequence without being cached: lost upstream
    /// (Amir et al. 1995 §3.1 snoop_output case 3).
    pub(super) congestion: bool,
}

impl Entry for Cached {
    #[inline]
    fn seq(&self) -> u32 {
        self.pkt.seq
    }
}

/// FH -> MH state of one connection.
#[derive(Debug, Default)]
pub(super) struct Conn {
    /// Cached packets, sorted by seq, all >= `last_ack` (in the agent's
    /// store, [`Snoop::store`]).
    pub(super) cache: Cache,
    /// Highest seq seen from the FH.
    highest: Option<u32>,
    /// Last ACK seen from the MH.
    last_ack: Option<u32>,
    /// The ACK value whose DUPACKs are being handled locally.
    exp_for: Option<u32>,
    /// DUPACKs still expected for `exp_for`.
    exp_left: u32,
    /// `highest` at the last local retransmission.
    rtx_mark: u32,
    rtt: RttEst,
    pub(super) timer: Option<Time>,
    c: Counters,
}

#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    local_retransmits: u64,
    local_timeouts: u64,
    dupacks_suppressed: u64,
    dupacks_forwarded: u64,
    spurious_acks: u64,
    congestion_marked: u64,
    cache_full: u64,
    sender_retransmits: u64,
    rtt_samples: u64,
    stale_dupacks: u64,
}

#[derive(Debug)]
pub struct Snoop {
    p: SnoopParams,
    pub(super) conns: Vec<Conn>,
    /// The packets every connection's [`Cache`] holds.
    pub(super) store: Store<Cached>,
    mh: MhElnTracker,
    pub(super) meters: Meters,
}

impl Snoop {
    pub fn new(_node: NodeId, p: SnoopParams) -> Self {
        Self {
            p,
            conns: Vec::new(),
            store: Store::default(),
            mh: MhElnTracker::default(),
            meters: Meters::default(),
        }
    }

    fn conn(&mut self, flow: FlowId) -> usize {
        self.meters.touch(flow);
        conn_slot(&mut self.conns, flow, Default::default)
    }

    /// Send a copy of the cached packet at `idx` again toward the MH.
    fn retransmit(
        conn: &mut Conn,
        store: &mut Store<Cached>,
        idx: usize,
        now: Time,
        out: &mut BsOut,
    ) {
        let highest = conn.highest.unwrap_or(0);
        let e = conn.cache.get_mut(store, idx);
        let mut p = e.pkt.packet();
        p.retx = Retx::BaseStation; // keeps the sender's `sent_at`
        out.inject.push(p);
        e.nrtx += 1;
        e.ambiguous = true;
        e.sent_local = now;
        conn.rtx_mark = highest;
        conn.c.local_retransmits += 1;
    }

    fn arm(conn: &mut Conn, now: Time, p: &SnoopParams) {
        conn.timer = if conn.cache.is_empty() {
            None
        } else {
            Some(now + conn.rtt.rto(p))
        };
    }

    /// snoop_output() (Amir et al. 1995 §3.1): a data packet from the FH.
    #[inline]
    fn data_to_mh(&mut self, now: Time, pkt: &Packet) {
        let i = self.conn(pkt.flow);
        let p = self.p;
        let (conn, store) = (&mut self.conns[i], &mut self.store);
        let seq = pkt.seq;
        let new = conn.highest.is_none_or(|h| seq > h);
        if new {
            // Case 1: a new packet in the normal sequence: cache and forward.
            conn.highest = Some(seq);
        } else {
            match conn.cache.find(store, seq) {
                Ok(k) => {
                    // Case 2: a sender retransmission of a cached packet: reset
                    // its local retransmission count (Amir et al. 1995 §3.1) and
                    // forward it (our choice: it is already on its way).
                    let e = conn.cache.get_mut(store, k);
                    e.nrtx = 0;
                    e.ambiguous = true;
                    e.sent_local = now;
                    e.pkt = pkt.to_data();
                    conn.c.sender_retransmits += 1;
                    return;
                }
                Err(_) if conn.last_ack.is_some_and(|a| seq < a) => {
                    // Already acknowledged by the MH: nothing to cache.
                    return;
                }
                Err(_) => {} // case 3 below
            }
        }
        if conn.cache.len() >= p.cache {
            // Cache full: forward without caching; its losses are the
            // sender's to repair.
            conn.c.cache_full += 1;
            return;
        }
        let e = Cached {
            pkt: pkt.to_data(),
            sent_local: now,
            nrtx: 0,
            ambiguous: pkt.retx != Retx::Original,
            // Case 3: out of sequence and not cached: lost upstream
            // (congestion) or reordered; mark it (Amir et al. 1995 §3.1).
            congestion: !new,
        };
        if new {
            conn.cache.push_back(store, e);
        } else {
            conn.c.congestion_marked += 1;
            conn.cache.insert_sorted(store, e);
        }
        self.meters.add(now, pkt.flow, 1, i64::from(pkt.size));
        if conn.timer.is_none() {
            conn.timer = Some(now + conn.rtt.rto(&p));
        }
    }

    /// snoop_input() (Amir et al. 1995 §3.1): an ACK from the MH.
    #[inline]
    fn ack_from_mh(&mut self, now: Time, pkt: &Packet, out: &mut BsOut) -> Verdict {
        let i = self.conn(pkt.flow);
        let p = self.p;
        let (conn, store) = (&mut self.conns[i], &mut self.store);
        let ack = pkt.seq;
        let Some(last) = conn.last_ack else {
            conn.last_ack = Some(ack);
            self.new_ack(now, i, pkt.flow, ack, out);
            return Verdict::Forward;
        };
        if ack < last {
            // Case 1: spurious ACK, out of the non-decreasing order: discard.
            conn.c.spurious_acks += 1;
            return Verdict::Absorb;
        }
        if ack > last {
            conn.last_ack = Some(ack);
            self.new_ack(now, i, pkt.flow, ack, out);
            return Verdict::Forward;
        }
        // Case 2: a DUPACK.
        let found = conn.cache.find(store, ack).ok();
        let Some(k) = found.filter(|&k| !conn.cache.get(store, k).congestion) else {
            // Not cached or a congestion loss: the sender must repair it and
            // invoke its congestion control (Amir et al. 1995 §3.1 case 2a).
            conn.c.dupacks_forwarded += 1;
            return Verdict::Forward;
        };
        if conn.exp_for == Some(ack) && conn.exp_left > 0 {
            // Expected DUPACK (case 2c): discard. The ACK clock is running,
            // so the local timer restarts (our choice: the retransmission
            // is queued behind the packets these DUPACKs come from).
            conn.exp_left -= 1;
            conn.c.dupacks_suppressed += 1;
            conn.timer = Some(now + conn.rtt.rto(&p));
            return Verdict::Absorb;
        }
        let wanted = conn.cache.get(store, k);
        if pkt.ts_echo < wanted.pkt.sent_at {
            // A DUPACK triggered by a packet the FH sent *before* the wanted
            // one (its echoed timestamp is older): a duplicate delivery, e.g.
            // of an earlier local retransmission, not a report that the
            // wanted packet was lost. Expected, so discarded (case 2c); a
            // retransmission here would start a chain of them.
            conn.c.dupacks_suppressed += 1;
            conn.c.stale_dupacks += 1;
            return Verdict::Absorb;
        }
        if conn.rtt.too_early(now, wanted.sent_local) {
            // Triggered by a packet forwarded before the wanted one's last
            // copy (above): no report of its loss either.
            conn.c.dupacks_suppressed += 1;
            conn.c.stale_dupacks += 1;
            return Verdict::Absorb;
        }
        if wanted.nrtx >= p.max_local_rtx {
            // Local retransmissions used up: left to the sender.
            conn.c.dupacks_forwarded += 1;
            return Verdict::Forward;
        }
        // Not expecting one (case 2b): retransmit at once, estimate the
        // DUPACKs still to come, set the timer, discard the DUPACK. The
        // DUPACKs to come are from the packets forwarded after the lost one
        // (the first time) or after the previous local retransmission (a
        // DUPACK beyond the estimate means that retransmission was lost
        // too), less the one in hand.
        let from = if conn.exp_for == Some(ack) {
            conn.rtx_mark
        } else {
            ack
        };
        let highest = conn.highest.unwrap_or(ack);
        conn.exp_for = Some(ack);
        conn.exp_left = highest.saturating_sub(from).saturating_sub(1);
        Self::retransmit(conn, store, k, now, out);
        conn.timer = Some(now + conn.rtt.rto(&p));
        conn.c.dupacks_suppressed += 1;
        Verdict::Absorb
    }

    /// Case 3 of snoop_input(): a new ACK.
    fn new_ack(&mut self, now: Time, i: usize, flow: FlowId, ack: u32, out: &mut BsOut) {
        let p = self.p;
        let (conn, store) = (&mut self.conns[i], &mut self.store);
        // Free the cache below `ack`; RTT sample from the last packet freed,
        // unless a packet this ACK covers was sent more than once (Karn).
        let (mut n, mut bytes, mut ambiguous) = (0i64, 0i64, false);
        // The last packet freed: its sequence number and when it left the BS
        // (read in place: an entry is a whole packet, not worth copying out).
        let mut last_freed: Option<(u32, Time)> = None;
        while let Some(e) = conn.cache.front(store) {
            if e.pkt.seq >= ack {
                break;
            }
            n += 1;
            bytes += i64::from(e.pkt.size);
            ambiguous |= e.ambiguous;
            last_freed = Some((e.pkt.seq, e.sent_local));
            conn.cache.pop_front(store);
        }
        if n > 0 {
            self.meters.add(now, flow, -n, -bytes);
        }
        if let Some((seq, sent_local)) = last_freed {
            if !ambiguous && seq + 1 == ack {
                conn.rtt.sample(now.saturating_sub(sent_local));
                conn.c.rtt_samples += 1;
            }
        }
        // Amir et al. 1995 §3.1 case 3: "determine if a packet has been lost on the
        // wireless link, and if so, retransmit it". During a local recovery
        // (an earlier packet was retransmitted locally), the MH now asks for
        // a packet forwarded before that retransmission: on a FIFO hop it
        // would have arrived first, so it was lost too.
        let recovering = conn.exp_for.is_some();
        conn.exp_for = None;
        conn.exp_left = 0;
        if recovering && ack <= conn.rtx_mark {
            if let Some(e) = conn.cache.front(store) {
                let evidence = !conn.rtt.too_early(now, e.sent_local);
                if e.pkt.seq == ack && !e.congestion && e.nrtx < p.max_local_rtx && evidence {
                    // DUPACKs still to come for `ack`: from packets forwarded
                    // after the previous local retransmission.
                    let mark = conn.rtx_mark;
                    conn.exp_for = Some(ack);
                    conn.exp_left = conn.highest.unwrap_or(mark).saturating_sub(mark);
                    Self::retransmit(conn, store, 0, now, out);
                }
            }
        }
        Self::arm(conn, now, &p);
    }

    /// Local retransmission timeout of one connection.
    fn timeout(&mut self, i: usize, now: Time, out: &mut BsOut) {
        let p = self.p;
        let (conn, store) = (&mut self.conns[i], &mut self.store);
        conn.timer = None;
        let Some(e) = conn.cache.front(store) else {
            return;
        };
        let wanted = conn.last_ack.unwrap_or(e.pkt.seq);
        if e.pkt.seq != wanted || e.congestion || e.nrtx >= p.max_local_rtx {
            // The MH waits for a packet not cached, a congestion loss, or one
            // whose local retransmissions are used up: the sender's job.
            return;
        }
        conn.c.local_timeouts += 1;
        conn.rtt.backoff = (conn.rtt.backoff + 1).min(p.max_backoff);
        // DUPACKs still to come: those expected already, plus those of the
        // packets forwarded since the last local retransmission (or since
        // the wanted packet, if none came yet), which now report nothing
        // about this retransmission.
        let highest = conn.highest.unwrap_or(wanted);
        let since = if conn.exp_for == Some(wanted) {
            conn.rtx_mark
        } else {
            conn.exp_left = 0;
            wanted
        };
        conn.exp_for = Some(wanted);
        conn.exp_left += highest.saturating_sub(since);
        Self::retransmit(conn, store, 0, now, out);
        conn.timer = Some(now + conn.rtt.rto(&p));
    }
}

impl SnoopHalves for Snoop {
    #[inline]
    fn on_data_to_mh(&mut self, now: Time, pkt: &Packet) {
        self.data_to_mh(now, pkt);
    }

    #[inline]
    fn on_ack_from_mh(&mut self, now: Time, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        self.ack_from_mh(now, pkt, out)
    }

    #[inline]
    fn mh_half(&mut self, flow: FlowId) -> (&mut MhElnTracker, &mut Meters) {
        self.conn(flow);
        (&mut self.mh, &mut self.meters)
    }
}

impl BsAgent for Snoop {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn prefetch(&self, flow: FlowId, stage: u8) {
        if let Some(c) = self.conns.get(flow as usize) {
            match stage {
                0 => crate::engine::prefetch_all(c),
                _ => c.cache.prefetch_ends(&self.store),
            }
        }
    }

    fn on_packet(&mut self, now: Time, ctx: &BsCtx, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        on_packet(self, now, ctx, pkt, out)
    }

    /// A data packet lost to the BS's own output queue is a congestion
    /// loss: marked, so its DUPACKs reach the sender and the timer leaves it
    /// alone (Amir et al. 1995 §3.1, "we need the FH to resend the packet
    /// after invoking its congestion control"; ns-2's snoop.cc does not
    /// cache a packet when the interface queue is full).
    fn on_queue_drop(&mut self, _now: Time, pkt: &Packet) {
        if pkt.kind != PktKind::Data {
            return;
        }
        let Some(conn) = self.conns.get_mut(pkt.flow as usize) else {
            return;
        };
        if let Ok(k) = conn.cache.find(&self.store, pkt.seq) {
            let e = conn.cache.get_mut(&mut self.store, k);
            if !e.congestion {
                e.congestion = true;
                conn.c.congestion_marked += 1;
            }
        }
    }

    fn deadline(&self, flow: FlowId) -> Option<Time> {
        self.conns.get(flow as usize).and_then(|c| c.timer)
    }

    fn on_timer(&mut self, now: Time, flow: FlowId, out: &mut BsOut) {
        self.timeout(flow as usize, now, out);
    }

    fn couples_connections(&self) -> bool {
        false
    }

    fn meters(&self) -> &Meters {
        &self.meters
    }

    fn meters_mut(&mut self) -> &mut Meters {
        &mut self.meters
    }

    fn release_packets(&mut self) {
        self.store = Store::default();
    }

    fn hand_over(&mut self, now: Time, flow: FlowId) -> Option<Box<dyn std::any::Any + Send>> {
        self.give_conn(now, flow)
    }

    fn take_over(
        &mut self,
        now: Time,
        flow: FlowId,
        state: Box<dyn std::any::Any + Send>,
        data_path: u32,
    ) {
        self.adopt_conn(now, flow, state, data_path);
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
            ("spurious_acks", c.spurious_acks),
            ("congestion_marked", c.congestion_marked),
            ("cache_full", c.cache_full),
            ("sender_retransmits", c.sender_retransmits),
            ("rtt_samples", c.rtt_samples),
            ("stale_dupacks", c.stale_dupacks),
            ("eln_marked", self.mh.eln_marked(flow)),
        ]
    }
}

#[cfg(test)]
#[path = "agent_tests.rs"]
mod tests;
