//! The Syndrome paper's worked examples (Examples 1-5, Figs. 3-7) and the duplicate
//! cases of §5 (C1.a-C1.d), replayed through the real Syndrome BS counter,
//! the Syndrome receiver and an ELN-aware Reno sender.
//!
//! The figures are missing from our copy of the paper, so each example's
//! arrival order at the BS is rebuilt from the text (which packets are lost
//! where, which arrive out of order, and any count the text gives). The
//! network is a hand-controlled closed loop: sender -> wired hop (per-packet
//! extra delay for reordering, kills for wireline losses, scheduled copies
//! for duplicates) -> Syndrome BS -> wireless hop (FIFO, kills) -> receiver
//! -> ACKs back. Time unit: a "slot" = the sender's spacing of back-to-back
//! packets on the wired hop; reordering is expressed in slots.

use std::collections::HashMap;
use tcpair_core::engine::{Time, MS, SEC, US};
use tcpair_core::schemes::syndrome::counter::SyndromeBs;
use tcpair_core::schemes::syndrome::receiver::UnusedCredit;
use tcpair_core::tcp::{Recovery, SinkConfig, TcpConfig};
use tcpair_core::testkit::{Link, Loop, BS};

const SLOT: Time = MS; // wired serialization per data packet
const WIRED: Time = 20 * MS; // base wired delay sender -> BS
const AIR: Time = 100 * US; // wireless serialization per packet (faster than SLOT)
const BACK: Time = 20 * MS; // ACK delay MH -> sender

#[derive(Default)]
struct Net {
    /// (seq, k-th transmission) -> extra wired delay in slots (may be negative).
    shift: HashMap<(u32, u32), f64>,
    wired_kill: Vec<(u32, u32)>,
    wireless_kill: Vec<(u32, u32)>,
    /// (seq, k-th transmission) -> a network duplicate arriving this many
    /// slots after the original; it counts as a separate wireless transmission.
    dup: HashMap<(u32, u32), f64>,
}

struct Run {
    /// Fast retransmits: (seq, window cut).
    frs: Vec<(u32, bool)>,
    acks: Vec<(u32, bool)>,
    cuts: u64,
    eln_rtx: u64,
    fast_rtx: u64,
    timeouts: u64,
    bs_order: Vec<u32>,
    credits: u64,
}

impl Run {
    /// ELN bits of the duplicate ACKs asking for `seq`.
    fn dup_eln(&self, seq: u32) -> Vec<bool> {
        let mut out = Vec::new();
        let mut prev = None;
        for &(a, e) in &self.acks {
            if Some(a) == prev && a == seq {
                out.push(e);
            }
            prev = Some(a);
        }
        out
    }
    /// Window cuts made at fast retransmits (timeouts excluded).
    fn fr_cuts(&self) -> u64 {
        self.fast_rtx - self.eln_rtx
    }
    fn any_eln(&self, seq: u32) -> bool {
        self.dup_eln(seq).iter().any(|&e| e)
    }
    fn all_eln(&self, seq: u32) -> bool {
        let v = self.dup_eln(seq);
        !v.is_empty() && v.iter().all(|&e| e)
    }
}

/// A number of slots, in nanoseconds.
fn slots(s: f64) -> i64 {
    (s * SLOT as f64).round() as i64
}

/// The loop: sender -> wired hop (1 slot per packet, 20 ms) -> Syndrome BS
/// -> wireless hop (0.1 ms per packet, FIFO) -> receiver; ACKs straight
/// back (20 ms).
fn network(net: &Net, unused: UnusedCredit, segments: u64) -> Loop {
    let cfg = TcpConfig {
        recovery: Recovery::Reno,
        // cwnd-limited (window 64 > cwnd 12, ssthresh 12: congestion
        // avoidance): fast-recovery inflation can send new data, as the
        // figures' dupack runs require.
        window: 64,
        initial_cwnd: 12.0,
        initial_ssthresh: 12.0,
        detector: Box::new(tcpair_core::tcp::detect::eln::Eln::default()),
        total_segments: Some(segments),
        ..TcpConfig::default()
    };
    let sink = SinkConfig {
        syndrome: true,
        syndrome_unused_credit: unused,
        ..SinkConfig::default()
    };
    let mut lp = Loop::new(cfg, sink)
        .hop_a(Link::wired(SLOT, WIRED))
        .bs(Box::new(SyndromeBs::new(BS)))
        .hop_b(Link::wireless(AIR, 0))
        .acks_direct(BACK)
        .kills_a(&net.wired_kill)
        .kills_b(&net.wireless_kill);
    for (&(seq, k), &s) in &net.shift {
        lp = lp.extra_delay_a(seq, k, slots(s));
    }
    for (&(seq, k), &s) in &net.dup {
        let after = Time::try_from(slots(s)).expect("a duplicate follows its original");
        lp = lp.duplicate_a(seq, k, after);
    }
    lp
}

fn run(net: Net, unused: UnusedCredit, segments: u64) -> Run {
    let mut lp = network(&net, unused, segments);
    lp.run_until(60 * SEC);
    assert!(lp.finished(), "example did not finish");
    let r = lp.record();
    let st = lp.sender().stats();
    let frs = r.fast_retransmits().into_iter();
    Run {
        frs: frs.map(|(_, d)| (d.seq, d.window_cut)).collect(),
        acks: r.acks_sent.iter().map(|a| (a.ack.ack, a.ack.eln)).collect(),
        cuts: st.window_cuts,
        eln_rtx: st.wireless_frs,
        fast_rtx: st.fast_retransmits,
        timeouts: st.timeouts,
        bs_order: r.bs_data_order(),
        credits: lp
            .sink()
            .syndrome_stats()
            .expect("a Syndrome sink")
            .credits_given,
    }
}

fn net() -> Net {
    Net::default()
}

/// Position of each seq's first arrival at the BS, to check an example's order.
fn order_of(r: &Run, seqs: &[u32]) -> Vec<u32> {
    let mut seen = Vec::new();
    for &s in &r.bs_order {
        if seqs.contains(&s) && !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen
}

const N: u64 = 40;

/// Example 1 as the text states it: 12 and 13 lost on the wireless link, 16
/// in the wireline network. One cut, as the paper says. (Which dupacks carry
/// ELN: with 14 and 15 received, 12 and 13 form one gap (G_2, G_2) and both
/// get a credit; 16 forms its own gap (G_1, G_0) and gets none. The paper's
/// ELN pattern (12 and 16, not 13) is what Eq. (1) gives when the three
/// losses fall in one gap: see `example_1_one_gap`.)
#[test]
fn example_1_as_stated() {
    let mut n = net();
    n.wireless_kill = vec![(12, 1), (13, 1)];
    n.wired_kill = vec![(16, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert!(r.all_eln(12) && r.all_eln(13));
    assert!(!r.any_eln(16));
    assert_eq!(r.cuts, 1, "window cuts = wireline losses");
    assert_eq!(r.credits, 2);
    // Three losses in one window: Reno's recovery of 16 ends in its timer
    // (the one cut), as it would without Syndrome.
    assert_eq!((r.fr_cuts(), r.timeouts), (0, 1));
}

/// Example 1's ELN pattern: three losses in one gap, wireless, wireless,
/// wireline (here 12, 13 and 14): (G_3, G_2), Eq. (1) credits the 1st and
/// 3rd observed losses, so 12 and 14 get ELN and 13 is cut: the "offset" of
/// the cut the paper describes.
#[test]
fn example_1_one_gap() {
    let mut n = net();
    n.wireless_kill = vec![(12, 1), (13, 1)];
    n.wired_kill = vec![(14, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert!(r.all_eln(12));
    assert!(!r.any_eln(13));
    assert_eq!(r.credits, 2);
    // One fast-retransmit cut (for 13, the offset the paper describes); 14,
    // the third loss of the window, is left to Reno's timer.
    assert_eq!((r.fr_cuts(), r.timeouts), (1, 1));
}

/// Example 2 (O, L): 13 arrives out of order at the BS (one packet late) and
/// is lost on the wireless link: (G_0, G_1) gives a credit that is not tied
/// to a gap, and the dupacks for 13 get ELN; no cut.
#[test]
fn example_2_g0_gm() {
    let mut n = net();
    n.shift.insert((13, 1), 1.5);
    n.wireless_kill = vec![(13, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert_eq!(order_of(&r, &[12, 13, 14, 15]), vec![12, 14, 13, 15]);
    assert!(!r.dup_eln(13)[0], "the first dupack precedes the credit");
    assert!(r.dup_eln(13)[1..].iter().all(|&e| e));
    assert_eq!(r.cuts, 0);
    assert_eq!(r.eln_rtx, 1);
}

/// Example 3 scenario 1 (O, L): 17 arrives early (before 12); 12 and 17 are
/// lost on the wireless link. (G_1, G_2) at 13: two credits, one marks 12,
/// one floats and later covers 17. No cut.
#[test]
fn example_3_scenario_1() {
    let mut n = net();
    n.shift.insert((17, 1), -5.5);
    n.wireless_kill = vec![(12, 1), (17, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert_eq!(order_of(&r, &[11, 12, 17]), vec![11, 17, 12]);
    assert!(r.all_eln(12) && r.all_eln(17));
    assert_eq!(r.cuts, 0);
}

/// Example 3 scenario 2 (O + L, L): 12 lost in the wireline network; 17 and
/// 18 arrive early and are lost on the wireless link. Indistinguishable from
/// scenario 1 at first: 12 gets the credit (its cut is "slightly delayed"),
/// 17 the floating one, 18 is cut. Cuts = wireline losses = 1.
#[test]
fn example_3_scenario_2() {
    let mut n = net();
    n.shift.insert((17, 1), -5.5);
    n.shift.insert((18, 1), -6.4);
    n.wired_kill = vec![(12, 1)];
    n.wireless_kill = vec![(17, 1), (18, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert_eq!(order_of(&r, &[11, 13, 17, 18]), vec![11, 17, 18, 13]);
    assert!(r.all_eln(12) && r.all_eln(17));
    assert!(!r.any_eln(18));
    assert_eq!(r.cuts, 1);
}

/// Example 4 scenario 1 (L, L): 12 and 13 lost in the wireline network, 14
/// on the wireless link: (G_3, G_1), Eq. (1) credits the first loss (12);
/// 13 and 14 are cut. Cuts = wireline losses = 2.
#[test]
fn example_4_scenario_1() {
    let mut n = net();
    n.wired_kill = vec![(12, 1), (13, 1)];
    n.wireless_kill = vec![(14, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert!(r.all_eln(12));
    assert!(!r.any_eln(13) && !r.any_eln(14));
    assert_eq!(r.cuts, 2);
}

/// Example 4 scenario 2 (O, L): 12 and 13 reach the BS late; 14 is lost
/// on the wireless link. (G_3, G_1) at 15: the one credit marks 12.
/// Delayed behind three packets (14, 15, 16), 12 arrives after two ELN
/// dupacks: the credit is not spent, floats, and covers 14: no cut, as the
/// paper says. Delayed one packet more (behind 17), three ELN dupacks make
/// the sender retransmit 12, which spends the credit, and the real wireless
/// loss 14 is cut: there the paper's "window reductions equal wireline
/// losses" does not hold under Fig. 1's rules (docs/syndrome.md).
#[test]
fn example_4_scenario_2() {
    for (shift, order, cuts) in [
        (4.5, vec![11, 14, 15, 16, 12, 13, 17], 0),
        (5.5, vec![11, 14, 15, 16, 17, 12, 13], 1),
    ] {
        let mut n = net();
        n.shift.insert((12, 1), shift);
        n.shift.insert((13, 1), shift - 0.9);
        n.wireless_kill = vec![(14, 1)];
        let r = run(n, UnusedCredit::Keep, N);
        assert_eq!(order_of(&r, &[11, 12, 13, 14, 15, 16, 17]), order);
        assert!(r.all_eln(12));
        assert_eq!(r.any_eln(14), cuts == 0);
        assert_eq!(r.eln_rtx, 1, "shift {shift}");
        assert_eq!(r.cuts, cuts, "shift {shift}");
    }
}

/// Example 4 scenario 3 (O + L, L): 12 lost in the wireline network, 13 late
/// (more than three packets), 14 lost on the wireless link. 12 gets the
/// credit, 14 is cut: cuts = wireline losses = 1.
#[test]
fn example_4_scenario_3() {
    let mut n = net();
    n.wired_kill = vec![(12, 1)];
    n.shift.insert((13, 1), 4.5);
    n.wireless_kill = vec![(14, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert!(r.all_eln(12));
    assert!(!r.any_eln(14));
    assert_eq!(r.cuts, 1);
}

/// Example 5 scenario 1 (-, L): 12 lost on the wireless link: (G_1, G_1),
/// ELN on its dupacks, no cut.
#[test]
fn example_5_scenario_1() {
    let mut n = net();
    n.wireless_kill = vec![(12, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert!(r.all_eln(12));
    assert_eq!((r.cuts, r.eln_rtx), (0, 1));
}

/// Example 5 scenario 2 (O, L): 17 arrives early (before 13) and is lost on
/// the wireless link; 12 arrives late, after 14, so only three ACKs ask for
/// it (two of them duplicates with ELN) and "the credit is not deducted".
/// With `keep` the unused credit floats to 17: no cut. With `drop` it is
/// lost with 12's hole and 17 is cut.
#[test]
fn example_5_scenario_2() {
    for (mode, cuts) in [(UnusedCredit::Keep, 0), (UnusedCredit::Drop, 1)] {
        let mut n = net();
        n.shift.insert((17, 1), -4.5);
        n.shift.insert((12, 1), 2.5);
        n.wireless_kill = vec![(17, 1)];
        let r = run(n, mode, N);
        assert_eq!(
            order_of(&r, &[11, 12, 13, 14, 15, 17]),
            vec![11, 17, 13, 14, 12, 15]
        );
        assert_eq!(r.dup_eln(12), vec![true, true]);
        assert_eq!(r.any_eln(17), cuts == 0, "{mode:?}");
        assert_eq!(r.cuts, cuts, "{mode:?}");
    }
}

/// Example 5 scenario 3 (O + L, L): 12 lost in the wireline network, 17
/// early and lost on the wireless link. 12 takes the credit, 17 is cut:
/// cuts = wireline losses = 1.
#[test]
fn example_5_scenario_3() {
    let mut n = net();
    n.wired_kill = vec![(12, 1)];
    n.shift.insert((17, 1), -4.5);
    n.wireless_kill = vec![(17, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert!(r.all_eln(12));
    assert!(!r.any_eln(17));
    assert_eq!(r.cuts, 1);
}

/// §5 C1.a: a network duplicate of 12; both copies reach the MH: (G_0, G_0)
/// twice, no credit, nothing changes.
#[test]
fn duplicates_c1a_harmless() {
    let mut n = net();
    n.dup.insert((12, 1), 2.5);
    n.wired_kill = vec![(20, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert_eq!(r.credits, 0);
    assert_eq!(r.cuts, 1);
}

/// §5 C1.b: the original 12 is lost on the wireless link, its duplicate
/// arrives before three dupacks: (G_1, G_1) gives a credit that is never
/// used for 12, so a later wireline loss (20) gets ELN: optimistic, one cut
/// fewer than wireline losses.
#[test]
fn duplicates_c1b_optimistic() {
    let mut n = net();
    n.dup.insert((12, 1), 1.5);
    n.wireless_kill = vec![(12, 1)];
    n.wired_kill = vec![(20, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert!(r.all_eln(20));
    assert_eq!(r.cuts, 0, "one cut fewer than the one wireline loss");
}

/// §5 C1.c: the original 12 arrives, the duplicate is lost on the wireless
/// link: (G_0, G_1) at the next packet, one credit, misused by the later
/// wireline loss 20.
#[test]
fn duplicates_c1c_optimistic() {
    let mut n = net();
    n.dup.insert((12, 1), 1.5);
    n.wireless_kill = vec![(12, 2)];
    n.wired_kill = vec![(20, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert_eq!(r.credits, 1);
    assert!(r.all_eln(20));
    assert_eq!(r.cuts, 0);
}

/// §5 C1.d: both copies of 12 lost on the wireless link: (G_1, G_1) then
/// (G_0, G_1): two credits, one used for 12, the other misused by the later
/// wireline loss 20.
#[test]
fn duplicates_c1d_optimistic() {
    let mut n = net();
    n.dup.insert((12, 1), 1.5);
    n.wireless_kill = vec![(12, 1), (12, 2)];
    n.wired_kill = vec![(20, 1)];
    let r = run(n, UnusedCredit::Keep, N);
    assert_eq!(r.credits, 2);
    assert!(r.all_eln(12) && r.all_eln(20));
    assert_eq!(r.cuts, 0);
}

mod property {
    use super::*;
    use proptest::prelude::*;

    /// Random first-transmission losses, wired or wireless, no two adjacent
    /// segments lost (so every gap holds one loss and Eq. (1) has no choice
    /// to make), no reordering, no duplicates (Prop. 1's assumptions):
    /// every fast retransmit of a lost segment cuts the window exactly when
    /// the segment was lost in the wireline network. With `drop`, always; with `keep`, a
    /// credit of a hole repaired by a timeout can float to a later wireline
    /// loss, so the check is made when no timeout happened.
    fn losses() -> impl Strategy<Value = Vec<(u32, bool)>> {
        prop::collection::btree_map(4u32..70, any::<bool>(), 0..10).prop_map(|m| {
            let mut out: Vec<(u32, bool)> = Vec::new();
            for (s, wired) in m {
                if out.last().is_none_or(|(p, _)| s > p + 1) {
                    out.push((s, wired));
                }
            }
            out
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
        #[test]
        fn fr_cuts_match_wireline_losses(l in losses(), keep in any::<bool>()) {
            let mut n = net();
            for &(s, wired) in &l {
                if wired { n.wired_kill.push((s, 1)) } else { n.wireless_kill.push((s, 1)) }
            }
            let mode = if keep { UnusedCredit::Keep } else { UnusedCredit::Drop };
            let r = run(n, mode, 80);
            if !keep || r.timeouts == 0 {
                // FRs of lost segments (a spurious FR, e.g. from the
                // duplicates of a go-back-N after a timeout, is Reno's own).
                for &(seq, cut) in r.frs.iter().filter(|(s, _)| l.iter().any(|(x, _)| x == s)) {
                    let wired = l.contains(&(seq, true));
                    prop_assert_eq!(cut, wired, "FR of {} (losses {:?}, frs {:?})", seq, l, r.frs);
                }
            }
        }
    }
}
