//! `jtcp`: the jitter rule of JTCP (Wu and Chen 2004, §III), as Park et al.
//! 2010 (§2) state it: at the third duplicate ACK the loss is congestion
//! when the time since the lost segment was sent exceeds one RTT and the
//! jitter ratio Jr exceeds 1/cwnd; otherwise it is wireless.
//!
//! - Jr: the jitter of consecutive ACKs relative to their send spacing,
//!   J_i = (R_i - R_{i-1}) - (S_i - S_{i-1}) with S the echoed send times
//!   and R the receiver's timestamps, over the last completed round trip
//!   (the history's `jitter_ratio`). Our reading of "the average of J_i /
//!   (S_i - S_{i-1})": the average weighted by S_i - S_{i-1}, sum(J_i) /
//!   sum(S_i - S_{i-1}), so that segments sent at one instant (a slow-start
//!   or post-recovery burst, S_i = S_{i-1}) count instead of dividing by 0.
//! - "The time receiving the 3DUPACK exceeds one RTT" is read as: more than
//!   `rtts` (1) x RTT_cur has passed since the lost segment was sent. The
//!   sender does not keep per-segment send times; the echo of the first
//!   duplicate ACK (the send time of the first segment after the hole to
//!   arrive, sent after the lost one) stands for it, so the elapsed time is
//!   a lower bound. RTT_cur is the latest sample.
//! - cwnd is read as FlightSize, as in `veno`.
//! - Our readings: equal values fail the "exceeds" tests (-> wireless);
//!   no RTT sample yet -> congestion (TCP's own assumption); no jitter pair
//!   or no duplicate ACK echo -> the condition fails (-> wireless).

use super::{BuildFn, Cause, Detector, Query};
use crate::error::{from_value, ConfigError};
use crate::registry::Entry;
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "jtcp",
    summary: "congestion when the loss is older than one RTT and the jitter ratio Jr > 1/cwnd",
    source: "Wu and Chen 2004, §III; Park et al. 2010, §2 (time condition: our reading)",
    build,
};

fn one() -> f64 {
    1.0
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "one")]
    rtts: f64,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
    let p: Params = from_value(v)?;
    Ok(Box::new(Jtcp {
        rtts: super::check_fraction("rtts", p.rtts, 0.0, 100.0)?,
    }))
}

#[derive(Debug, Clone, Copy)]
pub struct Jtcp {
    rtts: f64,
}

impl Detector for Jtcp {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        let h = q.history;
        let Some(rtt) = h.last_rtt() else {
            return Cause::Congestion;
        };
        // Park et al. 2010, §2: "exceeds one RTT" and "Jr > 1/cwnd".
        let late = h
            .first_dup_echo()
            .is_some_and(|s| q.now.saturating_sub(s) as f64 > self.rtts * rtt as f64);
        let jittery = h
            .jitter_ratio()
            .is_some_and(|jr| jr > 1.0 / f64::from(q.flight.max(1)));
        if late && jittery {
            Cause::Congestion
        } else {
            Cause::Wireless
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{build, classify, error, history};
    use super::*;
    use crate::engine::MS;
    use crate::tcp::History;
    use serde_json::json;

    /// RTT_cur 100 ms, Jr 0.5 (sent 10 ms apart, received 15 ms apart),
    /// the first duplicate ACK echoing 1 s.
    fn h() -> History {
        let mut h = history(&[100]);
        h.on_ack_arrival(0, 50 * MS, 0);
        h.on_ack_arrival(0, 65 * MS, 10 * MS);
        h.on_dup_ack(1000 * MS);
        h
    }

    #[test]
    fn congestion_needs_both_conditions() {
        let h = h();
        let mut d = build(&ENTRY, json!({}));
        let late = 1100 * MS + 1;
        assert_eq!(classify(d.as_mut(), &h, late, 10.0, 10), Cause::Congestion);
        // Exactly one RTT since the echo: not "exceeds".
        assert_eq!(
            classify(d.as_mut(), &h, 1100 * MS, 10.0, 10),
            Cause::Wireless
        );
        // Jr = 1/2 = 1/flight: not "larger"; flight 3: 1/3 < 1/2.
        assert_eq!(classify(d.as_mut(), &h, late, 2.0, 2), Cause::Wireless);
        assert_eq!(classify(d.as_mut(), &h, late, 3.0, 3), Cause::Congestion);
    }

    #[test]
    fn missing_figures() {
        let mut d = build(&ENTRY, json!({}));
        assert_eq!(
            classify(d.as_mut(), &history(&[]), 0, 10.0, 10),
            Cause::Congestion
        );
        // A sample, but no jitter pair and no duplicate ACK echo.
        let h = history(&[100]);
        assert_eq!(
            classify(d.as_mut(), &h, 10_000 * MS, 10.0, 10),
            Cause::Wireless
        );
    }

    #[test]
    fn rtts_scales_the_time_condition() {
        let h = h();
        let mut d = build(&ENTRY, json!({"rtts": 2}));
        assert_eq!(
            classify(d.as_mut(), &h, 1150 * MS, 10.0, 10),
            Cause::Wireless
        );
        assert_eq!(
            classify(d.as_mut(), &h, 1201 * MS, 10.0, 10),
            Cause::Congestion
        );
    }

    #[test]
    fn parameters_are_checked() {
        assert!(error(&ENTRY, json!({"rtts": -1})).starts_with("rtts"));
        assert!(error(&ENTRY, json!({"rtts": "one"})).starts_with("rtts"));
        assert!(error(&ENTRY, json!({"jr": 1})).contains("jr"));
    }
}
