//! The decision point, driven by hand-built ACK sequences (no network): a
//! congestion verdict applies the variant's own response, a wireless
//! verdict the responder's; each detector's verdict on the ACK it sees;
//! the gates (a congestion response once per window, a wireless one once
//! per hole); and the record of each decision.
//!
//! Set-up: a sender in congestion avoidance with cwnd = ssthresh = 10 sends
//! segments 0..9 at t = 0; ACK 1 arrives at 100 ms (cwnd 10.1, segment 10
//! goes out); segment 1 is lost, so ACKs for 1 repeat: the third DUPACK
//! (at 103 ms) is the trigger. Flight at the trigger: 1..10 = 10 segments,
//! so TCP's own response is ssthresh = 5.

use super::*;
use crate::engine::MS;
use crate::registry::{Builder, Entry};
use crate::tcp::respond::table1::SS_THRESH_BYTES;
use crate::tcp::{
    detect, respond, Cause, Decision, Recovery, RecoveryEvent, RespondPer, TcpConfig, Window,
};

/// The registry entry `name`, built with no parameters.
fn part<T: ?Sized>(entries: &[Entry<Builder<T>>], name: &str) -> Box<T> {
    let (e, p) = crate::registry::pick(entries, &name.into(), "part", "test").unwrap();
    (e.build)(&p).unwrap()
}

fn sender(recovery: Recovery, detector: &str, responder: &str) -> TcpSender {
    let mut s = TcpSender::new(TcpConfig {
        recovery,
        detector: part(detect::REGISTRY, detector),
        responder: part(respond::REGISTRY, responder),
        window: 100,
        initial_cwnd: 10.0,
        initial_ssthresh: 10.0,
        ..TcpConfig::default()
    });
    let mut out = SenderOutput::default();
    s.start(0, &mut out);
    assert_eq!(out.segs.len(), 10);
    s
}

fn ack(a: u32, sent: Time) -> AckInfo {
    AckInfo {
        ack: a,
        ts_echo: sent,
        ..AckInfo::default()
    }
}

/// ACK 1, then three DUPACKs for 1 built by `dup`; returns the output of
/// the third (the trigger).
fn to_trigger(s: &mut TcpSender, dup: impl Fn(AckInfo) -> AckInfo) -> SenderOutput {
    let mut out = SenderOutput::default();
    s.on_ack(100 * MS, &ack(1, 0), &mut out);
    for i in 1..=3 {
        out.clear();
        s.on_ack((100 + i) * MS, &dup(ack(1, 0)), &mut out);
    }
    out
}

fn decision(out: &SenderOutput) -> Decision {
    match out.events.as_slice() {
        [RecoveryEvent::FastRetransmit(d)] => *d,
        other => panic!("expected one fast retransmit, got {other:?}"),
    }
}

const BEFORE: Window = Window {
    cwnd: 10.1,
    ssthresh: 10.0,
};

#[test]
fn congestion_verdict_applies_the_variants_response() {
    let mut s = sender(Recovery::Reno, "none", "1");
    let out = to_trigger(&mut s, |a| a);
    let d = decision(&out);
    assert_eq!(
        (d.seq, d.verdict, d.window_cut),
        (1, Cause::Congestion, true)
    );
    assert_eq!(d.before, BEFORE);
    assert_eq!(
        d.after,
        Window {
            cwnd: 5.0,
            ssthresh: 5.0
        }
    );
    assert_eq!((s.cwnd(), s.ssthresh()), (8.0, 5.0), "inflated by 3");
    assert_eq!(out.segs[0].seq, 1);
    // The new ACK deflates to the response's cwnd.
    let mut o = SenderOutput::default();
    s.on_ack(200 * MS, &ack(11, 0), &mut o);
    assert_eq!(s.cwnd(), 5.0);
    assert_eq!((s.stats().window_cuts, s.stats().wireless_frs), (1, 0));
}

#[test]
fn eln_wireless_verdict_restores_the_window() {
    let mut s = sender(Recovery::Reno, "eln", "1");
    let out = to_trigger(&mut s, |a| AckInfo { eln: true, ..a });
    let d = decision(&out);
    assert_eq!((d.verdict, d.window_cut), (Cause::Wireless, false));
    assert_eq!((d.before, d.after), (BEFORE, BEFORE));
    assert!(
        (s.cwnd() - 13.1).abs() < 1e-12,
        "inflated around the kept window"
    );
    assert_eq!(s.ssthresh(), 10.0);
    let mut o = SenderOutput::default();
    s.on_ack(200 * MS, &ack(11, 0), &mut o);
    assert_eq!(s.cwnd(), 10.1, "deflates to the window before the loss");
    let mut c = Vec::new();
    s.counters(&mut c);
    assert_eq!(c, vec![("eln_retransmits", 1)]);
    assert_eq!((s.stats().window_cuts, s.stats().wireless_frs), (0, 1));
}

#[test]
fn eln_without_the_bit_is_congestion() {
    let mut s = sender(Recovery::Reno, "eln", "1");
    let d = decision(&to_trigger(&mut s, |a| a));
    assert_eq!((d.verdict, d.after.ssthresh), (Cause::Congestion, 5.0));
}

#[test]
fn oracle_follows_the_ground_truth() {
    let mut s = sender(Recovery::Reno, "oracle", "1");
    assert!(s.wants_truth());
    let wireless = |a| AckInfo {
        truth: Some(Cause::Wireless),
        ..a
    };
    assert_eq!(
        decision(&to_trigger(&mut s, wireless)).verdict,
        Cause::Wireless
    );
    let congestion = |a| AckInfo {
        truth: Some(Cause::Congestion),
        ..a
    };
    let mut s = sender(Recovery::Reno, "oracle", "1");
    let d = decision(&to_trigger(&mut s, congestion));
    assert_eq!(d.verdict, Cause::Congestion);
    // No truth: the segment was not lost (reordering, a lost ACK): a fast
    // retransmit not related to congestion.
    let mut s = sender(Recovery::Reno, "oracle", "1");
    let d = decision(&to_trigger(&mut s, |a| a));
    assert_eq!(d.verdict, Cause::Wireless);
}

/// Responder 0 answers a wireless verdict with TCP's own response and
/// mechanics: the sender behaves exactly as plain TCP.
#[test]
fn responder_zero_is_plain_tcp() {
    for r in [
        Recovery::Tahoe,
        Recovery::Reno,
        Recovery::NewReno,
        Recovery::Sack,
    ] {
        let mut a = sender(r, "always_wireless", "0");
        let mut b = sender(r, "none", "1");
        let (oa, ob) = (to_trigger(&mut a, |x| x), to_trigger(&mut b, |x| x));
        assert_eq!(oa.segs, ob.segs, "{r:?}");
        let (da, db) = (decision(&oa), decision(&ob));
        assert_eq!(da.verdict, Cause::Wireless);
        assert_eq!(
            (da.after, da.window_cut),
            (db.after, db.window_cut),
            "{r:?}"
        );
        assert_eq!((a.cwnd(), a.ssthresh()), (b.cwnd(), b.ssthresh()), "{r:?}");
    }
}

#[test]
fn table_responders_set_their_window() {
    let mut s = sender(Recovery::Reno, "always_wireless", "21");
    let d = decision(&to_trigger(&mut s, |a| a));
    assert_eq!(
        (d.after, d.window_cut),
        (
            Window {
                cwnd: 1.0,
                ssthresh: 1.0
            },
            true
        )
    );
    let mut o = SenderOutput::default();
    s.on_ack(200 * MS, &ack(11, 0), &mut o);
    assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 1.0));
    let mut s = sender(Recovery::Reno, "always_wireless", "11");
    let d = decision(&to_trigger(&mut s, |a| a));
    assert_eq!(d.after.cwnd, 1.0);
    assert_eq!(d.after.ssthresh, SS_THRESH_BYTES / 1000.0);
    let mut s = sender(Recovery::Reno, "always_wireless", "26");
    let d = decision(&to_trigger(&mut s, |a| a));
    assert_eq!(
        (d.after.cwnd, d.after.ssthresh, d.window_cut),
        (100.0, 100.0, false)
    );
}

/// How each recovery carries out a wireless response (responder 1).
#[test]
fn wireless_mechanics_per_recovery() {
    // Tahoe: retransmit only; no go-back-N, no slow start.
    let mut s = sender(Recovery::Tahoe, "always_wireless", "1");
    let out = to_trigger(&mut s, |a| a);
    assert_eq!(out.segs.len(), 1);
    assert_eq!((s.snd_nxt(), s.cwnd(), s.in_recovery()), (11, 10.1, false));
    // NewReno: a wireless response leaves `recover` alone, so the first new
    // ACK, even a partial one, ends its recovery (the next hole gets its
    // own decision).
    let mut s = sender(Recovery::NewReno, "always_wireless", "1");
    to_trigger(&mut s, |a| a);
    assert!(s.in_recovery());
    let mut o = SenderOutput::default();
    s.on_ack(200 * MS, &ack(5, 0), &mut o);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 10.1);
    // SACK: RFC 6675 recovery around the responder's window, until an ACK
    // beyond its recovery point (segment 10).
    let mut s = sender(Recovery::Sack, "always_wireless", "1");
    to_trigger(&mut s, |a| a);
    assert!(s.in_recovery());
    assert_eq!((s.cwnd(), s.ssthresh()), (10.1, 10.0));
    s.on_ack(200 * MS, &ack(5, 0), &mut o);
    assert!(s.in_recovery());
    s.on_ack(300 * MS, &ack(11, 0), &mut o);
    assert!(!s.in_recovery());
}

fn fast_retransmits(out: &SenderOutput) -> usize {
    out.events
        .iter()
        .filter(|e| matches!(e, RecoveryEvent::FastRetransmit(_)))
        .count()
}

/// A hole gets one wireless retransmission (then the timer), a new hole its
/// own; a congestion response is not made for duplicates of data sent
/// before the last one (RFC 6582 §3.2 step 2).
#[test]
fn gates_per_hole_and_per_window() {
    // The ELN retransmission of 1 was lost too: after the timeout, ELN
    // DUPACKs for 1 bring no second fast retransmit.
    let mut s = sender(Recovery::Reno, "eln", "1");
    let eln = |a| AckInfo { eln: true, ..a };
    to_trigger(&mut s, eln);
    let mut o = SenderOutput::default();
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut o);
    assert!(matches!(o.events[0], RecoveryEvent::Timeout { seq: 1, .. }));
    for i in 1..=3 {
        o.clear();
        s.on_ack(rto + i * MS, &eln(ack(1, 0)), &mut o);
        assert_eq!(fast_retransmits(&o), 0);
    }
    // A new hole after the recovery: its own wireless retransmission (Reno
    // leaves its recovery at the new ACK 5, then DUPACKs for 5).
    let mut s = sender(Recovery::Reno, "always_wireless", "1");
    to_trigger(&mut s, |a| a);
    s.on_ack(200 * MS, &ack(5, 0), &mut o);
    assert!(!s.in_recovery());
    let mut frs = 0;
    for i in 0..3 {
        o.clear();
        s.on_ack((201 + i) * MS, &ack(5, 0), &mut o);
        frs += fast_retransmits(&o);
    }
    assert_eq!(frs, 1);
    // Congestion: after a timeout, DUPACKs of data sent before it do not
    // trigger a fast retransmit.
    let mut s = sender(Recovery::Reno, "none", "1");
    let rto = s.rto_deadline().unwrap();
    o.clear();
    s.on_timer(rto, &mut o);
    assert!(matches!(o.events[0], RecoveryEvent::Timeout { seq: 0, .. }));
    for i in 0..3 {
        o.clear();
        s.on_ack(rto + (i + 1) * MS, &ack(0, 0), &mut o);
        assert!(o.events.is_empty());
    }
}

#[test]
fn timeouts_record_the_window_before_and_after() {
    let mut s = sender(Recovery::Reno, "none", "1");
    let mut o = SenderOutput::default();
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut o);
    let RecoveryEvent::Timeout { seq, before, after } = o.events[0] else {
        panic!("{:?}", o.events);
    };
    assert_eq!(seq, 0);
    assert_eq!(
        before,
        Window {
            cwnd: 10.0,
            ssthresh: 10.0
        }
    );
    assert_eq!(
        after,
        Window {
            cwnd: 1.0,
            ssthresh: 5.0
        }
    );
}

/// Two holes in one window (segments 1 and 5 lost), NewReno, every fast
/// retransmit answered by responder 22 (cwnd = ssthresh = TCP's halving).
/// Per hole, the partial ACK for 5 ends the wireless recovery and the three
/// DUPACKs for 5 bring a second decision: the window is halved twice. Per
/// window, the partial ACK retransmits 5 inside the one episode (ssthresh
/// stays at the first halving of 10 segments: 5), as
/// NewReno's own response does: one decision, one halving.
#[test]
fn respond_per_hole_or_window() {
    let run = |per: RespondPer| {
        let mut s = sender(Recovery::NewReno, "always_wireless", "22");
        s.cfg.respond_per = per;
        let mut o = to_trigger(&mut s, |a| a);
        let mut decisions = fast_retransmits(&o);
        // The retransmitted 1 arrives: ACK 5 (partial), then 5 is missing.
        o.clear();
        s.on_ack(200 * MS, &ack(5, 0), &mut o);
        decisions += fast_retransmits(&o);
        let partial_rxmit = o.segs.iter().any(|g| g.seq == 5);
        for i in 1..=3 {
            o.clear();
            s.on_ack((200 + i) * MS, &ack(5, 0), &mut o);
            decisions += fast_retransmits(&o);
        }
        (decisions, partial_rxmit, s.ssthresh())
    };
    // Per hole: the second halving is of the flight 5..10 (6 segments): 3.
    assert_eq!(run(RespondPer::Hole), (2, false, 3.0));
    assert_eq!(run(RespondPer::Window), (1, true, 5.0));
}
