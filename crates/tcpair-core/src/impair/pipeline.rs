//! The impairment pipeline of one link direction, sans-IO.
//!
//! The link hands over each packet (an opaque `u32` handle into the caller's
//! arena) when it reaches the far end; the pipeline answers with what to
//! deliver or drop, in delivery order, and tells when it next needs
//! [`Pipeline::on_timer`]. It never allocates per packet once warm.
//!
//! Stages, in order (the first that applies decides):
//! 1. outage, judged by the time the packet *entered* the link: everything
//!    sent during a blackout is lost, even if it would arrive after it;
//! 2. the error model (loss = corruption), judged at arrival time;
//! 3. duplicate: maybe make a copy, to be released `k` passing packets later;
//! 4. reorder: maybe hold the packet back for `k` passing packets.
//!
//! A packet "passes" when it is delivered at once on arrival; only such
//! packets advance the counters of held packets and copies (dropped, held,
//! released and copied packets do not; see `reorder`). Released packets come
//! out right after the passing packet that released them: held originals
//! first, then copies, each group in the order it was held.
//!
//! Each stage draws from its own named stream (`<prefix>/loss`,
//! `<prefix>/reorder`, `<prefix>/duplicate`), so enabling one never changes
//! another's randomness.

use super::hold::{HoldStage, Holder};
use super::outage::Outages;
use super::{build_error_model, ErrorModel};
use super::{duplicate, reorder};
use crate::engine::{stream, SimRng, Time};
use crate::error::{from_value, ConfigError};
use serde::Deserialize;

/// The impairment keys of a link-direction table. Each value is parsed by its
/// stage (kept as raw JSON here so errors can name the right field).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpairSpec {
    /// `{ model = "...", start?, stop?, ...model keys }`
    pub loss: Option<serde_json::Value>,
    /// `{ p, min = 1, max = 10, max_hold = 1.0 }`
    pub reorder: Option<serde_json::Value>,
    /// `{ p, min = 1, max = 20, max_hold = 1.0 }`
    pub duplicate: Option<serde_json::Value>,
    /// `[[start, stop], ...]` in seconds
    pub outages: Option<serde_json::Value>,
}

impl ImpairSpec {
    /// Parse a table holding only impairment keys; errors are prefixed by `path`.
    pub fn from_value(v: &serde_json::Value, path: &str) -> Result<Self, ConfigError> {
        from_value(v).map_err(|e| e.within(path))
    }
}

pub use super::out::{DropCause, PipeOut};

struct Loss {
    model: Box<dyn ErrorModel>,
    rng: SimRng,
}

impl std::fmt::Debug for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loss").field("model", &self.model).finish()
    }
}

#[derive(Debug, Default)]
pub struct Pipeline {
    outages: Option<Outages>,
    loss: Option<Loss>,
    duplicate: Option<(HoldStage, SimRng)>,
    reorder: Option<(HoldStage, SimRng)>,
}

impl Pipeline {
    /// Ask for the loss model's own state to be loaded (the pipeline itself
    /// should already be in cache).
    #[inline]
    pub fn prefetch_parts(&self) {
        if let Some(l) = &self.loss {
            crate::engine::prefetch(&*l.model);
        }
    }

    /// Build from the spec. `path` is the scenario path of the direction table
    /// (e.g. `links[1].forward`) used in error messages
    /// (`links[1].forward.loss.p: ...`); `stream_prefix` (e.g.
    /// `link/wless/forward`) names the random streams.
    pub fn build(
        spec: &ImpairSpec,
        path: &str,
        run_seed: u64,
        stream_prefix: &str,
    ) -> Result<Pipeline, ConfigError> {
        let sub = |k: &str| format!("{path}.{k}");
        let outages = match &spec.outages {
            Some(v) => {
                let o = Outages::from_value(v).map_err(|e| e.within(&sub("outages")))?;
                (!o.is_empty()).then_some(o)
            }
            None => None,
        };
        let loss = match &spec.loss {
            Some(v) => Some(Loss {
                model: build_error_model(v, &sub("loss"))?,
                rng: stream(run_seed, &format!("{stream_prefix}/loss")),
            }),
            None => None,
        };
        let duplicate = match &spec.duplicate {
            Some(v) => Some((
                duplicate::build(v).map_err(|e| e.within(&sub("duplicate")))?,
                stream(run_seed, &format!("{stream_prefix}/duplicate")),
            )),
            None => None,
        };
        let reorder = match &spec.reorder {
            Some(v) => Some((
                reorder::build(v).map_err(|e| e.within(&sub("reorder")))?,
                stream(run_seed, &format!("{stream_prefix}/reorder")),
            )),
            None => None,
        };
        Ok(Pipeline {
            outages,
            loss,
            duplicate,
            reorder,
        })
    }

    /// No impairment configured: the caller may skip the pipeline entirely.
    pub fn is_transparent(&self) -> bool {
        self.outages.is_none()
            && self.loss.is_none()
            && self.duplicate.is_none()
            && self.reorder.is_none()
    }

    /// No stage holds packets back (no duplicate nor reorder stage): each
    /// arrival is delivered or dropped at once, by [`Self::judge`].
    #[inline]
    pub fn judges_alone(&self) -> bool {
        self.duplicate.is_none() && self.reorder.is_none()
    }

    /// [`Self::on_arrival`] of a pipeline that [`Self::judges_alone`]: the
    /// cause if the packet is dropped, None if it is delivered (the same
    /// decisions and draws, without the output list).
    #[inline]
    pub fn judge(&mut self, now: Time, entered_at: Time, size: u32) -> Option<DropCause> {
        debug_assert!(self.judges_alone());
        if self.outages.as_ref().is_some_and(|o| o.active(entered_at)) {
            return Some(DropCause::Outage);
        }
        let l = self.loss.as_mut()?;
        l.model
            .is_lost(now, size, &mut l.rng)
            .then_some(DropCause::Corruption)
    }

    /// Packet `h` of `size` bytes reaches the end of the link at `now`; it
    /// entered the link at `entered_at`. `clone` copies a handle in the
    /// caller's arena (used by duplicate). Decisions are appended to `out` in
    /// delivery order: first any held packets whose `max_hold` expired by
    /// `now` (as if [`Self::on_timer`] had run), then this packet, then the
    /// held packets and copies it released. `now` must not decrease between
    /// calls.
    pub fn on_arrival(
        &mut self,
        now: Time,
        entered_at: Time,
        h: u32,
        size: u32,
        clone: &mut dyn FnMut(u32) -> u32,
        out: &mut Vec<PipeOut>,
    ) {
        self.on_timer(now, out);
        if let Some(o) = &self.outages {
            if o.active(entered_at) {
                out.push(PipeOut::Drop(h, DropCause::Outage));
                return;
            }
        }
        if let Some(l) = &mut self.loss {
            if l.model.is_lost(now, size, &mut l.rng) {
                out.push(PipeOut::Drop(h, DropCause::Corruption));
                return;
            }
        }
        let copy_after = match &mut self.duplicate {
            Some((d, rng)) => d.draw(rng),
            None => None,
        };
        let held = match &mut self.reorder {
            Some((r, rng)) => match r.draw(rng) {
                Some(k) => {
                    r.hold(now, h, k);
                    true
                }
                None => false,
            },
            None => false,
        };
        if !held {
            out.push(PipeOut::Deliver(h));
            if let Some((r, _)) = &mut self.reorder {
                r.held.on_pass(out);
            }
            if let Some((d, _)) = &mut self.duplicate {
                d.held.on_pass(out);
            }
        }
        // Held after the counting above: a packet never counts for its own copy.
        if let (Some(k), Some((d, _))) = (copy_after, &mut self.duplicate) {
            let c = clone(h);
            d.hold(now, c, k);
        }
    }

    fn holders(&mut self) -> (Option<&mut Holder>, Option<&mut Holder>) {
        (
            self.reorder.as_mut().map(|(r, _)| &mut r.held),
            self.duplicate.as_mut().map(|(d, _)| &mut d.held),
        )
    }

    /// Earliest `max_hold` expiry among held packets and copies.
    pub fn next_deadline(&self) -> Option<Time> {
        let a = self
            .reorder
            .as_ref()
            .and_then(|(r, _)| r.held.front_deadline());
        let b = self
            .duplicate
            .as_ref()
            .and_then(|(d, _)| d.held.front_deadline());
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Release held packets and copies whose deadline is `<= now`, in deadline
    /// order (held originals first on ties).
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<PipeOut>) {
        Self::release_until(self.holders(), Some(now), out);
    }

    /// Release everything still held, in deadline order (e.g. at the end of a
    /// run, or when tearing a link down).
    pub fn drain(&mut self, out: &mut Vec<PipeOut>) {
        Self::release_until(self.holders(), None, out);
    }

    fn release_until(
        (mut r, mut d): (Option<&mut Holder>, Option<&mut Holder>),
        now: Option<Time>,
        out: &mut Vec<PipeOut>,
    ) {
        let due = |t: Option<Time>| match (t, now) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(t), Some(n)) => t <= n,
        };
        loop {
            let tr = r.as_ref().and_then(|h| h.front_deadline());
            let td = d.as_ref().and_then(|h| h.front_deadline());
            let take_r = match (due(tr), due(td)) {
                (false, false) => return,
                (true, false) => true,
                (false, true) => false,
                (true, true) => tr <= td,
            };
            let h = if take_r {
                r.as_mut().and_then(|h| h.pop_front())
            } else {
                d.as_mut().and_then(|h| h.pop_front())
            };
            out.push(PipeOut::Deliver(h.expect("front exists")));
        }
    }

    /// Packets currently held (reordered originals plus pending copies). For
    /// the conservation invariant, copies count as packets the caller created
    /// through `clone`.
    pub fn held(&self) -> usize {
        self.reorder.as_ref().map_or(0, |(r, _)| r.held.len())
            + self.duplicate.as_ref().map_or(0, |(d, _)| d.held.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC};
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn pipeline_transparent_when_empty() {
        let p = Pipeline::build(&ImpairSpec::default(), "l", 0, "x").unwrap();
        assert!(p.is_transparent());
        let spec = ImpairSpec {
            outages: Some(json!([[1, 2]])),
            ..Default::default()
        };
        assert!(!Pipeline::build(&spec, "l", 0, "x")
            .unwrap()
            .is_transparent());
    }

    #[test]
    fn pipeline_outage_judged_by_entry_time() {
        let spec = ImpairSpec {
            outages: Some(json!([[1, 2]])),
            loss: Some(json!({"model": "uniform", "p": 0.0})),
            ..Default::default()
        };
        let mut p = Pipeline::build(&spec, "l", 0, "x").unwrap();
        let mut out = Vec::new();
        let mut nc = |_: u32| -> u32 { unreachable!() };
        // Entered just before the outage, arrives inside it: delivered.
        p.on_arrival(SEC + 10 * MS, SEC - 1, 1, 100, &mut nc, &mut out);
        // Entered inside, arrives after: dropped.
        p.on_arrival(2 * SEC + 10 * MS, 2 * SEC - 1, 2, 100, &mut nc, &mut out);
        p.on_arrival(2 * SEC + 20 * MS, 2 * SEC, 3, 100, &mut nc, &mut out);
        assert_eq!(
            out,
            vec![
                PipeOut::Deliver(1),
                PipeOut::Drop(2, DropCause::Outage),
                PipeOut::Deliver(3)
            ]
        );
    }

    #[test]
    fn pipeline_loss_is_corruption_and_streams_are_independent() {
        let mk = |with_reorder: bool| {
            let spec = ImpairSpec {
                loss: Some(json!({"model": "uniform", "p": 0.3})),
                reorder: with_reorder.then(|| json!({"p": 0.0})),
                ..Default::default()
            };
            Pipeline::build(&spec, "l", 9, "link/a/forward").unwrap()
        };
        let drops = |mut p: Pipeline| {
            let mut out = Vec::new();
            for h in 0..1000 {
                p.on_arrival(u64::from(h), 0, h, 100, &mut |_| unreachable!(), &mut out);
            }
            out.iter()
                .filter_map(|o| match o {
                    PipeOut::Drop(h, c) => {
                        assert_eq!(*c, DropCause::Corruption);
                        Some(*h)
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        // Adding a reorder stage does not change which packets are lost.
        assert_eq!(drops(mk(false)), drops(mk(true)));
    }

    #[test]
    fn pipeline_config_errors_name_the_field() {
        let b = |spec: ImpairSpec| Pipeline::build(&spec, "links[1].forward", 0, "x").unwrap_err();
        let e = b(ImpairSpec {
            loss: Some(json!({"model": "uniform", "p": 1.5})),
            ..Default::default()
        });
        assert_eq!(
            e.to_string(),
            "links[1].forward.loss.p: probability must be in [0, 1], got 1.5"
        );
        let e = b(ImpairSpec {
            loss: Some(json!({"model": "nope"})),
            ..Default::default()
        });
        assert_eq!(e.path, "links[1].forward.loss.model");
        assert!(
            e.message
                .contains("uniform, ber, expo, markov2, markov2_time"),
            "{e}"
        );
        let e = b(ImpairSpec {
            loss: Some(json!({"model": "uniform", "p": 0.1, "bogus": 1})),
            ..Default::default()
        });
        assert!(e.to_string().starts_with("links[1].forward.loss"), "{e}");
        assert!(e.to_string().contains("bogus"), "{e}");
        let e = b(ImpairSpec {
            outages: Some(json!([[1, 2], [5, 4]])),
            ..Default::default()
        });
        assert_eq!(e.path, "links[1].forward.outages[1]");
        let e = ImpairSpec::from_value(&json!({"los": {}}), "links[1].forward").unwrap_err();
        assert!(e.to_string().starts_with("links[1].forward"), "{e}");
        assert!(e.to_string().contains("los"), "{e}");
    }

    #[derive(Debug, Clone)]
    enum Step {
        Arrive { dt: u64, age: u64, size: u32 },
        Timer { dt: u64 },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0u64..3_000_000, 0u64..2_000_000_000, 40u32..1500)
                .prop_map(|(dt, age, size)| Step::Arrive { dt, age, size }),
            1 => (0u64..500_000_000).prop_map(|dt| Step::Timer { dt }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn pipeline_conserves_packets(
            loss in proptest::option::of(0.0f64..=1.0),
            reorder in proptest::option::of((0.0f64..=1.0, 1u32..5, 0u32..5, 0.001f64..0.5)),
            dup in proptest::option::of((0.0f64..=1.0, 1u32..5, 0u32..5, 0.001f64..0.5)),
            outage in proptest::option::of((0.0f64..3.0, 0.01f64..1.0)),
            steps in proptest::collection::vec(step(), 1..200),
            seed in any::<u64>(),
        ) {
            let hold = |(p, min, extra, mh): (f64, u32, u32, f64)|
                json!({"p": p, "min": min, "max": min + extra, "max_hold": mh});
            let spec = ImpairSpec {
                loss: loss.map(|p| json!({"model": "uniform", "p": p})),
                reorder: reorder.map(hold),
                duplicate: dup.map(hold),
                outages: outage.map(|(a, d)| json!([[a, a + d]])),
            };
            let mut p = Pipeline::build(&spec, "l", seed, "link/p/forward").unwrap();
            const COPY: u32 = 1 << 30;
            let mut next_copy = COPY;
            let mut inputs = 0u32;
            let mut seen = std::collections::HashMap::<u32, u32>::new();
            let mut out = Vec::new();
            let mut now = 0u64;
            for s in steps {
                out.clear();
                match s {
                    Step::Arrive { dt, age, size } => {
                        now += dt;
                        let h = inputs;
                        inputs += 1;
                        let mut cl = |o: u32| {
                            assert!(o < COPY, "only originals are copied");
                            let c = next_copy;
                            next_copy += 1;
                            c
                        };
                        p.on_arrival(now, now.saturating_sub(age), h, size, &mut cl, &mut out);
                    }
                    Step::Timer { dt } => {
                        now += dt;
                        p.on_timer(now, &mut out);
                    }
                }
                for o in &out {
                    let h = match *o { PipeOut::Deliver(h) => h, PipeOut::Drop(h, _) => { prop_assert!(h < COPY, "copies are never dropped"); h } };
                    *seen.entry(h).or_default() += 1;
                }
                // Invariant: everything created is out exactly once or still held.
                let created = inputs as usize + (next_copy - COPY) as usize;
                prop_assert_eq!(seen.len() + p.held(), created);
                if let Some(d) = p.next_deadline() { prop_assert!(d > now); }
            }
            out.clear();
            p.drain(&mut out);
            for o in &out {
                let PipeOut::Deliver(h) = *o else { panic!("drain only delivers") };
                *seen.entry(h).or_default() += 1;
            }
            prop_assert_eq!(p.held(), 0);
            prop_assert!(seen.values().all(|&c| c == 1));
            prop_assert_eq!(seen.len(), inputs as usize + (next_copy - COPY) as usize);
            prop_assert!((0..inputs).all(|h| seen.contains_key(&h)));
        }
    }
}
