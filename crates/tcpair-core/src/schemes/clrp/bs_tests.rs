//! CLRP-BS's unit tests: both directions with hand-built packets.
use super::*;
use crate::bs::testing::{earliest, fire, pkt, DOWN, UP};
use crate::packet::LossBlocks;

fn bs() -> ClrpBs {
    ClrpBs::new(1, ClrpParams::default())
}
fn counter(b: &ClrpBs, name: &str) -> u64 {
    crate::bs::testing::counter(b, 0, name)
}

/// MH -> FH: data `seq` arrives from the MH (UP context: from wireless),
/// sent at time `seq`.
fn up_data(b: &mut ClrpBs, seq: u32) {
    let mut p = pkt(0, PktKind::Data, seq);
    p.sent_at = Time::from(seq);
    let mut o = BsOut::default();
    assert_eq!(b.on_packet(0, &UP, &mut p, &mut o), Verdict::Forward);
}
/// MH -> FH: an ACK from the FH toward the MH, echoing a packet sent at
/// `echo`; returns its loss blocks.
fn up_ack_echo(b: &mut ClrpBs, ack: u32, echo: Time) -> Vec<u32> {
    let mut p = pkt(0, PktKind::Ack, ack);
    p.ts_echo = echo;
    let mut o = BsOut::default();
    let ctx = BsCtx {
        node: 1,
        in_kind: crate::net::LinkKind::Wired,
        out_kind: crate::net::LinkKind::Wireless,
    };
    assert_eq!(b.on_packet(0, &ctx, &mut p, &mut o), Verdict::Forward);
    p.opts.loss.as_slice().to_vec()
}
fn up_ack(b: &mut ClrpBs, ack: u32) -> Vec<u32> {
    up_ack_echo(b, ack, 1000)
}

#[test]
fn mh_to_fh_holes_become_blocks_on_new_and_duplicate_acks() {
    let mut b = bs();
    up_data(&mut b, 0);
    for s in 5..8 {
        up_data(&mut b, s); // 1..=4 lost, revealed by 5
    }
    assert!(up_ack(&mut b, 1).is_empty(), "2 further packets: not yet");
    up_data(&mut b, 8);
    assert_eq!(
        up_ack(&mut b, 1),
        vec![4, 3, 2, 1],
        "duplicate ACK carries them"
    );
    assert_eq!(counter(&b, "holes_declared"), 4);
    // A new ACK carries them too, minus what it acknowledges.
    up_data(&mut b, 1);
    assert_eq!(up_ack(&mut b, 2), vec![4, 3, 2]);
}

#[test]
fn mh_to_fh_blocks_are_capped_at_max_blocks() {
    let mut b = bs();
    up_data(&mut b, 0);
    up_data(&mut b, 10); // 1..=9 lost
    for s in 11..14 {
        up_data(&mut b, s);
    }
    let blocks = up_ack(&mut b, 1);
    assert_eq!(blocks.len(), 6);
    assert_eq!(blocks, vec![9, 8, 7, 6, 5, 4], "the most recent six");
}

#[test]
fn mh_to_fh_dupacks_classify_wired_and_wireless() {
    let mut b = bs();
    for s in [0, 1, 3] {
        up_data(&mut b, s); // 2 lost on the wireless hop, revealed only
    }
    up_ack(&mut b, 1);
    // A DUPACK for 1 (which passed here, sent at 1) triggered by a packet
    // sent before it: stale, not a loss.
    assert!(up_ack_echo(&mut b, 1, 0).is_empty());
    assert_eq!(counter(&b, "stale_dupacks"), 1);
    assert_eq!(counter(&b, "wired_losses"), 0);
    // Triggered by packets sent after it: 1 was lost on the wired side;
    // not reported to the MH (its Reno response applies).
    assert!(up_ack(&mut b, 1).is_empty());
    assert!(up_ack(&mut b, 1).is_empty());
    assert_eq!(counter(&b, "wired_losses"), 1, "counted once per hole");
    // Later the FH asks for 2, never received here: wireless at once.
    up_ack(&mut b, 2);
    assert_eq!(up_ack(&mut b, 2), vec![2]);
    assert_eq!(counter(&b, "dupack_declared"), 1);
}

/// FH -> MH: data `seq` from the FH toward the MH.
fn down_data(b: &mut ClrpBs, seq: u32, sent_at: Time) {
    let mut p = pkt(0, PktKind::Data, seq);
    p.sent_at = sent_at;
    let mut o = BsOut::default();
    assert_eq!(b.on_packet(0, &DOWN, &mut p, &mut o), Verdict::Forward);
}
/// FH -> MH: an ACK from the MH with loss blocks; returns (verdict,
/// the blocks left on it, the local retransmissions).
fn down_ack(b: &mut ClrpBs, ack: u32, loss: &[u32], echo: Time) -> (Verdict, usize, Vec<u32>) {
    let mut p = pkt(0, PktKind::Ack, ack);
    p.ts_echo = echo;
    p.opts.loss = LossBlocks::default();
    for &s in loss {
        p.opts.loss.push(s);
    }
    let ctx = BsCtx {
        node: 1,
        in_kind: crate::net::LinkKind::Wireless,
        out_kind: crate::net::LinkKind::Wired,
    };
    let mut o = BsOut::default();
    let v = b.on_packet(0, &ctx, &mut p, &mut o);
    for q in &o.inject {
        assert_eq!(q.retx, Retx::BaseStation);
    }
    (
        v,
        p.opts.loss.len as usize,
        o.inject.iter().map(|q| q.seq).collect(),
    )
}

#[test]
fn fh_to_mh_local_retransmission_at_the_threshold_option_stripped() {
    let mut b = bs();
    for s in 0..10 {
        down_data(&mut b, s, u64::from(s));
    }
    assert_eq!(down_ack(&mut b, 2, &[], 1), (Verdict::Forward, 0, vec![]));
    // DUPACKs for the cached 2 are suppressed; the first notice counts 1.
    assert_eq!(down_ack(&mut b, 2, &[], 3).0, Verdict::Absorb);
    assert_eq!(
        down_ack(&mut b, 2, &[4, 2], 6),
        (Verdict::Absorb, 0, vec![])
    );
    assert_eq!(
        down_ack(&mut b, 2, &[4, 2], 7),
        (Verdict::Absorb, 0, vec![2, 4]),
        "second notice: both retransmitted, option stripped"
    );
    // More notices from packets sent before the last forwarded one (9): -1.
    assert_eq!(down_ack(&mut b, 2, &[4, 2], 8).2, Vec::<u32>::new());
    assert_eq!(down_ack(&mut b, 2, &[4, 2], 9).2, Vec::<u32>::new());
    // 10 forwarded after the retransmission; its ACK still reports 4: the
    // retransmission of 4 was lost; two such notices resend it.
    down_data(&mut b, 10, 10);
    down_data(&mut b, 11, 11);
    assert_eq!(down_ack(&mut b, 3, &[4], 10).2, Vec::<u32>::new());
    assert_eq!(down_ack(&mut b, 3, &[4], 11), (Verdict::Absorb, 0, vec![4]));
    assert_eq!(counter(&b, "local_retransmits"), 3);
    assert_eq!(counter(&b, "repeat_retransmits"), 1);
    assert_eq!(counter(&b, "options_stripped"), 6);
}

#[test]
fn fh_to_mh_an_ack_the_bs_queue_dropped_is_not_absorbed_again() {
    // 1 and 2 cached; the MH's new ACK 2 passes the agent, then the BS's own
    // queue toward the FH drops it; 2 is lost on the wireless hop and nothing
    // follows it. The FH times out and resends 1, which the MH holds: its ACK 2
    // is a DUPACK for the cached 2, but the FH never saw the first ACK 2.
    let mut b = bs();
    down_data(&mut b, 1, 1);
    down_data(&mut b, 2, 2);
    assert_eq!(down_ack(&mut b, 2, &[], 1).0, Verdict::Forward);
    let mut dropped = pkt(0, PktKind::Ack, 2);
    b.on_queue_drop(0, &dropped);
    down_data(&mut b, 1, 5); // the FH's retransmission of 1
    assert_eq!(
        down_ack(&mut b, 2, &[], 5).0,
        Verdict::Forward,
        "the FH needs it"
    );
    assert_eq!(down_ack(&mut b, 2, &[], 5).0, Verdict::Absorb, "once only");
    // A data packet's drop, or an older ACK's, changes nothing.
    dropped.kind = PktKind::Data;
    b.on_queue_drop(0, &dropped);
    b.on_queue_drop(0, &pkt(0, PktKind::Ack, 1));
    assert_eq!(down_ack(&mut b, 2, &[], 6).0, Verdict::Absorb);
}

#[test]
fn fh_to_mh_a_hole_the_bs_never_received_is_the_senders() {
    let mut b = bs();
    for s in [0, 1, 3, 4, 5, 6] {
        down_data(&mut b, s, u64::from(s)); // 2 lost upstream
    }
    down_ack(&mut b, 2, &[], 1);
    let (v, left, rtx) = down_ack(&mut b, 2, &[2], 4);
    assert_eq!((v, left), (Verdict::Forward, 0), "DUPACK goes on, stripped");
    assert!(rtx.is_empty());
    assert_eq!(down_ack(&mut b, 2, &[2], 5), (Verdict::Forward, 0, vec![]));
    assert_eq!(counter(&b, "wired_notices"), 2);
    assert_eq!(counter(&b, "dupacks_forwarded"), 2);
}

#[test]
fn new_ack_frees_the_cache_and_state_is_metered() {
    let mut b = bs();
    for s in 0..4 {
        down_data(&mut b, s, 0);
    }
    assert_eq!(b.meters().total().pkts_peak(), 4);
    down_ack(&mut b, 3, &[], 0);
    assert_eq!(b.conns[0].cache.len(), 1);
}

#[test]
fn config_errors_name_the_field_and_value() {
    for (v, field) in [
        (serde_json::json!({"max_blocks": 9}), "max_blocks"),
        (serde_json::json!({"max_blocks": 0}), "max_blocks"),
        (serde_json::json!({"rxmit_threshold": 0}), "rxmit_threshold"),
        (serde_json::json!({"hole_threshold": -1}), "hole_threshold"),
        (serde_json::json!({"cache": 0}), "cache"),
        (serde_json::json!({"local_timer": 0}), "local_timer"),
        (serde_json::json!({"local_timer": "nan"}), "local_timer"),
    ] {
        let e = parse(&v).unwrap_err();
        assert_eq!(e.path, field, "{e}");
    }
    assert!(parse(&serde_json::json!({"bogus": 1}))
        .unwrap_err()
        .to_string()
        .contains("bogus"));
    assert_eq!(
        parse(&serde_json::json!({})).unwrap(),
        ClrpParams::default()
    );
}

/// The optional local timer (`local_timer`, not in the paper): a packet
/// lost with nothing behind it (no ACK can report it) is retransmitted by
/// the BS one period after the last ACK progress; the timer restarts at
/// each new ACK, stops when the cache empties, and never fires in the
/// paper's default configuration.
#[test]
fn fh_to_mh_local_timer_retransmits_the_head_the_mh_waits_for() {
    use crate::engine::MS;
    let period = 50 * MS;
    let p = ClrpParams {
        local_timer: Some(period),
        ..ClrpParams::default()
    };
    let mut b = ClrpBs::new(1, p);
    let at = |b: &mut ClrpBs, now: Time, kind: PktKind, seq: u32, ctx: &BsCtx| {
        let mut q = pkt(0, kind, seq);
        q.sent_at = now;
        let mut o = BsOut::default();
        b.on_packet(now, ctx, &mut q, &mut o);
    };
    let up = BsCtx {
        node: 1,
        in_kind: crate::net::LinkKind::Wireless,
        out_kind: crate::net::LinkKind::Wired,
    };
    at(&mut b, 0, PktKind::Data, 0, &DOWN);
    at(&mut b, MS, PktKind::Data, 1, &DOWN); // 1 is lost on the wireless hop
    assert_eq!(earliest(&b), Some(period), "armed by the first packet");
    at(&mut b, 10 * MS, PktKind::Ack, 1, &up); // 0 arrived: progress
    assert_eq!(earliest(&b), Some(10 * MS + period), "restarted");
    let mut o = BsOut::default();
    fire(&mut b, 10 * MS + period, &mut o);
    let seqs: Vec<u32> = o.inject.iter().map(|q| q.seq).collect();
    assert_eq!(seqs, vec![1]);
    assert_eq!(o.inject[0].retx, Retx::BaseStation);
    assert_eq!(counter(&b, "timer_retransmits"), 1);
    assert_eq!(earliest(&b), Some(10 * MS + 2 * period), "no backoff");
    at(&mut b, 80 * MS, PktKind::Ack, 2, &up); // all acknowledged
    assert_eq!(earliest(&b), None, "stopped with an empty cache");

    // The paper's configuration: no timer at all.
    let mut b = bs();
    down_data(&mut b, 0, 0);
    assert_eq!(earliest(&b), None);
}

/// At expiry the oldest cached packet is beyond what the MH asks for: the
/// missing one never reached the BS (a wired loss), so nothing is sent.
#[test]
fn fh_to_mh_local_timer_leaves_wired_losses_to_the_sender() {
    use crate::engine::MS;
    let p = ClrpParams {
        local_timer: Some(50 * MS),
        ..ClrpParams::default()
    };
    let mut b = ClrpBs::new(1, p);
    down_data(&mut b, 0, 0);
    down_ack(&mut b, 1, &[], 0); // 0 acknowledged; 1 was lost upstream
    down_data(&mut b, 2, 0);
    let mut o = BsOut::default();
    let t = earliest(&b).expect("armed");
    fire(&mut b, t, &mut o);
    assert!(o.inject.is_empty());
    assert_eq!(earliest(&b), None);
}

/// The cache's look-up: the fast answers (empty, outside the cached range,
/// the oldest) agree with a search of every packet, gaps included.
#[test]
fn cache_lookup_agrees_with_a_full_search() {
    let mut c = Conn::new(&ClrpParams::default());
    let mut store = Store::default();
    assert_eq!(c.cached(&store, 5), None);
    for seq in [3u32, 4, 7, 9, 12] {
        c.cache
            .push_back(&mut store, pkt(0, PktKind::Data, seq).to_data());
    }
    for seq in 0..15 {
        let full = c.cache.iter(&store).position(|p| p.seq == seq);
        assert_eq!(c.cached(&store, seq), full, "seq {seq}");
    }
}
