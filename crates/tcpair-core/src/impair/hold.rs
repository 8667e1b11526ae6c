//! What `reorder` and `duplicate` share: validated hold parameters, the queue
//! of held packets, and a stage combining the two. A reorder stage holds the
//! packet itself; a duplicate stage holds a copy. Both release a held packet
//! right after the k-th later packet passes (see `reorder` for what counts),
//! or at `max_hold`.

use super::check;
use super::out::PipeOut;
use crate::engine::{secs, SimRng, Time};
use crate::error::ConfigError;
use rand::Rng;
use std::collections::VecDeque;

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

/// One holding stage of a [`super::Pipeline`] (reorder or duplicate).
#[derive(Debug)]
pub struct HoldStage {
    params: HoldParams,
    pub(crate) held: Holder,
}

impl HoldStage {
    pub fn new(params: HoldParams) -> Self {
        Self {
            params,
            held: Holder::default(),
        }
    }

    pub fn params(&self) -> &HoldParams {
        &self.params
    }

    /// Whether this packet is affected; if so, after how many passing packets
    /// the held one is released.
    #[inline]
    pub(crate) fn draw(&self, rng: &mut SimRng) -> Option<u32> {
        self.params.draw(rng)
    }

    /// Hold `h` until `k` packets have passed (or `max_hold` from `now`).
    #[inline]
    pub(crate) fn hold(&mut self, now: Time, h: u32, k: u32) {
        self.held
            .hold(h, k, now.saturating_add(self.params.max_hold));
    }
}
