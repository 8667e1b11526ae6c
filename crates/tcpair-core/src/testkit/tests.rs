//! The loop's own timing, routing and records.

use super::*;
use crate::bs::{BsCtx, Meters, Verdict};
use crate::engine::{MS, SEC, US};
use crate::net::LinkKind;
use crate::packet::{flags, PktKind, Retx};
use std::collections::HashMap;

/// A Reno transfer of `n` segments, all sent at time 0.
fn burst(n: u64) -> TcpConfig {
    TcpConfig {
        initial_cwnd: n as f64,
        total_segments: Some(n),
        ..TcpConfig::default()
    }
}

fn times(v: &[(Time, Packet)]) -> Vec<Time> {
    v.iter().map(|(t, _)| *t).collect()
}

/// Data queue behind each other on a hop; ACKs are not queued.
#[test]
fn one_hop_is_fifo_for_data() {
    let mut lp = Loop::new(burst(3), SinkConfig::default())
        .hop_a(Link::wired(MS, 10 * MS).ack_ser(100 * US));
    lp.run_until(SEC);
    assert!(lp.finished());
    let r = lp.record();
    assert!(r.sent.iter().all(|s| s.t == 0 && !s.retransmit));
    assert_eq!(times(&r.at_receiver), vec![11 * MS, 12 * MS, 13 * MS]);
    let acks: Vec<(Time, u32)> = r.acks_at_sender.iter().map(|a| (a.t, a.ack.ack)).collect();
    let at = |ms: u64, ack| (ms * MS + 10 * MS + 100 * US, ack);
    assert_eq!(acks, vec![at(11, 1), at(12, 1 + 1), at(13, 3)]);
    assert!(r.at_bs.is_empty());
}

/// Two hops through a plain relay: each hop has its own FIFO, and ACKs
/// cross the middle node.
#[test]
fn two_hops_through_a_relay() {
    let mut lp = Loop::new(burst(3), SinkConfig::default())
        .hop_a(Link::wired(MS, 10 * MS).ack_ser(100 * US))
        .hop_b(Link::wireless(2 * MS, 5 * MS).ack_ser(100 * US));
    lp.run_until(SEC);
    let r = lp.record();
    // At the BS at 11, 12, 13 ms; hop B frees at 13, 15, 17 ms.
    assert_eq!(times(&r.at_receiver), vec![18 * MS, 20 * MS, 22 * MS]);
    let kinds: Vec<(Time, PktKind)> = r.at_bs.iter().map(|(t, p)| (*t, p.kind)).collect();
    let ack = |ms| (ms * MS + 5 * MS + 100 * US, PktKind::Ack);
    let data = |ms| (ms * MS, PktKind::Data);
    let want = [data(11), data(12), data(13), ack(18), ack(20), ack(22)];
    assert_eq!(kinds, want);
    let last = r.acks_at_sender.last().expect("ACKs came back");
    assert_eq!(last.t, 22 * MS + 5 * MS + 10 * MS + 200 * US);
}

/// Extra delays reorder, duplicates are flagged copies, direct ACKs skip
/// the middle node.
#[test]
fn reordering_duplicates_and_direct_acks() {
    let mut lp = Loop::new(burst(4), SinkConfig::default())
        .hop_a(Link::wired(MS, 10 * MS))
        .hop_b(Link::wireless(0, 0))
        .acks_direct(20 * MS)
        .extra_delay_a(1, 1, 2_500_000)
        .duplicate_a(0, 1, 500 * US);
    lp.run_until(SEC);
    let r = lp.record();
    assert_eq!(r.bs_data_order(), vec![0, 0, 2, 3, 1]);
    assert_eq!(times(&r.at_bs)[..2], [11 * MS, 11 * MS + 500 * US]);
    let copies: Vec<bool> = r
        .at_bs
        .iter()
        .map(|(_, p)| p.has_flag(flags::IMPAIR_COPY))
        .collect();
    assert_eq!(copies, vec![false, true, false, false, false]);
    assert_eq!(times(&r.at_receiver), times(&r.at_bs));
    let sent: Vec<Time> = r.acks_sent.iter().map(|a| a.t + 20 * MS).collect();
    let back: Vec<Time> = r.acks_at_sender.iter().map(|a| a.t).collect();
    assert_eq!(back, sent[..back.len()]);
}

/// A killed ACK (the delayed-ACK timer's) leaves the sender to its timer.
#[test]
fn ack_kills_and_the_delayed_ack_timer() {
    let sink = SinkConfig {
        delayed_ack: true,
        ..SinkConfig::default()
    };
    let mut lp = Loop::new(burst(1), sink)
        .hop_a(Link::wired(0, 10 * MS))
        .kill_ack(1);
    lp.run_until(10 * SEC);
    assert!(lp.finished());
    let r = lp.record();
    let acks: Vec<(Time, bool, bool)> = r
        .acks_sent
        .iter()
        .map(|a| (a.t, a.on_timer, a.killed))
        .collect();
    let rtx_at = 3 * SEC + 10 * MS;
    assert_eq!(acks, vec![(110 * MS, true, true), (rtx_at, false, false)]);
    assert_eq!(r.timeout_times(), vec![3 * SEC]);
    assert_eq!(r.retransmitted(), vec![0]);
    assert_eq!(r.timer_acks(), 1);
}

/// A toy agent: caches data, absorbs duplicate ACKs, and on its timer
/// (1 ms after the first one) injects the segment they ask for.
#[derive(Debug, Default)]
struct Repair {
    cache: HashMap<u32, Packet>,
    last_ack: Option<u32>,
    due: Option<(Time, u32)>,
    repaired: bool,
    /// Data seen going wired -> wireless, ACKs wireless -> wired.
    down: u64,
    up: u64,
    meters: Meters,
}

impl BsAgent for Repair {
    fn name(&self) -> &'static str {
        "repair"
    }

    fn on_packet(&mut self, now: Time, ctx: &BsCtx, p: &mut Packet, _: &mut BsOut) -> Verdict {
        let (wired, wireless) = (LinkKind::Wired, LinkKind::Wireless);
        match p.kind {
            PktKind::Data => {
                self.down += u64::from(ctx.in_kind == wired && ctx.out_kind == wireless)
            }
            PktKind::Ack => self.up += u64::from(ctx.in_kind == wireless && ctx.out_kind == wired),
        }
        if p.kind == PktKind::Data {
            self.cache.insert(p.seq, *p);
            return Verdict::Forward;
        }
        if self.last_ack.replace(p.seq) != Some(p.seq) {
            return Verdict::Forward;
        }
        if !self.repaired && self.due.is_none() {
            self.due = Some((now + MS, p.seq));
        }
        Verdict::Absorb
    }

    fn deadline(&self, _flow: FlowId) -> Option<Time> {
        self.due.map(|(t, _)| t)
    }

    fn on_timer(&mut self, now: Time, _flow: FlowId, out: &mut BsOut) {
        let Some((t, seq)) = self.due else { return };
        if now >= t {
            self.due = None;
            self.repaired = true;
            out.inject
                .push(self.cache[&seq].with_retx(Retx::BaseStation));
        }
    }

    fn meters(&self) -> &Meters {
        &self.meters
    }

    fn meters_mut(&mut self) -> &mut Meters {
        &mut self.meters
    }

    fn counters(&self, _: FlowId) -> Vec<(&'static str, u64)> {
        let injected = u64::from(self.repaired);
        vec![("injected", injected), ("down", self.down), ("up", self.up)]
    }
}

/// The agent sees data toward the wireless hop and ACKs from it; its
/// timer's injection repairs a hop-B loss the sender never learns about.
#[test]
fn agent_absorbs_injects_on_its_timer() {
    let mut lp = Loop::new(burst(5), SinkConfig::default())
        .hop_a(Link::wired(MS, 10 * MS))
        .bs(Box::<Repair>::default())
        .hop_b(Link::wireless(MS, MS))
        .kill_b(1, 1);
    lp.run_until(SEC);
    assert!(lp.finished());
    let r = lp.record();
    assert_eq!(r.injected_seqs(), vec![1]);
    assert_eq!(r.injected[0].1.retx, Retx::BaseStation);
    // The first duplicate ACK reaches the BS at 16 ms: the timer fires at 17.
    assert_eq!(r.injected[0].0, 17 * MS);
    assert!(r
        .absorbed
        .iter()
        .all(|(_, p)| p.kind == PktKind::Ack && p.seq == 1));
    assert_eq!(r.absorbed.len(), 3);
    assert_eq!(r.retransmitted(), Vec::<u32>::new());
    assert_eq!(r.delivered, 5);
    assert_eq!(lp.bs_counter("injected"), Some(1));
    // Data go wired -> wireless, ACKs back (its own injection does not
    // pass the agent again).
    let arrived = |k| r.at_bs.iter().filter(|(_, p)| p.kind == k).count() as u64;
    assert_eq!(lp.bs_counter("down"), Some(arrived(PktKind::Data)));
    assert_eq!(lp.bs_counter("up"), Some(arrived(PktKind::Ack)));
    let lost = Lost {
        t: 12 * MS,
        hop: HopId::B,
        seq: 1,
        k: 1,
    };
    assert_eq!(r.lost, vec![lost]);
}

#[test]
#[should_panic(expected = "needs hop B")]
fn an_agent_needs_two_hops() {
    let mut lp = Loop::new(burst(1), SinkConfig::default()).bs(Box::<Repair>::default());
    lp.run_until(SEC);
}
