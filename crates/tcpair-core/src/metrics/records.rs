use crate::engine::Time;
use crate::net::{DirId, LinkKind};
use crate::packet::{FlowId, PktKind, Retx};

/// Why a packet was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropCauseKind {
    /// DropTail queue overflow (congestion).
    Queue,
    /// Error model (bit errors, random or burst loss).
    Corruption,
    /// The link was in an outage (e.g. handoff blackout).
    Outage,
}

impl DropCauseKind {
    pub fn name(self) -> &'static str {
        match self {
            DropCauseKind::Queue => "queue",
            DropCauseKind::Corruption => "corruption",
            DropCauseKind::Outage => "outage",
        }
    }
}

/// Ground truth of one lost packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DropRecord {
    pub time: Time,
    pub flow: FlowId,
    pub kind: PktKind,
    pub seq: u32,
    pub packet_id: u64,
    pub dir: DirId,
    pub cause: DropCauseKind,
    pub link_kind: LinkKind,
    pub retx: Retx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryKind {
    FastRetransmit,
    Timeout,
    /// A CLRP TCP-MH retransmission of a notified wireless loss.
    ClrpRetransmit,
}

/// A fast retransmit or timeout with the true cause of the loss it repairs:
/// the last drop of that segment not followed by a delivery. `None` means the
/// segment was not lost (a spurious retransmission: reordering, delay, or a
/// lost ACK).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecoveryRecord {
    pub time: Time,
    pub flow: FlowId,
    pub kind: RecoveryKind,
    pub seq: u32,
    pub window_cut: bool,
    pub true_cause: Option<(DropCauseKind, LinkKind)>,
}

/// One time-series sample of one flow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub time: Time,
    pub flow: FlowId,
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Highest segment number sent so far (-1 before the first).
    pub seq_sent: i64,
    /// Goodput over the preceding moving window, kb/s.
    pub throughput_kbps: f64,
}
