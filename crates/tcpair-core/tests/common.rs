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

/// A static 802.11b chain of `hops` hops (stations 200 m apart, defaults of
/// docs/wifi.md) carrying one bulk TCP flow from the first node to the last.
pub fn wifi_chain(hops: usize, duration: f64) -> Value {
    let nodes: Vec<Value> = (0..=hops)
        .map(|i| json!({"name": format!("n{i}")}))
        .collect();
    let stations: Vec<Value> = (0..=hops)
        .map(|i| json!({"node": format!("n{i}"), "x": 200.0 * i as f64, "y": 0.0}))
        .collect();
    json!({
        "run": {"duration": duration, "warmup": 5.0, "seed": 1},
        "nodes": nodes,
        "media": [{"name": "chain", "kind": "wifi", "stations": stations}],
        "flows": [{"name": "tcp", "src": "n0", "dst": format!("n{hops}"), "variant": "newreno",
                   "packet_size": 1000, "window": 32}]
    })
}

/// `v` edited by `edit` is refused with a message that starts with the
/// field `path` and mentions `mentions`.
pub fn assert_refused(mut v: Value, edit: impl FnOnce(&mut Value), path: &str, mentions: &str) {
    edit(&mut v);
    let msg = error_of(&v);
    assert!(msg.starts_with(path), "expected path {path:?} in {msg:?}");
    assert!(msg.contains(mentions), "expected {mentions:?} in {msg:?}");
}

/// The message a scenario is refused with (panics if it is accepted).
pub fn error_of(v: &Value) -> String {
    match tcpair_core::sim::Sim::from_value(v) {
        Ok(_) => panic!("accepted a bad scenario: {v}"),
        Err(e) => e.to_string(),
    }
}

/// A counter of the `bs_counters` table, summed over agents and flows.
pub fn bs_counter(r: &tcpair_core::sim::RunResult, name: &str) -> u64 {
    let t = &r.bs_counters;
    let names = t["counter"].as_array().unwrap();
    let values = t["value"].as_array().unwrap();
    names
        .iter()
        .zip(values)
        .filter(|(n, _)| n.as_str() == Some(name))
        .map(|(_, v)| v.as_u64().unwrap())
        .sum()
}
