//! CLRP-BS (Sun et al. 2005, Sun/Li/Liew): the base-station half of the
//! Clustered-loss Retransmission Protocol, both directions, per connection.
//!
//! MH -> FH (Sun et al. 2005 §II.A; data arrive from the wireless hop): the BS
//! stores only the sequence numbers it receives from the MH ([`HoleTracker`]).
//! A hole that persists after `hole_threshold` further packets is a wireless
//! loss; so is a packet that DUPACKs from the FH ask for and the BS never
//! received, while one it did receive was lost on the wired side
//! (congestion: counted, never reported). On every ACK toward the MH, new or
//! duplicate, the `max_blocks` most recently declared wireless losses still
//! missing ride in the loss-block option; TCP-MH (`tcp::sender`) does the rest.
//!
//! FH -> MH (§II.B; data leave on the wireless hop): the BS caches the
//! packets it forwards, TCP-MH (`tcp::sink`) detects holes and reports them
//! on its ACKs, and the BS keeps the (sequence, times notified) list
//! ([`NoticeList`]): a reported packet it holds in its cache is a wireless
//! loss and is retransmitted locally once notified `rxmit_threshold` times;
//! one it does not hold never reached the BS (a wired loss) and is the
//! fixed host's to repair. The option is stripped before the ACK goes on,
//! and DUPACKs asking for a cached packet are suppressed, so the FH's TCP is
//! unmodified and sees no wireless loss.
//!
//! Interpretations (each also in docs/clrp.md):
//! - No local timer by default: the paper describes none. A wireless loss
//!   the MH cannot report (too few packets follow it) is left to the FH's
//!   timer. `local_timer` adds one ([`super::bs_timer`]), a reading of
//!   "localized link layer retransmission protocol", not the paper's text.
//! - The -1 mark of a local retransmission ends as at the MH (see
//!   [`super::notices`]): a notice on an ACK echoing a packet the FH sent after the
//!   last packet this BS forwarded before the retransmission.
//! - A sender retransmission of a cached packet refreshes the cached copy
//!   and is forwarded; one of a packet never cached (lost upstream) is cached.

use super::bs_timer::LocalTimer;
use super::holes::HoleTracker;
use super::notices::NoticeList;
use super::{DEFAULT_HOLE_THRESHOLD, DEFAULT_MAX_BLOCKS, DEFAULT_RXMIT_THRESHOLD};
use crate::bs::cache::{Cache, Store};
use crate::bs::{conn_slot, AgentInfo, BsAgent, BsCtx, BsOut, Meters, Verdict, SEQ_BYTES};
use crate::engine::{secs, Time};
use crate::error::{from_value, in_range, ConfigError, Shown};
use crate::packet::{DataPacket, FlowId, NodeId, Packet, PktKind, Retx, MAX_LOSS_BLOCKS};
use crate::units::Quantity;
use serde::Deserialize;

pub const INFO: AgentInfo = AgentInfo {
    name: "clrp",
    summary: "CLRP-BS: wireless-loss blocks on ACKs to an MH sender; cache, loss list and local retransmission for an MH receiver",
    source: "Sun et al. 2005 §II",
    build,
};

/// Bytes of state per entry of the loss list (sequence number and count).
const ENTRY_BYTES: i64 = 8;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    hole_threshold: Option<i64>,
    max_blocks: Option<i64>,
    rxmit_threshold: Option<i64>,
    cache: Option<i64>,
    local_timer: Option<Quantity>,
}

/// CLRP-BS's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClrpParams {
    /// Further packets after which a hole from the MH is a wireless loss.
    pub hole_threshold: u32,
    /// Loss blocks piggy-backed per ACK (Sun et al. 2005: 6).
    pub max_blocks: u32,
    /// Notices after which a cached packet is retransmitted (Sun et al. 2005: 2).
    pub rxmit_threshold: u32,
    /// Packets cached per connection (FH -> MH).
    pub cache: usize,
    /// The BS's local retransmission timer (FH -> MH), if any: not in the
    /// paper (None by default).
    pub local_timer: Option<Time>,
}

impl Default for ClrpParams {
    fn default() -> Self {
        Self {
            hole_threshold: DEFAULT_HOLE_THRESHOLD,
            max_blocks: DEFAULT_MAX_BLOCKS,
            rxmit_threshold: DEFAULT_RXMIT_THRESHOLD,
            cache: 100,
            local_timer: None,
        }
    }
}

fn parse(v: &serde_json::Value) -> Result<ClrpParams, ConfigError> {
    let c: Config = from_value(v)?;
    let d = ClrpParams::default();
    Ok(ClrpParams {
        hole_threshold: in_range(
            "hole_threshold",
            c.hole_threshold.unwrap_or(d.hole_threshold.into()),
            0,
            1000,
        )? as u32,
        max_blocks: in_range(
            "max_blocks",
            c.max_blocks.unwrap_or(d.max_blocks.into()),
            1,
            MAX_LOSS_BLOCKS as i64,
        )? as u32,
        rxmit_threshold: in_range(
            "rxmit_threshold",
            c.rxmit_threshold.unwrap_or(d.rxmit_threshold.into()),
            1,
            1000,
        )? as u32,
        cache: in_range("cache", c.cache.unwrap_or(d.cache as i64), 1, 1_000_000)? as usize,
        local_timer: c.local_timer.as_ref().map(local_timer).transpose()?,
    })
}

fn local_timer(q: &Quantity) -> Result<Time, ConfigError> {
    let v = q
        .as_secs()
        .map_err(|m| ConfigError::new("local_timer", m))?;
    if !v.is_finite() || !(1e-6..=3600.0).contains(&v) {
        return Err(ConfigError::new(
            "local_timer",
            format!("must be a time from 1 us to 3600 s, got {} s", Shown(v)),
        ));
    }
    Ok(secs(v))
}

fn build(v: &serde_json::Value, node: NodeId) -> Result<Box<dyn BsAgent>, ConfigError> {
    Ok(Box::new(ClrpBs::new(node, parse(v)?)))
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counters {
    // MH -> FH (declared holes: the tracker's own counters)
    wired_losses: u64,
    stale_dupacks: u64,
    acks_with_blocks: u64,
    blocks_sent: u64,
    // FH -> MH (notices and repeats: the list's own counters)
    wired_notices: u64,
    stale_notices: u64,
    local_retransmits: u64,
    dupacks_suppressed: u64,
    dupacks_forwarded: u64,
    options_stripped: u64,
    cache_full: u64,
    pub(super) timer_retransmits: u64,
}

/// Both directions' state of one connection.
#[derive(Debug)]
pub(super) struct Conn {
    // MH -> FH
    up: HoleTracker,
    up_last_ack: Option<u32>,
    /// The last DUPACK value counted as a wired loss (counted once).
    up_wired: Option<u32>,
    // FH -> MH
    /// Cached packets in sequence order (in the agent's store,
    /// [`ClrpBs::store`]).
    pub(super) cache: Cache,
    cache_bytes: i64,
    highest: Option<u32>,
    /// Latest FH send time among the packets forwarded toward the MH.
    fwd_mark: Time,
    pub(super) down_last_ack: Option<u32>,
    /// A new ACK from the MH that the BS's own queue toward the FH dropped
    /// after this agent let it through: the FH never saw it.
    down_lost_ack: Option<u32>,
    list: NoticeList,
    rtx: Vec<u32>,
    /// State last reported to the meters.
    held: (i64, i64),
    pub(super) c: Counters,
}

impl Conn {
    fn new(p: &ClrpParams) -> Self {
        Self {
            up: HoleTracker::new(p.hole_threshold),
            up_last_ack: None,
            up_wired: None,
            cache: Cache::default(),
            cache_bytes: 0,
            highest: None,
            fwd_mark: 0,
            down_last_ack: None,
            down_lost_ack: None,
            list: NoticeList::new(p.rxmit_threshold),
            rtx: Vec::new(),
            held: (0, 0),
            c: Counters::default(),
        }
    }

    fn cached(&self, store: &Store<DataPacket>, seq: u32) -> Option<usize> {
        // The cache is in sequence order. Most look-ups are of a new packet
        // (past the newest cached) or of the oldest (the loss an ACK
        // reports): those need not search, each probe a packet of its own.
        match (self.cache.front(store), self.cache.back(store)) {
            (Some(first), Some(last)) if first.seq <= seq && seq <= last.seq => {
                if first.seq == seq {
                    Some(0)
                } else {
                    self.cache.find(store, seq).ok()
                }
            }
            _ => None,
        }
    }

    /// What an ACK echoing `echo` that reports `seq` missing says: None if
    /// `seq` is not cached (never reached the BS: a wired loss); Some(true)
    /// if the ACK was triggered by a packet sent no earlier than the cached
    /// copy (it followed that copy over the FIFO wireless hop, so the copy
    /// was lost there); Some(false) if it predates the copy (stale).
    fn wireless_loss(&self, store: &Store<DataPacket>, seq: u32, echo: Time) -> Option<bool> {
        self.cached(store, seq)
            .map(|j| echo >= self.cache.get(store, j).sent_at)
    }

    /// Packets and bytes held: cached packets, plus each remembered
    /// sequence number (4 bytes) and list entry (8 bytes).
    fn state(&self) -> (i64, i64) {
        (
            self.cache.len() as i64,
            self.cache_bytes
                + SEQ_BYTES * self.up.span() as i64
                + ENTRY_BYTES * self.list.len() as i64,
        )
    }
}

#[derive(Debug)]
pub struct ClrpBs {
    pub(super) p: ClrpParams,
    pub(super) conns: Vec<Conn>,
    /// The packets every connection's [`Cache`] holds.
    pub(super) store: Store<DataPacket>,
    meters: Meters,
    pub(super) timer: LocalTimer,
}

impl ClrpBs {
    pub fn new(_node: NodeId, p: ClrpParams) -> Self {
        Self {
            p,
            conns: Vec::new(),
            store: Store::default(),
            meters: Meters::default(),
            timer: LocalTimer::default(),
        }
    }

    fn conn(&mut self, flow: FlowId) -> usize {
        self.meters.touch(flow);
        let p = self.p;
        conn_slot(&mut self.conns, flow, || Conn::new(&p))
    }

    /// MH -> FH: a data packet that crossed the wireless hop from the MH.
    fn data_from_mh(&mut self, i: usize, pkt: &Packet) {
        self.conns[i].up.on_arrival(pkt.seq, pkt.sent_at);
    }

    /// MH -> FH: an ACK from the FH on its way to the MH.
    fn ack_to_mh(&mut self, i: usize, pkt: &mut Packet) {
        let max = self.p.max_blocks as usize;
        let c = &mut self.conns[i];
        let ack = pkt.seq;
        match c.up_last_ack {
            Some(l) if ack == l => {
                // DUPACKs ask for `ack`: never received here -> wireless;
                // received here -> lost between the BS and the FH (wired).
                if c.up.is_hole(ack) {
                    c.up.declare(ack);
                } else if let Some(sent) = c.up.stamp(ack) {
                    // Only a DUPACK triggered by a packet the MH sent after
                    // the copy of `ack` that passed here shows a wired loss
                    // (FIFO wired hop); an earlier one is stale, e.g. one
                    // still on its way when TCP-MH's retransmission passed.
                    if pkt.ts_echo <= sent {
                        c.c.stale_dupacks += 1;
                    } else if c.up_wired != Some(ack) {
                        c.up_wired = Some(ack);
                        c.c.wired_losses += 1;
                    }
                }
            }
            Some(l) if ack < l => {}
            _ => {
                c.up_last_ack = Some(ack);
                c.up.advance(ack);
            }
        }
        c.up.recent(max, &mut pkt.opts.loss);
        if !pkt.opts.loss.is_empty() {
            c.c.acks_with_blocks += 1;
            c.c.blocks_sent += u64::from(pkt.opts.loss.len);
        }
    }

    /// FH -> MH: a data packet from the FH about to cross the wireless hop.
    fn data_to_mh(&mut self, i: usize, pkt: &Packet) {
        let limit = self.p.cache;
        let (c, store) = (&mut self.conns[i], &mut self.store);
        c.fwd_mark = c.fwd_mark.max(pkt.sent_at);
        let seq = pkt.seq;
        if let Some(k) = c.cached(store, seq) {
            // A sender retransmission of a cached packet: keep the newer copy.
            *c.cache.get_mut(store, k) = pkt.to_data();
            return;
        }
        if c.down_last_ack.is_some_and(|a| seq < a) {
            return; // already acknowledged by the MH
        }
        if c.cache.len() >= limit {
            c.c.cache_full += 1;
            return;
        }
        c.cache_bytes += i64::from(pkt.size);
        if c.highest.is_none_or(|h| seq > h) {
            c.highest = Some(seq);
            c.cache.push_back(store, pkt.to_data());
        } else {
            c.cache.insert_sorted(store, pkt.to_data());
        }
    }

    /// FH -> MH: an ACK from the MH, with TCP-MH's loss blocks.
    fn ack_from_mh(&mut self, i: usize, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        let (c, store) = (&mut self.conns[i], &mut self.store);
        let ack = pkt.seq;
        let blocks = pkt.opts.loss;
        if !blocks.is_empty() {
            // Loss information travels only between the BS and the MH.
            pkt.opts.loss.clear();
            c.c.options_stripped += 1;
        }
        let dup = c.down_last_ack == Some(ack);
        if c.down_last_ack.is_none_or(|l| ack > l) {
            c.down_last_ack = Some(ack);
            c.down_lost_ack = None;
            while let Some(p) = c.cache.front(store).filter(|p| p.seq < ack) {
                c.cache_bytes -= i64::from(p.size);
                c.cache.pop_front(store);
            }
        }
        // A reported number the BS holds is a wireless loss; one it never
        // received was lost on the wired side, the FH's to repair. A notice
        // echoing a packet sent before the cached copy concerns an earlier
        // copy (one lost upstream; the FH's retransmission is now cached)
        // and says nothing about this one.
        let mut wireless = [0u32; MAX_LOSS_BLOCKS];
        let mut n = 0;
        for &s in blocks.as_slice().iter().filter(|&&s| s >= ack) {
            match c.wireless_loss(store, s, pkt.ts_echo) {
                Some(true) => {
                    wireless[n] = s;
                    n += 1;
                }
                Some(false) => c.c.stale_notices += 1,
                None => c.c.wired_notices += 1,
            }
        }
        c.rtx.clear();
        c.list.on_ack(
            ack,
            wireless[..n].iter().copied(),
            pkt.ts_echo,
            c.fwd_mark,
            &mut c.rtx,
        );
        for k in 0..c.rtx.len() {
            if let Some(j) = c.cached(store, c.rtx[k]) {
                let mut p = c.cache.get(store, j).packet();
                p.retx = Retx::BaseStation; // keeps the sender's `sent_at`
                out.inject.push(p);
                c.c.local_retransmits += 1;
            }
        }
        if dup {
            // The first copy of this ACK never left the BS: the FH still waits
            // for it, and absorbing its copies would leave the FH retransmitting
            // what the MH holds, for ever. The copy goes on as the FH's new ACK.
            if c.down_lost_ack == Some(ack) {
                c.down_lost_ack = None;
                c.c.dupacks_forwarded += 1;
                return Verdict::Forward;
            }
            if c.wireless_loss(store, ack, pkt.ts_echo) == Some(true) {
                // A wireless loss the BS repairs: hidden from the FH.
                c.c.dupacks_suppressed += 1;
                return Verdict::Absorb;
            }
            c.c.dupacks_forwarded += 1;
        }
        Verdict::Forward
    }

    fn account(&mut self, now: Time, i: usize, flow: FlowId) {
        let c = &mut self.conns[i];
        let (p, b) = c.state();
        let (hp, hb) = c.held;
        if (p, b) != (hp, hb) {
            c.held = (p, b);
            self.meters.add(now, flow, p - hp, b - hb);
        }
    }
}

impl BsAgent for ClrpBs {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_queue_drop(&mut self, _now: Time, pkt: &Packet) {
        // FH -> MH: the BS's own queue toward the FH dropped the MH's latest
        // ACK after this agent took it as new (and may absorb its copies).
        if pkt.kind != PktKind::Ack {
            return;
        }
        if let Some(c) = self.conns.get_mut(pkt.flow as usize) {
            if c.down_last_ack == Some(pkt.seq) {
                c.down_lost_ack = Some(pkt.seq);
            }
        }
    }

    fn on_packet(&mut self, now: Time, ctx: &BsCtx, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        let i = self.conn(pkt.flow);
        let acked_before = self.conns[i].down_last_ack;
        let mut verdict = Verdict::Forward;
        match pkt.kind {
            PktKind::Data => {
                if ctx.from_wireless() {
                    self.data_from_mh(i, pkt);
                }
                if ctx.toward_wireless() {
                    self.data_to_mh(i, pkt);
                }
            }
            PktKind::Ack => {
                if ctx.from_wireless() {
                    verdict = self.ack_from_mh(i, pkt, out);
                }
                if ctx.toward_wireless() && verdict == Verdict::Forward {
                    self.ack_to_mh(i, pkt);
                }
            }
        }
        if let Some(period) = self.p.local_timer {
            let c = &self.conns[i];
            let progressed = c.down_last_ack != acked_before;
            self.timer
                .rearm(period, now, i, !c.cache.is_empty(), progressed);
        }
        self.account(now, i, pkt.flow);
        verdict
    }

    fn deadline(&self, flow: FlowId) -> Option<Time> {
        self.timer.get(flow as usize)
    }

    fn on_timer(&mut self, now: Time, flow: FlowId, out: &mut BsOut) {
        let Some(period) = self.p.local_timer else {
            return;
        };
        let i = flow as usize;
        let c = &mut self.conns[i];
        if let Some(copy) =
            self.timer
                .fire(period, now, i, c.cache.front(&self.store), c.down_last_ack)
        {
            c.c.timer_retransmits += 1;
            out.inject.push(copy);
        }
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

    fn counters(&self, flow: FlowId) -> Vec<(&'static str, u64)> {
        let conn = self.conns.get(flow as usize);
        let c = conn.map(|c| c.c).unwrap_or_default();
        let holes = conn.map(|c| *c.up.stats()).unwrap_or_default();
        let list = conn.map(|c| *c.list.stats()).unwrap_or_default();
        vec![
            ("holes_declared", holes.by_threshold),
            ("dupack_declared", holes.on_demand),
            ("wired_losses", c.wired_losses),
            ("stale_dupacks", c.stale_dupacks),
            ("acks_with_blocks", c.acks_with_blocks),
            ("blocks_sent", c.blocks_sent),
            ("notices", list.notices),
            ("wired_notices", c.wired_notices),
            ("stale_notices", c.stale_notices),
            ("local_retransmits", c.local_retransmits),
            ("repeat_retransmits", list.repeats),
            ("dupacks_suppressed", c.dupacks_suppressed),
            ("dupacks_forwarded", c.dupacks_forwarded),
            ("options_stripped", c.options_stripped),
            ("cache_full", c.cache_full),
            ("timer_retransmits", c.timer_retransmits),
        ]
    }
}

#[cfg(test)]
#[path = "bs_tests.rs"]
mod tests;
