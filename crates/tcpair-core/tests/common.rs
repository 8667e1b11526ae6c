#![allow(dead_code)]
//! Helpers shared by the integration tests.

use serde_json::{json, Value};

/// The CLRP paper's one-wireless-link path (as scenarios/clrp_one_link.toml) as a value.
pub fn one_link(variant: &str, loss: Value, duration: f64) -> Value {
    json!({
        "run": {"duration": duration, "seed": 1},
        "nodes": [{"name": "fh"}, {"name": "bs", "kind": "router"}, {"name": "mh"}],
        "links": [
            {"name": "wired", "from": "fh", "to": "bs", "bandwidth": "10Mb", "delay": "10ms", "queue": 50},
            {"name": "wireless", "from": "bs", "to": "mh", "bandwidth": "2Mb", "delay": "64us",
             "queue": 50, "kind": "wireless", "forward": {"loss": loss}}
        ],
        "flows": [{"name": "tcp1", "src": "fh", "dst": "mh", "variant": variant, "packet_size": 1000, "window": 30}]
    })
}

pub fn run(v: &Value) -> tcpair_core::sim::RunResult {
    tcpair_core::sim::run_json(&v.to_string()).expect("scenario runs")
}

pub fn shipped(name: &str) -> String {
    let p = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}
