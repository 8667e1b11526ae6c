use super::heap::QuadHeap;
use super::{Ring, Scheduled, Time};
use std::collections::VecDeque;

/// A heap entry: an event, and the lane it heads ([`NO_LANE`] if none).
#[derive(Debug, Clone, Copy)]
struct Slot<E> {
    lane: u32,
    event: E,
}

const NO_LANE: u32 = u32::MAX;

/// Where an event runs in the queue's order: its time, then its sequence
/// number ([`EventQueue::reserve`]). Ordered as the events are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub time: Time,
    seq: u64,
}

/// One lane's events in order, its head (also in the heap) first. Aligned
/// so that a lane's bookkeeping is one cache line (prefetching reads it).
#[derive(Debug)]
#[repr(align(32))]
struct Lane<E>(Ring<Scheduled<E>>);

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
/// Every heap entry holds its event, a lane's head included, so the next
/// event is known without reading its lane ([`Self::ahead`]).
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: QuadHeap<Slot<E>>,
    lanes: Vec<Lane<E>>,
    /// Events waiting in lanes behind their heads.
    in_lanes: usize,
    next_seq: u64,
    now: Time,
    popped: u64,
    /// The earliest events, already taken from the heap, in order (at most
    /// `depth`): the events about to run are known, so what they will read
    /// can be requested early ([`Self::ahead`]).
    ahead: VecDeque<Scheduled<E>>,
    depth: usize,
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
        Self::with_lanes_and_capacity(lanes, 1024)
    }

    /// [`Self::with_lanes`] with room for `capacity` pending events before
    /// the heap grows (one of thousands of small queues starts small).
    pub fn with_lanes_and_capacity(lanes: usize, capacity: usize) -> Self {
        Self {
            heap: QuadHeap::with_capacity(capacity),
            lanes: (0..lanes).map(|_| Lane(Ring::default())).collect(),
            in_lanes: 0,
            next_seq: 0,
            now: 0,
            popped: 0,
            ahead: VecDeque::new(),
            depth: 0,
        }
    }

    /// Forget every pending event and give back the memory that held them,
    /// keeping the clock and the count of events processed: for the end of
    /// a run, whose results read those two alone.
    pub fn release_pending(&mut self) {
        self.heap = QuadHeap::with_capacity(0);
        self.lanes = Vec::new();
        self.in_lanes = 0;
        self.ahead = VecDeque::new();
    }

    /// Keep the `depth` earliest events taken from the heap ahead of time
    /// ([`Self::ahead`]). The order of events is the same at any depth: the
    /// events ahead are sorted, none is later than what was left in the heap
    /// when it was taken, and each pop takes the earlier of the first event
    /// ahead and the heap's (an event scheduled in the meantime may be
    /// earlier than some events ahead; then the refill waits until it ran).
    /// Events already ahead stay (they are in order); with a smaller depth
    /// the refill waits until fewer are left.
    pub fn set_lookahead(&mut self, depth: usize) {
        self.depth = depth;
        self.ahead.reserve(depth);
    }

    /// The look-ahead depth ([`Self::set_lookahead`]; 0: none).
    #[inline]
    pub fn lookahead(&self) -> usize {
        self.depth
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
        self.heap.len() + self.in_lanes + self.ahead.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.len() == 0 && self.ahead.is_empty()
    }

    /// Bytes the queue holds on the heap (its heap and lanes, by capacity).
    pub fn heap_bytes(&self) -> usize {
        self.heap.capacity_bytes()
            + self.lanes.capacity() * std::mem::size_of::<Lane<E>>()
            + self.ahead.capacity() * std::mem::size_of::<Scheduled<E>>()
            + self
                .lanes
                .iter()
                .map(|l| l.0.capacity() * std::mem::size_of::<Scheduled<E>>())
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

    /// Take the place an event scheduled now at `at` would take (its time and
    /// sequence number) without scheduling one: [`Self::schedule_at`] later
    /// puts an event exactly there, so it runs in the order it would have run
    /// in had it been scheduled now. A source whose timers are often cancelled
    /// (a MAC's backoff, frozen whenever the medium turns busy) keeps them
    /// itself and queues only its earliest, never a cancelled one.
    #[inline]
    pub fn reserve(&mut self, at: Time) -> Place {
        let (time, seq) = self.stamp(at);
        Place { time, seq }
    }

    /// Schedule `event` at a place taken by [`Self::reserve`] (not before now).
    #[inline]
    pub fn schedule_at(&mut self, place: Place, event: E) {
        debug_assert!(place.time >= self.now, "event scheduled in the past");
        let event = Slot {
            lane: NO_LANE,
            event,
        };
        self.heap.push(Scheduled {
            time: place.time,
            seq: place.seq,
            event,
        });
    }

    /// Schedule `event` at absolute time `at`. Scheduling in the past is a logic
    /// error in the caller; it is clamped to `now` so time never runs backwards.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        let (time, seq) = self.stamp(at);
        let event = Slot {
            lane: NO_LANE,
            event,
        };
        self.heap.push(Scheduled { time, seq, event });
    }

    /// [`Self::schedule`] through lane `lane`: the same order of events, in
    /// less heap when the lane's events come in time order.
    #[inline(always)]
    pub fn schedule_in(&mut self, lane: u32, at: Time, event: E) {
        let (time, seq) = self.stamp(at);
        let fifo = &mut self.lanes[lane as usize].0;
        let lane = match fifo.back() {
            None => lane,
            Some(last) if last.time <= time => {
                fifo.push_back(Scheduled { time, seq, event });
                self.in_lanes += 1;
                return;
            }
            Some(_) => NO_LANE,
        };
        if lane != NO_LANE {
            fifo.push_back(Scheduled { time, seq, event });
        }
        let event = Slot { lane, event };
        self.heap.push(Scheduled { time, seq, event });
    }

    /// Whether the heap's earliest event runs before the first event ahead.
    #[inline]
    fn heap_first(&self) -> Option<bool> {
        match (self.ahead.front(), self.heap.peek()) {
            (None, None) => None,
            (Some(_), None) => Some(false),
            (None, Some(_)) => Some(true),
            (Some(a), Some(h)) => Some(h.before(a)),
        }
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        if self.ahead.is_empty() {
            return self.heap.peek().map(|s| s.time);
        }
        if self.heap_first()? {
            self.heap.peek().map(|s| s.time)
        } else {
            self.ahead.front().map(|s| s.time)
        }
    }

    /// The `i`-th event ahead (0: the next one, unless an event scheduled
    /// since it was taken from the heap runs first). For prefetching.
    #[inline]
    pub fn ahead(&self, i: usize) -> Option<(Time, &E)> {
        self.ahead.get(i).map(|s| (s.time, &s.event))
    }

    /// Ask for lane `lane`'s bookkeeping to be loaded.
    #[inline]
    pub fn prefetch_lane(&self, lane: u32) {
        crate::engine::prefetch(&self.lanes[lane as usize]);
    }

    /// Ask for the places lane `lane` is read and written at to be loaded:
    /// its next event and the end where a new one goes (its bookkeeping
    /// should already be in cache).
    #[inline]
    pub fn prefetch_lane_ends(&self, lane: u32) {
        let b = &self.lanes[lane as usize].0;
        if let Some(e) = b.get(1) {
            crate::engine::prefetch(e);
        }
        if let Some(e) = b.back() {
            crate::engine::prefetch(e);
        }
    }

    /// Remove the earliest event and advance `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<Scheduled<E>> {
        if self.depth == 0 && self.ahead.is_empty() {
            // Nothing is taken ahead of time: the heap's first event is next.
            self.heap.peek()?;
            let s = self.take_heap();
            self.now = s.time;
            self.popped += 1;
            return Some(s);
        }
        let s = if self.heap_first()? {
            self.take_heap()
        } else {
            self.ahead.pop_front().expect("an event ahead")
        };
        self.now = s.time;
        self.popped += 1;
        while self.ahead.len() < self.depth {
            let Some(h) = self.heap.peek() else { break };
            if self.ahead.back().is_some_and(|b| h.before(b)) {
                break;
            }
            let next = self.take_heap();
            self.ahead.push_back(next);
        }
        if self.depth > 0 {
            self.prefetch_heap_lanes();
        }
        Some(s)
    }

    /// Ask for the lanes of the heap's first entries to be loaded: taking
    /// a lane's head reads its bookkeeping and its next event. The heap's
    /// second level will be near the top in a few pops (its lanes'
    /// bookkeeping now); the top is taken at the next pop (its next event).
    #[inline]
    fn prefetch_heap_lanes(&self) {
        for s in (1..5).map_while(|i| self.heap.get(i)) {
            if s.event.lane != NO_LANE {
                self.prefetch_lane(s.event.lane);
            }
        }
        if let Some(top) = self.heap.peek().filter(|t| t.event.lane != NO_LANE) {
            if let Some(e) = self.lanes[top.event.lane as usize].0.get(1) {
                crate::engine::prefetch(e);
            }
        }
    }

    /// Take the heap's earliest event (the heap is not empty); a lane's next
    /// event takes its head's place.
    #[inline(always)]
    fn take_heap(&mut self) -> Scheduled<E> {
        let top = *self.heap.peek().expect("a pending event");
        let lane = top.event.lane;
        if lane == NO_LANE {
            self.heap.pop();
        } else {
            let fifo = &mut self.lanes[lane as usize].0;
            fifo.pop_front();
            match fifo.front() {
                // The lane's next event replaces its head in place: one
                // sift instead of a pop and a push.
                Some(next) => {
                    let (time, seq) = (next.time, next.seq);
                    let event = Slot {
                        lane,
                        event: next.event,
                    };
                    self.heap.replace_top(Scheduled { time, seq, event });
                    self.in_lanes -= 1;
                }
                None => {
                    self.heap.pop();
                }
            }
        }
        Scheduled {
            time: top.time,
            seq: top.seq,
            event: top.event.event,
        }
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
    }

    /// An event put at a place reserved earlier runs where it would have run
    /// had it been scheduled then: before the events of its time scheduled
    /// after the reservation, after those scheduled before it.
    #[test]
    fn a_reserved_place_keeps_the_order_of_its_moment() {
        let mut q = EventQueue::with_lanes(1);
        q.schedule(30, 'a');
        let place = q.reserve(30);
        let unused = q.reserve(20); // reserved, never used: leaves no event
        q.schedule_in(0, 30, 'c');
        q.schedule(10, 'x');
        assert_eq!(q.pop().map(|s| s.event), Some('x'));
        q.schedule_at(place, 'b');
        assert!(unused < place);
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!['a', 'b', 'c']);
        assert_eq!(q.now(), 30);
        assert_eq!(q.events_processed(), 4);
    }

    /// At a run's end the pending events go, with their memory; the clock
    /// and the count of events processed stay for the results.
    #[test]
    fn released_events_leave_the_clock_and_the_count() {
        let mut q = EventQueue::with_lanes(2);
        for t in 1..=100 {
            q.schedule_in(t as u32 % 2, t, t);
        }
        q.set_lookahead(4);
        assert_eq!(q.pop().map(|s| s.event), Some(1));
        q.release_pending();
        assert_eq!((q.now(), q.events_processed(), q.len()), (1, 1, 0));
        assert_eq!(q.heap_bytes(), 0);
        assert!(q.pop().is_none());
    }
}

#[cfg(test)]
mod lane_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Events scheduled through lanes (in or out of order within a lane),
        /// with events taken ahead of time or not, come out in exactly the
        /// order of a queue without lanes.
        #[test]
        fn lanes_keep_the_order_of_the_heap(
            ops in proptest::collection::vec((0u32..4, 0u64..50, any::<bool>()), 1..300),
            depth in 0usize..6,
        ) {
            let mut plain = EventQueue::new();
            let mut laned = EventQueue::with_lanes(4);
            laned.set_lookahead(depth);
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
