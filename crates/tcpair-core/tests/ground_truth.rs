//! Every drop and every recovery carries the true cause of the loss: where
//! (link kind) and why (queue overflow, corruption, outage).

mod common;
use common::*;
use serde_json::{json, Value};

fn col<'a>(t: &'a Value, name: &str) -> &'a Vec<Value> {
    t[name].as_array().unwrap()
}

#[test]
fn wireless_corruption_only() {
    let mut v = one_link("newreno", json!({"model": "uniform", "p": 0.03}), 60.0);
    v["links"][0]["queue"] = json!(1000); // no congestion anywhere
    let r = run(&v).to_json();
    let drops = &r["drops"];
    assert!(!col(drops, "cause").is_empty());
    assert!(col(drops, "cause").iter().all(|c| c == "corruption"));
    assert!(col(drops, "link_kind").iter().all(|c| c == "wireless"));
    assert!(col(drops, "link").iter().all(|c| c == "wireless"));
    let rec = &r["recoveries"];
    let causes = col(rec, "true_cause");
    assert!(!causes.is_empty());
    // Every recovery repairs a real wireless loss (no reordering here, and
    // ACKs are not lost); spurious timeouts would show up as "none".
    let real = causes.iter().filter(|c| *c == "corruption").count();
    assert!(real as f64 >= 0.95 * causes.len() as f64, "{causes:?}");
    assert!(col(rec, "true_link_kind")
        .iter()
        .zip(causes)
        .all(|(k, c)| c == "none" || k == "wireless"));
}

#[test]
fn congestion_only() {
    // A 5-packet queue in front of the 2 Mb/s wireless hop, window 30, no
    // random loss: every loss is a queue overflow at the BS.
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 60.0);
    v["links"][1]["queue"] = json!(5);
    let r = run(&v).to_json();
    let drops = &r["drops"];
    assert!(!col(drops, "cause").is_empty());
    assert!(col(drops, "cause").iter().all(|c| c == "queue"));
    assert!(col(drops, "from").iter().all(|c| c == "bs"));
    let causes = col(&r["recoveries"], "true_cause");
    assert!(!causes.is_empty());
    assert!(causes.iter().all(|c| c == "queue" || c == "none"));
}

#[test]
fn outage_losses_are_labelled() {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.0}), 30.0);
    v["links"][1]["forward"]["outages"] = json!([[10.0, 11.2]]);
    let r = run(&v).to_json();
    let drops = &r["drops"];
    let times = col(drops, "time_s");
    assert!(!times.is_empty());
    assert!(col(drops, "cause").iter().all(|c| c == "outage"));
    // Entered during [10, 11.2): arrive at most one transmission + 64 us later.
    assert!(times
        .iter()
        .all(|t| (10.0..11.3).contains(&t.as_f64().unwrap())));
    let ev = col(&r["recoveries"], "event");
    assert!(
        ev.iter().any(|e| e == "timeout"),
        "a 1.2 s blackout ends in a timeout"
    );
}
