//! Each detector of Park et al. 2010 and Prompt Recovery in a real flow
//! (the `testkit` loop): a bottleneck of 10 ms per packet, 50 ms each way,
//! a window of 20 (so the queue, and the RTT, rise and fall with cwnd), and
//! losses scripted in pairs across the transfer (one after a long quiet
//! stretch, one 30 segments after it, while the queue refills). Each
//! detector must run, give both verdicts, and the transfer must complete.

use crate::engine::{MS, SEC};
use crate::registry::pick;
use crate::tcp::{detect, respond, Cause, SinkConfig, TcpConfig};
use crate::testkit::{Link, Loop};
use serde_json::json;

/// The verdicts `detector` (a name or a table) gives on the mixed path,
/// with responder `responder`.
fn verdicts(detector: &serde_json::Value, responder: &str) -> Vec<Cause> {
    let (e, p) = pick(detect::REGISTRY, detector, "detector", "test").unwrap();
    let (r, _) = pick(respond::REGISTRY, &responder.into(), "responder", "test").unwrap();
    let cfg = TcpConfig {
        detector: (e.build)(&p).unwrap(),
        responder: (r.build)(&json!({})).unwrap(),
        total_segments: Some(3000),
        ..TcpConfig::default()
    };
    let kills: Vec<(u32, u32)> = (1..19)
        .flat_map(|i| [(i * 150, 1), (i * 150 + 30, 1)])
        .collect();
    let mut lp = Loop::new(cfg, SinkConfig::default())
        .hop_a(Link::wired(10 * MS, 50 * MS))
        .kills_a(&kills);
    lp.run_until(600 * SEC);
    assert!(lp.finished(), "{detector}: the transfer did not complete");
    lp.record()
        .fast_retransmits()
        .iter()
        .map(|(_, d)| d.verdict)
        .collect()
}

/// Both verdicts with each of `responders`: 1 (restore: a wireless verdict
/// keeps the window) and 0 (TCP's own: the window is cut either way).
fn gives_both(detector: serde_json::Value, responders: &[&str]) {
    for &responder in responders {
        let v = verdicts(&detector, responder);
        let w = v.iter().filter(|&&c| c == Cause::Wireless).count();
        assert!(
            w > 0 && w < v.len(),
            "{detector}, responder {responder}: {w} wireless of {} verdicts",
            v.len()
        );
    }
}

#[test]
fn pr_gives_both_verdicts() {
    gives_both(json!("pr"), &["1", "0"]);
    // Read literally, PR calls every loss wireless until a run of small
    // RTTs; with restore the window-limited flow never makes one (its RTT
    // stays at the mean), so only TCP's own response shows both.
    gives_both(json!({"name": "pr", "literal": true}), &["0"]);
}

#[test]
fn ncpld_gives_both_verdicts() {
    gives_both(json!("ncpld"), &["1", "0"]);
}

#[test]
fn veno_gives_both_verdicts() {
    gives_both(json!("veno"), &["1", "0"]);
}

#[test]
fn spike_gives_both_verdicts() {
    gives_both(json!("spike"), &["1", "0"]);
    gives_both(json!({"name": "spike", "delay": "one_way"}), &["1", "0"]);
}

#[test]
fn jtcp_gives_both_verdicts() {
    // With restore the flow stays window-limited and sends at the
    // bottleneck's pace: its jitter is 0 and every loss is wireless; with
    // TCP's own response the window changes, and a loss can meet a queue
    // that is growing.
    gives_both(json!("jtcp"), &["0"]);
}

#[test]
fn relds_gives_both_verdicts() {
    gives_both(json!("relds"), &["1", "0"]);
}

#[test]
fn lda_eq_gives_both_verdicts() {
    gives_both(json!("lda_eq"), &["1", "0"]);
}
