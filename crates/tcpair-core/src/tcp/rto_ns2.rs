//! ns-2.35's RTO arithmetic (`tcp.rto_estimator = "ns2"`), for comparing
//! with runs of ns-2 (docs/tcp.md, docs/validation.md). ns-2.35 `tcp.cc`
//! (`rtt_update`, `rtt_timeout`, `rtt_backoff`) keeps the estimate in clock
//! ticks (`tcpTick_`, tcpair's `granularity`) as scaled integers:
//! - a sample is rounded to whole ticks, at least one;
//! - srtt carries 3 fraction bits, rttvar 2; the gains are 1/8 and 1/4 as in
//!   RFC 6298, with ns-2's truncations and its floors of one unit;
//! - the base RTO is `(srtt + 4 rttvar)` truncated to ticks, at least
//!   `min_rto` (`minrto_`), times the backoff, capped at `max_rto` (`maxrto_`);
//! - a timeout doubles the backoff while it is below `max_backoff` (64) *or*
//!   the RTO is still below `max_rto` (`rfc2988_`, ns-2.35's default), so the
//!   RTO keeps doubling up to 60 s;
//! - past 8x it "clobbers" srtt (`t_srtt_ = 0`): the next sample starts the
//!   estimate afresh (srtt = R, rttvar = R/2) instead of smoothing into it.
//!
//! The base RTO is recomputed only when a sample arrives, as in ns-2.

use crate::engine::Time;

/// srtt's and rttvar's fraction bits (`T_SRTT_BITS`, `T_RTTVAR_BITS`).
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// `rttvar_exp_`: the base RTO is srtt + 2^2 rttvar.
const RTTVAR_EXP: u32 = 2;
/// Backoff past which srtt is clobbered (`t_backoff_ > 8`).
const CLOBBER_ABOVE: u32 = 8;

/// The estimator's state in ticks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ns2Rto {
    tick: Time,
    /// `t_srtt_` (8 x srtt in ticks), 0 before a sample or after a clobber.
    srtt: i64,
    /// `t_rttvar_` (4 x rttvar in ticks).
    rttvar: i64,
    /// `t_rtxcur_` in ns, None before the first sample.
    rtxcur: Option<Time>,
}

impl Ns2Rto {
    pub fn new(tick: Time) -> Self {
        Self {
            tick: tick.max(1),
            srtt: 0,
            rttvar: 0,
            rtxcur: None,
        }
    }

    /// `rtt_update(tao)`.
    pub fn sample(&mut self, r: Time) {
        // t_rtt_ = int(tao / tcp_tick_ + 0.5), at least 1.
        let t = ((r + self.tick / 2) / self.tick).max(1) as i64;
        if self.srtt != 0 {
            let mut delta = t - (self.srtt >> SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            delta = delta.abs() - (self.rttvar >> RTTVAR_BITS);
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = t << SRTT_BITS;
            self.rttvar = t << (RTTVAR_BITS - 1);
        }
        let ticks =
            ((self.rttvar << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + self.srtt) >> SRTT_BITS;
        self.rtxcur = Some(ticks.max(0) as Time * self.tick);
    }

    /// `t_rtxcur_`, or `initial` before any sample (`rtxcur_init_`).
    pub fn rtxcur(&self, initial: Time) -> Time {
        self.rtxcur.unwrap_or(initial)
    }

    /// The clobber of `rtt_backoff()`, applied once the backoff is above 8.
    pub fn after_backoff(&mut self, backoff: u32) {
        if backoff > CLOBBER_ABOVE {
            self.rttvar += self.srtt >> SRTT_BITS;
            self.srtt = 0;
        }
    }

    /// Smoothed RTT, if the estimate holds one (not after a clobber).
    pub fn srtt(&self) -> Option<Time> {
        (self.srtt != 0).then(|| (self.srtt as Time * self.tick) >> SRTT_BITS)
    }

    pub fn rttvar(&self) -> Time {
        (self.rttvar.max(0) as Time * self.tick) >> RTTVAR_BITS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    #[test]
    fn samples_hand_computed_in_ticks() {
        let mut e = Ns2Rto::new(10 * MS);
        assert_eq!(e.rtxcur(3000 * MS), 3000 * MS);
        // 95 ms -> 10 ticks: srtt 80 (10 << 3), rttvar 20 (10 << 1);
        // rtxcur = ((20 << 3) + 80) >> 3 = 30 ticks.
        e.sample(95 * MS);
        assert_eq!(e.rtxcur(0), 300 * MS);
        assert_eq!(e.srtt(), Some(100 * MS));
        // 200 ms -> 20 ticks: delta 10, srtt 90; |10| - (20 >> 2) = 5, rttvar 25;
        // rtxcur = (200 + 90) >> 3 = 36 ticks (RFC 6298 in ns: 362.5 ms).
        e.sample(200 * MS);
        assert_eq!(e.rtxcur(0), 360 * MS);
        assert_eq!(e.rttvar(), 62_500_000);
    }

    #[test]
    fn a_sample_under_half_a_tick_counts_as_one() {
        let mut e = Ns2Rto::new(10 * MS);
        e.sample(MS);
        // 1 tick: srtt 8, rttvar 2 -> (16 + 8) >> 3 = 3 ticks.
        assert_eq!(e.rtxcur(0), 30 * MS);
    }

    #[test]
    fn the_clobber_restarts_the_estimate_at_the_next_sample() {
        let mut e = Ns2Rto::new(10 * MS);
        e.sample(95 * MS);
        e.sample(200 * MS);
        e.after_backoff(8);
        assert_eq!(e.srtt(), Some(112_500_000));
        e.after_backoff(16);
        assert_eq!(e.srtt(), None);
        // rtxcur keeps its value until a sample arrives
        assert_eq!(e.rtxcur(0), 360 * MS);
        e.sample(100 * MS);
        // afresh: srtt 10 << 3, rttvar 10 << 1, not smoothed into 90 / 36
        assert_eq!(e.rtxcur(0), 300 * MS);
    }
}
