//! Accounting of the state a BS agent holds (the scalability argument of
//! papers 000 and 001): packets and bytes, per connection and in total,
//! current, peak and time-average.

use crate::engine::Time;
use crate::packet::FlowId;

use super::StateSummary;

/// Bytes of state per remembered sequence number (or hole): one 32-bit number.
pub const SEQ_BYTES: i64 = 4;

/// One quantity pair (packets, bytes) held over time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StateMeter {
    pub pkts: u64,
    pub bytes: u64,
    pub pkts_peak: u64,
    pub bytes_peak: u64,
    /// Integrals over time, in packet-ns and byte-ns.
    pkts_area: u128,
    bytes_area: u128,
    last: Time,
}

impl StateMeter {
    /// The holding changes to (`pkts`, `bytes`) at `now` (now >= last change).
    pub fn set(&mut self, now: Time, pkts: u64, bytes: u64) {
        let dt = u128::from(now.saturating_sub(self.last));
        self.pkts_area += dt * u128::from(self.pkts);
        self.bytes_area += dt * u128::from(self.bytes);
        self.last = now;
        self.pkts = pkts;
        self.bytes = bytes;
        self.pkts_peak = self.pkts_peak.max(pkts);
        self.bytes_peak = self.bytes_peak.max(bytes);
    }

    /// Peak and time-average over [0, end].
    pub fn summary(&self, end: Time) -> StateSummary {
        let dt = u128::from(end.saturating_sub(self.last));
        let pa = self.pkts_area + dt * u128::from(self.pkts);
        let ba = self.bytes_area + dt * u128::from(self.bytes);
        let mean = |a: u128| if end > 0 { a as f64 / end as f64 } else { 0.0 };
        StateSummary {
            pkts_peak: self.pkts_peak,
            pkts_mean: mean(pa),
            bytes_peak: self.bytes_peak,
            bytes_mean: mean(ba),
        }
    }
}

/// Per-flow meters plus the total, kept consistent by [`Meters::add`].
#[derive(Debug, Clone, Default)]
pub struct Meters {
    per_flow: Vec<Option<StateMeter>>,
    pub total: StateMeter,
}

impl Meters {
    /// Change flow `flow`'s holding by (`dpkts`, `dbytes`) at `now`.
    pub fn add(&mut self, now: Time, flow: FlowId, dpkts: i64, dbytes: i64) {
        let i = flow as usize;
        if self.per_flow.len() <= i {
            self.per_flow.resize(i + 1, None);
        }
        let m = self.per_flow[i].get_or_insert_with(StateMeter::default);
        let np = m.pkts.checked_add_signed(dpkts).expect("state below zero");
        let nb = m
            .bytes
            .checked_add_signed(dbytes)
            .expect("state below zero");
        m.set(now, np, nb);
        let tp = self
            .total
            .pkts
            .checked_add_signed(dpkts)
            .expect("state below zero");
        let tb = self
            .total
            .bytes
            .checked_add_signed(dbytes)
            .expect("state below zero");
        self.total.set(now, tp, tb);
    }

    /// Mark `flow` as seen (so it is reported even if it never held state).
    pub fn touch(&mut self, flow: FlowId) {
        let i = flow as usize;
        if self.per_flow.len() <= i {
            self.per_flow.resize(i + 1, None);
        }
        self.per_flow[i].get_or_insert_with(StateMeter::default);
    }

    /// Flows seen, with their meters.
    pub fn flows(&self) -> impl Iterator<Item = (FlowId, &StateMeter)> {
        self.per_flow
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.as_ref().map(|m| (i as FlowId, m)))
    }

    pub fn flow(&self, flow: FlowId) -> Option<&StateMeter> {
        self.per_flow.get(flow as usize).and_then(|m| m.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SEC;

    #[test]
    fn time_average_and_peak() {
        let mut m = Meters::default();
        // Flow 0 holds 2 packets (1000 B) from 1 s to 3 s; flow 1 holds 1 from 2 s to 4 s.
        m.add(SEC, 0, 2, 1000);
        m.add(2 * SEC, 1, 1, 500);
        m.add(3 * SEC, 0, -2, -1000);
        m.add(4 * SEC, 1, -1, -500);
        let s0 = m.flow(0).unwrap().summary(4 * SEC);
        assert_eq!(s0.pkts_peak, 2);
        assert!((s0.pkts_mean - 1.0).abs() < 1e-12); // 2 pkts * 2 s / 4 s
        let t = m.total.summary(4 * SEC);
        assert_eq!(t.pkts_peak, 3);
        assert!((t.pkts_mean - 1.5).abs() < 1e-12); // (4 + 2) / 4
        assert!((t.bytes_mean - 750.0).abs() < 1e-9);
        assert_eq!(m.flows().count(), 2);
    }
}
