//! Hand-built histories and queries for the detectors' unit tests.

use super::{BuildFn, Cause, Detector, Query};
use crate::engine::{Time, MS};
use crate::registry::Entry;
use crate::tcp::{AckInfo, History, Window};

/// A history fed the RTT samples `ms` (milliseconds), one ACK of new data
/// each; every ACK ends a round, so the last round's minimum is the latest
/// sample from the second on.
pub(crate) fn history(ms: &[u64]) -> History {
    let mut h = History::default();
    for (i, &r) in ms.iter().enumerate() {
        let i = i as u32;
        h.on_new_data(Time::from(i) * MS, i + 1, 1, i + 2, Some(r * MS));
    }
    h
}

/// The detector `entry` builds from `params`.
pub(crate) fn build(entry: &Entry<BuildFn>, params: serde_json::Value) -> Box<dyn Detector> {
    (entry.build)(&params).unwrap_or_else(|e| panic!("{}: {e}", entry.name))
}

/// The error `entry` gives for `params`, as a string.
pub(crate) fn error(entry: &Entry<BuildFn>, params: serde_json::Value) -> String {
    match (entry.build)(&params) {
        Ok(_) => panic!("{} accepted {params}", entry.name),
        Err(e) => e.to_string(),
    }
}

/// The verdict at a trigger at `now` with cwnd `cwnd` and `flight`
/// segments outstanding.
pub(crate) fn classify(
    d: &mut dyn Detector,
    h: &History,
    now: Time,
    cwnd: f64,
    flight: u32,
) -> Cause {
    let ack = AckInfo::default();
    d.classify(&Query {
        now,
        seq: 0,
        ack: &ack,
        history: h,
        window: Window {
            cwnd,
            ssthresh: 64.0,
        },
        flight,
    })
}

/// The verdict at a trigger with a window of 10 packets, 10 outstanding.
pub(crate) fn verdict(d: &mut dyn Detector, h: &History) -> Cause {
    classify(d, h, 0, 10.0, 10)
}
