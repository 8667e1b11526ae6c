//! Responders: what the sender does with cwnd and ssthresh when the
//! detector says a loss was wireless. Park et al. 2010 (Table 1) define
//! fifteen: 0 (TCP's own response), 1 (restore the state before the fast
//! retransmit), 11-17 (slow start with a large ssthresh) and 21-27
//! (congestion avoidance with cwnd = ssthresh), each with seven choices of
//! cwnd. docs/tcp.md has the table with every interpretation.
//!
//! A responder gives the window fast recovery ends with; the recovery
//! mechanics around it (inflation by duplicate ACKs, the retransmission)
//! are the sender's. A new responder is one file implementing [`Responder`]
//! plus one line in [`REGISTRY`]. `adaptive` is ours: it chooses between
//! restoring and draining the queue from the RTT inflation at the loss.

use super::{History, Window};
use crate::error::ConfigError;
use crate::registry::{boxed_clone, Entry};

pub mod adaptive;
pub mod own;
pub mod restore;
pub mod table1;

/// What a responder sees.
#[derive(Debug, Clone, Copy)]
pub struct ResponseQuery<'a> {
    /// cwnd and ssthresh just before the fast retransmit.
    pub before: Window,
    /// TCP's own response (the recovery mechanics and the congestion op):
    /// the ssthresh and the cwnd its fast recovery would end with.
    pub own: Window,
    pub history: &'a History,
    /// The sender's window limit in packets (ns-2 `window_`: the sender buffer).
    pub window_limit: u32,
    /// Bytes per data packet (to express "65535 bytes" in packets).
    pub packet_size: u32,
}

/// A responder's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Response {
    /// Do what TCP does: its own response with its own mechanics, as if the
    /// detector had said congestion (method 0).
    Own,
    /// End fast recovery with this window.
    Set(Window),
}

boxed_clone!(Responder, ResponderClone);

pub trait Responder: std::fmt::Debug + Send + ResponderClone {
    /// The registry name.
    fn name(&self) -> &'static str;

    fn respond(&mut self, q: &ResponseQuery) -> Response;
}

/// Builds a responder from its parameter table (the `name` key removed).
pub type BuildFn = fn(&serde_json::Value) -> Result<Box<dyn Responder>, ConfigError>;

/// Every responder, by the name `tcp.responder` uses (Park et al. 2010's numbers).
pub static REGISTRY: &[Entry<BuildFn>] = &[
    own::ENTRY,
    restore::ENTRY,
    table1::M11,
    table1::M12,
    table1::M13,
    table1::M14,
    table1::M15,
    table1::M16,
    table1::M17,
    table1::M21,
    table1::M22,
    table1::M23,
    table1::M24,
    table1::M25,
    table1::M26,
    table1::M27,
    adaptive::ENTRY,
];

/// The responder used unless a flow names one: 1, restore (what every
/// loss-differentiation algorithm assumes, Park et al. 2010 §4.1, and what
/// an ELN-aware sender does).
pub fn default_responder() -> Box<dyn Responder> {
    Box::new(restore::Restore)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::MS;

    /// cwnd 10 and ssthresh 7 before the loss, TCP's own response (5, 5), a
    /// window limit of 48, 1000-byte packets.
    pub(crate) fn query(h: &History) -> ResponseQuery<'_> {
        ResponseQuery {
            before: Window {
                cwnd: 10.0,
                ssthresh: 7.0,
            },
            own: Window {
                cwnd: 5.0,
                ssthresh: 5.0,
            },
            history: h,
            window_limit: 48,
            packet_size: 1000,
        }
    }

    /// A fixed history: usable windows 4, 8, 12 (mean 8, max 12); one
    /// round of 10 segments in 100 ms (100 segments/s) with RTT_min 40 ms:
    /// a bandwidth-delay product of 4 packets.
    fn history() -> History {
        let mut h = History::default();
        for w in [4.0, 8.0, 12.0] {
            h.on_window(w);
        }
        h.on_new_data(0, 1, 1, 10, Some(50 * MS));
        h.on_new_data(10 * MS, 5, 4, 10, Some(40 * MS));
        h.on_new_data(100 * MS, 11, 6, 20, Some(45 * MS));
        h
    }

    /// Every registered responder's (cwnd, ssthresh) on the fixed history,
    /// with cwnd 10 and ssthresh 7 before the loss, TCP's own response
    /// (5, 5), a window limit of 48 and 1000-byte packets (65535 bytes =
    /// 65.535 packets); None = TCP's own response and mechanics.
    #[test]
    fn each_responder_gives_the_documented_window() {
        let h = history();
        let ss = 65.535;
        let expect: [(&str, Option<(f64, f64)>); 17] = [
            ("0", None),
            ("1", Some((10.0, 7.0))),
            ("11", Some((1.0, ss))),
            ("12", Some((5.0, ss))),
            ("13", Some((10.0, ss))),
            ("14", Some((8.0, ss))),
            ("15", Some((12.0, ss))),
            ("16", Some((48.0, ss))),
            ("17", Some((4.0, ss))),
            ("21", Some((1.0, 1.0))),
            ("22", Some((5.0, 5.0))),
            ("23", Some((10.0, 10.0))),
            ("24", Some((8.0, 8.0))),
            ("25", Some((12.0, 12.0))),
            ("26", Some((48.0, 48.0))),
            ("27", Some((4.0, 4.0))),
            // Backlog 10 x (45 - 40) / 45 = 1.1 packets: drained to 10 x 40 / 45.
            ("adaptive", Some((400.0 / 45.0, 400.0 / 45.0))),
        ];
        let names: Vec<&str> = REGISTRY.iter().map(|e| e.name).collect();
        assert_eq!(names, expect.map(|(n, _)| n), "registry order");
        let q = query(&h);
        for (entry, (name, want)) in REGISTRY.iter().zip(expect) {
            let mut r = (entry.build)(&serde_json::json!({})).unwrap();
            assert_eq!(r.name(), name);
            match (r.respond(&q), want) {
                (Response::Own, None) => {}
                (Response::Set(w), Some((cwnd, ssthresh))) => {
                    assert!((w.cwnd - cwnd).abs() < 1e-9, "{name}: cwnd {}", w.cwnd);
                    assert!(
                        (w.ssthresh - ssthresh).abs() < 1e-9,
                        "{name}: ssthresh {}",
                        w.ssthresh
                    );
                }
                (got, _) => panic!("{name}: {got:?}"),
            }
        }
    }

    #[test]
    fn parameters_are_rejected_by_name() {
        let e = (REGISTRY[2].build)(&serde_json::json!({"cwnd": 3})).unwrap_err();
        assert!(e.to_string().contains("cwnd"), "{e}");
    }
}
