//! `ncpld`: Non-Congestion Packet Loss Detection (Samaraweera 1999, as
//! summarised by Park et al. 2010, §2): at a loss, the current RTT is
//! compared with a delay threshold; below it the loss is wireless.
//!
//! Park et al. give no formula for the threshold and the original was not
//! at hand; our reading: threshold = RTT_min + `fraction` x (RTT_max -
//! RTT_min), `fraction` = 1/2, with RTT_cur the latest sample (a duplicate
//! ACK brings none). RTT_cur below the threshold -> wireless; at or above
//! it -> congestion; before the first sample -> congestion (TCP's own
//! assumption).

use super::{check_fraction, BuildFn, Cause, Detector, Query};
use crate::error::{from_value, ConfigError};
use crate::registry::Entry;
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "ncpld",
    summary: "wireless when RTT_cur < RTT_min + fraction (RTT_max - RTT_min)",
    source: "Samaraweera 1999, as in Park et al. 2010, §2 (threshold: our reading)",
    build,
};

fn half() -> f64 {
    0.5
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "half")]
    fraction: f64,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
    let p: Params = from_value(v)?;
    Ok(Box::new(Ncpld {
        fraction: check_fraction("fraction", p.fraction, 0.0, 1.0)?,
    }))
}

#[derive(Debug, Clone, Copy)]
pub struct Ncpld {
    fraction: f64,
}

impl Detector for Ncpld {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        let h = q.history;
        let (Some(min), Some(max), Some(cur)) = (h.min_rtt(), h.max_rtt(), h.last_rtt()) else {
            return Cause::Congestion;
        };
        // Samaraweera 1999 (Park et al. 2010, §2): below the delay threshold -> wireless.
        let threshold = min as f64 + self.fraction * (max - min) as f64;
        Cause::wireless_if((cur as f64) < threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{build, error, history, verdict};
    use super::*;
    use serde_json::json;

    #[test]
    fn below_the_threshold_is_wireless() {
        // min 100, max 200: threshold 150 ms.
        let mut d = build(&ENTRY, json!({}));
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 200, 149])),
            Cause::Wireless
        );
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 200, 150])),
            Cause::Congestion
        );
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 200, 151])),
            Cause::Congestion
        );
        assert_eq!(verdict(d.as_mut(), &history(&[])), Cause::Congestion);
    }

    #[test]
    fn the_fraction_moves_the_threshold() {
        let mut d = build(&ENTRY, json!({"fraction": 0.25}));
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 200, 124])),
            Cause::Wireless
        );
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 200, 125])),
            Cause::Congestion
        );
        // fraction 0: never below RTT_min; one sample: min = max = cur.
        let mut d = build(&ENTRY, json!({"fraction": 0.0}));
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 200, 100])),
            Cause::Congestion
        );
        let mut d = build(&ENTRY, json!({"fraction": 1.0}));
        assert_eq!(verdict(d.as_mut(), &history(&[100])), Cause::Congestion);
        assert_eq!(
            verdict(d.as_mut(), &history(&[100, 200, 199])),
            Cause::Wireless
        );
    }

    #[test]
    fn parameters_are_checked() {
        assert!(error(&ENTRY, json!({"fraction": 1.5})).starts_with("fraction"));
        assert!(error(&ENTRY, json!({"fraction": -0.1})).starts_with("fraction"));
        assert!(error(&ENTRY, json!({"fraction": "half"})).starts_with("fraction"));
        assert!(error(&ENTRY, json!({"alpha": 0.5})).contains("alpha"));
    }
}
