use crate::engine::Time;
use crate::net::{DirId, LinkKind};
use crate::packet::{FlowId, PktKind, Retx};
use crate::tcp::{Cause, Window};

/// Why a packet was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropCauseKind {
    /// DropTail queue overflow (congestion).
    Queue,
    /// Error model (bit errors, random or burst loss).
    Corruption,
    /// The link was in an outage (e.g. handoff blackout).
    Outage,
    /// A shared medium's MAC gave up at its retry limit after collisions
    /// or lost MAC ACKs (IEEE 802.11-1999 §9.2.4): congestion of the medium.
    Contention,
    /// The mobile host was between base stations (a handoff's delay), or the
    /// packet crossed the wireless hop of a base station it had left.
    Handoff,
}

impl DropCauseKind {
    pub fn name(self) -> &'static str {
        match self {
            DropCauseKind::Queue => "queue",
            DropCauseKind::Corruption => "corruption",
            DropCauseKind::Outage => "outage",
            DropCauseKind::Contention => "contention",
            DropCauseKind::Handoff => "handoff",
        }
    }

    /// The cause of the loss in a detector's terms: wireless when the packet
    /// was lost on a wireless link by corruption or an outage; congestion
    /// for a queue overflow or a MAC contention drop anywhere (both are
    /// too many packets for the capacity: queues or the shared medium) and for corruption on a wired link (the
    /// papers' "wireline" losses). The `oracle` detector and the accuracy
    /// figures use this one rule.
    pub fn loss_cause(self, link: LinkKind) -> Cause {
        match (self, link) {
            (DropCauseKind::Queue | DropCauseKind::Contention, _) | (_, LinkKind::Wired) => {
                Cause::Congestion
            }
            (_, LinkKind::Wireless) => Cause::Wireless,
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
    /// A retransmission by a scheme's sender part, without a congestion
    /// response (the name is the event's, e.g. "clrp_retransmit").
    Retransmit(&'static str),
}

impl RecoveryKind {
    pub fn name(self) -> &'static str {
        match self {
            RecoveryKind::FastRetransmit => "fast_retransmit",
            RecoveryKind::Timeout => "timeout",
            RecoveryKind::Retransmit(by) => by,
        }
    }
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
    /// The detector's verdict (fast retransmits only).
    pub verdict: Option<Cause>,
    /// cwnd and ssthresh before and after (the response: the window fast
    /// recovery ends with); None for a scheme's retransmission, which
    /// leaves them alone.
    pub before: Option<Window>,
    pub after: Option<Window>,
    pub true_cause: Option<(DropCauseKind, LinkKind)>,
    /// The segment's drops since its last delivery include both a
    /// congestion and a wireless one.
    pub true_mixed: bool,
}

/// The ground truth of a fast retransmit, as the accuracy figures count it
/// (Park et al. 2010, §3, with two categories of our own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truth {
    /// Every drop of the segment since its last delivery had this cause.
    Lost(Cause),
    /// The segment was not lost (reordering, a lost ACK, a retransmission
    /// still in flight).
    Spurious,
    /// Its drops since its last delivery had both causes.
    Mixed,
}

impl Truth {
    pub fn name(self) -> &'static str {
        match self {
            Truth::Lost(c) => c.name(),
            Truth::Spurious => "spurious",
            Truth::Mixed => "mixed",
        }
    }
}

impl RecoveryRecord {
    /// A record at `time` for `flow`, every other field empty.
    pub fn at(time: Time, flow: FlowId) -> Self {
        Self {
            time,
            flow,
            kind: RecoveryKind::FastRetransmit,
            seq: 0,
            window_cut: false,
            verdict: None,
            before: None,
            after: None,
            true_cause: None,
            true_mixed: false,
        }
    }

    /// The category of the loss this record repairs.
    pub fn truth(&self) -> Truth {
        match self.true_cause {
            None => Truth::Spurious,
            Some(_) if self.true_mixed => Truth::Mixed,
            Some((c, k)) => Truth::Lost(c.loss_cause(k)),
        }
    }
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
