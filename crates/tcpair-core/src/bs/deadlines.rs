//! Per-connection timers of a BS agent, indexed for the earliest one.
//!
//! An agent with one timer per connection must tell the sim its earliest
//! deadline after every packet; scanning every connection for it costs O(n)
//! per packet with n connections. [`Deadlines`] keeps a min-heap of
//! `(deadline, connection)` entries instead: the agent notes a connection's
//! timer after changing it ([`Deadlines::note`]), superseded entries are
//! skipped lazily, and both the earliest deadline and the due connections
//! cost O(log n) per timer change.

use crate::engine::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Default)]
pub struct Deadlines {
    heap: BinaryHeap<Reverse<(Time, u32)>>,
    /// The timer last noted for each connection: an entry is live only while
    /// it equals this.
    noted: Vec<Option<Time>>,
}

impl Deadlines {
    /// Connection `i`'s timer is now `t` (`None`: stopped).
    #[inline]
    pub fn note(&mut self, i: usize, t: Option<Time>) {
        if i >= self.noted.len() {
            self.noted.resize(i + 1, None);
        }
        if self.noted[i] != t {
            self.noted[i] = t;
            if let Some(t) = t {
                self.heap.push(Reverse((t, i as u32)));
            }
        }
    }

    /// Connection `i`'s timer as last noted (`None` once taken by [`Self::take_due`]).
    pub fn get(&self, i: usize) -> Option<Time> {
        self.noted.get(i).copied().flatten()
    }

    /// The earliest live deadline (superseded entries are dropped on the way).
    pub fn earliest(&mut self) -> Option<Time> {
        while let Some(&Reverse((t, i))) = self.heap.peek() {
            if self.noted[i as usize] == Some(t) {
                return Some(t);
            }
            self.heap.pop();
        }
        None
    }

    /// The connections whose timer is at or before `now`, in index order (the
    /// order a scan over the connections would visit them). Their entries are
    /// consumed: the agent notes each one's timer again after handling it.
    pub fn take_due(&mut self, now: Time, due: &mut Vec<usize>) {
        due.clear();
        while let Some(&Reverse((t, i))) = self.heap.peek() {
            if t > now {
                break;
            }
            self.heap.pop();
            if self.noted[i as usize] == Some(t) {
                self.noted[i as usize] = None;
                due.push(i as usize);
            }
        }
        due.sort_unstable();
        due.dedup();
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
}
