//! The TCP sender state machine (Tahoe, Reno, NewReno, SACK), sans-IO.
//!
//! ns-2 packet-mode conventions: segments numbered from 0, cumulative ACK =
//! next expected segment, cwnd/ssthresh in packets (f64). The caller feeds
//! `start`, ACKs and timer expiries with the current time and carries out
//! what lands in [`SenderOutput`]. See docs/tcp.md for every choice made here.

use super::rto::RtoEstimator;
use super::scoreboard::Scoreboard;
use super::{AckInfo, RecoveryEvent, SendSeg, SenderOutput, SenderStats, TcpConfig, Variant};
use crate::engine::Time;
use crate::schemes::clrp::notices::NoticeList;

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
    /// Highest segment sent when the last fast retransmit or timeout
    /// happened (RFC 6582 `recover`, ns-2 `recover_`, RFC 6675 RecoveryPoint).
    recover: Option<u32>,
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
    /// Last segment retransmitted because of ELN duplicate ACKs.
    eln_rxmit: Option<u32>,
    /// cwnd before an ELN recovery, restored when it ends.
    eln_restore: Option<f64>,
    /// TCP-MH's list of notified wireless losses (CLRP), and a reused buffer
    /// of the numbers to retransmit.
    clrp: Option<NoticeList>,
    clrp_rtx: Vec<u32>,
    /// Window inflation by DUPACKs of listed losses since the last new ACK.
    clrp_extra: u32,
    started: bool,
    stats: SenderStats,
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
            partial_seen: false,
            rto: RtoEstimator::from_config(&cfg),
            rto_deadline: None,
            rtt_seq: None,
            rtt_start: 0,
            last_timeout_una: None,
            sb: Scoreboard::new(),
            high_rxt: None,
            eln_rxmit: None,
            eln_restore: None,
            clrp: cfg.clrp.then(|| NoticeList::new(cfg.clrp_rxmit_threshold)),
            clrp_rtx: Vec::new(),
            clrp_extra: 0,
            started: false,
            stats: SenderStats::default(),
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

    pub fn on_ack(&mut self, now: Time, ack: &AckInfo, out: &mut SenderOutput) {
        let a = ack.ack;
        if a > self.max_sent {
            // Acknowledges data never sent: ignore (RFC 9293 §3.10.7.4).
            return;
        }
        if self.cfg.variant == Variant::Sack {
            for &(s, e) in ack.sack.as_slice() {
                self.sb.mark_sacked(s, e);
            }
        }
        if ack.eln {
            self.stats.eln_acks += 1;
        }
        // CLRP (paper 001 §II.A, Fig. 2): update the list from every ACK,
        // new or duplicate, before the ACK itself is processed.
        if let Some(list) = self.clrp.as_mut() {
            if !ack.loss.is_empty() {
                self.stats.clrp_notices += 1;
            }
            self.clrp_rtx.clear();
            let cum = a.max(self.snd_una);
            list.on_ack(
                cum,
                ack.loss.as_slice().iter().copied(),
                ack.ts_echo,
                now,
                &mut self.clrp_rtx,
            );
        }
        if a > self.snd_una {
            self.new_ack(now, a, out);
        } else if a == self.snd_una && self.max_sent > self.snd_una {
            if self.clrp.as_ref().is_some_and(|l| l.contains(a)) {
                // A DUPACK for a listed wireless loss: neither fast
                // retransmit nor a window cut (its recovery is CLRP's).
                self.stats.clrp_dupacks_ignored += 1;
                if self.cfg.clrp_inflate {
                    self.clrp_extra += 1;
                }
            } else if self.cfg.eln && ack.eln && !self.in_recovery {
                self.eln_dup_ack(now, out);
            } else {
                self.dup_ack(now, out);
            }
        }
        self.clrp_retransmit(now, out);
        // An old ACK (a < snd_una) only contributes its SACK blocks.
        if self.cfg.variant == Variant::Sack && !self.in_recovery && self.may_enter_recovery() {
            // RFC 6675 §5 (2): IsLost(HighACK + 1) also starts recovery.
            if self.sb.is_lost(self.snd_una, self.cfg.dupack_threshold) {
                self.enter_sack_recovery(now, out);
            }
        }
        self.send_much(now, out);
    }

    /// Retransmission timer. Lazy: a no-op unless `now >= rto_deadline()`.
    pub fn on_timer(&mut self, now: Time, out: &mut SenderOutput) {
        match self.rto_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        if self.snd_una >= self.max_sent {
            self.rto_deadline = None;
            return;
        }
        let expired = self.rto.rto();
        self.stats.timeouts += 1;
        self.stats.window_cuts += 1;
        self.stats.timeout_rto_sum_ns += u128::from(expired);
        // RFC 5681 (4), held on a repeated timeout of the same segment.
        if self.last_timeout_una != Some(self.snd_una) {
            self.ssthresh = half_flight(self.max_sent - self.snd_una);
        }
        self.last_timeout_una = Some(self.snd_una);
        self.cwnd = 1.0;
        self.rto.backoff(); // RFC 6298 §5.5
        self.rtt_seq = None; // Karn
                             // RFC 6582 §3.2 step 4 / RFC 6675 §5.1: no new fast retransmit for
                             // dupacks of the data sent before the timeout.
        self.recover = Some(self.max_sent - 1);
        self.in_recovery = false;
        self.eln_restore = None;
        self.dupacks = 0;
        self.lt_sent = 0;
        if let Some(list) = self.clrp.as_mut() {
            // Go-back-N resends the window: the list starts afresh.
            list.clear();
        }
        self.clrp_extra = 0;
        if self.cfg.variant == Variant::Sack {
            self.sb.clear_sacked();
            self.sb.clear_retransmitted();
            self.high_rxt = None;
        }
        // Go-back-N.
        self.snd_nxt = self.snd_una;
        self.rto_deadline = None;
        let seq = self.snd_una;
        out.events.push(RecoveryEvent::Timeout { seq });
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

    /// The CLRP list (None unless `clrp`).
    pub fn clrp_list(&self) -> Option<&NoticeList> {
        self.clrp.as_ref()
    }

    // ---- internals ----

    /// Retransmit the CLRP-listed packets whose notices reached the
    /// threshold, "promptly without starting up TCP congestion control"
    /// (paper 001 §II.A): cwnd, ssthresh, dupacks and recovery untouched.
    fn clrp_retransmit(&mut self, now: Time, out: &mut SenderOutput) {
        for k in 0..self.clrp_rtx.len() {
            let seq = self.clrp_rtx[k];
            if seq < self.snd_una || seq >= self.max_sent {
                continue;
            }
            self.stats.clrp_retransmits += 1;
            out.events.push(RecoveryEvent::ClrpRetransmit { seq });
            self.transmit(now, seq, out);
        }
        self.clrp_rtx.clear();
    }

    /// The ACK is not a duplicate of data sent before the last FR/timeout
    /// (ns-2 `bug_fix_`, RFC 6582 §3.2 step 2).
    fn may_enter_recovery(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) => self.snd_una > r,
        }
    }

    fn new_ack(&mut self, now: Time, a: u32, out: &mut SenderOutput) {
        let acked = a - self.snd_una;
        if let Some(t) = self.rtt_seq {
            if a > t {
                let r = now.saturating_sub(self.rtt_start);
                self.rto.sample(r);
                self.rtt_seq = None;
                self.stats.rtt_sum_ns += u128::from(r);
                self.stats.rtt_samples += 1;
                self.stats.rto_after_sample_sum_ns += u128::from(self.rto.base_rto());
            }
        }
        self.snd_una = a;
        if self.snd_nxt < a {
            self.snd_nxt = a;
        }
        if self.cfg.variant == Variant::Sack {
            self.sb.advance_to(a);
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        self.clrp_extra = 0;
        let full = match self.recover {
            None => true,
            Some(r) => a > r,
        };
        // RFC 6298 §5.3: restart the timer on new data acked (NewReno's
        // later partial ACKs excepted, see below); §5.2: stop it when all is acked.
        let mut restart = true;
        match (self.cfg.variant, self.in_recovery) {
            (Variant::Reno, true) => {
                // RFC 5681 §3.2 step 6: deflate on the first new ACK, partial or not
                // (after an ELN recovery: back to the window it kept).
                self.cwnd = self.eln_restore.take().unwrap_or(self.ssthresh);
                self.in_recovery = false;
            }
            (Variant::NewReno, true) => {
                if full {
                    // RFC 6582 §3.2 step 6 option (2), as ns-2 and Reno:
                    // cwnd = ssthresh (option (1), min(ssthresh, flight + 1),
                    // would make a window-limited sender restart from 1-2).
                    self.cwnd = self.eln_restore.take().unwrap_or(self.ssthresh);
                    self.in_recovery = false;
                } else {
                    // Step 5: partial ACK. Impatient variant: only the first
                    // partial ACK restarts the timer.
                    restart = !self.partial_seen;
                    self.partial_seen = true;
                    self.transmit(now, a, out);
                    self.cwnd = (self.cwnd - f64::from(acked) + 1.0).max(1.0);
                }
            }
            (Variant::Sack, true) => {
                if full {
                    // RFC 6675 §5 (A); cwnd already equals ssthresh.
                    self.in_recovery = false;
                    self.high_rxt = None;
                    self.sb.clear_retransmitted();
                }
            }
            _ => self.open_cwnd(),
        }
        if self.snd_una >= self.max_sent {
            self.rto_deadline = None;
        } else if restart {
            self.rto_deadline = Some(now + self.rto.rto());
        }
    }

    /// ns-2 `opencwnd`: +1 per new ACK in slow start, +1/cwnd per new ACK in
    /// congestion avoidance (per ACK, not per segment acked).
    fn open_cwnd(&mut self) {
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    fn dup_ack(&mut self, now: Time, out: &mut SenderOutput) {
        self.dupacks += 1;
        let thresh = self.cfg.dupack_threshold;
        match self.cfg.variant {
            Variant::Tahoe => {
                if self.dupacks == thresh && self.may_enter_recovery() {
                    self.tahoe_fr(now, out);
                } else if self.dupacks < thresh {
                    self.limited_transmit(now, out);
                }
            }
            Variant::Reno | Variant::NewReno => {
                if self.in_recovery {
                    // RFC 5681 §3.2 step 4: inflate.
                    self.cwnd += 1.0;
                } else if self.dupacks == thresh && self.may_enter_recovery() {
                    self.reno_fr(now, out);
                } else if self.dupacks < thresh {
                    self.limited_transmit(now, out);
                }
            }
            Variant::Sack => {
                if self.in_recovery {
                    // Handled by send_much (RFC 6675 §5 (B), (C)).
                } else if self.dupacks >= thresh && self.may_enter_recovery() {
                    self.enter_sack_recovery(now, out);
                } else if self.dupacks < thresh {
                    self.limited_transmit(now, out);
                }
            }
        }
    }

    /// A duplicate ACK carrying ELN, outside recovery (paper 000 Fig. 1 lines
    /// 19-20: "retransmit the lost packet only, but do not reduce the
    /// congestion window"). At the threshold the segment is retransmitted
    /// and cwnd and ssthresh are kept. Reno and NewReno then run fast
    /// recovery around the *unreduced* window (inflate by one per further
    /// dupack, deflate back to the saved cwnd on the new ACK): without
    /// inflation a window-limited sender would stall for the whole recovery
    /// and the next loss of the window could only end in a timeout
    /// (docs/syndrome.md). Tahoe and SACK only retransmit. `recover` is not
    /// moved, so a later loss of the same window can still be fast
    /// retransmitted; a hole is ELN-retransmitted once (then the timer).
    fn eln_dup_ack(&mut self, now: Time, out: &mut SenderOutput) {
        self.dupacks += 1;
        let thresh = self.cfg.dupack_threshold;
        if self.dupacks < thresh {
            self.limited_transmit(now, out);
            return;
        }
        if self.dupacks != thresh || self.eln_rxmit == Some(self.snd_una) {
            return;
        }
        let seq = self.snd_una;
        self.eln_rxmit = Some(seq);
        self.lt_sent = 0;
        self.rtt_seq = None;
        self.stats.fast_retransmits += 1;
        self.stats.eln_retransmits += 1;
        out.events.push(RecoveryEvent::FastRetransmit {
            seq,
            window_cut: false,
        });
        self.transmit(now, seq, out);
        self.rto_deadline = Some(now + self.rto.rto());
        if matches!(self.cfg.variant, Variant::Reno | Variant::NewReno) {
            self.eln_restore = Some(self.cwnd);
            self.cwnd += f64::from(thresh);
            self.in_recovery = true;
            self.partial_seen = false;
        }
    }

    /// FlightSize for ssthresh: outstanding minus limited-transmit segments.
    fn flight_for_cut(&self) -> u32 {
        (self.max_sent - self.snd_una).saturating_sub(self.lt_sent)
    }

    fn begin_fr(&mut self, now: Time, cwnd: f64, out: &mut SenderOutput) {
        self.ssthresh = half_flight(self.flight_for_cut());
        self.cwnd = cwnd;
        self.recover = Some(self.max_sent - 1);
        self.lt_sent = 0;
        self.rtt_seq = None; // ns-2 reset_rtx_timer: timing dropped at FR
        let seq = self.snd_una;
        self.stats.fast_retransmits += 1;
        self.stats.window_cuts += 1;
        out.events.push(RecoveryEvent::FastRetransmit {
            seq,
            window_cut: true,
        });
        self.transmit(now, seq, out);
        // ns-2 reset_rtx_timer at a fast retransmit.
        self.rto_deadline = Some(now + self.rto.rto());
    }

    fn tahoe_fr(&mut self, now: Time, out: &mut SenderOutput) {
        self.begin_fr(now, 1.0, out);
        // Go-back-N after the retransmission, as ns-2 Tahoe.
        self.snd_nxt = self.snd_una + 1;
    }

    fn reno_fr(&mut self, now: Time, out: &mut SenderOutput) {
        let half = half_flight(self.flight_for_cut());
        self.begin_fr(now, half + f64::from(self.cfg.dupack_threshold), out);
        self.in_recovery = true;
        self.partial_seen = false;
    }

    fn enter_sack_recovery(&mut self, now: Time, out: &mut SenderOutput) {
        let half = half_flight(self.flight_for_cut());
        self.in_recovery = true;
        self.sb.extend_to(self.max_sent);
        self.sb.clear_retransmitted();
        // RFC 6675 §5 (4.2) cwnd = ssthresh; (4.3) retransmit HighACK+1.
        self.begin_fr(now, half, out);
        self.sb.set_retransmitted(self.snd_una);
        self.high_rxt = Some(self.snd_una);
        // (4.4) then (C) runs in send_much.
    }

    /// RFC 3042: on dupacks 1 and 2, one new segment each if the window
    /// allows and outstanding data stays within cwnd + 2.
    fn limited_transmit(&mut self, now: Time, out: &mut SenderOutput) {
        if !self.cfg.limited_transmit || self.snd_nxt != self.max_sent {
            return;
        }
        let seq = self.max_sent;
        let outstanding = seq - self.snd_una;
        if seq >= self.limit
            || outstanding + 1 > self.cfg.window
            || f64::from(outstanding + 1) > self.cwnd.floor() + 2.0
        {
            return;
        }
        self.transmit(now, seq, out);
        self.snd_nxt = seq + 1;
        self.lt_sent += 1;
    }

    fn effective_window(&self) -> u32 {
        let c = self.cwnd.floor() + f64::from(self.clrp_extra);
        let c = if c >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            c as u32
        };
        c.min(self.cfg.window)
    }

    /// Send what the window allows (RFC 5681 outside recovery; RFC 6675 (C)
    /// during SACK recovery).
    fn send_much(&mut self, now: Time, out: &mut SenderOutput) {
        if !self.started {
            return;
        }
        if self.cfg.variant == Variant::Sack && self.in_recovery {
            self.sack_send(now, out);
            return;
        }
        let wnd = self.effective_window();
        let sack = self.cfg.variant == Variant::Sack;
        while self.snd_nxt < self.limit && self.snd_nxt - self.snd_una < wnd {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            if sack && seq < self.max_sent && self.sb.is_sacked(seq) {
                continue; // go-back-N skips what the receiver SACKed
            }
            self.transmit(now, seq, out);
        }
    }

    /// RFC 6675 §5 (C): while cwnd - pipe >= 1, send NextSeg().
    fn sack_send(&mut self, now: Time, out: &mut SenderOutput) {
        let thresh = self.cfg.dupack_threshold;
        let mut pipe = self.sb.pipe(thresh);
        loop {
            if self.cwnd - f64::from(pipe) < 1.0 || pipe >= self.cfg.window {
                break;
            }
            // Rule (1): a lost hole.
            let seq = if let Some((s, _)) = self.sb.next_hole(self.high_rxt, thresh, false) {
                s
            } else if self.max_sent < self.limit && self.max_sent - self.snd_una < self.cfg.window {
                // Rule (2): new data.
                self.max_sent
            } else if let Some((s, _)) = self.sb.next_hole(self.high_rxt, thresh, true) {
                // Rule (3): a hole not yet deemed lost.
                s
            } else {
                break;
            };
            self.transmit(now, seq, out);
            self.snd_nxt = self.snd_nxt.max(self.max_sent);
            pipe += 1;
        }
    }

    /// Put one transmission in `out` and do the bookkeeping common to all.
    fn transmit(&mut self, now: Time, seq: u32, out: &mut SenderOutput) {
        let retransmit = seq < self.max_sent;
        out.segs.push(SendSeg { seq, retransmit });
        self.stats.sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
            // Karn: a retransmission at or below the timed segment makes the
            // ACK that would time it ambiguous.
            if self.rtt_seq.is_some_and(|t| seq <= t) {
                self.rtt_seq = None;
            }
            if self.cfg.variant == Variant::Sack && self.in_recovery {
                self.sb.set_retransmitted(seq);
                self.high_rxt = Some(self.high_rxt.map_or(seq, |h| h.max(seq)));
            }
        } else {
            self.max_sent = seq + 1;
            if self.cfg.variant == Variant::Sack {
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

/// max(floor(flight / 2), 2): RFC 5681 (4) in packets, integer like ns-2.
fn half_flight(flight: u32) -> f64 {
    f64::from((flight / 2).max(2))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
