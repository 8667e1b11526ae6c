//! Snoop's estimate of the wireless hop's round trip (Amir et al. 1995 §3: "a
//! TCP-style round-trip time (RTT) estimate of the last (wireless) link"): the
//! local timer's period and the bound below which an ACK is no evidence of a
//! loss (docs/snoop.md).

use super::params::SnoopParams;
use crate::engine::Time;

/// Jacobson/Karels estimator of the wireless hop's RTT (alpha 1/8, beta 1/4).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RttEst {
    pub(super) srtt: Option<Time>,
    pub(super) rttvar: Time,
    pub(super) backoff: u32,
    /// The smallest sample: a lower bound on the hop's round trip.
    pub(super) min: Option<Time>,
}

impl RttEst {
    /// An ACK at `now` cannot come from a packet forwarded after time
    /// `sent`: sooner than the smallest round trip seen (none: unknown).
    pub(super) fn too_early(&self, now: Time, sent: Time) -> bool {
        self.min.is_some_and(|m| now < sent + m)
    }

    pub(super) fn sample(&mut self, r: Time) {
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                // rttvar <- 3/4 rttvar + 1/4 |srtt - r|; srtt <- 7/8 srtt + 1/8 r
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.backoff = 0;
    }

    pub(super) fn rto(&self, p: &SnoopParams) -> Time {
        let base = match self.srtt {
            None => p.initial_rto,
            Some(s) => (s + 4 * self.rttvar).max(p.min_rto),
        };
        base << self.backoff
    }
}
