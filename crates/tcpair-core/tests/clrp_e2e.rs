//! CLRP end to end on the shipped paper-001 scenarios: MH -> FH and FH -> MH
//! over one wireless link, MH -> MH over two (scenarios/clrp_*.toml), against
//! Reno on the same paths and seeds. Properties that must hold whatever the
//! paper's figures say; the figures themselves are the `clrp-fig*` targets.

mod common;
use common::*;
use serde_json::{json, Value};
use tcpair_core::sim::RunResult;

#[derive(Clone, Copy, PartialEq)]
enum Path {
    MhToFh,
    FhToMh,
    MhToMh,
}

/// The shipped scenario of `path` with expo loss `p` on every wireless hop,
/// `secs` long, with `scheme` ("reno", "snoop" or "clrp") applied.
fn scenario(path: Path, scheme: &str, p: f64, seed: u64, secs: f64) -> Value {
    let file = match path {
        Path::MhToFh => "clrp_one_link_mh_fh.toml",
        Path::FhToMh => "clrp_one_link.toml",
        Path::MhToMh => "clrp_two_links.toml",
    };
    let mut v: Value = toml::from_str(&shipped(file)).expect("shipped TOML parses");
    v["run"]["seed"] = json!(seed);
    v["run"]["duration"] = json!(secs);
    let loss = json!({"model": "expo", "p": p});
    let bs_nodes: &[usize] = match path {
        Path::MhToFh => {
            v["links"][1]["reverse"]["loss"] = loss;
            &[1]
        }
        Path::FhToMh => {
            v["links"][1]["forward"]["loss"] = loss;
            &[1]
        }
        Path::MhToMh => {
            v["links"][0]["forward"]["loss"] = loss.clone();
            v["links"][2]["forward"]["loss"] = loss;
            &[1, 2]
        }
    };
    if scheme != "reno" {
        for &n in bs_nodes {
            v["nodes"][n]["bs"] = json!([scheme]);
        }
    }
    let mh_sender = path != Path::FhToMh;
    let mh_receiver = path != Path::MhToFh;
    let f = &mut v["flows"][0];
    match scheme {
        "snoop" if mh_sender => f["tcp"] = json!({"eln": true}),
        "clrp" => {
            if mh_sender {
                f["tcp"] = json!({"clrp": true});
            }
            if mh_receiver {
                f["sink"] = json!({"clrp": true});
            }
        }
        _ => {}
    }
    v
}

fn runs(path: Path, scheme: &str, p: f64, secs: f64) -> Vec<RunResult> {
    (1..=3)
        .map(|s| run(&scenario(path, scheme, p, s, secs)))
        .collect()
}

fn mean(rs: &[RunResult], f: impl Fn(&RunResult) -> f64) -> f64 {
    rs.iter().map(f).sum::<f64>() / rs.len() as f64
}

fn goodput(rs: &[RunResult]) -> f64 {
    mean(rs, |r| r.flows[0].goodput_kbps)
}

fn counter(r: &RunResult, node: &str, name: &str) -> u64 {
    let t = &r.bs_counters;
    let n = t["counter"].as_array().unwrap().len();
    (0..n)
        .filter(|&i| t["node"][i] == json!(node) && t["counter"][i] == json!(name))
        .map(|i| t["value"][i].as_u64().unwrap())
        .sum()
}

#[test]
fn mh_to_fh_clrp_repairs_wireless_losses_without_window_cuts() {
    let reno = runs(Path::MhToFh, "reno", 0.05, 100.0);
    let clrp = runs(Path::MhToFh, "clrp", 0.05, 100.0);
    let (g_reno, g_clrp) = (goodput(&reno), goodput(&clrp));
    assert!(
        g_clrp >= 1.5 * g_reno,
        "CLRP {g_clrp:.0} vs Reno {g_reno:.0} kb/s"
    );
    for r in &clrp {
        let f = &r.flows[0];
        // Every loss is a wireless one: no fast retransmit (no wired loss),
        // cuts only from timeouts, and far fewer than Reno's.
        assert_eq!(f.fast_retransmits, 0);
        assert_eq!(f.window_cuts, f.timeouts);
        assert!(f.counter("clrp_retransmits") > 0 && f.counter("clrp_notices") > 0);
        assert_eq!(
            counter(r, "bs", "wired_losses"),
            0,
            "no wired loss on this path"
        );
    }
    let cuts = |rs: &[RunResult]| mean(rs, |r| r.flows[0].window_cuts as f64);
    assert!(
        cuts(&clrp) < 0.1 * cuts(&reno),
        "{} vs {}",
        cuts(&clrp),
        cuts(&reno)
    );
}

#[test]
fn fh_to_mh_fixed_host_is_plain_reno_and_never_sees_the_option() {
    let reno = runs(Path::FhToMh, "reno", 0.05, 100.0);
    let clrp = runs(Path::FhToMh, "clrp", 0.05, 100.0);
    assert!(goodput(&clrp) >= 1.5 * goodput(&reno));
    let v = scenario(Path::FhToMh, "clrp", 0.05, 1, 1.0);
    assert!(
        v["flows"][0].get("tcp").is_none(),
        "the FH's TCP is untouched"
    );
    for r in &clrp {
        let f = &r.flows[0];
        assert_eq!(
            (
                f.counter("clrp_notices"),
                f.counter("clrp_retransmits"),
                f.eln_acks
            ),
            (0, 0, 0)
        );
        assert!(f.bs_retransmits > 0 && f.counter("clrp_holes") > 0);
        assert!(counter(r, "bs", "options_stripped") > 0);
    }
}

#[test]
fn mh_to_mh_two_clrp_base_stations_beat_reno() {
    let reno = runs(Path::MhToMh, "reno", 0.02, 100.0);
    let clrp = runs(Path::MhToMh, "clrp", 0.02, 100.0);
    assert!(goodput(&clrp) >= 1.3 * goodput(&reno));
    for r in &clrp {
        // BS1 reports MH1's wireless losses, BS2 repairs MH2's locally.
        assert!(counter(r, "bs1", "acks_with_blocks") > 0);
        assert!(counter(r, "bs2", "local_retransmits") > 0);
        assert_eq!(counter(r, "bs1", "local_retransmits"), 0);
        assert_eq!(counter(r, "bs2", "acks_with_blocks"), 0);
    }
}

#[test]
fn no_loss_clrp_is_reno() {
    for path in [Path::MhToFh, Path::FhToMh, Path::MhToMh] {
        let a = run(&scenario(path, "reno", 0.0, 1, 30.0));
        let b = run(&scenario(path, "clrp", 0.0, 1, 30.0));
        let (ga, gb) = (a.flows[0].goodput_kbps, b.flows[0].goodput_kbps);
        assert!((ga - gb).abs() <= 0.01 * ga, "{ga} vs {gb}");
        assert_eq!(
            b.flows[0].counter("clrp_retransmits") + b.flows[0].bs_retransmits,
            0
        );
    }
}

#[test]
fn clrp_runs_are_deterministic() {
    for path in [Path::MhToFh, Path::FhToMh, Path::MhToMh] {
        let v = scenario(path, "clrp", 0.05, 7, 20.0);
        let mut a = run(&v).to_json();
        let mut b = run(&v).to_json();
        a["summary"]["wall_s"] = json!(0);
        b["summary"]["wall_s"] = json!(0);
        assert_eq!(a, b);
    }
}

#[test]
fn end_to_end_delay_counts_from_the_first_transmission() {
    let r = run(&scenario(Path::MhToFh, "reno", 0.05, 1, 60.0));
    let f = &r.flows[0];
    // Recovery time is included: the first-transmission delay exceeds the
    // per-transmission one on a lossy path.
    assert!(f.e2e_delay_mean_s.unwrap() > f.delay_mean_s.unwrap());
    let r0 = run(&scenario(Path::MhToFh, "reno", 0.0, 1, 60.0));
    let f0 = &r0.flows[0];
    assert!((f0.e2e_delay_mean_s.unwrap() - f0.delay_mean_s.unwrap()).abs() < 1e-9);
}
