//! CLRP's rules (Sun et al. 2005 §II) replayed on hand-built loss patterns through
//! the real CLRP-BS, TCP-MH (sender or receiver) and a Reno peer, in a
//! hand-controlled closed loop: sender -> hop A -> BS -> hop B -> receiver,
//! ACKs back the same way through the BS. Kill lists name (segment, k-th
//! transmission over that hop), the deterministic "kill segment N" error
//! model of ns-3's tests.
//!
//! MH -> FH: hop A is the wireless hop (the MH sends), hop B wired.
//! FH -> MH: hop A is wired, hop B the wireless hop (the MH receives).

use std::collections::HashMap;
use tcpair_core::engine::{Time, MS, SEC, US};
use tcpair_core::net::LinkKind;
use tcpair_core::packet::{LossBlocks, PktKind};
use tcpair_core::schemes::clrp::bs::{ClrpBs, ClrpParams};
use tcpair_core::schemes::clrp::mh::MhConfig;
use tcpair_core::tcp::{
    AckInfo, Recovery, RecoveryEvent, SenderOutput, SinkConfig, TcpConfig, TcpSender,
};
use tcpair_core::testkit::{Link, Loop, BS, FLOW};

const SLOT_A: Time = 4 * MS; // hop A serialization per data packet
const SLOT_B: Time = 4 * MS;
const DELAY_A: Time = 10 * MS;
const DELAY_B: Time = 10 * MS;
const ACK_DELAY: Time = 100 * US;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    MhToFh,
    FhToMh,
}

#[derive(Default)]
struct Kills {
    a: Vec<(u32, u32)>,
    b: Vec<(u32, u32)>,
}

#[derive(Debug, Default)]
struct Run {
    cuts: u64,
    fast_retransmits: u64,
    timeouts: u64,
    clrp_retransmits: u64,
    /// Sender-side CLRP retransmissions, in order.
    clrp_seqs: Vec<u32>,
    /// ACKs the sender saw: (ack, loss blocks).
    acks_at_tx: Vec<(u32, Vec<u32>)>,
    /// ACKs the receiver sent: (ack, loss blocks).
    acks_at_rx: Vec<(u32, Vec<u32>)>,
    /// Data copies the BS injected (local retransmissions).
    bs_rtx: Vec<u32>,
    cwnd_min_after_start: f64,
    counters: HashMap<&'static str, u64>,
    sender_cfg: Option<TcpConfig>,
}

/// The loop: sender -> hop A -> CLRP-BS -> hop B -> receiver, ACKs back
/// through the BS; each hop 4 ms per data packet and 10 ms of delay, an
/// ACK 0.1 ms more.
fn network(dir: Dir, kills: &Kills, segments: u64, bs: ClrpParams) -> Loop {
    let cfg = TcpConfig {
        recovery: Recovery::Reno,
        window: 30,
        // Congestion avoidance from the start with a window wide enough for
        // the loss patterns below.
        initial_cwnd: 16.0,
        initial_ssthresh: 16.0,
        clrp: (dir == Dir::MhToFh).then(MhConfig::default),
        total_segments: Some(segments),
        ..TcpConfig::default()
    };
    let sink = SinkConfig {
        clrp: dir == Dir::FhToMh,
        ..SinkConfig::default()
    };
    let (kind_a, kind_b) = match dir {
        Dir::MhToFh => (LinkKind::Wireless, LinkKind::Wired),
        Dir::FhToMh => (LinkKind::Wired, LinkKind::Wireless),
    };
    Loop::new(cfg, sink)
        .hop_a(Link::new(kind_a, SLOT_A, DELAY_A).ack_ser(ACK_DELAY))
        .bs(Box::new(ClrpBs::new(BS, bs)))
        .hop_b(Link::new(kind_b, SLOT_B, DELAY_B).ack_ser(ACK_DELAY))
        .kills_a(&kills.a)
        .kills_b(&kills.b)
}

fn run(dir: Dir, kills: Kills, segments: u64, bs: ClrpParams) -> Run {
    let mut lp = network(dir, &kills, segments, bs);
    lp.run_until(60 * SEC);
    assert!(lp.finished(), "transfer did not finish");
    let r = lp.record();
    let data_absorbed = r.absorbed.iter().any(|(_, p)| p.kind == PktKind::Data);
    assert!(!data_absorbed, "the BS forwards every data packet");
    let blocks = |a: &AckInfo| (a.ack, a.loss.as_slice().to_vec());
    let st = lp.sender().stats();
    let agent = lp.agent().expect("a CLRP-BS");
    Run {
        cuts: st.window_cuts,
        fast_retransmits: st.fast_retransmits,
        timeouts: st.timeouts,
        clrp_retransmits: lp.sender_counter("clrp_retransmits").unwrap_or(0),
        clrp_seqs: r.scheme_retransmits(),
        acks_at_tx: r.acks_at_sender.iter().map(|a| blocks(&a.ack)).collect(),
        acks_at_rx: r.acks_sent.iter().map(|a| blocks(&a.ack)).collect(),
        bs_rtx: r.injected_seqs(),
        cwnd_min_after_start: cwnd_min(&lp),
        counters: agent.counters(FLOW).into_iter().collect(),
        sender_cfg: Some(lp.sender().config().clone()),
    }
}

/// The smallest cwnd once the transfer runs: the initial one, and after
/// each ACK and each timeout (nothing else changes it).
fn cwnd_min(lp: &Loop) -> f64 {
    let r = lp.record();
    let timeouts = r.recoveries.iter().filter_map(|(_, e)| match e {
        RecoveryEvent::Timeout { after, .. } => Some(after.cwnd),
        _ => None,
    });
    let initial = lp.sender().config().initial_cwnd.max(1.0);
    let acks = r.cwnd_after_acks().into_iter();
    acks.chain(timeouts).fold(initial, f64::min)
}

fn kills_a(v: &[(u32, u32)]) -> Kills {
    Kills {
        a: v.to_vec(),
        b: vec![],
    }
}
fn kills_b(v: &[(u32, u32)]) -> Kills {
    Kills {
        a: vec![],
        b: v.to_vec(),
    }
}

const N: u64 = 60;

#[test]
fn mh_to_fh_no_loss_no_recovery() {
    let r = run(Dir::MhToFh, Kills::default(), N, ClrpParams::default());
    assert_eq!((r.cuts, r.clrp_retransmits, r.timeouts), (0, 0, 0));
    assert!(r.acks_at_tx.iter().all(|(_, b)| b.is_empty()));
}

/// A burst of 4 wireless losses in one window: all four retransmitted by
/// TCP-MH on the BS's notices, no fast retransmit, no window cut, no timeout.
#[test]
fn mh_to_fh_burst_of_four_recovered_without_a_window_cut() {
    let r = run(
        Dir::MhToFh,
        kills_a(&[(20, 1), (21, 1), (22, 1), (23, 1)]),
        N,
        ClrpParams::default(),
    );
    assert_eq!(r.clrp_seqs, vec![20, 21, 22, 23]);
    assert_eq!((r.cuts, r.fast_retransmits, r.timeouts), (0, 0, 0));
    assert!(r.cwnd_min_after_start >= 16.0, "cwnd never reduced");
    // The BS declared the four holes and put them on the ACKs, newest first.
    assert!(r.acks_at_tx.iter().any(|(_, b)| b == &vec![23, 22, 21, 20]));
    assert_eq!(r.counters["holes_declared"], 4);
}

/// A loss between the BS and the FH (wired) is not reported and gets Reno's
/// response: one fast retransmit with one window cut.
#[test]
fn mh_to_fh_a_wired_loss_is_cut_once() {
    let r = run(
        Dir::MhToFh,
        Kills {
            a: vec![],
            b: vec![(20, 1)],
        },
        N,
        ClrpParams::default(),
    );
    assert_eq!((r.cuts, r.fast_retransmits, r.timeouts), (1, 1, 0));
    assert_eq!(r.clrp_retransmits, 0);
    assert!(r.acks_at_tx.iter().all(|(_, b)| b.is_empty()));
    assert_eq!(r.counters["wired_losses"], 1);
}

/// Wireless and wired losses in the same window: the wireless ones are
/// repaired by CLRP, the wired one costs exactly one cut.
#[test]
fn mh_to_fh_mixed_losses_cut_only_for_the_wired_one() {
    let r = run(
        Dir::MhToFh,
        Kills {
            a: vec![(20, 1), (22, 1)],
            b: vec![(26, 1)],
        },
        N,
        ClrpParams::default(),
    );
    assert_eq!(r.clrp_seqs, vec![20, 22]);
    assert_eq!((r.cuts, r.fast_retransmits, r.timeouts), (1, 1, 0));
}

/// The retransmission comes at the `rxmit_threshold`-th notice: with 2 the
/// first ACK carrying the loss does not trigger it, the second does; with 4,
/// two notices later.
#[test]
fn mh_to_fh_retransmission_waits_for_the_threshold() {
    for (thr, want) in [(2usize, 2usize), (4, 4)] {
        let cfg = TcpConfig {
            recovery: Recovery::Reno,
            window: 30,
            initial_cwnd: 16.0,
            initial_ssthresh: 16.0,
            clrp: Some(MhConfig {
                rxmit_threshold: thr as u32,
                ..MhConfig::default()
            }),
            ..TcpConfig::default()
        };
        let mut snd = TcpSender::new(cfg);
        let mut out = SenderOutput::default();
        snd.start(0, &mut out);
        assert_eq!(out.segs.len(), 16);
        let mut blocks = LossBlocks::default();
        blocks.push(5);
        let mut notices = 0;
        let mut rtx_at = None;
        // ACKs for 0..5, then DUPACKs for 5, each carrying the loss of 5.
        for (i, a) in (1..=5).chain(std::iter::repeat_n(5, 10)).enumerate() {
            out.clear();
            let with = a == 5 && i >= 4;
            notices += usize::from(with);
            let info = AckInfo {
                ack: a,
                ts_echo: 0,
                loss: if with { blocks } else { LossBlocks::default() },
                ..AckInfo::default()
            };
            snd.on_ack(MS * (i as u64 + 1), &info, &mut out);
            if out.segs.iter().any(|s| s.seq == 5 && s.retransmit) {
                rtx_at = Some(notices);
                break;
            }
        }
        assert_eq!(rtx_at, Some(want), "threshold {thr}");
        assert_eq!(snd.stats().window_cuts, 0);
        assert_eq!(snd.stats().fast_retransmits, 0, "no FR for a listed loss");
    }
}

/// A lost TCP-MH retransmission is sent again once an ACK echoing a packet
/// sent after it still reports the loss (the -1 mark ends).
#[test]
fn mh_to_fh_a_lost_retransmission_is_sent_again() {
    let r = run(
        Dir::MhToFh,
        kills_a(&[(20, 1), (20, 2)]),
        N,
        ClrpParams::default(),
    );
    assert_eq!(r.clrp_seqs, vec![20, 20]);
    assert_eq!((r.cuts, r.timeouts), (0, 0));
}

/// The BS never puts more than `max_blocks` numbers on an ACK.
#[test]
fn mh_to_fh_blocks_capped_at_max_blocks() {
    let burst: Vec<(u32, u32)> = (20..28).map(|s| (s, 1)).collect();
    for max in [6u32, 3] {
        let p = ClrpParams {
            max_blocks: max,
            ..ClrpParams::default()
        };
        let r = run(Dir::MhToFh, kills_a(&burst), N, p);
        let most = r.acks_at_tx.iter().map(|(_, b)| b.len()).max().unwrap();
        assert_eq!(most, max as usize);
    }
}

/// FH -> MH: TCP-MH reports the holes, the BS retransmits them from its
/// cache, suppresses the DUPACKs and strips the option: the FH (plain Reno)
/// sees neither a loss block nor a fast retransmit, and never cuts.
#[test]
fn fh_to_mh_burst_repaired_locally_option_never_reaches_the_fh() {
    let r = run(
        Dir::FhToMh,
        kills_b(&[(20, 1), (21, 1), (22, 1), (23, 1)]),
        N,
        ClrpParams::default(),
    );
    assert_eq!(r.bs_rtx, vec![20, 21, 22, 23]);
    assert_eq!((r.cuts, r.fast_retransmits, r.timeouts), (0, 0, 0));
    assert!(r.acks_at_rx.iter().any(|(_, b)| b == &vec![23, 22, 21, 20]));
    assert!(
        r.acks_at_tx.iter().all(|(_, b)| b.is_empty()),
        "option stripped before the FH"
    );
    assert!(r.counters["options_stripped"] > 0);
    assert!(r.counters["dupacks_suppressed"] > 0);
}

/// FH -> MH: a loss before the BS (wired) is reported by TCP-MH but the BS
/// does not hold the packet: the DUPACKs go on and the FH's Reno cuts once.
#[test]
fn fh_to_mh_a_wired_loss_is_the_fhs_and_cut_once() {
    let r = run(Dir::FhToMh, kills_a(&[(20, 1)]), N, ClrpParams::default());
    assert!(r.bs_rtx.is_empty());
    assert_eq!((r.cuts, r.fast_retransmits, r.timeouts), (1, 1, 0));
    assert!(r.counters["wired_notices"] > 0);
}

/// The FH of the FH -> MH direction runs unmodified TCP: its configuration
/// is plain Reno (no CLRP, no ELN), and it behaves like Reno without a BS
/// for a pattern the BS cannot help with (a wired loss): same cuts and
/// retransmissions.
#[test]
fn fh_to_mh_fixed_host_is_plain_reno() {
    let r = run(Dir::FhToMh, kills_a(&[(20, 1)]), N, ClrpParams::default());
    let cfg = r.sender_cfg.clone().unwrap();
    assert!(cfg.clrp.is_none() && cfg.detector.name() == "none");
    assert_eq!(cfg.recovery, Recovery::Reno);
    assert_eq!(r.clrp_retransmits, 0);
    // The same wired loss without CLRP anywhere.
    let plain = {
        let mut p = run(Dir::MhToFh, kills_b(&[(20, 1)]), N, ClrpParams::default());
        p.counters.clear();
        p
    };
    assert_eq!(
        (r.cuts, r.fast_retransmits, r.timeouts),
        (plain.cuts, plain.fast_retransmits, plain.timeouts)
    );
}
