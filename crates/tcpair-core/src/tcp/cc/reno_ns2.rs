//! Reno's AIMD with ns-2.35's window arithmetic (`tcp.congestion =
//! "reno_ns2"`), for comparing with ns-2 like with like. It differs from
//! [`super::reno`] in three places, each from ns-2.35's tcp.cc:
//!
//! - the cut halves the usable window, `min(cwnd, wnd)`, as a real number
//!   (`slowdown` with `precision_reduce_`, ns-2.35's default): cwnd becomes
//!   that half, ssthresh its integer part (at least 2), where RFC 5681 §3.1
//!   eq. (4) and [`super::reno`] take `max(FlightSize / 2, 2)` for both;
//! - the ACK that ends fast recovery also grows cwnd (`recv_newack_helper`
//!   calls `opencwnd`), so recovery ends at `half + 1/half`;
//! - every timeout cuts ssthresh from the current window, so a repeated
//!   timeout of the same segment sets it to 2, where RFC 5681 §3.1 holds it.
//!
//! Growth is Reno's (ns-2's `opencwnd`, `wnd_option_ 1`).

use super::reno::reno_grow;
use super::{BuildFn, CongestionOps, LossCtx};
use crate::error::ConfigError;
use crate::registry::{no_params, Entry};
use crate::tcp::{History, Window};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "reno_ns2",
    summary: "Reno with ns-2.35's arithmetic: halve min(cwnd, window) as a real number",
    source: "ns-2.35 tcp.cc slowdown, opencwnd",
    build,
};

fn build(v: &serde_json::Value) -> Result<Box<dyn CongestionOps>, ConfigError> {
    no_params(v)?;
    Ok(Box::new(RenoNs2))
}

#[derive(Debug, Clone, Copy, Default)]
pub struct RenoNs2;

/// ns-2's `halfwin`: half the usable window, `windowd() / 2`.
fn half_window(c: &LossCtx) -> f64 {
    c.cwnd.min(f64::from(c.window)) / 2.0
}

/// ns-2's ssthresh: `(int) halfwin`, at least 2.
fn ssthresh_of(half: f64) -> f64 {
    half.floor().max(2.0)
}

impl CongestionOps for RenoNs2 {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    #[inline]
    fn grow(&mut self, cwnd: &mut f64, ssthresh: f64, _acked: u32, _h: &History) {
        reno_grow(cwnd, ssthresh);
    }

    fn on_loss(&self, c: &LossCtx, _h: &History) -> Window {
        let half = half_window(c);
        Window {
            cwnd: half.max(1.0),
            ssthresh: ssthresh_of(half),
        }
    }

    fn on_timeout(&mut self, c: &LossCtx, _h: &History) -> f64 {
        ssthresh_of(half_window(c))
    }

    fn grows_at_recovery_exit(&self) -> bool {
        true
    }

    fn cuts_at_every_timeout(&self) -> bool {
        true
    }

    fn uses_history(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(cwnd: f64, flight: u32, window: u32) -> LossCtx {
        LossCtx {
            cwnd,
            ssthresh: 4.0,
            flight,
            window,
        }
    }

    #[test]
    fn halves_the_usable_window_as_a_real_number() {
        let h = History::default();
        // cwnd 15, flight 15: ns-2 7.5 / 7, RFC 5681 7 / 7.
        let w = RenoNs2.on_loss(&ctx(15.0, 15, 30), &h);
        assert_eq!((w.cwnd, w.ssthresh), (7.5, 7.0));
        // cwnd grown past the window (window-limited): the window is halved.
        let w = RenoNs2.on_loss(&ctx(41.3, 20, 20), &h);
        assert_eq!((w.cwnd, w.ssthresh), (10.0, 10.0));
        // Small windows: ssthresh at least 2, cwnd at least 1.
        let w = RenoNs2.on_loss(&ctx(1.0, 1, 20), &h);
        assert_eq!((w.cwnd, w.ssthresh), (1.0, 2.0));
    }

    #[test]
    fn every_timeout_cuts_from_the_current_window() {
        let h = History::default();
        let mut op = RenoNs2;
        assert_eq!(op.on_timeout(&ctx(9.0, 9, 20), &h), 4.0);
        // The repeated timeout sees cwnd = 1.
        assert_eq!(op.on_timeout(&ctx(1.0, 9, 20), &h), 2.0);
        assert!(op.cuts_at_every_timeout() && op.grows_at_recovery_exit());
    }
}
