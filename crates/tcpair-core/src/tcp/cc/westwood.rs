//! TCP Westwood+ (Mascolo et al. 2001; Grieco and Mascolo 2004): Reno's
//! growth, and after a loss a window set from an end-to-end estimate of the
//! bandwidth the connection used, instead of a blind halving.
//!
//! What the papers say:
//! - Westwood (Mascolo et al. 2001, §2): the sender estimates the bandwidth
//!   BWE from the rate of returning ACKs, low-pass filtered. After n
//!   duplicate ACKs: ssthresh = BWE × RTT_min / segment size, and cwnd =
//!   ssthresh if cwnd > ssthresh; after a timeout: the same ssthresh (at
//!   least 2) and cwnd = 1. RTT_min is the smallest RTT measured.
//! - Westwood+ (Grieco and Mascolo 2004, §2): one bandwidth sample per RTT,
//!   the data acknowledged during the last RTT divided by that RTT, rather
//!   than one per ACK, so that ACK compression does not inflate the
//!   estimate; the samples are low-pass filtered.
//!
//! What is built here follows Linux's Westwood+ (`net/ipv4/tcp_westwood.c`,
//! read for understanding; ns-3's `tcp-westwood-plus.cc`, also read, times
//! its samples with a timer and filters with a Tustin approximation):
//! - Sample: on every ACK (of new data or duplicate), if more than
//!   max(RTT, `min_interval`) has passed since the interval began, the
//!   sample is the segments counted in the interval divided by its length
//!   (segments per second), and a new interval begins. RTT is the latest
//!   RTT sample, as in Linux; no interval closes before the first one.
//!   `min_interval` is Linux's TCP_WESTWOOD_RTT_MIN, 50 ms.
//! - The ACK that closes an interval is counted in the next one. The first
//!   interval begins at the first ACK, which is not counted (Linux begins
//!   it when the connection is set up and does not count the first ACK
//!   either; there is no handshake here).
//! - Counting (Linux's `westwood_acked_count`, in segments): a duplicate ACK
//!   counts one segment delivered and is remembered; a later cumulative ACK
//!   of k > 1 segments counts k less the remembered ones (at least 1).
//!   Linux's fast path counts without it; here every ACK goes through it.
//! - Filter, two stages with gain 7/8 old + 1/8 new, the second fed with
//!   the first's new value; the first sample, while both stages are 0,
//!   sets both (Linux). Real numbers here, integers (bytes per jiffy) in
//!   Linux.
//! - RTT_min: the smallest RTT sample; a timeout marks it for reset, and
//!   the next sample replaces it (Linux resets it at a timeout and lets the
//!   next ACK set it).
//! - ssthresh = max(floor(BWE × RTT_min), 2) packets, integer as Linux, at
//!   a fast retransmit and at a timeout. At a fast retransmit, fast recovery
//!   ends with cwnd = ssthresh if cwnd is larger, else cwnd (Mascolo et al.
//!   2001, §2). Linux halves ssthresh as Reno when recovery begins and sets
//!   cwnd = ssthresh = BWE × RTT_min when it ends.
//! - Before a bandwidth estimate exists (no sample yet, or every sample 0)
//!   the cut is Reno's (`half_flight`); Linux would give 2 packets.
//! - Growth: Reno's.

use super::reno::reno_grow;
use super::{half_flight, BuildFn, CongestionOps, LossCtx};
use crate::engine::{secs, to_secs, Time, MS};
use crate::error::{from_value, ConfigError, Shown};
use crate::registry::Entry;
use crate::tcp::{History, Window};
use crate::units::Quantity;
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "westwood+",
    summary:
        "Reno growth; after a loss ssthresh = bandwidth estimate x RTT_min (one sample per RTT)",
    source: "Mascolo et al. 2001 §2, Grieco and Mascolo 2004 §2; Linux tcp_westwood.c",
    build,
};

/// Linux's TCP_WESTWOOD_RTT_MIN: the shortest sample interval.
pub const DEFAULT_MIN_INTERVAL: Time = 50 * MS;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    min_interval: Option<Quantity>,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn CongestionOps>, ConfigError> {
    let p: Params = from_value(v)?;
    let min_interval = match &p.min_interval {
        None => DEFAULT_MIN_INTERVAL,
        Some(q) => interval(q)?,
    };
    Ok(Box::new(Westwood::new(min_interval)))
}

fn interval(q: &Quantity) -> Result<Time, ConfigError> {
    let field = "min_interval";
    let v = q.as_secs().map_err(|m| ConfigError::new(field, m))?;
    if !(v.is_finite() && (0.0..=3600.0).contains(&v)) {
        return Err(ConfigError::new(
            field,
            format!("must be a number of seconds in 0..=3600, got {}", Shown(v)),
        ));
    }
    Ok(secs(v))
}

#[derive(Debug, Clone)]
pub struct Westwood {
    min_interval: Time,
    /// When the current sample interval began (None before the first ACK).
    start: Option<Time>,
    /// Segments counted in the current interval (Linux `bk`).
    counted: u64,
    /// Duplicate ACKs counted that no cumulative ACK has covered yet
    /// (Linux `accounted`).
    dup_counted: u64,
    /// First filter stage, segments per second (Linux `bw_ns_est`).
    bw_first: f64,
    /// Second stage: the estimate BWE (Linux `bw_est`).
    bwe: f64,
    rtt_min: Option<Time>,
    /// A timeout happened: the next RTT sample replaces `rtt_min`.
    reset_rtt_min: bool,
    /// RTT samples the history had at the previous ACK.
    samples_seen: u64,
}

impl Westwood {
    pub fn new(min_interval: Time) -> Self {
        Self {
            min_interval,
            start: None,
            counted: 0,
            dup_counted: 0,
            bw_first: 0.0,
            bwe: 0.0,
            rtt_min: None,
            reset_rtt_min: false,
            samples_seen: 0,
        }
    }

    /// The bandwidth estimate BWE, segments per second (0: none yet).
    pub fn bwe(&self) -> f64 {
        self.bwe
    }

    /// RTT_min (None before the first sample).
    pub fn rtt_min(&self) -> Option<Time> {
        self.rtt_min
    }

    /// Take the history's new RTT sample, if any, into RTT_min.
    fn track_rtt_min(&mut self, h: &History) {
        if h.samples() == self.samples_seen {
            return;
        }
        self.samples_seen = h.samples();
        let Some(r) = h.last_rtt() else { return };
        self.rtt_min = match self.rtt_min {
            Some(m) if !self.reset_rtt_min => Some(m.min(r)),
            _ => Some(r),
        };
        self.reset_rtt_min = false;
    }

    /// Close the interval begun at `start` if more than max(RTT,
    /// min_interval) has passed: one bandwidth sample.
    fn close_interval(&mut self, now: Time, start: Time, h: &History) {
        let Some(rtt) = h.last_rtt() else { return };
        let dt = now.saturating_sub(start);
        if dt > rtt.max(self.min_interval) {
            self.filter(self.counted as f64 / to_secs(dt));
            self.counted = 0;
            self.start = Some(now);
        }
    }

    /// The two 7/8 stages; the first sample fills both.
    fn filter(&mut self, sample: f64) {
        if self.bw_first == 0.0 && self.bwe == 0.0 {
            self.bw_first = sample;
            self.bwe = sample;
        } else {
            self.bw_first = (7.0 * self.bw_first + sample) / 8.0;
            self.bwe = (7.0 * self.bwe + self.bw_first) / 8.0;
        }
    }

    /// Segments this ACK counts as delivered (`acked` = 0: a duplicate).
    fn delivered(&mut self, acked: u32) -> u64 {
        let acked = u64::from(acked);
        match acked {
            0 => {
                self.dup_counted += 1;
                1
            }
            1 => 1,
            _ if self.dup_counted >= acked => {
                self.dup_counted -= acked;
                1
            }
            _ => {
                let n = acked - self.dup_counted;
                self.dup_counted = 0;
                n
            }
        }
    }

    /// max(floor(BWE × RTT_min), 2), or None without an estimate.
    fn bw_ssthresh(&self) -> Option<f64> {
        let m = self.rtt_min?;
        (self.bwe > 0.0).then(|| (self.bwe * to_secs(m)).floor().max(2.0))
    }
}

impl CongestionOps for Westwood {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    fn on_ack(&mut self, now: Time, acked: u32, h: &History) {
        self.track_rtt_min(h);
        let Some(start) = self.start else {
            self.start = Some(now);
            return;
        };
        self.close_interval(now, start, h);
        let n = self.delivered(acked);
        self.counted += n;
    }

    #[inline]
    fn grow(&mut self, cwnd: &mut f64, ssthresh: f64, _acked: u32, _h: &History) {
        reno_grow(cwnd, ssthresh);
    }

    fn on_loss(&self, c: &LossCtx, _h: &History) -> Window {
        match self.bw_ssthresh() {
            Some(s) => Window {
                cwnd: c.cwnd.min(s),
                ssthresh: s,
            },
            None => {
                let s = half_flight(c.flight);
                Window {
                    cwnd: s,
                    ssthresh: s,
                }
            }
        }
    }

    fn on_timeout(&mut self, c: &LossCtx, _h: &History) -> f64 {
        let s = self.bw_ssthresh().unwrap_or_else(|| half_flight(c.flight));
        self.reset_rtt_min = true;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A new ACK at `t` ms acknowledging `acked` segments (up to `ack`),
    /// with an RTT sample of `rtt` ms, through the history then the op, as
    /// the sender does.
    fn new_ack(w: &mut Westwood, h: &mut History, t: Time, ack: u32, acked: u32, rtt: Time) {
        h.on_ack_arrival(t * MS, t * MS, 0);
        h.on_new_data(t * MS, ack, acked, 1000, Some(rtt * MS));
        w.on_ack(t * MS, acked, h);
    }

    fn dup_ack(w: &mut Westwood, h: &mut History, t: Time) {
        h.on_ack_arrival(t * MS, t * MS, 0);
        w.on_ack(t * MS, 0, h);
    }

    fn ctx(cwnd: f64) -> LossCtx {
        LossCtx {
            cwnd,
            ssthresh: 4.0,
            flight: cwnd as u32,
            window: 1000,
        }
    }

    /// The ACK sequence of the filter test; RTT samples 100 ms except one
    /// of 120 ms, so RTT_min = 100 ms and an interval closes after > 100 ms.
    fn driven() -> (Westwood, History) {
        let mut w = Westwood::new(DEFAULT_MIN_INTERVAL);
        let mut h = History::default();
        // t = 0: the first ACK begins the first interval, not counted.
        new_ack(&mut w, &mut h, 0, 1, 1, 100);
        // t = 20..100: five ACKs of one segment each: 5 counted. At t = 100
        // exactly 100 ms have passed: not more than RTT, no sample.
        for (i, t) in [20, 40, 60, 80, 100].into_iter().enumerate() {
            new_ack(&mut w, &mut h, t, 2 + i as u32, 1, 100);
        }
        assert_eq!(w.bwe(), 0.0);
        // t = 125: 125 ms > 100 ms: sample 1 = 5 / 0.125 s = 40 segments/s,
        // which fills both stages. This ACK (2 segments) opens interval 2.
        new_ack(&mut w, &mut h, 125, 8, 2, 120);
        assert_eq!((w.bw_first, w.bwe()), (40.0, 40.0));
        // Interval 2: 2, then two duplicate ACKs (one segment each): 4;
        // then a cumulative ACK of 4 segments, 2 of them counted by the
        // duplicates: 4 - 2 = 2 more: 6.
        dup_ack(&mut w, &mut h, 150);
        dup_ack(&mut w, &mut h, 175);
        new_ack(&mut w, &mut h, 200, 12, 4, 100);
        // t = 250: 125 ms: sample 2 = 6 / 0.125 = 48 segments/s.
        // First stage: (7 × 40 + 48) / 8 = 41; second: (7 × 40 + 41) / 8
        // = 40.125.
        new_ack(&mut w, &mut h, 250, 13, 1, 100);
        (w, h)
    }

    #[test]
    fn samples_and_both_filter_stages() {
        let (w, _) = driven();
        assert_eq!(w.bw_first, 41.0);
        assert_eq!(w.bwe(), 40.125);
        assert_eq!(w.rtt_min(), Some(100 * MS));
    }

    #[test]
    fn a_cumulative_ack_covered_by_duplicates_counts_one() {
        let mut w = Westwood::new(0);
        assert_eq!(w.delivered(0), 1);
        assert_eq!(w.delivered(0), 1);
        assert_eq!(w.delivered(0), 1);
        // Three counted: an ACK of 2 counts 1 and leaves one remembered.
        assert_eq!(w.delivered(2), 1);
        assert_eq!(w.dup_counted, 1);
        // An ACK of one segment leaves the memory alone.
        assert_eq!(w.delivered(1), 1);
        assert_eq!(w.delivered(5), 4);
        assert_eq!(w.dup_counted, 0);
    }

    #[test]
    fn the_interval_is_at_least_min_interval() {
        // RTT 20 ms, floor 50 ms: ACKs every 10 ms close an interval only
        // after more than 50 ms: at t = 60, with 5 segments counted (t =
        // 10..50): 5 / 0.06 s.
        let mut w = Westwood::new(DEFAULT_MIN_INTERVAL);
        let mut h = History::default();
        for (i, t) in [0, 10, 20, 30, 40, 50].into_iter().enumerate() {
            new_ack(&mut w, &mut h, t, 1 + i as u32, 1, 20);
        }
        assert_eq!(w.bwe(), 0.0);
        new_ack(&mut w, &mut h, 60, 7, 1, 20);
        assert!((w.bwe() - 5.0 / 0.06).abs() < 1e-9, "{}", w.bwe());
    }

    #[test]
    fn loss_sets_ssthresh_to_bwe_times_rtt_min() {
        let (w, h) = driven();
        // 40.125 segments/s × 0.1 s = 4.0125 -> 4.
        let big = w.on_loss(&ctx(10.0), &h);
        assert_eq!((big.cwnd, big.ssthresh), (4.0, 4.0));
        // cwnd below ssthresh: recovery ends with cwnd.
        let small = w.on_loss(&ctx(3.0), &h);
        assert_eq!((small.cwnd, small.ssthresh), (3.0, 4.0));
    }

    #[test]
    fn renos_cut_before_an_estimate() {
        let mut w = Westwood::new(DEFAULT_MIN_INTERVAL);
        let mut h = History::default();
        new_ack(&mut w, &mut h, 0, 1, 1, 100);
        let r = w.on_loss(&ctx(10.0), &h);
        assert_eq!((r.cwnd, r.ssthresh), (5.0, 5.0));
        assert_eq!(w.on_timeout(&ctx(3.0), &h), 2.0);
    }

    #[test]
    fn a_timeout_resets_rtt_min_to_the_next_sample() {
        let (mut w, mut h) = driven();
        assert_eq!(w.on_timeout(&ctx(10.0), &h), 4.0);
        assert_eq!(w.rtt_min(), Some(100 * MS), "kept until the next sample");
        // A duplicate ACK brings no sample.
        dup_ack(&mut w, &mut h, 300);
        assert_eq!(w.rtt_min(), Some(100 * MS));
        // The next sample (150 ms) replaces it, larger though it is.
        new_ack(&mut w, &mut h, 410, 14, 1, 150);
        assert_eq!(w.rtt_min(), Some(150 * MS));
        // That ACK also closed the interval begun at t = 250 (160 ms > the
        // 150 ms RTT): 1 + 1 (the duplicate) = 2 segments in 0.16 s = 12.5
        // segments/s; first stage (7 × 41 + 12.5) / 8 = 37.4375, second
        // (7 × 40.125 + 37.4375) / 8 = 39.7890625.
        assert_eq!(w.bw_first, 37.4375);
        assert_eq!(w.bwe(), 39.7890625);
        // ssthresh = floor(39.79 × 0.15) = floor(5.97) = 5.
        assert_eq!(w.on_loss(&ctx(10.0), &h).ssthresh, 5.0);
        // Later samples lower it again.
        new_ack(&mut w, &mut h, 420, 15, 1, 90);
        assert_eq!(w.rtt_min(), Some(90 * MS));
    }

    #[test]
    fn growth_is_renos_and_min_interval_is_validated() {
        let mut w = Westwood::new(DEFAULT_MIN_INTERVAL);
        let h = History::default();
        let mut cwnd = 4.0;
        w.grow(&mut cwnd, 8.0, 1, &h);
        assert_eq!(cwnd, 5.0);
        w.grow(&mut cwnd, 5.0, 1, &h);
        assert_eq!(cwnd, 5.0 + 1.0 / 5.0);
        assert_eq!(build(&json!({})).unwrap().name(), "westwood+");
        build(&json!({"min_interval": "10ms"})).unwrap();
        build(&json!({"min_interval": 0})).unwrap();
        for bad in [json!(-1), json!("5 parsecs"), json!(1e9)] {
            let e = build(&json!({ "min_interval": bad })).unwrap_err();
            assert_eq!(e.path, "min_interval", "{e}");
        }
        assert!(build(&json!({"alpha": 1})).is_err());
    }
}
