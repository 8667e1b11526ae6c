//! The MAC alone, driven by a small event loop: one saturated station
//! against the closed-form single-station DCF rate, and collisions between
//! two hidden senders.

use super::{MacEv, MacOut, Medium, WifiParams};
use crate::engine::{EventQueue, Time, SEC};

/// Run stations `senders` (each always backlogged towards `to`) for `dur`;
/// returns packets delivered per sender and the medium.
fn saturate(pos: Vec<(f64, f64)>, senders: &[(u16, u16)], dur: Time) -> (Vec<u64>, Medium) {
    saturate_with(WifiParams::default(), pos, senders, dur)
}

fn saturate_with(
    p: WifiParams,
    pos: Vec<(f64, f64)>,
    senders: &[(u16, u16)],
    dur: Time,
) -> (Vec<u64>, Medium) {
    let n = pos.len();
    let mut m = Medium::new("t", p, (0..n as u32).collect(), pos, 7);
    let mut q: EventQueue<MacEv> = EventQueue::new();
    let mut out = Vec::new();
    let mut got = vec![0u64; n];
    for &(s, to) in senders {
        for k in 0..50 {
            assert!(m.enqueue(0, s, to, u32::from(s), k, 1000, &mut out));
        }
    }
    loop {
        for o in out.drain(..) {
            match o {
                MacOut::Schedule(t, ev) => q.schedule(t, ev),
                MacOut::Deliver(_, dir) => got[dir as usize] += 1,
                MacOut::Drop(..) => {}
            }
        }
        // Keep every sender backlogged.
        for &(s, to) in senders {
            while m.queued(s) < 10 {
                assert!(m.enqueue(q.now(), s, to, u32::from(s), 0, 1000, &mut out));
            }
        }
        match q.pop() {
            Some(e) if e.time <= dur => m.on_event(e.time, e.event, &mut out),
            _ => break,
        }
    }
    (got, m)
}

/// Bianchi 2000's single-station case (no collisions): per frame the
/// station waits DIFS and on average CWmin/2 slots, then sends the data
/// frame, and the ACK follows a SIFS later (IEEE 802.11-1999 §9.2.5.2).
#[test]
fn one_saturated_station_matches_the_closed_form() {
    let p = WifiParams::default();
    let per_frame = p.difs as f64
        + f64::from(p.cw_min) / 2.0 * p.slot as f64
        + p.data_time(1000) as f64
        + p.sifs as f64
        + p.ack_time() as f64;
    let expect_bps = 8000.0 * SEC as f64 / per_frame;
    let dur = 20 * SEC;
    let (got, m) = saturate(vec![(0.0, 0.0), (200.0, 0.0)], &[(0, 1)], dur);
    let bps = got[0] as f64 * 8000.0 / 20.0;
    let err = (bps - expect_bps).abs() / expect_bps;
    eprintln!("one saturated station: {bps} b/s, closed form {expect_bps} b/s");
    assert!(err < 0.05, "{bps} vs closed form {expect_bps} ({err})");
    assert!((expect_bps - 4.94e6).abs() < 0.01e6, "{expect_bps}");
    assert_eq!(m.stats.collisions, 0);
}

#[test]
fn hidden_senders_collide_at_the_receiver_and_far_ones_do_not() {
    // A(0) -> B(200) and C -> D: with C at 600 m, C is out of A's 550 m
    // carrier-sense range but within interference range of B (400 m): a
    // hidden terminal. With C at 800 m nothing overlaps.
    let hidden = vec![(0.0, 0.0), (200.0, 0.0), (600.0, 0.0), (800.0, 0.0)];
    let (got_h, m) = saturate(hidden, &[(0, 1), (2, 3)], 5 * SEC);
    assert!(m.stats.collisions > 0);
    let far = vec![(0.0, 0.0), (200.0, 0.0), (800.0, 0.0), (1000.0, 0.0)];
    let (got_f, m) = saturate(far, &[(0, 1), (2, 3)], 5 * SEC);
    assert_eq!(m.stats.collisions, 0);
    assert!(got_h[0] < got_f[0], "{got_h:?} {got_f:?}");
}

#[test]
fn frame_times_follow_the_parameters() {
    let p = WifiParams::default();
    // 192 us PLCP + (1000 + 36) bytes at 11 Mb/s; ACK 192 us + 14 bytes at 1 Mb/s.
    assert_eq!(p.data_time(1000), 192_000 + 753_455);
    assert_eq!(p.ack_time(), 304_000);
    // EIFS: SIFS + ACK at 1 Mb/s + DIFS.
    assert_eq!(p.eifs(), 364_000);
}

/// With RTS/CTS the closed form adds RTS + SIFS + CTS + SIFS per frame.
#[test]
fn one_saturated_station_with_rts_cts_matches_the_closed_form() {
    let p = WifiParams {
        rts_cts: true,
        ..WifiParams::default()
    };
    let per_frame = (p.difs + p.rts_time() + 3 * p.sifs + 2 * p.ack_time() + p.data_time(1000))
        as f64
        + f64::from(p.cw_min) / 2.0 * p.slot as f64;
    let expect_bps = 8000.0 * SEC as f64 / per_frame;
    let (got, m) = saturate_with(p, vec![(0.0, 0.0), (200.0, 0.0)], &[(0, 1)], 20 * SEC);
    let bps = got[0] as f64 * 8000.0 / 20.0;
    eprintln!("one saturated station, RTS/CTS: {bps} b/s, closed form {expect_bps} b/s");
    assert!(
        (bps - expect_bps).abs() / expect_bps < 0.05,
        "{bps} {expect_bps}"
    );
    assert_eq!(m.stats.collisions, 0);
}

#[test]
fn rts_cts_runs_hidden_senders_without_losing_packets_for_ever() {
    let p = WifiParams {
        rts_cts: true,
        ..WifiParams::default()
    };
    let hidden = vec![(0.0, 0.0), (200.0, 0.0), (400.0, 0.0), (600.0, 0.0)];
    let (got, _) = saturate_with(p, hidden, &[(0, 1), (3, 2)], 5 * SEC);
    assert!(got[0] > 100 && got[3] > 100, "{got:?}");
}
