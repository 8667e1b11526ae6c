//! CLRP (paper 001, Sun/Li/Liew, "Clustered-loss retransmission protocol"):
//! the two mechanisms that both directions share, sans-IO.
//!
//! Paper 001 §II: "the implementation of CLRP and TCP-MH to handle wireless
//! losses is symmetrical". One side *detects* wireless losses and piggy-backs
//! their sequence numbers on ACKs ([`HoleTracker`]); the other side *keeps a
//! list* of (sequence, times notified) and retransmits a packet once it has
//! been notified often enough ([`NoticeList`]).
//!
//! | direction | detects ([`HoleTracker`]) | lists and retransmits ([`NoticeList`]) |
//! |---|---|---|
//! | MH -> FH | CLRP-BS (`bs::clrp`), numbers arriving from the MH | TCP-MH sender (`tcp::sender`) |
//! | FH -> MH | TCP-MH receiver (`tcp::sink`) | CLRP-BS, from its packet cache |
//!
//! Interpretations (docs/clrp.md has the full list):
//! - A hole is "a wireless loss" once `hole_threshold` *further* packets have
//!   arrived after the packet that revealed it (§II.A: "a hole between
//!   consecutive packets, which persists after several packets have
//!   arrived"). Every arrival counts, retransmissions included.
//! - Retransmission when the count *reaches* `rxmit_threshold` (SPEC; the
//!   paper's text says "exceeds", its simulations use the value 2);
//!   `rxmit_threshold = 3` gives the strict reading.
//! - The -1 mark (§II.A: "if MH still receives loss information, the times
//!   record will remain negative") holds while the notices could predate the
//!   retransmission's arrival at the detector. It ends when a notice comes on
//!   an ACK whose timestamp echo is later than the retransmission's *mark*
//!   (the send time of the retransmission, or at a BS the send time of the
//!   last packet forwarded before it): that ACK was triggered by a packet
//!   that travelled behind the retransmission on a FIFO hop, so the
//!   retransmission was lost again. The count restarts at 1 and the usual
//!   threshold applies. Without this the paper's rule leaves a lost
//!   retransmission to the sender's timer.

use std::collections::VecDeque;

use crate::engine::Time;
use crate::packet::{LossBlocks, SeqWindow};

/// Default `hole_threshold` (SPEC "CLRP": 3).
pub const DEFAULT_HOLE_THRESHOLD: u32 = 3;
/// Default `max_blocks` (paper 001 §II.A: "The value 6 is used in our simulations").
pub const DEFAULT_MAX_BLOCKS: u32 = 6;
/// Default `rxmit_threshold` (paper 001 §II.A: "the value 2 is chosen").
pub const DEFAULT_RXMIT_THRESHOLD: u32 = 2;

/// At most this many consecutive numbers are remembered per connection
/// (the oldest are forgotten beyond it).
pub const MAX_SPAN: usize = 1 << 16;

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
    /// (the BS keeps the packet's send time, see `bs::clrp`).
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
    /// paper 001 §II.A). Returns true if it was a hole not yet declared.
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

/// One listed loss: how often it was notified, or -1 after a retransmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    seq: u32,
    /// Notices received; -1 once retransmitted (paper 001 §II.A).
    count: i32,
    /// The retransmission's mark (see the module docs).
    mark: Time,
}

/// Counters of a [`NoticeList`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoticeStats {
    /// Loss notices processed (one per listed number per ACK).
    pub notices: u64,
    /// Retransmissions asked for.
    pub retransmits: u64,
    /// Of these, repeats after the -1 mark ended (the previous one was lost).
    pub repeats: u64,
}

/// TCP-MH's "structure list" (paper 001 §II.A): per lost packet, the
/// number of times it was notified.
#[derive(Debug, Clone)]
pub struct NoticeList {
    threshold: u32,
    entries: Vec<Entry>,
    stats: NoticeStats,
}

impl NoticeList {
    pub fn new(rxmit_threshold: u32) -> Self {
        Self {
            threshold: rxmit_threshold.max(1),
            entries: Vec::new(),
            stats: NoticeStats::default(),
        }
    }

    pub fn stats(&self) -> &NoticeStats {
        &self.stats
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `seq` is listed (a known wireless loss, retransmitted or not).
    pub fn contains(&self, seq: u32) -> bool {
        self.entries.iter().any(|e| e.seq == seq)
    }

    /// Forget everything (after a retransmission timeout the sender resends
    /// the window anyway).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Process one ACK: `ack` is its cumulative acknowledgement, `notices`
    /// the loss numbers it carries (already filtered by the caller, e.g. the
    /// BS keeps only cached packets), `echo` its timestamp echo, and `mark`
    /// the mark a retransmission made now would get. Pushes onto `rtx` (in
    /// increasing order) the numbers to retransmit now.
    pub fn on_ack(
        &mut self,
        ack: u32,
        notices: impl Iterator<Item = u32>,
        echo: Time,
        mark: Time,
        rtx: &mut Vec<u32>,
    ) {
        // Delete the records of packets that have been acknowledged.
        self.entries.retain(|e| e.seq >= ack);
        let first = rtx.len();
        for seq in notices {
            if seq < ack {
                continue;
            }
            self.stats.notices += 1;
            let k = match self.entries.iter().position(|e| e.seq == seq) {
                Some(k) => k,
                None => {
                    self.entries.push(Entry {
                        seq,
                        count: 0,
                        mark: 0,
                    });
                    self.entries.len() - 1
                }
            };
            let e = &mut self.entries[k];
            if e.count >= 0 {
                e.count += 1;
            } else if echo > e.mark {
                // Notified by an ACK of a packet sent behind the
                // retransmission: it was lost too. Count afresh.
                e.count = 1;
                self.stats.repeats += 1;
            } else {
                continue; // stays negative
            }
            if e.count >= self.threshold as i32 {
                e.count = -1;
                e.mark = mark;
                rtx.push(seq);
                self.stats.retransmits += 1;
            }
        }
        rtx[first..].sort_unstable();
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

    fn ack(l: &mut NoticeList, a: u32, n: &[u32], echo: Time, mark: Time) -> Vec<u32> {
        let mut v = Vec::new();
        l.on_ack(a, n.iter().copied(), echo, mark, &mut v);
        v
    }

    #[test]
    fn retransmit_when_the_count_reaches_the_threshold_then_stay_negative() {
        let mut l = NoticeList::new(2);
        assert!(ack(&mut l, 5, &[7, 6], 10, 100).is_empty());
        assert_eq!(ack(&mut l, 5, &[7, 6], 11, 100), vec![6, 7]);
        // Later notices before the retransmission could have arrived: negative.
        assert!(ack(&mut l, 5, &[7, 6], 50, 200).is_empty());
        assert!(ack(&mut l, 5, &[7, 6], 100, 200).is_empty());
        assert!(l.contains(6) && l.contains(7));
        assert_eq!(l.stats().retransmits, 2);
    }

    #[test]
    fn a_notice_sent_behind_the_retransmission_ends_the_mark() {
        let mut l = NoticeList::new(2);
        ack(&mut l, 5, &[6], 10, 100);
        assert_eq!(ack(&mut l, 5, &[6], 11, 100), vec![6]);
        // An ACK echoing a packet sent after the retransmission (mark 100)
        // still reports 6: that retransmission was lost. Count restarts at 1.
        assert!(ack(&mut l, 5, &[6], 101, 300).is_empty());
        assert_eq!(ack(&mut l, 5, &[6], 102, 300), vec![6]);
        assert_eq!(l.stats().repeats, 1);
    }

    #[test]
    fn acknowledged_entries_are_deleted() {
        let mut l = NoticeList::new(2);
        ack(&mut l, 5, &[6, 8], 10, 100);
        ack(&mut l, 7, &[], 10, 100);
        assert!(!l.contains(6));
        assert!(l.contains(8));
        // Notices below the cumulative ACK are ignored.
        assert!(ack(&mut l, 9, &[8], 10, 100).is_empty());
        assert!(l.is_empty());
    }

    #[test]
    fn threshold_one_retransmits_on_the_first_notice() {
        let mut l = NoticeList::new(1);
        assert_eq!(ack(&mut l, 0, &[3], 0, 1), vec![3]);
    }
}
