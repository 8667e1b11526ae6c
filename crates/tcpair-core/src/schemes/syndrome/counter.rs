//! Syndrome's BS part (Chen et al. 2002 §3, Fig. 1 lines 1-6): per connection a
//! counter C, 0 for the first data packet relayed, +1 for each later one,
//! attached to the packet as the AN option (mod 2^32, wrapping like a TCP
//! sequence number). The receiver's part is [`super::receiver`].
//!
//! "If a packet is dropped at the BS due to buffer overflow, it is treated
//! as being lost in the wireline network" (§3). FH -> MH (Table 2: the AN gap m
//! counts wireless losses) the number is given back when the BS's own output
//! queue drops the packet, so no AN gap appears. MH -> FH (Table 3: the AN gap
//! counts wireline losses, and n - m the wireless ones) the number is kept, so
//! the drop is an AN gap like any loss between the BS and the FH.
//! The tag also says on which side of this BS the wireless hop lies, which
//! picks the receiver's rules (Table 2 for FH -> MH, Table 3 for MH -> FH),
//! and which BS set it, so that a receiver can tell a new BS's counter after
//! a handoff from a gap (docs/syndrome.md).

use crate::bs::{conn_slot, AgentInfo, BsAgent, BsCtx, BsOut, Meters, Verdict};
use crate::engine::Time;
use crate::error::{from_value, ConfigError};
use crate::packet::{FlowId, NodeId, Packet, PktKind, SynTag};
use serde::Deserialize;

pub const INFO: AgentInfo = AgentInfo {
    name: "syndrome",
    summary: "Syndrome counter: numbers the data packets relayed per connection",
    source: "Chen et al. 2002 §3, Fig. 1 lines 1-6",
    build,
};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {}

/// Bytes of state per connection: the 32-bit counter.
const COUNTER_BYTES: i64 = 4;

/// One connection's counter.
#[derive(Debug, Clone, Copy, Default)]
struct Conn {
    /// The last number given (None before the first packet).
    last: Option<u32>,
    tagged: u64,
    returned: u64,
}

#[derive(Debug)]
pub struct SyndromeBs {
    node: NodeId,
    conns: Vec<Conn>,
    meters: Meters,
}

fn build(v: &serde_json::Value, node: NodeId) -> Result<Box<dyn BsAgent>, ConfigError> {
    let _: Config = from_value(v)?;
    Ok(Box::new(SyndromeBs::new(node)))
}

impl SyndromeBs {
    pub fn new(node: NodeId) -> Self {
        Self {
            node,
            conns: Vec::new(),
            meters: Meters::default(),
        }
    }
}

impl BsAgent for SyndromeBs {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_packet(&mut self, now: Time, ctx: &BsCtx, pkt: &mut Packet, _out: &mut BsOut) -> Verdict {
        if pkt.kind != PktKind::Data || !(ctx.toward_wireless() || ctx.from_wireless()) {
            return Verdict::Forward;
        }
        let i = conn_slot(&mut self.conns, pkt.flow, Conn::default);
        let conn = &mut self.conns[i];
        if conn.tagged == 0 {
            self.meters.add(now, pkt.flow, 0, COUNTER_BYTES);
        }
        let c = match conn.last {
            None => 0,                    // Fig. 1 line 2: count from zero
            Some(c) => c.wrapping_add(1), // line 4
        };
        conn.last = Some(c);
        conn.tagged += 1;
        // Line 5: attach C to the header.
        pkt.opts.syn.set(SynTag {
            bs: self.node + 1,
            downstream_wireless: ctx.toward_wireless(),
            an: c,
        });
        Verdict::Forward
    }

    fn on_queue_drop(&mut self, _now: Time, pkt: &Packet) {
        // Chen et al. 2002 §3: a packet dropped by the BS's own queue is a
        // wireline loss. Toward the wireless hop (Table 2) give its number
        // back; away from it (Table 3) the AN gap already says wireline. The
        // sim reports the drop right after this agent tagged it, so it holds
        // the latest number.
        let Some(tag) = pkt.opts.syn.iter().find(|t| t.bs == self.node + 1) else {
            return;
        };
        if !tag.downstream_wireless {
            return;
        }
        if let Some(conn) = self.conns.get_mut(pkt.flow as usize) {
            if conn.last == Some(tag.an) {
                conn.last = tag.an.checked_sub(1);
                conn.returned += 1;
            }
        }
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
        let c = self.conns.get(flow as usize).copied().unwrap_or_default();
        vec![("tagged", c.tagged), ("numbers_returned", c.returned)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bs::testing::{counter, pkt, DOWN, UP};
    use crate::net::LinkKind;

    fn data(flow: FlowId, seq: u32) -> Packet {
        pkt(flow, PktKind::Data, seq)
    }

    #[test]
    fn counts_from_zero_per_connection_and_returns_dropped_numbers() {
        let mut bs = SyndromeBs::new(1);
        let mut out = BsOut::default();
        let mut ans = Vec::new();
        for (flow, seq) in [(0, 0), (0, 1), (1, 0), (0, 2)] {
            let mut p = data(flow, seq);
            assert_eq!(bs.on_packet(0, &DOWN, &mut p, &mut out), Verdict::Forward);
            let t = p.opts.syn.iter().next().copied().unwrap();
            assert_eq!(t.bs, 2);
            assert!(t.downstream_wireless);
            ans.push((flow, t.an));
            if seq == 2 {
                // The BS queue drops it: the number is reused by the next packet.
                bs.on_queue_drop(0, &p);
            }
        }
        assert_eq!(ans, vec![(0, 0), (0, 1), (1, 0), (0, 2)]);
        let mut p = data(0, 3);
        bs.on_packet(0, &DOWN, &mut p, &mut out);
        assert_eq!(p.opts.syn.iter().next().unwrap().an, 2);
        assert_eq!(bs.counters(0), vec![("tagged", 4), ("numbers_returned", 1)]);
        assert_eq!(bs.meters().total().bytes, 8);
    }

    #[test]
    fn mh_to_fh_queue_drops_keep_their_number() {
        // Table 3: n - m wireless losses, m the AN gap. A packet the BS tagged and
        // its own queue toward the FH dropped must leave an AN gap (m = 1, n = 1:
        // w = 0, wireline), not give the number back (m = 0: w = 1, wireless).
        let mut bs = SyndromeBs::new(1);
        let mut out = BsOut::default();
        let mut ans = Vec::new();
        for seq in 0..3 {
            let mut p = data(0, seq);
            bs.on_packet(0, &UP, &mut p, &mut out);
            let t = p.opts.syn.iter().next().copied().unwrap();
            assert!(!t.downstream_wireless);
            ans.push(t.an);
            if seq == 1 {
                bs.on_queue_drop(0, &p);
            }
        }
        assert_eq!(ans, vec![0, 1, 2]);
        assert_eq!(counter(&bs, 0, "numbers_returned"), 0);
    }

    #[test]
    fn acks_and_wired_only_paths_are_untouched() {
        let mut bs = SyndromeBs::new(1);
        let mut out = BsOut::default();
        let mut a = data(0, 5);
        a.kind = PktKind::Ack;
        bs.on_packet(0, &DOWN, &mut a, &mut out);
        assert!(a.opts.syn.is_empty());
        let wired = BsCtx {
            node: 1,
            in_kind: LinkKind::Wired,
            out_kind: LinkKind::Wired,
        };
        let mut d = data(0, 1);
        bs.on_packet(0, &wired, &mut d, &mut out);
        assert!(d.opts.syn.is_empty());
    }

    #[test]
    fn counter_wraps_mod_2_32() {
        let mut bs = SyndromeBs::new(1);
        let i = conn_slot(&mut bs.conns, 0, Conn::default);
        bs.conns[i].last = Some(u32::MAX);
        let mut p = data(0, 9);
        bs.on_packet(0, &DOWN, &mut p, &mut BsOut::default());
        assert_eq!(p.opts.syn.iter().next().unwrap().an, 0);
    }
}
