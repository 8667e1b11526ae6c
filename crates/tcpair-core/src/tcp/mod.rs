//! Layer 5: TCP end points, sans-IO.
//!
//! The sender and the sink never touch the event queue or the network: they
//! are fed events (`start`, an ACK, a timer) with the current time and write
//! what they want done into an output struct that the caller (the `sim`
//! layer) carries out. This keeps every algorithm testable with hand-built
//! packet sequences (see the tests in `sender/` and `sink.rs`).
//!
//! The sender has pluggable parts, in the spirit of Linux's
//! `tcp_congestion_ops` and ns-3's `TcpCongestionOps` apart from
//! `TcpRecoveryOps`:
//! - the recovery mechanics ([`Recovery`]: Tahoe, Reno, NewReno, SACK), an
//!   internal enum of the sender;
//! - a congestion op ([`cc`]: window growth and the cut on congestion);
//! - a loss detector ([`detect`]), asked at every fast-retransmit trigger
//!   whether the loss was congestion or wireless;
//! - a responder ([`respond`]), which sets cwnd and ssthresh when the
//!   detector says "wireless";
//! - the RTT and ACK [`history`] they all read.
//!
//! Packet mode as in ns-2: segments are numbered from 0; an ACK carries the
//! next expected segment number. `cwnd` and `ssthresh` are in packets.

use crate::engine::{Time, MS, SEC};
use crate::packet::{flags, FlowId, LossBlocks, NodeId, Options, Packet, SackBlocks};
use crate::registry::Entry;
use crate::schemes::clrp::mh::MhConfig;

pub mod cc;
pub mod detect;
pub mod history;
pub mod respond;
pub mod rto;
pub mod rto_ns2;
pub mod scoreboard;
pub mod sender;
pub mod sink;

pub use cc::CongestionOps;
pub use detect::{Cause, Detector};
pub use history::History;
pub use respond::Responder;
pub use rto::RtoEstimator;
pub use sender::TcpSender;
pub use sink::{SinkConfig, SinkOutput, TcpSink};

/// Loss-recovery mechanics of the sender (how it retransmits and how it
/// leaves recovery); the window arithmetic is the congestion op's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Go-back-N after a fast retransmit, slow start from one segment.
    Tahoe,
    /// RFC 5681 fast recovery, left on the first new ACK.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole.
    NewReno,
    /// RFC 6675 conservative SACK-based recovery.
    Sack,
}

/// The RTO estimator's arithmetic (`tcp.rto_estimator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtoEstimatorKind {
    /// RFC 6298 in integer nanoseconds (the default).
    Rfc6298,
    /// ns-2.35's: ticks of `granularity`, its backoff and srtt clobber (`rto_ns2`).
    Ns2,
}

impl RtoEstimatorKind {
    pub const NAMES: &'static str = "rfc6298, ns2";

    pub fn parse(v: &str) -> Option<Self> {
        match v {
            "rfc6298" => Some(Self::Rfc6298),
            "ns2" => Some(Self::Ns2),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Rfc6298 => "rfc6298",
            Self::Ns2 => "ns2",
        }
    }
}

/// How often the responder answers within one window of data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RespondPer {
    /// Each hole gets its own decision; a wireless response leaves
    /// `recover` alone (the ELN-aware sender of Chen et al. 2002).
    Hole,
    /// One response per fast-retransmit episode: a wireless response moves
    /// `recover` as a congestion response does, and the holes after it in
    /// the same window are repaired by the recovery mechanics without a new
    /// decision (Park et al. 2010, §4: "TCP's fast recovery [reacts] like
    /// the responding method when FR/FRs are triggered").
    Window,
}

impl RespondPer {
    /// The scenario spellings, for messages.
    pub const NAMES: &'static str = "\"hole\", \"window\"";

    pub fn name(self) -> &'static str {
        match self {
            Self::Hole => "hole",
            Self::Window => "window",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "hole" => Some(Self::Hole),
            "window" => Some(Self::Window),
            _ => None,
        }
    }
}

/// What a `variant` name selects: recovery mechanics and a congestion op.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub recovery: Recovery,
    /// The name of a congestion op in [`cc::REGISTRY`].
    pub congestion: &'static str,
    /// The name of a detector in [`detect::REGISTRY`] (`"none"` for plain
    /// TCP); its wireless verdicts get the flow's responder (default 1).
    pub detector: &'static str,
}

/// Every `variant` a flow can name. Veno and Westwood+ run on NewReno's
/// recovery, as in Linux and ns-3; any congestion op can also be combined
/// with any recovery through `tcp.congestion`. PR and PR* also select the
/// `pr` detector (Stojcevska and Popov, §7); their response to a random
/// loss, "leave the congestion window as it is", is the default responder
/// 1 (restore cwnd and ssthresh).
pub static VARIANTS: &[Entry<Preset>] = &[
    Entry {
        name: "tahoe",
        summary: "fast retransmit, then go-back-N and slow start",
        source: "Jacobson 1988; ns-2 Agent/TCP",
        build: Preset {
            recovery: Recovery::Tahoe,
            congestion: "reno",
            detector: "none",
        },
    },
    Entry {
        name: "reno",
        summary: "fast retransmit and fast recovery",
        source: "RFC 5681 §3.2; ns-2 Agent/TCP/Reno",
        build: Preset {
            recovery: Recovery::Reno,
            congestion: "reno",
            detector: "none",
        },
    },
    Entry {
        name: "newreno",
        summary: "Reno whose partial ACKs retransmit the next hole",
        source: "RFC 6582; ns-2 Agent/TCP/Newreno",
        build: Preset {
            recovery: Recovery::NewReno,
            congestion: "reno",
            detector: "none",
        },
    },
    Entry {
        name: "sack",
        summary: "conservative SACK-based loss recovery (needs a SACK receiver)",
        source: "RFC 6675, RFC 2018",
        build: Preset {
            recovery: Recovery::Sack,
            congestion: "reno",
            detector: "none",
        },
    },
    Entry {
        name: "veno",
        summary: "NewReno recovery with the Veno congestion op",
        source: "Fu and Liew 2003; Linux tcp_veno.c",
        build: Preset {
            recovery: Recovery::NewReno,
            congestion: "veno",
            detector: "none",
        },
    },
    Entry {
        name: "westwood+",
        summary: "NewReno recovery with the Westwood+ congestion op",
        source: "Mascolo et al. 2001, Grieco and Mascolo 2004; Linux tcp_westwood.c",
        build: Preset {
            recovery: Recovery::NewReno,
            congestion: "westwood+",
            detector: "none",
        },
    },
    Entry {
        name: "pr",
        summary: "Prompt Recovery: Reno with the `pr` detector, a random loss keeps cwnd",
        source: "Stojcevska and Popov, §5-§7",
        build: Preset {
            recovery: Recovery::Reno,
            congestion: "reno",
            detector: "pr",
        },
    },
    Entry {
        name: "pr_star",
        summary: "PR*: NewReno with the `pr` detector, a random loss keeps cwnd",
        source: "Stojcevska and Popov, §7",
        build: Preset {
            recovery: Recovery::NewReno,
            congestion: "reno",
            detector: "pr",
        },
    },
];

/// Sender parameters. Defaults follow ns-2.35's `Agent/TCP` where RFCs leave
/// room (documented in docs/tcp.md).
#[derive(Debug, Clone)]
pub struct TcpConfig {
    pub recovery: Recovery,
    /// Window growth and the cut on congestion.
    pub cc: Box<dyn CongestionOps>,
    /// Asked at every fast-retransmit trigger: congestion or wireless?
    pub detector: Box<dyn Detector>,
    /// Sets cwnd and ssthresh when the detector says wireless.
    pub responder: Box<dyn Responder>,
    /// How often a wireless response may be made (`tcp.respond_per`).
    pub respond_per: RespondPer,
    /// Window limit in packets (ns-2 `window_`): the sender never has more
    /// than `min(cwnd, window)` packets outstanding.
    pub window: u32,
    /// Bytes per data packet on the wire (responders' "65535 bytes").
    pub packet_size: u32,
    /// Initial congestion window in packets (ns-2 `windowInit_`).
    pub initial_cwnd: f64,
    /// Initial slow-start threshold in packets (RFC 5681: arbitrarily high).
    pub initial_ssthresh: f64,
    /// Duplicate ACKs that trigger fast retransmit (3).
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// RFC 6298 timer parameters.
    pub initial_rto: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    /// Clock granularity G of RFC 6298 (ns-2 `tcpTick_`).
    pub granularity: Time,
    /// Maximum backoff multiplier of the RTO (ns-2 `maxrto_`-style cap: 64).
    pub max_backoff: u32,
    /// The RTO's arithmetic: RFC 6298's or ns-2.35's.
    pub rto_estimator: RtoEstimatorKind,
    /// Number of segments to send; `None` is a bulk (infinite) source.
    pub total_segments: Option<u64>,
    /// TCP-MH sender of CLRP (Sun et al. 2005 §II.A), or None.
    pub clrp: Option<MhConfig>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            recovery: Recovery::Reno,
            cc: Box::new(cc::reno::Reno),
            detector: Box::new(detect::none::NoDetector),
            responder: respond::default_responder(),
            respond_per: RespondPer::Hole,
            window: 20,
            packet_size: 1000,
            initial_cwnd: 1.0,
            initial_ssthresh: f64::from(u32::MAX),
            dupack_threshold: 3,
            limited_transmit: false,
            initial_rto: 3 * SEC,
            min_rto: 200 * MS,
            max_rto: 60 * SEC,
            granularity: 10 * MS,
            max_backoff: 64,
            rto_estimator: RtoEstimatorKind::Rfc6298,
            total_segments: None,
            clrp: None,
        }
    }
}

/// What an ACK tells the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckInfo {
    /// Next expected segment (cumulative ACK).
    pub ack: u32,
    /// Echo of the `sent_at` of the data packet that triggered this ACK.
    pub ts_echo: Time,
    /// When the receiver sent this ACK (its own timestamp, RFC 7323 TSval).
    pub rcv_at: Time,
    pub sack: SackBlocks,
    /// Explicit Loss Notification bit.
    pub eln: bool,
    /// CLRP loss blocks (Sun et al. 2005): recent wireless losses, newest first.
    pub loss: LossBlocks,
    /// Advertised window in segments (`u32::MAX`: unlimited; 0: zero window).
    pub rwnd: u32,
    /// Not on the wire: the simulator's ground truth about the loss of
    /// segment `ack` (its latest drop not yet followed by a delivery), filled
    /// only for senders whose detector asks for it (`oracle`). None if the
    /// segment was not lost.
    pub truth: Option<Cause>,
}

impl Default for AckInfo {
    /// A plain cumulative ACK of segment 0 with an unlimited window.
    fn default() -> Self {
        AckInfo {
            ack: 0,
            ts_echo: 0,
            rcv_at: 0,
            sack: SackBlocks::default(),
            eln: false,
            loss: LossBlocks::default(),
            rwnd: u32::MAX,
            truth: None,
        }
    }
}

impl AckInfo {
    /// The ACK packet that carries this: `size` bytes from the receiver to
    /// the sender (`ends`), sent at `now`.
    #[inline]
    pub fn packet(&self, flow: FlowId, ends: (NodeId, NodeId), size: u32, now: Time) -> Packet {
        Packet {
            flags: if self.eln { flags::ELN } else { 0 },
            rwnd: self.rwnd,
            opts: Options {
                sack: self.sack,
                loss: self.loss,
                ..Options::default()
            },
            ..Packet::ack(flow, ends, size, self.ack, now, self.ts_echo)
        }
    }

    /// What the ACK packet `p` tells its sender (no ground truth).
    #[inline]
    pub fn of(p: &Packet) -> AckInfo {
        AckInfo {
            ack: p.seq,
            ts_echo: p.ts_echo,
            rcv_at: p.sent_at,
            sack: p.opts.sack,
            eln: p.has_flag(flags::ELN),
            loss: p.opts.loss,
            rwnd: p.rwnd,
            truth: None,
        }
    }
}

/// One segment the sender wants transmitted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendSeg {
    pub seq: u32,
    pub retransmit: bool,
}

/// A congestion window and slow-start threshold, in packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// One decision at a fast-retransmit trigger.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// The segment retransmitted.
    pub seq: u32,
    /// What the detector said.
    pub verdict: Cause,
    /// cwnd or ssthresh were reduced.
    pub window_cut: bool,
    /// cwnd and ssthresh just before the decision.
    pub before: Window,
    /// The response: cwnd (the value fast recovery deflates to) and ssthresh.
    pub after: Window,
}

/// A loss-recovery action, reported so the metrics layer can attach the
/// ground truth of the loss it repairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RecoveryEvent {
    /// Fast retransmit, with the decision that shaped it.
    FastRetransmit(Decision),
    /// Retransmission timeout; `seq` is the segment retransmitted.
    Timeout {
        seq: u32,
        before: Window,
        after: Window,
    },
    /// A retransmission by a scheme's sender part without any congestion
    /// response (e.g. `"clrp_retransmit"`); `by` names the event.
    Retransmit { seq: u32, by: &'static str },
}

/// What the sender wants done after an input. The caller clears it (with
/// [`SenderOutput::clear`]) before each call, so its buffers are reused.
#[derive(Debug, Default, Clone)]
pub struct SenderOutput {
    pub segs: Vec<SendSeg>,
    pub events: Vec<RecoveryEvent>,
}

impl SenderOutput {
    pub fn clear(&mut self) {
        self.segs.clear();
        self.events.clear();
    }
}

/// Counters kept by the sender (scheme parts keep their own, see
/// [`TcpSender::counters`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data packets transmitted (originals and retransmissions).
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Of these, the ones whose detector verdict was "wireless" and whose
    /// window the responder set.
    pub wireless_frs: u64,
    /// Reductions of ssthresh/cwnd (fast-retransmit entries that cut, timeouts).
    pub window_cuts: u64,
    /// Sum and count of the RTO durations that expired (one per timeout,
    /// backed-off value included): the mean is PFTK's T0.
    pub timeout_rto_sum_ns: u128,
    /// Sum and count of the RTT samples taken (Karn's rule applied).
    pub rtt_sum_ns: u128,
    pub rtt_samples: u64,
    /// Sum of the (un-backed-off) RTO value computed after each RTT sample.
    pub rto_after_sample_sum_ns: u128,
    /// ACKs received with the ELN bit set.
    pub eln_acks: u64,
    /// Zero windows advertised by the receiver that froze the sender, and
    /// the zero-window probes sent while frozen (Freeze-TCP, RFC 9293 persist).
    pub freezes: u64,
    pub zero_window_probes: u64,
}

/// Named counters of a flow's scheme parts, in a fixed order.
pub type Counters = Vec<(&'static str, u64)>;
