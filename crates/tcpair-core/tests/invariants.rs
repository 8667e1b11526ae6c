//! Packet conservation on every kind of run: sent + copies = delivered +
//! dropped + in flight, with in-flight counted by the links themselves; and
//! a finite transfer delivers no more segments than it has.

mod common;
use common::*;
use proptest::prelude::*;
use serde_json::json;

fn check(v: &serde_json::Value) -> tcpair_core::sim::RunResult {
    let r = run(v);
    let p = r.summary.packets;
    assert!(p.conserved(), "packet balance broken: {p:?}");
    r
}

#[test]
fn conservation_with_every_impairment_and_several_flows() {
    let mut v = one_link("newreno", json!({"model": "uniform", "p": 0.03}), 60.0);
    v["links"][1]["forward"]["reorder"] = json!({"p": 0.05, "min": 1, "max": 10});
    v["links"][1]["forward"]["duplicate"] = json!({"p": 0.05, "min": 1, "max": 20});
    v["links"][1]["reverse"]["loss"] = json!({"model": "markov2_time", "mean_good": 0.5, "mean_bad": 0.05, "loss_good": 0.0, "loss_bad": 0.5});
    v["links"][1]["reverse"]["outages"] = json!([[10.0, 11.2], [30.0, 31.2]]);
    v["links"][0]["queue"] = json!(5);
    for (i, var) in ["tahoe", "reno", "sack"].iter().enumerate() {
        v["flows"].as_array_mut().unwrap().push(json!({
            "name": format!("f{i}"), "src": "fh", "dst": "mh", "variant": var,
            "start": i as f64 * 3.0, "window": 40
        }));
    }
    let r = check(&v);
    assert!(r.summary.packets.copies > 0, "duplicates were produced");
    assert!(r.summary.packets.dropped > 0);
    // Stopping in mid-run leaves packets in flight: the balance still holds.
    assert!(r.flows.iter().all(|f| f.delivered > 0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn conservation_for_random_loss_and_variants(
        p in 0.0f64..0.3,
        var in prop::sample::select(vec!["tahoe", "reno", "newreno", "sack"]),
        queue in 1u32..60,
        seed in 0u64..1000,
    ) {
        let mut v = one_link(var, json!({"model": "uniform", "p": p}), 20.0);
        v["run"]["seed"] = json!(seed);
        v["links"][0]["queue"] = json!(queue);
        v["links"][1]["queue"] = json!(queue);
        let r = run(&v);
        prop_assert!(r.summary.packets.conserved(), "{:?}", r.summary.packets);
        // Every segment the receiver got in order was sent at least once.
        let f = &r.flows[0];
        prop_assert!(f.delivered <= f.sent);
        prop_assert!(f.window_cuts >= f.timeouts);
    }
}

#[test]
fn finite_transfer_completes_and_drains() {
    let mut v = one_link("sack", json!({"model": "uniform", "p": 0.02}), 100.0);
    v["flows"][0]["segments"] = json!(500);
    let r = check(&v);
    let f = &r.flows[0];
    assert_eq!(f.delivered, 500);
    assert!(f.finished_at_s.is_some());
    assert_eq!(
        r.summary.packets.in_flight, 0,
        "nothing left in the network"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]
    /// Transfers ending before, between or after the hand-offs of
    /// `compare_handoff`, with or without Freeze-TCP.
    #[test]
    fn finite_transfers_deliver_at_most_their_segments(
        n in 1u64..6000,
        freeze in any::<bool>(),
        p in 0.0f64..0.05,
        seed in 0u64..1000,
    ) {
        let v = tcpair_core::scenario::parse_toml(&shipped("compare_handoff.toml")).unwrap();
        let mut v = serde_json::to_value(v).unwrap();
        v["flows"][0]["segments"] = json!(n);
        v["run"]["warmup"] = json!(0.0);
        v["run"]["seed"] = json!(seed);
        v["mobility"]["freeze"] = json!(freeze);
        for l in [2, 3] {
            v["links"][l]["forward"]["loss"]["p"] = json!(p);
        }
        let r = check(&v);
        let f = &r.flows[0];
        prop_assert!(f.delivered <= n, "{} of {n} delivered", f.delivered);
        if f.finished_at_s.is_some() {
            prop_assert_eq!(f.delivered, n);
        }
    }
}
