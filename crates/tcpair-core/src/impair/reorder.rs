//! `reorder { p, min = 1, max = 10, max_hold = 1.0 }`: with probability `p` a
//! packet is held back and released right after the `k`-th later packet
//! passes, `k ~ U[min, max]` (integers, inclusive), or after `max_hold`
//! seconds if traffic stops first (so nothing is ever stuck). Chen et al. 2002 §5:
//! q = 0.05, U[1, 10].
//!
//! What counts as "a later packet passing": a packet that reaches the end of
//! the link after the held one and is delivered at once. Dropped packets do
//! not count (they never pass), nor do held packets or duplicate copies when
//! they are released later: otherwise one release could cascade into others
//! and the displacement would no longer be the drawn `k`. So a held packet is
//! overtaken by exactly `k` immediately-delivered packets (fewer if released
//! by `max_hold`), plus possibly some held packets released before it.

use super::hold::{HoldParams, HoldStage};
use crate::error::{from_value, ConfigError};
use serde::Deserialize;

fn one() -> u32 {
    1
}
fn ten() -> u32 {
    10
}
fn one_sec() -> f64 {
    1.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReorderConfig {
    pub p: f64,
    #[serde(default = "one")]
    pub min: u32,
    #[serde(default = "ten")]
    pub max: u32,
    /// Seconds.
    #[serde(default = "one_sec")]
    pub max_hold: f64,
}

/// Build the reordering stage; errors name fields relative to the `reorder` table.
pub fn build(v: &serde_json::Value) -> Result<HoldStage, ConfigError> {
    let c: ReorderConfig = from_value(v)?;
    Ok(HoldStage::new(HoldParams::new(
        c.p, c.min, c.max, c.max_hold,
    )?))
}

#[cfg(test)]
mod tests {
    use super::super::pipeline::{ImpairSpec, PipeOut, Pipeline};
    use crate::engine::{MS, SEC};
    use proptest::prelude::*;
    use serde_json::json;

    fn pipe(reorder: serde_json::Value, seed: u64) -> Pipeline {
        let spec = ImpairSpec {
            reorder: Some(reorder),
            ..Default::default()
        };
        Pipeline::build(&spec, "l.forward", seed, "link/t/forward").unwrap()
    }

    fn no_clone(_: u32) -> u32 {
        unreachable!("reorder never copies")
    }

    /// Feed `n` packets 1 us apart (far below max_hold), then drain.
    /// Returns, per handle: whether it was held and, if released by a later
    /// packet, how many immediately-delivered packets overtook it; plus the
    /// concatenated output.
    fn run(p: &mut Pipeline, n: u32) -> (Vec<bool>, Vec<Option<u32>>, Vec<PipeOut>) {
        let mut held = vec![false; n as usize];
        let mut disp = vec![None; n as usize];
        let mut arrived_direct = vec![0u32; n as usize]; // direct deliveries so far, at arrival
        let mut direct = 0u32;
        let mut all = Vec::new();
        let mut out = Vec::new();
        for h in 0..n {
            out.clear();
            p.on_arrival(u64::from(h) * 1000, 0, h, 1000, &mut no_clone, &mut out);
            arrived_direct[h as usize] = direct;
            if out.first() == Some(&PipeOut::Deliver(h)) {
                direct += 1;
                for o in &out[1..] {
                    let PipeOut::Deliver(r) = *o else {
                        panic!("drop")
                    };
                    disp[r as usize] = Some(direct - arrived_direct[r as usize]);
                }
            } else {
                held[h as usize] = true;
                assert!(out.is_empty(), "a held packet releases nothing");
            }
            all.extend_from_slice(&out);
        }
        out.clear();
        p.drain(&mut out);
        all.extend_from_slice(&out);
        (held, disp, all)
    }

    #[test]
    fn reorder_fraction_and_conservation() {
        let q = 0.05;
        let mut p = pipe(json!({"p": q}), 41);
        let n = 50_000;
        let (held, disp, all) = run(&mut p, n);
        assert_eq!(p.held(), 0);
        let mut seen = vec![0u8; n as usize];
        for o in &all {
            let PipeOut::Deliver(h) = *o else { panic!() };
            seen[h as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c == 1), "every packet exactly once");
        let frac = held.iter().filter(|&&x| x).count() as f64 / n as f64;
        // Binomial, 4 sd.
        assert!(
            (frac - q).abs() <= 4.0 * (q * (1.0 - q) / n as f64).sqrt(),
            "{frac}"
        );
        for (h, d) in disp.iter().enumerate() {
            if let Some(d) = d {
                assert!((1..=10).contains(d), "packet {h} displaced by {d}");
            }
        }
    }

    #[test]
    fn reorder_max_hold_releases_when_traffic_stops() {
        let mut p = pipe(json!({"p": 1.0, "min": 5, "max": 5, "max_hold": 0.25}), 1);
        let mut out = Vec::new();
        p.on_arrival(SEC, 0, 7, 100, &mut no_clone, &mut out);
        assert!(out.is_empty());
        assert_eq!(p.held(), 1);
        assert_eq!(p.next_deadline(), Some(SEC + 250 * MS));
        p.on_timer(SEC + 250 * MS - 1, &mut out);
        assert!(out.is_empty());
        p.on_timer(SEC + 250 * MS, &mut out);
        assert_eq!(out, vec![PipeOut::Deliver(7)]);
        assert_eq!(p.held(), 0);
        assert_eq!(p.next_deadline(), None);
    }

    #[test]
    fn reorder_config_errors() {
        let b = |v| {
            Pipeline::build(
                &ImpairSpec {
                    reorder: Some(v),
                    ..Default::default()
                },
                "links[1].forward",
                0,
                "x",
            )
            .unwrap_err()
        };
        let e = b(json!({"p": 0.1, "min": 5, "max": 3}));
        assert_eq!(e.path, "links[1].forward.reorder.min");
        assert!(e.message.contains('5') && e.message.contains('3'));
        let e = b(json!({"p": 0.1, "min": 0}));
        assert_eq!(e.path, "links[1].forward.reorder.min");
        let e = b(json!({"p": -0.5}));
        assert_eq!(e.path, "links[1].forward.reorder.p");
        assert!(e.message.contains("-0.5"));
        let e = b(json!({"p": 0.1, "max_hold": 0}));
        assert_eq!(e.path, "links[1].forward.reorder.max_hold");
        let e = b(json!({"p": 0.1, "displacement": 3}));
        assert!(e.to_string().contains("displacement"), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn reorder_displacement_within_bounds(
            q in 0.0f64..=1.0, min in 1u32..6, extra in 0u32..6, seed in any::<u64>(),
        ) {
            let max = min + extra;
            let mut p = pipe(json!({"p": q, "min": min, "max": max}), seed);
            let n = 300;
            let (held, disp, all) = run(&mut p, n);
            prop_assert_eq!(all.len(), n as usize);
            for h in 0..n as usize {
                if let Some(d) = disp[h] {
                    prop_assert!(held[h]);
                    prop_assert!(d >= min && d <= max, "d={} not in [{}, {}]", d, min, max);
                }
            }
        }
    }
}
