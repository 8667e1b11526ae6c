//! Scenario options reach the components they configure.

mod common;
use common::*;
use serde_json::json;

#[test]
fn delayed_acks_halve_the_ack_count() {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 30.0);
    let plain = run(&v).flows[0].clone();
    v["flows"][0]["sink"] = json!({"delayed_ack": true});
    let del = run(&v).flows[0].clone();
    assert_eq!(plain.acks_sent, plain.arrived);
    let ratio = del.acks_sent as f64 / del.arrived as f64;
    assert!((0.49..0.53).contains(&ratio), "ack/data ratio {ratio}");
}

#[test]
fn warmup_excludes_the_start() {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 20.0);
    v["run"]["warmup"] = json!(10.0);
    let f = run(&v).flows[0].clone();
    assert!((f.measured_s - 10.0).abs() < 1e-9);
    // 10 s at 2 Mb/s of 1000-byte packets = 2500 packets, give or take one.
    assert!((2499..=2501).contains(&f.delivered), "{}", f.delivered);
}

#[test]
fn timeseries_samples_every_interval() {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 10.0);
    v["output"] = json!({"timeseries": true, "interval": 0.5, "throughput_window": 1.0});
    let r = run(&v).to_json();
    let ts = &r["timeseries"];
    let t: Vec<f64> = ts["time_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(t.len(), 21, "0, 0.5, ..., 10");
    assert!((t[20] - 10.0).abs() < 1e-9);
    let cwnd = ts["cwnd"].as_array().unwrap();
    assert_eq!(cwnd[0].as_f64().unwrap(), 1.0, "initial window");
    // Bulk source over a 2 Mb/s bottleneck: the moving-window throughput
    // settles at the capacity once the window is open.
    let tput = ts["throughput_kbps"].as_array().unwrap();
    let last = tput[20].as_f64().unwrap();
    assert!((last - 2000.0).abs() < 20.0, "{last}");
    let seq = ts["seq_sent"].as_array().unwrap();
    assert!(seq.windows(2).all(|w| w[0].as_i64() <= w[1].as_i64()));
}

#[test]
fn several_flows_share_fairly_and_start_on_time() {
    let mut v = one_link("newreno", json!({"model": "uniform", "p": 0.0}), 200.0);
    v["run"]["warmup"] = json!(20.0);
    v["flows"].as_array_mut().unwrap().push(json!({
        "name": "late", "src": "fh", "dst": "mh", "variant": "newreno", "start": 10.0, "window": 30
    }));
    let r = run(&v);
    assert_eq!(r.flows.len(), 2);
    let sum: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
    assert!(
        (sum - 2000.0).abs() / 2000.0 < 0.02,
        "the two fill the link: {sum}"
    );
    assert!(
        r.summary.jain_fairness.unwrap() > 0.8,
        "{:?}",
        r.summary.jain_fairness
    );
}
