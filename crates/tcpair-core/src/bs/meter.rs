//! Accounting of the state a BS agent holds (the scalability argument of
//! papers 000 and 001): packets and bytes, per connection and in total,
//! current, peak and time-average.
//!
//! A peak is taken over *settled* values: the holding at an instant after
//! every change made at that instant. Two changes at the same nanosecond (a
//! packet cached by one connection, another's cache cleaned) thus count as
//! one step, whatever order the events of that instant ran in, so the total
//! does not depend on how the connections' events are interleaved. That is
//! what lets the simulator run independent parts of a network one after
//! another (`sim::parts`): each connection's changes come in its own time
//! order, and the total's changes, made in part order, are logged and
//! applied in time order at the end of each window ([`Meters::defer`],
//! [`Meters::settle`]).

use crate::engine::Time;
use crate::packet::FlowId;

use super::meter_log::Log;
use super::StateSummary;

/// Bytes of state per remembered sequence number (or hole): one 32-bit number.
pub const SEQ_BYTES: i64 = 4;

/// A holding (packets, bytes) and its settled peaks: the total over an
/// agent's connections, and the part of each connection's [`StateMeter`]
/// its time-average is not.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Holding {
    pub pkts: u64,
    pub bytes: u64,
    /// Peaks over the instants before `last` (settled values).
    pkts_peak: u64,
    bytes_peak: u64,
    /// The instant of the latest change.
    last: Time,
}

impl Holding {
    /// Apply a change of (`dpkts`, `dbytes`) at `now` (now >= last change).
    #[inline]
    fn add(&mut self, now: Time, dpkts: i64, dbytes: i64) {
        if now > self.last {
            // The holding at `last` is settled: no change at that instant is left.
            self.pkts_peak = self.pkts_peak.max(self.pkts);
            self.bytes_peak = self.bytes_peak.max(self.bytes);
            self.last = now;
        }
        self.pkts = (self.pkts)
            .checked_add_signed(dpkts)
            .expect("state below zero");
        self.bytes = (self.bytes)
            .checked_add_signed(dbytes)
            .expect("state below zero");
    }

    /// The peak packets held, the current holding counted as settled.
    pub fn pkts_peak(&self) -> u64 {
        self.pkts_peak.max(self.pkts)
    }

    /// The peak bytes held, the current holding counted as settled.
    pub fn bytes_peak(&self) -> u64 {
        self.bytes_peak.max(self.bytes)
    }
}

/// A [`Holding`] while a window's logged changes are applied in time
/// order, one by one: signed, since the changes of one instant come in no
/// particular order (`bs::meter_log`) and a part of them taken alone may
/// take it below zero. Only the holding after all of an instant's changes
/// is settled, so only that one must not be negative, and only it counts
/// toward the peaks ([`Holding::add`] with each instant's sum does the same).
struct Running {
    pkts: i64,
    bytes: i64,
    pkts_peak: i64,
    bytes_peak: i64,
    last: Time,
    /// The OR of the settled holdings: negative if one was.
    settled_or: i64,
}

impl Running {
    fn from(h: &Holding) -> Self {
        let signed = |v: u64| i64::try_from(v).expect("a holding within 63 bits");
        Running {
            pkts: signed(h.pkts),
            bytes: signed(h.bytes),
            pkts_peak: signed(h.pkts_peak),
            bytes_peak: signed(h.bytes_peak),
            last: h.last,
            settled_or: 0,
        }
    }

    /// Apply a change at `now` (now >= the last change's instant).
    #[inline]
    fn add(&mut self, now: Time, dpkts: i64, dbytes: i64) {
        if now > self.last {
            // The holding at `last` is settled: no change at that instant is left.
            self.pkts_peak = self.pkts_peak.max(self.pkts);
            self.bytes_peak = self.bytes_peak.max(self.bytes);
            self.settled_or |= self.pkts | self.bytes;
            self.last = now;
        }
        self.pkts += dpkts;
        self.bytes += dbytes;
    }

    /// The holding once every change is applied (the last instant's settled).
    fn settled(self) -> Holding {
        assert!(
            (self.settled_or | self.pkts | self.bytes) >= 0,
            "state below zero"
        );
        Holding {
            pkts: self.pkts as u64,
            bytes: self.bytes as u64,
            pkts_peak: self.pkts_peak as u64,
            bytes_peak: self.bytes_peak as u64,
            last: self.last,
        }
    }
}

/// One connection's holding over time: its peaks and its time-average.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StateMeter {
    pub held: Holding,
    /// Integrals over time, in packet-ns and byte-ns.
    pkts_area: u128,
    bytes_area: u128,
}

impl StateMeter {
    /// Apply a change of (`dpkts`, `dbytes`) at `now` (now >= last change).
    fn add(&mut self, now: Time, dpkts: i64, dbytes: i64) {
        let h = &self.held;
        if now > h.last {
            let dt = u128::from(now - h.last);
            self.pkts_area += dt * u128::from(h.pkts);
            self.bytes_area += dt * u128::from(h.bytes);
        }
        self.held.add(now, dpkts, dbytes);
    }

    /// Peak and time-average over [0, end].
    pub fn summary(&self, end: Time) -> StateSummary {
        let (pa, ba) = self.areas(end);
        StateSummary {
            pkts_peak: self.held.pkts_peak(),
            pkts_mean: mean(pa, end),
            bytes_peak: self.held.bytes_peak(),
            bytes_mean: mean(ba, end),
        }
    }

    /// The integrals over [0, end] of the packets and bytes held, in
    /// packet-ns and byte-ns.
    fn areas(&self, end: Time) -> (u128, u128) {
        let h = &self.held;
        let dt = u128::from(end.saturating_sub(h.last));
        (
            self.pkts_area + dt * u128::from(h.pkts),
            self.bytes_area + dt * u128::from(h.bytes),
        )
    }
}

/// The time-average of a holding whose integral over [0, end] is `area`.
fn mean(area: u128, end: Time) -> f64 {
    if end > 0 {
        area as f64 / end as f64
    } else {
        0.0
    }
}

/// Per-flow meters plus the total, kept consistent by [`Meters::add`].
#[derive(Debug, Clone, Default)]
pub struct Meters {
    per_flow: Vec<Option<StateMeter>>,
    /// The total: its time-average needs no integral of its own, the
    /// integral of a sum being the sum of the connections' integrals,
    /// exactly, in integer packet-ns and byte-ns ([`Meters::total_summary`]);
    /// so a change of the total only moves its peaks.
    total: Holding,
    /// While deferred: the total's changes in the order they were made, to
    /// be applied in time order ([`Meters::settle`]).
    log: Option<Box<Log>>,
}

impl Meters {
    /// Change flow `flow`'s holding by (`dpkts`, `dbytes`) at `now`.
    pub fn add(&mut self, now: Time, flow: FlowId, dpkts: i64, dbytes: i64) {
        match self.per_flow.get_mut(flow as usize) {
            Some(Some(m)) => m.add(now, dpkts, dbytes),
            _ => self.meter(flow).add(now, dpkts, dbytes),
        }
        match &mut self.log {
            None => self.total.add(now, dpkts, dbytes),
            Some(log) => log.push(now, dpkts, dbytes),
        }
    }

    fn meter(&mut self, flow: FlowId) -> &mut StateMeter {
        let i = flow as usize;
        if self.per_flow.len() <= i {
            self.per_flow.resize(i + 1, None);
        }
        self.per_flow[i].get_or_insert_with(StateMeter::default)
    }

    /// Mark `flow` as seen (so it is reported even if it never held state).
    pub fn touch(&mut self, flow: FlowId) {
        self.meter(flow);
    }

    /// From now on log the total's changes instead of applying them: the
    /// connections' events will not come in one time order (the simulator
    /// runs independent parts of the network in turn, each through a window
    /// of time). [`Meters::settle`] applies them.
    /// The changes logged come no earlier than `from` and less than 4 s
    /// after it (the sim settles at least that often).
    pub fn defer(&mut self, from: Time) {
        self.log.get_or_insert_with(Default::default).start(from);
    }

    /// Apply the logged changes of the total in time order (those of one
    /// instant in any order: only the settled value counts, [`Running`]);
    /// later changes come at `until` or after (and less than 4 s after it).
    pub fn settle(&mut self, until: Time) {
        let Some(log) = self.log.as_deref_mut() else {
            return;
        };
        let mut total = Running::from(&self.total);
        log.drain_in_time_order(until, |at, p, b| total.add(at, p, b));
        self.total = total.settled();
    }

    /// Stop deferring the total and give back the log's memory; its changes
    /// must all have been settled ([`Meters::settle`] up to the run's end).
    pub fn release_log(&mut self) {
        self.log = None;
    }

    /// The total over all flows (with deferred changes: as of the last
    /// [`Meters::settle`]).
    pub fn total(&self) -> &Holding {
        &self.total
    }

    /// The total's peak and time-average over [0, end] (every change
    /// settled): the peaks its own, the time-average that of the sum of
    /// the connections' integrals.
    pub fn total_summary(&self, end: Time) -> StateSummary {
        let (mut pa, mut ba) = (0u128, 0u128);
        for m in self.per_flow.iter().flatten() {
            let (p, b) = m.areas(end);
            pa += p;
            ba += b;
        }
        StateSummary {
            pkts_peak: self.total.pkts_peak(),
            pkts_mean: mean(pa, end),
            bytes_peak: self.total.bytes_peak(),
            bytes_mean: mean(ba, end),
        }
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
        let t = m.total_summary(4 * SEC);
        assert_eq!(t.pkts_peak, 3);
        assert!((t.pkts_mean - 1.5).abs() < 1e-12); // (4 + 2) / 4
        assert!((t.bytes_mean - 750.0).abs() < 1e-9);
        assert_eq!(m.flows().count(), 2);
    }

    #[test]
    fn changes_at_one_instant_make_one_step() {
        let mut m = Meters::default();
        m.add(SEC, 0, 1, 100);
        // At 2 s flow 1 caches a packet and flow 0's is cleaned: in this
        // order the total touches 2 for no time at all; settled, it stays 1.
        m.add(2 * SEC, 1, 1, 100);
        m.add(2 * SEC, 0, -1, -100);
        m.add(3 * SEC, 1, -1, -100);
        assert_eq!(m.total_summary(4 * SEC).pkts_peak, 1);
        assert_eq!(m.flow(1).unwrap().summary(4 * SEC).pkts_peak, 1);
    }

    /// A running total from a holding of one packet of 100 bytes.
    fn running_from_one_packet() -> Running {
        Running::from(&Holding {
            pkts: 1,
            bytes: 100,
            ..Holding::default()
        })
    }

    /// Applied one by one, an instant's changes may take the running total
    /// below zero on their way: only the holding they leave is settled.
    #[test]
    fn an_instant_may_pass_below_zero_on_its_way() {
        let mut r = running_from_one_packet();
        r.add(5, -2, -200);
        r.add(5, 1, 100);
        r.add(7, 2, 300);
        let h = r.settled();
        assert_eq!((h.pkts, h.bytes), (2, 300));
        assert_eq!((h.pkts_peak(), h.bytes_peak()), (2, 300));
    }

    /// A settled holding below zero is a bug of the agent that logged it.
    #[test]
    #[should_panic(expected = "state below zero")]
    fn a_settled_holding_below_zero_stops_the_run() {
        let mut r = running_from_one_packet();
        r.add(5, -2, -200);
        r.add(7, 1, 100);
        r.settled();
    }

    proptest::proptest! {
        /// Deferred and settled in windows, in any order of the flows within a
        /// window, the total is the same as applied in time order.
        #[test]
        fn deferred_total_is_the_in_order_total(
            steps in proptest::collection::vec((0u32..4, 0u64..2_000, 1i64..200), 1..200),
            windows in 1u64..5,
        ) {
            // Each flow's holding goes up and down in its own time order.
            let mut per_flow: Vec<Vec<(Time, i64)>> = vec![Vec::new(); 4];
            let mut held = [0i64; 4];
            let mut t = [0u64; 4];
            for (f, dt, n) in steps {
                let f = f as usize;
                t[f] += dt;
                let d = if held[f] >= n && dt % 2 == 0 { -n } else { n };
                held[f] += d;
                per_flow[f].push((t[f], d));
            }
            let mut all: Vec<(Time, usize, i64)> = per_flow.iter().enumerate()
                .flat_map(|(f, v)| v.iter().map(move |&(t, d)| (t, f, d))).collect();
            all.sort_by_key(|&(t, _, _)| t);
            let mut in_order = Meters::default();
            for &(t, f, d) in &all {
                in_order.add(t, f as FlowId, d, 100_000 * d);
            }
            // The same changes, flow after flow within each window of time.
            let end = all.last().map_or(1, |a| a.0 + 1);
            let width = end / windows + 1;
            let mut deferred = Meters::default();
            deferred.defer(0);
            for w in 0..windows + 1 {
                let (lo, hi) = (w * width, (w + 1) * width);
                for (f, v) in per_flow.iter().enumerate() {
                    for &(t, d) in v.iter().filter(|c| (lo..hi).contains(&c.0)) {
                        // Large changes too (logged in pieces).
                        deferred.add(t, f as FlowId, d, 100_000 * d);
                    }
                }
                deferred.settle(hi);
            }
            proptest::prop_assert_eq!(in_order.total_summary(end), deferred.total_summary(end));
            for f in 0..4 {
                proptest::prop_assert_eq!(
                    in_order.flow(f).map(|m| m.summary(end)),
                    deferred.flow(f).map(|m| m.summary(end))
                );
            }
        }

    }
}
