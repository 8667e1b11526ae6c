//! What each ACK does to the sender: a new ACK (the RTT and history
//! samples, the window's growth, the timer) and a duplicate ACK (limited
//! transmit, the fast-retransmit guard, the decision at the threshold).

use super::TcpSender;
use crate::engine::Time;
use crate::tcp::{AckInfo, Recovery, SenderOutput};

impl TcpSender {
    /// The cumulative ACK covers more than `recover`, the highest segment
    /// sent at the last congestion response: RFC 6582 §3.2 step 1 ("the
    /// Cumulative Acknowledgment field ... cover[s] more than recover"),
    /// RFC 6675 §5.1 (`HighACK > RecoveryPoint`), ns-2 `highest_ack_ >
    /// recover_`. The highest segment acknowledged is `snd_una - 1`, so an
    /// ACK of exactly `recover + 1` (all that was outstanding, nothing
    /// more) does not allow a new fast retransmit.
    pub(super) fn may_enter_recovery(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) => self.snd_una.checked_sub(1).is_some_and(|h| h > r),
        }
    }

    pub(super) fn new_ack(&mut self, now: Time, ack: &AckInfo, out: &mut SenderOutput) {
        let a = ack.ack;
        let acked = a - self.snd_una;
        self.rto_sample(now, a);
        if self.keep_history {
            self.history_sample(now, ack, acked);
        }
        self.snd_una = a;
        if self.snd_nxt < a {
            self.snd_nxt = a;
        }
        if self.cfg.recovery == Recovery::Sack {
            self.sb.advance_to(a);
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        if let Some(c) = self.clrp.as_mut() {
            c.on_new_ack();
        }
        // RFC 6298 §5.3: restart the timer on new data acked (NewReno's
        // later partial ACKs excepted); §5.2: stop it when all is acked.
        let restart = if self.in_recovery {
            self.recovery_ack(now, a, acked, out)
        } else {
            self.cfg
                .cc
                .grow(&mut self.cwnd, self.ssthresh, acked, &self.history);
            true
        };
        if self.keep_history && !self.in_recovery {
            let usable = self.cwnd.min(f64::from(self.cfg.window));
            self.history.on_window(usable);
        }
        if self.snd_una >= self.max_sent {
            self.rto_deadline = None;
        } else if restart {
            self.rto_deadline = Some(now + self.rto.rto());
        }
    }

    /// [`Self::on_ack`] of a new ACK `a` of a plain sender (no SACK, no
    /// history, no CLRP) outside recovery, not frozen, without ELN and with
    /// the same advertised window: what the general path does then (the RTT
    /// sample, the window's growth, the timer, sending), without its tests.
    pub(super) fn plain_new_ack(&mut self, now: Time, a: u32, out: &mut SenderOutput) {
        let acked = a - self.snd_una;
        self.rto_sample(now, a);
        self.snd_una = a;
        if self.snd_nxt < a {
            self.snd_nxt = a;
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        self.cfg
            .cc
            .grow(&mut self.cwnd, self.ssthresh, acked, &self.history);
        self.rto_deadline = (self.snd_una < self.max_sent).then(|| now + self.rto.rto());
        self.send_much(now, out);
    }

    /// The history's sample for an ACK of `acked` new segments, and the
    /// parts that follow every sample or ACK.
    fn history_sample(&mut self, now: Time, ack: &AckInfo, acked: u32) {
        // Karn: no sample if the range acknowledged now holds a
        // retransmitted segment; the sample is the timestamp echo's RTT.
        let karn_ok = self.rtx_high.is_none_or(|h| h < self.snd_una);
        let sample = karn_ok.then(|| now.saturating_sub(ack.ts_echo));
        self.history
            .on_new_data(now, ack.ack, acked, self.max_sent, sample);
        if let (true, Some(r)) = (self.detector_samples, sample) {
            self.cfg.detector.on_sample(r, &self.history);
        }
        self.cfg.cc.on_ack(now, acked, &self.history);
    }

    /// The RTO estimator's sample: one timed segment per window, as ns-2.
    fn rto_sample(&mut self, now: Time, a: u32) {
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
    }

    /// A duplicate ACK (not one a scheme part took).
    pub(super) fn dup_ack(&mut self, now: Time, ack: &AckInfo, out: &mut SenderOutput) {
        self.dupacks += 1;
        let thresh = self.cfg.dupack_threshold;
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate (SACK: send_much, RFC 6675 (B), (C)).
            if matches!(self.cfg.recovery, Recovery::Reno | Recovery::NewReno) {
                self.cwnd += 1.0;
            }
        } else if self.dupacks < thresh {
            self.limited_transmit(now, out);
        } else if self.dupacks == thresh
            || (self.cfg.recovery == Recovery::Sack && self.dupacks > thresh)
        {
            self.trigger(now, ack, out);
        }
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
            || f64::from(outstanding + 1) > crate::engine::fmath::floor(self.cwnd) + 2.0
        {
            return;
        }
        self.transmit(now, seq, out);
        self.snd_nxt = seq + 1;
        self.lt_sent += 1;
    }
}
