//! `uniform { p }`: every packet is lost independently with probability `p`
//! (ns-2's `ErrorModel/Uniform` in packet units; the Syndrome paper's wireless loss).

use super::{check, ErrorModel, ModelInfo};
use crate::engine::{SimRng, Time};
use crate::error::{from_value, ConfigError};
use rand::Rng;
use serde::Deserialize;

pub const INFO: ModelInfo = ModelInfo {
    name: "uniform",
    summary: "each packet lost independently with probability p",
    build,
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniformConfig {
    pub p: f64,
}

#[derive(Debug, Clone)]
pub struct Uniform {
    p: f64,
}

impl Uniform {
    pub fn new(p: f64) -> Result<Self, ConfigError> {
        Ok(Self {
            p: check::prob("p", p)?,
        })
    }
}

fn build(v: &serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError> {
    let c: UniformConfig = from_value(v)?;
    Ok(Box::new(Uniform::new(c.p)?))
}

impl ErrorModel for Uniform {
    #[inline]
    fn is_lost(&mut self, _now: Time, _size: u32, rng: &mut SimRng) -> bool {
        // gen::<f64>() is in [0, 1): p = 0 never loses, p = 1 always does.
        rng.gen::<f64>() < self.p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;
    use crate::impair::check::testutil::tol;
    use serde_json::json;

    fn rate(p: f64, n: usize, seed: u64) -> f64 {
        let mut m = Uniform::new(p).unwrap();
        let mut rng = stream(seed, "t");
        let lost = (0..n).filter(|_| m.is_lost(0, 1000, &mut rng)).count();
        lost as f64 / n as f64
    }

    #[test]
    fn uniform_rate_matches_p() {
        // Binomial: sd of the rate is sqrt(p(1-p)/n); allow 4 sd.
        let n = 100_000;
        for (p, seed) in [(0.01, 1), (0.1, 2), (0.3, 3)] {
            let r = rate(p, n, seed);
            let t = tol(4.0, p * (1.0 - p) / n as f64);
            assert!((r - p).abs() <= t, "p={p} rate={r} tol={t}");
        }
        assert_eq!(rate(0.0, 1000, 4), 0.0);
        assert_eq!(rate(1.0, 1000, 5), 1.0);
    }

    #[test]
    fn uniform_config_errors_name_the_field() {
        let e = build(&json!({"p": 1.5})).unwrap_err();
        assert_eq!(e.path, "p");
        assert!(e.message.contains("1.5"), "{e}");
        let e = build(&json!({"p": 0.1, "q": 1})).unwrap_err();
        assert!(e.to_string().contains('q'), "{e}");
        let e = build(&json!({})).unwrap_err();
        assert!(e.to_string().contains('p'), "{e}");
    }
}
