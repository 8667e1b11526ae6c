//! `snoop_ns2`'s unit tests: hand-built packet sequences, one per behaviour
//! of ns-2.35's snoop.cc that differs from the default `snoop`.
use super::super::ns2_params::parse;
use super::*;
use crate::bs::testing::{counter, earliest, fire, injected, pkt, DOWN, UP};
use crate::engine::MS;

fn snoop() -> SnoopNs2 {
    SnoopNs2::new(1, Ns2Params::default())
}

fn data(bs: &mut SnoopNs2, now: Time, flow: FlowId, seq: u32, out: &mut BsOut) -> Verdict {
    let mut p = pkt(flow, PktKind::Data, seq);
    bs.on_packet(now, &DOWN, &mut p, out)
}

/// An ACK asking for `seq` (tcpair's numbering: the next segment wanted).
fn ack(bs: &mut SnoopNs2, now: Time, flow: FlowId, seq: u32, out: &mut BsOut) -> Verdict {
    let mut p = pkt(flow, PktKind::Ack, seq);
    bs.on_packet(now, &UP, &mut p, out)
}

/// Packets 0..n cached at time 0, then an ACK for 0 at 1 ms (packet 1 lost).
fn lost_one(n: u32) -> (SnoopNs2, BsOut) {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for s in 0..n {
        data(&mut bs, 0, 0, s, &mut out);
    }
    assert_eq!(ack(&mut bs, MS, 0, 1, &mut out), Verdict::Forward);
    (bs, out)
}

#[test]
fn first_dupack_goes_to_the_sender_the_second_retransmits() {
    let (mut bs, mut out) = lost_one(10);
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
    assert_eq!(ack(&mut bs, 3 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
    // Expected: the 9 cached packets 1..=9 less two = 7, all suppressed.
    assert_eq!(bs.conns[0].exp_dupacks, 7);
    for _ in 0..7 {
        assert_eq!(ack(&mut bs, 4 * MS, 0, 1, &mut out), Verdict::Absorb);
    }
    assert_eq!(counter(&bs, 0, "dupacks_forwarded"), 1);
    assert_eq!(counter(&bs, 0, "dupacks_suppressed"), 8);
}

#[test]
fn a_lost_local_retransmission_is_repaired_only_by_the_timer() {
    let (mut bs, mut out) = lost_one(4);
    ack(&mut bs, 2 * MS, 0, 1, &mut out);
    ack(&mut bs, 3 * MS, 0, 1, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    assert_eq!(bs.conns[0].exp_dupacks, 1); // 3 cached - 2
    ack(&mut bs, 4 * MS, 0, 1, &mut out); // the one expected
                                          // More DUPACKs: the retransmission was lost, but they pass to the
                                          // sender (first by the threshold, then because it was sent locally).
    for t in 5..9 {
        assert_eq!(ack(&mut bs, t * MS, 0, 1, &mut out), Verdict::Forward);
    }
    assert!(out.inject.is_empty());
    // The timer, armed at the local retransmission, sends it again.
    let due = earliest(&bs).unwrap();
    assert_eq!(due, 3 * MS + bs.conns[0].timeout(&bs.p));
    fire(&mut bs, due, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    assert_eq!(counter(&bs, 0, "local_timeouts"), 1);
}

#[test]
fn the_timer_has_a_100ms_floor_and_no_backoff() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    data(&mut bs, 0, 0, 0, &mut out);
    // Before any sample: srtt 0.1 + 4 x rttvar 0.25 = 1.1 s.
    assert_eq!(earliest(&bs), Some(1_100 * MS));
    // Many 1 ms round trips: srtt + 4 rttvar falls below 100 ms.
    for s in 1..80 {
        let t = s as Time * 10 * MS;
        data(&mut bs, t, 0, s, &mut out);
        ack(&mut bs, t + MS, 0, s, &mut out);
    }
    let now = 800 * MS;
    assert!(bs.conns[0].srtt + 4.0 * bs.conns[0].rttvar < 0.1);
    assert_eq!(earliest(&bs), Some(791 * MS + 100 * MS));
    // Expiries retransmit at the same interval, never doubled.
    let mut t = earliest(&bs).unwrap();
    for _ in 0..3 {
        fire(&mut bs, t, &mut out);
        assert_eq!(injected(&mut out), vec![79]);
        assert_eq!(earliest(&bs), Some(t + 100 * MS));
        t += 100 * MS;
    }
    assert!(now < t);
}

#[test]
fn rtt_smoothing_weighs_the_sample_seven_eighths() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    data(&mut bs, 0, 0, 0, &mut out);
    data(&mut bs, 0, 0, 1, &mut out);
    ack(&mut bs, 20 * MS, 0, 1, &mut out);
    let c = &bs.conns[0];
    // srtt = 0.125 x 0.1 + 0.875 x 0.02 = 0.03; delta = |0.02 - 0.03|;
    // rttvar = 0.125 x 0.01 + 0.875 x 0.25 = 0.22; timeout 0.91 s.
    assert!((c.srtt - 0.03).abs() < 1e-12);
    assert!((c.rttvar - 0.22).abs() < 1e-12);
    assert_eq!(c.timeout(&bs.p), 910 * MS);
    // snoop.cc re-arms the timer while freeing the cache, before the
    // sample: this deadline still uses the first estimate (1.1 s).
    assert_eq!(earliest(&bs), Some(20 * MS + 1_100 * MS));
}

#[test]
fn a_locally_retransmitted_packet_still_gives_an_rtt_sample() {
    let (mut bs, mut out) = lost_one(4);
    ack(&mut bs, 2 * MS, 0, 1, &mut out);
    ack(&mut bs, 3 * MS, 0, 1, &mut out); // local retransmission of 1
    assert_eq!(counter(&bs, 0, "rtt_samples"), 1);
    ack(&mut bs, 9 * MS, 0, 2, &mut out); // no Karn: sample 6 ms
    assert_eq!(counter(&bs, 0, "rtt_samples"), 2);
}

#[test]
fn local_recovery_is_abandoned_once_the_sender_retransmits() {
    let (mut bs, mut out) = lost_one(4);
    ack(&mut bs, 2 * MS, 0, 1, &mut out);
    ack(&mut bs, 3 * MS, 0, 1, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    // The sender retransmits 1: forwarded, count reset, marked as its own,
    // the timer restarted.
    let mut p = pkt(0, PktKind::Data, 1);
    p.retx = Retx::Sender;
    assert_eq!(
        bs.on_packet(10 * MS, &DOWN, &mut p, &mut out),
        Verdict::Forward
    );
    assert!(bs.conns[0].cache[0].sender_rxmit);
    assert_eq!(bs.conns[0].cache[0].num_rxmit, 0);
    assert_eq!(earliest(&bs), Some(10 * MS + bs.conns[0].timeout(&bs.p)));
    ack(&mut bs, 11 * MS, 0, 1, &mut out); // the one still expected
    for t in 12..16 {
        assert_eq!(ack(&mut bs, t * MS, 0, 1, &mut out), Verdict::Forward);
    }
    assert!(out.inject.is_empty());
    assert_eq!(counter(&bs, 0, "sender_retransmits"), 1);
}

#[test]
fn a_miscount_retransmits_on_the_next_dupack_up_to_twice() {
    // Two cached packets: expected DUPACKs 2 - 2 - ... = -1 after the second.
    let (mut bs, mut out) = lost_one(2);
    ack(&mut bs, 2 * MS, 0, 1, &mut out);
    ack(&mut bs, 3 * MS, 0, 1, &mut out);
    assert_eq!(injected(&mut out), vec![1]);
    assert_eq!(bs.conns[0].exp_dupacks, -1);
    assert_eq!(ack(&mut bs, 4 * MS, 0, 1, &mut out), Verdict::Absorb);
    assert_eq!(injected(&mut out), vec![1]);
    assert_eq!(ack(&mut bs, 5 * MS, 0, 1, &mut out), Verdict::Forward);
    assert!(out.inject.is_empty());
}

#[test]
fn the_dupack_threshold_is_shared_by_the_connections() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    for f in 0..2 {
        for s in 0..6 {
            data(&mut bs, 0, f, s, &mut out);
        }
        ack(&mut bs, MS, f, 1, &mut out);
    }
    // Flow 0's first DUPACK passes; flow 1's first then counts as the second.
    assert_eq!(ack(&mut bs, 2 * MS, 0, 1, &mut out), Verdict::Forward);
    assert_eq!(ack(&mut bs, 2 * MS, 1, 1, &mut out), Verdict::Absorb);
    assert_eq!(
        out.inject.iter().map(|p| p.flow).collect::<Vec<_>>(),
        vec![1]
    );
}

#[test]
fn older_acks_are_passed_on_not_discarded() {
    let (mut bs, mut out) = lost_one(4);
    ack(&mut bs, 2 * MS, 0, 3, &mut out);
    assert_eq!(ack(&mut bs, 3 * MS, 0, 2, &mut out), Verdict::Forward);
}

#[test]
fn a_packet_the_queue_drops_is_not_cached_and_its_dupacks_pass() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    data(&mut bs, 0, 0, 0, &mut out);
    data(&mut bs, 0, 0, 1, &mut out);
    bs.on_queue_drop(0, &pkt(0, PktKind::Data, 1));
    assert_eq!(bs.conns[0].cache.len(), 1);
    assert_eq!(bs.meters().total().pkts, 1);
    assert_eq!(counter(&bs, 0, "not_cached"), 1);
    data(&mut bs, 0, 0, 2, &mut out);
    ack(&mut bs, MS, 0, 1, &mut out);
    for t in 2..6 {
        assert_eq!(ack(&mut bs, t * MS, 0, 1, &mut out), Verdict::Forward);
    }
    assert!(out.inject.is_empty());
    // The sender's retransmission is cached at the head, as its own.
    data(&mut bs, 7 * MS, 0, 1, &mut out);
    assert_eq!(bs.conns[0].cache[0].pkt.seq, 1);
    assert!(bs.conns[0].cache[0].sender_rxmit);
}

#[test]
fn connections_are_created_on_first_sight_and_reset_by_sequence_zero() {
    let mut bs = snoop();
    let mut out = BsOut::default();
    ack(&mut bs, 0, 3, 0, &mut out); // an ACK creates flow 3's state too
    assert_eq!(bs.conns.len(), 4);
    for s in 0..3 {
        data(&mut bs, 0, 3, s, &mut out);
    }
    ack(&mut bs, MS, 3, 2, &mut out);
    data(&mut bs, 2 * MS, 3, 0, &mut out); // seq 0 again: the connection restarts
    assert_eq!(counter(&bs, 3, "resets"), 1);
    assert_eq!(bs.conns[3].last_ack, -1);
    assert_eq!(bs.conns[3].cache.len(), 1);
    assert_eq!(bs.meters().total().pkts, 1);
}

#[test]
fn a_full_cache_forwards_uncached() {
    let mut bs = SnoopNs2::new(1, parse(&serde_json::json!({ "cache": 3 })).unwrap());
    let mut out = BsOut::default();
    for s in 0..5 {
        assert_eq!(data(&mut bs, 0, 0, s, &mut out), Verdict::Forward);
    }
    assert_eq!(bs.conns[0].cache.len(), 3);
    assert_eq!(counter(&bs, 0, "cache_full"), 2);
    assert_eq!(bs.conns[0].last_seen, 4);
}

#[test]
fn bad_parameters_name_the_field() {
    for (v, field) in [
        (serde_json::json!({ "g": 1.5 }), "g"),
        (serde_json::json!({ "cache": 0 }), "cache"),
        (serde_json::json!({ "snoop_tick": "-1s" }), "snoop_tick"),
        (serde_json::json!({ "backoff": 2 }), "backoff"),
    ] {
        let e = parse(&v).unwrap_err().to_string();
        assert!(e.contains(field), "{e}");
    }
}
