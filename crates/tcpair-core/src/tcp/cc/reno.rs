//! Reno-style AIMD, ns-2's `opencwnd`/`slowdown`: one segment per ACK in
//! slow start, 1/cwnd per ACK in congestion avoidance (per ACK, not per
//! segment acknowledged); on a loss ssthresh = max(flight / 2, 2) (RFC 5681
//! §3.1 eq. (4), integer as ns-2) and fast recovery ends at ssthresh.

use super::{half_flight, BuildFn, CongestionOps, LossCtx};
use crate::error::ConfigError;
use crate::registry::{no_params, Entry};
use crate::tcp::{History, Window};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "reno",
    summary: "AIMD: +1 per ACK in slow start, +1/cwnd per ACK after; halve on a loss",
    source: "RFC 5681 §3.1; ns-2 tcp.cc opencwnd",
    build,
};

fn build(v: &serde_json::Value) -> Result<Box<dyn CongestionOps>, ConfigError> {
    no_params(v)?;
    Ok(Box::new(Reno))
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Reno;

/// Reno's growth, shared by the ops that fall back on it.
#[inline]
pub fn reno_grow(cwnd: &mut f64, ssthresh: f64) {
    if *cwnd < ssthresh {
        *cwnd += 1.0;
    } else {
        *cwnd += 1.0 / *cwnd;
    }
}

impl CongestionOps for Reno {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    #[inline]
    fn grow(&mut self, cwnd: &mut f64, ssthresh: f64, _acked: u32, _h: &History) {
        reno_grow(cwnd, ssthresh);
    }

    fn on_loss(&self, c: &LossCtx, _h: &History) -> Window {
        let s = half_flight(c.flight);
        Window {
            cwnd: s,
            ssthresh: s,
        }
    }

    fn on_timeout(&mut self, c: &LossCtx, _h: &History) -> f64 {
        half_flight(c.flight)
    }

    fn uses_history(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_and_halves_as_ns2() {
        let h = History::default();
        let mut r = Reno;
        let mut cwnd = 1.0;
        r.grow(&mut cwnd, 4.0, 1, &h);
        assert_eq!(cwnd, 2.0);
        let mut cwnd = 4.0;
        r.grow(&mut cwnd, 4.0, 1, &h);
        assert_eq!(cwnd, 4.25);
        let c = LossCtx {
            cwnd: 9.0,
            ssthresh: 4.0,
            flight: 9,
            window: 20,
        };
        assert_eq!(
            r.on_loss(&c, &h),
            Window {
                cwnd: 4.0,
                ssthresh: 4.0
            }
        );
        assert_eq!(r.on_timeout(&LossCtx { flight: 3, ..c }, &h), 2.0);
    }
}
