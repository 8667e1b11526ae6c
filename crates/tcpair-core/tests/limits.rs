//! Numbers at and beyond their limits (docs/reliability.md): each is either
//! refused with one error naming the field and the limit, or runs correctly.
//! Every case here once aborted, hung or wrapped.

mod common;
use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tcpair_core::sim::Sim;
use tcpair_core::SimError;

fn base() -> Value {
    one_link("reno", json!({"model": "uniform", "p": 0.01}), 2.0)
}

fn expect(edit: impl FnOnce(&mut Value), path: &str, mentions: &str) {
    assert_refused(base(), edit, path, mentions);
}

#[test]
fn huge_queues_and_windows_are_refused_not_allocated() {
    for q in [4_294_967_295u64, 2_147_483_647] {
        expect(
            |v| v["links"][0]["queue"] = json!(q),
            "links.wired.queue",
            "from 0 to 1000000",
        );
    }
    expect(
        |v| v["links"][1]["forward"]["queue"] = json!(2_147_483_647u64),
        "links.wireless.forward.queue",
        "1000000",
    );
    expect(
        |v| v["flows"][0]["window"] = json!(4_294_967_295u64),
        "flows.tcp1.window",
        "1000000",
    );
    expect(
        |v| v["flows"][0]["tcp"] = json!({"initial_cwnd": 1e9}),
        "flows.tcp1.tcp.initial_cwnd",
        "from 1 to 1000000",
    );
}

#[test]
fn the_largest_queue_allocates_lazily_and_runs() {
    let mut v = base();
    v["links"][0]["queue"] = json!(1_000_000);
    v["links"][1]["queue"] = json!(1_000_000);
    v["flows"][0]["window"] = json!(1_000_000);
    v["flows"][0]["tcp"] = json!({"initial_cwnd": 1000});
    let r = run(&v);
    assert!(r.summary.delivered_data_packets > 0);
}

#[test]
fn geometric_slot_of_one_ns_is_refused_at_once() {
    let t0 = Instant::now();
    expect(
        |v| {
            v["links"][1]["forward"]["loss"] = json!({"model": "markov2_time",
                "mean_good": 1e8, "mean_bad": 1.0, "loss_good": 0.0, "loss_bad": 1.0,
                "sojourn": "geometric", "slot": 1e-9})
        },
        "links.wireless.forward.loss.slot",
        "too short",
    );
    assert!(t0.elapsed() < Duration::from_secs(5));
}

#[test]
fn sub_nanosecond_times_are_refused() {
    expect(
        |v| v["flows"][0]["tcp"] = json!({"initial_rto": 1e-10}),
        "flows.tcp1.tcp.initial_rto",
        "resolution of 1 ns",
    );
    expect(
        |v| v["output"] = json!({"interval": 4e-10}),
        "output.interval",
        "resolution of 1 ns",
    );
    expect(
        |v| v["links"][0]["delay"] = json!(1e-12),
        "links.wired.delay",
        "resolution of 1 ns",
    );
}

#[test]
fn times_that_would_wrap_are_refused_with_the_maximum() {
    expect(
        |v| v["links"][0]["delay"] = json!(1e11),
        "links.wired.delay",
        "at most 1e9 s",
    );
    expect(
        |v| v["run"]["duration"] = json!(2e10),
        "run.duration",
        "at most 1e9 s",
    );
    expect(
        |v| v["flows"][0]["tcp"] = json!({"max_rto": 1e12}),
        "flows.tcp1.tcp.max_rto",
        "at most 1e9 s",
    );
    expect(
        |v| v["links"][1]["forward"]["outages"] = json!([[0.5, 1e300]]),
        "links.wireless.forward.outages",
        "at most 1e9 s",
    );
}

#[test]
fn seeds_fit_in_a_signed_64_bit_integer() {
    expect(
        |v| v["run"]["seed"] = json!(9_223_372_036_854_775_808u64),
        "run.seed",
        "2^63 - 1",
    );
    // Beyond 64 bits, negative or fractional: the same range in the message.
    for bad in [
        json!(1.8446744073709552e19),
        json!(-1),
        json!(1.5),
        json!("x"),
    ] {
        expect(|v| v["run"]["seed"] = bad.clone(), "run.seed", "2^63 - 1");
    }
    let mut v = base();
    v["run"]["seed"] = json!(9_223_372_036_854_775_807u64);
    assert!(Sim::from_value(&v).is_ok());
}

#[test]
fn counts_too_large_for_32_bits_get_their_fields_range() {
    // Once told the 32-bit type's largest value, which the field's own
    // range (checked next) then refused at a tenth of it.
    let big = || json!(5_000_000_000u64);
    let tail = "got 5000000000";
    expect(
        |v| v["links"][0]["queue"] = big(),
        "links.wired.queue",
        "from 0 to 1000000",
    );
    expect(
        |v| v["links"][1]["forward"]["queue"] = big(),
        "links.wireless.forward.queue",
        tail,
    );
    expect(
        |v| v["flows"][0]["window"] = big(),
        "flows.tcp1.window",
        "from 1 to 1000000",
    );
    expect(
        |v| v["flows"][0]["packet_size"] = big(),
        "flows.tcp1.packet_size",
        "at most 65535 bytes, got 5000000000",
    );
    expect(
        |v| v["flows"][0]["ack_size"] = big(),
        "flows.tcp1.ack_size",
        "at most 65534 bytes, got 5000000000",
    );
    expect(
        |v| v["flows"][0]["sink"] = json!({"clrp_max_blocks": big()}),
        "flows.tcp1.sink.clrp_max_blocks",
        "must be 1..=8, got 5000000000",
    );
    expect(
        |v| v["flows"][0]["tcp"] = json!({"clrp_rxmit_threshold": big()}),
        "flows.tcp1.tcp.clrp_rxmit_threshold",
        "must be 1..=1000, got 5000000000",
    );
    expect(
        |v| v["flows"][0]["tcp"] = json!({"detector": {"name": "pr", "min_small_rtts": big()}}),
        "flows.tcp1.tcp.detector.min_small_rtts",
        "must be 1..=1000000, got 5000000000",
    );
}

#[test]
fn every_bad_count_of_packets_gets_its_fields_range() {
    // -3 was "expected a whole number >= 0", which the window's range from 1
    // then contradicted at 0; a fraction, a text and a number beyond 64 bits
    // get the same range as a number too large.
    for (bad, shown) in [
        (json!(-3), "got -3"),
        (json!(2.5), "got 2.5"),
        (json!("x"), "got \"x\""),
        (json!(1e20), "got 1e+20"),
        (json!("y".repeat(100)), "got \"yyyy"),
    ] {
        expect(
            |v| v["flows"][0]["window"] = bad.clone(),
            "flows.tcp1.window",
            &format!("must be a whole number of packets from 1 to 1000000, {shown}"),
        );
        expect(
            |v| v["links"][0]["queue"] = bad.clone(),
            "links.wired.queue",
            &format!("must be a whole number of packets from 0 to 1000000, {shown}"),
        );
        expect(
            |v| v["links"][1]["forward"]["queue"] = bad.clone(),
            "links.wireless.forward.queue",
            &format!("from 0 to 1000000, {shown}"),
        );
    }
}

#[test]
fn the_fastest_link_with_no_delay_still_advances_time() {
    // 1 Pb/s and zero delay: once a livelock at time 0; now every packet
    // takes at least 1 ns, so the run ends (within its event budget).
    let mut v = base();
    for l in 0..2 {
        v["links"][l]["bandwidth"] = json!(1e15);
        v["links"][l]["delay"] = json!(0);
    }
    v["run"]["duration"] = json!(0.001);
    v["run"]["event_budget"] = json!(50_000_000);
    let r = run(&v);
    assert!(r.summary.delivered_data_packets > 0);
    expect(
        |v| v["links"][0]["bandwidth"] = json!(1e16),
        "links.wired.bandwidth",
        "1e15",
    );
}

#[test]
fn tables_are_capped_with_a_message_naming_the_option() {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.2}), 200.0);
    v["output"] = json!({"max_rows": 100});
    let Err(e) = tcpair_core::sim::run_json(&v.to_string()) else {
        panic!("a run with more than 100 drops was not stopped")
    };
    assert!(matches!(e, SimError::TableFull { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.starts_with("output.max_rows:"), "{msg}");
    assert!(msg.contains("raise output.max_rows"), "{msg}");
    v["output"] = json!({"max_rows": 0});
    assert!(error_of(&v).starts_with("output.max_rows"));
}

#[test]
fn a_memory_budget_stops_a_long_run_and_names_itself() {
    // 1e6 s with 20% loss would keep a million drop rows (the row cap) and
    // about 1.5 GB with them; the budget stops it at about 8 MiB.
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.2}), 1e6);
    v["run"]["memory_budget"] = json!("8MiB");
    let t0 = Instant::now();
    let Err(e) = tcpair_core::sim::run_json(&v.to_string()) else {
        panic!("a run over its memory budget was not stopped")
    };
    let SimError::MemoryBudgetExceeded { budget, held, .. } = e else {
        panic!("{e}")
    };
    assert_eq!(budget, 8 << 20);
    // Checked every slice of events: it stops soon after passing the budget.
    assert!(held > budget && held < budget + (2 << 20), "{held}");
    let msg = e.to_string();
    assert!(msg.starts_with("run.memory_budget:"), "{msg}");
    assert!(
        msg.contains("8.0 MiB") && msg.contains("raise run.memory_budget"),
        "{msg}"
    );
    assert!(t0.elapsed() < Duration::from_secs(30));
    // Under a generous budget the same run (shortened) completes.
    v["run"]["duration"] = json!(20.0);
    v["run"]["memory_budget"] = json!("1 GiB");
    assert!(run(&v).summary.delivered_data_packets > 0);
}

#[test]
fn tables_not_kept_leave_the_flows_unchanged() {
    // A detector (so the accuracy columns count something), a warm-up (so the
    // measured span starts after the run does) and losses of both kinds.
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.03}), 60.0);
    v["run"]["warmup"] = json!(5.0);
    v["links"][0]["queue"] = json!(8);
    v["flows"][0]["tcp"] = json!({"detector": "pr"});
    let all = run(&v);
    assert!(all.flows[0].fast_retransmits > 0);
    v["output"] = json!({"drops": false, "recoveries": false});
    let lean = run(&v);
    assert_eq!(lean.flows, all.flows);
    assert_eq!(lean.summary.accuracy, all.summary.accuracy);
    assert_eq!(lean.drops["time_s"], json!([]));
    assert_eq!(lean.recoveries["time_s"], json!([]));
    assert_ne!(all.drops["time_s"], json!([]));
}

#[test]
fn memory_budgets_are_sizes() {
    for (bad, mentions) in [
        (json!(0), "from 1 byte"),
        (json!("2 parsecs"), "unknown memory unit"),
        (json!("-1GB"), "from 1 byte"),
        (json!([1]), "memory size"),
    ] {
        expect(
            |v| v["run"]["memory_budget"] = bad,
            "run.memory_budget",
            mentions,
        );
    }
}

#[test]
fn a_run_stops_when_asked_and_returns_nothing() {
    let v = one_link("reno", json!({"model": "uniform", "p": 0.01}), 1e6);
    let mut asked = 0;
    let t0 = Instant::now();
    let e = tcpair_core::sim::run_json_checked(&v.to_string(), &mut || {
        asked += 1;
        asked > 3
    })
    .unwrap_err();
    assert_eq!(e, SimError::Interrupted);
    assert_eq!(asked, 4, "asked once per slice of events");
    assert!(t0.elapsed() < Duration::from_secs(10));
}
