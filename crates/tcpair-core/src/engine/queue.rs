use super::Time;
use std::cmp::Ordering;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};

/// One pending event: its time, a tie-breaking insertion counter, and the payload.
///
/// Events at the same instant run in the order they were scheduled (FIFO), which
/// makes every run deterministic without depending on the payload's contents.
#[derive(Debug, Clone, Copy)]
pub struct Scheduled<E> {
    pub time: Time,
    pub seq: u64,
    pub event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Scheduled<E> {}
impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Scheduled<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// What a heap entry stands for: one event, or the head of a lane.
#[derive(Debug, Clone, Copy)]
enum Slot<E> {
    Event(E),
    Lane(u32),
}

/// Binary-heap event queue with FIFO lanes.
///
/// Events a caller knows to come in time order from one source (the arrivals
/// at the far end of one link direction: each leaves after the one before it
/// and the delay is the link's) go into that source's *lane*, a FIFO whose
/// head alone sits in the heap. With thousands of links each carrying a window
/// of packets the heap then holds one entry per busy link instead of one per
/// packet (10,000 flows: about 50,000 entries instead of 350,000), so each
/// pop sifts through fewer levels that stay in cache, and a lane's events are
/// read in the order they were written. The order of events is exactly the
/// heap's alone: by time, then by the order they were scheduled (every event
/// still takes its sequence number when scheduled, and a lane is sorted by
/// both). An event earlier than its lane's last goes to the heap directly.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Scheduled<Slot<E>>>,
    lanes: Vec<VecDeque<Scheduled<E>>>,
    /// Events waiting in lanes behind their heads.
    in_lanes: usize,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Events are small `Copy` values (the simulator's are 12 bytes).
impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_lanes(0)
    }

    /// A queue with `lanes` FIFO lanes, numbered from 0 ([`Self::schedule_in`]).
    pub fn with_lanes(lanes: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(1024),
            lanes: (0..lanes).map(|_| VecDeque::new()).collect(),
            in_lanes: 0,
            next_seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// Current simulated time (the time of the last event popped).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    #[inline]
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Events pending.
    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len() + self.in_lanes
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Bytes the queue holds on the heap (its heap and lanes, by capacity).
    pub fn heap_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Scheduled<Slot<E>>>()
            + self.lanes.capacity() * std::mem::size_of::<VecDeque<Scheduled<E>>>()
            + self
                .lanes
                .iter()
                .map(|l| l.capacity() * std::mem::size_of::<Scheduled<E>>())
                .sum::<usize>()
    }

    /// The time of a new event at `at` (never before now) and its sequence number.
    #[inline]
    fn stamp(&mut self, at: Time) -> (Time, u64) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        (at.max(self.now), seq)
    }

    /// Schedule `event` at absolute time `at`. Scheduling in the past is a logic
    /// error in the caller; it is clamped to `now` so time never runs backwards.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        let (time, seq) = self.stamp(at);
        let event = Slot::Event(event);
        self.heap.push(Scheduled { time, seq, event });
    }

    /// [`Self::schedule`] through lane `lane`: the same order of events, in
    /// less heap when the lane's events come in time order.
    #[inline]
    pub fn schedule_in(&mut self, lane: u32, at: Time, event: E) {
        let (time, seq) = self.stamp(at);
        let fifo = &mut self.lanes[lane as usize];
        match fifo.back() {
            None => {
                fifo.push_back(Scheduled { time, seq, event });
                let event = Slot::Lane(lane);
                self.heap.push(Scheduled { time, seq, event });
            }
            Some(last) if last.time <= time => {
                fifo.push_back(Scheduled { time, seq, event });
                self.in_lanes += 1;
            }
            Some(_) => {
                let event = Slot::Event(event);
                self.heap.push(Scheduled { time, seq, event });
            }
        }
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|s| s.time)
    }

    /// Remove the earliest event and advance `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<Scheduled<E>> {
        let mut top = self.heap.peek_mut()?;
        let s = match top.event {
            Slot::Event(event) => {
                let (time, seq) = (top.time, top.seq);
                PeekMut::pop(top);
                Scheduled { time, seq, event }
            }
            Slot::Lane(lane) => {
                let fifo = &mut self.lanes[lane as usize];
                let head = fifo.pop_front().expect("a lane in the heap has a head");
                match fifo.front() {
                    // The lane's next event replaces its head in place: one
                    // sift instead of a pop and a push.
                    Some(next) => {
                        (top.time, top.seq) = (next.time, next.seq);
                        self.in_lanes -= 1;
                    }
                    None => {
                        PeekMut::pop(top);
                    }
                }
                head
            }
        };
        self.now = s.time;
        self.popped += 1;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_fifo_on_ties() {
        let mut q = EventQueue::new();
        q.schedule(30, 'c');
        q.schedule(10, 'a');
        q.schedule(30, 'd');
        q.schedule(10, 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.now(), 30);
        assert_eq!(q.events_processed(), 4);
    }
}

#[cfg(test)]
mod lane_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Events scheduled through lanes (in or out of order within a lane)
        /// come out in exactly the order of a queue without lanes.
        #[test]
        fn lanes_keep_the_order_of_the_heap(
            ops in proptest::collection::vec((0u32..4, 0u64..50, any::<bool>()), 1..300),
        ) {
            let mut plain = EventQueue::new();
            let mut laned = EventQueue::with_lanes(4);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (i, &(lane, dt, pop)) in ops.iter().enumerate() {
                let at = plain.now() + dt;
                plain.schedule(at, i);
                if lane == 3 {
                    laned.schedule(at, i);
                } else {
                    laned.schedule_in(lane, at, i);
                }
                prop_assert_eq!(plain.len(), laned.len());
                if pop {
                    a.push(plain.pop().map(|s| (s.time, s.seq, s.event)));
                    b.push(laned.pop().map(|s| (s.time, s.seq, s.event)));
                }
            }
            a.extend(std::iter::from_fn(|| plain.pop().map(|s| Some((s.time, s.seq, s.event)))));
            b.extend(std::iter::from_fn(|| laned.pop().map(|s| Some((s.time, s.seq, s.event)))));
            prop_assert_eq!(a, b);
            prop_assert!(laned.is_empty());
        }
    }
}
