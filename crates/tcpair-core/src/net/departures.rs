//! The finish times of a link direction's accepted packets, in order: a
//! FIFO ring of 24 bytes (a `VecDeque` is 32), so that a direction's first
//! cache line also holds its serialization-time cache (`link.rs`).

use crate::engine::Time;

/// A FIFO of times whose capacity is a power of two (or 0 before the first
/// push): it grows with what is queued, never with the queue limit.
#[derive(Debug, Default)]
pub(super) struct Departures {
    buf: Box<[Time]>,
    head: u32,
    len: u32,
}

impl Departures {
    #[inline]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline]
    pub(super) fn len(&self) -> u32 {
        self.len
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub(super) fn front(&self) -> Option<&Time> {
        if self.len == 0 {
            return None;
        }
        self.buf.get(self.head as usize)
    }

    #[inline]
    pub(super) fn back(&self) -> Option<&Time> {
        let last = self.len.checked_sub(1)?;
        self.buf
            .get((self.head as usize + last as usize) & self.mask())
    }

    /// Remove the earliest time (the ring is not empty).
    #[inline]
    pub(super) fn pop_front(&mut self) {
        debug_assert!(self.len > 0);
        self.head = ((self.head as usize + 1) & self.mask()) as u32;
        self.len -= 1;
    }

    #[inline]
    pub(super) fn push_back(&mut self, t: Time) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = (self.head as usize + self.len as usize) & self.mask();
        self.buf[i] = t;
        self.len += 1;
    }

    /// Double the capacity (4 at first), keeping the order.
    #[cold]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(4);
        let mut buf = vec![0; cap].into_boxed_slice();
        let mask = self.mask();
        for (k, slot) in buf.iter_mut().take(self.len as usize).enumerate() {
            *slot = self.buf[(self.head as usize + k) & mask];
        }
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    proptest! {
        /// The ring behaves as a `VecDeque` under any mix of pushes and pops.
        #[test]
        fn ring_is_a_fifo(ops in proptest::collection::vec(any::<bool>(), 1..400)) {
            let (mut ring, mut reference) = (Departures::default(), VecDeque::new());
            for (t, push) in (0u64..).zip(ops) {
                if push || reference.is_empty() {
                    ring.push_back(t);
                    reference.push_back(t);
                } else {
                    ring.pop_front();
                    reference.pop_front();
                }
                prop_assert_eq!(ring.len() as usize, reference.len());
                prop_assert_eq!(ring.front(), reference.front());
                prop_assert_eq!(ring.back(), reference.back());
            }
        }
    }
}
