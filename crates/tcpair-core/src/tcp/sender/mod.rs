//! The TCP sender state machine, sans-IO.
//!
//! ns-2 packet-mode conventions: segments numbered from 0, cumulative ACK =
//! next expected segment, cwnd/ssthresh in packets (f64). The caller feeds
//! `start`, ACKs and timer expiries with the current time and carries out
//! what lands in [`SenderOutput`]. See docs/tcp.md for every choice made here.
//!
//! Where the code lives:
//! - this file: the state, the entry points, the retransmission timer,
//!   sending;
//! - `acks`: what a new ACK and a duplicate ACK do (the RTT sample, the
//!   fast-retransmit guard, limited transmit);
//! - `decide`: the one fast-retransmit decision point (detector,
//!   responder, the record of each decision);
//! - `recovery`: the recovery mechanics (Tahoe, Reno, NewReno, SACK) that
//!   carry a decision out and end it.

use super::cc::LossCtx;
use super::rto::RtoEstimator;
use super::scoreboard::Scoreboard;
use super::{
    AckInfo, Counters, History, Recovery, RecoveryEvent, SendSeg, SenderOutput, SenderStats,
    TcpConfig, Window,
};
use crate::engine::Time;
use crate::schemes::clrp::mh::{ClrpMh, RETRANSMIT_EVENT};

mod acks;
mod decide;
mod persist;
mod recovery;

#[derive(Debug, Clone)]
pub struct TcpSender {
    cfg: TcpConfig,
    cwnd: f64,
    ssthresh: f64,
    snd_una: u32,
    snd_nxt: u32,
    max_sent: u32,
    /// Segments the finite transfer has (u32::MAX for a bulk source).
    limit: u32,
    dupacks: u32,
    /// Segments sent by limited transmit in the current dupack series; not
    /// part of FlightSize for ssthresh (RFC 5681 §3.2 step 2).
    lt_sent: u32,
    in_recovery: bool,
    /// Highest segment sent when the last congestion response (fast
    /// retransmit or timeout) happened (RFC 6582 `recover`, ns-2 `recover_`):
    /// no new congestion response for duplicates of data sent before it. A
    /// wireless response leaves it alone.
    recover: Option<u32>,
    /// Highest segment sent when the current fast recovery began, wireless
    /// or not: an ACK beyond it ends SACK recovery (RFC 6675 RecoveryPoint).
    recovery_point: Option<u32>,
    /// NewReno: the first partial ACK of this episode has been seen.
    partial_seen: bool,
    rto: RtoEstimator,
    rto_deadline: Option<Time>,
    /// One timed segment at a time, as ns-2 (`rtt_seq_`, `rtt_ts_`).
    rtt_seq: Option<u32>,
    rtt_start: Time,
    /// snd_una at the last timeout: a repeated timeout of the same segment
    /// keeps ssthresh (RFC 5681 §3.1 implementation note).
    last_timeout_una: Option<u32>,
    sb: Scoreboard,
    /// RFC 6675 HighRxt.
    high_rxt: Option<u32>,
    /// The last segment fast-retransmitted on a wireless verdict: a hole
    /// gets one such retransmission (then the timer).
    wireless_rxmit: Option<u32>,
    /// The cwnd the current fast recovery ends with: the congestion op's
    /// (`LossCtx` response) or the one a wireless response set.
    resp_cwnd: Option<f64>,
    /// Highest segment ever retransmitted (Karn's rule for history samples).
    rtx_high: Option<u32>,
    history: History,
    /// Whether any part reads the history (else it is not kept).
    keep_history: bool,
    /// Whether the detector wants every RTT sample.
    detector_samples: bool,
    /// TCP-MH's sender part (CLRP).
    clrp: Option<ClrpMh>,
    /// The receiver's advertised window (segments; `u32::MAX`: unlimited).
    rwnd: u32,
    /// Freeze-TCP: the state a zero window froze.
    frozen: Option<persist::Frozen>,
    started: bool,
    stats: SenderStats,
    /// No SACK, no history kept, no CLRP: a new ACK outside recovery takes
    /// [`Self::plain_new_ack`].
    plain: bool,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig) -> Self {
        let limit = match cfg.total_segments {
            Some(n) => u32::try_from(n).unwrap_or(u32::MAX),
            None => u32::MAX,
        };
        Self {
            cwnd: cfg.initial_cwnd.max(1.0),
            ssthresh: cfg.initial_ssthresh,
            snd_una: 0,
            snd_nxt: 0,
            max_sent: 0,
            limit,
            dupacks: 0,
            lt_sent: 0,
            in_recovery: false,
            recover: None,
            recovery_point: None,
            partial_seen: false,
            rto: RtoEstimator::from_config(&cfg),
            rto_deadline: None,
            rtt_seq: None,
            rtt_start: 0,
            last_timeout_una: None,
            sb: Scoreboard::new(),
            high_rxt: None,
            wireless_rxmit: None,
            resp_cwnd: None,
            rtx_high: None,
            history: History::default(),
            keep_history: cfg.cc.uses_history() || cfg.detector.uses_history(),
            detector_samples: cfg.detector.wants_samples(),
            clrp: cfg.clrp.map(ClrpMh::new),
            rwnd: u32::MAX,
            frozen: None,
            started: false,
            stats: SenderStats::default(),
            plain: cfg.recovery != Recovery::Sack
                && !(cfg.cc.uses_history() || cfg.detector.uses_history())
                && cfg.clrp.is_none(),
            cfg,
        }
    }

    /// Send the initial window (idempotent).
    pub fn start(&mut self, now: Time, out: &mut SenderOutput) {
        if self.started {
            return;
        }
        self.started = true;
        self.send_much(now, out);
    }

    /// Take every ACK by the general path (tests compare it with the short one).
    #[cfg(test)]
    pub(crate) fn without_short_path(&mut self) {
        self.plain = false;
    }

    pub fn on_ack(&mut self, now: Time, ack: &AckInfo, out: &mut SenderOutput) {
        if self.plain
            && ack.ack > self.snd_una
            && ack.ack <= self.max_sent
            && !self.in_recovery
            && self.frozen.is_none()
            && !ack.eln
            && ack.rwnd == self.rwnd
        {
            self.plain_new_ack(now, ack.ack, out);
            return;
        }
        let a = ack.ack;
        if a > self.max_sent {
            // Acknowledges data never sent: ignore (RFC 9293 §3.10.7.4).
            return;
        }
        if self.cfg.recovery == Recovery::Sack {
            for &(s, e) in ack.sack.as_slice() {
                self.sb.mark_sacked(s, e);
            }
        }
        if ack.eln {
            self.stats.eln_acks += 1;
        }
        if ack.rwnd != self.rwnd {
            // A window update: not a duplicate ACK (RFC 5681 §2).
            self.on_rwnd(now, a, ack.rwnd);
            if a <= self.snd_una {
                self.send_much(now, out);
                return;
            }
        }
        if self.keep_history {
            self.history.on_ack_arrival(now, ack.rcv_at, ack.ts_echo);
        }
        if let Some(c) = self.clrp.as_mut() {
            // CLRP (Sun et al. 2005 §II.A, Fig. 2): the list is updated from
            // every ACK, new or duplicate, before the ACK itself.
            c.on_ack(a.max(self.snd_una), &ack.loss, ack.ts_echo, now);
        }
        if a > self.snd_una {
            self.new_ack(now, ack, out);
        } else if a == self.snd_una && self.max_sent > self.snd_una && self.frozen.is_none() {
            if self.keep_history {
                self.history.on_dup_ack(ack.ts_echo);
                self.cfg.cc.on_ack(now, 0, &self.history);
            }
            match self.clrp.as_mut() {
                // A DUPACK for a listed wireless loss: neither fast
                // retransmit nor a window cut (its recovery is CLRP's).
                Some(c) if c.lists(a) => c.on_listed_dupack(),
                _ => self.dup_ack(now, ack, out),
            }
        }
        self.clrp_retransmit(now, out);
        // An old ACK (a < snd_una) only contributes its SACK blocks.
        // RFC 6675 §5 (2): IsLost(HighACK + 1) also starts recovery.
        if self.cfg.recovery == Recovery::Sack
            && !self.in_recovery
            && self.sb.is_lost(self.snd_una, self.cfg.dupack_threshold)
        {
            self.trigger(now, ack, out);
        }
        self.send_much(now, out);
        self.keep_probe_timer();
    }

    /// Retransmission timer. Lazy: a no-op unless `now >= rto_deadline()`.
    pub fn on_timer(&mut self, now: Time, out: &mut SenderOutput) {
        match self.rto_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        if self.frozen.is_some() {
            self.probe(now, out);
            return;
        }
        if self.snd_una >= self.max_sent {
            self.rto_deadline = None;
            return;
        }
        let before = self.window();
        let expired = self.rto.rto();
        self.stats.timeouts += 1;
        self.stats.window_cuts += 1;
        self.stats.timeout_rto_sum_ns += u128::from(expired);
        // RFC 5681 (4), held on a repeated timeout of the same segment.
        if self.last_timeout_una != Some(self.snd_una) || self.cfg.cc.cuts_at_every_timeout() {
            let c = LossCtx {
                cwnd: self.cwnd,
                ssthresh: self.ssthresh,
                flight: self.max_sent - self.snd_una,
                window: self.cfg.window,
            };
            self.ssthresh = self.cfg.cc.on_timeout(&c, &self.history);
        }
        self.last_timeout_una = Some(self.snd_una);
        self.cwnd = 1.0;
        self.rto.backoff(); // RFC 6298 §5.5
        self.rtt_seq = None; // Karn
                             // RFC 6582 §3.2 step 4 / RFC 6675 §5.1: no new fast retransmit for
                             // dupacks of the data sent before the timeout.
        self.recover = Some(self.max_sent - 1);
        self.in_recovery = false;
        self.resp_cwnd = None;
        self.dupacks = 0;
        self.lt_sent = 0;
        if let Some(c) = self.clrp.as_mut() {
            c.on_timeout();
        }
        if self.cfg.recovery == Recovery::Sack {
            self.sb.clear_sacked();
            self.sb.clear_retransmitted();
            self.high_rxt = None;
        }
        // Go-back-N.
        self.snd_nxt = self.snd_una;
        self.rto_deadline = None;
        let seq = self.snd_una;
        let after = self.window();
        out.events
            .push(RecoveryEvent::Timeout { seq, before, after });
        self.transmit(now, seq, out);
        self.snd_nxt = seq + 1;
        self.send_much(now, out);
    }

    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn window(&self) -> Window {
        Window {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        }
    }
    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u32 {
        self.snd_nxt
    }
    /// Highest segment sent + 1.
    pub fn max_sent(&self) -> u32 {
        self.max_sent
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// A finite transfer is fully acknowledged.
    pub fn finished(&self) -> bool {
        self.cfg.total_segments.is_some() && self.snd_una >= self.limit
    }
    /// The RTO the timer would be armed with now (backoff included).
    pub fn current_rto(&self) -> Time {
        self.rto.rto()
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Duplicate ACKs counted since the last new ACK.
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    /// The RTT and ACK history.
    pub fn history(&self) -> &History {
        &self.history
    }
    /// The detector needs the simulator's ground truth on each ACK.
    pub fn wants_truth(&self) -> bool {
        self.cfg.detector.wants_truth()
    }
    /// TCP-MH's sender part (None unless CLRP).
    pub fn clrp(&self) -> Option<&ClrpMh> {
        self.clrp.as_ref()
    }

    /// The per-flow counters of the sender's scheme parts (detector, CLRP).
    pub fn counters(&self, out: &mut Counters) {
        self.cfg.detector.counters(out);
        if let Some(c) = self.clrp.as_ref() {
            c.counters(out);
        }
    }

    // ---- internals ----

    /// Retransmit the CLRP-listed packets whose notices reached the
    /// threshold, "promptly without starting up TCP congestion control"
    /// (Sun et al. 2005 §II.A): cwnd, ssthresh, dupacks and recovery untouched.
    fn clrp_retransmit(&mut self, now: Time, out: &mut SenderOutput) {
        let (una, max) = (self.snd_una, self.max_sent);
        let Some(c) = self.clrp.as_mut() else { return };
        let rtx = c.take_retransmits(|s| s >= una && s < max);
        for &seq in &rtx {
            out.events.push(RecoveryEvent::Retransmit {
                seq,
                by: RETRANSMIT_EVENT,
            });
            self.transmit(now, seq, out);
        }
        if let Some(c) = self.clrp.as_mut() {
            c.put_back(rtx);
        }
    }

    fn effective_window(&self) -> u32 {
        let extra = self.clrp.as_ref().map_or(0, ClrpMh::extra);
        let c = crate::engine::fmath::floor(self.cwnd) + f64::from(extra);
        let c = if c >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            c as u32
        };
        c.min(self.cfg.window).min(self.receiver_window())
    }

    /// Send what the window allows (RFC 5681 outside recovery; RFC 6675 (C)
    /// during SACK recovery).
    fn send_much(&mut self, now: Time, out: &mut SenderOutput) {
        if !self.started {
            return;
        }
        let sack = self.cfg.recovery == Recovery::Sack;
        if sack && self.in_recovery {
            self.sack_send(now, out);
            return;
        }
        let wnd = self.effective_window();
        while self.snd_nxt < self.limit && self.snd_nxt - self.snd_una < wnd {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            if sack && seq < self.max_sent && self.sb.is_sacked(seq) {
                continue; // go-back-N skips what the receiver SACKed
            }
            self.transmit(now, seq, out);
        }
    }

    /// Put one transmission in `out` and do the bookkeeping common to all.
    fn transmit(&mut self, now: Time, seq: u32, out: &mut SenderOutput) {
        debug_assert!(seq < self.limit, "segment {seq} beyond the transfer's end");
        let retransmit = seq < self.max_sent;
        out.segs.push(SendSeg { seq, retransmit });
        self.stats.sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
            self.rtx_high = Some(self.rtx_high.map_or(seq, |h| h.max(seq)));
            // Karn: a retransmission at or below the timed segment makes the
            // ACK that would time it ambiguous.
            if self.rtt_seq.is_some_and(|t| seq <= t) {
                self.rtt_seq = None;
            }
            if self.cfg.recovery == Recovery::Sack && self.in_recovery {
                self.sb.set_retransmitted(seq);
                self.high_rxt = Some(self.high_rxt.map_or(seq, |h| h.max(seq)));
            }
        } else {
            self.max_sent = seq + 1;
            if self.cfg.recovery == Recovery::Sack {
                self.sb.extend_to(self.max_sent);
            }
            if self.rtt_seq.is_none() {
                self.rtt_seq = Some(seq);
                self.rtt_start = now;
            }
        }
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto.rto());
        }
    }
}

#[cfg(test)]
mod tests;
