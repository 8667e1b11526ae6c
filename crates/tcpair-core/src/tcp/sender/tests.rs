//! Sender + sink through a hand-controlled network: a [`Loop`] of one hop.
//!
//! The "network": a fixed one-way delay each way (50 ms, so RTT = 100 ms),
//! FIFO, an optional serialization time per data packet, and deterministic
//! kills: "drop the k-th transmission of segment N" (like ns-3's
//! ReceiveListErrorModel) and "drop the n-th ACK". With no serialization
//! time every RTT sample is exactly 100 ms, which makes Karn's rule visible:
//! any sample taken from a retransmitted segment would be longer.

use super::*;
use crate::engine::{MS, SEC};
use crate::tcp::{Recovery as Variant, RecoveryEvent, SendSeg, SinkConfig};
use crate::testkit::{Link, Loop};

/// A recovery event, as the tests compare it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rec {
    /// Fast retransmit of a segment, with or without a window cut.
    Fr(u32, bool),
    /// Timeout, retransmitting a segment.
    To(u32),
    /// A scheme part's retransmission.
    Rtx(u32),
}

/// The recovery events of a run, time-stamped, as the tests compare them.
fn recs(h: &Loop) -> Vec<(Time, Rec)> {
    let rec = |e: &RecoveryEvent| match *e {
        RecoveryEvent::FastRetransmit(d) => Rec::Fr(d.seq, d.window_cut),
        RecoveryEvent::Timeout { seq, .. } => Rec::To(seq),
        RecoveryEvent::Retransmit { seq, .. } => Rec::Rtx(seq),
    };
    let all = h.record().recoveries.iter();
    all.map(|(t, e)| (*t, rec(e))).collect()
}

const D: Time = 50 * MS;

/// The network: one hop, D each way, `ser` per data packet; a killed
/// packet is dropped before the link (it takes no serialization time).
fn net(c: TcpConfig, sink: SinkConfig, ser: Time) -> Loop {
    Loop::new(c, sink).hop_a(Link::wired(ser, D).kill_before_link())
}

fn st(h: &Loop) -> SenderStats {
    *h.sender().stats()
}

/// (fast_retransmits, timeouts, window_cuts)
fn frw(h: &Loop) -> (u64, u64, u64) {
    let s = st(h);
    (s.fast_retransmits, s.timeouts, s.window_cuts)
}

/// Every RTT sample was exactly one RTT (no sample from a retransmission).
fn assert_karn_clean(h: &Loop) {
    let s = st(h);
    assert!(s.rtt_samples > 0);
    assert_eq!(s.rtt_sum_ns, u128::from(s.rtt_samples) * u128::from(2 * D));
}

fn cfg(v: Variant) -> TcpConfig {
    TcpConfig {
        recovery: v,
        window: 20,
        ..TcpConfig::default()
    }
}

/// `cfg(v)` sending `n` segments.
fn finite(v: Variant, n: u64) -> TcpConfig {
    TcpConfig {
        total_segments: Some(n),
        ..cfg(v)
    }
}

fn sink_cfg(v: Variant) -> SinkConfig {
    SinkConfig {
        sack: v == Variant::Sack,
        ..SinkConfig::default()
    }
}

/// Bulk-ish finite transfer of `n` segments with the given kills.
fn run(c: TcpConfig, kills: &[(u32, u32)], n: u64) -> Loop {
    let v = c.recovery;
    let c = TcpConfig {
        total_segments: Some(n),
        ..c
    };
    let mut h = net(c, sink_cfg(v), 0).kills_a(kills);
    h.run_until(600 * SEC);
    assert!(h.finished(), "{v:?}: transfer did not finish");
    let delivered = h.record().delivered;
    assert_eq!(delivered, n, "{v:?}: all data delivered in order");
    assert_eq!(h.sink().rcv_nxt() as u64, n);
    assert_eq!(h.sender().rto_deadline(), None, "no timer once finished");
    h
}

const ALL: [Variant; 4] = [
    Variant::Tahoe,
    Variant::Reno,
    Variant::NewReno,
    Variant::Sack,
];
// ---- 1. no loss ----

/// Slow start from 1 to ssthresh 8, then +1/cwnd per ACK; window 20 caps
/// what is outstanding, never cwnd itself. No retransmissions.
#[test]
fn case1_no_loss_cwnd_growth() {
    for v in ALL {
        let mut c = cfg(v);
        c.initial_ssthresh = 8.0;
        let h = run(c, &[], 300);
        assert_eq!(frw(&h), (0, 0, 0), "{v:?}");
        assert_eq!(st(&h).retransmits, 0);
        assert_eq!(st(&h).sent, 300);
        assert_eq!(h.record().at_receiver.len(), 300);
        // One ACK per segment, each a new ACK.
        let cwnd = h.record().cwnd_after_acks();
        assert_eq!(cwnd.len(), 300);
        // ACKs 1..7: slow start, cwnd = 2..8.
        for (i, w) in cwnd[..7].iter().enumerate() {
            assert_eq!(*w, (i + 2) as f64, "{v:?} slow start");
        }
        // From cwnd 8 = ssthresh on: congestion avoidance, +1/cwnd per ACK.
        let mut w = 8.0;
        for got in &cwnd[7..] {
            w += 1.0 / w;
            assert!((got - w).abs() < 1e-9, "{v:?} CA");
        }
        // 293 CA ACKs from 8: w^2 grows by ~2 per ACK -> w ~ sqrt(64 + 586) ~ 25.5.
        assert!((25.0..26.0).contains(&w));
        assert_karn_clean(&h);
        // With exact 100 ms samples the RTO sits at the 200 ms floor.
        assert_eq!(h.sender().current_rto(), 200 * MS);
        assert_eq!(h.sender().srtt(), Some(100 * MS));
    }
}

// ---- 2. one loss in a window ----

/// Segment 40 lost once; by then the window (20) limits the flight, so 19
/// dupacks come back: every variant does exactly one fast retransmit and one
/// window cut, ssthresh = 20/2 = 10, no timeout.
#[test]
fn case2_one_loss() {
    for v in ALL {
        let h = run(cfg(v), &[(40, 1)], 200);
        assert_eq!(frw(&h), (1, 0, 1), "{v:?}");
        assert_eq!(h.sender().ssthresh(), 10.0, "{v:?}");
        assert_eq!(recs(&h)[0].1, Rec::Fr(40, true));
        assert_karn_clean(&h);
        // Only 40 is resent. (Tahoe too: its go-back-N from 41 is overtaken
        // by the cumulative ACK 60 that the retransmission brings.)
        assert_eq!(st(&h).retransmits, 1, "{v:?}");
    }
}

/// An op whose fast recovery ends below its ssthresh (Westwood+'s can).
#[derive(Debug, Clone)]
struct EndsBelowSsthresh;

impl crate::tcp::CongestionOps for EndsBelowSsthresh {
    fn name(&self) -> &'static str {
        "test"
    }
    fn grow(&mut self, cwnd: &mut f64, ssthresh: f64, _acked: u32, _h: &History) {
        crate::tcp::cc::reno::reno_grow(cwnd, ssthresh);
    }
    fn on_loss(&self, _c: &LossCtx, _h: &History) -> Window {
        Window {
            cwnd: 7.0,
            ssthresh: 10.0,
        }
    }
    fn on_timeout(&mut self, _c: &LossCtx, _h: &History) -> f64 {
        2.0
    }
}

/// Fast recovery ends with the cwnd the op chose, not ssthresh: from the
/// fast retransmit on (Reno, NewReno: 7 + 3, inflated, then deflated; SACK:
/// 7 at once) the smallest cwnd is 7, followed by slow start towards 10.
#[test]
fn case2_recovery_ends_with_the_ops_cwnd() {
    for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
        let mut c = cfg(v);
        c.cc = Box::new(EndsBelowSsthresh);
        let h = run(c, &[(40, 1)], 200);
        assert_eq!(frw(&h), (1, 0, 1), "{v:?}");
        assert_eq!(h.sender().ssthresh(), 10.0, "{v:?}");
        let t = &h.record().cwnd_after_acks();
        let fr = (1..t.len()).find(|&i| t[i] < t[i - 1]).expect("a cut");
        let low = t[fr..].iter().position(|&w| w == 7.0);
        let low = fr + low.unwrap_or_else(|| panic!("{v:?}: never 7 after the cut"));
        assert!(t[fr..low].iter().all(|&w| w >= 7.0), "{v:?}");
        let next = t[low..].iter().find(|&&w| w != 7.0);
        assert_eq!(next, Some(&8.0), "{v:?}: slow start after");
    }
}

/// ns-2.35's arithmetic (`reno_ns2`): the same loss of 40, but recovery
/// ends at half the usable window plus ns-2's opencwnd on the exiting ACK,
/// 10 + 1/10, where RFC 5681 ends it at ssthresh = 10.
#[test]
fn case2_ns2_arithmetic_grows_at_recovery_exit() {
    for v in [Variant::Reno, Variant::NewReno] {
        let mut c = cfg(v);
        c.cc = Box::new(crate::tcp::cc::reno_ns2::RenoNs2);
        let h = run(c, &[(40, 1)], 200);
        assert_eq!(frw(&h), (1, 0, 1), "{v:?}");
        assert_eq!(h.sender().ssthresh(), 10.0, "{v:?}");
        let t = &h.record().cwnd_after_acks();
        let fr = (1..t.len()).find(|&i| t[i] < t[i - 1]).expect("a cut");
        let exit = t[fr..].iter().find(|&&w| w < 13.0).copied();
        assert_eq!(exit, Some(10.1), "{v:?}");
    }
}

// ---- 3. two losses in one window ----

/// Segments 40 and 45 lost in the same window (20 outstanding: 40..59).
#[test]
fn case3_two_losses() {
    // Reno: FR of 40 (ssthresh 10, cwnd 13, inflated by 17 more dupacks: the
    // window of 20 stays the limit). The retransmission brings the partial
    // ACK 45: Reno leaves recovery (cwnd = 10) with 15 > 10 outstanding, so
    // nothing is sent, no dupack can come, and ack 45 <= recover (59) would
    // forbid a second FR anyway: the RTO fires for 45. ssthresh = 15/2 = 7.
    let h = run(cfg(Variant::Reno), &[(40, 1), (45, 1)], 200);
    assert_eq!(frw(&h), (1, 1, 2));
    assert_eq!(recs(&h)[1].1, Rec::To(45));
    assert_karn_clean(&h);

    // NewReno: the partial ACK 45 retransmits 45 at once and stays in
    // recovery; the full ACK 60 ends it. One FR, one cut, no timeout.
    let h = run(cfg(Variant::NewReno), &[(40, 1), (45, 1)], 200);
    assert_eq!(frw(&h), (1, 0, 1));
    assert_eq!(st(&h).retransmits, 2);
    assert_eq!(h.sender().ssthresh(), 10.0);
    assert_karn_clean(&h);

    // SACK: 45 is IsLost once 3 segments above it are SACKed and is resent
    // within the same episode. One FR, one cut, no timeout, 2 retransmits.
    let h = run(cfg(Variant::Sack), &[(40, 1), (45, 1)], 200);
    assert_eq!(frw(&h), (1, 0, 1));
    assert_eq!(st(&h).retransmits, 2);
    assert_karn_clean(&h);

    // Tahoe: FR of 40, cwnd 1; the partial ACK 45 opens cwnd to 2 and
    // go-back-N resends 45 and 46 (46 is a needless retransmission). The ACK
    // for 45 jumps to 60. One FR, one cut, no timeout.
    let h = run(cfg(Variant::Tahoe), &[(40, 1), (45, 1)], 200);
    assert_eq!(frw(&h), (1, 0, 1));
    assert_eq!(st(&h).retransmits, 3);
    assert_karn_clean(&h);
}

/// The guard's boundary (RFC 6582 §3.2 step 1). Killing 40 gives a fast
/// retransmit with `recover` = 59 (window 20); the full ACK is 60, after
/// which cwnd = 10 sends 60..69. If 60 is lost, its dupacks carry ACK 60,
/// which covers exactly `recover` and no more: no new fast retransmit, the
/// timer repairs it. If 61 is lost, ACK 61 covers more than `recover`: fast
/// retransmit.
#[test]
fn case3c_guard_boundary() {
    for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
        let h = run(cfg(v), &[(40, 1), (60, 1)], 200);
        assert_eq!(frw(&h), (1, 1, 2), "{v:?}: ack = recover + 1");
        assert_eq!(recs(&h)[1].1, Rec::To(60), "{v:?}");
        let h = run(cfg(v), &[(40, 1), (61, 1)], 200);
        assert_eq!(frw(&h), (2, 0, 2), "{v:?}: ack = recover + 2");
        assert_eq!(recs(&h)[1].1, Rec::Fr(61, true), "{v:?}");
    }
}

/// Three losses in one window (40, 44, 48): NewReno needs one partial ACK
/// per loss, one RTT apart; SACK repairs them in one episode.
#[test]
fn case3b_three_losses_newreno_sack() {
    // SACK, default RTO: one FR, one cut, no timeout, exactly 3 retransmits.
    let h = run(cfg(Variant::Sack), &[(40, 1), (44, 1), (48, 1)], 200);
    assert_eq!(frw(&h), (1, 0, 1));
    assert_eq!(st(&h).retransmits, 3);

    // NewReno with an RTO well above 2 RTT (min_rto 1 s): FR of 40 at
    // 0.6 s, partial ACKs 44 (0.7 s) and 48 (0.8 s) resend 44 and 48, the full
    // ACK at 0.9 s ends recovery. One FR, one cut, no timeout.
    let mut c = cfg(Variant::NewReno);
    c.min_rto = SEC;
    let h = run(c, &[(40, 1), (44, 1), (48, 1)], 200);
    assert_eq!(frw(&h), (1, 0, 1));
    assert_eq!(st(&h).retransmits, 3);

    // NewReno, Impatient variant with RTO (150 ms) < 2 RTT: the timer is
    // restarted only at the first partial ACK (0.7 s), so it fires at 0.85 s
    // while the retransmission of 48 (sent at 0.8 s) is still in flight.
    // The timeout resends 48 and goes back N; the ACKs at 0.9 s (for the
    // first retransmission of 48 and for 64..67) make it resend 64..67
    // needlessly; their duplicates (and the second 48) produce 5 dupacks of
    // 68. recover = 67 was set at the timeout and ACK 68 covers it but no
    // more, so no fast retransmit follows: RFC 6582 §3.2 step 1 is the guard
    // that keeps these duplicates from causing a spurious one (§4.2).
    let mut c = cfg(Variant::NewReno);
    c.min_rto = 150 * MS;
    let h = run(c, &[(40, 1), (44, 1), (48, 1)], 200);
    assert_eq!(frw(&h), (1, 1, 2));
    let kinds = recs(&h);
    assert_eq!(
        kinds,
        vec![(600 * MS, Rec::Fr(40, true)), (850 * MS, Rec::To(48))]
    );
}

// ---- 4. lost retransmission ----

/// Segment 40 lost, and its fast retransmission lost too: only the RTO can
/// repair it, for every variant (no lost-retransmission detection). One FR,
/// one timeout, two cuts; the timeout resends 40 a third time.
#[test]
fn case4_lost_retransmission() {
    for v in ALL {
        let h = run(cfg(v), &[(40, 1), (40, 2)], 200);
        assert_eq!(frw(&h), (1, 1, 2), "{v:?}");
        assert_eq!(recs(&h)[1].1, Rec::To(40), "{v:?}");
        assert_eq!(h.record().transmissions(40), 3);
        // The timer was restarted by the FR (ns-2 reset_rtx_timer) at the
        // time of the 3rd dupack, and no ACK advanced since: the timeout
        // fires exactly one RTO (200 ms: all samples were 100 ms) later.
        let fr_t = recs(&h)[0].0;
        assert_eq!(recs(&h)[1].0, fr_t + 200 * MS, "{v:?}");
        // RFC 5681 (4) at the timeout: FlightSize 20 -> ssthresh 10.
        assert_eq!(h.sender().ssthresh(), 10.0, "{v:?}");
        assert_karn_clean(&h);
    }
}

// ---- 5. too few dupacks -> timeout; backoff; max_rto ----

/// Last segment (19 of 20) lost 3 times: no segment follows it, so no
/// dupacks; three timeouts with RTO 200, 400, 800 ms (at least 4 exact
/// 100 ms samples put the base RTO at the 200 ms floor).
#[test]
fn case5_tail_loss_backoff() {
    for v in ALL {
        let h = run(cfg(v), &[(19, 1), (19, 2), (19, 3)], 20);
        assert_eq!(frw(&h), (0, 3, 3), "{v:?}");
        let t = h.record().timeout_times();
        assert_eq!(t[1] - t[0], 400 * MS, "{v:?}");
        assert_eq!(t[2] - t[1], 800 * MS, "{v:?}");
        assert_eq!(st(&h).timeout_rto_sum_ns, u128::from(1400 * MS));
        // The segment that finally got through was a retransmission: no
        // sample, the backoff (x8) is kept (RFC 6298 §5.7).
        assert_eq!(h.sender().current_rto(), 1600 * MS);
        assert_karn_clean(&h);
    }
}

/// Same with max_rto = 500 ms and 4 kills: 200, 400, 500, 500 ms.
#[test]
fn case5_backoff_capped_by_max_rto() {
    for v in ALL {
        let mut c = cfg(v);
        c.max_rto = 500 * MS;
        let h = run(c, &[(19, 1), (19, 2), (19, 3), (19, 4)], 20);
        assert_eq!(frw(&h), (0, 4, 4), "{v:?}");
        let t = h.record().timeout_times();
        let gaps: Vec<Time> = t.windows(2).map(|w| (w[1] - w[0]) / MS).collect();
        assert_eq!(gaps, vec![400, 500, 500], "{v:?}");
        assert_eq!(st(&h).timeout_rto_sum_ns, u128::from(1600 * MS));
    }
}

/// Window 3: a loss leaves only 2 dupacks, below the threshold of 3: one
/// timeout, no FR. ssthresh = max(3/2, 2) = 2.
#[test]
fn case5_small_window_timeout() {
    for v in ALL {
        let mut c = cfg(v);
        c.window = 3;
        let h = run(c, &[(10, 1)], 40);
        assert_eq!(frw(&h), (0, 1, 1), "{v:?}");
        assert_eq!(recs(&h)[0].1, Rec::To(10));
        assert_eq!(h.sender().ssthresh(), 2.0);
    }
}

// ---- 6. Karn ----

/// Segment 0 lost: no sample exists, the timeout fires at the initial 3 s
/// RTO, the RTO backs off to 6 s. The ACK of the retransmitted 0 (at 3.1 s)
/// gives no sample (Karn) and keeps the backoff; the ACK of segment 1 (an
/// original, 3.2 s) gives SRTT = 100 ms, RTTVAR = 50 ms, RTO = 300 ms.
#[test]
fn case6_karn() {
    for v in ALL {
        let mut h = net(finite(v, 50), sink_cfg(v), 0).kill_a(0, 1);
        h.run_until(3 * SEC + 150 * MS);
        assert_eq!(h.record().timeout_times(), vec![3 * SEC]);
        assert_eq!(h.sender().snd_una(), 1);
        assert_eq!(st(&h).rtt_samples, 0, "{v:?}");
        assert_eq!(h.sender().srtt(), None);
        assert_eq!(h.sender().current_rto(), 6 * SEC);
        h.run_until(3 * SEC + 250 * MS);
        assert_eq!(st(&h).rtt_samples, 1, "{v:?}");
        assert_eq!(h.sender().srtt(), Some(100 * MS));
        assert_eq!(h.sender().current_rto(), 300 * MS);
        h.run_until(600 * SEC);
        assert!(h.sender().finished());
        assert_karn_clean(&h);
    }
}

// ---- 7. limited transmit ----

/// cwnd ~3 (initial cwnd 3 = ssthresh, CA): segments 3, 4, 5 are out when 3
/// is lost, so only 2 dupacks come. Without RFC 3042 that is a timeout; with
/// it, dupacks 1 and 2 each send a new segment (6, 7), whose arrivals make
/// the 3rd dupack: fast retransmit instead.
#[test]
fn case7_limited_transmit() {
    for v in ALL {
        for lt in [false, true] {
            let mut c = cfg(v);
            c.initial_cwnd = 3.0;
            c.initial_ssthresh = 3.0;
            c.limited_transmit = lt;
            let h = run(c, &[(3, 1)], 40);
            if lt {
                assert_eq!(frw(&h), (1, 0, 1), "{v:?} with LT");
                // FlightSize excludes the 2 LT segments: 3 -> ssthresh max(1, 2) = 2.
                assert_eq!(h.sender().ssthresh(), 2.0);
                assert_eq!(recs(&h)[0].1, Rec::Fr(3, true));
            } else {
                assert_eq!(frw(&h), (0, 1, 1), "{v:?} without LT");
            }
        }
    }
}

// ---- 8. delayed ACKs ----

/// Delayed-ACK sink without loss: about one ACK per two segments; with a
/// loss, the out-of-order arrivals are ACKed at once so FR still works.
#[test]
fn case8_delayed_ack() {
    for v in ALL {
        let c = finite(v, 400);
        let delack = SinkConfig {
            delayed_ack: true,
            ..sink_cfg(v)
        };
        let mut h = net(c.clone(), delack.clone(), 0);
        h.run_until(600 * SEC);
        assert!(h.sender().finished());
        let acks = h.sink().acks_sent();
        // Slow start with small odd flights leaves a lone segment waiting for
        // the 100 ms timer 4 times (segments 0, 5, 8 and 13: timer ACKs at
        // 150, 450, 550, 650 ms); every other ACK covers two segments:
        // 4 + (400 - 4) / 2 = 202 ACKs for 400 segments.
        assert_eq!(h.record().timer_acks(), 4, "{v:?}");
        assert_eq!(acks, 202, "{v:?}");
        assert_eq!(frw(&h), (0, 0, 0));

        let mut h = net(c, delack, 0).kill_a(100, 1);
        h.run_until(600 * SEC);
        assert!(h.sender().finished());
        assert_eq!(h.record().delivered, 400);
        assert_eq!(frw(&h), (1, 0, 1), "{v:?}");
    }
}

// ---- 9. SACK blocks through the harness ----

/// The sender's scoreboard follows the sink's blocks: with 40 and 45 lost,
/// the SACK sender retransmits exactly 40 and 45 (nothing SACKed is resent).
#[test]
fn case9_sack_retransmits_only_holes() {
    let h = run(cfg(Variant::Sack), &[(40, 1), (45, 1)], 200);
    assert_eq!(h.record().retransmitted(), vec![40, 45]);
}

/// ACK loss alone never causes a retransmission when later cumulative ACKs
/// get through.
#[test]
fn ack_loss_is_harmless() {
    for v in ALL {
        let mut h = net(finite(v, 100), sink_cfg(v), 0).kill_acks(&[10, 11, 30, 50]);
        h.run_until(600 * SEC);
        assert!(h.sender().finished());
        assert_eq!(frw(&h), (0, 0, 0), "{v:?}");
    }
}

/// on_timer is a no-op when the deadline moved or was cleared.
#[test]
fn stale_timer_is_noop() {
    let mut s = TcpSender::new(TcpConfig::default());
    let mut out = SenderOutput::default();
    s.start(0, &mut out);
    assert_eq!(out.segs.len(), 1);
    assert_eq!(s.rto_deadline(), Some(3 * SEC));
    out.clear();
    s.on_timer(SEC, &mut out);
    assert!(out.segs.is_empty());
    let ack = AckInfo {
        ack: 1,
        ..AckInfo::default()
    };
    s.on_ack(100 * MS, &ack, &mut out);
    // cwnd 2: segments 1 and 2 out; timer restarted at 100 ms + RTO 300 ms.
    assert_eq!(s.rto_deadline(), Some(400 * MS));
    out.clear();
    s.on_timer(399 * MS, &mut out); // a timer event scheduled for an older/earlier deadline
    assert!(out.segs.is_empty());
    assert_eq!(s.stats().timeouts, 0);
    s.on_timer(400 * MS, &mut out);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(
        out.segs[0],
        SendSeg {
            seq: 1,
            retransmit: true
        }
    );
    // Everything acked: no timer, on_timer is a no-op.
    let ack = AckInfo {
        ack: 3,
        ..AckInfo::default()
    };
    out.clear();
    s.on_ack(500 * MS, &ack, &mut out);
    // cwnd was 1 after the timeout, +1 -> 2: segments 3, 4 sent, timer re-armed.
    assert_eq!(out.segs.len(), 2);
    assert!(s.rto_deadline().is_some());
}

// ---- robustness: random loss patterns ----

mod prop;
