//! Sequence-number bookkeeping shared by the ELN agents: bounded marking of
//! a [`SeqWindow`] (which segment numbers of a connection the BS has seen,
//! from the receiver's cumulative ACK upward) and [`MhElnTracker`], the MH -> FH half of Snoop's
//! ELN behaviour used by both `snoop` and `eln_snoop` (MH->FH direction;
//! Chen et al. 2002 §2.2 item 3).
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
//!
//! [`SnoopHalves`] and [`on_packet`]: how each of the three agents hands a
//! packet to its own FH -> MH half or to this MH -> FH one.

use crate::bs::{conn_slot, BsCtx, BsOut, Meters, Verdict, SEQ_BYTES};
use crate::engine::Time;
use crate::packet::{flags, FlowId, Packet, PktKind, SeqWindow};

/// A Snoop agent (`snoop`, `snoop_ns2`, `eln_snoop`) as two halves: its own
/// FH -> MH half and the MH -> FH half of [`MhElnTracker`] they share.
/// Implementations mark these methods `#[inline]`: they run for every
/// packet, and left as calls they cost about 1% more instructions in a
/// Snoop run.
pub(super) trait SnoopHalves {
    /// FH -> MH: a data packet about to cross the wireless hop.
    fn on_data_to_mh(&mut self, now: Time, pkt: &Packet);
    /// FH -> MH: an ACK that has just crossed the wireless hop from the MH;
    /// it may be marked or absorbed.
    fn on_ack_from_mh(&mut self, now: Time, pkt: &mut Packet, out: &mut BsOut) -> Verdict;
    /// The MH -> FH half and the agent's meters, once `flow`'s connection
    /// is made (its meter touched).
    fn mh_half(&mut self, flow: FlowId) -> (&mut MhElnTracker, &mut Meters);
}

/// `BsAgent::on_packet` of a Snoop agent: a packet toward or from the MH
/// goes to the agent's FH -> MH half, one from or toward the FH side of an
/// MH sender to the shared MH -> FH half.
#[inline]
pub(super) fn on_packet(
    a: &mut impl SnoopHalves,
    now: Time,
    ctx: &BsCtx,
    pkt: &mut Packet,
    out: &mut BsOut,
) -> Verdict {
    match pkt.kind {
        PktKind::Data => {
            if ctx.toward_wireless() {
                a.on_data_to_mh(now, pkt);
            }
            if ctx.from_wireless() {
                let (mh, meters) = a.mh_half(pkt.flow);
                mh.on_data_from_mh(now, pkt, meters);
            }
            Verdict::Forward
        }
        PktKind::Ack => {
            if ctx.from_wireless() && a.on_ack_from_mh(now, pkt, out) == Verdict::Absorb {
                return Verdict::Absorb;
            }
            if ctx.toward_wireless() {
                let (mh, meters) = a.mh_half(pkt.flow);
                mh.on_ack_to_mh(now, pkt, meters);
            }
            Verdict::Forward
        }
    }
}

/// At most this many consecutive numbers are remembered per connection.
pub const MAX_WINDOW: usize = 1 << 16;

/// MH -> FH state of one connection.
#[derive(Debug, Clone, Default)]
struct MhConn {
    from_mh: SeqWindow,
    last_ack: Option<u32>,
    eln_marked: u64,
}

/// The MH -> FH ELN behaviour, per connection (indexed by flow id).
#[derive(Debug, Default)]
pub struct MhElnTracker {
    conns: Vec<MhConn>,
}

impl MhElnTracker {
    fn conn(&mut self, flow: FlowId) -> usize {
        conn_slot(&mut self.conns, flow, MhConn::default)
    }

    /// A data packet that has just crossed the wireless hop from the MH.
    pub fn on_data_from_mh(&mut self, now: Time, pkt: &Packet, meters: &mut Meters) {
        let i = self.conn(pkt.flow);
        let w = &mut self.conns[i].from_mh;
        let before = w.len();
        mark(w, pkt.seq);
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
            c.eln_marked += 1;
            return true;
        }
        false
    }

    /// DUPACKs marked with ELN for `flow`.
    pub fn eln_marked(&self, flow: FlowId) -> u64 {
        self.conns.get(flow as usize).map_or(0, |c| c.eln_marked)
    }
}

/// Mark `seq` in a BS's window of seen numbers, keeping it within
/// [`MAX_WINDOW`] numbers (the oldest are forgotten).
#[inline]
pub fn mark(w: &mut SeqWindow, seq: u32) {
    w.make_room(seq, MAX_WINDOW);
    w.mark(seq, true);
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
mod tests {
    use super::*;
    use crate::bs::testing::pkt;
    use crate::packet::PktKind;

    #[test]
    fn marking_keeps_the_window_bounded() {
        let mut w = SeqWindow::default();
        mark(&mut w, 0);
        mark(&mut w, MAX_WINDOW as u32 + 10);
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
        assert_eq!(m.total().bytes, 5 * 4);
        let mut a = pkt(0, PktKind::Ack, 2);
        assert!(!t.on_ack_to_mh(1, &mut a, &mut m)); // new ACK: not marked
        assert_eq!(a.flags & flags::ELN, 0);
        assert_eq!(m.total().bytes, 3 * 4); // 0 and 1 forgotten
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
