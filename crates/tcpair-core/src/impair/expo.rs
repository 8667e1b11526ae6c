//! `expo { p }`: losses separated by random gaps, in packet units, with mean
//! gap `1/p` packets, so the long-run loss rate is `p` (the CLRP paper's "Expo"
//! model, after ns-2).
//!
//! How it works (ns-2 style, counter counting down): after each loss we draw
//! `X ~ Exp(rate lambda)` and lose the packet at which the running packet
//! count first reaches `X`, i.e. packet number `G = ceil(X)` after the
//! previous loss. `P(G = k) = e^{-lambda (k-1)} (1 - e^{-lambda})`: `G` is
//! geometric with success probability `q = 1 - e^{-lambda}`.
//!
//! Calibration: taking the exponential's mean literally as `1/p` would give
//! `q = 1 - e^{-p}` (for `p = 0.1`, a rate of 0.095, 5% low) and a mean gap of
//! about `1/p + 1/2`. We set `lambda = -ln(1 - p)` instead, so that `q = p`
//! exactly: the mean gap is `1/p` and the loss rate is `p`, as the scenario
//! parameter promises. The exponential's mean is then `-1/ln(1-p)` packets
//! (`~ 1/p - 1/2` for small p).
//!
//! Same process as `uniform`? In distribution, yes: geometric gaps with
//! success probability `p` are exactly the gaps of per-packet Bernoulli(`p`)
//! losses (memorylessness). The realised sequences differ (one draw per loss
//! instead of one per packet), which also makes this model cheaper at low
//! `p`. (ns-2's own `ErrorModel/Expo` is a two-state model with exponential
//! good and bad run lengths; with bad runs of one packet it reduces to this.)

use super::{check, ErrorModel, ModelInfo};
use crate::engine::{SimRng, Time};
use crate::error::{from_value, ConfigError};
use rand::Rng;
use rand_distr::Exp1;
use serde::Deserialize;

pub const INFO: ModelInfo = ModelInfo {
    name: "expo",
    summary:
        "losses at geometrically distributed packet gaps with mean 1/p (ns-2 Expo, packet units)",
    build,
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpoConfig {
    pub p: f64,
}

#[derive(Debug, Clone)]
pub struct Expo {
    p: f64,
    /// Mean of the exponential gap, `-1/ln(1-p)` packets.
    mean_gap: f64,
    /// Packets still to go (fractional) before the next loss; `None` before
    /// the first packet (the first gap is drawn lazily, from the caller's rng).
    remaining: Option<f64>,
}

impl Expo {
    pub fn new(p: f64) -> Result<Self, ConfigError> {
        let p = check::prob("p", p)?;
        let lambda = -(-p).ln_1p();
        Ok(Self {
            p,
            mean_gap: 1.0 / lambda,
            remaining: None,
        })
    }

    fn draw(&self, rng: &mut SimRng) -> f64 {
        let x: f64 = rng.sample(Exp1);
        x * self.mean_gap
    }
}

fn build(v: &serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError> {
    let c: ExpoConfig = from_value(v)?;
    Ok(Box::new(Expo::new(c.p)?))
}

impl ErrorModel for Expo {
    fn is_lost(&mut self, _now: Time, _size: u32, rng: &mut SimRng) -> bool {
        if self.p <= 0.0 {
            return false;
        }
        if self.p >= 1.0 {
            return true;
        }
        let r = match self.remaining {
            Some(r) => r,
            None => self.draw(rng),
        };
        let r = r - 1.0;
        if r <= 0.0 {
            self.remaining = Some(self.draw(rng));
            true
        } else {
            self.remaining = Some(r);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use crate::impair::check::testutil::tol;
    use serde_json::json;

    #[test]
    fn expo_mean_gap_is_one_over_p() {
        for (p, seed) in [(0.05, 1u64), (0.2, 2)] {
            let mut m = Expo::new(p).unwrap();
            let mut rng = stream(seed, "expo");
            let n = 100_000;
            let mut gaps = Vec::new();
            let mut last = 0usize;
            for i in 1..=n {
                if m.is_lost(0, 1000, &mut rng) {
                    gaps.push((i - last) as f64);
                    last = i;
                }
            }
            let k = gaps.len() as f64;
            let mean = gaps.iter().sum::<f64>() / k;
            // Geometric(p) gap: variance (1-p)/p^2; mean of k gaps, 4 sd.
            let t = tol(4.0, (1.0 - p) / (p * p) / k);
            assert!((mean - 1.0 / p).abs() <= t, "p={p} mean={mean} tol={t}");
            assert!(gaps.iter().all(|&g| g >= 1.0));
        }
    }

    #[test]
    fn expo_extremes() {
        let mut rng = stream(3, "expo");
        let mut m = Expo::new(0.0).unwrap();
        assert!((0..1000).all(|_| !m.is_lost(0, 1, &mut rng)));
        let mut m = Expo::new(1.0).unwrap();
        assert!((0..1000).all(|_| m.is_lost(0, 1, &mut rng)));
        let e = build(&json!({"p": 2})).unwrap_err();
        assert_eq!(e.path, "p");
    }
}
