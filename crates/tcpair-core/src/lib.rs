//! tcpair-core: a deterministic packet-level simulator of TCP over
//! wired-cum-wireless networks.
//!
//! Layers (each uses only those above it in this list):
//! `engine` (time, events, random streams) -> `packet` -> `net` (nodes, links,
//! routing) with `impair` (error models and other impairments per link
//! direction) -> `bs` (base-station agents) and `tcp` (sans-IO senders and
//! sinks) -> `metrics` -> `scenario`
//! (schema and validation) -> `sim` (wires it all together and runs).

pub mod bs;
pub mod engine;
pub mod error;
pub mod impair;
pub mod limits;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod registry;
pub mod scenario;
pub mod schemes;
pub mod sim;
pub mod tcp;
pub mod testkit;
pub mod units;

pub use error::{ConfigError, SimError};

/// Everything a user can name in a scenario, for `tcpair list`: read off
/// the registries.
pub fn catalog() -> serde_json::Value {
    use registry::catalog as entries;
    let named = |name: &str, summary: &str| serde_json::json!({"name": name, "summary": summary});
    serde_json::json!({
        "variants": entries(tcp::VARIANTS),
        "congestion_ops": entries(tcp::cc::REGISTRY),
        "detectors": entries(tcp::detect::REGISTRY),
        "responders": entries(tcp::respond::REGISTRY),
        "error_models": impair::REGISTRY.iter().map(|m| named(m.name, m.summary)).collect::<Vec<_>>(),
        "bs_agents": entries(schemes::BS_AGENTS),
        "impairments": ["loss", "reorder", "duplicate", "outages"],
        "link_kinds": entries(scenario::LINK_KINDS),
        "medium_kinds": entries(scenario::MEDIUM_KINDS),
        "node_kinds": ["host", "router"],
    })
}

/// Validate a scenario (JSON text) and return it normalized: defaults filled
/// in, quantities in base units (seconds, bit/s).
pub fn validate_json(text: &str) -> Result<serde_json::Value, ConfigError> {
    validate_json_with(text, &scenario::plugins::NoPlugins)
}

/// [`validate_json`] with parts written outside the core (the Python
/// binding's `scenario::plugins::Plugins`).
pub fn validate_json_with(
    text: &str,
    plugins: &dyn scenario::plugins::Plugins,
) -> Result<serde_json::Value, ConfigError> {
    let v = scenario::parse_json(text)?;
    let (sc, _) = scenario::Scenario::build_with(&v, plugins)?;
    serde_json::to_value(sc.normalized()).map_err(|e| ConfigError::new("", e.to_string()))
}
