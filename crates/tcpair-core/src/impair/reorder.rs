//! `reorder { p, min = 1, max = 10, max_hold = 1.0 }`: with probability `p` a
//! packet is held back and released right after the `k`-th later packet
//! passes, `k ~ U[min, max]` (integers, inclusive), or after `max_hold`
//! seconds if traffic stops first (so nothing is ever stuck). Paper 000 §5:
//! q = 0.05, U[1, 10].
//!
//! What counts as "a later packet passing": a packet that reaches the end of
//! the link after the held one and is delivered at once. Dropped packets do
//! not count (they never pass), nor do held packets or duplicate copies when
//! they are released later: otherwise one release could cascade into others
//! and the displacement would no longer be the drawn `k`. So a held packet is
//! overtaken by exactly `k` immediately-delivered packets (fewer if released
//! by `max_hold`), plus possibly some held packets released before it.

use super::check;
use super::pipeline::PipeOut;
use crate::engine::{secs, SimRng, Time};
use crate::error::{from_value, ConfigError};
use rand::Rng;
use serde::Deserialize;
use std::collections::VecDeque;

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

/// Validated parameters shared by `reorder` and `duplicate`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoldParams {
    pub p: f64,
    pub min: u32,
    pub max: u32,
    pub max_hold: Time,
}

impl HoldParams {
    pub fn new(p: f64, min: u32, max: u32, max_hold: f64) -> Result<Self, ConfigError> {
        let p = check::prob("p", p)?;
        if min < 1 {
            return Err(ConfigError::new(
                "min",
                format!("must be at least 1 packet, got {min}"),
            ));
        }
        if min > max {
            return Err(ConfigError::new(
                "min",
                format!("min ({min}) must not exceed max ({max})"),
            ));
        }
        let max_hold = check::positive_secs("max_hold", max_hold)?;
        Ok(Self {
            p,
            min,
            max,
            max_hold: secs(max_hold).max(1),
        })
    }

    /// With probability p, a displacement k ~ U[min, max].
    #[inline]
    pub(crate) fn draw(&self, rng: &mut SimRng) -> Option<u32> {
        if self.p > 0.0 && (self.p >= 1.0 || rng.gen::<f64>() < self.p) {
            Some(rng.gen_range(self.min..=self.max))
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Held {
    h: u32,
    /// Passing packets still to wait for (>= 1 while held).
    remaining: u32,
    deadline: Time,
}

/// Packets waiting for `k` passing packets or their deadline. Kept in
/// insertion order; since arrival times never decrease and every entry gets
/// the same `max_hold`, that is also deadline order, so the front holds the
/// earliest deadline. The deque is reused: no allocation once warm.
#[derive(Debug, Default)]
pub(crate) struct Holder {
    q: VecDeque<Held>,
}

impl Holder {
    pub(crate) fn hold(&mut self, h: u32, k: u32, deadline: Time) {
        debug_assert!(k >= 1);
        debug_assert!(!matches!(self.q.back(), Some(b) if b.deadline > deadline));
        self.q.push_back(Held {
            h,
            remaining: k,
            deadline,
        });
    }

    /// A packet passed: count it for every held one; release (in hold order)
    /// those whose count is reached.
    pub(crate) fn on_pass(&mut self, out: &mut Vec<PipeOut>) {
        self.q.retain_mut(|e| {
            e.remaining -= 1;
            if e.remaining == 0 {
                out.push(PipeOut::Deliver(e.h));
                false
            } else {
                true
            }
        });
    }

    pub(crate) fn front_deadline(&self) -> Option<Time> {
        self.q.front().map(|e| e.deadline)
    }

    pub(crate) fn pop_front(&mut self) -> Option<u32> {
        self.q.pop_front().map(|e| e.h)
    }

    pub(crate) fn len(&self) -> usize {
        self.q.len()
    }
}

/// The reordering stage of a [`super::Pipeline`].
#[derive(Debug)]
pub struct Reorder {
    params: HoldParams,
    pub(crate) held: Holder,
}

impl Reorder {
    /// Errors name fields relative to the `reorder` table.
    pub fn from_value(v: &serde_json::Value) -> Result<Self, ConfigError> {
        let c: ReorderConfig = from_value(v)?;
        Ok(Self::new(HoldParams::new(c.p, c.min, c.max, c.max_hold)?))
    }

    pub fn new(params: HoldParams) -> Self {
        Self {
            params,
            held: Holder::default(),
        }
    }

    pub fn params(&self) -> &HoldParams {
        &self.params
    }

    /// Decide whether packet `h` arriving at `now` is held; if so keep it and
    /// return true (the caller must not deliver it now).
    #[inline]
    pub(crate) fn maybe_hold(&mut self, now: Time, h: u32, rng: &mut SimRng) -> bool {
        match self.params.draw(rng) {
            Some(k) => {
                self.held
                    .hold(h, k, now.saturating_add(self.params.max_hold));
                true
            }
            None => false,
        }
    }
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
