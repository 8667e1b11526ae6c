//! `relds`: Robust End-to-end Loss Differentiation Scheme (Lim and Jang
//! 2008, as summarised by Park et al. 2010, §2): "a moving threshold,
//! defined as a function of the minimum and the sample RTT"; a loss found
//! while the RTT is below it is wireless.
//!
//! The formula is not in Park et al. and the original was not at hand; our
//! reading: T = RTT_min + `k` x (SRTT - RTT_min), with SRTT the history's
//! EWMA of the samples (gain 1/8, moved by every sample: the moving part),
//! `k` = 1/2. RTT_cur (the latest sample) below T -> wireless; at or above
//! it -> congestion; before the first sample -> congestion.

use super::{BuildFn, Cause, Detector, Query};
use crate::error::{from_value, ConfigError};
use crate::registry::Entry;
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "relds",
    summary: "wireless when RTT_cur < RTT_min + k (SRTT - RTT_min), a moving threshold",
    source: "Lim and Jang 2008, as in Park et al. 2010, §2 (threshold: our reading)",
    build,
};

fn half() -> f64 {
    0.5
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "half")]
    k: f64,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
    let p: Params = from_value(v)?;
    Ok(Box::new(Relds {
        k: super::check_fraction("k", p.k, 0.0, 10.0)?,
    }))
}

#[derive(Debug, Clone, Copy)]
pub struct Relds {
    k: f64,
}

impl Detector for Relds {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        let h = q.history;
        let (Some(min), Some(srtt), Some(cur)) = (h.min_rtt(), h.srtt(), h.last_rtt()) else {
            return Cause::Congestion;
        };
        // Lim and Jang 2008 (Park et al. 2010, §2): a moving threshold of RTT_min and the samples.
        let threshold = min as f64 + self.k * (srtt - min) as f64;
        Cause::wireless_if((cur as f64) < threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{build, error, history, verdict};
    use super::*;
    use crate::engine::MS;
    use serde_json::json;

    #[test]
    fn below_the_moving_threshold_is_wireless() {
        // 100 ms then 180 ms: SRTT = 100 + 80/8 = 110, T = 105 with k 1/2.
        let h = history(&[100, 180]);
        assert_eq!(h.srtt(), Some(110 * MS));
        let mut d = build(&ENTRY, json!({}));
        assert_eq!(verdict(d.as_mut(), &h), Cause::Congestion);
        // k = 1: T = SRTT; the latest sample 180 > 110: congestion.
        // A falling RTT: 100, 180, 100 -> SRTT = 110 - 13.75 + 12.5 = 108.75.
        let h = history(&[100, 180, 100]);
        let mut d = build(&ENTRY, json!({"k": 1.0}));
        assert_eq!(verdict(d.as_mut(), &h), Cause::Wireless);
        assert_eq!(verdict(d.as_mut(), &history(&[])), Cause::Congestion);
    }

    #[test]
    fn at_the_threshold_is_congestion() {
        // 100, 180: T = 100 + k 10; k = 8 puts T at 180 = RTT_cur.
        let h = history(&[100, 180]);
        let mut d = build(&ENTRY, json!({"k": 8.0}));
        assert_eq!(verdict(d.as_mut(), &h), Cause::Congestion);
        let mut d = build(&ENTRY, json!({"k": 8.1}));
        assert_eq!(verdict(d.as_mut(), &h), Cause::Wireless);
        // k = 0: T = RTT_min, which no sample is below.
        let mut d = build(&ENTRY, json!({"k": 0.0}));
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 180, 100])),
            Cause::Congestion
        );
    }

    #[test]
    fn parameters_are_checked() {
        assert!(error(&ENTRY, json!({"k": -1})).starts_with("k"));
        assert!(error(&ENTRY, json!({"k": 11})).starts_with("k"));
        assert!(error(&ENTRY, json!({"k": [1]})).starts_with("k"));
        assert!(error(&ENTRY, json!({"kk": 1})).contains("kk"));
    }
}
