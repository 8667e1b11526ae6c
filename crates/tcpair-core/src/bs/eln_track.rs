//! Sequence-number bookkeeping shared by the ELN agents: [`SeqWindow`] (which
//! segment numbers of a connection the BS has seen, from the receiver's
//! cumulative ACK upward) and [`MhElnTracker`], the MH -> FH half of Snoop's
//! ELN behaviour used by both `snoop` and `eln_snoop` (SPEC "Snoop", MH->FH
//! direction; paper 000 §2.2 item 3).
//!
//! MH -> FH: the BS records the segment numbers arriving from the MH (they
//! crossed the wireless hop). A number below the highest seen that never
//! arrived is a *hole*: the segment was lost on the wireless hop (or is still
//! reordered on it). DUPACKs from the FH asking for a hole get the ELN bit on
//! their way to the MH, so an ELN-aware sender retransmits without cutting
//! its window.
//!
//! State is bounded: numbers below the FH's cumulative ACK are forgotten,
//! and the window never spans more than [`MAX_WINDOW`] numbers (the oldest
//! are dropped). Each number in the window (seen or hole) is accounted as
//! 4 bytes, the size of one remembered 32-bit sequence number.

use std::collections::VecDeque;

use super::Meters;
use crate::engine::Time;
use crate::packet::{flags, FlowId, Packet};

/// Bytes of state per remembered sequence number (or hole).
pub const SEQ_BYTES: i64 = 4;

/// At most this many consecutive numbers are remembered per connection.
pub const MAX_WINDOW: usize = 1 << 16;

/// Which numbers in `[base, base + len)` were seen.
#[derive(Debug, Clone, Default)]
pub struct SeqWindow {
    base: u32,
    seen: VecDeque<bool>,
}

impl SeqWindow {
    /// Numbers remembered (seen or hole).
    #[inline]
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Record `seq` as seen. Numbers below the window's base are ignored.
    pub fn mark(&mut self, seq: u32) {
        if seq < self.base {
            return;
        }
        let mut idx = (seq - self.base) as usize;
        if idx >= MAX_WINDOW {
            // Keep the state bounded: forget the oldest numbers.
            let drop = idx + 1 - MAX_WINDOW;
            let n = drop.min(self.seen.len());
            self.seen.drain(..n);
            self.base += drop as u32;
            idx = MAX_WINDOW - 1;
        }
        if self.seen.len() <= idx {
            self.seen.resize(idx + 1, false);
        }
        self.seen[idx] = true;
    }

    /// Forget every number below `ack` (the cumulative ACK).
    pub fn advance(&mut self, ack: u32) {
        if ack <= self.base {
            return;
        }
        let n = ((ack - self.base) as usize).min(self.seen.len());
        self.seen.drain(..n);
        self.base = ack;
    }

    /// `seq` was seen (and is not yet forgotten).
    pub fn contains(&self, seq: u32) -> bool {
        seq >= self.base
            && self
                .seen
                .get((seq - self.base) as usize)
                .copied()
                .unwrap_or(false)
    }

    /// `seq` was never seen although a higher number was.
    pub fn is_hole(&self, seq: u32) -> bool {
        seq >= self.base && matches!(self.seen.get((seq - self.base) as usize), Some(false))
    }
}

/// MH -> FH state of one connection.
#[derive(Debug, Clone, Default)]
struct MhConn {
    from_mh: SeqWindow,
    last_ack: Option<u32>,
}

/// The MH -> FH ELN behaviour, per connection (indexed by flow id).
#[derive(Debug, Default)]
pub struct MhElnTracker {
    conns: Vec<MhConn>,
    eln_marked: Vec<u64>,
}

impl MhElnTracker {
    fn conn(&mut self, flow: FlowId) -> usize {
        let i = flow as usize;
        if self.conns.len() <= i {
            self.conns.resize_with(i + 1, MhConn::default);
            self.eln_marked.resize(i + 1, 0);
        }
        i
    }

    /// A data packet that has just crossed the wireless hop from the MH.
    pub fn on_data_from_mh(&mut self, now: Time, pkt: &Packet, meters: &mut Meters) {
        let i = self.conn(pkt.flow);
        let w = &mut self.conns[i].from_mh;
        let before = w.len();
        w.mark(pkt.seq);
        account(now, pkt.flow, before, w.len(), meters);
    }

    /// An ACK from the FH on its way to the MH: forget what it acknowledges;
    /// a duplicate asking for a wireless hole gets ELN. Returns whether it
    /// was marked.
    pub fn on_ack_to_mh(&mut self, now: Time, pkt: &mut Packet, meters: &mut Meters) -> bool {
        let i = self.conn(pkt.flow);
        let c = &mut self.conns[i];
        let ack = pkt.seq;
        let dup = c.last_ack == Some(ack);
        if c.last_ack.is_none_or(|l| ack > l) {
            c.last_ack = Some(ack);
            let before = c.from_mh.len();
            c.from_mh.advance(ack);
            account(now, pkt.flow, before, c.from_mh.len(), meters);
        }
        if dup && c.from_mh.is_hole(ack) {
            pkt.flags |= flags::ELN;
            self.eln_marked[i] += 1;
            return true;
        }
        false
    }

    /// DUPACKs marked with ELN for `flow`.
    pub fn eln_marked(&self, flow: FlowId) -> u64 {
        self.eln_marked.get(flow as usize).copied().unwrap_or(0)
    }
}

/// Account a window's change of length as 4 bytes per number.
#[inline]
pub fn account(now: Time, flow: FlowId, before: usize, after: usize, meters: &mut Meters) {
    if before != after {
        let d = after as i64 - before as i64;
        meters.add(now, flow, 0, d * SEQ_BYTES);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! Also the BS agents' shared test helpers: packets and contexts.
    use super::*;
    use crate::bs::BsCtx;
    use crate::net::LinkKind;
    use crate::packet::{LossBlocks, PktKind, Retx, SackBlocks, SynTags};

    /// FH -> MH data, and ACKs toward the FH from the MH.
    pub(crate) const DOWN: BsCtx = BsCtx {
        node: 1,
        in_kind: LinkKind::Wired,
        out_kind: LinkKind::Wireless,
    };
    /// MH -> FH data, and ACKs toward the MH from the FH.
    pub(crate) const UP: BsCtx = BsCtx {
        node: 1,
        in_kind: LinkKind::Wireless,
        out_kind: LinkKind::Wired,
    };

    pub(crate) fn pkt(flow: FlowId, kind: PktKind, seq: u32) -> Packet {
        Packet {
            id: 0,
            flow,
            kind,
            src: 0,
            dst: 2,
            size: if kind == PktKind::Data { 1000 } else { 40 },
            seq,
            flags: 0,
            retx: Retx::Original,
            sent_at: 0,
            ts_echo: 0,
            sack: SackBlocks::default(),
            syn: SynTags::default(),
            loss: LossBlocks::default(),
            hop: 1,
        }
    }

    #[test]
    fn window_marks_holes_and_forgets_below_ack() {
        let mut w = SeqWindow::default();
        w.mark(0);
        w.mark(2);
        assert!(w.contains(0) && w.contains(2));
        assert!(w.is_hole(1));
        assert!(!w.is_hole(3) && !w.contains(3));
        w.advance(2);
        assert_eq!(w.len(), 1);
        assert!(!w.contains(0));
        w.mark(1); // below the base: ignored
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn window_is_bounded() {
        let mut w = SeqWindow::default();
        w.mark(0);
        w.mark(MAX_WINDOW as u32 + 10);
        assert_eq!(w.len(), MAX_WINDOW);
        assert!(w.contains(MAX_WINDOW as u32 + 10));
        assert!(!w.contains(0));
    }

    #[test]
    fn dupacks_for_a_wireless_hole_get_eln() {
        let mut t = MhElnTracker::default();
        let mut m = Meters::default();
        // MH sends 0..=4; 2 is lost on the wireless hop.
        for s in [0, 1, 3, 4] {
            t.on_data_from_mh(0, &pkt(0, PktKind::Data, s), &mut m);
        }
        assert_eq!(m.total.bytes, 5 * 4);
        let mut a = pkt(0, PktKind::Ack, 2);
        assert!(!t.on_ack_to_mh(1, &mut a, &mut m)); // new ACK: not marked
        assert_eq!(a.flags & flags::ELN, 0);
        assert_eq!(m.total.bytes, 3 * 4); // 0 and 1 forgotten
        let mut d = pkt(0, PktKind::Ack, 2);
        assert!(t.on_ack_to_mh(2, &mut d, &mut m));
        assert!(d.has_flag(flags::ELN));
        assert_eq!(t.eln_marked(0), 1);
    }

    #[test]
    fn dupacks_for_a_packet_that_crossed_the_wireless_hop_are_not_marked() {
        let mut t = MhElnTracker::default();
        let mut m = Meters::default();
        // All of 0..=4 reached the BS: a later loss is in the wired part.
        for s in 0..5 {
            t.on_data_from_mh(0, &pkt(0, PktKind::Data, s), &mut m);
        }
        for _ in 0..3 {
            let mut d = pkt(0, PktKind::Ack, 2);
            assert!(!t.on_ack_to_mh(0, &mut d, &mut m));
            assert!(!d.has_flag(flags::ELN));
        }
        // Another flow is independent.
        t.on_data_from_mh(0, &pkt(1, PktKind::Data, 1), &mut m);
        let mut a = pkt(1, PktKind::Ack, 0);
        t.on_ack_to_mh(0, &mut a, &mut m);
        let mut d = pkt(1, PktKind::Ack, 0);
        assert!(t.on_ack_to_mh(0, &mut d, &mut m));
        assert_eq!((t.eln_marked(0), t.eln_marked(1)), (0, 1));
    }
}
