//! Layer 1: simulated time, the event queue and deterministic random streams.
//!
//! Nothing here knows about packets, links or TCP. Time is an integer count of
//! nanoseconds so that event ordering never depends on floating-point rounding.

pub mod fmath;
mod heap;
pub mod malloc;
mod prefetch;
mod queue;
mod ring;
mod rng;
pub mod room;
mod slab;
mod time;

pub use heap::Scheduled;
pub use prefetch::{prefetch, prefetch_all};
pub use queue::{EventQueue, Place};
pub use ring::Ring;
pub use rng::{stream, stream_seed, SimRng, StreamName};
pub use slab::Slab;
pub use time::{secs, to_secs, Time, MS, NS, SEC, US};
