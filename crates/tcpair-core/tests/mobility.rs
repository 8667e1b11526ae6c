//! The mobile host (docs/mobility.md): what a handoff loses, when routes
//! switch, the home agent's tunnel delay, BS state left behind, Syndrome's
//! receiver across handoffs, determinism and packet conservation.

mod common;
use common::*;
use serde_json::{json, Value};

/// The shipped Fig. 14 scenario as a value.
fn fig14() -> Value {
    let v = tcpair_core::scenario::parse_toml(&shipped("syndrome_fig14.toml")).unwrap();
    serde_json::to_value(v).unwrap()
}

/// Fig. 14 without any random loss: every drop is the handoffs'.
fn lossless() -> Value {
    let mut v = fig14();
    for l in v["links"].as_array_mut().unwrap() {
        l["forward"] = json!({});
    }
    v
}

/// Column `name` of table `t`. A column the table lacks fails the test: an
/// empty list in its place would turn every check made over it into none.
fn col(t: &Value, name: &str) -> Vec<Value> {
    t[name].as_array().cloned().unwrap_or_else(|| {
        let names: Vec<&String> = t
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        panic!("no column {name:?} in a table of {names:?}")
    })
}

#[test]
#[should_panic(expected = "no column \"cause\"")]
fn a_missing_column_fails_the_test() {
    col(&json!({"time_s": [8.5]}), "cause");
}

fn f64s(t: &Value, name: &str) -> Vec<f64> {
    col(t, name).iter().map(|x| x.as_f64().unwrap()).collect()
}

fn scheme(v: &mut Value, agent: &str) {
    let bs = if agent.is_empty() {
        json!([])
    } else {
        json!([agent])
    };
    for n in v["nodes"].as_array_mut().unwrap() {
        if n["name"] == "ha" || n["name"] == "fa" {
            n["bs"] = bs.clone();
        }
    }
    let syn = agent == "syndrome";
    for f in v["flows"].as_array_mut().unwrap() {
        f["tcp"]["eln"] = json!(syn);
        f["sink"]["syndrome"] = json!(syn);
    }
}

#[test]
fn handoffs_lose_only_during_their_delay() {
    let r = run(&lossless());
    let handoffs = [(8.0, 9.2), (13.0, 14.2), (18.0, 19.2), (23.0, 24.2)];
    let times = f64s(&r.drops, "time_s");
    let causes = col(&r.drops, "cause");
    assert!(!times.is_empty());
    assert_eq!(causes.len(), times.len(), "a cause for every drop");
    for (t, c) in times.iter().zip(&causes) {
        assert_eq!(c, "handoff", "drop at {t} s");
        // Lost while detached, or on the old BS's hop in the one hop time
        // (4 ms transmission + 5 ms propagation) after the handoff ends.
        assert!(
            handoffs.iter().any(|&(s, e)| *t >= s && *t <= e + 0.0091),
            "handoff drop at {t} s outside every handoff"
        );
    }
    for (s, e) in handoffs {
        let n = times.iter().filter(|&&t| t >= s && t <= e + 0.01).count();
        assert!(n > 0, "handoff at {s} s lost nothing");
    }
    let lost: u64 = col(&r.handoffs, "data_lost")
        .iter()
        .chain(&col(&r.handoffs, "acks_lost"))
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(
        lost,
        times.len() as u64,
        "the handoffs table counts every drop"
    );
    assert!(r.summary.packets.conserved());
}

#[test]
fn traffic_resumes_through_the_new_base_station_after_the_delay() {
    let r = run(&lossless());
    let ends = f64s(&r.handoffs, "end");
    let resumed = f64s(&r.handoffs, "resumed_at");
    assert_eq!(resumed.len(), 8, "four handoffs, two flows");
    for (e, t) in ends.iter().zip(&resumed) {
        assert!(
            t >= e,
            "new data in order at {t} s before the handoff ended at {e} s"
        );
    }
    assert_eq!(
        col(&r.handoffs, "to"),
        ["fa", "fa", "ha", "ha", "fa", "fa", "ha", "ha"]
            .map(|s| json!(s))
            .to_vec()
    );
}

/// One packet at a time, no loss: the one-way delay of data is the path's.
fn delay_p50(route_optimization: bool, handoff: bool) -> f64 {
    let mut v = lossless();
    v["flows"].as_array_mut().unwrap().truncate(1);
    v["flows"][0]["window"] = json!(1);
    v["flows"][0]["sink"]["delayed_ack"] = json!(false);
    v["run"]["duration"] = json!(10.0);
    v["mobility"]["route_optimization"] = json!(route_optimization);
    v["mobility"]["handoffs"] = if handoff {
        json!([{"at": 0.2, "to": "fa", "delay": 0.1}])
    } else {
        json!([])
    };
    run(&v).flows[0].delay_p50_s.unwrap()
}

#[test]
fn the_home_agent_tunnel_adds_two_wired_hops() {
    // A hop: 1000 bytes at 2 Mb/s (4 ms) plus 5 ms. At home s1-n8-ha-mh is three
    // hops; away, Mobile IP's tunnel runs s1-n8-ha-n8-fa-mh, five.
    let hop = 0.009;
    let home = delay_p50(false, false);
    let tunnel = delay_p50(false, true);
    let direct = delay_p50(true, true);
    assert!((home - 3.0 * hop).abs() < 1e-3, "home {home}");
    assert!((tunnel - 5.0 * hop).abs() < 1e-3, "tunnel {tunnel}");
    assert!((direct - 3.0 * hop).abs() < 1e-3, "optimised {direct}");
}

#[test]
fn snoop_state_is_stranded_at_the_old_base_station() {
    let mut v = fig14();
    scheme(&mut v, "snoop");
    let r = run(&v);
    let old: u64 = col(&r.handoffs, "old_bs_pkts")
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert!(old > 0, "Snoop's cache held nothing at any handoff's end");
    // Both BSs cached packets of the flow over the run.
    let nodes = col(&r.bs_state, "node");
    assert!(nodes.contains(&json!("ha")) && nodes.contains(&json!("fa")));
}

#[test]
fn syndrome_resynchronises_across_handoffs() {
    let mut v = fig14();
    scheme(&mut v, "syndrome");
    let r = run(&v);
    let impossible: u64 = r
        .flows
        .iter()
        .map(|f| f.counter("impossible_syndromes"))
        .sum();
    let credits: u64 = r.flows.iter().map(|f| f.counter("syndrome_credits")).sum();
    assert_eq!(impossible, 0);
    // Credits go only to wireless corruption: a handoff's losses are
    // followed by a packet of the other BS, whose tag only re-references.
    let corrupt = col(&r.drops, "cause")
        .iter()
        .zip(col(&r.drops, "kind"))
        .zip(col(&r.drops, "link_kind"))
        .filter(|((c, k), l)| *c == "corruption" && k == "data" && l == "wireless")
        .count() as u64;
    assert!(
        credits <= corrupt,
        "{credits} credits for {corrupt} wireless losses"
    );
    assert!(credits > 0);
    let resumed = col(&r.handoffs, "resumed_at");
    assert!(resumed.iter().all(|t| t.is_number()));
}

#[test]
fn several_handoffs_are_deterministic_and_conserve_packets() {
    for agent in ["", "snoop", "syndrome"] {
        let mut v = fig14();
        scheme(&mut v, agent);
        let a = run(&v);
        let b = run(&v);
        assert!(a.summary.packets.conserved());
        let strip = |r: &tcpair_core::sim::RunResult| {
            let mut j = r.to_json();
            j["summary"]["wall_s"] = json!(0);
            j
        };
        assert_eq!(strip(&a), strip(&b), "{agent}");
    }
}

#[test]
fn bad_handoffs_name_the_field() {
    let cases: [(&str, Value, &str); 6] = [
        (
            "to",
            json!([{"at": 8.0, "to": "n8"}]),
            "mobility.handoffs[0].to",
        ),
        (
            "overlap",
            json!([{"at": 8.0, "to": "fa", "delay": 1.2}, {"at": 9.0, "to": "ha"}]),
            "mobility.handoffs[1].at",
        ),
        (
            "late",
            json!([{"at": 29.5, "to": "fa", "delay": 1.2}]),
            "mobility.handoffs[0].at",
        ),
        (
            "negative",
            json!([{"at": 8.0, "to": "fa", "delay": -1.0}]),
            "mobility.handoffs[0].delay",
        ),
        (
            "same",
            json!([{"at": 8.0, "to": "ha"}]),
            "mobility.handoffs[0].to",
        ),
        (
            "unknown",
            json!([{"at": 8.0, "to": "nowhere"}]),
            "mobility.handoffs[0].to",
        ),
    ];
    for (what, h, field) in cases {
        let mut v = fig14();
        v["mobility"]["handoffs"] = h;
        let e = error_of(&v);
        assert!(e.contains(field), "{what}: {e}");
    }
    let mut v = fig14();
    v["mobility"]["host"] = json!("n8");
    assert!(error_of(&v).contains("mobility.host"));
    let mut v = fig14();
    v["mobility"]["home"] = json!("s1");
    assert!(error_of(&v).contains("mobility.home"));
}

/// Fig. 14 with Freeze-TCP (and `warning` seconds of notice, if given).
fn frozen(warning: Option<f64>) -> tcpair_core::sim::RunResult {
    let mut v = fig14();
    v["mobility"]["freeze"] = json!(true);
    if let Some(w) = warning {
        v["mobility"]["freeze_warning"] = json!(w);
    }
    run(&v)
}

#[test]
fn freeze_tcp_makes_no_timeout_driven_cut_at_a_handoff() {
    let r = frozen(None);
    let times = f64s(&r.recoveries, "time_s");
    let events = col(&r.recoveries, "event");
    let ho: Vec<(f64, f64)> = f64s(&r.handoffs, "start")
        .into_iter()
        .zip(f64s(&r.handoffs, "end"))
        .collect();
    for (t, e) in times.iter().zip(&events) {
        if e == "timeout" {
            assert!(
                !ho.iter().any(|&(s, end)| *t >= s && *t <= end + 1.0),
                "timeout at {t} s during or right after a handoff"
            );
        }
    }
    for f in &r.flows {
        assert_eq!(f.freezes, 4, "{}: one freeze per handoff", f.name);
        assert!(f.zero_window_probes > 0);
    }
    // Without Freeze-TCP the same handoffs end in timeouts.
    let plain = run(&fig14());
    let plain_to = col(&plain.recoveries, "event")
        .iter()
        .zip(f64s(&plain.recoveries, "time_s"))
        .filter(|(e, t)| *e == "timeout" && ho.iter().any(|&(s, end)| *t >= s && *t <= end + 1.0))
        .count();
    assert!(
        plain_to >= 4,
        "{plain_to} timeouts around handoffs without Freeze-TCP"
    );
    // Resumption within a round trip or two of each handoff's end.
    for (e, t) in f64s(&r.handoffs, "end")
        .iter()
        .zip(f64s(&r.handoffs, "resumed_at"))
    {
        assert!(t - e < 0.2, "resumed {} s after the end", t - e);
    }
}

#[test]
fn the_zero_window_must_reach_the_sender_before_the_handoff() {
    // Warned well ahead (the queues hold up to 80 ms of data, so the base
    // round trip is not enough), the senders stop in time: the only data a
    // handoff loses are zero-window probes.
    let r = frozen(Some(0.5));
    let probes: u64 = r.flows.iter().map(|f| f.zero_window_probes).sum();
    let lost_data: u64 = col(&r.handoffs, "data_lost")
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert!(
        lost_data <= probes,
        "{lost_data} data lost, {probes} probes"
    );
    // Warned at the handoff itself, the zero-window ACK is lost on the air:
    // nothing freezes.
    let late = frozen(Some(0.0));
    assert!(late.flows.iter().all(|f| f.freezes == 0));
}

/// A one-segment transfer through the hand-offs of `compare_handoff`,
/// measured from the start.
fn one_segment(freeze: bool) -> tcpair_core::sim::RunResult {
    let v = tcpair_core::scenario::parse_toml(&shipped("compare_handoff.toml")).unwrap();
    let mut v = serde_json::to_value(v).unwrap();
    v["flows"][0]["segments"] = json!(1);
    v["run"]["warmup"] = json!(0.0);
    v["mobility"]["freeze"] = json!(freeze);
    run(&v)
}

#[test]
fn freeze_tcp_leaves_a_finished_transfer_alone() {
    // Done at 0.025 s, long before the first hand-off at 15 s: no warning,
    // no probe, no timeout, nothing more sent or delivered.
    let r = one_segment(true);
    let f = &r.flows[0];
    assert_eq!(
        (
            f.sent,
            f.delivered,
            f.timeouts,
            f.freezes,
            f.zero_window_probes
        ),
        (1, 1, 0, 0, 0)
    );
    let plain = one_segment(false);
    assert_eq!(r.flows, plain.flows, "the same run as without Freeze-TCP");
    assert_eq!(r.summary.packets, plain.summary.packets);
}

#[test]
fn freeze_warning_is_checked() {
    let mut v = fig14();
    v["mobility"]["freeze"] = json!(true);
    v["mobility"]["freeze_warning"] = json!(-0.1);
    assert!(error_of(&v).contains("mobility.freeze_warning"));
}

#[test]
fn snoop_state_moved_to_the_new_base_station() {
    let mut v = fig14();
    scheme(&mut v, "snoop");
    v["mobility"]["move_state"] = json!(true);
    let moved = run(&v);
    let sum = |r: &tcpair_core::sim::RunResult, c: &str| -> u64 {
        col(&r.handoffs, c)
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum()
    };
    // Nothing is left behind; the new BS holds what the old one cached.
    assert_eq!(sum(&moved, "old_bs_pkts"), 0);
    assert!(sum(&moved, "new_bs_pkts") > 0);
    // The new BS retransmits the moved cache at once: every flow delivers
    // new data sooner after each handoff than with the cache stranded.
    let mut v = fig14();
    scheme(&mut v, "snoop");
    let stranded = run(&v);
    let lag = |r: &tcpair_core::sim::RunResult| -> f64 {
        let e = f64s(&r.handoffs, "end");
        let t = f64s(&r.handoffs, "resumed_at");
        t.iter().zip(&e).map(|(t, e)| t - e).sum::<f64>() / e.len() as f64
    };
    assert!(
        lag(&moved) < lag(&stranded),
        "{} vs {}",
        lag(&moved),
        lag(&stranded)
    );
    assert!(moved.summary.packets.conserved());
    let again = run(&{
        let mut v = fig14();
        scheme(&mut v, "snoop");
        v["mobility"]["move_state"] = json!(true);
        v
    });
    assert_eq!(again.flows[0].goodput_kbps, moved.flows[0].goodput_kbps);
}
