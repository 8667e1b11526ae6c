//! `oracle`: the simulator's ground truth. Congestion only when the
//! segment's latest drop was a congestion loss: a queue overflow anywhere,
//! or a corruption on a wired link (the papers' wireline losses). A drop on
//! a wireless link (corruption, outage) is wireless, and so is a segment
//! that was not lost at all (a spurious fast retransmit after reordering, a
//! lost ACK or a retransmission still in flight): Park et al. 2010 divide
//! fast retransmits into those related to congestion and those not, and
//! the ideal response to the latter keeps the window. Not realisable by a
//! real sender: the bound that other detectors are measured against.

use super::{BuildFn, Cause, Detector, Query};
use crate::registry::{no_params, Entry};

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "oracle",
    summary: "the simulator's ground truth: congestion iff the segment was lost to a queue or on a wired link",
    source: "our addition: the bound for loss-differentiation algorithms",
    build: |v| {
        no_params(v)?;
        Ok(Box::new(Oracle))
    },
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Oracle;

impl Detector for Oracle {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn classify(&mut self, q: &Query) -> Cause {
        q.ack.truth.unwrap_or(Cause::Wireless)
    }
    fn wants_truth(&self) -> bool {
        true
    }
}
