//! Which sequence numbers of one connection have been seen, from a moving
//! base upward, with a value remembered per number: the one structure
//! behind the receiver's out-of-order buffer (`tcp::sink`), the numbers a
//! BS has forwarded or received (`schemes::snoop`) and CLRP's hole detector
//! (`schemes::clrp`).
//!
//! Numbers below the base are forgotten; a number at or above the base is
//! either marked (its value kept) or a *hole* if a higher number is marked.
//! Memory is one slot per number in `[base, end)`; callers bound it by
//! advancing the base.

use crate::engine::Time;
use std::collections::VecDeque;

/// A value kept per sequence number, with a reserved "not seen" value.
pub trait Slot: Copy + PartialEq {
    const EMPTY: Self;
}

impl Slot for bool {
    const EMPTY: bool = false;
}

/// A time stamp; `Time::MAX` means "not seen" (a mark clamps to `MAX - 1`).
impl Slot for Time {
    const EMPTY: Time = Time::MAX;
}

/// Slots for the numbers `base .. base + len`.
#[derive(Debug, Clone)]
pub struct SeqWindow<V: Slot = bool> {
    base: u32,
    slots: VecDeque<V>,
}

impl<V: Slot> Default for SeqWindow<V> {
    fn default() -> Self {
        Self {
            base: 0,
            slots: VecDeque::new(),
        }
    }
}

impl<V: Slot> SeqWindow<V> {
    /// The lowest number remembered.
    #[inline]
    pub fn base(&self) -> u32 {
        self.base
    }

    /// One past the highest number marked (the base if none is).
    #[inline]
    pub fn end(&self) -> u32 {
        self.base + self.slots.len() as u32
    }

    /// Numbers remembered (marked or hole).
    #[inline]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The value marked for `seq`, if it is marked and not forgotten.
    #[inline]
    pub fn get(&self, seq: u32) -> Option<V> {
        let v = *self.slots.get(seq.checked_sub(self.base)? as usize)?;
        (v != V::EMPTY).then_some(v)
    }

    /// `seq` is marked (and not forgotten).
    #[inline]
    pub fn contains(&self, seq: u32) -> bool {
        self.get(seq).is_some()
    }

    /// `seq` is not marked although a higher number is.
    #[inline]
    pub fn is_hole(&self, seq: u32) -> bool {
        seq >= self.base && self.slots.get((seq - self.base) as usize) == Some(&V::EMPTY)
    }

    /// Mark `seq` with `v` (which must not be `V::EMPTY`); numbers between
    /// the old end and `seq` become holes. Numbers below the base are
    /// ignored; returns whether `seq` was marked.
    #[inline]
    pub fn mark(&mut self, seq: u32, v: V) -> bool {
        let Some(idx) = seq.checked_sub(self.base) else {
            return false;
        };
        let idx = idx as usize;
        if idx < self.slots.len() {
            self.slots[idx] = v;
        } else {
            while self.slots.len() < idx {
                self.slots.push_back(V::EMPTY);
            }
            self.slots.push_back(v);
        }
        true
    }

    /// Forget every number below `to` (nothing if `to` is at or below the base).
    #[inline]
    pub fn advance(&mut self, to: u32) {
        if to <= self.base {
            return;
        }
        let n = ((to - self.base) as usize).min(self.slots.len());
        if n == 1 {
            self.slots.pop_front();
        } else if n > 1 {
            self.slots.drain(..n);
        }
        self.base = to;
    }

    /// Advance the base so that `seq` fits within a span of `max` numbers
    /// (forgetting the oldest); call before marking a far-ahead number.
    #[inline]
    pub fn make_room(&mut self, seq: u32, max: usize) {
        let span = seq.saturating_sub(self.base) as usize;
        if span >= max {
            self.advance(seq + 1 - max as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_holes_and_forgets_below_the_base() {
        let mut w: SeqWindow = SeqWindow::default();
        assert!(w.mark(0, true));
        w.mark(2, true);
        assert!(w.contains(0) && w.contains(2));
        assert!(w.is_hole(1));
        assert!(!w.is_hole(3) && !w.contains(3));
        assert_eq!((w.base(), w.end()), (0, 3));
        w.advance(2);
        assert_eq!(w.len(), 1);
        assert!(!w.contains(0));
        assert!(!w.mark(1, true), "below the base: ignored");
        assert_eq!(w.len(), 1);
        // Advancing past the end empties it and moves the base.
        w.advance(10);
        assert_eq!((w.base(), w.end(), w.len()), (10, 10, 0));
    }

    #[test]
    fn time_stamps_are_kept_per_number() {
        let mut w: SeqWindow<Time> = SeqWindow::default();
        w.mark(5, 77);
        assert_eq!(w.get(5), Some(77));
        assert_eq!(w.get(4), None);
        assert!(w.is_hole(4));
    }

    #[test]
    fn make_room_bounds_the_span() {
        let mut w: SeqWindow = SeqWindow::default();
        w.mark(0, true);
        w.make_room(1000, 16);
        w.mark(1000, true);
        assert_eq!(w.len(), 16);
        assert_eq!(w.base(), 985);
        assert!(w.contains(1000) && !w.contains(0));
        // Within the span nothing is forgotten.
        w.make_room(1000, 16);
        assert_eq!(w.base(), 985);
    }
}
