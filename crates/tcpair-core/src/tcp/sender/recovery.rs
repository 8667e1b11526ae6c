//! The recovery mechanics: how a fast retransmit is carried out for each
//! [`Recovery`], how ACKs during recovery are handled, and how recovery ends.
//!
//! A congestion response (the detector said congestion, or the responder
//! is TCP's own) is TCP's, as in RFC 5681/6582/6675 and ns-2. A wireless
//! response sets the responder's window and runs the same mechanics around
//! it, with two differences (the ELN-aware sender's of Chen et al. 2002,
//! docs/tcp.md): it is not a congestion response, so `recover` stays where
//! the last congestion response put it (a later loss in the same window can
//! still be fast-retransmitted, and NewReno's recovery ends at the next new
//! ACK); and each hole gets at most one wireless retransmission. SACK's
//! recovery ends at its own RecoveryPoint (`recovery_point`) either way.

use super::TcpSender;
use crate::engine::Time;
use crate::tcp::{Recovery, SenderOutput, Window};

impl TcpSender {
    /// A new ACK during fast recovery; returns whether the retransmission
    /// timer restarts.
    pub(super) fn recovery_ack(
        &mut self,
        now: Time,
        a: u32,
        acked: u32,
        out: &mut SenderOutput,
    ) -> bool {
        // NewReno's recovery ends beyond `recover` (after a wireless response:
        // at the first new ACK, so each later hole of the window gets its own
        // decision, as the ELN-aware sender always did); SACK's beyond its
        // RecoveryPoint, which every recovery sets (RFC 6675 keeps its
        // scoreboard's retransmission marks until then).
        let beyond = |p: Option<u32>| p.is_none_or(|r| a > r);
        let full = match self.cfg.recovery {
            Recovery::Sack => beyond(self.recovery_point),
            _ => beyond(self.recover),
        };
        match self.cfg.recovery {
            Recovery::Reno => {
                // RFC 5681 §3.2 step 6: deflate on the first new ACK, partial
                // or not (after a wireless response: to the window it set).
                self.end_recovery();
            }
            Recovery::NewReno if full => {
                // RFC 6582 §3.2 step 6 option (2), as ns-2 and Reno:
                // cwnd = ssthresh (option (1), min(ssthresh, flight + 1),
                // would make a window-limited sender restart from 1-2).
                self.end_recovery();
            }
            Recovery::NewReno => {
                // Step 5: partial ACK. Impatient variant: only the first
                // partial ACK restarts the timer.
                let restart = !self.partial_seen;
                self.partial_seen = true;
                self.transmit(now, a, out);
                self.cwnd = (self.cwnd - f64::from(acked) + 1.0).max(1.0);
                return restart;
            }
            Recovery::Sack if full => {
                // RFC 6675 §5 (A); cwnd already equals the response's.
                self.in_recovery = false;
                self.high_rxt = None;
                self.sb.clear_retransmitted();
            }
            Recovery::Sack | Recovery::Tahoe => {}
        }
        true
    }

    /// Leave Reno/NewReno fast recovery: deflate to the response's cwnd
    /// (the congestion op's or the responder's).
    fn end_recovery(&mut self) {
        self.cwnd = self.resp_cwnd.take().unwrap_or(self.ssthresh);
        self.in_recovery = false;
        if self.cfg.cc.grows_at_recovery_exit() {
            let acked = 1; // ns-2's opencwnd grows per ACK, whatever it covers
            self.cfg
                .cc
                .grow(&mut self.cwnd, self.ssthresh, acked, &self.history);
        }
    }

    /// TCP's own fast retransmit with the response `own` (ssthresh, and the
    /// cwnd recovery ends with).
    pub(super) fn congestion_fr(&mut self, now: Time, own: Window, out: &mut SenderOutput) {
        let thresh = f64::from(self.cfg.dupack_threshold);
        match self.cfg.recovery {
            Recovery::Tahoe => {
                self.begin_fr(now, own.cwnd, own.ssthresh, out);
                // Go-back-N after the retransmission, as ns-2 Tahoe.
                self.snd_nxt = self.snd_una + 1;
            }
            Recovery::Reno | Recovery::NewReno => {
                self.begin_fr(now, own.cwnd + thresh, own.ssthresh, out);
                // Recovery ends with the op's cwnd, which may differ from
                // ssthresh (Westwood+: min(cwnd, ssthresh)).
                self.resp_cwnd = Some(own.cwnd);
                self.in_recovery = true;
                self.partial_seen = false;
            }
            Recovery::Sack => {
                self.enter_sack_recovery();
                // RFC 6675 §5 (4.2) cwnd = ssthresh; (4.3) retransmit HighACK+1.
                self.begin_fr(now, own.cwnd, own.ssthresh, out);
                self.sb.set_retransmitted(self.snd_una);
                self.high_rxt = Some(self.snd_una);
                // (4.4) then (C) runs in send_much.
            }
        }
    }

    /// The common part of a congestion fast retransmit: set the window,
    /// move `recover`, retransmit snd_una, restart the timer.
    fn begin_fr(&mut self, now: Time, cwnd: f64, ssthresh: f64, out: &mut SenderOutput) {
        self.ssthresh = ssthresh;
        self.cwnd = cwnd;
        self.recover = Some(self.max_sent - 1);
        self.recovery_point = self.recover;
        self.lt_sent = 0;
        self.rtt_seq = None; // ns-2 reset_rtx_timer: timing dropped at FR
        self.transmit(now, self.snd_una, out);
        // ns-2 reset_rtx_timer at a fast retransmit.
        self.rto_deadline = Some(now + self.rto.rto());
    }

    /// A fast retransmit on a wireless verdict with the responder's window
    /// `w` (the cwnd recovery ends with, and ssthresh).
    pub(super) fn wireless_fr(&mut self, now: Time, w: Window, out: &mut SenderOutput) {
        let seq = self.snd_una;
        self.wireless_rxmit = Some(seq);
        self.recovery_point = Some(self.max_sent - 1);
        if self.per_window() {
            // The episode's end, as after a congestion response: the window's
            // later holes are repaired under this one response.
            self.recover = self.recovery_point;
        }
        self.lt_sent = 0;
        self.rtt_seq = None;
        self.ssthresh = w.ssthresh;
        match self.cfg.recovery {
            Recovery::Tahoe => {
                // Retransmit only: no go-back-N, no slow start.
                self.cwnd = w.cwnd;
                self.transmit(now, seq, out);
            }
            Recovery::Reno | Recovery::NewReno => {
                // Fast recovery around the response's window: inflate by
                // one per further DUPACK, deflate to it on the new ACK.
                // Without inflation a window-limited sender would stall
                // for the whole recovery (docs/syndrome.md).
                self.transmit(now, seq, out);
                self.resp_cwnd = Some(w.cwnd);
                self.cwnd = w.cwnd + f64::from(self.cfg.dupack_threshold);
                self.in_recovery = true;
                self.partial_seen = false;
            }
            Recovery::Sack => {
                self.enter_sack_recovery();
                self.cwnd = w.cwnd;
                self.transmit(now, seq, out); // marks it and sets HighRxt
            }
        }
        self.rto_deadline = Some(now + self.rto.rto());
    }

    /// RFC 6675 §5 (4): a new loss-recovery episode; its retransmission
    /// marks start afresh.
    fn enter_sack_recovery(&mut self) {
        self.in_recovery = true;
        self.sb.extend_to(self.max_sent);
        self.sb.clear_retransmitted();
    }

    /// RFC 6675 §5 (C): while cwnd - pipe >= 1, send NextSeg().
    pub(super) fn sack_send(&mut self, now: Time, out: &mut SenderOutput) {
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
}
