//! CLRP's hole detector (Sun et al. 2005 §II.A, §II.B): which numbers of one
//! connection have arrived, and which missing ones have persisted long
//! enough to be declared wireless losses. Used by CLRP-BS on the MH -> FH
//! path ([`super::bs`]) and by the TCP-MH receiver on FH -> MH (`tcp::sink`).

use std::collections::VecDeque;

use crate::engine::Time;
use crate::packet::{LossBlocks, SeqWindow};

/// At most this many consecutive numbers are remembered per connection
/// (the oldest are forgotten beyond it).
pub const MAX_SPAN: usize = 1 << 16;

/// The per-flow counters of TCP-MH as a receiver.
pub const RECEIVER_COUNTERS: &[&str] = &["clrp_holes"];

/// Counters of a [`HoleTracker`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HoleStats {
    /// Holes declared wireless losses after `hole_threshold` further packets.
    pub by_threshold: u64,
    /// Holes declared on demand ([`HoleTracker::declare`], the BS's DUPACK rule).
    pub on_demand: u64,
    /// Holes filled before being declared (reordering, or a quick retransmission).
    pub filled_pending: u64,
    /// Declared holes later filled (their retransmission arrived).
    pub filled_declared: u64,
}

/// Which numbers of one connection have arrived, from a cumulative point
/// upward, and which missing ones are wireless losses.
#[derive(Debug, Clone)]
pub struct HoleTracker {
    threshold: u32,
    /// The stamp of each number that arrived (the caller's choice, e.g. its
    /// send time); numbers below the base are forgotten (acknowledged end
    /// to end), and the end is one past the highest number seen.
    seen: SeqWindow<Time>,
    /// Packets that have arrived so far.
    arrivals: u64,
    /// Holes not yet declared, in number (= reveal) order, with the value
    /// of `arrivals` when the packet that revealed them arrived.
    pending: VecDeque<(u32, u64)>,
    /// Declared holes still missing, oldest declaration first.
    declared: VecDeque<u32>,
    stats: HoleStats,
}

impl HoleTracker {
    pub fn new(hole_threshold: u32) -> Self {
        Self {
            threshold: hole_threshold,
            seen: SeqWindow::default(),
            arrivals: 0,
            pending: VecDeque::new(),
            declared: VecDeque::new(),
            stats: HoleStats::default(),
        }
    }

    pub fn stats(&self) -> &HoleStats {
        &self.stats
    }

    /// The per-flow counters of TCP-MH as a receiver ([`RECEIVER_COUNTERS`]):
    /// the holes it declared and reported.
    pub fn receiver_counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.push((RECEIVER_COUNTERS[0], self.stats.by_threshold));
    }

    /// Numbers remembered (seen or missing): the state held.
    pub fn span(&self) -> usize {
        self.seen.len()
    }

    /// The stamp `seq` arrived with (None if it did not, or is forgotten).
    pub fn stamp(&self, seq: u32) -> Option<Time> {
        self.seen.get(seq)
    }

    /// `seq` arrived (and is not forgotten).
    pub fn is_seen(&self, seq: u32) -> bool {
        self.seen.contains(seq)
    }

    /// `seq` never arrived although a higher number did.
    pub fn is_hole(&self, seq: u32) -> bool {
        self.seen.is_hole(seq)
    }

    /// A packet numbered `seq` arrived; `stamp` is remembered with it
    /// (the BS keeps the packet's send time, see [`super::bs`]).
    pub fn on_arrival(&mut self, seq: u32, stamp: Time) {
        let stamp = stamp.min(Time::MAX - 1);
        self.arrivals += 1;
        if seq >= self.seen.end() {
            if seq - self.seen.base() >= MAX_SPAN as u32 {
                self.advance(seq + 1 - MAX_SPAN as u32);
            }
            // Every number between the highest seen and this one is a new hole,
            // revealed by this arrival.
            for h in self.seen.end()..seq {
                self.pending.push_back((h, self.arrivals));
            }
            self.seen.mark(seq, stamp);
        } else if self.seen.is_hole(seq) {
            self.seen.mark(seq, stamp);
            if let Ok(k) = self.pending.binary_search_by_key(&seq, |&(s, _)| s) {
                self.pending.remove(k);
                self.stats.filled_pending += 1;
            } else if let Some(k) = self.declared.iter().position(|&s| s == seq) {
                self.declared.remove(k);
                self.stats.filled_declared += 1;
            }
        }
        // Holes revealed at least `threshold` arrivals ago persist: declare them.
        while let Some(&(h, at)) = self.pending.front() {
            if self.arrivals - at < u64::from(self.threshold) {
                break;
            }
            self.pending.pop_front();
            self.declared.push_back(h);
            self.stats.by_threshold += 1;
        }
    }

    /// Declare the hole `seq` a wireless loss now (the BS's DUPACK rule,
    /// Sun et al. 2005 §II.A). Returns true if it was a hole not yet declared.
    pub fn declare(&mut self, seq: u32) -> bool {
        match self.pending.binary_search_by_key(&seq, |&(s, _)| s) {
            Ok(k) => {
                self.pending.remove(k);
                self.declared.push_back(seq);
                self.stats.on_demand += 1;
                true
            }
            Err(_) => false,
        }
    }

    /// Forget every number below `ack` (acknowledged end to end).
    pub fn advance(&mut self, ack: u32) {
        if ack <= self.seen.base() {
            return;
        }
        self.seen.advance(ack);
        while self.pending.front().is_some_and(|&(s, _)| s < ack) {
            self.pending.pop_front();
        }
        self.declared.retain(|&s| s >= ack);
    }

    /// The `max` most recently declared holes, newest first.
    pub fn recent(&self, max: usize, out: &mut LossBlocks) {
        out.clear();
        for &s in self.declared.iter().rev().take(max) {
            out.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(t: &HoleTracker, max: usize) -> Vec<u32> {
        let mut b = LossBlocks::default();
        t.recent(max, &mut b);
        b.as_slice().to_vec()
    }

    #[test]
    fn a_hole_is_declared_after_threshold_further_packets() {
        let mut t = HoleTracker::new(3);
        for s in 0..5 {
            t.on_arrival(s, 0);
        }
        t.on_arrival(6, 0); // reveals 5
        assert!(t.is_hole(5));
        assert!(blocks(&t, 6).is_empty());
        t.on_arrival(7, 0);
        t.on_arrival(8, 0);
        assert!(
            blocks(&t, 6).is_empty(),
            "two further packets are not enough"
        );
        t.on_arrival(9, 0);
        assert_eq!(blocks(&t, 6), vec![5]);
        assert_eq!(t.stats().by_threshold, 1);
    }

    #[test]
    fn a_burst_is_declared_together_and_reported_newest_first() {
        let mut t = HoleTracker::new(3);
        t.on_arrival(0, 0);
        t.on_arrival(5, 0); // reveals 1..=4
        for s in 6..9 {
            t.on_arrival(s, 0);
        }
        // Declared in one go; "newest first" among equals is reverse order.
        assert_eq!(blocks(&t, 6), vec![4, 3, 2, 1]);
        assert_eq!(blocks(&t, 2), vec![4, 3], "capped at max");
    }

    #[test]
    fn filled_holes_are_not_reported() {
        let mut t = HoleTracker::new(3);
        t.on_arrival(0, 0);
        t.on_arrival(2, 0);
        t.on_arrival(1, 0); // reordered, fills before declaration
        for s in 3..8 {
            t.on_arrival(s, 0);
        }
        assert!(blocks(&t, 6).is_empty());
        assert_eq!(t.stats().filled_pending, 1);
        t.on_arrival(9, 0);
        for s in 10..13 {
            t.on_arrival(s, 0);
        }
        assert_eq!(blocks(&t, 6), vec![8]);
        t.on_arrival(8, 0); // its retransmission arrives
        assert!(blocks(&t, 6).is_empty());
        assert_eq!(t.stats().filled_declared, 1);
    }

    #[test]
    fn declare_on_demand_and_advance() {
        let mut t = HoleTracker::new(3);
        t.on_arrival(0, 0);
        t.on_arrival(2, 0);
        assert!(t.declare(1));
        assert!(!t.declare(1), "already declared");
        assert!(!t.declare(0), "not a hole");
        assert_eq!(blocks(&t, 6), vec![1]);
        t.advance(2);
        assert!(blocks(&t, 6).is_empty());
        assert!(!t.is_seen(0));
        assert!(t.is_seen(2));
        assert_eq!(t.span(), 1);
    }

    #[test]
    fn threshold_zero_declares_at_once() {
        let mut t = HoleTracker::new(0);
        t.on_arrival(0, 0);
        t.on_arrival(2, 0);
        assert_eq!(blocks(&t, 6), vec![1]);
    }

    #[test]
    fn span_is_bounded() {
        let mut t = HoleTracker::new(3);
        t.on_arrival(0, 0);
        t.on_arrival(MAX_SPAN as u32 + 10, 0);
        assert!(t.span() <= MAX_SPAN);
        assert!(t.is_seen(MAX_SPAN as u32 + 10));
    }
}
