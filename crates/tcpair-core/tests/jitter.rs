//! Start-time and sending jitter: with no random loss at all, seeds must still
//! give different runs once jitter is on, the same seed the same run, and the
//! packet balance must hold while a sender holds packets back.

mod common;
use common::*;
use serde_json::{json, Value};

/// Two flows sharing a DropTail bottleneck with no loss model anywhere.
fn shared_bottleneck(seed: u64, start_jitter: f64, send_jitter: f64) -> Value {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 40.0);
    v["run"]["seed"] = json!(seed);
    v["links"][1]["queue"] = json!(8);
    v["flows"] = json!([
        {"name": "a", "src": "fh", "dst": "mh", "window": 40,
         "start_jitter": start_jitter, "send_jitter": send_jitter},
        {"name": "b", "src": "fh", "dst": "mh", "window": 40, "start": 0.5,
         "start_jitter": start_jitter, "send_jitter": send_jitter},
    ]);
    v
}

fn goodputs(v: &Value) -> Vec<f64> {
    let r = run(v);
    assert!(r.summary.packets.conserved(), "{:?}", r.summary.packets);
    r.flows.iter().map(|f| f.goodput_kbps).collect()
}

#[test]
fn without_jitter_every_seed_gives_the_same_run() {
    let a = goodputs(&shared_bottleneck(1, 0.0, 0.0));
    let b = goodputs(&shared_bottleneck(2, 0.0, 0.0));
    assert_eq!(a, b, "no random component: the seed cannot matter");
}

#[test]
fn start_jitter_makes_seeds_differ_and_stays_deterministic() {
    let runs: Vec<Vec<f64>> = (1..=4)
        .map(|s| goodputs(&shared_bottleneck(s, 0.05, 0.0)))
        .collect();
    assert!(
        runs.windows(2).any(|w| w[0] != w[1]),
        "start jitter changed nothing across seeds: {runs:?}"
    );
    assert_eq!(runs[0], goodputs(&shared_bottleneck(1, 0.05, 0.0)));
}

#[test]
fn send_jitter_makes_seeds_differ_and_conserves_packets() {
    let a = goodputs(&shared_bottleneck(1, 0.0, 0.002));
    let b = goodputs(&shared_bottleneck(2, 0.0, 0.002));
    assert_ne!(a, b);
    assert_eq!(a, goodputs(&shared_bottleneck(1, 0.0, 0.002)));
}

#[test]
fn send_jitter_never_reorders_a_senders_packets() {
    // In-order departures on a lossless path: the receiver never sees a hole,
    // so it sends no duplicate ACK and the sender never fast-retransmits.
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 20.0);
    v["links"][1]["queue"] = json!(1000);
    v["flows"][0]["send_jitter"] = json!(0.01);
    let r = run(&v);
    assert!(r.summary.packets.conserved());
    assert!(r.flows[0].delivered > 1000);
    assert_eq!(r.flows[0].retransmits, 0, "{:?}", r.flows[0]);
}

#[test]
fn a_run_stopped_while_packets_are_held_still_balances() {
    // A jitter far larger than the RTT keeps packets held at the end.
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 3.0);
    v["flows"][0]["send_jitter"] = json!(0.5);
    let r = run(&v);
    assert!(r.summary.packets.conserved(), "{:?}", r.summary.packets);
}

#[test]
fn jitter_must_fit_in_the_run() {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 10.0);
    v["flows"][0]["start"] = json!(5.0);
    v["flows"][0]["start_jitter"] = json!(6.0);
    let e = tcpair_core::sim::run_json(&v.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("flows") && e.contains("start_jitter"), "{e}");
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 10.0);
    v["flows"][0]["send_jitter"] = json!(1e-12);
    let e = tcpair_core::sim::run_json(&v.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("send_jitter") && e.contains("1 ns"), "{e}");
    v["flows"][0]["send_jitter"] = json!(-1.0);
    let e = tcpair_core::sim::run_json(&v.to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("send_jitter"), "{e}");
}
