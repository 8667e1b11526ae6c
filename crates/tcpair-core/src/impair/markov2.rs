//! `markov2`: the Gilbert-Elliott two-state channel in packet units.
//!
//! Per packet, in this order: (1) the packet is lost with the current state's
//! loss probability; (2) the state moves (Good -> Bad with `p_good_to_bad`,
//! Bad -> Good with `p_bad_to_good`). Deciding before moving means the first
//! packet sees `start_state`, and a Bad sojourn covers `1/p_bad_to_good`
//! packets on average (geometric on {1, 2, ...}).
//!
//! Stationary: `pi_bad = p_gb / (p_gb + p_bg)`, loss rate
//! `pi_good * loss_good + pi_bad * loss_bad`.

use super::{check, ErrorModel, ModelInfo};
use crate::engine::{SimRng, Time};
use crate::error::{from_value, ConfigError};
use rand::Rng;
use serde::Deserialize;

pub const INFO: ModelInfo = ModelInfo {
    name: "markov2",
    summary: "Gilbert-Elliott two-state model in packet units (per-packet transitions, loss probability per state)",
    build,
};

/// State of a two-state channel (shared with `markov2_time`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChannelState {
    #[default]
    Good,
    Bad,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Markov2Config {
    pub p_good_to_bad: f64,
    pub p_bad_to_good: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    #[serde(default)]
    pub start_state: ChannelState,
}

#[derive(Debug, Clone)]
pub struct Markov2 {
    p_gb: f64,
    p_bg: f64,
    loss_good: f64,
    loss_bad: f64,
    state: ChannelState,
}

impl Markov2 {
    pub fn new(c: &Markov2Config) -> Result<Self, ConfigError> {
        Ok(Self {
            p_gb: check::prob("p_good_to_bad", c.p_good_to_bad)?,
            p_bg: check::prob("p_bad_to_good", c.p_bad_to_good)?,
            loss_good: check::prob("loss_good", c.loss_good)?,
            loss_bad: check::prob("loss_bad", c.loss_bad)?,
            state: c.start_state,
        })
    }

    /// Current state (the one the next packet will see).
    pub fn state(&self) -> ChannelState {
        self.state
    }

    /// Long-run loss rate from the stationary distribution (if the chain
    /// never moves, the start state's loss probability).
    pub fn stationary_loss(&self) -> f64 {
        let s = self.p_gb + self.p_bg;
        if s == 0.0 {
            return match self.state {
                ChannelState::Good => self.loss_good,
                ChannelState::Bad => self.loss_bad,
            };
        }
        let pi_bad = self.p_gb / s;
        (1.0 - pi_bad) * self.loss_good + pi_bad * self.loss_bad
    }
}

fn build(v: &serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError> {
    let c: Markov2Config = from_value(v)?;
    Ok(Box::new(Markov2::new(&c)?))
}

/// Bernoulli(p) without spending a draw when the outcome is certain.
#[inline]
pub(crate) fn bernoulli(p: f64, rng: &mut SimRng) -> bool {
    if p <= 0.0 {
        false
    } else if p >= 1.0 {
        true
    } else {
        rng.gen::<f64>() < p
    }
}

impl ErrorModel for Markov2 {
    fn is_lost(&mut self, _now: Time, _size: u32, rng: &mut SimRng) -> bool {
        let (loss, leave, next) = match self.state {
            ChannelState::Good => (self.loss_good, self.p_gb, ChannelState::Bad),
            ChannelState::Bad => (self.loss_bad, self.p_bg, ChannelState::Good),
        };
        let lost = bernoulli(loss, rng);
        if bernoulli(leave, rng) {
            self.state = next;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use serde_json::json;

    fn cfg(p_gb: f64, p_bg: f64, lg: f64, lb: f64) -> Markov2Config {
        Markov2Config {
            p_good_to_bad: p_gb,
            p_bad_to_good: p_bg,
            loss_good: lg,
            loss_bad: lb,
            start_state: ChannelState::Good,
        }
    }

    #[test]
    fn markov2_stationary_loss_rate() {
        let (p_gb, p_bg, lg, lb) = (0.01, 0.2, 0.001, 0.5);
        let mut m = Markov2::new(&cfg(p_gb, p_bg, lg, lb)).unwrap();
        let want = m.stationary_loss();
        let mut rng = stream(21, "m2");
        let n = 100_000;
        let lost = (0..n).filter(|_| m.is_lost(0, 1000, &mut rng)).count();
        let r = lost as f64 / n as f64;
        // Variance of the mean of the loss indicators X_i. With l(S) the
        // state's loss probability, Cov(X_0, X_k) = pi_g pi_b (lb-lg)^2 mu^k
        // for k >= 1, mu = 1 - p_gb - p_bg the chain's second eigenvalue, so
        // n Var(mean) -> v = p(1-p) + 2 pi_g pi_b (lb-lg)^2 mu / (1-mu).
        // Starting in Good instead of stationarity biases the sum by at most
        // pi_b (lb-lg) / (1-mu); we add that to a 4-sd tolerance.
        let s = p_gb + p_bg;
        let (pi_b, pi_g, mu) = (p_gb / s, p_bg / s, 1.0 - s);
        let v = want * (1.0 - want) + 2.0 * pi_g * pi_b * (lb - lg).powi(2) * mu / (1.0 - mu);
        let bias = pi_b * (lb - lg) / (1.0 - mu) / n as f64;
        let t = 4.0 * (v / n as f64).sqrt() + bias;
        assert!((r - want).abs() <= t, "rate={r} want={want} tol={t}");
    }

    #[test]
    fn markov2_mean_bad_burst_is_one_over_p_bg() {
        // loss_good = 0, loss_bad = 1: runs of consecutive losses are exactly
        // the Bad sojourns (a Bad run is always followed by a Good packet).
        let (p_gb, p_bg) = (0.05, 0.25);
        let mut m = Markov2::new(&cfg(p_gb, p_bg, 0.0, 1.0)).unwrap();
        let mut rng = stream(22, "m2");
        let mut bursts = Vec::new();
        let mut run = 0u32;
        for _ in 0..100_000 {
            if m.is_lost(0, 1000, &mut rng) {
                run += 1;
            } else if run > 0 {
                bursts.push(f64::from(run));
                run = 0;
            }
        }
        let k = bursts.len() as f64;
        let mean = bursts.iter().sum::<f64>() / k;
        // Geometric(p_bg) burst: variance (1-p_bg)/p_bg^2; 4 sd of a mean of k.
        let t = 4.0 * ((1.0 - p_bg) / (p_bg * p_bg) / k).sqrt();
        assert!((mean - 1.0 / p_bg).abs() <= t, "mean={mean} tol={t}");
    }

    #[test]
    fn markov2_decides_before_moving() {
        // Start Bad with loss 1 and a certain move to Good: the first packet
        // is lost, all later ones are not.
        let mut c = cfg(0.0, 1.0, 0.0, 1.0);
        c.start_state = ChannelState::Bad;
        let mut m = Markov2::new(&c).unwrap();
        let mut rng = stream(1, "x");
        assert!(m.is_lost(0, 1, &mut rng));
        assert!((0..100).all(|_| !m.is_lost(0, 1, &mut rng)));
    }

    #[test]
    fn markov2_config_errors() {
        let ok =
            json!({"p_good_to_bad": 0.1, "p_bad_to_good": 0.2, "loss_good": 0.0, "loss_bad": 1.0});
        assert!(build(&ok).is_ok());
        let mut bad = ok.clone();
        bad["loss_bad"] = json!(1.2);
        let e = build(&bad).unwrap_err();
        assert_eq!(e.path, "loss_bad");
        assert!(e.message.contains("1.2"));
        let mut bad = ok.clone();
        bad["start_state"] = json!("ugly");
        let e = build(&bad).unwrap_err();
        assert_eq!(e.path, "start_state", "{e}");
        let mut bad = ok;
        bad["p_gb"] = json!(0.1);
        assert!(build(&bad).unwrap_err().to_string().contains("p_gb"));
    }
}
