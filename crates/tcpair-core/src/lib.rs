//! tcpair-core: a deterministic packet-level simulator of TCP over
//! wired-cum-wireless networks.
//!
//! Layers (each uses only those above it in this list):
//! `engine` (time, events, random streams) -> `packet` -> `net` (nodes, links,
//! routing) with `impair` (error models and other impairments per link
//! direction) -> `tcp` (sans-IO senders and sinks) -> `metrics` -> `scenario`
//! (schema and validation) -> `sim` (wires it all together and runs).

pub mod engine;
pub mod error;
pub mod impair;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod scenario;
pub mod sim;
pub mod tcp;

pub use error::{ConfigError, SimError};
