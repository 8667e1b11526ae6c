//! Snoop's unit tests: each branch of `snoop_output()` and `snoop_input()`
//! (Amir et al. 1995 §3.1), the local timer, the limits and the MH -> FH ELN.
use super::super::params::parse;
use super::*;
use crate::bs::testing::{counter, earliest, fire, injected, pkt, DOWN, UP};
use crate::engine::MS;
use crate::net::LinkKind;
use crate::packet::flags;

fn snoop() -> Snoop {
    Snoop::new(1, SnoopParams::default())
}

fn with(v: serde_json::Value) -> Snoop {
    Snoop::new(1, parse(&v).unwrap())
}

fn data(bs: &mut Snoop, now: Time, flow: FlowId, seq: u32, out: &mut BsOut) -> Verdict {
    let mut p = pkt(flow, PktKind::Data, seq);
    p.sent_at = 77;
    bs.on_packet(now, &DOWN, &mut p, out)
}

/// An ACK echoing a packet the FH sent at the same time as all the
/// others (`sent_at` 77).
fn ack(bs: &mut Snoop, now: Time, flow: FlowId, seq: u32, out: &mut BsOut) -> Verdict {
    let mut p = pkt(flow, PktKind::Ack, seq);
    p.ts_echo = 77;
    bs.on_packet(now, &UP, &mut p, out)
}

#[test]
fn new_packets_are_cached_and_forwarded() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..3 {
        assert_eq!(data(&mut bs, 0, 0, s, &mut out), Verdict::Forward);
    }
    assert_eq!(bs.meters().total().pkts, 3);
    assert_eq!(bs.meters().flow(0).unwrap().held.bytes, 3000);
    // Before any RTT sample the timer uses initial_rto.
    assert_eq!(earliest(&bs), Some(100 * MS));
    assert!(out.inject.is_empty());
}

#[test]
fn sender_retransmission_of_a_cached_packet_resets_its_count() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..6 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    ack(&mut bs, MS, 0, 1, &mut out);
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
    assert_eq!(bs.conns[0].cache.get(&bs.store, 0).nrtx, 1);
    // The FH retransmits 1 itself: forwarded, count reset, not cached twice.
    let mut p = pkt(0, PktKind::Data, 1);
    p.retx = Retx::Sender;
    assert_eq!(
        bs.on_packet(3 * MS, &DOWN, &mut p, &mut out),
        Verdict::Forward
    );
    assert_eq!(bs.conns[0].cache.get(&bs.store, 0).nrtx, 0);
    assert_eq!(bs.meters().total().pkts, 5);
    assert_eq!(counter(&bs, 0, "sender_retransmits"), 1);
    assert!(out.inject.is_empty());
}

#[test]
fn uncached_out_of_sequence_packet_is_a_congestion_loss() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    // 2 was lost upstream of the BS.
    for s in [0, 1, 3, 4] {
        data(&mut bs, 0, 0, s, &mut out);
    }
    assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Forward);
    // A DUPACK for a packet never cached goes to the FH.
    assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Forward);
    assert_eq!(counter(&bs, 0, "dupacks_forwarded"), 1);
    // The sender's retransmission of 2 arrives: cached, marked.
    assert_eq!(data(&mut bs, 2 * MS, 0, 2, &mut out), Verdict::Forward);
    assert_eq!(counter(&bs, 0, "congestion_marked"), 1);
    let seqs: Vec<u32> = bs.conns[0]
        .cache
        .iter(&bs.store)
        .map(|e| e.pkt.seq)
        .collect();
    assert_eq!(seqs, vec![2, 3, 4]);
    assert!(bs.conns[0].cache.get(&bs.store, 0).congestion);
    // Its DUPACKs are forwarded too, no local retransmission.
    assert_eq!(ack(&mut bs, 3 * MS, 0, 2, &mut out), Verdict::Forward);
    assert_eq!(counter(&bs, 0, "dupacks_forwarded"), 2);
    assert!(out.inject.is_empty());
    // A packet below the MH's ACK is forwarded and not cached.
    assert_eq!(data(&mut bs, 4 * MS, 0, 0, &mut out), Verdict::Forward);
    assert_eq!(bs.meters().total().pkts, 3);
}

#[test]
fn spurious_ack_is_absorbed() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..4 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    assert_eq!(ack(&mut bs, MS, 0, 3, &mut out), Verdict::Forward);
    assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Absorb);
    assert_eq!(counter(&bs, 0, "spurious_acks"), 1);
}

#[test]
fn first_dupack_retransmits_once_and_expected_dupacks_are_absorbed() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..6 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    assert_eq!(ack(&mut bs, MS, 0, 1, &mut out), Verdict::Forward);
    // 1 lost on the wireless hop; 2..=5 arrive: four DUPACKs in all.
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(out.inject.len(), 1);
    let r = out.inject[0];
    assert_eq!((r.seq, r.retx, r.sent_at), (1, Retx::BaseStation, 77));
    out.inject.clear();
    for _ in 0..3 {
        assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
    }
    assert!(out.inject.is_empty());
    assert_eq!(counter(&bs, 0, "local_retransmits"), 1);
    assert_eq!(counter(&bs, 0, "dupacks_suppressed"), 4);
    // A DUPACK beyond the estimate: the local retransmission was lost too.
    data(&mut bs, 3 * MS, 0, 6, &mut out);
    assert_eq!(ack(&mut bs, 4 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
    // Estimated from the packets forwarded since (6), less the one in hand.
    assert_eq!(bs.conns[0].exp_left, 0);
}

#[test]
fn dupack_for_a_packet_not_cached_is_forwarded() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    data(&mut bs, 0, 0, 0, &mut out);
    ack(&mut bs, MS, 0, 1, &mut out);
    assert_eq!(ack(&mut bs, MS, 0, 1, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
    assert_eq!(counter(&bs, 0, "dupacks_forwarded"), 1);
}

#[test]
fn new_ack_frees_the_cache_and_samples_rtt_by_karns_rule() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..4 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    assert_eq!(bs.meters().total().pkts, 4);
    ack(&mut bs, 10 * MS, 0, 1, &mut out);
    assert_eq!(bs.meters().total().pkts, 3);
    assert_eq!(bs.meters().total().bytes, 3000);
    assert_eq!(bs.conns[0].rtt.srtt, Some(10 * MS));
    assert_eq!(counter(&bs, 0, "rtt_samples"), 1);
    // 1 is retransmitted locally: the ACK covering it gives no sample.
    ack(&mut bs, 11 * MS, 0, 1, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    ack(&mut bs, 20 * MS, 0, 4, &mut out);
    assert!(out.inject.is_empty());
    assert_eq!(bs.meters().total().pkts, 0);
    assert_eq!(bs.meters().total().pkts_peak(), 4);
    assert_eq!(counter(&bs, 0, "rtt_samples"), 1);
    assert_eq!(bs.conns[0].rtt.srtt, Some(10 * MS));
    assert_eq!(earliest(&bs), None);
    // 4 is sent once: sampled (30 ms): srtt = 7/8 10 + 1/8 30 = 12.5 ms.
    data(&mut bs, 0, 0, 4, &mut out);
    ack(&mut bs, 30 * MS, 0, 5, &mut out);
    assert_eq!(counter(&bs, 0, "rtt_samples"), 2);
    assert_eq!(bs.conns[0].rtt.srtt, Some(12_500_000));
    // rttvar = 3/4 5 + 1/4 20 = 8.75 ms.
    assert_eq!(bs.conns[0].rtt.rttvar, 8_750_000);
    assert_eq!(bs.meters().total().pkts, 0);
}

/// Packets 0..4 cached, 1 lost: a local retransmission at 12 ms and the
/// timer (rto 30 ms) due at 42 ms.
fn one_local_retransmission(bs: &mut Snoop, out: &mut BsOut) {
    for s in 0..4 {
        data(bs, 0, 0, s, out);
    }
    ack(bs, 10 * MS, 0, 1, out); // srtt 10, rttvar 5: rto 30 ms
    assert_eq!(earliest(bs), Some(40 * MS));
    ack(bs, 12 * MS, 0, 1, out);
    assert_eq!(injected(out), vec![1]);
    assert_eq!(earliest(bs), Some(42 * MS));
}

/// Amir et al. 1995 §3 gives the local timer "a TCP-style round-trip time
/// (RTT) estimate of the last (wireless) link" and no backoff; doubling
/// per timeout (up to 64x, reset only by a clean RTT sample) left it at
/// 1.28 s at high error rates, above the sender's own minimum RTO.
#[test]
fn timer_retransmits_the_first_unacked_packet_without_backoff_by_default() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    one_local_retransmission(&mut bs, &mut out);
    // Too early: nothing.
    fire(&mut bs, 41 * MS, &mut out);
    assert!(out.inject.is_empty());
    fire(&mut bs, 42 * MS, &mut out);
    let r = out.inject.drain(..).collect::<Vec<_>>();
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].seq, r[0].retx), (1, Retx::BaseStation));
    assert_eq!(earliest(&bs), Some(42 * MS + 30 * MS));
    fire(&mut bs, 72 * MS, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    assert_eq!(earliest(&bs), Some(72 * MS + 30 * MS));
    assert_eq!(counter(&bs, 0, "local_timeouts"), 2);
    assert_eq!(counter(&bs, 0, "local_retransmits"), 3);
}

#[test]
fn max_backoff_doubles_the_timer_up_to_its_cap() {
    let mut bs = with(serde_json::json!({ "max_backoff": 2 }));
    let mut out = BsOut::default();
    one_local_retransmission(&mut bs, &mut out);
    let mut t = 42 * MS;
    for rto in [60, 120, 120] {
        fire(&mut bs, t, &mut out);
        assert_eq!(injected(&mut out), vec![1]);
        assert_eq!(earliest(&bs), Some(t + rto * MS));
        t += rto * MS;
    }
}

#[test]
fn stale_dupack_from_a_duplicate_is_absorbed_without_retransmission() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    // The FH sends 0 at t=10, 1..=3 at t=20.
    for s in 0..4 {
        let mut p = pkt(0, PktKind::Data, s);
        p.sent_at = if s == 0 { 10 } else { 20 };
        bs.on_packet(0, &DOWN, &mut p, &mut out);
    }
    let mut a = pkt(0, PktKind::Ack, 1);
    a.ts_echo = 10;
    assert_eq!(bs.on_packet(MS, &UP, &mut a, &mut out), Verdict::Forward);
    // A second copy of 0 reaches the MH: its DUPACK echoes t=10, older
    // than the wanted packet 1: no loss report.
    let mut d = pkt(0, PktKind::Ack, 1);
    d.ts_echo = 10;
    assert_eq!(bs.on_packet(2 * MS, &UP, &mut d, &mut out), Verdict::Absorb);
    assert!(out.inject.is_empty());
    assert_eq!(counter(&bs, 0, "stale_dupacks"), 1);
    // A DUPACK triggered by 2 (sent at t=20) does report 1 lost.
    let mut d = pkt(0, PktKind::Ack, 1);
    d.ts_echo = 20;
    assert_eq!(bs.on_packet(3 * MS, &UP, &mut d, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
}

#[test]
fn ack_sooner_than_a_round_trip_after_the_last_copy_reports_no_loss() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..6 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    // ACK 1 at 10 ms: the hop's round trip is at least 10 ms.
    ack(&mut bs, 10 * MS, 0, 1, &mut out);
    assert_eq!(bs.conns[0].rtt.min, Some(10 * MS));
    // The FH retransmits 1 (go-back-N) at 15 ms, in the same burst as the
    // duplicates ahead of it: equal send times, so the echo cannot tell.
    data(&mut bs, 15 * MS, 0, 1, &mut out);
    // A DUPACK at 20 ms cannot come from a packet forwarded after 1's copy
    // of 15 ms: discarded as stale, nothing retransmitted.
    assert_eq!(ack(&mut bs, 20 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert!(out.inject.is_empty());
    assert_eq!(counter(&bs, 0, "stale_dupacks"), 1);
    // One at 25 ms can: 1 is retransmitted.
    assert_eq!(ack(&mut bs, 25 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
}

#[test]
fn partial_new_ack_sooner_than_a_round_trip_starts_no_retransmission() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..6 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    ack(&mut bs, 10 * MS, 0, 1, &mut out);
    ack(&mut bs, 11 * MS, 0, 1, &mut out); // DUPACK: local retransmission of 1
    assert_eq!(injected(&mut out), vec![1]);
    // The FH retransmits 2 at 12 ms; a new ACK asking for 2 at 14 ms was
    // triggered by the first copy of 1, not by anything after 2's copy.
    data(&mut bs, 12 * MS, 0, 2, &mut out);
    assert_eq!(ack(&mut bs, 14 * MS, 0, 2, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
}

#[test]
fn packet_lost_to_the_bs_queue_is_left_to_the_sender() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..5 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    // The BS's own output queue drops 1 after Snoop cached it.
    bs.on_queue_drop(0, &pkt(0, PktKind::Data, 1));
    assert_eq!(counter(&bs, 0, "congestion_marked"), 1);
    ack(&mut bs, MS, 0, 1, &mut out);
    // Its DUPACKs go to the sender; nothing is retransmitted locally, not
    // even when the timer fires.
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Forward);
    assert_eq!(ack(&mut bs, 3 * MS, 0, 1, &mut out), Verdict::Forward);
    let t = earliest(&bs).unwrap();
    fire(&mut bs, t, &mut out);
    assert!(out.inject.is_empty());
    assert_eq!(counter(&bs, 0, "local_retransmits"), 0);
}

#[test]
fn expected_dupacks_restart_the_timer_and_survive_a_timeout() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..6 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    ack(&mut bs, 10 * MS, 0, 1, &mut out); // rto 30 ms
    ack(&mut bs, 12 * MS, 0, 1, &mut out); // local rtx of 1; 3 more expected
    assert_eq!(injected(&mut out), vec![1]);
    assert_eq!(earliest(&bs), Some(42 * MS));
    ack(&mut bs, 20 * MS, 0, 1, &mut out);
    assert_eq!(earliest(&bs), Some(50 * MS));
    assert_eq!(bs.conns[0].exp_left, 2);
    // Two more packets forwarded after the retransmission, then a timeout.
    data(&mut bs, 21 * MS, 0, 6, &mut out);
    data(&mut bs, 21 * MS, 0, 7, &mut out);
    fire(&mut bs, 50 * MS, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    // Still expected: the 2 from before plus the 2 forwarded since.
    assert_eq!(bs.conns[0].exp_left, 4);
    for _ in 0..4 {
        assert_eq!(ack(&mut bs, 51 * MS, 0, 1, &mut out), Verdict::Absorb);
    }
    assert!(out.inject.is_empty());
}

#[test]
fn timer_floor_is_min_rto() {
    let mut bs = with(serde_json::json!({"min_rto": "50ms"}));
    let mut out = BsOut::default();
    data(&mut bs, 0, 0, 0, &mut out);
    data(&mut bs, 0, 0, 1, &mut out);
    ack(&mut bs, MS, 0, 1, &mut out); // rto = 1 + 4 * 0.5 = 3 ms < 50 ms
    assert_eq!(earliest(&bs), Some(51 * MS));
}

#[test]
fn per_packet_limit_leaves_the_packet_to_the_sender() {
    let mut bs = with(serde_json::json!({"max_local_rtx": 2}));
    let mut out = BsOut::default();
    for s in 0..3 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    ack(&mut bs, MS, 0, 1, &mut out);
    // highest 2, ack 1: no further DUPACK expected after the first.
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
    let t = earliest(&bs).unwrap();
    fire(&mut bs, t, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    // Limit reached: the timer gives up and DUPACKs go to the FH.
    let t = earliest(&bs).unwrap();
    fire(&mut bs, t, &mut out);
    assert!(out.inject.is_empty());
    assert_eq!(earliest(&bs), None);
    assert_eq!(ack(&mut bs, t, 0, 1, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
    assert_eq!(counter(&bs, 0, "local_retransmits"), 2);
    // max_local_rtx = 0 disables local retransmission altogether.
    let mut bs = with(serde_json::json!({"max_local_rtx": 0}));
    for s in 0..3 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    ack(&mut bs, MS, 0, 1, &mut out);
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
}

#[test]
fn cache_limit_forwards_without_caching() {
    let mut bs = with(serde_json::json!({"cache": 2}));
    let mut out = BsOut::default();
    for s in 0..3 {
        assert_eq!(data(&mut bs, 0, 0, s, &mut out), Verdict::Forward);
    }
    assert_eq!(counter(&bs, 0, "cache_full"), 1);
    assert_eq!(bs.meters().total().pkts, 2);
    assert_eq!(bs.meters().total().pkts_peak(), 2);
    ack(&mut bs, MS, 0, 2, &mut out);
    // 2 was not cached: its DUPACKs are the sender's.
    assert_eq!(ack(&mut bs, MS, 0, 2, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
    // Room again: new packets are cached.
    data(&mut bs, MS, 0, 3, &mut out);
    assert_eq!(bs.meters().total().pkts, 1);
}

#[test]
fn partial_new_ack_retransmits_a_further_hole() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..6 {
        data(&mut bs, 0, 0, s, &mut out);
    }
    ack(&mut bs, MS, 0, 1, &mut out);
    ack(&mut bs, 2 * MS, 0, 1, &mut out); // 1 and 3 lost
    assert_eq!(injected(&mut out), vec![1]);
    data(&mut bs, 3 * MS, 0, 6, &mut out);
    data(&mut bs, 3 * MS, 0, 7, &mut out);
    // The retransmitted 1 arrives: MH asks for 3, forwarded before it.
    assert_eq!(ack(&mut bs, 4 * MS, 0, 3, &mut out), Verdict::Forward);
    assert_eq!(injected(&mut out), vec![3]);
    // DUPACKs still to come for 3: those of 6 and 7.
    assert_eq!(bs.conns[0].exp_left, 2);
    assert_eq!(ack(&mut bs, 5 * MS, 0, 3, &mut out), Verdict::Absorb);
    assert!(out.inject.is_empty());
    // The retransmitted 3 arrives: everything is acknowledged.
    assert_eq!(ack(&mut bs, 6 * MS, 0, 8, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
    assert_eq!(bs.meters().total().pkts, 0);
    // Without a recovery a partial new ACK retransmits nothing.
    for s in 8..11 {
        data(&mut bs, 7 * MS, 0, s, &mut out);
    }
    assert_eq!(ack(&mut bs, 8 * MS, 0, 9, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
}

#[test]
fn connections_do_not_share_dupack_state() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..4 {
        data(&mut bs, 0, 0, s, &mut out);
        data(&mut bs, 0, 1, s, &mut out);
    }
    ack(&mut bs, MS, 0, 1, &mut out);
    ack(&mut bs, MS, 1, 1, &mut out);
    // Flow 0's first DUPACK sets up expected DUPACKs for flow 0 only.
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
    // Flow 1's first DUPACK is not "expected": it retransmits flow 1's 1.
    assert_eq!(ack(&mut bs, 2 * MS, 1, 1, &mut out), Verdict::Absorb);
    let r: Vec<_> = out.inject.drain(..).map(|p| (p.flow, p.seq)).collect();
    assert_eq!(r, vec![(1, 1)]);
    assert_eq!(counter(&bs, 0, "local_retransmits"), 1);
    assert_eq!(counter(&bs, 1, "local_retransmits"), 1);
    assert_eq!(bs.meters().flow(0).unwrap().held.pkts, 3);
    assert_eq!(bs.meters().flow(1).unwrap().held.pkts, 3);
    assert_eq!(bs.meters().total().pkts, 6);
}

#[test]
fn mh_to_fh_dupacks_for_wireless_holes_get_eln() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    // Data from the MH (from the wireless hop): 1 lost on it.
    for s in [0, 2, 3] {
        let mut p = pkt(2, PktKind::Data, s);
        assert_eq!(bs.on_packet(0, &UP, &mut p, &mut out), Verdict::Forward);
    }
    assert_eq!(bs.meters().total().bytes, 4 * 4);
    assert_eq!(bs.meters().total().pkts, 0); // nothing cached MH -> FH
    let mut a = pkt(2, PktKind::Ack, 1);
    assert_eq!(bs.on_packet(MS, &DOWN, &mut a, &mut out), Verdict::Forward);
    assert!(!a.has_flag(flags::ELN));
    let mut d = pkt(2, PktKind::Ack, 1);
    assert_eq!(bs.on_packet(MS, &DOWN, &mut d, &mut out), Verdict::Forward);
    assert!(d.has_flag(flags::ELN));
    assert_eq!(counter(&bs, 2, "eln_marked"), 1);
    assert!(out.inject.is_empty());
    assert_eq!(earliest(&bs), None);
}

#[test]
fn wired_only_packets_are_untouched() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    let wired = BsCtx {
        node: 1,
        in_kind: LinkKind::Wired,
        out_kind: LinkKind::Wired,
    };
    let mut p = pkt(0, PktKind::Data, 0);
    assert_eq!(bs.on_packet(0, &wired, &mut p, &mut out), Verdict::Forward);
    let mut a = pkt(0, PktKind::Ack, 0);
    assert_eq!(bs.on_packet(0, &wired, &mut a, &mut out), Verdict::Forward);
    assert_eq!(bs.meters().total().pkts, 0);
    assert_eq!(earliest(&bs), None);
}

#[test]
fn config_errors_name_the_field_and_value() {
    let bad = |v: serde_json::Value, field: &str, val: &str| {
        let e = build(&v, 1).unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(val), "{e}");
    };
    bad(serde_json::json!({"cache": 0}), "cache", "0");
    bad(
        serde_json::json!({"max_local_rtx": -1}),
        "max_local_rtx",
        "-1",
    );
    bad(serde_json::json!({"min_rto": 0}), "min_rto", "0");
    bad(
        serde_json::json!({"initial_rto": -0.5}),
        "initial_rto",
        "-0.5",
    );
    bad(
        serde_json::json!({"initial_rto": "soon"}),
        "initial_rto",
        "soon",
    );
    bad(serde_json::json!({"max_backoff": 17}), "max_backoff", "17");
    bad(serde_json::json!({"cash": 5}), "cash", "cash");
    let p = parse(&serde_json::json!({"cache": 50, "min_rto": "5ms", "initial_rto": 0.2})).unwrap();
    assert_eq!(
        (p.cache, p.max_local_rtx, p.min_rto, p.initial_rto),
        (50, 10, 5 * MS, 200 * MS)
    );
}
