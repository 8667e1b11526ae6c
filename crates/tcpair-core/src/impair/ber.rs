//! `ber { ber }`: independent bit errors at rate `b`; a packet of `s` bytes is
//! lost when any of its `8 s` bits is in error, i.e. with probability
//! `1 - (1 - b)^(8 s)` (the Snoop paper's error model for the Snoop experiments).

use super::{check, ErrorModel, ModelInfo};
use crate::engine::{SimRng, Time};
use crate::error::{from_value, ConfigError};
use rand::Rng;
use serde::Deserialize;

pub const INFO: ModelInfo = ModelInfo {
    name: "ber",
    summary: "bit error rate b: a packet of s bytes is lost with probability 1-(1-b)^(8s)",
    build,
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BerConfig {
    pub ber: f64,
}

#[derive(Debug, Clone)]
pub struct Ber {
    b: f64,
    /// ln(1 - b), precomputed.
    ln_keep: f64,
    /// Cache of the last size's loss probability: packet sizes repeat.
    last_size: u32,
    last_p: f64,
}

impl Ber {
    pub fn new(b: f64) -> Result<Self, ConfigError> {
        let b = check::prob("ber", b)?;
        Ok(Self {
            b,
            ln_keep: (-b).ln_1p(),
            last_size: 0,
            last_p: 0.0,
        })
    }

    /// Probability that a packet of `size` bytes has at least one bit error.
    /// Computed as `-expm1(8 s ln(1-b))`: accurate for tiny `b` where the
    /// naive `1 - (1-b)^n` loses every significant digit.
    pub fn loss_prob(&self, size: u32) -> f64 {
        if size == 0 || self.b == 0.0 {
            0.0
        } else if self.b >= 1.0 {
            1.0
        } else {
            -(8.0 * f64::from(size) * self.ln_keep).exp_m1()
        }
    }
}

fn build(v: &serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError> {
    let c: BerConfig = from_value(v)?;
    Ok(Box::new(Ber::new(c.ber)?))
}

impl ErrorModel for Ber {
    #[inline]
    fn is_lost(&mut self, _now: Time, size: u32, rng: &mut SimRng) -> bool {
        if size != self.last_size {
            self.last_size = size;
            self.last_p = self.loss_prob(size);
        }
        rng.gen::<f64>() < self.last_p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use crate::impair::check::testutil::tol;
    use serde_json::json;

    #[test]
    fn ber_probability_is_accurate() {
        let m = Ber::new(1e-5).unwrap();
        let exact = 1.0 - (1.0f64 - 1e-5).powi(8000);
        assert!((m.loss_prob(1000) - exact).abs() < 1e-12);
        // Tiny b: the naive formula would round to 0; 8*40*1e-12 to first order.
        let m = Ber::new(1e-12).unwrap();
        let p = m.loss_prob(40);
        assert!((p - 3.2e-10).abs() < 1e-18, "{p}");
        assert_eq!(Ber::new(1.0).unwrap().loss_prob(1), 1.0);
        assert_eq!(Ber::new(0.5).unwrap().loss_prob(0), 0.0);
    }

    #[test]
    fn ber_rate_for_1000_bytes_matches() {
        let b = 1e-5;
        let q = 1.0 - (1.0f64 - b).powi(8000);
        let mut m = Ber::new(b).unwrap();
        let mut rng = stream(11, "ber");
        let n = 100_000;
        let lost = (0..n).filter(|_| m.is_lost(0, 1000, &mut rng)).count();
        let r = lost as f64 / n as f64;
        // Binomial: 4 sd.
        let t = tol(4.0, q * (1.0 - q) / n as f64);
        assert!((r - q).abs() <= t, "rate={r} want={q} tol={t}");
    }

    #[test]
    fn ber_config_errors() {
        let e = build(&json!({"ber": -0.1})).unwrap_err();
        assert_eq!(e.path, "ber");
        assert!(e.message.contains("-0.1"));
        assert!(build(&json!({"p": 0.1})).is_err());
    }
}
