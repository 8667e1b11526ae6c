//! Layer 5: TCP end points, sans-IO.
//!
//! The sender and the sink never touch the event queue or the network: they
//! are fed events (`start`, an ACK, a timer) with the current time and write
//! what they want done into an output struct that the caller (the `sim`
//! layer) carries out. This keeps every algorithm testable with hand-built
//! packet sequences (see the tests in `sender.rs` and `sink.rs`).
//!
//! Packet mode as in ns-2: segments are numbered from 0; an ACK carries the
//! next expected segment number. `cwnd` and `ssthresh` are in packets.

use crate::engine::{Time, MS, SEC};
use crate::packet::{LossBlocks, SackBlocks};

pub mod rto;
pub mod scoreboard;
pub mod sender;
pub mod sink;

pub use rto::RtoEstimator;
pub use sender::TcpSender;
pub use sink::{SinkConfig, SinkOutput, TcpSink};

/// Congestion-control variant of the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Tahoe,
    Reno,
    NewReno,
    Sack,
}

impl Variant {
    pub const ALL: [(&'static str, Variant); 4] = [
        ("tahoe", Variant::Tahoe),
        ("reno", Variant::Reno),
        ("newreno", Variant::NewReno),
        ("sack", Variant::Sack),
    ];
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, v)| *v == self).unwrap().0
    }
}

/// Sender parameters. Defaults follow ns-2.35's `Agent/TCP` where RFCs leave
/// room (documented in docs/tcp.md).
#[derive(Debug, Clone, PartialEq)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Window limit in packets (ns-2 `window_`): the sender never has more
    /// than `min(cwnd, window)` packets outstanding.
    pub window: u32,
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
    /// Number of segments to send; `None` is a bulk (infinite) source.
    pub total_segments: Option<u64>,
    /// ELN-aware sender (paper 000 Fig. 1 lines 19-22; ELN-Snoop): when the
    /// duplicate ACK that reaches the threshold carries ELN, retransmit the
    /// missing segment and keep cwnd and ssthresh.
    pub eln: bool,
    /// TCP-MH sender of CLRP (paper 001 §II.A): keep the list of wireless
    /// losses the BS reports on ACKs, retransmit one when it has been
    /// notified `clrp_rxmit_threshold` times, without any congestion
    /// response, and never fast-retransmit or cut the window for DUPACKs
    /// of a listed packet. Wired losses get the variant's usual response.
    pub clrp: bool,
    pub clrp_rxmit_threshold: u32,
    /// Let each DUPACK for a listed loss clock out one new segment (the
    /// window is inflated by one per such DUPACK until the next new ACK, as
    /// in fast recovery but without the cut). Paper 001 says only that no
    /// congestion control starts; without inflation a sender whose window
    /// is full stalls until the retransmission is acknowledged, and a lost
    /// retransmission can only end in a timeout (docs/clrp.md).
    pub clrp_inflate: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            variant: Variant::Reno,
            window: 20,
            initial_cwnd: 1.0,
            initial_ssthresh: f64::from(u32::MAX),
            dupack_threshold: 3,
            limited_transmit: false,
            initial_rto: 3 * SEC,
            min_rto: 200 * MS,
            max_rto: 60 * SEC,
            granularity: 10 * MS,
            max_backoff: 64,
            total_segments: None,
            eln: false,
            clrp: false,
            clrp_rxmit_threshold: crate::schemes::clrp::DEFAULT_RXMIT_THRESHOLD,
            clrp_inflate: true,
        }
    }
}

/// What an ACK tells the sender.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AckInfo {
    /// Next expected segment (cumulative ACK).
    pub ack: u32,
    /// Echo of the `sent_at` of the data packet that triggered this ACK.
    pub ts_echo: Time,
    pub sack: SackBlocks,
    /// Explicit Loss Notification bit.
    pub eln: bool,
    /// CLRP loss blocks (paper 001): recent wireless losses, newest first.
    pub loss: LossBlocks,
}

/// One segment the sender wants transmitted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendSeg {
    pub seq: u32,
    pub retransmit: bool,
}

/// A loss-recovery action, reported so the metrics layer can attach the
/// ground truth of the loss it repairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryEvent {
    /// Fast retransmit of `seq`; `window_cut` says whether cwnd/ssthresh were reduced.
    FastRetransmit { seq: u32, window_cut: bool },
    /// Retransmission timeout; `seq` is the segment retransmitted.
    Timeout { seq: u32 },
    /// CLRP retransmission of a notified wireless loss (no window cut).
    ClrpRetransmit { seq: u32 },
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

/// Counters kept by the sender.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data packets transmitted (originals and retransmissions).
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
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
    /// Fast retransmits made without a window cut because of ELN.
    pub eln_retransmits: u64,
    /// ACKs received carrying CLRP loss blocks.
    pub clrp_notices: u64,
    /// Retransmissions of CLRP-notified losses (no window cut).
    pub clrp_retransmits: u64,
    /// DUPACKs not counted because they ask for a CLRP-listed packet.
    pub clrp_dupacks_ignored: u64,
}
