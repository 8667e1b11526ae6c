//! Detectors and responders written outside the core: a `tcp.detector` or
//! `tcp.responder` table with the key `python` (`{python = "mymod:MyDetector",
//! ...}`) is built by the [`Plugins`] the caller hands to
//! [`super::Scenario::build_with`]. The Python binding supplies one whose
//! parts call the user's class at each fast-retransmit decision
//! (docs/python.md); the core itself knows no Python. Without one (the Rust
//! binary, the core's own tests) such a table is an error naming the field.

use crate::error::ConfigError;
use crate::tcp::{Detector, Responder};

/// The key that marks a part as written outside the core.
pub const KEY: &str = "python";

/// Builds the parts a scenario names with [`KEY`].
pub trait Plugins {
    /// The detector of the table `spec` at `field` (`flows.tcp1.tcp.detector`).
    fn detector(
        &self,
        field: &str,
        spec: &serde_json::Value,
    ) -> Result<Box<dyn Detector>, ConfigError>;

    /// The responder of the table `spec` at `field`.
    fn responder(
        &self,
        field: &str,
        spec: &serde_json::Value,
    ) -> Result<Box<dyn Responder>, ConfigError>;
}

/// No parts from outside: naming one is an error.
pub struct NoPlugins;

impl NoPlugins {
    fn refuse(field: &str) -> ConfigError {
        ConfigError::new(
            format!("{field}.{KEY}"),
            "a part written in Python runs only from the Python package \
             (tcpair run, tcpair.run), not from the core alone",
        )
    }
}

impl Plugins for NoPlugins {
    fn detector(&self, f: &str, _: &serde_json::Value) -> Result<Box<dyn Detector>, ConfigError> {
        Err(Self::refuse(f))
    }
    fn responder(&self, f: &str, _: &serde_json::Value) -> Result<Box<dyn Responder>, ConfigError> {
        Err(Self::refuse(f))
    }
}

/// Whether `v` names a part written outside the core.
pub fn is_plugin(v: &serde_json::Value) -> bool {
    v.get(KEY).is_some()
}
