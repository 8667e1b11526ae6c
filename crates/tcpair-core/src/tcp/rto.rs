//! Retransmission timeout estimator, RFC 6298.
//!
//! Integer nanosecond arithmetic: the gains 1/8 and 1/4 are applied with
//! integer division (truncation below 1 ns is irrelevant at simulated RTTs and
//! keeps runs bit-identical across platforms).

use super::rto_ns2::Ns2Rto;
use super::{RtoEstimatorKind, TcpConfig};
use crate::engine::Time;

/// SRTT/RTTVAR estimator with exponential backoff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtoEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    initial_rto: Time,
    min_rto: Time,
    max_rto: Time,
    granularity: Time,
    max_backoff: u32,
    /// Current backoff multiplier (1, 2, 4, ... up to `max_backoff`).
    backoff: u32,
    /// ns-2.35's tick arithmetic in place of RFC 6298's (`rto_estimator = "ns2"`).
    ns2: Option<Ns2Rto>,
    /// [`Self::base_rto`] and [`Self::rto`] as of the last change (the
    /// sender arms its timer with the RTO on every new ACK; it changes only
    /// with a sample or a backoff).
    base_now: Time,
    rto_now: Time,
}

impl RtoEstimator {
    pub fn new(
        initial_rto: Time,
        min_rto: Time,
        max_rto: Time,
        granularity: Time,
        max_backoff: u32,
    ) -> Self {
        let mut e = Self {
            srtt: None,
            rttvar: 0,
            initial_rto,
            min_rto,
            max_rto,
            granularity,
            max_backoff: max_backoff.max(1),
            backoff: 1,
            ns2: None,
            base_now: 0,
            rto_now: 0,
        };
        e.refresh();
        e
    }

    /// The same, with ns-2.35's arithmetic (ticks of `granularity`).
    pub fn ns2(mut self) -> Self {
        self.ns2 = Some(Ns2Rto::new(self.granularity));
        self.refresh();
        self
    }

    /// Recompute the remembered RTOs after a change of state.
    fn refresh(&mut self) {
        self.base_now = self.compute_base_rto();
        self.rto_now = self
            .base_now
            .saturating_mul(Time::from(self.backoff))
            .min(self.max_rto.max(self.base_now));
    }

    pub fn from_config(cfg: &TcpConfig) -> Self {
        let e = Self::new(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.granularity,
            cfg.max_backoff,
        );
        match cfg.rto_estimator {
            RtoEstimatorKind::Rfc6298 => e,
            RtoEstimatorKind::Ns2 => e.ns2(),
        }
    }

    /// Feed one RTT measurement `r` (RFC 6298 §2.2/§2.3). A valid sample also
    /// ends any backoff (RFC 6298 §5.7: the backed-off RTO is kept until a new
    /// sample is taken).
    pub fn sample(&mut self, r: Time) {
        self.sample_state(r);
        self.refresh();
    }

    fn sample_state(&mut self, r: Time) {
        self.backoff = 1;
        if let Some(n) = &mut self.ns2 {
            n.sample(r);
            return;
        }
        match self.srtt {
            None => {
                // §2.2: SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // §2.3, beta = 1/4 then alpha = 1/8; RTTVAR uses the old SRTT.
                let diff = srtt.abs_diff(r);
                self.rttvar = (3 * self.rttvar + diff) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
    }

    /// The RTO without backoff: SRTT + max(G, 4 RTTVAR) clamped to
    /// [min_rto, max_rto] (RFC 6298 §2.4/§2.5), or the initial RTO before any
    /// sample (§2.1).
    #[inline]
    pub fn base_rto(&self) -> Time {
        self.base_now
    }

    fn compute_base_rto(&self) -> Time {
        if let Some(n) = &self.ns2 {
            // ns-2.35 rtt_timeout(): minrto_ clamps t_rtxcur_ before the backoff.
            let cur = n.rtxcur(self.initial_rto).max(self.min_rto);
            return cur.min(self.max_rto.max(self.min_rto));
        }
        match self.srtt {
            None => self.initial_rto.min(self.max_rto),
            Some(srtt) => {
                let rto = srtt + self.granularity.max(4 * self.rttvar);
                rto.clamp(self.min_rto, self.max_rto.max(self.min_rto))
            }
        }
    }

    /// The RTO to arm the timer with: base RTO times the backoff multiplier,
    /// capped at `max_rto` (RFC 6298 §5.5 allows a maximum).
    #[inline]
    pub fn rto(&self) -> Time {
        self.rto_now
    }

    /// Double the multiplier after a timeout (RFC 6298 §5.5), up to `max_backoff`.
    pub fn backoff(&mut self) {
        self.backoff_state();
        self.refresh();
    }

    fn backoff_state(&mut self) {
        if self.ns2.is_none() {
            self.backoff = (self.backoff.saturating_mul(2)).min(self.max_backoff);
            return;
        }
        // ns-2.35 rtt_backoff() with rfc2988_: double below 64x, or while the
        // backed-off RTO is still under maxrto_; then the srtt clobber.
        if self.backoff < self.max_backoff || self.rto() < self.max_rto {
            self.backoff = self.backoff.saturating_mul(2);
        }
        let b = self.backoff;
        if let Some(n) = &mut self.ns2 {
            n.after_backoff(b);
        }
    }

    pub fn backoff_multiplier(&self) -> u32 {
        self.backoff
    }

    pub fn srtt(&self) -> Option<Time> {
        match &self.ns2 {
            Some(n) => n.srtt(),
            None => self.srtt,
        }
    }

    pub fn rttvar(&self) -> Time {
        match &self.ns2 {
            Some(n) => n.rttvar(),
            None => self.rttvar,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC};

    fn est() -> RtoEstimator {
        // ns-2-like defaults: 3 s initial, 200 ms min, 60 s max, G = 10 ms, 64x.
        RtoEstimator::new(3 * SEC, 200 * MS, 60 * SEC, 10 * MS, 64)
    }

    #[test]
    fn initial_rto_before_any_sample() {
        let e = est();
        assert_eq!(e.rto(), 3 * SEC);
        assert_eq!(e.srtt(), None);
    }

    #[test]
    fn first_and_second_sample_hand_computed() {
        let mut e = est();
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + max(10, 200) = 300 ms.
        e.sample(100 * MS);
        assert_eq!(e.srtt(), Some(100 * MS));
        assert_eq!(e.rttvar(), 50 * MS);
        assert_eq!(e.rto(), 300 * MS);
        // R = 200 ms: RTTVAR = 3/4*50 + 1/4*|100-200| = 37.5 + 25 = 62.5 ms;
        // SRTT = 7/8*100 + 1/8*200 = 112.5 ms; RTO = 112.5 + 250 = 362.5 ms.
        e.sample(200 * MS);
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), Some(112_500_000));
        assert_eq!(e.rto(), 362_500_000);
    }

    #[test]
    fn min_rto_and_granularity() {
        let mut e = est();
        // R = 10 ms: 10 + max(10, 20) = 30 ms -> clamped up to 200 ms.
        e.sample(10 * MS);
        assert_eq!(e.rto(), 200 * MS);
        // Constant RTT drives RTTVAR to 0; then G dominates 4*RTTVAR.
        let mut e = RtoEstimator::new(3 * SEC, 0, 60 * SEC, 10 * MS, 64);
        for _ in 0..200 {
            e.sample(50 * MS);
        }
        assert_eq!(e.rttvar(), 0);
        assert_eq!(e.rto(), 60 * MS); // 50 + G
    }

    #[test]
    fn backoff_doubles_caps_and_resets_on_sample() {
        let mut e = est();
        e.sample(100 * MS); // RTO 300 ms
        e.backoff();
        assert_eq!(e.rto(), 600 * MS);
        e.backoff();
        assert_eq!(e.rto(), 1200 * MS);
        for _ in 0..10 {
            e.backoff();
        }
        // Multiplier capped at 64: 300 ms * 64 = 19.2 s (< 60 s).
        assert_eq!(e.backoff_multiplier(), 64);
        assert_eq!(e.rto(), 19_200 * MS);
        // RFC 6298 §5.7: a new sample ends the backoff.
        e.sample(100 * MS);
        assert_eq!(e.backoff_multiplier(), 1);
        // RTTVAR = 3/4*50 = 37.5, SRTT 100 -> RTO = 250 ms.
        assert_eq!(e.rto(), 250 * MS);
    }

    #[test]
    fn backed_off_rto_capped_by_max_rto() {
        let mut e = est(); // 3 s initial
        let mut seen = vec![e.rto()];
        for _ in 0..6 {
            e.backoff();
            seen.push(e.rto());
        }
        // 3, 6, 12, 24, 48, 60 (cap), 60 s.
        let s: Vec<u64> = seen.iter().map(|t| t / SEC).collect();
        assert_eq!(s, vec![3, 6, 12, 24, 48, 60, 60]);
    }

    #[test]
    fn ns2_mode_keeps_doubling_to_max_rto_and_clamps_min_first() {
        let mut e = est().ns2();
        e.sample(95 * MS); // 300 ms, as in rto_ns2's test
        assert_eq!(e.rto(), 300 * MS);
        let mut seen = vec![];
        for _ in 0..12 {
            e.backoff();
            seen.push(e.backoff_multiplier());
        }
        // 64x stops RFC 6298 mode; ns-2 doubles while the RTO is under 60 s:
        // 300 ms x 128 = 38.4 s < 60 s, so 256x, whose RTO is capped at 60 s.
        assert_eq!(seen[..9], [2, 4, 8, 16, 32, 64, 128, 256, 256]);
        assert_eq!(e.rto(), 60 * SEC);
        // a sample ends the backoff and, srtt having been clobbered, starts afresh
        e.sample(30 * MS);
        assert_eq!(e.backoff_multiplier(), 1);
        // 3 ticks: srtt 24, rttvar 6, ((6 << 3) + 24) >> 3 = 9 ticks = 90 ms -> 200 ms
        assert_eq!(e.rto(), 200 * MS);
    }

    proptest::proptest! {
        /// The remembered RTOs are those computed afresh after every
        /// sample and backoff, in both arithmetics.
        #[test]
        fn remembered_rto_is_the_computed_one(
            ns2 in proptest::prelude::any::<bool>(),
            ops in proptest::collection::vec(proptest::option::of(0u64..5 * SEC), 1..60),
        ) {
            let mut e = if ns2 { est().ns2() } else { est() };
            for op in ops {
                match op {
                    Some(r) => e.sample(r),
                    None => e.backoff(),
                }
                let base = e.compute_base_rto();
                proptest::prop_assert_eq!(e.base_rto(), base);
                let rto = base
                    .saturating_mul(Time::from(e.backoff_multiplier()))
                    .min(e.max_rto.max(base));
                proptest::prop_assert_eq!(e.rto(), rto);
            }
        }
    }
}
