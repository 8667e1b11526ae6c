//! `pr`: Prompt Recovery (Stojcevska and Popov). The sender keeps the mean
//! of all RTT samples and counts the consecutive samples below it
//! ("Number_of_small_RTTs", the history's `small_run`). At the third
//! duplicate ACK:
//!
//! - by default (the rationale of §5, §6's second paragraph and the
//!   conclusion, §8: "if a number of consecutive round trip times are below
//!   the given value, a random loss is assumed"): at least `min_small_rtts`
//!   small samples in a row -> wireless; fewer -> congestion;
//! - with `literal = true`, §6's one-line rule as printed ("if the
//!   Number_of_small_RTTs is smaller than Min_small_RTTs, then assume a
//!   random loss"): fewer than `min_small_rtts` -> wireless.
//!
//! `min_small_rtts` = 6 (§7). The response to a random loss, "leave the
//! congestion window as it is", is responder 1 (restore); PR is Reno with
//! both, PR* NewReno (the `pr` and `pr_star` variants).

use super::{BuildFn, Cause, Detector, Query};
use crate::error::{count_in_range, from_value, ConfigError};
use crate::registry::Entry;
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "pr",
    summary: "Prompt Recovery: wireless after min_small_rtts RTT samples in a row below their mean",
    source: "Stojcevska and Popov, §5-§7",
    build,
};

/// Min_small_RTTs of Stojcevska and Popov, §7.
pub const DEFAULT_MIN_SMALL_RTTS: u32 = 6;

fn default_min() -> u64 {
    DEFAULT_MIN_SMALL_RTTS.into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    // Any whole number, so that one beyond 32 bits gets the range below.
    #[serde(default = "default_min")]
    min_small_rtts: u64,
    #[serde(default)]
    literal: bool,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
    let p: Params = from_value(v)?;
    let min_small_rtts = count_in_range("min_small_rtts", p.min_small_rtts, 1, 1_000_000)?;
    Ok(Box::new(Pr {
        min_small_rtts,
        literal: p.literal,
    }))
}

#[derive(Debug, Clone, Copy)]
pub struct Pr {
    min_small_rtts: u32,
    literal: bool,
}

impl Detector for Pr {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        // Stojcevska and Popov, §6: Number_of_small_RTTs against Min_small_RTTs.
        let enough = q.history.small_run() >= self.min_small_rtts;
        Cause::wireless_if(enough != self.literal)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{build, error, history, verdict};
    use super::*;
    use serde_json::json;

    /// Samples 100 ms then `n` samples of 50 ms: a run of `n` small ones.
    fn run_of(n: usize) -> crate::tcp::History {
        let mut ms = vec![100];
        ms.extend(std::iter::repeat_n(50, n));
        let h = history(&ms);
        assert_eq!(h.small_run() as usize, n);
        h
    }

    #[test]
    fn default_follows_the_rationale() {
        let mut d = build(&ENTRY, json!({}));
        assert_eq!(verdict(d.as_mut(), &run_of(5)), Cause::Congestion);
        assert_eq!(
            verdict(d.as_mut(), &run_of(6)),
            Cause::Wireless,
            "6 = the minimum"
        );
        assert_eq!(verdict(d.as_mut(), &run_of(7)), Cause::Wireless);
        assert_eq!(verdict(d.as_mut(), &history(&[])), Cause::Congestion);
    }

    #[test]
    fn literal_follows_the_sentence_as_printed() {
        let mut d = build(&ENTRY, json!({"literal": true}));
        assert_eq!(verdict(d.as_mut(), &run_of(5)), Cause::Wireless);
        assert_eq!(verdict(d.as_mut(), &run_of(6)), Cause::Congestion);
        assert_eq!(verdict(d.as_mut(), &history(&[])), Cause::Wireless);
    }

    #[test]
    fn a_sample_at_the_mean_ends_the_run() {
        // The mean of 100 and six 50s is 400 / 7 = 57.1 ms; 60 ms is above it.
        let h = history(&[100, 50, 50, 50, 50, 50, 50, 60]);
        assert_eq!(h.small_run(), 0);
        let mut d = build(&ENTRY, json!({"min_small_rtts": 1}));
        assert_eq!(verdict(d.as_mut(), &h), Cause::Congestion);
        let h = history(&[100, 100, 100]);
        assert_eq!(h.small_run(), 0, "equal to the mean is not small");
    }

    #[test]
    fn parameters_are_checked() {
        assert!(error(&ENTRY, json!({"min_small_rtts": 0})).starts_with("min_small_rtts"));
        assert!(error(&ENTRY, json!({"min_small_rtts": "six"})).starts_with("min_small_rtts"));
        assert!(error(&ENTRY, json!({"literal": 1})).starts_with("literal"));
        assert!(error(&ENTRY, json!({"min_rtts": 3})).contains("min_rtts"));
    }
}
