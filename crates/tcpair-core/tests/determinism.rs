//! Same scenario and seed => bit-identical results, whether run alone or
//! while other runs execute in parallel threads (Shadow-style run-twice diff).

mod common;
use common::*;
use serde_json::json;

fn fingerprint(v: &serde_json::Value) -> String {
    let mut out = run(v).to_json();
    out["summary"]["wall_s"] = json!(0);
    out.to_string()
}

fn busy_scenario(seed: u64) -> serde_json::Value {
    let mut v = one_link("reno", json!({"model": "expo", "p": 0.05}), 50.0);
    v["run"]["seed"] = json!(seed);
    v["links"][1]["forward"]["reorder"] = json!({"p": 0.05});
    v["links"][1]["forward"]["duplicate"] = json!({"p": 0.02});
    v["output"] = json!({"timeseries": true, "interval": 0.5});
    v
}

#[test]
fn same_seed_same_result_also_in_parallel() {
    let a = fingerprint(&busy_scenario(7));
    let b = fingerprint(&busy_scenario(7));
    assert_eq!(a, b);
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || fingerprint(&busy_scenario(if i % 2 == 0 { 7 } else { 8 })))
        })
        .collect();
    let outs: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(outs[0], a);
    assert_eq!(outs[2], a);
    assert_ne!(outs[1], a, "another seed gives another run");
}

#[test]
fn adding_a_component_does_not_shift_another_components_randomness() {
    // Loss on the data path must not change when the ACK path gains an impairment
    // that never fires (p = 0 still draws from its own stream only).
    let base = busy_scenario(3);
    let mut with_extra = base.clone();
    with_extra["links"][0]["reverse"]["loss"] = json!({"model": "uniform", "p": 0.0});
    let a = run(&base).to_json();
    let b = run(&with_extra).to_json();
    assert_eq!(a["drops"], b["drops"]);
}

/// `n` flows, each from its own wired sender through one base station (with
/// `agent`, if any) to its own mobile host over a lossy wireless hop; base
/// RTTs spread over 20-200 ms.
fn many_flows(n: usize, agent: Option<&str>) -> serde_json::Value {
    let mut nodes = vec![json!({"name": "bs", "kind": "router",
        "bs": agent.map(|a| vec![json!({"agent": a})]).unwrap_or_default()})];
    let (mut links, mut flows) = (Vec::new(), Vec::new());
    for i in 0..n {
        let delay_ms = 10.0 + 90.0 * i as f64 / n as f64;
        nodes.push(json!({"name": format!("s{i}")}));
        nodes.push(json!({"name": format!("m{i}")}));
        links.push(
            json!({"name": format!("w{i}"), "from": format!("s{i}"), "to": "bs",
            "bandwidth": "10Mb", "delay": format!("{delay_ms}ms"), "queue": 50}),
        );
        links.push(
            json!({"name": format!("l{i}"), "from": "bs", "to": format!("m{i}"),
            "bandwidth": "2Mb", "delay": "64us", "queue": 50, "kind": "wireless",
            "forward": {"loss": {"model": "expo", "p": 0.02}}}),
        );
        flows.push(json!({"name": format!("f{i}"), "src": format!("s{i}"),
            "dst": format!("m{i}"), "variant": "newreno", "window": 30}));
    }
    json!({"run": {"duration": 5.0, "seed": 11}, "nodes": nodes, "links": links,
        "flows": flows})
}

#[test]
fn prefetching_changes_no_result() {
    for agent in [None, Some("snoop"), Some("clrp")] {
        let v = many_flows(60, agent);
        let results: Vec<String> = [false, true]
            .into_iter()
            .map(|on| {
                let mut sim = tcpair_core::sim::Sim::from_value(&v).expect("valid");
                sim.set_prefetching(on);
                let mut out = sim.run().expect("runs").to_json();
                let delivered = out["summary"]["delivered_data_packets"].as_u64();
                assert!(delivered > Some(10_000), "{agent:?}: {delivered:?}");
                out["summary"]["wall_s"] = json!(0);
                out.to_string()
            })
            .collect();
        assert_eq!(results[0], results[1], "agent {agent:?}");
    }
}
