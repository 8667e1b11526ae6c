//! `spike`: the spike state of Cen, Cosman and Voelker 2003 (§III.B), as
//! TCPW-BR uses it (Yang et al. 2005; "West" in Park et al. 2010, §2).
//! After each RTT sample: outside the spike state, a sample above B_start
//! = RTT_min + `alpha` (RTT_max - RTT_min) enters it; inside, a sample
//! below B_end = RTT_min + `beta` (RTT_max - RTT_min) leaves it. A loss in
//! the spike state is congestion, any other wireless.
//!
//! `alpha` = 1/2 and `beta` = 1/3 (Cen et al.). The thresholds are taken
//! with the minimum and maximum after the sample. Cen et al. work on the
//! relative one-way trip time (ROTT); TCPW-BR and Park et al. on the
//! sender's RTT, the default here (`delay = "rtt"`); `delay = "one_way"`
//! uses the ROTT of each ACK that gives an RTT sample, the receiver's
//! timestamp minus the echoed send time, with its own minimum and maximum.
//! Our readings:
//! a sample equal to B_start does not enter the state, one equal to B_end
//! does not leave it; before any sample the state is "not in a spike"
//! (so an early loss is wireless, as the rule states).

use super::{check_fraction, BuildFn, Cause, Detector, Query};
use crate::engine::Time;
use crate::error::{from_value, ConfigError};
use crate::registry::Entry;
use crate::tcp::History;
use serde::Deserialize;

/// The delay the spike state follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Delay {
    /// The sender's RTT sample (TCPW-BR, Park et al. 2010).
    #[default]
    Rtt,
    /// The relative one-way trip time (Cen, Cosman and Voelker 2003).
    OneWay,
}

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "spike",
    summary: "congestion in the RTT spike state (entered above B_start, left below B_end)",
    source: "Cen, Cosman and Voelker 2003, §III.B; Park et al. 2010, §2",
    build,
};

fn half() -> f64 {
    0.5
}

fn third() -> f64 {
    1.0 / 3.0
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "half")]
    alpha: f64,
    #[serde(default = "third")]
    beta: f64,
    #[serde(default)]
    delay: Delay,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
    let p: Params = from_value(v)?;
    let alpha = check_fraction("alpha", p.alpha, 0.0, 1.0)?;
    let beta = check_fraction("beta", p.beta, 0.0, alpha)?;
    Ok(Box::new(Spike {
        alpha,
        beta,
        delay: p.delay,
        rott: None,
        spike: false,
    }))
}

#[derive(Debug, Clone, Copy)]
pub struct Spike {
    alpha: f64,
    beta: f64,
    delay: Delay,
    /// Smallest and largest ROTT seen (`delay = "one_way"`).
    rott: Option<(Time, Time)>,
    /// In the spike state.
    spike: bool,
}

impl Spike {
    /// The delay of this sample with the minimum and maximum so far.
    fn delay(&mut self, rtt: Time, h: &History) -> Option<(Time, Time, Time)> {
        match self.delay {
            Delay::Rtt => Some((rtt, h.min_rtt()?, h.max_rtt()?)),
            Delay::OneWay => {
                let d = h.one_way();
                let (lo, hi) = self.rott.map_or((d, d), |(lo, hi)| (lo.min(d), hi.max(d)));
                self.rott = Some((lo, hi));
                Some((d, lo, hi))
            }
        }
    }
}

impl Detector for Spike {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, _q: &Query) -> Cause {
        if self.spike {
            Cause::Congestion
        } else {
            Cause::Wireless
        }
    }
    fn wants_samples(&self) -> bool {
        true
    }
    fn on_sample(&mut self, rtt: Time, h: &History) {
        let Some((d, min, max)) = self.delay(rtt, h) else {
            return;
        };
        let at = |f: f64| min as f64 + f * (max - min) as f64;
        let r = d as f64;
        // Cen, Cosman and Voelker 2003, §III.B: B_spikestart and B_spikeend.
        self.spike = if self.spike {
            r >= at(self.beta)
        } else {
            r > at(self.alpha)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{build, error, verdict};
    use super::*;
    use crate::engine::MS;
    use serde_json::json;

    /// Feed `ms` to a history and the detector; the verdict after each.
    fn run(d: &mut dyn Detector, ms: &[u64]) -> Vec<Cause> {
        let mut h = History::default();
        ms.iter()
            .enumerate()
            .map(|(i, &r)| {
                let i = i as u32;
                h.on_new_data(Time::from(i) * MS, i + 1, 1, 1000, Some(r * MS));
                d.on_sample(r * MS, &h);
                verdict(d, &h)
            })
            .collect()
    }

    #[test]
    fn the_spike_state_machine() {
        use Cause::{Congestion as C, Wireless as W};
        // min 100, max 300: B_start 200, B_end 150 (alpha 1/2, beta 1/4).
        let mut d = build(&ENTRY, json!({"beta": 0.25}));
        let got = run(d.as_mut(), &[100, 300, 150, 149, 200, 201, 160]);
        // 300 enters (> 100 + 1/2 200); 150 = B_end stays; 149 leaves;
        // 200 = B_start does not enter; 201 does; 160 stays.
        assert_eq!(got, [W, C, C, W, W, C, C]);
    }

    #[test]
    fn defaults_are_one_half_and_one_third() {
        use Cause::{Congestion as C, Wireless as W};
        let mut d = build(&ENTRY, json!({}));
        // min 100, max 400: B_start 250, B_end 200.
        let got = run(d.as_mut(), &[100, 400, 210, 190, 250, 260]);
        assert_eq!(got, [W, C, C, W, W, C]);
    }

    #[test]
    fn the_one_way_form_follows_the_rott() {
        use Cause::{Congestion as C, Wireless as W};
        // ROTTs 50, 250, 100, 99, 150, 151 ms with a constant RTT of 100
        // ms: min 50, max 250, B_start 150, B_end 100 (alpha 1/2, beta 1/4).
        let mut d = build(&ENTRY, json!({"beta": 0.25, "delay": "one_way"}));
        let mut h = History::default();
        let mut got = Vec::new();
        for (i, owd) in [50, 250, 100, 99, 150, 151].into_iter().enumerate() {
            let (i, t) = (i as u32, i as Time * 1000 * MS);
            h.on_ack_arrival(t + 100 * MS, t + owd * MS, t);
            h.on_new_data(t + 100 * MS, i + 1, 1, 1000, Some(100 * MS));
            d.on_sample(100 * MS, &h);
            got.push(verdict(d.as_mut(), &h));
        }
        assert_eq!(got, [W, C, C, W, W, C]);
    }

    #[test]
    fn parameters_are_checked() {
        assert!(error(&ENTRY, json!({"delay": "owd"})).starts_with("delay"));
        assert!(error(&ENTRY, json!({"alpha": 1.5})).starts_with("alpha"));
        assert!(error(&ENTRY, json!({"alpha": 0.3, "beta": 0.4})).starts_with("beta"));
        assert!(error(&ENTRY, json!({"beta": false})).starts_with("beta"));
        assert!(error(&ENTRY, json!({"gamma": 0.1})).contains("gamma"));
    }
}
