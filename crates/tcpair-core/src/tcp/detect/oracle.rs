//! `oracle`: the simulator's ground truth. A loss is wireless when the
//! segment's latest drop happened on a wireless link by corruption or an
//! outage; a queue overflow anywhere, a corruption on a wired link, and a
//! segment that was not lost at all (reordering, a lost ACK) count as
//! congestion, TCP's default reading. Not realisable by a real sender: the
//! upper bound that other detectors are measured against.

use super::{no_params, BuildFn, Cause, Detector, Query};
use crate::registry::Entry;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "oracle",
    summary: "the simulator's ground truth: wireless iff the segment was lost on a wireless link (not to a queue)",
    source: "our addition (SPEC, LDAs)",
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
        q.ack.truth.unwrap_or(Cause::Congestion)
    }
    fn wants_truth(&self) -> bool {
        true
    }
}
