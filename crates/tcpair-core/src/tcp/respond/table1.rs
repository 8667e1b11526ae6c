//! Responders 11-17 and 21-27 (Park et al. 2010, Table 1 and §4.1): the
//! fourteen methods that set a new window instead of TCP's cut.
//!
//! - 11-17, the slow start part: ssthresh = 65535 and cwnd = one of seven
//!   choices, so TCP slow-starts up to ssthresh.
//! - 21-27, the congestion avoidance part: cwnd = ssthresh = the same seven
//!   choices (21: both one segment, as §4.1 says).
//!
//! The seven choices, in order (our readings, docs/tcp.md):
//! 1. one segment;
//! 2. TCP's response: the cwnd TCP's own fast recovery would end with;
//! 3. the previous cwnd, just before the fast retransmit;
//! 4. the average cwnd: the mean usable window `min(cwnd, window)` over
//!    every ACK of new data outside fast recovery so far (the history);
//! 5. the maximum cwnd: the largest such usable window;
//! 6. the sender's buffer: the window limit (`window`, ns-2's `window_`);
//! 7. the bandwidth-delay product: the largest delivery rate over a round
//!    trip times the smallest RTT (the history).
//!
//! "65535" is bytes (the largest window without scaling), so ssthresh is
//! 65535 / packet_size packets. Choices 4, 5 and 7 take the previous cwnd
//! until the history has a value; every choice is at least one segment.

use super::{BuildFn, Responder, Response, ResponseQuery};
use crate::registry::{no_params, Entry};
use crate::tcp::Window;

/// Largest TCP window without window scaling, bytes (RFC 7323 §2.1).
pub const SS_THRESH_BYTES: f64 = 65535.0;

/// A Table 1 method: its number, 11..=17 or 21..=27.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table1 {
    method: u8,
}

impl Table1 {
    /// Method `method` (11..=17 or 21..=27).
    pub fn new(method: u8) -> Option<Self> {
        matches!(method, 11..=17 | 21..=27).then_some(Self { method })
    }

    /// The seven cwnd choices, in Table 1's order.
    fn cwnd(self, q: &ResponseQuery) -> f64 {
        let prev = q.before.cwnd;
        let h = q.history;
        let v = match self.method % 10 {
            1 => 1.0,
            2 => q.own.cwnd,
            3 => prev,
            4 => h.mean_window().unwrap_or(prev),
            5 => h.max_window().unwrap_or(prev),
            6 => f64::from(q.window_limit),
            _ => match h.bdp() {
                b if b > 0.0 => b,
                _ => prev,
            },
        };
        v.max(1.0)
    }
}

impl Responder for Table1 {
    fn name(&self) -> &'static str {
        let part = usize::from(self.method / 10 - 1);
        NAMES[part * 7 + usize::from(self.method % 10 - 1)]
    }

    fn respond(&mut self, q: &ResponseQuery) -> Response {
        let cwnd = self.cwnd(q);
        let ssthresh = if self.method < 20 {
            SS_THRESH_BYTES / f64::from(q.packet_size)
        } else {
            cwnd
        };
        Response::Set(Window { cwnd, ssthresh })
    }
}

/// Names in registry order: 11..=17, then 21..=27.
const NAMES: [&str; 14] = [
    "11", "12", "13", "14", "15", "16", "17", "21", "22", "23", "24", "25", "26", "27",
];

fn build<const M: u8>(
    v: &serde_json::Value,
) -> Result<Box<dyn Responder>, crate::error::ConfigError> {
    no_params(v)?;
    Ok(Box::new(Table1::new(M).expect("a Table 1 method")))
}

macro_rules! method {
    ($id:ident, $m:literal, $summary:literal) => {
        pub const $id: Entry<BuildFn> = Entry {
            name: stringify!($m),
            summary: $summary,
            source: "Park et al. 2010, Table 1",
            build: build::<$m>,
        };
    };
}

method!(
    M11,
    11,
    "slow start: ssthresh 65535 bytes, cwnd one segment"
);
method!(
    M12,
    12,
    "slow start: ssthresh 65535 bytes, cwnd TCP's response"
);
method!(
    M13,
    13,
    "slow start: ssthresh 65535 bytes, cwnd as before the loss"
);
method!(
    M14,
    14,
    "slow start: ssthresh 65535 bytes, cwnd the average cwnd"
);
method!(
    M15,
    15,
    "slow start: ssthresh 65535 bytes, cwnd the maximum cwnd"
);
method!(
    M16,
    16,
    "slow start: ssthresh 65535 bytes, cwnd the sender buffer (window limit)"
);
method!(
    M17,
    17,
    "slow start: ssthresh 65535 bytes, cwnd the bandwidth-delay product"
);
method!(
    M21,
    21,
    "congestion avoidance: cwnd = ssthresh = one segment"
);
method!(
    M22,
    22,
    "congestion avoidance: cwnd = ssthresh = TCP's response"
);
method!(
    M23,
    23,
    "congestion avoidance: cwnd = ssthresh = cwnd before the loss"
);
method!(
    M24,
    24,
    "congestion avoidance: cwnd = ssthresh = the average cwnd"
);
method!(
    M25,
    25,
    "congestion avoidance: cwnd = ssthresh = the maximum cwnd"
);
method!(
    M26,
    26,
    "congestion avoidance: cwnd = ssthresh = the sender buffer (window limit)"
);
method!(
    M27,
    27,
    "congestion avoidance: cwnd = ssthresh = the bandwidth-delay product"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::History;

    #[test]
    fn without_history_the_previous_cwnd_stands_in() {
        let h = History::default();
        let q = super::super::tests::query(&h);
        for m in [14, 15, 17, 24, 25, 27] {
            let Response::Set(w) = Table1::new(m).unwrap().respond(&q) else {
                panic!("Table 1 methods set a window");
            };
            assert_eq!(w.cwnd, 10.0, "method {m}");
        }
    }

    #[test]
    fn names_match_the_registry() {
        for m in (11..=17).chain(21..=27) {
            assert_eq!(Table1::new(m).unwrap().name(), m.to_string());
        }
        assert!(Table1::new(18).is_none() && Table1::new(20).is_none());
    }
}
