//! The event trace: hand-derived rows of a first segment, drop rows equal to
//! the drops table, determinism, the filters, and no effect on the results.

mod common;
use common::*;
use serde_json::{json, Value};
use tcpair_core::metrics::trace::{SharedSink, TraceKind, TraceRow};
use tcpair_core::sim::{RunResult, Sim};

fn traced(v: &Value) -> (RunResult, Vec<TraceRow>, Vec<String>) {
    let sink = SharedSink::default();
    let mut sim = Sim::from_value(v).expect("valid scenario");
    sim.set_trace_sink(Box::new(sink.clone()));
    let r = sim.run().expect("runs");
    let m = sink.0.lock().unwrap();
    (r, m.rows.clone(), m.labels.details.clone())
}

fn with_trace(mut v: Value, t: Value) -> Value {
    v["trace"] = t;
    v
}

#[test]
fn first_segment_rows_match_hand_derived_times() {
    let v = with_trace(
        one_link("reno", json!({"model": "uniform", "p": 0.0}), 1.0),
        json!({}),
    );
    let (_, rows, _) = traced(&v);
    let first: Vec<&TraceRow> = rows.iter().filter(|r| r.packet_id == 0).collect();
    let kinds: Vec<&str> = first.iter().map(|r| r.kind.name()).collect();
    // fh -> bs (10 Mb/s, 10 ms), bs -> mh (2 Mb/s, 64 us), 1000 bytes.
    assert_eq!(
        kinds,
        [
            "send", "enqueue", "transmit", "arrive", "enqueue", "transmit", "arrive", "receive",
            "deliver"
        ]
    );
    let times: Vec<u64> = first.iter().map(|r| r.time).collect();
    let at_bs = 800_000 + 10_000_000; // 0.8 ms serialization + 10 ms
    let at_mh = at_bs + 4_000_000 + 64_000; // 4 ms serialization + 64 us
    assert_eq!(times, [0, 0, 0, at_bs, at_bs, at_bs, at_mh, at_mh, at_mh]);
    assert!(first[..8]
        .iter()
        .all(|r| r.seq == 0 && r.flow == 0 && r.size == 1000 && r.origin == 0));
    // Delivered to the application: one segment, next expected 1.
    assert_eq!((first[8].seq, first[8].value), (1, 1));
    assert_eq!(first[1].queue, 0, "the first packet waits behind nothing");
    // The ACK for it: sent at the MH, asking for segment 1.
    let ack = rows
        .iter()
        .find(|r| r.kind == TraceKind::AckSent)
        .expect("an ACK");
    assert_eq!((ack.time, ack.seq, ack.is_ack, ack.size), (at_mh, 1, 1, 40));
    // The sender's first window row: cwnd 1, ssthresh unbounded (inf).
    let w = rows.iter().find(|r| r.kind == TraceKind::Window).unwrap();
    assert_eq!((w.time, w.cwnd), (0, 1.0));
    assert!(w.ssthresh.is_infinite());
}

fn drops_of(r: &RunResult) -> Vec<(u64, i64, i64)> {
    let d = &r.drops;
    let col = |k: &str| d[k].as_array().cloned().unwrap_or_default();
    let (t, id, seq) = (col("time_s"), col("packet_id"), col("seq"));
    (0..t.len())
        .map(|i| {
            let ns = (t[i].as_f64().unwrap() * 1e9).round() as u64;
            (ns, id[i].as_i64().unwrap(), seq[i].as_i64().unwrap())
        })
        .collect()
}

#[test]
fn drop_rows_equal_the_drops_table_and_runs_are_deterministic() {
    let mut v = one_link("newreno", json!({"model": "uniform", "p": 0.03}), 20.0);
    v["links"][0]["queue"] = json!(5);
    let v = with_trace(v, json!({}));
    let (r, rows, details) = traced(&v);
    let table = drops_of(&r);
    assert!(table.len() > 10, "enough drops to compare: {}", table.len());
    let traced_drops: Vec<(u64, i64, i64)> = rows
        .iter()
        .filter(|r| r.kind == TraceKind::Drop)
        .map(|r| (r.time, r.packet_id, r.seq))
        .collect();
    assert_eq!(traced_drops, table);
    let causes: Vec<&str> = rows
        .iter()
        .filter(|r| r.kind == TraceKind::Drop)
        .map(|r| details[r.detail as usize].as_str())
        .collect();
    assert!(causes.contains(&"queue") && causes.contains(&"corruption"));
    let (r2, rows2, _) = traced(&v);
    assert_eq!(rows.len(), rows2.len());
    assert!(rows.iter().zip(&rows2).all(|(a, b)| a.time == b.time
        && a.kind == b.kind
        && a.packet_id == b.packet_id
        && a.queue == b.queue));
    // Tracing changes nothing in the results.
    let plain = run(&one_link_q5());
    assert_eq!(plain.summary.events, r2.summary.events);
    assert_eq!(plain.flows[0].goodput_kbps, r2.flows[0].goodput_kbps);
}

fn one_link_q5() -> Value {
    let mut v = one_link("newreno", json!({"model": "uniform", "p": 0.03}), 20.0);
    v["links"][0]["queue"] = json!(5);
    v
}

#[test]
fn filters_keep_only_the_named_link_and_window() {
    let v = with_trace(
        one_link("reno", json!({"model": "uniform", "p": 0.01}), 10.0),
        json!({"links": ["wireless"], "start": 2.0, "end": "3s"}),
    );
    let (_, rows, _) = traced(&v);
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.dir == 2 || r.dir == 3));
    assert!(rows
        .iter()
        .all(|r| (2_000_000_000..3_000_000_000).contains(&r.time)));
    let v = with_trace(
        one_link("reno", json!({"model": "uniform", "p": 0.01}), 10.0),
        json!({"flows": ["nope"]}),
    );
    let e = Sim::from_value(&v)
        .err()
        .expect("an unknown flow is an error");
    assert!(e.to_string().contains("trace.flows[0]"), "{e}");
}

#[test]
fn snoop_actions_are_traced() {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.05}), 20.0);
    v["nodes"][1]["bs"] = json!(["snoop"]);
    let v = with_trace(v, json!({"nodes": ["bs"]}));
    let (r, rows, details) = traced(&v);
    let n = |k: TraceKind| rows.iter().filter(|r| r.kind == k).count() as u64;
    assert!(n(TraceKind::BsCache) > 100);
    assert_eq!(
        n(TraceKind::BsLocalRetransmit),
        bs_counter(&r, "local_retransmits"),
        "one row per local retransmission"
    );
    assert!(n(TraceKind::BsLocalRetransmit) > 0);
    assert_eq!(
        n(TraceKind::BsDupackSuppressed),
        bs_counter(&r, "dupacks_suppressed")
    );
    let reasons: Vec<&str> = rows
        .iter()
        .filter(|r| r.kind == TraceKind::BsLocalRetransmit)
        .map(|r| details[r.detail as usize].as_str())
        .collect();
    assert!(
        reasons.iter().all(|s| s.starts_with("snoop: ")),
        "{reasons:?}"
    );
}

/// `one_link` with Syndrome (tags on every data packet: TCP options), flow
/// packets of `size` bytes and pcap files into `dir`.
fn pcap_run(size: u32, dir: &std::path::Path) -> Value {
    let mut v = one_link("reno", json!({"model": "uniform", "p": 0.1}), 3.0);
    v["nodes"][1]["bs"] = json!(["syndrome"]);
    v["flows"][0]["packet_size"] = json!(size);
    v["flows"][0]["tcp"] = json!({"eln": true});
    v["flows"][0]["sink"] = json!({"syndrome": true});
    with_trace(v, json!({"pcap": dir, "events": false}))
}

#[test]
fn a_packet_size_too_large_for_pcap_is_refused_before_the_run() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("pcap_too_large");
    let _ = std::fs::remove_dir_all(&dir);
    // Up to 65,509 the capture broke mid-run blaming trace.pcap, from
    // 65,524 the frame builder panicked.
    for size in [65_482, 65_509, 65_510, 65_523, 65_524, 65_535] {
        let v = pcap_run(size, &dir);
        let e = tcpair_core::validate_json(&v.to_string())
            .unwrap_err()
            .to_string();
        let run = tcpair_core::sim::run_json(&v.to_string()).map(|_| ());
        assert_eq!(run.unwrap_err().to_string(), e);
        assert!(
            e.starts_with("flows.tcp1.packet_size:")
                && e.contains("at most 65481 bytes")
                && e.contains(&format!("got {size}")),
            "{e}"
        );
        assert!(!dir.exists(), "{size}: output written before the refusal");
    }
}

#[test]
fn the_largest_packet_size_pcap_allows_is_captured() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("pcap_largest");
    let _ = std::fs::remove_dir_all(&dir);
    let r = run(&pcap_run(65_481, &dir));
    assert!(r.flows[0].delivered > 0);
    let air = std::fs::metadata(dir.join("wireless-forward.pcap")).unwrap();
    assert!(air.len() > 65_481, "{} bytes", air.len());
    // A flow the capture leaves out may be larger.
    let mut v = pcap_run(65_535, &dir);
    v["flows"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "small", "src": "fh", "dst": "mh"}));
    v["trace"]["flows"] = json!(["small"]);
    assert!(tcpair_core::validate_json(&v.to_string()).is_ok());
}
