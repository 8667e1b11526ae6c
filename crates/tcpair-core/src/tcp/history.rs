//! The RTT and ACK history of one sender, shared by the congestion ops and
//! the loss detectors: what a sender can observe, kept as running figures
//! (no per-sample storage, nothing allocated per ACK).
//!
//! - RTT samples: one per ACK that acknowledges new data, measured from the
//!   timestamp echo (RFC 7323 §4.3: now minus the echoed send time), except
//!   when the newly acknowledged range holds a retransmitted segment
//!   (Karn's rule, applied by the sender). From them: minimum (the base
//!   RTT), maximum, mean of all samples, the latest sample, an EWMA (gain
//!   1/8), and the run of consecutive samples below the mean of the samples
//!   before each (Stojcevska and Popov's "Number_of_small_RTTs").
//! - Rounds: a round ends when an ACK covers the highest segment sent when
//!   the round began (as Linux's Vegas and Veno count round trips). Per
//!   round: the smallest RTT sample and the segments acknowledged; from
//!   those, the largest delivery rate seen (segments per second).
//! - ACK arrivals: the time between consecutive ACKs at the sender, and the
//!   receiver's timestamp of the latest ACK; the relative jitter of
//!   consecutive ACKs per round, sum(J_i) / sum(S_i - S_{i-1}) with J_i =
//!   (R_i - R_{i-1}) - (S_i - S_{i-1}), S the echoed send times and R the
//!   receiver's timestamps (Wu and Chen 2004's Jr, for `jtcp`); the echo of
//!   the first duplicate ACK since the latest ACK of new data.
//! - Window: the usable window `min(cwnd, window limit)` after each ACK of
//!   new data outside fast recovery; its mean over those ACKs and maximum.
//!
//! The retransmission timer keeps its own estimator (`rto`), which times
//! one segment per window as ns-2 does; RFC 6298 is satisfied either way.

use crate::engine::{to_secs, Time};

#[derive(Debug, Clone, Default)]
pub struct History {
    samples: u64,
    sum: u128,
    min: Option<Time>,
    max: Time,
    last: Option<Time>,
    srtt: Option<Time>,
    small_run: u32,
    /// The round ends when an ACK covers this segment (None: no round yet).
    round_end: Option<u32>,
    round_start: Time,
    round_min: Option<Time>,
    last_round_min: Option<Time>,
    round_acked: u64,
    max_rate: f64,
    acks: u64,
    last_ack_at: Option<Time>,
    ack_gap: Option<Time>,
    ack_gap_sum: u128,
    last_rcv_at: Time,
    /// Echo and receiver timestamp of the latest ACK whose echo advanced.
    last_pair: Option<(Time, Time)>,
    /// This round's sum of J_i and of S_i - S_{i-1}, ns.
    round_jit_sum: f64,
    round_ds_sum: f64,
    last_round_jit: Option<f64>,
    /// Echo of the first duplicate ACK since the latest ACK of new data.
    dup_echo: Option<Time>,
    /// Echo of the latest ACK.
    last_echo: Time,
    win_samples: u64,
    win_sum: f64,
    win_max: f64,
}

impl History {
    /// An ACK arrived at `now`, sent by the receiver at `rcv_at`, echoing
    /// the send time `echo`.
    #[inline]
    pub fn on_ack_arrival(&mut self, now: Time, rcv_at: Time, echo: Time) {
        if let Some(t) = self.last_ack_at {
            let gap = now.saturating_sub(t);
            self.ack_gap = Some(gap);
            self.ack_gap_sum += u128::from(gap);
        }
        self.jitter(rcv_at, echo);
        self.last_echo = echo;
        self.last_ack_at = Some(now);
        self.last_rcv_at = rcv_at;
        self.acks += 1;
    }

    /// Wu and Chen 2004, §III: J_i = (R_i - R_{i-1}) - (S_i - S_{i-1}).
    /// Summed with S_i - S_{i-1}, so that pairs sent at one instant (a
    /// burst) count; a pair whose echo goes back (a retransmission's)
    /// gives none.
    fn jitter(&mut self, rcv_at: Time, echo: Time) {
        match self.last_pair {
            Some((s, r)) if echo >= s => {
                let ds = (echo - s) as f64;
                self.round_jit_sum += rcv_at as f64 - r as f64 - ds;
                self.round_ds_sum += ds;
            }
            Some(_) => return,
            None => {}
        }
        self.last_pair = Some((echo, rcv_at));
    }

    /// A duplicate ACK echoing `echo`: the first since the latest ACK of
    /// new data is kept.
    #[inline]
    pub fn on_dup_ack(&mut self, echo: Time) {
        self.dup_echo.get_or_insert(echo);
    }

    /// An ACK at `now` acknowledged `acked` new segments, up to (not
    /// including) `ack`; `max_sent` is one past the highest segment sent.
    /// `sample` is its RTT if Karn's rule allows one.
    #[inline]
    pub fn on_new_data(
        &mut self,
        now: Time,
        ack: u32,
        acked: u32,
        max_sent: u32,
        sample: Option<Time>,
    ) {
        if let Some(r) = sample {
            self.sample(r);
        }
        self.dup_echo = None;
        self.round_acked += u64::from(acked);
        match self.round_end {
            Some(end) if ack <= end => {}
            Some(_) => {
                let dt = now.saturating_sub(self.round_start);
                if dt > 0 {
                    let rate = self.round_acked as f64 / to_secs(dt);
                    self.max_rate = self.max_rate.max(rate);
                }
                self.last_round_min = self.round_min.or(self.last_round_min);
                if self.round_ds_sum > 0.0 {
                    self.last_round_jit = Some(self.round_jit_sum / self.round_ds_sum);
                }
                self.begin_round(now, max_sent);
            }
            None => self.begin_round(now, max_sent),
        }
    }

    fn begin_round(&mut self, now: Time, max_sent: u32) {
        self.round_end = Some(max_sent.saturating_sub(1));
        self.round_start = now;
        self.round_min = None;
        self.round_acked = 0;
        self.round_jit_sum = 0.0;
        self.round_ds_sum = 0.0;
    }

    fn sample(&mut self, r: Time) {
        // Stojcevska and Popov §6: a sample is "small" when below the mean of all
        // samples (compared with those before it; the first is not small).
        let small = self.samples > 0 && u128::from(r) * u128::from(self.samples) < self.sum;
        self.small_run = if small { self.small_run + 1 } else { 0 };
        self.samples += 1;
        self.sum += u128::from(r);
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        self.max = self.max.max(r);
        self.last = Some(r);
        self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
        self.srtt = Some(match self.srtt {
            None => r,
            Some(s) => s - s / 8 + r / 8,
        });
    }

    /// The usable window after an ACK of new data outside fast recovery.
    #[inline]
    pub fn on_window(&mut self, usable: f64) {
        self.win_samples += 1;
        self.win_sum += usable;
        self.win_max = self.win_max.max(usable);
    }

    /// RTT samples taken so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }
    /// Smallest sample: the base RTT (RTT_min).
    pub fn min_rtt(&self) -> Option<Time> {
        self.min
    }
    /// Largest sample (RTT_max).
    pub fn max_rtt(&self) -> Option<Time> {
        self.min.map(|_| self.max)
    }
    /// Mean of all samples, in ns.
    pub fn mean_rtt(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.sum as f64 / self.samples as f64)
    }
    /// The latest sample (RTT_cur: a duplicate ACK brings none).
    pub fn last_rtt(&self) -> Option<Time> {
        self.last
    }
    /// EWMA of the samples, gain 1/8.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }
    /// Consecutive latest samples below the mean of the samples before each.
    pub fn small_run(&self) -> u32 {
        self.small_run
    }
    /// The smallest sample of the last completed round trip.
    pub fn last_round_min_rtt(&self) -> Option<Time> {
        self.last_round_min
    }
    /// The smallest sample of the round trip in progress.
    pub fn round_min_rtt(&self) -> Option<Time> {
        self.round_min
    }
    /// Largest delivery rate over a completed round, segments per second.
    pub fn max_delivery_rate(&self) -> f64 {
        self.max_rate
    }
    /// Bandwidth-delay product estimate, packets: the largest delivery rate
    /// times the base RTT (0 before a round has completed).
    pub fn bdp(&self) -> f64 {
        self.min.map_or(0.0, |m| self.max_rate * to_secs(m))
    }
    /// Time between the two latest ACKs.
    pub fn ack_gap(&self) -> Option<Time> {
        self.ack_gap
    }
    /// Mean time between consecutive ACKs, in ns.
    pub fn mean_ack_gap(&self) -> Option<f64> {
        (self.acks > 1).then(|| self.ack_gap_sum as f64 / (self.acks - 1) as f64)
    }
    /// The receiver's timestamp of the latest ACK.
    pub fn last_rcv_at(&self) -> Time {
        self.last_rcv_at
    }
    /// Jr: sum(J_i) / sum(S_i - S_{i-1}) over the last completed round
    /// with pairs, else over the round in progress (None before any pair
    /// spread over time).
    pub fn jitter_ratio(&self) -> Option<f64> {
        self.last_round_jit
            .or_else(|| (self.round_ds_sum > 0.0).then(|| self.round_jit_sum / self.round_ds_sum))
    }
    /// The latest ACK's one-way trip time, its receiver's timestamp minus
    /// the echoed send time (relative: a clock offset would shift every
    /// value alike).
    pub fn one_way(&self) -> Time {
        self.last_rcv_at.saturating_sub(self.last_echo)
    }
    /// The echoed send time of the first duplicate ACK since the latest
    /// ACK of new data (None if none came).
    pub fn first_dup_echo(&self) -> Option<Time> {
        self.dup_echo
    }
    /// Mean usable window over the ACKs of new data outside recovery.
    pub fn mean_window(&self) -> Option<f64> {
        (self.win_samples > 0).then(|| self.win_sum / self.win_samples as f64)
    }
    /// Largest usable window seen.
    pub fn max_window(&self) -> Option<f64> {
        (self.win_samples > 0).then_some(self.win_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    #[test]
    fn rtt_figures_and_the_run_of_small_samples() {
        let mut h = History::default();
        assert_eq!((h.min_rtt(), h.max_rtt(), h.mean_rtt()), (None, None, None));
        // Samples 100, 120, 80, 90, 95 ms; means before each: -, 100, 110, 100, 97.5.
        for (i, r) in [100, 120, 80, 90, 95].into_iter().enumerate() {
            h.on_new_data(i as Time * MS, i as u32 + 1, 1, 50, Some(r * MS));
        }
        assert_eq!(h.min_rtt(), Some(80 * MS));
        assert_eq!(h.max_rtt(), Some(120 * MS));
        assert_eq!(h.mean_rtt(), Some(97.0 * MS as f64));
        assert_eq!(h.last_rtt(), Some(95 * MS));
        // 80 < 110, 90 < 100, 95 < 97.5: three in a row.
        assert_eq!(h.small_run(), 3);
        h.on_new_data(6 * MS, 7, 1, 50, Some(97 * MS)); // mean before: 97: not below
        assert_eq!(h.small_run(), 0);
        assert_eq!(h.samples(), 6);
    }

    #[test]
    fn rounds_give_the_round_minimum_and_the_delivery_rate() {
        let mut h = History::default();
        // Round 1 begins at the first ACK (t = 0) with segments up to 9 out.
        h.on_new_data(0, 1, 1, 10, Some(50 * MS));
        h.on_new_data(10 * MS, 5, 4, 10, Some(40 * MS));
        assert_eq!(h.last_round_min_rtt(), None);
        // ACK 11 covers segment 9: the round ends, 10 segments acknowledged
        // in the 100 ms since it began.
        h.on_new_data(100 * MS, 11, 6, 20, Some(45 * MS));
        assert_eq!(h.last_round_min_rtt(), Some(40 * MS));
        assert!(
            (h.max_delivery_rate() - 100.0).abs() < 1e-9,
            "{}",
            h.max_delivery_rate()
        );
        // BDP = 100 segments/s x 40 ms = 4 packets.
        assert!((h.bdp() - 4.0).abs() < 1e-9);
    }

    #[test]
    fn ack_gaps_and_window_figures() {
        let mut h = History::default();
        h.on_ack_arrival(10, 5, 0);
        assert_eq!(h.ack_gap(), None);
        h.on_ack_arrival(30, 25, 0);
        h.on_ack_arrival(40, 35, 0);
        assert_eq!(h.ack_gap(), Some(10));
        assert_eq!(h.mean_ack_gap(), Some(15.0));
        assert_eq!(h.last_rcv_at(), 35);
        assert_eq!(h.one_way(), 35);
        for w in [2.0, 4.0, 6.0] {
            h.on_window(w);
        }
        assert_eq!((h.mean_window(), h.max_window()), (Some(4.0), Some(6.0)));
    }

    #[test]
    fn jitter_ratio_per_round_and_the_first_dup_echo() {
        let mut h = History::default();
        h.on_new_data(0, 1, 1, 10, None); // a round begins
                                          // Sent 10 ms apart, received 10, 15, 30 ms apart: J = 0, 5, 20 ms
                                          // (the ACK between echoes the same send time: J = 5 then 15).
        h.on_ack_arrival(100, 50 * MS, 0);
        assert_eq!(h.jitter_ratio(), None);
        h.on_ack_arrival(110, 60 * MS, 10 * MS);
        h.on_ack_arrival(120, 75 * MS, 20 * MS);
        h.on_ack_arrival(125, 80 * MS, 20 * MS);
        h.on_ack_arrival(130, 105 * MS, 30 * MS);
        // An echo that goes back gives no pair.
        h.on_ack_arrival(131, 106 * MS, 5 * MS);
        assert_eq!(h.jitter_ratio(), Some(25.0 / 30.0));
        // The round ends: its mean is kept, the next round starts empty.
        h.on_new_data(MS, 11, 10, 20, None);
        h.on_ack_arrival(140, 115 * MS, 40 * MS);
        assert_eq!(h.jitter_ratio(), Some(25.0 / 30.0));
        h.on_dup_ack(7);
        h.on_dup_ack(9);
        assert_eq!(h.first_dup_echo(), Some(7));
        h.on_new_data(2 * MS, 12, 1, 20, None);
        assert_eq!(h.first_dup_echo(), None);
    }
}
