//! The receiver's advertised window and Freeze-TCP's frozen sender (Goff et
//! al. 2000, as Chen et al. 2002 §2 summarises it): a zero window freezes the
//! sender, which keeps its congestion window and replaces its retransmission
//! timer by zero-window probes, the first after one RTO, then at exponentially
//! growing intervals (RFC 1122 §4.2.2.17, RFC 9293 §3.8.6.1); a reopened
//! window resumes it at the window it was frozen with.

use super::TcpSender;
use crate::engine::Time;
use crate::tcp::SenderOutput;

/// What a zero window froze.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Frozen {
    cwnd: f64,
    ssthresh: f64,
    /// When the next zero-window probe is due, and the interval it ends.
    probe_at: Time,
    interval: Time,
}

impl TcpSender {
    /// Take the window `rwnd` advertised by an ACK of `ack`: freeze on a zero
    /// window, resume on a reopened one. A finite transfer that this ACK
    /// leaves complete has nothing to hold back or probe with: it does not
    /// freeze.
    pub(super) fn on_rwnd(&mut self, now: Time, ack: u32, rwnd: u32) {
        self.rwnd = rwnd;
        if rwnd == 0 && self.frozen.is_none() && ack.max(self.snd_una) < self.limit {
            let interval = self.rto.rto();
            self.frozen = Some(Frozen {
                cwnd: self.cwnd,
                ssthresh: self.ssthresh,
                probe_at: now + interval,
                interval,
            });
            self.stats.freezes += 1;
            self.rto_deadline = Some(now + interval);
        } else if rwnd > 0 {
            if let Some(f) = self.frozen.take() {
                self.resume(now, f);
            }
        }
    }

    /// Resume at the frozen window: what was sent before the freeze and is
    /// not acknowledged is sent again (it was lost in the disconnection),
    /// without a congestion response.
    fn resume(&mut self, now: Time, f: Frozen) {
        self.cwnd = f.cwnd;
        self.ssthresh = f.ssthresh;
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.lt_sent = 0;
        self.in_recovery = false;
        self.resp_cwnd = None;
        self.rtt_seq = None;
        self.rto_deadline = (self.snd_una < self.max_sent).then(|| now + self.rto.rto());
    }

    /// Whether a zero window holds the sender.
    pub fn is_frozen(&self) -> bool {
        self.frozen.is_some()
    }

    /// After an ACK while frozen: the timer stays the probe's (the ACK may
    /// have re-armed the retransmission timer), and the frozen window is the
    /// one this ACK left (data in flight when the zero window came is still
    /// acknowledged and grows it as usual). An ACK that completes a finite
    /// transfer ends the freeze: no segment is left to probe with, and the
    /// timer stays stopped.
    pub(super) fn keep_probe_timer(&mut self) {
        if let Some(f) = self.frozen.as_mut() {
            if self.snd_una >= self.limit {
                self.frozen = None;
                return;
            }
            f.cwnd = self.cwnd;
            f.ssthresh = self.ssthresh;
            self.rto_deadline = Some(f.probe_at);
        }
    }

    /// The persist timer fired: send one probe (the first unacknowledged
    /// segment, or the next new one) and double the interval up to `max_rto`.
    /// No window change, no timeout counted.
    pub(super) fn probe(&mut self, now: Time, out: &mut SenderOutput) {
        let Some(f) = self.frozen.as_mut() else {
            return;
        };
        f.interval = (f.interval * 2).min(self.cfg.max_rto);
        f.probe_at = now + f.interval;
        let seq = self.snd_una;
        self.stats.zero_window_probes += 1;
        self.rtt_seq = None;
        self.transmit(now, seq, out);
        self.snd_nxt = self.snd_nxt.max(seq + 1);
        self.keep_probe_timer();
    }

    /// The receiver's window limit on segments in flight.
    pub(super) fn receiver_window(&self) -> u32 {
        self.rwnd
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC};
    use crate::tcp::{AckInfo, RecoveryEvent, TcpConfig};

    /// A sender with 10 segments in flight (cwnd 10, ssthresh 8).
    fn sender() -> (TcpSender, SenderOutput) {
        sender_of(None)
    }

    /// [`sender`] of a transfer of `total` segments (None: bulk).
    fn sender_of(total: Option<u64>) -> (TcpSender, SenderOutput) {
        let mut s = TcpSender::new(TcpConfig {
            window: 100,
            initial_cwnd: 10.0,
            initial_ssthresh: 8.0,
            total_segments: total,
            ..TcpConfig::default()
        });
        let mut out = SenderOutput::default();
        s.start(0, &mut out);
        assert_eq!(out.segs.len() as u64, total.unwrap_or(10).min(10));
        (s, out)
    }

    fn ack(a: u32, rwnd: u32) -> AckInfo {
        AckInfo {
            ack: a,
            rwnd,
            ..AckInfo::default()
        }
    }

    #[test]
    fn a_zero_window_freezes_without_a_window_cut() {
        let (mut s, mut out) = sender();
        out.clear();
        // Segments 0..4 acknowledged with a zero window: nothing new is sent.
        s.on_ack(100 * MS, &ack(4, 0), &mut out);
        assert!(s.is_frozen());
        assert!(out.segs.is_empty());
        assert_eq!(s.stats().freezes, 1);
        // The segments in flight are acknowledged; still frozen, still silent.
        out.clear();
        s.on_ack(110 * MS, &ack(10, 0), &mut out);
        assert!(out.segs.is_empty());
        let frozen_cwnd = s.cwnd();
        // Duplicate ACKs while frozen start no fast retransmit.
        for t in 0..4 {
            s.on_ack((120 + t) * MS, &ack(10, 0), &mut out);
        }
        assert!(out.events.is_empty());
        assert_eq!(s.cwnd(), frozen_cwnd);
    }

    #[test]
    fn probes_back_off_exponentially_up_to_max_rto() {
        let (mut s, mut out) = sender();
        s.on_ack(100 * MS, &ack(4, 0), &mut out);
        let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
        let mut prev = 100 * MS;
        let mut gaps = Vec::new();
        for _ in 0..12 {
            let t = s.rto_deadline().expect("a probe is due");
            out.clear();
            s.on_timer(t, &mut out);
            assert_eq!(out.segs.len(), 1, "one probe");
            assert_eq!(out.segs[0].seq, 4, "the first unacknowledged segment");
            assert!(out.events.is_empty(), "a probe is no timeout");
            gaps.push(t - prev);
            prev = t;
        }
        for w in gaps.windows(2) {
            assert!(w[1] == 2 * w[0] || w[1] == 60 * SEC, "{gaps:?}");
        }
        assert_eq!(*gaps.last().unwrap(), 60 * SEC);
        let st = s.stats();
        assert_eq!(
            (st.timeouts, st.window_cuts, st.zero_window_probes),
            (0, 0, 12)
        );
        // The window the zero-window ACK left, through twelve probes.
        assert_eq!((s.cwnd(), s.ssthresh()), (cwnd, ssthresh));
        assert!(cwnd >= 10.0);
    }

    #[test]
    fn a_reopened_window_resumes_at_the_frozen_window() {
        let (mut s, mut out) = sender();
        s.on_ack(100 * MS, &ack(4, 0), &mut out);
        let cwnd = s.cwnd();
        // A long disconnection: several probes, all lost.
        for _ in 0..3 {
            let t = s.rto_deadline().unwrap();
            s.on_timer(t, &mut out);
        }
        // The three reconnection ACKs of the last segment received (3), window open.
        out.clear();
        s.on_ack(5 * SEC, &ack(4, u32::MAX), &mut out);
        assert!(!s.is_frozen());
        assert_eq!(s.cwnd(), cwnd);
        let seqs: Vec<u32> = out.segs.iter().map(|g| g.seq).collect();
        // The whole frozen window goes out again from the first unacknowledged.
        assert_eq!(seqs, (4..4 + cwnd as u32).collect::<Vec<_>>());
        out.clear();
        s.on_ack(5 * SEC, &ack(4, u32::MAX), &mut out);
        s.on_ack(5 * SEC, &ack(4, u32::MAX), &mut out);
        assert!(
            !out.events
                .iter()
                .any(|e| matches!(e, RecoveryEvent::FastRetransmit(_))),
            "the triplicate ACKs are a window update and two duplicates: no fast retransmit"
        );
        assert_eq!(s.stats().window_cuts, 0);
        // The retransmission timer is back.
        assert!(s.rto_deadline().unwrap() <= 5 * SEC + s.current_rto());
    }

    #[test]
    fn a_finished_transfer_sends_nothing_through_a_handoff() {
        let (mut s, mut out) = sender_of(Some(1));
        s.on_ack(50 * MS, &ack(1, u32::MAX), &mut out);
        assert!(s.finished());
        out.clear();
        // The warning's zero window, probes' time, the reconnection ACKs.
        s.on_ack(8 * SEC, &ack(1, 0), &mut out);
        assert!(!s.is_frozen());
        assert_eq!(s.rto_deadline(), None, "no probe is due");
        s.on_timer(70 * SEC, &mut out);
        for _ in 0..3 {
            s.on_ack(70 * SEC, &ack(1, u32::MAX), &mut out);
        }
        s.on_timer(200 * SEC, &mut out);
        assert!(out.segs.is_empty(), "{:?}", out.segs);
        assert!(out.events.is_empty());
        let st = s.stats();
        assert_eq!(
            (st.sent, st.freezes, st.zero_window_probes, st.timeouts),
            (1, 0, 0, 0)
        );
    }

    #[test]
    fn the_last_ack_while_frozen_ends_the_freeze() {
        // The ten segments in flight are the whole transfer.
        let (mut s, mut out) = sender_of(Some(10));
        s.on_ack(100 * MS, &ack(4, 0), &mut out);
        assert!(s.is_frozen());
        out.clear();
        s.on_ack(110 * MS, &ack(10, 0), &mut out);
        assert!(s.finished() && !s.is_frozen());
        assert_eq!(s.rto_deadline(), None, "no probe is due");
        s.on_ack(2 * SEC, &ack(10, u32::MAX), &mut out);
        assert!(out.segs.is_empty(), "{:?}", out.segs);
        assert_eq!(s.stats().zero_window_probes, 0);
    }

    #[test]
    fn a_zero_window_that_completes_the_transfer_freezes_nothing() {
        let (mut s, mut out) = sender_of(Some(10));
        out.clear();
        s.on_ack(50 * MS, &ack(10, 0), &mut out);
        assert!(s.finished() && !s.is_frozen());
        assert_eq!((s.stats().freezes, s.rto_deadline()), (0, None));
    }

    #[test]
    fn the_receiver_window_limits_the_flight() {
        let (mut s, mut out) = sender();
        out.clear();
        // Segment 0 acknowledged with room for 3: nothing more goes out
        // while 9 are in flight; after all is acknowledged, 3 go.
        s.on_ack(100 * MS, &ack(1, 3), &mut out);
        assert!(out.segs.is_empty());
        s.on_ack(110 * MS, &ack(10, 3), &mut out);
        assert_eq!(out.segs.len(), 3);
    }
}
