//! Per-connection timers of a BS agent, indexed for the earliest one.
//!
//! An agent with one timer per connection must tell the sim its earliest
//! deadline after every packet; scanning every connection for it costs O(n)
//! per packet with n connections. [`Deadlines`] keeps a min-heap of
//! `(deadline, connection)` entries instead: the agent notes a connection's
//! timer after changing it ([`Deadlines::note`]), and both the earliest
//! deadline and the due connections cost O(log n) per heap entry.
//!
//! A timer that moves later (a retransmission timer restarted by each new
//! ACK) adds no entry: the connection's earliest entry stays, and when it
//! reaches the top of the heap it is moved to the timer's time then. So a
//! connection whose timer is restarted on every packet costs a heap entry per
//! expiry period, not per packet; entries of timers moved earlier or stopped
//! are skipped when they reach the top.

use crate::engine::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// No time (a stopped timer, or no entry in the heap).
const NONE: Time = Time::MAX;

/// One connection's timer and its earliest entry in the heap.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// The timer as last noted (`NONE`: stopped).
    noted: Time,
    /// The time of the connection's earliest heap entry (`NONE`: none), never
    /// after `noted` while the timer runs.
    queued: Time,
}

const EMPTY: Slot = Slot {
    noted: NONE,
    queued: NONE,
};

#[derive(Debug, Default)]
pub struct Deadlines {
    heap: BinaryHeap<Reverse<(Time, u32)>>,
    slots: Vec<Slot>,
}

impl Deadlines {
    /// Connection `i`'s timer is now `t` (`None`: stopped).
    #[inline]
    pub fn note(&mut self, i: usize, t: Option<Time>) {
        if i >= self.slots.len() {
            self.slots.resize(i + 1, EMPTY);
        }
        let s = &mut self.slots[i];
        s.noted = t.unwrap_or(NONE);
        if s.noted < s.queued {
            s.queued = s.noted;
            self.heap.push(Reverse((s.noted, i as u32)));
        }
    }

    /// Connection `i`'s timer as last noted (`None` once taken by [`Self::take_due`]).
    pub fn get(&self, i: usize) -> Option<Time> {
        let t = self.slots.get(i).map_or(NONE, |s| s.noted);
        (t != NONE).then_some(t)
    }

    /// The earliest running timer (entries of earlier settings are dropped,
    /// and those of timers since moved later are moved, on the way).
    pub fn earliest(&mut self) -> Option<Time> {
        while let Some(&Reverse((t, i))) = self.heap.peek() {
            let s = self.slots[i as usize];
            if s.queued == t && s.noted == t {
                return Some(t);
            }
            self.heap.pop();
            self.requeue(t, i);
        }
        None
    }

    /// The connections whose timer is at or before `now`, in index order (the
    /// order a scan over the connections would visit them). Their timers are
    /// taken: the agent notes each one's timer again after handling it.
    pub fn take_due(&mut self, now: Time, due: &mut Vec<usize>) {
        due.clear();
        while let Some(&Reverse((t, i))) = self.heap.peek() {
            if t > now {
                break;
            }
            self.heap.pop();
            let s = &mut self.slots[i as usize];
            if s.queued == t && s.noted <= now {
                *s = EMPTY;
                due.push(i as usize);
            } else {
                self.requeue(t, i);
            }
        }
        due.sort_unstable();
    }

    /// The entry `(t, i)` has left the heap: if it was connection `i`'s
    /// earliest and its timer still runs (later), enter the timer's time.
    fn requeue(&mut self, t: Time, i: u32) {
        let s = &mut self.slots[i as usize];
        if s.queued != t {
            return; // an entry of an earlier setting; a newer one is queued
        }
        s.queued = s.noted;
        if s.noted != NONE {
            self.heap.push(Reverse((s.noted, i)));
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_skips_superseded_timers_and_due_comes_in_index_order() {
        let mut d = Deadlines::default();
        assert_eq!(d.earliest(), None);
        d.note(3, Some(50));
        d.note(1, Some(50));
        d.note(0, Some(70));
        d.note(3, Some(90)); // re-armed later: the entry at 50 is stale
        assert_eq!(d.earliest(), Some(50));
        d.note(1, None); // stopped
        assert_eq!(d.earliest(), Some(70));
        d.note(2, Some(70));
        let mut due = Vec::new();
        d.take_due(80, &mut due);
        assert_eq!(due, vec![0, 2]);
        assert_eq!(d.earliest(), Some(90));
        d.note(0, Some(70)); // noted again after handling: live again
        assert_eq!(d.earliest(), Some(70));
    }

    proptest::proptest! {
        /// Against a scan over every connection's last noted timer: the same
        /// earliest deadline and the same due connections, whatever the
        /// sequence of timers moved earlier, later, stopped and taken.
        #[test]
        fn the_same_as_a_scan(
            ops in proptest::collection::vec((0usize..6, 0u8..4, 0u64..40), 1..200),
        ) {
            let mut d = Deadlines::default();
            let mut scan: Vec<Option<Time>> = vec![None; 6];
            let (mut now, mut due) = (0, Vec::new());
            for (i, op, dt) in ops {
                match op {
                    0 => {
                        d.note(i, Some(now + dt));
                        scan[i] = Some(now + dt);
                    }
                    1 => {
                        d.note(i, None);
                        scan[i] = None;
                    }
                    2 => {
                        now += dt;
                        d.take_due(now, &mut due);
                        let want: Vec<usize> =
                            (0..6).filter(|&k| scan[k].is_some_and(|t| t <= now)).collect();
                        for &k in &want {
                            scan[k] = None;
                        }
                        proptest::prop_assert_eq!(&due, &want);
                    }
                    _ => {}
                }
                proptest::prop_assert_eq!(d.earliest(), scan.iter().flatten().min().copied());
                proptest::prop_assert_eq!(d.get(i), scan[i]);
            }
        }
    }
}
