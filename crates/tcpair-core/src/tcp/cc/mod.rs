//! Congestion ops: how the window grows and how far it is cut on a loss
//! (Linux's `tcp_congestion_ops`, ns-3's `TcpCongestionOps`). The recovery
//! mechanics that carry the cut out (fast recovery, partial ACKs, SACK) are
//! the sender's ([`super::Recovery`]).
//!
//! A new op is one file implementing [`CongestionOps`] plus one line in
//! [`REGISTRY`] (docs/architecture.md).

use super::{History, Window};
use crate::engine::Time;
use crate::error::ConfigError;
use crate::registry::{boxed_clone, Entry};

pub mod reno;
pub mod reno_ns2;
pub mod veno;
pub mod westwood;

/// What an op sees when it is asked for its response to a loss.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossCtx {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Segments outstanding (for a fast retransmit: less those sent by
    /// limited transmit, RFC 5681 §3.2 step 2).
    pub flight: u32,
    /// The flow's window (the receiver's advertised window), in segments.
    pub window: u32,
}

boxed_clone!(CongestionOps, CongestionOpsClone);

/// Window growth and the cut on congestion, in packets.
pub trait CongestionOps: std::fmt::Debug + Send + CongestionOpsClone {
    /// The registry name.
    fn name(&self) -> &'static str;

    /// Every ACK that acknowledges new data (`acked` segments, after the
    /// history has taken its sample) or is a duplicate (`acked` = 0), in or
    /// out of fast recovery: update estimators here.
    fn on_ack(&mut self, _now: Time, _acked: u32, _h: &History) {}

    /// Grow `cwnd` for an ACK of new data outside fast recovery (slow start
    /// below `ssthresh`, else congestion avoidance).
    fn grow(&mut self, cwnd: &mut f64, ssthresh: f64, acked: u32, h: &History);

    /// The response to a loss found by duplicate ACKs or SACK: the new
    /// ssthresh and the cwnd that fast recovery ends with.
    fn on_loss(&self, c: &LossCtx, h: &History) -> Window;

    /// The ssthresh after a retransmission timeout (cwnd becomes 1).
    fn on_timeout(&mut self, c: &LossCtx, h: &History) -> f64;

    /// Whether the ACK that ends fast recovery also grows the window (ns-2's
    /// `recv_newack_helper` calls `opencwnd` on it; RFC 5681 deflates only).
    fn grows_at_recovery_exit(&self) -> bool {
        false
    }

    /// Whether a repeated timeout of the same segment cuts ssthresh again
    /// (ns-2's `slowdown` at every timeout; RFC 5681 §3.1 holds it).
    fn cuts_at_every_timeout(&self) -> bool {
        false
    }

    /// Whether the op reads the RTT/ACK history (the sender skips keeping
    /// it when no part does).
    fn uses_history(&self) -> bool {
        true
    }
}

/// Builds an op from its parameter table (the `name` key removed).
pub type BuildFn = fn(&serde_json::Value) -> Result<Box<dyn CongestionOps>, ConfigError>;

/// Every congestion op, by the name `tcp.congestion` uses.
pub static REGISTRY: &[Entry<BuildFn>] =
    &[reno::ENTRY, reno_ns2::ENTRY, veno::ENTRY, westwood::ENTRY];

/// max(floor(flight / 2), 2): RFC 5681 (4) in packets, integer like ns-2.
pub fn half_flight(flight: u32) -> f64 {
    f64::from((flight / 2).max(2))
}
