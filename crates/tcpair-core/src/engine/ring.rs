//! A FIFO ring of `Copy` values in 24 bytes (a `VecDeque` takes 32): the
//! departure times of a link direction (`net::LinkDir`) and the events of
//! a lane of the event queue.

/// A FIFO whose capacity is a power of two (or 0 before the first push): it
/// grows with what is queued and never shrinks. The capacity is changed by
/// [`Ring::grow`] alone, which keeps it a power of two: the unchecked
/// indexing below relies on it.
#[derive(Debug, Clone)]
pub struct Ring<T> {
    buf: Box<[T]>,
    head: u32,
    len: u32,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Self {
            buf: Box::new([]),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Ring<T> {
    #[inline]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th value from the front.
    #[inline]
    pub fn get(&self, i: u32) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        let k = (self.head as usize + i as usize) & self.mask();
        // SAFETY: `i < len <= capacity`, so the capacity is not 0; it is a
        // power of two (`grow`), so `mask` is `capacity - 1` and `k`, masked
        // by it, is below the capacity: in bounds.
        Some(unsafe { self.buf.get_unchecked(k) })
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        self.get(self.len.checked_sub(1)?)
    }

    /// Remove the first value (if any).
    #[inline]
    pub fn pop_front(&mut self) {
        if self.len > 0 {
            self.head = ((self.head as usize + 1) & self.mask()) as u32;
            self.len -= 1;
        }
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len as usize == self.buf.len() {
            self.grow(x);
        }
        let i = (self.head as usize + self.len as usize) & self.mask();
        // SAFETY: after the check above the capacity exceeds `len`, so it is
        // not 0; it is a power of two (`grow`), so `i`, masked by capacity -
        // 1, is below it: in bounds.
        unsafe { *self.buf.get_unchecked_mut(i) = x };
        self.len += 1;
    }

    /// Double the capacity (4 at first), keeping the order; `fill` fills the
    /// new slots.
    #[cold]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(4);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).filter_map(|i| self.get(i).copied()));
        buf.resize(cap, fill);
        self.buf = buf.into_boxed_slice();
        self.head = 0;
    }

    /// Values the ring has room for without growing.
    pub fn capacity(&self) -> usize {
        self.buf.len()
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
            let (mut ring, mut reference) = (Ring::default(), VecDeque::new());
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
                prop_assert_eq!(ring.get(1), reference.get(1));
            }
        }
    }
}
