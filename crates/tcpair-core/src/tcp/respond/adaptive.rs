//! `adaptive`: a responder that picks its window from what the sender
//! observes at the fast retransmit, the adaptive responding method Park et
//! al. 2010 (§5) leave as future work. docs/responders.md has the
//! reasoning and the evaluation.
//!
//! With W the cwnd before the fast retransmit, RTT_min the base RTT and
//! RTT_cur the latest sample, the flow's own backlog at the bottleneck is
//! N = W (RTT_cur - RTT_min) / RTT_cur (the Vegas and Veno estimate:
//! Brakmo and Peterson 1995; Fu and Liew 2003, §II):
//!
//! 1. no RTT sample yet, or N < `restore_backlog` (1 packet): the queue
//!    holds less than a packet of ours, so keeping the rate costs nothing:
//!    restore cwnd and ssthresh (responder 1);
//! 2. otherwise drain the queue this flow built: cwnd = W - `drain` N
//!    (with `drain` = 1, W RTT_min / RTT_cur: the current delivery rate
//!    times the base RTT, the pipe without a queue), never below TCP's own
//!    response nor one segment, and ssthresh = cwnd (congestion avoidance
//!    from there, as responders 21-27).
//!
//! A wireless verdict is never answered more harshly than TCP answers a
//! congestion one: with RTT_cur >= 2 RTT_min the drained window is at most
//! W / 2, where the floor (TCP's halving) takes over.

use super::{BuildFn, Responder, Response, ResponseQuery};
use crate::error::{from_value, ConfigError};
use crate::registry::Entry;
use crate::tcp::detect::check_fraction;
use crate::tcp::Window;
use serde::Deserialize;

pub const ENTRY: Entry<BuildFn> = Entry {
    name: "adaptive",
    summary: "restore the window when the own backlog W (RTT_cur - RTT_min) / RTT_cur is under \
              restore_backlog packets, else drain it (cwnd = ssthresh = W - drain x backlog, \
              at least TCP's response)",
    source: "ours; Park et al. 2010, §5 (future work), backlog as Fu and Liew 2003, §II",
    build,
};

fn one() -> f64 {
    1.0
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default = "one")]
    restore_backlog: f64,
    #[serde(default = "one")]
    drain: f64,
}

fn build(v: &serde_json::Value) -> Result<Box<dyn Responder>, ConfigError> {
    let p: Params = from_value(v)?;
    Ok(Box::new(Adaptive {
        restore_backlog: check_fraction("restore_backlog", p.restore_backlog, 0.0, 1e6)?,
        drain: check_fraction("drain", p.drain, 0.0, 1.0)?,
    }))
}

/// The adaptive responder (module doc).
#[derive(Debug, Clone, Copy)]
pub struct Adaptive {
    /// Backlog, packets, under which the window is restored.
    restore_backlog: f64,
    /// Share of the backlog taken off the window otherwise.
    drain: f64,
}

impl Adaptive {
    /// The flow's estimated backlog at the bottleneck, packets (None
    /// before the first RTT sample).
    fn backlog(q: &ResponseQuery) -> Option<f64> {
        let h = q.history;
        let (base, cur) = (h.min_rtt()?, h.last_rtt()?);
        if cur == 0 {
            return Some(0.0);
        }
        Some(q.before.cwnd * cur.saturating_sub(base) as f64 / cur as f64)
    }
}

impl Responder for Adaptive {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    fn respond(&mut self, q: &ResponseQuery) -> Response {
        match Self::backlog(q) {
            Some(n) if n >= self.restore_backlog => {
                let drained = q.before.cwnd - self.drain * n;
                let cwnd = drained.max(q.own.cwnd).min(q.before.cwnd).max(1.0);
                Response::Set(Window {
                    cwnd,
                    ssthresh: cwnd,
                })
            }
            _ => Response::Set(q.before),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::query;
    use super::*;
    use crate::engine::MS;
    use crate::tcp::History;
    use serde_json::json;

    /// A history whose RTT_min is `base` ms and latest sample `cur` ms.
    fn history(base: u64, cur: u64) -> History {
        let mut h = History::default();
        h.on_new_data(0, 1, 1, 10, Some(base * MS));
        h.on_new_data(MS, 2, 1, 10, Some(cur * MS));
        h
    }

    fn respond(params: serde_json::Value, h: &History) -> Window {
        let mut r = (ENTRY.build)(&params).unwrap();
        match r.respond(&query(h)) {
            Response::Set(w) => w,
            Response::Own => panic!("adaptive always sets a window"),
        }
    }

    fn restored(w: Window) -> bool {
        w.cwnd == 10.0 && w.ssthresh == 7.0
    }

    #[test]
    fn without_samples_or_without_a_queue_the_window_is_restored() {
        assert!(restored(respond(json!({}), &History::default())));
        // W = 10, RTT = base: N = 0.
        assert!(restored(respond(json!({}), &history(100, 100))));
        // N = 10 x 9 / 109 = 0.83 < 1.
        assert!(restored(respond(json!({}), &history(100, 109))));
    }

    #[test]
    fn at_the_restore_edge_the_backlog_is_drained() {
        // RTT 125 ms over 100: N = 10 x 25 / 125 = 2 exactly.
        let w = respond(json!({"restore_backlog": 2}), &history(100, 125));
        assert_eq!((w.cwnd, w.ssthresh), (8.0, 8.0));
        assert!(restored(respond(
            json!({"restore_backlog": 2.01}),
            &history(100, 125)
        )));
        // With restore_backlog 0 even an empty queue is "drained" (nothing to take off).
        let w = respond(json!({"restore_backlog": 0}), &history(100, 100));
        assert_eq!((w.cwnd, w.ssthresh), (10.0, 10.0));
    }

    #[test]
    fn a_queue_is_drained_to_the_pipe() {
        // RTT 125 ms over 100: N = 2, cwnd = 8 = 10 x 100 / 125.
        let w = respond(json!({}), &history(100, 125));
        assert_eq!((w.cwnd, w.ssthresh), (8.0, 8.0));
        // drain 1/2 takes off one of the two packets.
        let w = respond(json!({"drain": 0.5}), &history(100, 125));
        assert_eq!((w.cwnd, w.ssthresh), (9.0, 9.0));
        // drain 0 keeps the window but enters congestion avoidance.
        let w = respond(json!({"drain": 0}), &history(100, 125));
        assert_eq!((w.cwnd, w.ssthresh), (10.0, 10.0));
    }

    #[test]
    fn never_below_tcps_own_response() {
        // RTT 400 ms over 100: N = 7.5, W - N = 2.5 < TCP's 5.
        let w = respond(json!({}), &history(100, 400));
        assert_eq!((w.cwnd, w.ssthresh), (5.0, 5.0));
        // RTT twice the base: W / 2 = 5, the floor exactly.
        let w = respond(json!({}), &history(100, 200));
        assert_eq!((w.cwnd, w.ssthresh), (5.0, 5.0));
    }

    #[test]
    fn parameters_are_checked() {
        for (params, field) in [
            (json!({"drain": 1.5}), "drain"),
            (json!({"drain": -0.1}), "drain"),
            (json!({"restore_backlog": -1}), "restore_backlog"),
            (json!({"restore_backlog": "x"}), "restore_backlog"),
            (json!({"backlog": 1}), "backlog"),
        ] {
            let e = (ENTRY.build)(&params).unwrap_err().to_string();
            assert!(e.contains(field), "{params}: {e}");
        }
    }
}
