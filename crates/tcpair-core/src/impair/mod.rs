//! Impairments on one direction of a link: error models (loss), reordering,
//! duplication and outages. Fault injection lives here, in the physical layer,
//! never in TCP or the BS agents.
//!
//! Everything here is sans-IO: a [`Pipeline`] is fed the packets that reach
//! the end of the link (as opaque handles) and says which to deliver, drop or
//! copy, and when it next needs a timer. `net` wires it to the event queue.
//!
//! A new error model is one new file implementing [`ErrorModel`] plus one line
//! in [`REGISTRY`].

use crate::engine::{SimRng, Time};
use crate::error::ConfigError;

pub mod ber;
mod check;
pub mod duplicate;
pub mod expo;
pub mod hold;
pub mod list;
pub mod markov2;
pub mod markov2_time;
pub mod out;
pub mod outage;
pub mod pipeline;
pub mod reorder;
pub mod uniform;
pub mod window;

pub use pipeline::{DropCause, ImpairSpec, PipeOut, Pipeline};

/// A loss process. Called once per packet reaching the end of the link, in
/// order, with the time it arrives there.
pub trait ErrorModel: Send + std::fmt::Debug {
    /// Whether this packet (of `size_bytes` on the wire) is lost (corrupted).
    fn is_lost(&mut self, now: Time, size_bytes: u32, rng: &mut SimRng) -> bool;
}

/// Builds an error model from its table in the scenario (e.g.
/// `{ model = "uniform", p = 0.01 }`, the `model` key already removed from
/// the object). Errors name fields relative to that table.
pub type BuildFn = fn(&serde_json::Value) -> Result<Box<dyn ErrorModel>, ConfigError>;

/// One registered error model.
pub struct ModelInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub build: BuildFn,
}

/// Every error model, by the name used in scenario files.
pub static REGISTRY: &[ModelInfo] = &[
    uniform::INFO,
    ber::INFO,
    expo::INFO,
    markov2::INFO,
    markov2_time::INFO,
    list::INFO,
];

/// Build the error model described by `table` (which has a `model` key and,
/// optionally, `start`/`stop` in seconds). `path` is the table's path in the
/// scenario, for error messages.
pub fn build_error_model(
    table: &serde_json::Value,
    path: &str,
) -> Result<Box<dyn ErrorModel>, ConfigError> {
    window::build_windowed(table).map_err(|e| e.within(path))
}
