//! Independent parts of a network run one after another (`sim/parts.rs`)
//! give exactly the results of one queue for all: every table, every
//! per-flow figure and the BS agents' state, with and without windows,
//! with ties between parts (flows of equal round-trip times start at the
//! same instant), for every BS scheme.

use serde_json::{json, Value};
use tcpair_core::scenario::Scenario;
use tcpair_core::sim::Sim;

/// `n` flows, each from its own sender through one base station `bs` to
/// its own mobile host; flows `2k` and `2k + 1` have equal round-trip times
/// (so their parts' events tie), and with `shared` the first two flows
/// share their wired link (one part of two flows).
fn star(n: usize, agent: &str, shared: bool, duration: f64) -> Value {
    let agents: Vec<Value> = match agent {
        "" => vec![],
        a => vec![json!(a)],
    };
    let mut nodes = vec![json!({"name": "bs", "kind": "router", "bs": agents})];
    let mut links = Vec::new();
    let mut flows = Vec::new();
    for i in 0..n {
        let delay = 0.005 + 0.01 * (i / 2) as f64;
        let src = if shared && i == 1 {
            "s0".to_string()
        } else {
            format!("s{i}")
        };
        if !(shared && i == 1) {
            nodes.push(json!({"name": src}));
            links.push(json!({"name": format!("w{i}"), "from": src, "to": "bs",
                "bandwidth": "10Mb", "delay": delay, "queue": 20}));
        }
        nodes.push(json!({"name": format!("m{i}")}));
        let loss = if i % 3 == 0 {
            json!({"model": "markov2", "p_good_to_bad": 0.02, "p_bad_to_good": 0.5,
                "loss_good": 0.0, "loss_bad": 0.5})
        } else {
            json!({"model": "uniform", "p": 0.03})
        };
        links.push(
            json!({"name": format!("r{i}"), "from": "bs", "to": format!("m{i}"),
            "bandwidth": "2Mb", "delay": 64e-6, "queue": 10, "kind": "wireless",
            "forward": {"loss": loss}, "reverse": {"loss": {"model": "uniform", "p": 0.01}}}),
        );
        let mut flow = json!({"name": format!("f{i}"), "src": src, "dst": format!("m{i}"),
            "variant": if i % 2 == 0 { "reno" } else { "newreno" }, "window": 20});
        match agent {
            "eln_snoop" => flow["tcp"] = json!({"detector": "eln"}),
            "syndrome" => {
                flow["tcp"] = json!({"eln": true});
                flow["sink"] = json!({"syndrome": true});
            }
            "clrp" => flow["sink"] = json!({"clrp": true}),
            _ => {}
        }
        flows.push(flow);
    }
    json!({
        "run": {"duration": duration, "seed": 7, "warmup": 0.5},
        "output": {"timeseries": true, "interval": 0.25},
        "nodes": nodes, "links": links, "flows": flows,
    })
}

fn build(v: &Value) -> (Scenario, tcpair_core::net::Topology) {
    Scenario::build(v).expect("a valid scenario")
}

/// The whole result as JSON, without the wall time.
fn result(sim: Sim) -> Value {
    let mut r = sim.run().expect("runs").to_json();
    r["summary"]["wall_s"] = json!(0);
    r
}

fn separate_and_interleaved(v: &Value) -> (Value, Value) {
    let (s, t) = build(v);
    let a = result(Sim::new(s, t));
    let (s, t) = build(v);
    let b = result(Sim::new_interleaved(s, t));
    (a, b)
}

fn assert_same(agent: &str, shared: bool, duration: f64) {
    let v = star(6, agent, shared, duration);
    let (a, b) = separate_and_interleaved(&v);
    for key in [
        "summary",
        "flows",
        "drops",
        "recoveries",
        "timeseries",
        "bs_state",
        "bs_counters",
    ] {
        assert_eq!(
            a[key], b[key],
            "{key} differs (agent {agent:?}, shared {shared})"
        );
    }
    assert!(a["summary"]["events"].as_u64().unwrap() > 10_000);
}

#[test]
fn every_scheme_gives_the_same_results_in_parts() {
    for agent in ["", "snoop", "eln_snoop", "syndrome", "clrp", "snoop_ns2"] {
        assert_same(agent, false, 4.0);
    }
}

#[test]
fn a_part_of_two_flows_among_single_ones() {
    assert_same("snoop", true, 3.0);
    assert_same("", true, 3.0);
}

/// A BS agent serving several parts runs them in windows (of 4 s with a
/// few parts): a run of several windows (its totals deferred and settled
/// each time).
#[test]
fn windows_of_a_shared_agent_over_several_seconds() {
    assert_same("clrp", false, 9.5);
}

#[test]
fn the_parts_of_a_run() {
    let parts = |v: &Value| {
        let (s, t) = build(v);
        let sim = Sim::new(s, t);
        sim.part_count()
    };
    assert_eq!(parts(&star(6, "", false, 1.0)), 6);
    assert_eq!(parts(&star(6, "snoop", true, 1.0)), 5);
    // ns-2's Snoop counts DUPACKs in one counter for all connections.
    assert_eq!(parts(&star(6, "snoop_ns2", false, 1.0)), 1);
}

/// Packet ids count per part: each part's first packet is number 0.
#[test]
fn packet_ids_are_counted_per_part() {
    let mut v = star(4, "", false, 2.0);
    v["links"][1]["forward"]["loss"] = json!({"model": "list", "drop": [0]});
    v["links"][3]["forward"]["loss"] = json!({"model": "list", "drop": [0]});
    let (s, t) = build(&v);
    let r = result(Sim::new(s, t));
    let drops = &r["drops"];
    for link in ["r0", "r1"] {
        let i = drops["link"]
            .as_array()
            .unwrap()
            .iter()
            .position(|l| l == link)
            .unwrap();
        assert_eq!(drops["packet_id"][i], json!(0), "the first drop on {link}");
    }
}
