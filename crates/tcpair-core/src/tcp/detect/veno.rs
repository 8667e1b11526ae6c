//! `veno`: Veno's loss differentiation alone (Fu and Liew 2003, §II.A-B;
//! Park et al. 2010, §2): the backlog N = cwnd x (RTT - BaseRTT) / RTT, the
//! packets the connection keeps queued; at a loss, N < `beta` -> wireless
//! (random loss), else congestion. `beta` = 3 packets (§II.A).
//!
//! As in the `veno` congestion op (`tcp/cc/veno.rs`, which documents the
//! choices): BaseRTT = the smallest sample ever; RTT = the smallest sample
//! of the last completed round trip (the paper's per-round Vegas minimum;
//! Linux and ns-3 reset theirs at every ACK); cwnd read as FlightSize, the
//! segments outstanding at the trigger (cwnd is not capped by the window
//! limit here, FlightSize is what Linux's cwnd tracks). Before a round trip
//! has completed there is no N and the loss is congestion (the op is then
//! Reno). N = beta -> congestion (the congestive state is N >= beta).

use super::{BuildFn, Cause, Detector, Query};
use crate::error::ConfigError;
use crate::registry::Entry;
use crate::tcp::cc::veno::beta_param;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "veno",
    summary: "wireless when Veno's backlog N = FlightSize (RTT - BaseRTT) / RTT < beta",
    source: "Fu and Liew 2003, §II.A-B; Park et al. 2010, §2",
    build,
};

fn build(v: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
    Ok(Box::new(VenoLda {
        beta: beta_param(v)?,
    }))
}

#[derive(Debug, Clone, Copy)]
pub struct VenoLda {
    beta: f64,
}

impl Detector for VenoLda {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        let h = q.history;
        let (Some(base), Some(rtt)) = (h.min_rtt(), h.last_round_min_rtt()) else {
            return Cause::Congestion;
        };
        // Fu and Liew 2003, §II.A: N = Actual x (RTT - BaseRTT).
        let n = f64::from(q.flight) * (rtt - base) as f64 / rtt as f64;
        Cause::wireless_if(n < self.beta)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{build, classify, error, history};
    use super::*;
    use serde_json::json;

    #[test]
    fn a_small_backlog_is_wireless() {
        // BaseRTT 100, last round's RTT 150: N = flight / 3.
        let h = history(&[100, 150]);
        let mut d = build(&ENTRY, json!({}));
        assert_eq!(classify(d.as_mut(), &h, 0, 8.0, 8), Cause::Wireless);
        assert_eq!(
            classify(d.as_mut(), &h, 0, 9.0, 9),
            Cause::Congestion,
            "N = 3"
        );
        assert_eq!(classify(d.as_mut(), &h, 0, 12.0, 12), Cause::Congestion);
        // cwnd past the window limit: FlightSize counts.
        assert_eq!(classify(d.as_mut(), &h, 0, 60.0, 8), Cause::Wireless);
    }

    #[test]
    fn no_round_yet_is_congestion_and_beta_is_a_parameter() {
        let mut d = build(&ENTRY, json!({}));
        assert_eq!(
            classify(d.as_mut(), &history(&[100]), 0, 1.0, 1),
            Cause::Congestion
        );
        let h = history(&[100, 150]);
        let mut d = build(&ENTRY, json!({"beta": 4}));
        assert_eq!(classify(d.as_mut(), &h, 0, 11.0, 11), Cause::Wireless);
        assert_eq!(classify(d.as_mut(), &h, 0, 12.0, 12), Cause::Congestion);
        // No queueing at all: N = 0.
        let h = history(&[100, 100]);
        assert_eq!(classify(d.as_mut(), &h, 0, 48.0, 48), Cause::Wireless);
    }

    #[test]
    fn parameters_are_checked() {
        assert!(error(&ENTRY, json!({"beta": 0})).starts_with("beta"));
        assert!(error(&ENTRY, json!({"beta": "3"})).starts_with("beta"));
        assert!(error(&ENTRY, json!({"gamma": 1})).contains("gamma"));
    }
}
