//! The packet cache of a caching BS agent (Snoop, CLRP): the cached
//! entries of all of an agent's connections in one [`Store`], each
//! connection's [`Cache`] holding the places of its own in sequence order.
//!
//! A connection's cache fills up while a wireless loss is repaired and
//! empties again when the MH's ACK comes: at 10,000 Snoop flows it held 7.4
//! packets on average and 30 at its peak. A vector per connection keeps the
//! capacity of its peak for good, so the agent held the sum of every
//! connection's peak; one store for all holds about the most the
//! connections had cached at one time, the sum of their averages and a
//! little more (3 KiB a flow less at 10,000 Snoop flows:
//! docs/performance.md, "What every flow holds"). A place freed is the next
//! one taken, so a connection's next packet goes where its last freed one
//! was, still in the caches.

use std::collections::VecDeque;

use crate::engine::Slab;
use crate::packet::DataPacket;

/// An entry of a [`Cache`]: a cached data packet, and whatever the agent
/// keeps with it.
pub trait Entry: Copy {
    /// The data packet's sequence number, the cache's order.
    fn seq(&self) -> u32;
}

impl Entry for DataPacket {
    #[inline]
    fn seq(&self) -> u32 {
        self.seq
    }
}

/// The cached packets of an agent's connections.
#[derive(Debug)]
pub struct Store<T>(Slab<T>);

impl<T> Default for Store<T> {
    fn default() -> Self {
        Self(Slab::default())
    }
}

impl<T: Entry> Store<T> {
    /// The entry at place `k`.
    #[inline]
    fn at(&self, k: u32) -> &T {
        self.0.get(k)
    }

    /// Free place `k`, returning its entry.
    #[inline]
    fn take(&mut self, k: u32) -> T {
        self.0.free(k);
        *self.0.get(k)
    }
}

/// One connection's cached packets: their places in the agent's [`Store`],
/// sorted by sequence number. Every method takes that store.
#[derive(Debug, Default, Clone)]
pub struct Cache(VecDeque<u32>);

impl Cache {
    #[inline]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `i`-th cached entry in sequence order.
    #[inline]
    pub fn get<'s, T: Entry>(&self, s: &'s Store<T>, i: usize) -> &'s T {
        s.at(self.0[i])
    }

    #[inline]
    pub fn get_mut<'s, T: Entry>(&self, s: &'s mut Store<T>, i: usize) -> &'s mut T {
        s.0.get_mut(self.0[i])
    }

    #[inline]
    pub fn front<'s, T: Entry>(&self, s: &'s Store<T>) -> Option<&'s T> {
        self.0.front().map(|&k| s.at(k))
    }

    #[inline]
    pub fn back<'s, T: Entry>(&self, s: &'s Store<T>) -> Option<&'s T> {
        self.0.back().map(|&k| s.at(k))
    }

    /// The index of the entry of `seq` (`Err`: where it would go).
    #[inline]
    pub fn find<T: Entry>(&self, s: &Store<T>, seq: u32) -> Result<usize, usize> {
        self.0.binary_search_by_key(&seq, |&k| s.at(k).seq())
    }

    /// Cache `e`, above every entry cached.
    #[inline]
    pub fn push_back<T: Entry>(&mut self, s: &mut Store<T>, e: T) {
        let k = s.0.put(e);
        self.0.push_back(k);
    }

    /// Cache `e` in its place in sequence order.
    pub fn insert_sorted<T: Entry>(&mut self, s: &mut Store<T>, e: T) {
        let at = self.0.partition_point(|&k| s.at(k).seq() < e.seq());
        let k = s.0.put(e);
        self.0.insert(at, k);
    }

    /// Free the lowest cached entry and return it.
    #[inline]
    pub fn pop_front<T: Entry>(&mut self, s: &mut Store<T>) -> Option<T> {
        self.0.pop_front().map(|k| s.take(k))
    }

    /// The cached entries in sequence order.
    pub fn iter<'a, T: Entry>(&'a self, s: &'a Store<T>) -> impl Iterator<Item = &'a T> + 'a {
        self.0.iter().map(|&k| s.at(k))
    }

    /// Free every cached entry, returning them in sequence order (a
    /// handoff moves them to another agent's store).
    pub fn take_all<T: Entry>(&mut self, s: &mut Store<T>) -> Vec<T> {
        self.0.drain(..).map(|k| s.take(k)).collect()
    }

    /// Ask for the lowest and the highest cached entries to be loaded.
    #[inline]
    pub fn prefetch_ends<T: Entry>(&self, s: &Store<T>) {
        for &k in [self.0.front(), self.0.back()].into_iter().flatten() {
            crate::engine::prefetch(s.at(k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cached(seq: u32) -> DataPacket {
        crate::packet::Packet::data(0, (0, 1), 1000, seq, 0).to_data()
    }

    fn seqs(c: &Cache, s: &Store<DataPacket>) -> Vec<u32> {
        c.iter(s).map(|e| e.seq).collect()
    }

    #[test]
    fn connections_share_the_store_and_keep_their_own_order() {
        let (mut s, mut a, mut b) = (Store::default(), Cache::default(), Cache::default());
        for seq in [1, 2, 5] {
            a.push_back(&mut s, cached(seq));
        }
        b.push_back(&mut s, cached(9));
        a.insert_sorted(&mut s, cached(3));
        assert_eq!(seqs(&a, &s), [1, 2, 3, 5]);
        assert_eq!(seqs(&b, &s), [9]);
        assert_eq!((a.find(&s, 3), a.find(&s, 4)), (Ok(2), Err(3)));
        assert_eq!(a.pop_front(&mut s).map(|e| e.seq), Some(1));
        a.get_mut(&mut s, 0).size = 40;
        assert_eq!((a.get(&s, 0).seq, a.get(&s, 0).size), (2, 40));
        assert_eq!(a.front(&s).map(|e| e.seq), Some(2));
        assert_eq!(a.back(&s).map(|e| e.seq), Some(5));
    }

    #[test]
    fn a_freed_place_is_the_next_one_taken() {
        let (mut s, mut a, mut b) = (Store::default(), Cache::default(), Cache::default());
        for seq in 0..4 {
            a.push_back(&mut s, cached(seq));
        }
        let moved = a.take_all(&mut s);
        assert_eq!(
            moved.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert!(a.is_empty());
        for seq in 10..14 {
            b.push_back(&mut s, cached(seq));
        }
        assert_eq!(s.0.len(), 4, "the four freed places are taken again");
        assert_eq!(seqs(&b, &s), [10, 11, 12, 13]);
        assert_eq!(b.len(), 4);
    }
}
