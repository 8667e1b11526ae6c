//! Loss detectors (loss-differentiation algorithms): asked at every
//! fast-retransmit trigger whether the loss was caused by congestion or by
//! the wireless link, from what the sender can observe (the ACK, its RTT
//! and ACK history, its window) or, for `oracle`, from the simulator's
//! ground truth. The sender answers a congestion verdict with its own
//! response and a wireless verdict with the responder's (`super::respond`).
//!
//! A new detector is one file implementing [`Detector`] plus one line in
//! [`REGISTRY`] (docs/architecture.md).

use super::{AckInfo, Counters, Decision, History, Window};
use crate::engine::Time;
use crate::error::{ConfigError, Shown};
use crate::registry::{boxed_clone, Entry};

pub mod always_wireless;
pub mod eln;
pub mod jtcp;
pub mod lda_eq;
pub mod ncpld;
pub mod none;
pub mod oracle;
pub mod pr;
pub mod relds;
pub mod spike;
pub mod veno;

#[cfg(test)]
mod loop_tests;
#[cfg(test)]
pub(crate) mod testing;

/// The cause of a loss, as a detector judges it (or as the simulator knows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    Congestion,
    Wireless,
}

impl Cause {
    /// `Wireless` when `wireless` holds, else `Congestion`: most detectors'
    /// last step (a figure below its threshold means a wireless loss).
    pub fn wireless_if(wireless: bool) -> Cause {
        if wireless {
            Cause::Wireless
        } else {
            Cause::Congestion
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Cause::Congestion => "congestion",
            Cause::Wireless => "wireless",
        }
    }
}

/// What a detector sees at a fast-retransmit trigger.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    pub now: Time,
    /// The segment about to be retransmitted.
    pub seq: u32,
    /// The ACK that triggered (its ELN bit; `truth` for the oracle).
    pub ack: &'a AckInfo,
    pub history: &'a History,
    /// cwnd and ssthresh now.
    pub window: Window,
    /// Segments outstanding (FlightSize): what cwnd says about the network
    /// when the window limit, not cwnd, bounds the sender.
    pub flight: u32,
}

boxed_clone!(Detector, DetectorClone);

/// A loss-differentiation algorithm.
pub trait Detector: std::fmt::Debug + Send + DetectorClone {
    /// The registry name.
    fn name(&self) -> &'static str;

    /// Congestion or wireless, for the loss of `q.seq`.
    fn classify(&mut self, q: &Query) -> Cause;

    /// Whether the detector, or the responder it may call, reads the RTT/ACK
    /// history (the sender skips keeping it when no part does). Only a
    /// detector that never says "wireless" can answer false.
    fn uses_history(&self) -> bool {
        true
    }

    /// Whether the simulator must fill `AckInfo::truth` (ground truth).
    fn wants_truth(&self) -> bool {
        false
    }

    /// Every new RTT sample, after the history has taken it (detectors with
    /// their own state, e.g. a spike state machine). Only called when
    /// [`Detector::wants_samples`] is true.
    fn on_sample(&mut self, _rtt: Time, _h: &History) {}

    fn wants_samples(&self) -> bool {
        false
    }

    /// A fast retransmit was made on this detector's verdict.
    fn on_decision(&mut self, _d: &Decision) {}

    /// The detector's own per-flow counters.
    fn counters(&self, _out: &mut Counters) {}
}

/// Builds a detector from its parameter table (the `name` key removed).
pub type BuildFn = fn(&serde_json::Value) -> Result<Box<dyn Detector>, ConfigError>;

/// Every detector, by the name `tcp.detector` uses.
pub static REGISTRY: &[Entry<BuildFn>] = &[
    none::ENTRY,
    eln::ENTRY,
    oracle::ENTRY,
    always_wireless::ENTRY,
    pr::ENTRY,
    ncpld::ENTRY,
    veno::ENTRY,
    spike::ENTRY,
    jtcp::ENTRY,
    relds::ENTRY,
    lda_eq::ENTRY,
];

/// A fraction parameter: finite and within `lo..=hi`, else an error naming
/// `field` and the value.
pub(crate) fn check_fraction(field: &str, v: f64, lo: f64, hi: f64) -> Result<f64, ConfigError> {
    if v.is_finite() && lo <= v && v <= hi {
        Ok(v)
    } else {
        Err(ConfigError::new(
            field,
            format!("must be a number in {lo}..={hi}, got {}", Shown(v)),
        ))
    }
}
