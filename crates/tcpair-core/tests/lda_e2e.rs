//! The loss-differentiation detectors end to end, on Sun et al. 2005's one-link
//! path made lossy both ways: a 10-packet queue at the 2 Mb/s wireless hop
//! that a window of 40 overflows (congestion) and 1% uniform loss on it
//! (wireless). Every detector runs; the accuracy columns agree with the
//! recoveries table they are counted from; the bounds (oracle, none,
//! always_wireless) score as defined; PR and PR* are variants.

mod common;
use common::*;
use serde_json::{json, Value};

const DETECTORS: [&str; 10] = [
    "none",
    "oracle",
    "always_wireless",
    "pr",
    "ncpld",
    "veno",
    "spike",
    "jtcp",
    "relds",
    "lda_eq",
];

fn mixed(variant: &str, detector: Value) -> Value {
    let mut v = one_link(variant, json!({"model": "uniform", "p": 0.01}), 60.0);
    v["links"][1]["queue"] = json!(10);
    v["flows"][0]["window"] = json!(40);
    v["flows"][0]["tcp"] = json!({ "detector": detector });
    v
}

fn column<'a>(t: &'a Value, name: &str) -> &'a Vec<Value> {
    t[name].as_array().unwrap()
}

/// (true category, verdict) of every fast retransmit in the table.
fn table_frs(out: &Value) -> Vec<(String, String)> {
    let rec = &out["recoveries"];
    let ev = column(rec, "event");
    (0..ev.len())
        .filter(|&i| ev[i] == "fast_retransmit")
        .map(|i| {
            let s = |c: &str| column(rec, c)[i].as_str().unwrap().to_string();
            (s("true_category"), s("verdict"))
        })
        .collect()
}

#[test]
fn accuracy_columns_count_the_recoveries_table() {
    for name in DETECTORS {
        let r = run(&mixed("newreno", json!(name)));
        let out = r.to_json();
        let f = &r.flows[0];
        let a = f.accuracy;
        let frs = table_frs(&out);
        let n = |cat: &str, said: Option<&str>| {
            frs.iter()
                .filter(|(c, v)| c == cat && said.is_none_or(|s| v == s))
                .count() as u64
        };
        assert_eq!(f.detector, name);
        assert_eq!(a.frs_wireless_true, n("wireless", None), "{name}");
        assert_eq!(
            a.frs_wireless_said_wireless,
            n("wireless", Some("wireless"))
        );
        assert_eq!(a.frs_congestion_true, n("congestion", None), "{name}");
        assert_eq!(
            a.frs_congestion_said_congestion,
            n("congestion", Some("congestion"))
        );
        assert_eq!(
            (a.frs_spurious, a.frs_mixed),
            (n("spurious", None), n("mixed", None))
        );
        let total = a.frs_wireless_true + a.frs_congestion_true + a.frs_spurious + a.frs_mixed;
        assert_eq!(
            total, f.fast_retransmits,
            "{name}: no warm-up, every FR counted"
        );
        assert!(
            a.frs_wireless_true > 5 && a.frs_congestion_true > 5,
            "{name}: a mixed path needs both kinds: {a:?}"
        );
        let w = a.frs_wireless_said_wireless as f64 / a.frs_wireless_true as f64;
        let c = a.frs_congestion_said_congestion as f64 / a.frs_congestion_true as f64;
        if name != "none" {
            assert_eq!((a.acc_w, a.acc_c), (Some(w), Some(c)), "{name}");
            assert_eq!(a.acc_t, Some((w + c) / 2.0));
        }
        // The flow row and the summary carry the same figures (one flow).
        let row = &out["flows"][0];
        assert_eq!(row["acc_w"], json!(a.acc_w), "{name}");
        assert_eq!(out["summary"]["acc_t"], json!(a.acc_t), "{name}");
        assert_eq!(out["summary"]["frs_mixed"], json!(a.frs_mixed), "{name}");
    }
}

#[test]
fn the_bounds_score_as_defined() {
    let acc = |d: &str| run(&mixed("newreno", json!(d))).flows[0].accuracy;
    let o = acc("oracle");
    assert_eq!((o.acc_w, o.acc_c), (Some(1.0), Some(1.0)));
    let n = acc("none");
    assert_eq!(
        (n.acc_w, n.acc_c, n.acc_t),
        (Some(0.0), Some(1.0), Some(0.5))
    );
    assert_eq!(n.frs_wireless_said_wireless, 0);
    let w = acc("always_wireless");
    assert_eq!((w.acc_w, w.acc_c), (Some(1.0), Some(0.0)));
}

#[test]
fn every_detector_gives_both_verdicts_on_the_mixed_path() {
    for name in &DETECTORS[3..] {
        let f = &run(&mixed("newreno", json!(name))).flows[0];
        assert!(
            f.wireless_frs > 0 && f.wireless_frs < f.fast_retransmits,
            "{name}: {} wireless of {}",
            f.wireless_frs,
            f.fast_retransmits
        );
    }
}

#[test]
fn an_empty_denominator_is_null() {
    // No loss at all on a short run: no fast retransmit.
    let mut v = mixed("reno", json!("lda_eq"));
    v["links"][1]["forward"]["loss"]["p"] = json!(0.0);
    v["flows"][0]["window"] = json!(5);
    let out = run(&v).to_json();
    let row = &out["flows"][0];
    assert_eq!(row["fast_retransmits"], json!(0));
    for c in ["acc_w", "acc_c", "acc_t"] {
        assert_eq!(row[c], Value::Null, "{c}");
    }
}

#[test]
fn pr_and_pr_star_are_variants() {
    for (variant, same_as) in [("pr", "reno"), ("pr_star", "newreno")] {
        let mut v = mixed(variant, json!("none"));
        v["flows"][0].as_object_mut().unwrap().remove("tcp");
        let r = run(&v);
        let f = &r.flows[0];
        assert_eq!(
            (f.variant.as_str(), f.detector, f.responder),
            (variant, "pr", "1")
        );
        // The same as naming the detector on the underlying recovery.
        let explicit = run(&mixed(same_as, json!("pr")));
        assert_eq!(f.goodput_kbps, explicit.flows[0].goodput_kbps, "{variant}");
        assert_eq!(f.accuracy, explicit.flows[0].accuracy, "{variant}");
        // Its own detector with parameters is accepted.
        let tuned = run(&mixed(variant, json!({"name": "pr", "min_small_rtts": 3})));
        assert_eq!(tuned.flows[0].detector, "pr");
    }
}

#[test]
fn mixed_and_spurious_fast_retransmits_are_counted_apart() {
    // Heavier loss and a shorter queue: some segments are lost to both.
    let mut v = mixed("newreno", json!("oracle"));
    v["links"][1]["forward"]["loss"]["p"] = json!(0.05);
    v["links"][1]["queue"] = json!(5);
    v["run"]["duration"] = json!(120.0);
    let r = run(&v);
    let out = r.to_json();
    let a = r.flows[0].accuracy;
    assert!(a.frs_mixed > 0 && a.frs_spurious > 0, "{a:?}");
    // Every mixed fast retransmit follows drops of its segment of both kinds.
    let rec = &out["recoveries"];
    let drops = &out["drops"];
    let causes_before = |seq: &Value, t: f64| {
        let (s, k, c) = (
            column(drops, "seq"),
            column(drops, "kind"),
            column(drops, "cause"),
        );
        let tt = column(drops, "time_s");
        (0..s.len())
            .filter(|&i| &s[i] == seq && k[i] == "data" && tt[i].as_f64().unwrap() <= t)
            .map(|i| c[i].as_str().unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let cat = column(rec, "true_category");
    let mut seen = 0;
    for i in (0..cat.len())
        .filter(|&i| cat[i] == "mixed" && column(rec, "event")[i] == "fast_retransmit")
    {
        let c = causes_before(
            &column(rec, "seq")[i],
            column(rec, "time_s")[i].as_f64().unwrap(),
        );
        assert!(
            c.contains("queue") && c.contains("corruption"),
            "row {i}: {c:?}"
        );
        seen += 1;
    }
    assert_eq!(seen, a.frs_mixed);
    // The oracle's shares leave both categories out: still exact.
    assert_eq!((a.acc_w, a.acc_c), (Some(1.0), Some(1.0)));
}
