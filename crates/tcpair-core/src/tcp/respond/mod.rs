//! Responders: what the sender does with cwnd and ssthresh when the
//! detector says a loss was wireless. Park et al. 2010 (Table 1) define
//! fifteen: 0 (TCP's own response), 1 (restore the state before the fast
//! retransmit), 11-17 (slow start with a large ssthresh) and 21-27
//! (congestion avoidance with cwnd = ssthresh), each with seven choices of
//! cwnd. docs/tcp.md has the table with every interpretation.
//!
//! A responder gives the window fast recovery ends with; the recovery
//! mechanics around it (inflation by duplicate ACKs, the retransmission)
//! are the sender's. A new responder is one file implementing [`Responder`]
//! plus one line in [`REGISTRY`].

use super::{History, Window};
use crate::error::ConfigError;
use crate::registry::{boxed_clone, Entry};

pub mod own;
pub mod restore;
pub mod table1;

/// What a responder sees.
#[derive(Debug, Clone, Copy)]
pub struct ResponseQuery<'a> {
    /// cwnd and ssthresh just before the fast retransmit.
    pub before: Window,
    /// TCP's own response (the recovery mechanics and the congestion op):
    /// the ssthresh and the cwnd its fast recovery would end with.
    pub own: Window,
    pub history: &'a History,
    /// The sender's window limit in packets (ns-2 `window_`: the sender buffer).
    pub window_limit: u32,
    /// Bytes per data packet (to express "65535 bytes" in packets).
    pub packet_size: u32,
}

/// A responder's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Response {
    /// Do what TCP does: its own response with its own mechanics, as if the
    /// detector had said congestion (method 0).
    Own,
    /// End fast recovery with this window.
    Set(Window),
}

boxed_clone!(Responder, ResponderClone);

pub trait Responder: std::fmt::Debug + Send + ResponderClone {
    /// The registry name.
    fn name(&self) -> &'static str;

    fn respond(&mut self, q: &ResponseQuery) -> Response;
}

/// Builds a responder from its parameter table (the `name` key removed).
pub type BuildFn = fn(&serde_json::Value) -> Result<Box<dyn Responder>, ConfigError>;

/// Every responder, by the name `tcp.responder` uses (Park et al. 2010's numbers).
pub static REGISTRY: &[Entry<BuildFn>] = &[
    own::ENTRY,
    restore::ENTRY,
    table1::M11,
    table1::M12,
    table1::M13,
    table1::M14,
    table1::M15,
    table1::M16,
    table1::M17,
    table1::M21,
    table1::M22,
    table1::M23,
    table1::M24,
    table1::M25,
    table1::M26,
    table1::M27,
];

/// The responder used unless a flow names one: 1, restore (what every
/// loss-differentiation algorithm assumes, Park et al. 2010 §4.1, and what
/// an ELN-aware sender does).
pub fn default_responder() -> Box<dyn Responder> {
    Box::new(restore::Restore)
}

/// A responder without parameters: checks that its table is empty.
pub(crate) fn no_params(v: &serde_json::Value) -> Result<(), ConfigError> {
    crate::tcp::detect::no_params(v)
}
