//! One hop of the loop: a FIFO link for data packets, a fixed delay for
//! ACKs, and the hop's scripted impairments (kills, extra delays,
//! duplicates), all keyed by (segment, k-th transmission over this hop).

use crate::engine::Time;
use crate::net::LinkKind;
use std::collections::HashMap;

/// The two hops of a loop: A leaves the sender, B reaches the receiver
/// (only with a middle node).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopId {
    A,
    B,
}

/// A hop's timing.
///
/// Data packets are serialized one after the other (FIFO): a packet put on
/// the hop at `now` leaves at `free = max(free, now) + ser` and arrives
/// `delay` later. ACKs are not queued: an ACK takes `ack_ser + delay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// Wired or wireless: what the BS agent is told in its [`crate::bs::BsCtx`].
    pub kind: LinkKind,
    /// Serialization time of one data packet.
    pub ser: Time,
    /// Propagation delay (both directions).
    pub delay: Time,
    /// Transmission time of an ACK, added to `delay` (ACKs are not queued).
    pub ack_ser: Time,
    /// A killed data packet is dropped before the link and takes no
    /// serialization time. By default it is lost on the link, after its slot.
    pub kill_before_link: bool,
}

impl Link {
    /// A hop of `kind`: `ser` per data packet, `delay` of propagation.
    pub fn new(kind: LinkKind, ser: Time, delay: Time) -> Self {
        Self {
            kind,
            ser,
            delay,
            ack_ser: 0,
            kill_before_link: false,
        }
    }

    pub fn wired(ser: Time, delay: Time) -> Self {
        Self::new(LinkKind::Wired, ser, delay)
    }

    pub fn wireless(ser: Time, delay: Time) -> Self {
        Self::new(LinkKind::Wireless, ser, delay)
    }

    /// ACKs take `t` more than the propagation delay.
    pub fn ack_ser(self, t: Time) -> Self {
        Self { ack_ser: t, ..self }
    }

    /// Killed packets are dropped before the link (they free their slot).
    pub fn kill_before_link(self) -> Self {
        Self {
            kill_before_link: true,
            ..self
        }
    }

    /// When an ACK put on this hop at `now` arrives.
    pub(super) fn ack_arrival(&self, now: Time) -> Time {
        now + self.ack_ser + self.delay
    }
}

/// What became of one data transmission over a hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fate {
    /// Killed: the `k`-th transmission of its segment over this hop.
    Lost { k: u32 },
    /// Arrives at `at`, and a network duplicate of it at `copy_at`.
    Arrives { at: Time, copy_at: Option<Time> },
}

/// A hop's timing, script and state.
#[derive(Debug)]
pub(super) struct Hop {
    pub(super) link: Link,
    kills: Vec<(u32, u32)>,
    extra: HashMap<(u32, u32), i64>,
    dups: HashMap<(u32, u32), Time>,
    /// When the link finishes serializing what it was given.
    free: Time,
    /// Transmissions so far over this hop, per segment.
    count: HashMap<u32, u32>,
}

impl Hop {
    pub(super) fn new(link: Link) -> Self {
        Self {
            link,
            kills: Vec::new(),
            extra: HashMap::new(),
            dups: HashMap::new(),
            free: 0,
            count: HashMap::new(),
        }
    }

    pub(super) fn kill(&mut self, seq: u32, k: u32) {
        self.kills.push((seq, k));
    }

    pub(super) fn extra_delay(&mut self, seq: u32, k: u32, by: i64) {
        self.extra.insert((seq, k), by);
    }

    pub(super) fn duplicate(&mut self, seq: u32, k: u32, after: Time) {
        self.dups.insert((seq, k), after);
    }

    /// Some kill, extra delay or duplicate is scripted.
    pub(super) fn scripted(&self) -> bool {
        !(self.kills.is_empty() && self.extra.is_empty() && self.dups.is_empty())
    }

    /// Put a data packet of segment `seq` on the hop at `now`.
    pub(super) fn transmit(&mut self, now: Time, seq: u32) -> Fate {
        let n = self.count.entry(seq).or_insert(0);
        *n += 1;
        let key = (seq, *n);
        let killed = self.kills.contains(&key);
        if killed && self.link.kill_before_link {
            return Fate::Lost { k: key.1 };
        }
        self.free = self.free.max(now) + self.link.ser;
        if killed {
            return Fate::Lost { k: key.1 };
        }
        let base = self.free + self.link.delay;
        let at = match self.extra.get(&key) {
            Some(&by) => base.checked_add_signed(by).filter(|&t| t >= now),
            None => Some(base),
        };
        let at = at.unwrap_or_else(|| {
            panic!("{key:?}: an extra delay makes it arrive before it was sent")
        });
        Fate::Arrives {
            at,
            copy_at: self.dups.get(&key).map(|d| at + d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;

    #[test]
    fn fifo_kills_extra_delay_and_copies() {
        let mut h = Hop::new(Link::wired(4 * MS, 10 * MS));
        h.kill(1, 1);
        h.extra_delay(2, 1, -(3 * MS as i64));
        h.duplicate(0, 1, MS);
        let at = |at, copy_at| Fate::Arrives { at, copy_at };
        assert_eq!(h.transmit(0, 0), at(14 * MS, Some(15 * MS)));
        // Lost on the link: it still takes its slot.
        assert_eq!(h.transmit(0, 1), Fate::Lost { k: 1 });
        assert_eq!(h.transmit(0, 2), at(19 * MS, None));
        assert_eq!(h.transmit(0, 1), at(26 * MS, None));
        // Before the link: no slot taken.
        let mut h = Hop::new(Link::wired(4 * MS, 10 * MS).kill_before_link());
        h.kill(0, 1);
        assert_eq!(h.transmit(0, 0), Fate::Lost { k: 1 });
        assert_eq!(h.transmit(0, 0), at(14 * MS, None));
    }
}
