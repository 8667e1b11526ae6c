//! The event queue's heap: a 4-ary min-heap of scheduled entries.

use super::Time;
use std::cmp::Ordering;

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
    /// (time, insertion) as one number, ordered as [`Self::before`].
    #[inline]
    pub(super) fn key(&self) -> u128 {
        (u128::from(self.time) << 64) | u128::from(self.seq)
    }

    /// Earlier time first, then earlier insertion: a strict order (sequence
    /// numbers are unique), so the order of events does not depend on the heap.
    #[inline]
    /// `other` may carry another payload (an entry of the heap against one
    /// already taken from it).
    pub(super) fn before<F>(&self, other: &Scheduled<F>) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A 4-ary min-heap of scheduled entries, earliest first. Against a binary
/// heap it has half the levels, and a node's four children are adjacent
/// (128 bytes of 32-byte entries): a pop touches about half as many cache
/// lines when the heap is large (tens of thousands of pending events), for
/// one or two more comparisons per level.
#[derive(Debug)]
pub(super) struct QuadHeap<T> {
    v: Vec<Scheduled<T>>,
}

impl<T: Copy> QuadHeap<T> {
    const ARITY: usize = 4;

    pub(super) fn with_capacity(n: usize) -> Self {
        Self {
            v: Vec::with_capacity(n),
        }
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.v.len()
    }

    /// Bytes reserved.
    pub(super) fn capacity_bytes(&self) -> usize {
        self.v.capacity() * std::mem::size_of::<Scheduled<T>>()
    }

    /// Entry `i` (0: the earliest; 1..5: its children), if the heap has it.
    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<&Scheduled<T>> {
        self.v.get(i)
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<&Scheduled<T>> {
        self.v.first()
    }

    #[inline]
    pub(super) fn push(&mut self, x: Scheduled<T>) {
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
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Scheduled<T>> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        self.sift_down(last);
        Some(top)
    }

    /// Replace the earliest entry by `x` (one sift instead of a pop and a push).
    #[inline(always)]
    pub(super) fn replace_top(&mut self, x: Scheduled<T>) {
        self.sift_down(x);
    }

    /// Put `x` at the root's place and move it down to where it belongs.
    #[inline(always)]
    fn sift_down(&mut self, x: Scheduled<T>) {
        if self.v.len() <= Self::ARITY + 1 {
            self.sift_down_one_level(x);
        } else {
            self.sift_down_levels(x);
        }
    }

    /// [`Self::sift_down`] in a heap of the root and its children alone (a
    /// handful of pending events: one flow's busy links and timers): `x` or
    /// the earliest child becomes the root. The children are compared
    /// without branches, as a tournament.
    #[inline(always)]
    fn sift_down_one_level(&mut self, x: Scheduled<T>) {
        let pick =
            |a: (usize, u128), b: (usize, u128)| std::hint::select_unpredictable(b.1 < a.1, b, a);
        let v = &self.v;
        let k = |c: usize| (c, v[c].key());
        let xk = (0, x.key());
        let best = match v.len() {
            5 => pick(pick(k(1), k(2)), pick(pick(k(3), k(4)), xk)),
            4 => pick(pick(k(1), k(2)), pick(k(3), xk)),
            3 => pick(pick(k(1), k(2)), xk),
            2 => pick(k(1), xk),
            _ => xk,
        };
        if best.0 != 0 {
            self.v[0] = self.v[best.0];
        }
        self.v[best.0] = x;
    }

    #[inline(never)]
    fn sift_down_levels(&mut self, x: Scheduled<T>) {
        let n = self.v.len();
        let mut i = 0;
        loop {
            let first = i * Self::ARITY + 1;
            if first >= n {
                break;
            }
            // The earliest child, chosen without branches: which child is
            // earliest is a coin toss the branch predictor would often lose.
            let (best, best_key) = if first + Self::ARITY <= n {
                let pick = |a: (usize, u128), b: (usize, u128)| {
                    std::hint::select_unpredictable(b.1 < a.1, b, a)
                };
                let k = |c: usize| (c, self.v[c].key());
                let left = pick(k(first), k(first + 1));
                let right = pick(k(first + 2), k(first + 3));
                pick(left, right)
            } else {
                let mut best = (first, self.v[first].key());
                for c in first + 1..n {
                    let k = self.v[c].key();
                    if k < best.1 {
                        best = (c, k);
                    }
                }
                best
            };
            if best_key >= x.key() {
                break;
            }
            self.v[i] = self.v[best];
            i = best;
        }
        self.v[i] = x;
    }
}
