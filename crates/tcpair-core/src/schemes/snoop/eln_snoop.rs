//! ELN-based Snoop (Chen et al. 2002 §2.2 item 3, after Balakrishnan's ELN
//! variant of Snoop): no packet cache, no local
//! retransmissions. FH -> MH, the BS remembers which segment numbers it has
//! forwarded toward the MH; a DUPACK from the MH asking for one of them means
//! that packet was lost on the wireless hop (it got past the BS), so the
//! DUPACK gets the ELN bit and an ELN-aware sender retransmits without
//! cutting its window. DUPACKs asking for a packet the BS never forwarded
//! (lost upstream: congestion) go on unchanged. MH -> FH the behaviour is
//! Snoop's (shared code in `eln_track`). It never absorbs or injects.
//!
//! State: 4 bytes per remembered segment number, forgotten below the MH's
//! cumulative ACK.

use super::eln_track::{account, mark, on_packet, MhElnTracker, SnoopHalves};
use crate::bs::{conn_slot, AgentInfo, BsAgent, BsCtx, BsOut, Meters, Verdict};
use crate::engine::Time;
use crate::error::{from_value, ConfigError};
use crate::packet::{flags, FlowId, NodeId, Packet, SeqWindow};
use serde::Deserialize;

pub const INFO: AgentInfo = AgentInfo {
    name: "eln_snoop",
    summary: "ELN-based Snoop: no cache, ELN on DUPACKs for packets lost on the wireless hop",
    source: "Chen et al. 2002 §2.2",
    build,
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {}

fn build(v: &serde_json::Value, node: NodeId) -> Result<Box<dyn BsAgent>, ConfigError> {
    let _: Config = from_value(v)?;
    Ok(Box::new(ElnSnoop::new(node)))
}

/// FH -> MH state of one connection.
#[derive(Debug, Default)]
struct Conn {
    forwarded: SeqWindow,
    last_ack: Option<u32>,
    eln_marked: u64,
    dupacks_seen: u64,
}

#[derive(Debug)]
pub struct ElnSnoop {
    conns: Vec<Conn>,
    mh: MhElnTracker,
    meters: Meters,
}

impl ElnSnoop {
    pub fn new(_node: NodeId) -> Self {
        Self {
            conns: Vec::new(),
            mh: MhElnTracker::default(),
            meters: Meters::default(),
        }
    }

    fn conn(&mut self, flow: FlowId) -> usize {
        self.meters.touch(flow);
        conn_slot(&mut self.conns, flow, Default::default)
    }

    /// A DUPACK from the MH: ELN if the BS forwarded the wanted packet.
    #[inline]
    fn ack_from_mh(&mut self, now: Time, pkt: &mut Packet) {
        let i = self.conn(pkt.flow);
        let c = &mut self.conns[i];
        let ack = pkt.seq;
        if c.last_ack == Some(ack) {
            c.dupacks_seen += 1;
            if c.forwarded.contains(ack) {
                pkt.flags |= flags::ELN;
                c.eln_marked += 1;
            }
        } else if c.last_ack.is_none_or(|l| ack > l) {
            c.last_ack = Some(ack);
            let before = c.forwarded.len();
            c.forwarded.advance(ack);
            account(now, pkt.flow, before, c.forwarded.len(), &mut self.meters);
        }
    }
}

impl SnoopHalves for ElnSnoop {
    /// Remember that the BS forwarded this segment toward the MH.
    #[inline]
    fn on_data_to_mh(&mut self, now: Time, pkt: &Packet) {
        let i = self.conn(pkt.flow);
        let w = &mut self.conns[i].forwarded;
        let before = w.len();
        mark(w, pkt.seq);
        account(now, pkt.flow, before, w.len(), &mut self.meters);
    }

    /// Marked or not, never absorbed.
    #[inline]
    fn on_ack_from_mh(&mut self, now: Time, pkt: &mut Packet, _out: &mut BsOut) -> Verdict {
        self.ack_from_mh(now, pkt);
        Verdict::Forward
    }

    #[inline]
    fn mh_half(&mut self, flow: FlowId) -> (&mut MhElnTracker, &mut Meters) {
        self.conn(flow);
        (&mut self.mh, &mut self.meters)
    }
}

impl BsAgent for ElnSnoop {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_packet(&mut self, now: Time, ctx: &BsCtx, pkt: &mut Packet, out: &mut BsOut) -> Verdict {
        on_packet(self, now, ctx, pkt, out)
    }

    fn couples_connections(&self) -> bool {
        false
    }

    fn meters(&self) -> &Meters {
        &self.meters
    }

    fn meters_mut(&mut self) -> &mut Meters {
        &mut self.meters
    }

    fn counters(&self, flow: FlowId) -> Vec<(&'static str, u64)> {
        let (fh, dup) = self
            .conns
            .get(flow as usize)
            .map(|c| (c.eln_marked, c.dupacks_seen))
            .unwrap_or((0, 0));
        vec![
            ("eln_marked", fh + self.mh.eln_marked(flow)),
            ("dupacks_seen", dup),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bs::testing::{earliest, pkt, DOWN, UP};
    use crate::packet::PktKind;

    #[test]
    fn dupacks_for_forwarded_packets_get_eln_others_not() {
        let mut bs = ElnSnoop::new(1);
        let mut out = BsOut::default();
        // The BS forwards 0, 1, 3, 4 (2 was lost upstream).
        for s in [0, 1, 3, 4] {
            let mut d = pkt(0, PktKind::Data, s);
            assert_eq!(bs.on_packet(0, &DOWN, &mut d, &mut out), Verdict::Forward);
        }
        assert_eq!(bs.meters().total().bytes, 5 * 4);
        // MH acks 1 (0 arrived), then DUPACKs for 1: lost on the wireless hop.
        let mut a = pkt(0, PktKind::Ack, 1);
        bs.on_packet(0, &UP, &mut a, &mut out);
        assert!(!a.has_flag(flags::ELN));
        assert_eq!(bs.meters().total().bytes, 4 * 4);
        for _ in 0..3 {
            let mut d = pkt(0, PktKind::Ack, 1);
            assert_eq!(bs.on_packet(0, &UP, &mut d, &mut out), Verdict::Forward);
            assert!(d.has_flag(flags::ELN));
        }
        // New ACK 2, then DUPACKs for 2, never forwarded: congestion, no ELN.
        let mut a = pkt(0, PktKind::Ack, 2);
        bs.on_packet(0, &UP, &mut a, &mut out);
        for _ in 0..3 {
            let mut d = pkt(0, PktKind::Ack, 2);
            assert_eq!(bs.on_packet(0, &UP, &mut d, &mut out), Verdict::Forward);
            assert!(!d.has_flag(flags::ELN));
        }
        assert!(out.inject.is_empty());
        assert_eq!(bs.counters(0), vec![("eln_marked", 3), ("dupacks_seen", 6)]);
        assert!(earliest(&bs).is_none());
    }

    #[test]
    fn mh_to_fh_holes_get_eln() {
        let mut bs = ElnSnoop::new(1);
        let mut out = BsOut::default();
        for s in [0, 2] {
            let mut d = pkt(3, PktKind::Data, s);
            bs.on_packet(0, &UP, &mut d, &mut out);
        }
        let mut a = pkt(3, PktKind::Ack, 1);
        bs.on_packet(0, &DOWN, &mut a, &mut out);
        assert!(!a.has_flag(flags::ELN));
        let mut d = pkt(3, PktKind::Ack, 1);
        bs.on_packet(0, &DOWN, &mut d, &mut out);
        assert!(d.has_flag(flags::ELN));
        assert_eq!(bs.counters(3)[0], ("eln_marked", 1));
    }

    #[test]
    fn config_rejects_unknown_fields() {
        let e = build(&serde_json::json!({"cache": 5}), 1).unwrap_err();
        assert!(e.to_string().contains("cache"), "{e}");
    }
}
