//! A slab: values in one vector, each at a place (a `u32`) that stays its
//! own until it is freed, freed places taken again first (last freed, first
//! taken). No allocation per value once the slab has grown to its
//! high-water mark. The packet arena (`packet::Arena`: the packets and
//! their options) and the caches of BS agents (`bs::cache`) keep their
//! values in slabs.
//!
//! A slab past 128 KiB takes room for 32 MiB at once (`engine/room.rs`).

use super::room::make_room;

#[derive(Debug, Clone)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<T> Slab<T> {
    /// An empty slab with room for `n` values before it grows.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            items: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
        }
    }

    /// Keep `v`; its place.
    #[inline]
    pub fn put(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(k) => {
                self.items[k as usize] = v;
                k
            }
            None => {
                let len = self.items.len();
                if len == self.items.capacity() {
                    make_room(&mut self.items, len + 1);
                }
                self.items.push(v);
                u32::try_from(self.items.len() - 1).expect("fewer than 2^32 values in a slab")
            }
        }
    }

    /// Free place `k`: the next [`Self::put`] may take it. Its value stays
    /// readable until then, but nothing should read it.
    #[inline]
    pub fn free(&mut self, k: u32) {
        self.free.push(k);
    }

    #[inline]
    pub fn get(&self, k: u32) -> &T {
        &self.items[k as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, k: u32) -> &mut T {
        &mut self.items[k as usize]
    }

    /// The high-water mark: places ever taken at once.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Give back the memory of every place (at the end of a run): nothing
    /// may be kept or read afterwards.
    pub fn release(&mut self) {
        self.items = Vec::new();
        self.free = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_place_freed_is_the_first_taken() {
        let mut s = Slab::default();
        let (a, b) = (s.put('a'), s.put('b'));
        s.free(a);
        s.free(b);
        assert_eq!(s.put('c'), b);
        assert_eq!(s.put('d'), a);
        assert_eq!(s.put('e'), 2);
        *s.get_mut(a) = 'x';
        assert_eq!((*s.get(a), *s.get(b), s.len()), ('x', 'c', 3));
        s.release();
        assert!(s.is_empty());
    }

    /// Past 128 KiB a slab takes room for 32 MiB and more at once, then
    /// doubles again; what it holds stays where it was put.
    #[test]
    fn a_large_slab_reserves_its_room_at_once() {
        use crate::engine::room::{LARGE, SMALL};
        let mut s: Slab<[u64; 8]> = Slab::default();
        let small = SMALL / 64;
        for i in 0..=small {
            assert_eq!(s.put([i as u64; 8]), i as u32);
        }
        assert!(s.items.capacity() * 64 >= LARGE);
        let room = s.items.capacity();
        for i in small + 1..=room {
            s.put([i as u64; 8]);
        }
        assert!(s.items.capacity() >= 2 * room);
        assert!((0..=room).all(|i| *s.get(i as u32) == [i as u64; 8]));
    }
}
