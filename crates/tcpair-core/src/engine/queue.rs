use super::Time;
use std::cmp::Ordering;
use std::collections::VecDeque;

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
    // Reversed, as for a max-heap (the standard library's BinaryHeap): the
    // earliest event is the greatest. The queue's own heap uses `before`.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

impl<E> Scheduled<E> {
    /// Earlier time first, then earlier insertion: a strict order (sequence
    /// numbers are unique), so the order of events does not depend on the heap.
    #[inline]
    fn before(&self, other: &Self) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A 4-ary min-heap of scheduled entries, earliest first. Against a binary
/// heap it has half the levels, and a node's four children are adjacent
/// (128 bytes of 32-byte entries): a pop touches about half as many cache
/// lines when the heap is large (tens of thousands of pending events), for
/// one or two more comparisons per level.
#[derive(Debug)]
struct QuadHeap<T> {
    v: Vec<Scheduled<T>>,
}

impl<T: Copy> QuadHeap<T> {
    const ARITY: usize = 4;

    fn with_capacity(n: usize) -> Self {
        Self {
            v: Vec::with_capacity(n),
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    fn peek(&self) -> Option<&Scheduled<T>> {
        self.v.first()
    }

    #[inline]
    fn push(&mut self, x: Scheduled<T>) {
        let mut i = self.v.len();
        self.v.push(x);
        while i > 0 {
            let parent = (i - 1) / Self::ARITY;
            if !x.before(&self.v[parent]) {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i] = x;
    }

    /// Remove the earliest entry.
    #[inline]
    fn pop(&mut self) -> Option<Scheduled<T>> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        self.sift_down(last);
        Some(top)
    }

    /// Replace the earliest entry by `x` (one sift instead of a pop and a push).
    #[inline]
    fn replace_top(&mut self, x: Scheduled<T>) {
        self.sift_down(x);
    }

    /// Put `x` at the root's place and move it down to where it belongs.
    #[inline]
    fn sift_down(&mut self, x: Scheduled<T>) {
        let n = self.v.len();
        let mut i = 0;
        loop {
            let first = i * Self::ARITY + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            for c in first + 1..(first + Self::ARITY).min(n) {
                if self.v[c].before(&self.v[best]) {
                    best = c;
                }
            }
            if !self.v[best].before(&x) {
                break;
            }
            self.v[i] = self.v[best];
            i = best;
        }
        self.v[i] = x;
    }

    fn capacity(&self) -> usize {
        self.v.capacity()
    }
}

/// What a heap entry stands for: one event, or the head of a lane.
#[derive(Debug, Clone, Copy)]
enum Slot<E> {
    Event(E),
    Lane(u32),
}

/// Heap event queue (a 4-ary min-heap) with FIFO lanes.
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
    heap: QuadHeap<Slot<E>>,
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
            heap: QuadHeap::with_capacity(1024),
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
        self.heap.len() == 0
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
        let top = *self.heap.peek()?;
        let s = match top.event {
            Slot::Event(event) => {
                self.heap.pop();
                Scheduled {
                    time: top.time,
                    seq: top.seq,
                    event,
                }
            }
            Slot::Lane(lane) => {
                let fifo = &mut self.lanes[lane as usize];
                let head = fifo.pop_front().expect("a lane in the heap has a head");
                match fifo.front() {
                    // The lane's next event replaces its head in place: one
                    // sift instead of a pop and a push.
                    Some(next) => {
                        let (time, seq) = (next.time, next.seq);
                        self.heap.replace_top(Scheduled { time, seq, ..top });
                        self.in_lanes -= 1;
                    }
                    None => {
                        self.heap.pop();
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

        /// The 4-ary heap pops exactly what the standard library's binary heap
        /// ordered by (time, insertion) pops, with pops between pushes.
        #[test]
        fn the_heap_pops_as_a_binary_heap(
            ops in proptest::collection::vec((0u64..40, 0u8..3), 1..400),
        ) {
            use std::cmp::Reverse;
            let mut q = EventQueue::new();
            let mut reference = std::collections::BinaryHeap::new();
            for (seq, &(dt, pops)) in (0u64..).zip(&ops) {
                let at = q.now() + dt;
                q.schedule(at, seq);
                reference.push(Reverse((at, seq)));
                for _ in 0..pops {
                    let got = q.pop().map(|s| (s.time, s.seq, s.event));
                    let want = reference.pop().map(|Reverse((t, i))| (t, i, i));
                    prop_assert_eq!(got, want);
                }
            }
            while let Some(Reverse((t, i))) = reference.pop() {
                prop_assert_eq!(q.pop().map(|s| (s.time, s.seq, s.event)), Some((t, i, i)));
            }
            prop_assert!(q.pop().is_none());
        }
    }
}
