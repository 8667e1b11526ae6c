//! TCP Veno (Fu and Liew 2003): Reno whose additive increase and
//! multiplicative decrease depend on an estimate of the packets the
//! connection has queued in the network.
//!
//! What the paper says (Fu and Liew 2003, §II):
//! - Backlog, from Vegas: Expected = cwnd / BaseRTT, Actual = cwnd / RTT,
//!   N = Actual × (RTT − BaseRTT) = cwnd × (RTT − BaseRTT) / RTT (§II.A).
//!   N < β (β = 3 packets) means the connection is in the non-congestive
//!   state, N ≥ β in the congestive state.
//! - Multiplicative decrease (§II.B): at a loss found by duplicate ACKs in
//!   the non-congestive state the loss is taken as random (not congestion)
//!   and ssthresh = cwnd × 4/5; in the congestive state ssthresh = cwnd / 2,
//!   as Reno.
//! - Additive increase (§II.B): slow start as Reno; in congestion
//!   avoidance one segment per round trip while non-congestive, one every
//!   other round trip while congestive (the window stays longer near the
//!   point where the path's queue builds up).
//!
//! What is built here:
//! - BaseRTT = the smallest RTT sample ever ([`History::min_rtt`]); RTT =
//!   the smallest sample of the last completed round trip
//!   ([`History::last_round_min_rtt`]), the per-round minimum of Vegas that
//!   the paper borrows. Linux (`net/ipv4/tcp_veno.c`) and ns-3
//!   (`src/internet/model/tcp-veno.cc`), read for understanding, reset their
//!   minimum at every congestion-avoidance call, that is at every ACK, so
//!   their RTT is close to the latest sample.
//! - Before a round trip has completed there is no RTT for N, and the op is
//!   exactly Reno: Reno's growth and Reno's cut (`half_flight`). Linux uses
//!   Reno's growth until it has more than two samples, and its stored N is 0
//!   until then, so a loss that early gets the 4/5 cut there.
//! - N is computed afresh at each call from the state at that moment: in
//!   `grow` from the cwnd passed in (before this ACK's increment); at a
//!   loss (`on_loss`, `on_timeout`) from FlightSize (`LossCtx::flight`),
//!   and the 4/5 or 1/2 cut applies to FlightSize too. The paper and Linux
//!   write cwnd; here cwnd is not capped by the window limit (ns-2's
//!   convention, docs/tcp.md), so past the limit cwnd says nothing about
//!   what is in the network, while FlightSize is what Linux's cwnd tracks
//!   (Linux stops growing cwnd when the window limit binds). ns-3 also
//!   applies the cut to the bytes in flight. The congestive cut is then
//!   exactly Reno's here (`half_flight`), as in ns-3.
//! - Cuts are integers like ns-2's and Linux's: ssthresh =
//!   max(floor(flight × 4/5), 2) or max(floor(flight / 2), 2); fast recovery
//!   ends with cwnd = ssthresh. A timeout uses the same ssthresh rule (Linux
//!   and ns-3 have one ssthresh function for both).
//! - "Every other round trip": the congestive congestion-avoidance ACKs are
//!   counted, and when the count reaches 2 × cwnd (two round trips' worth of
//!   ACKs at a full window) cwnd grows by exactly one segment and the count
//!   restarts; cwnd is unchanged in between. The count also restarts at
//!   every ACK that finds the op outside the congestive state (slow start,
//!   N < β, no round yet) and after any cut of cwnd (a smaller cwnd than
//!   after the previous ACK), so each congestive stretch starts afresh.
//!   Linux counts cwnd ACKs per step and skips every other step; ns-3
//!   applies Reno's increment on every other ACK; the paper states the rule
//!   per round trip.
//! - β is a parameter (`beta`, packets, default 3), a positive number.
//!   Linux keeps N in half-packets (β = 6 half-packets = 3 packets); here N
//!   is a real number.

use super::reno::reno_grow;
use super::{half_flight, BuildFn, CongestionOps, LossCtx};
use crate::error::{from_value, ConfigError, Shown};
use crate::registry::Entry;
use crate::tcp::{History, Window};
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "veno",
    summary: "Reno whose cut (4/5 or 1/2) and CA growth follow the backlog N = cwnd (RTT - BaseRTT) / RTT",
    source: "Fu and Liew 2003 §II; Linux tcp_veno.c, ns-3 tcp-veno.cc",
    build,
};

/// β of Fu and Liew 2003 §II.A, packets.
pub const DEFAULT_BETA: f64 = 3.0;

fn default_beta() -> f64 {
    DEFAULT_BETA
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    /// A non-finite number in TOML arrives as null and is refused here.
    #[serde(default = "default_beta")]
    beta: f64,
}

/// Veno's one parameter, `beta`, read and checked: the congestion op's table
/// and the loss detector's (`tcp::detect::veno`) are alike.
pub(crate) fn beta_param(v: &serde_json::Value) -> Result<f64, ConfigError> {
    let p: Params = from_value(v)?;
    if !(p.beta.is_finite() && p.beta > 0.0) {
        return Err(ConfigError::new(
            "beta",
            format!(
                "must be a positive number of packets, got {}",
                Shown(p.beta)
            ),
        ));
    }
    Ok(p.beta)
}

fn build(v: &serde_json::Value) -> Result<Box<dyn CongestionOps>, ConfigError> {
    Ok(Box::new(Veno::new(beta_param(v)?)))
}

#[derive(Debug, Clone)]
pub struct Veno {
    beta: f64,
    /// Congestive congestion-avoidance ACKs since the last one-segment step.
    acks: u32,
    /// cwnd after the previous `grow` (a smaller one now means a cut).
    last_cwnd: f64,
}

impl Veno {
    pub fn new(beta: f64) -> Self {
        Self {
            beta,
            acks: 0,
            last_cwnd: 0.0,
        }
    }

    /// Whether backlog `n` (None: no round yet) is the congestive state.
    fn congestive(&self, n: Option<f64>) -> bool {
        n.is_some_and(|n| n >= self.beta)
    }

    /// Congestive congestion avoidance: one segment per 2 × cwnd ACKs.
    fn every_other_round(&mut self, cwnd: &mut f64) {
        self.acks = self.acks.saturating_add(1);
        if f64::from(self.acks) >= 2.0 * *cwnd {
            *cwnd += 1.0;
            self.acks = 0;
        }
    }

    /// The ssthresh after a loss, from FlightSize (module doc).
    fn ssthresh(&self, c: &LossCtx, h: &History) -> f64 {
        let n = backlog(f64::from(c.flight), h);
        match n {
            Some(_) if !self.congestive(n) => four_fifths(c.flight),
            _ => half_flight(c.flight),
        }
    }
}

/// Veno's backlog N = `w` × (RTT − BaseRTT) / RTT, packets, with RTT the
/// smallest sample of the last completed round trip and BaseRTT the
/// smallest sample ever (Fu and Liew 2003, §II.A). None before a round
/// trip has completed.
pub fn backlog(w: f64, h: &History) -> Option<f64> {
    let rtt = h.last_round_min_rtt()?;
    let base = h.min_rtt()?;
    if rtt == 0 {
        return Some(0.0);
    }
    Some(w * rtt.saturating_sub(base) as f64 / rtt as f64)
}

/// max(floor(flight × 4/5), 2): the cut on a random loss (Fu and Liew 2003,
/// §II.B), integer like Linux's.
fn four_fifths(flight: u32) -> f64 {
    let s = u64::from(flight) * 4 / 5;
    (s as f64).max(2.0)
}

impl CongestionOps for Veno {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    fn grow(&mut self, cwnd: &mut f64, ssthresh: f64, _acked: u32, h: &History) {
        if *cwnd < self.last_cwnd {
            self.acks = 0; // cut since the previous ACK
        }
        let avoiding = *cwnd >= ssthresh;
        if avoiding && self.congestive(backlog(*cwnd, h)) {
            self.every_other_round(cwnd);
        } else {
            self.acks = 0;
            reno_grow(cwnd, ssthresh);
        }
        self.last_cwnd = *cwnd;
    }

    fn on_loss(&self, c: &LossCtx, h: &History) -> Window {
        let s = self.ssthresh(c, h);
        Window {
            cwnd: s,
            ssthresh: s,
        }
    }

    fn on_timeout(&mut self, c: &LossCtx, h: &History) -> f64 {
        self.ssthresh(c, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use serde_json::json;

    /// BaseRTT 100 ms (the first sample); the round that begins at the
    /// first ACK (segments up to 9 out) has samples 130 and 125 ms, so its
    /// minimum is 125 ms: N = w × 25/125 = w / 5.
    fn history_base_100_round_125() -> History {
        let mut h = History::default();
        h.on_new_data(0, 1, 1, 10, Some(100 * MS));
        h.on_new_data(10 * MS, 5, 4, 10, Some(130 * MS));
        assert_eq!(h.last_round_min_rtt(), None);
        h.on_new_data(100 * MS, 11, 6, 20, Some(125 * MS));
        assert_eq!(h.last_round_min_rtt(), Some(125 * MS));
        assert_eq!(h.min_rtt(), Some(100 * MS));
        h
    }

    /// BaseRTT 100 ms, last round's minimum 1000 ms: N = w × 9/10.
    fn history_deep_queue() -> History {
        let mut h = History::default();
        h.on_new_data(0, 1, 1, 10, Some(100 * MS));
        h.on_new_data(1000 * MS, 11, 10, 20, Some(1000 * MS));
        h
    }

    fn ctx(flight: u32) -> LossCtx {
        LossCtx {
            cwnd: f64::from(flight),
            ssthresh: 4.0,
            flight,
            window: 1000,
        }
    }

    fn cut(op: &Veno, flight: u32, h: &History) -> f64 {
        let w = op.on_loss(&ctx(flight), h);
        assert_eq!(w.cwnd, w.ssthresh, "recovery ends at ssthresh");
        w.ssthresh
    }

    #[test]
    fn backlog_is_cwnd_times_queueing_over_rtt() {
        let h = history_base_100_round_125();
        assert_eq!(backlog(20.0, &h), Some(4.0)); // 20 × 25 / 125
        assert_eq!(backlog(10.0, &h), Some(2.0));
        assert_eq!(backlog(10.0, &History::default()), None);
        // Equal RTTs: nothing queued.
        let mut flat = History::default();
        flat.on_new_data(0, 1, 1, 10, Some(100 * MS));
        flat.on_new_data(100 * MS, 11, 10, 20, Some(100 * MS));
        assert_eq!(backlog(30.0, &flat), Some(0.0));
    }

    #[test]
    fn random_loss_cuts_to_four_fifths_congestive_to_half() {
        let op = Veno::new(3.0);
        let h = history_base_100_round_125();
        // flight 10: N = 2 < 3 -> floor(8) = 8.
        assert_eq!(cut(&op, 10, &h), 8.0);
        // flight 12: N = 2.4 -> floor(9.6) = 9.
        assert_eq!(cut(&op, 12, &h), 9.0);
        // flight 2: N = 0.4 -> floor(1.6) = 1, at least 2.
        assert_eq!(cut(&op, 2, &h), 2.0);
        // flight 15: N = 3 = beta: congestive -> 15 / 2 = 7.
        assert_eq!(cut(&op, 15, &h), 7.0);
        // flight 21: N = 4.2 -> floor(10.5) = 10.
        assert_eq!(cut(&op, 21, &h), 10.0);
        // N = 0.9 w: flight 3 -> N = 2.7 -> floor(2.4) = 2; flight 4 ->
        // N = 3.6 -> floor(4 / 2) = 2; flight 5 -> N = 4.5 -> 2, at least 2.
        let deep = history_deep_queue();
        assert_eq!(cut(&op, 3, &deep), 2.0);
        assert_eq!(cut(&op, 4, &deep), 2.0);
        assert_eq!(cut(&op, 5, &deep), 2.0);
        // A larger beta turns flight 21 into a random loss: floor(16.8) = 16.
        assert_eq!(cut(&Veno::new(5.0), 21, &h), 16.0);
        // A timeout takes the same ssthresh.
        let mut op = op;
        assert_eq!(op.on_timeout(&ctx(10), &h), 8.0);
        assert_eq!(op.on_timeout(&ctx(21), &h), 10.0);
    }

    #[test]
    fn reno_until_a_round_has_completed() {
        let mut h = History::default();
        h.on_new_data(0, 1, 1, 10, Some(100 * MS));
        h.on_new_data(10 * MS, 5, 4, 10, Some(900 * MS));
        let mut op = Veno::new(3.0);
        // Reno's cut: max(floor(flight / 2), 2), not 4/5.
        assert_eq!(cut(&op, 10, &h), 5.0);
        assert_eq!(op.on_timeout(&ctx(3), &h), 2.0);
        // Reno's growth in congestion avoidance: +1/cwnd per ACK.
        let mut cwnd = 20.0;
        op.grow(&mut cwnd, 10.0, 1, &h);
        assert_eq!(cwnd, 20.0 + 1.0 / 20.0);
    }

    #[test]
    fn slow_start_and_non_congestive_growth_are_renos() {
        let h = history_base_100_round_125();
        let mut op = Veno::new(3.0);
        // Slow start, even with N = 4 >= beta: +1 per ACK.
        let mut cwnd = 20.0;
        op.grow(&mut cwnd, 32.0, 1, &h);
        assert_eq!(cwnd, 21.0);
        // CA with N = 10 / 5 = 2 < 3: +1/cwnd per ACK.
        let mut cwnd = 10.0;
        op.grow(&mut cwnd, 5.0, 1, &h);
        let once = 10.0 + 1.0 / 10.0;
        assert_eq!(cwnd, once);
        op.grow(&mut cwnd, 5.0, 1, &h);
        assert_eq!(cwnd, once + 1.0 / once);
    }

    #[test]
    fn congestive_growth_is_one_segment_every_other_round() {
        let h = history_base_100_round_125();
        let mut op = Veno::new(3.0);
        // cwnd 20, N = 4 >= 3: a round trip is 20 ACKs; two are 40.
        let mut cwnd = 20.0;
        for _ in 0..39 {
            op.grow(&mut cwnd, 10.0, 1, &h);
        }
        assert_eq!(cwnd, 20.0);
        op.grow(&mut cwnd, 10.0, 1, &h);
        assert_eq!(cwnd, 21.0);
        // Then 2 × 21 = 42 ACKs for the next segment.
        for _ in 0..41 {
            op.grow(&mut cwnd, 10.0, 1, &h);
        }
        assert_eq!(cwnd, 21.0);
        op.grow(&mut cwnd, 10.0, 1, &h);
        assert_eq!(cwnd, 22.0);
    }

    #[test]
    fn the_count_restarts_after_a_cut_or_a_non_congestive_ack() {
        let h = history_base_100_round_125();
        let mut op = Veno::new(3.0);
        let mut cwnd = 20.0;
        for _ in 0..30 {
            op.grow(&mut cwnd, 10.0, 1, &h);
        }
        // A cut to 16 (N = 3.2, still congestive): 32 fresh ACKs needed.
        cwnd = 16.0;
        for _ in 0..31 {
            op.grow(&mut cwnd, 10.0, 1, &h);
        }
        assert_eq!(cwnd, 16.0);
        op.grow(&mut cwnd, 10.0, 1, &h);
        assert_eq!(cwnd, 17.0);
        // A slow-start ACK in between restarts the count too.
        for _ in 0..20 {
            op.grow(&mut cwnd, 10.0, 1, &h);
        }
        let mut ss = cwnd;
        op.grow(&mut ss, 40.0, 1, &h);
        assert_eq!(ss, 18.0);
        for _ in 0..35 {
            op.grow(&mut ss, 10.0, 1, &h);
        }
        assert_eq!(ss, 18.0);
        op.grow(&mut ss, 10.0, 1, &h);
        assert_eq!(ss, 19.0);
    }

    #[test]
    fn beta_is_validated() {
        let ok = build(&json!({})).unwrap();
        assert_eq!(ok.name(), "veno");
        build(&json!({"beta": 0.5})).unwrap();
        for bad in [json!(0), json!(-1.5)] {
            let e = build(&json!({ "beta": bad })).unwrap_err();
            assert_eq!(e.path, "beta");
            assert!(e.message.contains(&bad.to_string()), "{e}");
        }
        // Not a number (TOML's nan and inf arrive as null).
        for bad in [json!(null), json!("3")] {
            let e = build(&json!({ "beta": bad })).unwrap_err();
            assert_eq!(e.path, "beta", "{e}");
        }
        let e = build(&json!({"gamma": 1})).unwrap_err();
        assert!(e.message.contains("gamma"), "{e}");
    }
}
