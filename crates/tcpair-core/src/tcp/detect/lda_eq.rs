//! `lda_eq`: loss differentiation by the estimated queue usage (Park,
//! Chung and Sreekumari 2009; Park et al. 2010, §2): Q = (RTT_cur -
//! RTT_min) / (RTT_max - RTT_min); Q below `threshold` -> wireless.
//!
//! `threshold` = 1/2, the half-full queue that the 2009 paper's abstract
//! gives as the boundary. RTT_cur is the latest sample. Our readings: Q at
//! the threshold -> congestion; when RTT_max = RTT_min (no variation seen)
//! Q is 0, an empty queue -> wireless; before the first sample ->
//! congestion (TCP's own assumption).

use super::{check_fraction, BuildFn, Cause, Detector, Query};
use crate::error::{from_value, ConfigError};
use crate::registry::Entry;
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "lda_eq",
    summary: "wireless when the queue usage (RTT_cur - RTT_min) / (RTT_max - RTT_min) < threshold",
    source: "Park, Chung and Sreekumari 2009; Park et al. 2010, §2",
    build,
};

fn half() -> f64 {
    0.5
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "half")]
    threshold: f64,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
    let p: Params = from_value(v)?;
    Ok(Box::new(LdaEq {
        threshold: check_fraction("threshold", p.threshold, 0.0, 1.0)?,
    }))
}

#[derive(Debug, Clone, Copy)]
pub struct LdaEq {
    threshold: f64,
}

/// The estimated queue usage, 0..=1 (Park, Chung and Sreekumari 2009).
fn queue_usage(min: u64, max: u64, cur: u64) -> f64 {
    if max == min {
        0.0
    } else {
        (cur - min) as f64 / (max - min) as f64
    }
}

impl Detector for LdaEq {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        let h = q.history;
        let (Some(min), Some(max), Some(cur)) = (h.min_rtt(), h.max_rtt(), h.last_rtt()) else {
            return Cause::Congestion;
        };
        Cause::wireless_if(queue_usage(min, max, cur) < self.threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{build, error, history, verdict};
    use super::*;
    use serde_json::json;

    #[test]
    fn a_queue_below_half_full_is_wireless() {
        // min 100, max 300: Q = (cur - 100) / 200.
        let mut d = build(&ENTRY, json!({}));
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 300, 199])),
            Cause::Wireless
        );
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 300, 200])),
            Cause::Congestion
        );
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 300, 300])),
            Cause::Congestion
        );
        assert_eq!(verdict(d.as_mut(), &history(&[])), Cause::Congestion);
        assert_eq!(verdict(d.as_mut(), &history(&[100, 100])), Cause::Wireless);
    }

    #[test]
    fn the_threshold_moves_the_boundary() {
        let mut d = build(&ENTRY, json!({"threshold": 0.8}));
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 300, 259])),
            Cause::Wireless
        );
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 300, 260])),
            Cause::Congestion
        );
        let mut d = build(&ENTRY, json!({"threshold": 0.0}));
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 100])),
            Cause::Congestion
        );
    }

    #[test]
    fn parameters_are_checked() {
        assert!(error(&ENTRY, json!({"threshold": 2})).starts_with("threshold"));
        assert!(error(&ENTRY, json!({"threshold": null})).starts_with("threshold"));
        assert!(error(&ENTRY, json!({"q": 0.5})).contains("q"));
    }
}
