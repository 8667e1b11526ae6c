//! The fast-retransmit decision point end to end, on the CLRP paper's one-link
//! path: the oracle detector with the restoring responder cuts no window at
//! a fast retransmit when every loss is wireless; responder 0 is plain TCP
//! whatever the detector says; `tcp.eln = true` is the `eln` detector; and
//! the recoveries table carries each decision beside its ground truth.

mod common;
use common::*;
use serde_json::{json, Value};

/// FH -> MH, uniform loss p on the wireless hop only; window 30 never fills
/// the 50-packet queues, so every loss is wireless.
fn wireless_only(variant: &str, p: f64) -> Value {
    one_link(variant, json!({"model": "uniform", "p": p}), 120.0)
}

fn with_tcp(mut v: Value, tcp: Value) -> Value {
    v["flows"][0]["tcp"] = tcp;
    v
}

fn column<'a>(t: &'a Value, name: &str) -> &'a Vec<Value> {
    t[name].as_array().unwrap()
}

#[test]
fn oracle_with_restore_cuts_no_window_at_fast_retransmits() {
    for variant in ["reno", "newreno", "sack"] {
        let v = with_tcp(
            wireless_only(variant, 0.02),
            json!({"detector": "oracle", "responder": 1}),
        );
        let r = run(&v);
        let out = r.to_json();
        let rec = &out["recoveries"];
        let events = column(rec, "event");
        let frs: Vec<usize> = (0..events.len())
            .filter(|&i| events[i] == "fast_retransmit")
            .collect();
        assert!(frs.len() > 50, "{variant}: {} fast retransmits", frs.len());
        for &i in &frs {
            assert_eq!(column(rec, "window_cut")[i], false, "{variant} row {i}");
            assert_eq!(column(rec, "verdict")[i], "wireless", "{variant} row {i}");
            // Wireless losses, or (SACK, rarely) a segment not lost at all.
            let truth = &column(rec, "true_verdict")[i];
            assert_ne!(truth, "congestion", "{variant} row {i}");
        }
        let f = &r.flows[0];
        assert_eq!(r.summary.packets.dropped, count_wireless_drops(&out));
        assert_eq!(f.window_cuts, f.timeouts, "{variant}: only timeouts cut");
        assert_eq!(f.wireless_frs, f.fast_retransmits);
        assert_eq!((f.detector, f.responder), ("oracle", "1"));
        // The same losses without a detector: every fast retransmit cuts.
        let plain = run(&wireless_only(variant, 0.02));
        let p = &plain.flows[0];
        assert!(p.window_cuts > f.window_cuts + 50, "{variant}");
        assert!(f.goodput_kbps > p.goodput_kbps, "{variant}");
    }
}

fn count_wireless_drops(out: &Value) -> u64 {
    column(&out["drops"], "link_kind")
        .iter()
        .filter(|k| *k == "wireless")
        .count() as u64
}

/// Responder 0 answers every wireless verdict with TCP's own response: the
/// run is plain TCP's, number for number.
#[test]
fn responder_zero_is_plain_tcp_end_to_end() {
    for variant in ["tahoe", "reno", "newreno", "sack"] {
        let plain = run(&wireless_only(variant, 0.03)).to_json();
        let v = with_tcp(
            wireless_only(variant, 0.03),
            json!({"detector": "always_wireless", "responder": 0}),
        );
        let mut zero = run(&v).to_json();
        let f = zero["flows"][0].as_object_mut().unwrap();
        assert_eq!(f["detector"], "always_wireless");
        f["detector"] = json!("none");
        f["responder"] = json!("1");
        f["wireless_frs"] = json!(0);
        // Same transmissions, same cuts, same goodput; only the verdicts differ.
        for k in [
            "goodput_kbps",
            "sent",
            "window_cuts",
            "timeouts",
            "fast_retransmits",
        ] {
            assert_eq!(zero["flows"][0][k], plain["flows"][0][k], "{variant} {k}");
        }
        assert_eq!(zero["drops"], plain["drops"], "{variant}");
        assert_eq!(
            zero["recoveries"]["cwnd_after"], plain["recoveries"]["cwnd_after"],
            "{variant}"
        );
    }
}

/// `tcp.eln = true` is kept as an alias of `detector = "eln"` (stored sweeps
/// still resolve): the two give the same run.
#[test]
fn eln_alias_is_the_eln_detector() {
    let base = |tcp: Value| {
        let mut v = with_tcp(wireless_only("reno", 0.03), tcp);
        v["nodes"][1]["bs"] = json!(["eln_snoop"]);
        run(&v).to_json()
    };
    let a = base(json!({"eln": true}));
    let b = base(json!({"detector": "eln"}));
    assert_eq!(a["flows"], b["flows"]);
    assert_eq!(a["flows"][0]["detector"], "eln");
    assert!(a["flows"][0]["eln_retransmits"].as_u64().unwrap() > 20);
}

#[test]
fn conflicting_or_unknown_parts_are_rejected_by_field() {
    let err = |tcp: Value| {
        let v = with_tcp(wireless_only("reno", 0.0), tcp);
        match tcpair_core::sim::Sim::from_value(&v) {
            Ok(_) => panic!("accepted {v}"),
            Err(e) => e.to_string(),
        }
    };
    let e = err(json!({"eln": true, "detector": "oracle"}));
    assert!(
        e.starts_with("flows.tcp1.tcp.eln") && e.contains("oracle"),
        "{e}"
    );
    let e = err(json!({"detector": "psychic"}));
    assert!(
        e.starts_with("flows.tcp1.tcp.detector") && e.contains("psychic"),
        "{e}"
    );
    assert!(
        e.contains("known: none, eln, oracle, always_wireless"),
        "{e}"
    );
    let e = err(json!({"responder": 18}));
    assert!(
        e.starts_with("flows.tcp1.tcp.responder") && e.contains("\"18\""),
        "{e}"
    );
    let e = err(json!({"responder": {"name": 21, "cwnd": 2}}));
    assert!(
        e.starts_with("flows.tcp1.tcp.responder") && e.contains("cwnd"),
        "{e}"
    );
    let e = err(json!({"congestion": "cubic"}));
    assert!(
        e.starts_with("flows.tcp1.tcp.congestion") && e.contains("cubic"),
        "{e}"
    );
}
