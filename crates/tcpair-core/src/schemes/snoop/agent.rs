//! Snoop (paper 002, Balakrishnan/Seshan/Katz): a BS agent that caches the
//! data packets it forwards toward a mobile host, watches the MH's ACKs, and
//! retransmits locally what the wireless hop lost, hiding those losses
//! (DUPACKs) from the fixed sender.
//!
//! FH -> MH, per connection, as the paper's two state machines
//! (§3.1): `snoop_output()` (`Snoop::data_to_mh`) and `snoop_input()`
//! (`Snoop::ack_from_mh`), plus the local retransmission timer. MH -> FH,
//! the ELN behaviour of SPEC (shared with `eln_snoop`, see `eln_track`).
//!
//! Interpretations (each also in docs/snoop.md):
//! - A sender retransmission of a cached packet is forwarded (paper 002 §3.1
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
//! - The local timer runs while packets are cached and restarts on each new
//!   ACK, local retransmission and expected DUPACK (the ACK clock runs); on
//!   expiry it retransmits the packet the MH waits for if it is cached and
//!   not marked as a congestion loss, and backs off (doubling, at most 2^6).
//!   DUPACKs already expected stay expected, plus those of packets forwarded
//!   since the last local retransmission.
//! - Karn: the RTT sample of a new ACK is the local send time of the last
//!   packet it frees, taken only if no packet it frees was sent twice.

use std::collections::VecDeque;

use super::eln_track::MhElnTracker;
use crate::bs::{conn_slot, AgentInfo, BsAgent, BsCtx, BsOut, Meters, Verdict};
use crate::engine::{secs, Time, MS};
use crate::error::{from_value, ConfigError};
use crate::packet::{FlowId, NodeId, Packet, PktKind, Retx};
use crate::units::Quantity;
use serde::Deserialize;

pub const INFO: AgentInfo = AgentInfo {
    name: "snoop",
    summary: "Snoop: caches FH->MH data, local retransmissions, DUPACK suppression; ELN for MH->FH (paper 002)",
    source: "Amir et al. 1995 §3.1; ns-2 snoop.cc",
    build,
};

/// Largest exponent of the local timer's backoff.
const MAX_BACKOFF: u32 = 6;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    cache: Option<i64>,
    max_local_rtx: Option<i64>,
    min_rto: Option<Quantity>,
    initial_rto: Option<Quantity>,
}

/// Snoop's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnoopParams {
    /// Packets cached per connection (ns-2 snoop.cc: 100).
    pub cache: usize,
    /// Local retransmissions per packet before it is left to the sender
    /// (ns-2 snoop.cc: 10).
    pub max_local_rtx: u32,
    /// Floor of the local RTO.
    pub min_rto: Time,
    /// Local RTO before the first RTT sample of the wireless hop.
    pub initial_rto: Time,
}

impl Default for SnoopParams {
    fn default() -> Self {
        Self {
            cache: 100,
            max_local_rtx: 10,
            min_rto: 20 * MS,
            initial_rto: 100 * MS,
        }
    }
}

fn seconds(field: &str, q: &Option<Quantity>, dflt: Time) -> Result<Time, ConfigError> {
    let Some(q) = q else { return Ok(dflt) };
    let v = q.as_secs().map_err(|m| ConfigError::new(field, m))?;
    if !v.is_finite() || v <= 0.0 || v > 3600.0 {
        return Err(ConfigError::new(
            field,
            format!("must be a number of seconds > 0 (at most 3600), got {v}"),
        ));
    }
    Ok(secs(v).max(1))
}

fn parse(v: &serde_json::Value) -> Result<SnoopParams, ConfigError> {
    let c: Config = from_value(v)?;
    let d = SnoopParams::default();
    let cache = match c.cache {
        None => d.cache,
        Some(n) if (1..=1_000_000).contains(&n) => n as usize,
        Some(n) => {
            return Err(ConfigError::new(
                "cache",
                format!("must be 1..=1000000 packets, got {n}"),
            ))
        }
    };
    let max_local_rtx = match c.max_local_rtx {
        None => d.max_local_rtx,
        Some(n) if (0..=1000).contains(&n) => n as u32,
        Some(n) => {
            return Err(ConfigError::new(
                "max_local_rtx",
                format!("must be 0..=1000, got {n}"),
            ))
        }
    };
    Ok(SnoopParams {
        cache,
        max_local_rtx,
        min_rto: seconds("min_rto", &c.min_rto, d.min_rto)?,
        initial_rto: seconds("initial_rto", &c.initial_rto, d.initial_rto)?,
    })
}

fn build(v: &serde_json::Value, node: NodeId) -> Result<Box<dyn BsAgent>, ConfigError> {
    Ok(Box::new(Snoop::new(node, parse(v)?)))
}

/// One cached data packet.
#[derive(Debug, Clone, Copy)]
struct Cached {
    pkt: Packet,
    /// When the BS last sent it toward the MH (forwarded or retransmitted).
    sent_local: Time,
    /// Local retransmissions since the sender last sent it.
    nrtx: u32,
    /// Sent more than once through the BS (locally or by the sender): its
    /// ACK gives no RTT sample (Karn).
    ambiguous: bool,
    /// Arrived out of sequence without being cached: lost upstream
    /// (paper 002 §3.1 snoop_output case 3).
    congestion: bool,
}

/// Jacobson/Karels estimator of the wireless hop's RTT (alpha 1/8, beta 1/4).
#[derive(Debug, Clone, Copy, Default)]
struct RttEst {
    srtt: Option<Time>,
    rttvar: Time,
    backoff: u32,
}

impl RttEst {
    fn sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                // rttvar <- 3/4 rttvar + 1/4 |srtt - r|; srtt <- 7/8 srtt + 1/8 r
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.backoff = 0;
    }

    fn rto(&self, p: &SnoopParams) -> Time {
        let base = match self.srtt {
            None => p.initial_rto,
            Some(s) => (s + 4 * self.rttvar).max(p.min_rto),
        };
        base << self.backoff
    }
}

/// FH -> MH state of one connection.
#[derive(Debug, Default)]
struct Conn {
    /// Cached packets, sorted by seq, all >= `last_ack`.
    cache: VecDeque<Cached>,
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
    timer: Option<Time>,
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
    conns: Vec<Conn>,
    mh: MhElnTracker,
    meters: Meters,
}

impl Snoop {
    pub fn new(_node: NodeId, p: SnoopParams) -> Self {
        Self {
            p,
            conns: Vec::new(),
            mh: MhElnTracker::default(),
            meters: Meters::default(),
        }
    }

    fn conn(&mut self, flow: FlowId) -> usize {
        self.meters.touch(flow);
        conn_slot(&mut self.conns, flow, Default::default)
    }

    /// Send a copy of the cached packet at `idx` again toward the MH.
    fn retransmit(conn: &mut Conn, idx: usize, now: Time, out: &mut BsOut) {
        let highest = conn.highest.unwrap_or(0);
        let e = &mut conn.cache[idx];
        let mut p = e.pkt;
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

    /// snoop_output() (paper 002 §3.1): a data packet from the FH.
    fn data_to_mh(&mut self, now: Time, pkt: &Packet) {
        let i = self.conn(pkt.flow);
        let p = self.p;
        let conn = &mut self.conns[i];
        let seq = pkt.seq;
        let new = conn.highest.is_none_or(|h| seq > h);
        if new {
            // Case 1: a new packet in the normal sequence: cache and forward.
            conn.highest = Some(seq);
        } else {
            match conn.cache.binary_search_by_key(&seq, |e| e.pkt.seq) {
                Ok(k) => {
                    // Case 2: a sender retransmission of a cached packet: reset
                    // its local retransmission count (paper 002 §3.1) and
                    // forward it (our choice: it is already on its way).
                    let e = &mut conn.cache[k];
                    e.nrtx = 0;
                    e.ambiguous = true;
                    e.sent_local = now;
                    e.pkt = *pkt;
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
            pkt: *pkt,
            sent_local: now,
            nrtx: 0,
            ambiguous: pkt.retx != Retx::Original,
            // Case 3: out of sequence and not cached: lost upstream
            // (congestion) or reordered; mark it (paper 002 §3.1).
            congestion: !new,
        };
        if new {
            conn.cache.push_back(e);
        } else {
            conn.c.congestion_marked += 1;
            let k = conn.cache.partition_point(|c| c.pkt.seq < seq);
            conn.cache.insert(k, e);
        }
        self.meters.add(now, pkt.flow, 1, i64::from(pkt.size));
        if conn.timer.is_none() {
            conn.timer = Some(now + conn.rtt.rto(&p));
        }
    }

    /// snoop_input() (paper 002 §3.1): an ACK from the MH.
    fn ack_from_mh(&mut self, now: Time, pkt: &Packet, out: &mut BsOut) -> Verdict {
        let i = self.conn(pkt.flow);
        let p = self.p;
        let conn = &mut self.conns[i];
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
        let found = conn.cache.binary_search_by_key(&ack, |e| e.pkt.seq).ok();
        let Some(k) = found.filter(|&k| !conn.cache[k].congestion) else {
            // Not cached or a congestion loss: the sender must repair it and
            // invoke its congestion control (paper 002 §3.1 case 2a).
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
        if pkt.ts_echo < conn.cache[k].pkt.sent_at {
            // A DUPACK triggered by a packet the FH sent *before* the wanted
            // one (its echoed timestamp is older): a duplicate delivery, e.g.
            // of an earlier local retransmission, not a report that the
            // wanted packet was lost. Expected, so discarded (case 2c); a
            // retransmission here would start a chain of them.
            conn.c.dupacks_suppressed += 1;
            conn.c.stale_dupacks += 1;
            return Verdict::Absorb;
        }
        if conn.cache[k].nrtx >= p.max_local_rtx {
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
        Self::retransmit(conn, k, now, out);
        conn.timer = Some(now + conn.rtt.rto(&p));
        conn.c.dupacks_suppressed += 1;
        Verdict::Absorb
    }

    /// Case 3 of snoop_input(): a new ACK.
    fn new_ack(&mut self, now: Time, i: usize, flow: FlowId, ack: u32, out: &mut BsOut) {
        let p = self.p;
        let conn = &mut self.conns[i];
        // Free the cache below `ack`; RTT sample from the last packet freed,
        // unless a packet this ACK covers was sent more than once (Karn).
        let (mut n, mut bytes, mut ambiguous) = (0i64, 0i64, false);
        let mut last_freed: Option<Cached> = None;
        while let Some(e) = conn.cache.front() {
            if e.pkt.seq >= ack {
                break;
            }
            let e = conn.cache.pop_front().expect("front exists");
            n += 1;
            bytes += i64::from(e.pkt.size);
            ambiguous |= e.ambiguous;
            last_freed = Some(e);
        }
        if n > 0 {
            self.meters.add(now, flow, -n, -bytes);
        }
        if let Some(e) = last_freed {
            if !ambiguous && e.pkt.seq + 1 == ack {
                conn.rtt.sample(now.saturating_sub(e.sent_local));
                conn.c.rtt_samples += 1;
            }
        }
        // Paper 002 §3.1 case 3: "determine if a packet has been lost on the
        // wireless link, and if so, retransmit it". During a local recovery
        // (an earlier packet was retransmitted locally), the MH now asks for
        // a packet forwarded before that retransmission: on a FIFO hop it
        // would have arrived first, so it was lost too.
        let recovering = conn.exp_for.is_some();
        conn.exp_for = None;
        conn.exp_left = 0;
        if recovering && ack <= conn.rtx_mark {
            if let Some(e) = conn.cache.front() {
                if e.pkt.seq == ack && !e.congestion && e.nrtx < p.max_local_rtx {
                    // DUPACKs still to come for `ack`: from packets forwarded
                    // after the previous local retransmission.
                    let mark = conn.rtx_mark;
                    conn.exp_for = Some(ack);
                    conn.exp_left = conn.highest.unwrap_or(mark).saturating_sub(mark);
                    Self::retransmit(conn, 0, now, out);
                }
            }
        }
        Self::arm(conn, now, &p);
    }

    /// Local retransmission timeout of one connection.
    fn timeout(&mut self, i: usize, now: Time, out: &mut BsOut) {
        let p = self.p;
        let conn = &mut self.conns[i];
        conn.timer = None;
        let Some(e) = conn.cache.front() else { return };
        let wanted = conn.last_ack.unwrap_or(e.pkt.seq);
        if e.pkt.seq != wanted || e.congestion || e.nrtx >= p.max_local_rtx {
            // The MH waits for a packet not cached, a congestion loss, or one
            // whose local retransmissions are used up: the sender's job.
            return;
        }
        conn.c.local_timeouts += 1;
        conn.rtt.backoff = (conn.rtt.backoff + 1).min(MAX_BACKOFF);
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
        Self::retransmit(conn, 0, now, out);
        conn.timer = Some(now + conn.rtt.rto(&p));
    }
}

impl BsAgent for Snoop {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_packet(&mut self, now: Time, ctx: &BsCtx, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        match pkt.kind {
            PktKind::Data => {
                if ctx.toward_wireless() {
                    self.data_to_mh(now, pkt);
                }
                if ctx.from_wireless() {
                    self.conn(pkt.flow);
                    self.mh.on_data_from_mh(now, pkt, &mut self.meters);
                }
                Verdict::Forward
            }
            PktKind::Ack => {
                if ctx.from_wireless() && self.ack_from_mh(now, pkt, out) == Verdict::Absorb {
                    return Verdict::Absorb;
                }
                if ctx.toward_wireless() {
                    self.conn(pkt.flow);
                    self.mh.on_ack_to_mh(now, pkt, &mut self.meters);
                }
                Verdict::Forward
            }
        }
    }

    fn next_deadline(&self) -> Option<Time> {
        self.conns.iter().filter_map(|c| c.timer).min()
    }

    fn on_timer(&mut self, now: Time, out: &mut BsOut) {
        for i in 0..self.conns.len() {
            if self.conns[i].timer.is_some_and(|t| t <= now) {
                self.timeout(i, now, out);
            }
        }
    }

    fn meters(&self) -> &Meters {
        &self.meters
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
mod tests {
    use super::*;
    use crate::bs::testing::{pkt, DOWN, UP};
    use crate::net::LinkKind;
    use crate::packet::flags;

    fn snoop() -> Snoop {
        Snoop::new(1, SnoopParams::default())
    }

    fn with(v: serde_json::Value) -> Snoop {
        Snoop::new(1, parse(&v).unwrap())
    }

    fn data(bs: &mut Snoop, now: Time, flow: FlowId, seq: u32, out: &mut BsOut) -> Verdict {
        let mut p = pkt(flow, PktKind::Data, seq);
        p.sent_at = 77;
        bs.on_packet(now, &DOWN, &mut p, out)
    }

    /// An ACK echoing a packet the FH sent at the same time as all the
    /// others (`sent_at` 77).
    fn ack(bs: &mut Snoop, now: Time, flow: FlowId, seq: u32, out: &mut BsOut) -> Verdict {
        let mut p = pkt(flow, PktKind::Ack, seq);
        p.ts_echo = 77;
        bs.on_packet(now, &UP, &mut p, out)
    }

    fn counter(bs: &Snoop, flow: FlowId, name: &str) -> u64 {
        bs.counters(flow)
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
    }

    /// Injected seqs, drained.
    fn injected(out: &mut BsOut) -> Vec<u32> {
        out.inject.drain(..).map(|p| p.seq).collect()
    }

    #[test]
    fn new_packets_are_cached_and_forwarded() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..3 {
            assert_eq!(data(&mut bs, 0, 0, s, &mut out), Verdict::Forward);
        }
        assert_eq!(bs.meters().total.pkts, 3);
        assert_eq!(bs.meters().flow(0).unwrap().bytes, 3000);
        // Before any RTT sample the timer uses initial_rto.
        assert_eq!(bs.next_deadline(), Some(100 * MS));
        assert!(out.inject.is_empty());
    }

    #[test]
    fn sender_retransmission_of_a_cached_packet_resets_its_count() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..6 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        ack(&mut bs, MS, 0, 1, &mut out);
        assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
        assert_eq!(injected(&mut out), vec![1]);
        assert_eq!(bs.conns[0].cache[0].nrtx, 1);
        // The FH retransmits 1 itself: forwarded, count reset, not cached twice.
        let mut p = pkt(0, PktKind::Data, 1);
        p.retx = Retx::Sender;
        assert_eq!(
            bs.on_packet(3 * MS, &DOWN, &mut p, &mut out),
            Verdict::Forward
        );
        assert_eq!(bs.conns[0].cache[0].nrtx, 0);
        assert_eq!(bs.meters().total.pkts, 5);
        assert_eq!(counter(&bs, 0, "sender_retransmits"), 1);
        assert!(out.inject.is_empty());
    }

    #[test]
    fn uncached_out_of_sequence_packet_is_a_congestion_loss() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        // 2 was lost upstream of the BS.
        for s in [0, 1, 3, 4] {
            data(&mut bs, 0, 0, s, &mut out);
        }
        assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Forward);
        // A DUPACK for a packet never cached goes to the FH.
        assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Forward);
        assert_eq!(counter(&bs, 0, "dupacks_forwarded"), 1);
        // The sender's retransmission of 2 arrives: cached, marked.
        assert_eq!(data(&mut bs, 2 * MS, 0, 2, &mut out), Verdict::Forward);
        assert_eq!(counter(&bs, 0, "congestion_marked"), 1);
        let seqs: Vec<u32> = bs.conns[0].cache.iter().map(|e| e.pkt.seq).collect();
        assert_eq!(seqs, vec![2, 3, 4]);
        assert!(bs.conns[0].cache[0].congestion);
        // Its DUPACKs are forwarded too, no local retransmission.
        assert_eq!(ack(&mut bs, 3 * MS, 0, 2, &mut out), Verdict::Forward);
        assert_eq!(counter(&bs, 0, "dupacks_forwarded"), 2);
        assert!(out.inject.is_empty());
        // A packet below the MH's ACK is forwarded and not cached.
        assert_eq!(data(&mut bs, 4 * MS, 0, 0, &mut out), Verdict::Forward);
        assert_eq!(bs.meters().total.pkts, 3);
    }

    #[test]
    fn spurious_ack_is_absorbed() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..4 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        assert_eq!(ack(&mut bs, MS, 0, 3, &mut out), Verdict::Forward);
        assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Absorb);
        assert_eq!(counter(&bs, 0, "spurious_acks"), 1);
    }

    #[test]
    fn first_dupack_retransmits_once_and_expected_dupacks_are_absorbed() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..6 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        assert_eq!(ack(&mut bs, MS, 0, 1, &mut out), Verdict::Forward);
        // 1 lost on the wireless hop; 2..=5 arrive: four DUPACKs in all.
        assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
        assert_eq!(out.inject.len(), 1);
        let r = out.inject[0];
        assert_eq!((r.seq, r.retx, r.sent_at), (1, Retx::BaseStation, 77));
        out.inject.clear();
        for _ in 0..3 {
            assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
        }
        assert!(out.inject.is_empty());
        assert_eq!(counter(&bs, 0, "local_retransmits"), 1);
        assert_eq!(counter(&bs, 0, "dupacks_suppressed"), 4);
        // A DUPACK beyond the estimate: the local retransmission was lost too.
        data(&mut bs, 3 * MS, 0, 6, &mut out);
        assert_eq!(ack(&mut bs, 4 * MS, 0, 1, &mut out), Verdict::Absorb);
        assert_eq!(injected(&mut out), vec![1]);
        // Estimated from the packets forwarded since (6), less the one in hand.
        assert_eq!(bs.conns[0].exp_left, 0);
    }

    #[test]
    fn dupack_for_a_packet_not_cached_is_forwarded() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        data(&mut bs, 0, 0, 0, &mut out);
        ack(&mut bs, MS, 0, 1, &mut out);
        assert_eq!(ack(&mut bs, MS, 0, 1, &mut out), Verdict::Forward);
        assert!(out.inject.is_empty());
        assert_eq!(counter(&bs, 0, "dupacks_forwarded"), 1);
    }

    #[test]
    fn new_ack_frees_the_cache_and_samples_rtt_by_karns_rule() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..4 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        assert_eq!(bs.meters().total.pkts, 4);
        ack(&mut bs, 10 * MS, 0, 1, &mut out);
        assert_eq!(bs.meters().total.pkts, 3);
        assert_eq!(bs.meters().total.bytes, 3000);
        assert_eq!(bs.conns[0].rtt.srtt, Some(10 * MS));
        assert_eq!(counter(&bs, 0, "rtt_samples"), 1);
        // 1 is retransmitted locally: the ACK covering it gives no sample.
        ack(&mut bs, 11 * MS, 0, 1, &mut out);
        assert_eq!(injected(&mut out), vec![1]);
        ack(&mut bs, 20 * MS, 0, 4, &mut out);
        assert!(out.inject.is_empty());
        assert_eq!(bs.meters().total.pkts, 0);
        assert_eq!(bs.meters().total.pkts_peak, 4);
        assert_eq!(counter(&bs, 0, "rtt_samples"), 1);
        assert_eq!(bs.conns[0].rtt.srtt, Some(10 * MS));
        assert_eq!(bs.next_deadline(), None);
        // 4 is sent once: sampled (30 ms): srtt = 7/8 10 + 1/8 30 = 12.5 ms.
        data(&mut bs, 0, 0, 4, &mut out);
        ack(&mut bs, 30 * MS, 0, 5, &mut out);
        assert_eq!(counter(&bs, 0, "rtt_samples"), 2);
        assert_eq!(bs.conns[0].rtt.srtt, Some(12_500_000));
        // rttvar = 3/4 5 + 1/4 20 = 8.75 ms.
        assert_eq!(bs.conns[0].rtt.rttvar, 8_750_000);
        assert_eq!(bs.meters().total.pkts, 0);
    }

    #[test]
    fn timer_retransmits_the_first_unacked_packet_and_backs_off() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..4 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        ack(&mut bs, 10 * MS, 0, 1, &mut out); // srtt 10, rttvar 5: rto 30 ms
        assert_eq!(bs.next_deadline(), Some(40 * MS));
        ack(&mut bs, 12 * MS, 0, 1, &mut out);
        assert_eq!(injected(&mut out), vec![1]);
        assert_eq!(bs.next_deadline(), Some(42 * MS));
        // Too early: nothing.
        bs.on_timer(41 * MS, &mut out);
        assert!(out.inject.is_empty());
        bs.on_timer(42 * MS, &mut out);
        let r = out.inject.drain(..).collect::<Vec<_>>();
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].seq, r[0].retx), (1, Retx::BaseStation));
        assert_eq!(bs.next_deadline(), Some(42 * MS + 60 * MS));
        bs.on_timer(102 * MS, &mut out);
        assert_eq!(injected(&mut out), vec![1]);
        assert_eq!(bs.next_deadline(), Some(102 * MS + 120 * MS));
        assert_eq!(counter(&bs, 0, "local_timeouts"), 2);
        assert_eq!(counter(&bs, 0, "local_retransmits"), 3);
    }

    #[test]
    fn stale_dupack_from_a_duplicate_is_absorbed_without_retransmission() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        // The FH sends 0 at t=10, 1..=3 at t=20.
        for s in 0..4 {
            let mut p = pkt(0, PktKind::Data, s);
            p.sent_at = if s == 0 { 10 } else { 20 };
            bs.on_packet(0, &DOWN, &mut p, &mut out);
        }
        let mut a = pkt(0, PktKind::Ack, 1);
        a.ts_echo = 10;
        assert_eq!(bs.on_packet(MS, &UP, &mut a, &mut out), Verdict::Forward);
        // A second copy of 0 reaches the MH: its DUPACK echoes t=10, older
        // than the wanted packet 1: no loss report.
        let mut d = pkt(0, PktKind::Ack, 1);
        d.ts_echo = 10;
        assert_eq!(bs.on_packet(2 * MS, &UP, &mut d, &mut out), Verdict::Absorb);
        assert!(out.inject.is_empty());
        assert_eq!(counter(&bs, 0, "stale_dupacks"), 1);
        // A DUPACK triggered by 2 (sent at t=20) does report 1 lost.
        let mut d = pkt(0, PktKind::Ack, 1);
        d.ts_echo = 20;
        assert_eq!(bs.on_packet(3 * MS, &UP, &mut d, &mut out), Verdict::Absorb);
        assert_eq!(injected(&mut out), vec![1]);
    }

    #[test]
    fn expected_dupacks_restart_the_timer_and_survive_a_timeout() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..6 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        ack(&mut bs, 10 * MS, 0, 1, &mut out); // rto 30 ms
        ack(&mut bs, 12 * MS, 0, 1, &mut out); // local rtx of 1; 3 more expected
        assert_eq!(injected(&mut out), vec![1]);
        assert_eq!(bs.next_deadline(), Some(42 * MS));
        ack(&mut bs, 20 * MS, 0, 1, &mut out);
        assert_eq!(bs.next_deadline(), Some(50 * MS));
        assert_eq!(bs.conns[0].exp_left, 2);
        // Two more packets forwarded after the retransmission, then a timeout.
        data(&mut bs, 21 * MS, 0, 6, &mut out);
        data(&mut bs, 21 * MS, 0, 7, &mut out);
        bs.on_timer(50 * MS, &mut out);
        assert_eq!(injected(&mut out), vec![1]);
        // Still expected: the 2 from before plus the 2 forwarded since.
        assert_eq!(bs.conns[0].exp_left, 4);
        for _ in 0..4 {
            assert_eq!(ack(&mut bs, 51 * MS, 0, 1, &mut out), Verdict::Absorb);
        }
        assert!(out.inject.is_empty());
    }

    #[test]
    fn timer_floor_is_min_rto() {
        let mut bs = with(serde_json::json!({"min_rto": "50ms"}));
        let mut out = BsOut::default();
        data(&mut bs, 0, 0, 0, &mut out);
        data(&mut bs, 0, 0, 1, &mut out);
        ack(&mut bs, MS, 0, 1, &mut out); // rto = 1 + 4 * 0.5 = 3 ms < 50 ms
        assert_eq!(bs.next_deadline(), Some(51 * MS));
    }

    #[test]
    fn per_packet_limit_leaves_the_packet_to_the_sender() {
        let mut bs = with(serde_json::json!({"max_local_rtx": 2}));
        let mut out = BsOut::default();
        for s in 0..3 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        ack(&mut bs, MS, 0, 1, &mut out);
        // highest 2, ack 1: no further DUPACK expected after the first.
        assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
        assert_eq!(injected(&mut out), vec![1]);
        let t = bs.next_deadline().unwrap();
        bs.on_timer(t, &mut out);
        assert_eq!(injected(&mut out), vec![1]);
        // Limit reached: the timer gives up and DUPACKs go to the FH.
        let t = bs.next_deadline().unwrap();
        bs.on_timer(t, &mut out);
        assert!(out.inject.is_empty());
        assert_eq!(bs.next_deadline(), None);
        assert_eq!(ack(&mut bs, t, 0, 1, &mut out), Verdict::Forward);
        assert!(out.inject.is_empty());
        assert_eq!(counter(&bs, 0, "local_retransmits"), 2);
        // max_local_rtx = 0 disables local retransmission altogether.
        let mut bs = with(serde_json::json!({"max_local_rtx": 0}));
        for s in 0..3 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        ack(&mut bs, MS, 0, 1, &mut out);
        assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Forward);
        assert!(out.inject.is_empty());
    }

    #[test]
    fn cache_limit_forwards_without_caching() {
        let mut bs = with(serde_json::json!({"cache": 2}));
        let mut out = BsOut::default();
        for s in 0..3 {
            assert_eq!(data(&mut bs, 0, 0, s, &mut out), Verdict::Forward);
        }
        assert_eq!(counter(&bs, 0, "cache_full"), 1);
        assert_eq!(bs.meters().total.pkts, 2);
        assert_eq!(bs.meters().total.pkts_peak, 2);
        ack(&mut bs, MS, 0, 2, &mut out);
        // 2 was not cached: its DUPACKs are the sender's.
        assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Forward);
        assert!(out.inject.is_empty());
        // Room again: new packets are cached.
        data(&mut bs, MS, 0, 3, &mut out);
        assert_eq!(bs.meters().total.pkts, 1);
    }

    #[test]
    fn partial_new_ack_retransmits_a_further_hole() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..6 {
            data(&mut bs, 0, 0, s, &mut out);
        }
        ack(&mut bs, MS, 0, 1, &mut out);
        ack(&mut bs, 2 * MS, 0, 1, &mut out); // 1 and 3 lost
        assert_eq!(injected(&mut out), vec![1]);
        data(&mut bs, 3 * MS, 0, 6, &mut out);
        data(&mut bs, 3 * MS, 0, 7, &mut out);
        // The retransmitted 1 arrives: MH asks for 3, forwarded before it.
        assert_eq!(ack(&mut bs, 4 * MS, 0, 3, &mut out), Verdict::Forward);
        assert_eq!(injected(&mut out), vec![3]);
        // DUPACKs still to come for 3: those of 6 and 7.
        assert_eq!(bs.conns[0].exp_left, 2);
        assert_eq!(ack(&mut bs, 5 * MS, 0, 3, &mut out), Verdict::Absorb);
        assert!(out.inject.is_empty());
        // The retransmitted 3 arrives: everything is acknowledged.
        assert_eq!(ack(&mut bs, 6 * MS, 0, 8, &mut out), Verdict::Forward);
        assert!(out.inject.is_empty());
        assert_eq!(bs.meters().total.pkts, 0);
        // Without a recovery a partial new ACK retransmits nothing.
        for s in 8..11 {
            data(&mut bs, 7 * MS, 0, s, &mut out);
        }
        assert_eq!(ack(&mut bs, 8 * MS, 0, 9, &mut out), Verdict::Forward);
        assert!(out.inject.is_empty());
    }

    #[test]
    fn connections_do_not_share_dupack_state() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        for s in 0..4 {
            data(&mut bs, 0, 0, s, &mut out);
            data(&mut bs, 0, 1, s, &mut out);
        }
        ack(&mut bs, MS, 0, 1, &mut out);
        ack(&mut bs, MS, 1, 1, &mut out);
        // Flow 0's first DUPACK sets up expected DUPACKs for flow 0 only.
        assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
        assert_eq!(injected(&mut out), vec![1]);
        // Flow 1's first DUPACK is not "expected": it retransmits flow 1's 1.
        assert_eq!(ack(&mut bs, 2 * MS, 1, 1, &mut out), Verdict::Absorb);
        let r: Vec<_> = out.inject.drain(..).map(|p| (p.flow, p.seq)).collect();
        assert_eq!(r, vec![(1, 1)]);
        assert_eq!(counter(&bs, 0, "local_retransmits"), 1);
        assert_eq!(counter(&bs, 1, "local_retransmits"), 1);
        assert_eq!(bs.meters().flow(0).unwrap().pkts, 3);
        assert_eq!(bs.meters().flow(1).unwrap().pkts, 3);
        assert_eq!(bs.meters().total.pkts, 6);
    }

    #[test]
    fn mh_to_fh_dupacks_for_wireless_holes_get_eln() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        // Data from the MH (from the wireless hop): 1 lost on it.
        for s in [0, 2, 3] {
            let mut p = pkt(2, PktKind::Data, s);
            assert_eq!(bs.on_packet(0, &UP, &mut p, &mut out), Verdict::Forward);
        }
        assert_eq!(bs.meters().total.bytes, 4 * 4);
        assert_eq!(bs.meters().total.pkts, 0); // nothing cached MH -> FH
        let mut a = pkt(2, PktKind::Ack, 1);
        assert_eq!(bs.on_packet(MS, &DOWN, &mut a, &mut out), Verdict::Forward);
        assert!(!a.has_flag(flags::ELN));
        let mut d = pkt(2, PktKind::Ack, 1);
        assert_eq!(bs.on_packet(MS, &DOWN, &mut d, &mut out), Verdict::Forward);
        assert!(d.has_flag(flags::ELN));
        assert_eq!(counter(&bs, 2, "eln_marked"), 1);
        assert!(out.inject.is_empty());
        assert_eq!(bs.next_deadline(), None);
    }

    #[test]
    fn wired_only_packets_are_untouched() {
        let mut bs = snoop();
        let mut out = BsOut::default();
        let wired = BsCtx {
            node: 1,
            in_kind: LinkKind::Wired,
            out_kind: LinkKind::Wired,
        };
        let mut p = pkt(0, PktKind::Data, 0);
        assert_eq!(bs.on_packet(0, &wired, &mut p, &mut out), Verdict::Forward);
        let mut a = pkt(0, PktKind::Ack, 0);
        assert_eq!(bs.on_packet(0, &wired, &mut a, &mut out), Verdict::Forward);
        assert_eq!(bs.meters().total.pkts, 0);
        assert_eq!(bs.next_deadline(), None);
    }

    #[test]
    fn config_errors_name_the_field_and_value() {
        let bad = |v: serde_json::Value, field: &str, val: &str| {
            let e = build(&v, 1).unwrap_err().to_string();
            assert!(e.contains(field) && e.contains(val), "{e}");
        };
        bad(serde_json::json!({"cache": 0}), "cache", "0");
        bad(
            serde_json::json!({"max_local_rtx": -1}),
            "max_local_rtx",
            "-1",
        );
        bad(serde_json::json!({"min_rto": 0}), "min_rto", "0");
        bad(
            serde_json::json!({"initial_rto": -0.5}),
            "initial_rto",
            "-0.5",
        );
        bad(
            serde_json::json!({"initial_rto": "soon"}),
            "initial_rto",
            "soon",
        );
        bad(serde_json::json!({"cash": 5}), "cash", "cash");
        let p =
            parse(&serde_json::json!({"cache": 50, "min_rto": "5ms", "initial_rto": 0.2})).unwrap();
        assert_eq!(
            (p.cache, p.max_local_rtx, p.min_rto, p.initial_rto),
            (50, 10, 5 * MS, 200 * MS)
        );
    }
}
