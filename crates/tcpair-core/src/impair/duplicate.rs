//! `duplicate { p, min = 1, max = 20, max_hold = 1.0 }`: with probability
//! `p` the packet passes *and* a copy is emitted right after the `k`-th later
//! passing packet, `k ~ U[min, max]`, or after `max_hold` seconds if traffic
//! stops first. Chen et al. 2002 §5: d = 0.02..0.2, U[1, 20].
//!
//! "Passing" has the meaning documented in `reorder`: delivered at once on
//! arrival. Copies are not subject to loss or reordering themselves, and are
//! made (through the caller's `clone`) when the original arrives, so a copy
//! exists even if the original is then held by `reorder`.

use super::hold::{HoldParams, HoldStage};
use crate::error::{from_value, ConfigError};
use serde::Deserialize;

fn one() -> u32 {
    1
}
fn twenty() -> u32 {
    20
}
fn one_sec() -> f64 {
    1.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuplicateConfig {
    pub p: f64,
    #[serde(default = "one")]
    pub min: u32,
    #[serde(default = "twenty")]
    pub max: u32,
    /// Seconds.
    #[serde(default = "one_sec")]
    pub max_hold: f64,
}

/// Build the duplication stage; errors name fields relative to the `duplicate` table.
pub fn build(v: &serde_json::Value) -> Result<HoldStage, ConfigError> {
    let c: DuplicateConfig = from_value(v)?;
    Ok(HoldStage::new(HoldParams::new(
        c.p, c.min, c.max, c.max_hold,
    )?))
}

#[cfg(test)]
mod tests {
    use super::super::pipeline::{ImpairSpec, PipeOut, Pipeline};
    use crate::engine::SEC;
    use proptest::prelude::*;
    use serde_json::json;
    use std::collections::HashMap;

    const COPY_BASE: u32 = 1 << 30;

    /// Feed `n` packets 1 us apart; copies get handles COPY_BASE + i.
    /// Returns (originals delivered count per handle, copy -> original,
    /// copy -> number of originals delivered between the original and the copy).
    fn run(p: &mut Pipeline, n: u32) -> (Vec<u32>, HashMap<u32, u32>, HashMap<u32, u32>) {
        let mut delivered = vec![0u32; n as usize];
        let mut origin = HashMap::new();
        let mut after = HashMap::new();
        let mut out = Vec::new();
        let mut next_copy = COPY_BASE;
        let mut pos = vec![0u32; n as usize];
        let mut direct = 0u32;
        for h in 0..n {
            out.clear();
            let mut clone = |o: u32| {
                let c = next_copy;
                next_copy += 1;
                origin.insert(c, o);
                c
            };
            p.on_arrival(u64::from(h) * 1000, 0, h, 1000, &mut clone, &mut out);
            // No reorder here: h itself passes now, so it is counted too.
            pos[h as usize] = direct + 1;
            for o in &out {
                let PipeOut::Deliver(x) = *o else {
                    panic!("drop")
                };
                if x >= COPY_BASE {
                    let orig = origin[&x];
                    after.insert(x, direct - pos[orig as usize]);
                } else {
                    delivered[x as usize] += 1;
                    direct += 1;
                }
            }
        }
        out.clear();
        p.drain(&mut out);
        for o in &out {
            let PipeOut::Deliver(x) = *o else { panic!() };
            assert!(x >= COPY_BASE);
            after.entry(x).or_insert(u32::MAX);
        }
        (delivered, origin, after)
    }

    fn pipe(dup: serde_json::Value, seed: u64) -> Pipeline {
        let spec = ImpairSpec {
            duplicate: Some(dup),
            ..Default::default()
        };
        Pipeline::build(&spec, "l.forward", seed, "link/t/forward").unwrap()
    }

    #[test]
    fn duplicate_fraction_positions_and_originals() {
        let d = 0.05;
        let n = 50_000;
        let mut p = pipe(json!({"p": d}), 51);
        let (delivered, origin, after) = run(&mut p, n);
        assert!(delivered.iter().all(|&c| c == 1), "originals exactly once");
        assert_eq!(origin.len(), after.len(), "every copy delivered once");
        let frac = origin.len() as f64 / f64::from(n);
        // Binomial, 4 sd.
        assert!(
            (frac - d).abs() <= 4.0 * (d * (1.0 - d) / f64::from(n)).sqrt(),
            "{frac}"
        );
        for (c, &k) in &after {
            assert!(k == u32::MAX || (1..=20).contains(&k), "copy {c} after {k}");
        }
    }

    #[test]
    fn duplicate_max_hold() {
        let mut p = pipe(json!({"p": 1.0, "min": 3, "max": 3, "max_hold": 0.5}), 2);
        let mut out = Vec::new();
        p.on_arrival(SEC, 0, 1, 100, &mut |_| 99, &mut out);
        assert_eq!(out, vec![PipeOut::Deliver(1)]);
        assert_eq!(p.next_deadline(), Some(SEC + SEC / 2));
        out.clear();
        p.on_timer(SEC + SEC / 2, &mut out);
        assert_eq!(out, vec![PipeOut::Deliver(99)]);
        assert_eq!(p.held(), 0);
    }

    #[test]
    fn duplicate_config_errors() {
        let spec = ImpairSpec {
            duplicate: Some(json!({"p": 0.1, "min": 21})),
            ..Default::default()
        };
        let e = Pipeline::build(&spec, "links[0].reverse", 0, "x").unwrap_err();
        assert_eq!(e.path, "links[0].reverse.duplicate.min");
        assert!(e.message.contains("21") && e.message.contains("20"), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn duplicate_copy_distance_within_bounds(
            d in 0.0f64..=1.0, min in 1u32..6, extra in 0u32..6, seed in any::<u64>(),
        ) {
            let max = min + extra;
            let mut p = pipe(json!({"p": d, "min": min, "max": max}), seed);
            let (delivered, origin, after) = run(&mut p, 300);
            prop_assert!(delivered.iter().all(|&c| c == 1));
            prop_assert_eq!(origin.len(), after.len());
            for &k in after.values() {
                prop_assert!(k == u32::MAX || (k >= min && k <= max));
            }
        }
    }
}
