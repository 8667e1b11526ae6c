//! `markov2_time`: a two-state (Good/Bad) channel whose sojourns are random
//! *durations*, not packet counts; a packet is lost with the loss probability
//! of the state the channel is in when the packet reaches the end of the link.
//!
//! Chen et al. 2002 §6 (Fig. 13): mean 0.075 s in A (Good) with loss 0.0002 and
//! 0.00375 s in B (Bad) with loss p. Sun et al. 2005: Good mean 6 s, Bad mean 0.2 s,
//! Bad loss 0.5, Good loss 0.01%..10%.
//!
//! Sojourns are exponential (a continuous-time Markov chain, the papers'
//! model) or, with `sojourn = "geometric"`, a geometric number of `slot`s
//! with the same mean (a slotted channel, as in discrete-time simulators).
//! The process starts at time 0 in `start_state`; the state is advanced
//! lazily to `now` at each packet by drawing the sojourns that ended since,
//! so no timer events are needed and idle periods cost one draw per sojourn.
//! The fraction of time in Good is `mean_good / (mean_good + mean_bad)`.

use super::markov2::{bernoulli, ChannelState};
use super::{check, ErrorModel, ModelInfo};
use crate::engine::{secs, SimRng, Time};
use crate::error::{from_value, ConfigError};
use rand::Rng;
use rand_distr::{Exp1, Geometric};
use serde::Deserialize;

pub const INFO: ModelInfo = ModelInfo {
    name: "markov2_time",
    summary: "two-state Good/Bad channel with exponential (or geometric) sojourn times in seconds",
    build,
};

/// The most slots a mean sojourn may span (geometric sojourns).
pub const MAX_SLOTS_PER_SOJOURN: f64 = 1e12;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sojourn {
    #[default]
    Exponential,
    Geometric,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Markov2TimeConfig {
    /// Mean Good sojourn, seconds.
    pub mean_good: f64,
    /// Mean Bad sojourn, seconds.
    pub mean_bad: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    #[serde(default)]
    pub sojourn: Sojourn,
    /// Slot length in seconds; required with (and only with) `sojourn = "geometric"`.
    pub slot: Option<f64>,
    #[serde(default)]
    pub start_state: ChannelState,
}

#[derive(Debug, Clone)]
enum SojournDist {
    /// Mean sojourn in ns, per state [good, bad].
    Exponential([f64; 2]),
    /// Slot in ns and number-of-slots distribution (failures before success,
    /// so the count is 1 + sample) per state.
    Geometric(Time, [Geometric; 2]),
}

#[derive(Debug, Clone)]
pub struct Markov2Time {
    dist: SojournDist,
    loss: [f64; 2],
    state: ChannelState,
    /// End of the current sojourn (exclusive); valid once `started`.
    until: Time,
    started: bool,
}

fn idx(s: ChannelState) -> usize {
    match s {
        ChannelState::Good => 0,
        ChannelState::Bad => 1,
    }
}

impl Markov2Time {
    pub fn new(c: &Markov2TimeConfig) -> Result<Self, ConfigError> {
        let mg = check::positive_secs("mean_good", c.mean_good)?;
        let mb = check::positive_secs("mean_bad", c.mean_bad)?;
        let dist = match (c.sojourn, c.slot) {
            (Sojourn::Exponential, None) => SojournDist::Exponential([mg * 1e9, mb * 1e9]),
            (Sojourn::Exponential, Some(_)) => {
                return Err(ConfigError::new(
                    "slot",
                    "slot only applies to sojourn = \"geometric\"",
                ))
            }
            (Sojourn::Geometric, None) => {
                return Err(ConfigError::new(
                    "slot",
                    "sojourn = \"geometric\" needs a slot length in seconds",
                ))
            }
            (Sojourn::Geometric, Some(slot)) => {
                let slot = check::positive_secs("slot", slot)?;
                if slot > mg.min(mb) {
                    return Err(ConfigError::new(
                        "slot",
                        format!(
                            "slot ({slot} s) must not exceed mean_good ({mg} s) or mean_bad ({mb} s)"
                        ),
                    ));
                }
                // The geometric sampler's set-up loops on 1 - slot/mean, which
                // must differ from 1 in f64: bound the mean number of slots.
                if mg.max(mb) / slot > MAX_SLOTS_PER_SOJOURN {
                    return Err(ConfigError::new(
                        "slot",
                        format!(
                            "slot ({slot} s) is too short: mean_good and mean_bad may be at most \
                             {MAX_SLOTS_PER_SOJOURN:e} slots, got {:e}",
                            mg.max(mb) / slot
                        ),
                    ));
                }
                // Mean number of slots mean/slot <=> success probability slot/mean.
                let g = |m: f64| Geometric::new(slot / m).expect("0 < slot/mean <= 1");
                SojournDist::Geometric(secs(slot).max(1), [g(mg), g(mb)])
            }
        };
        Ok(Self {
            dist,
            loss: [
                check::prob("loss_good", c.loss_good)?,
                check::prob("loss_bad", c.loss_bad)?,
            ],
            state: c.start_state,
            until: 0,
            started: false,
        })
    }

    /// One sojourn in state `s`, in ns (at least 1 ns so time always advances).
    fn draw(&self, s: ChannelState, rng: &mut SimRng) -> Time {
        match &self.dist {
            SojournDist::Exponential(mean) => {
                let x: f64 = rng.sample(Exp1);
                let ns = (x * mean[idx(s)]).round();
                if ns >= u64::MAX as f64 {
                    u64::MAX
                } else {
                    (ns as Time).max(1)
                }
            }
            SojournDist::Geometric(slot, g) => {
                let n = rng.sample(g[idx(s)]).saturating_add(1);
                n.saturating_mul(*slot)
            }
        }
    }

    /// Bring the channel to time `now` and return its state then. Public so
    /// tests and traces can observe the state process; `now` must not
    /// decrease between calls.
    pub fn advance(&mut self, now: Time, rng: &mut SimRng) -> ChannelState {
        if !self.started {
            self.started = true;
            self.until = self.draw(self.state, rng);
        }
        while now >= self.until {
            self.state = match self.state {
                ChannelState::Good => ChannelState::Bad,
                ChannelState::Bad => ChannelState::Good,
            };
            let d = self.draw(self.state, rng);
            self.until = self.until.saturating_add(d);
        }
        self.state
    }

    /// End (exclusive) of the current sojourn; meaningful after [`Self::advance`].
    pub fn sojourn_end(&self) -> Time {
        self.until
    }
}

fn build(v: &serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError> {
    let c: Markov2TimeConfig = from_value(v)?;
    Ok(Box::new(Markov2Time::new(&c)?))
}

impl ErrorModel for Markov2Time {
    fn is_lost(&mut self, now: Time, _size: u32, rng: &mut SimRng) -> bool {
        let s = self.advance(now, rng);
        bernoulli(self.loss[idx(s)], rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream, to_secs};
    use serde_json::json;

    fn cfg(mg: f64, mb: f64, lg: f64, lb: f64) -> Markov2TimeConfig {
        Markov2TimeConfig {
            mean_good: mg,
            mean_bad: mb,
            loss_good: lg,
            loss_bad: lb,
            sojourn: Sojourn::Exponential,
            slot: None,
            start_state: ChannelState::Good,
        }
    }

    /// Walk `n` complete sojourns of each state; return (good durations, bad durations) in s.
    fn sojourns(m: &mut Markov2Time, n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = stream(seed, "m2t");
        let (mut g, mut b) = (Vec::new(), Vec::new());
        let mut start = 0;
        let mut s = m.advance(0, &mut rng);
        while g.len() < n || b.len() < n {
            let end = m.sojourn_end();
            let d = to_secs(end - start);
            match s {
                ChannelState::Good => g.push(d),
                ChannelState::Bad => b.push(d),
            }
            start = end;
            s = m.advance(end, &mut rng);
        }
        g.truncate(n);
        b.truncate(n);
        (g, b)
    }

    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len() as f64
    }

    /// Check sojourn means (4 sd of a mean of n, sd = `sd_x`) and the time
    /// fraction in Bad. For the fraction f = B/(B+G) with B, G sums of n
    /// independent sojourns, the delta method gives
    /// Var(f) ~ (m_g^2 v_b + m_b^2 v_g) / (n (m_g+m_b)^4); we allow 5 sd.
    fn check_process(mg: f64, mb: f64, vg: f64, vb: f64, g: &[f64], b: &[f64]) {
        let n = g.len() as f64;
        let (eg, eb) = (mean(g), mean(b));
        assert!(
            (eg - mg).abs() <= 4.0 * (vg / n).sqrt(),
            "good mean {eg} vs {mg}"
        );
        assert!(
            (eb - mb).abs() <= 4.0 * (vb / n).sqrt(),
            "bad mean {eb} vs {mb}"
        );
        let f = eb / (eg + eb);
        let want = mb / (mg + mb);
        let var = (mg * mg * vb + mb * mb * vg) / (n * (mg + mb).powi(4));
        assert!(
            (f - want).abs() <= 5.0 * var.sqrt(),
            "bad fraction {f} vs {want}"
        );
    }

    #[test]
    fn markov2_time_exponential_sojourns_paper001() {
        // Sun et al. 2005: Good mean 6 s, Bad mean 0.2 s. Exponential: var = mean^2.
        let (mg, mb) = (6.0, 0.2);
        let mut m = Markov2Time::new(&cfg(mg, mb, 0.001, 0.5)).unwrap();
        let (g, b) = sojourns(&mut m, 20_000, 31);
        check_process(mg, mb, mg * mg, mb * mb, &g, &b);
    }

    #[test]
    fn markov2_time_geometric_sojourns() {
        let (mg, mb, slot) = (0.075, 0.00375, 0.00125);
        let mut c = cfg(mg, mb, 0.0002, 0.1);
        c.sojourn = Sojourn::Geometric;
        c.slot = Some(slot);
        let mut m = Markov2Time::new(&c).unwrap();
        let (g, b) = sojourns(&mut m, 20_000, 32);
        // N slots, N ~ Geometric(q = slot/mean) on {1,..}: Var = slot^2 (1-q)/q^2.
        let v = |mean: f64| {
            let q = slot / mean;
            slot * slot * (1.0 - q) / (q * q)
        };
        check_process(mg, mb, v(mg), v(mb), &g, &b);
        // Every sojourn is a whole number of slots.
        assert!(g.iter().chain(&b).all(|d| {
            let k = d / slot;
            (k - k.round()).abs() < 1e-6 && k >= 1.0 - 1e-9
        }));
    }

    #[test]
    fn markov2_time_loss_rate_paper000() {
        // Chen et al. 2002: 0.075 s Good with loss 0.0002, 0.00375 s Bad with loss 0.5.
        let (mg, mb, lg, lb) = (0.075, 0.00375, 0.0002, 0.5);
        let mut m = Markov2Time::new(&cfg(mg, mb, lg, lb)).unwrap();
        let mut rng = stream(33, "m2t");
        // Packets 0.5 s apart: the state correlation at lag t is
        // exp(-(1/mg + 1/mb) t) = e^-140, so the loss indicators are
        // independent Bernoulli(p*) for all practical purposes; 4 sd.
        let n = 40_000u64;
        let dt = 500_000_000;
        let lost = (1..=n)
            .filter(|i| m.is_lost(i * dt, 1000, &mut rng))
            .count();
        let r = lost as f64 / n as f64;
        let want = (mg * lg + mb * lb) / (mg + mb);
        let t = 4.0 * (want * (1.0 - want) / n as f64).sqrt();
        assert!((r - want).abs() <= t, "rate={r} want={want} tol={t}");
    }

    #[test]
    fn markov2_time_config_errors() {
        let ok = json!({"mean_good": 6, "mean_bad": 0.2, "loss_good": 0.01, "loss_bad": 0.5});
        assert!(build(&ok).is_ok());
        let mut bad = ok.clone();
        bad["mean_bad"] = json!(-1);
        assert_eq!(build(&bad).unwrap_err().path, "mean_bad");
        let mut bad = ok.clone();
        bad["sojourn"] = json!("geometric");
        assert_eq!(build(&bad).unwrap_err().path, "slot");
        bad["slot"] = json!(1.0);
        let e = build(&bad).unwrap_err();
        assert_eq!(e.path, "slot");
        bad["slot"] = json!(0.01);
        assert!(build(&bad).is_ok());
        let mut bad = ok.clone();
        bad["slot"] = json!(0.01);
        assert_eq!(build(&bad).unwrap_err().path, "slot");
        let mut bad = ok;
        bad["sojourn"] = json!("weibull");
        assert_eq!(build(&bad).unwrap_err().path, "sojourn");
    }
}
