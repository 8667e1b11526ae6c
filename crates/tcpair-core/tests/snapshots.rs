//! Golden summaries of every shipped scenario, with each BS scheme and TCP
//! variant it supports: short runs (30 s), two seeds each, compared exactly
//! with the files in `tests/snapshots/` (one per scenario). A guard for
//! refactors in the style of s2n-quic's simulation snapshots: a change that
//! moves any number here is either a bug or a deliberate correction, and a
//! correction updates the snapshot in a commit of its own that says why the
//! old number was wrong.
//!
//! What is kept per run: the summary and every per-flow column verbatim
//! (the `--json` summary minus wall time), and for each table (drops,
//! recoveries, time series, BS state and counters) its row count and a
//! 64-bit FNV-1a digest of each column. The comparison is by the golden
//! file's keys: a key that disappears or a value that changes fails; a new
//! key (a column added later) is listed but allowed.
//!
//! Regenerate with `TCPAIR_UPDATE_SNAPSHOTS=1 cargo test --release --test snapshots`.

mod common;
use common::shipped;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

const VARIANTS: [&str; 4] = ["tahoe", "reno", "newreno", "sack"];
const SEEDS: [u64; 2] = [1, 2];
const DURATION: f64 = 30.0;

/// Set `path` (dotted; list elements by their `name`, or by index) in `v`.
fn set(v: &mut Value, path: &str, x: Value) {
    let mut cur = v;
    let keys: Vec<&str> = path.split('.').collect();
    for (i, k) in keys.iter().enumerate() {
        let last = i + 1 == keys.len();
        cur = match cur {
            Value::Array(a) => {
                let idx = a
                    .iter()
                    .position(|e| e.get("name").and_then(Value::as_str) == Some(k))
                    .or_else(|| k.parse().ok())
                    .unwrap_or_else(|| panic!("no element {k:?} in {path}"));
                &mut a[idx]
            }
            Value::Object(m) => {
                if last {
                    m.insert((*k).to_string(), x);
                    return;
                }
                m.entry((*k).to_string()).or_insert_with(|| json!({}))
            }
            _ => panic!("cannot descend into {path} at {k}"),
        };
        if last {
            *cur = x;
            return;
        }
    }
}

/// One scheme set-up: a label and the settings it needs.
type Scheme = (&'static str, Vec<(&'static str, Value)>);

fn bs(
    nodes: &[&'static str],
    agent: &str,
    extra: &[(&'static str, Value)],
) -> Vec<(&'static str, Value)> {
    let mut v: Vec<(&'static str, Value)> =
        nodes.iter().map(|n| (bs_key(n), json!([agent]))).collect();
    v.extend(extra.iter().cloned());
    v
}

fn bs_key(node: &'static str) -> &'static str {
    match node {
        "bs" => "nodes.bs.bs",
        "bs1" => "nodes.bs1.bs",
        "bs2" => "nodes.bs2.bs",
        "ha" => "nodes.ha.bs",
        "fa" => "nodes.fa.bs",
        other => panic!("unknown BS node {other}"),
    }
}

/// The scheme set-ups each scenario supports, with the settings applied to
/// every case of the scenario (`base`).
fn matrix(file: &str) -> (Vec<(&'static str, Value)>, Vec<Scheme>) {
    let t = true;
    match file {
        "clrp_one_link.toml" => (
            vec![(
                "links.wireless.forward.loss",
                json!({"model": "expo", "p": 0.03}),
            )],
            vec![
                ("plain", vec![]),
                ("snoop", bs(&["bs"], "snoop", &[])),
                (
                    "eln_snoop",
                    bs(&["bs"], "eln_snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(&["bs"], "clrp", &[("flows.tcp1.sink.clrp", json!(t))]),
                ),
                (
                    "delack_lt",
                    vec![
                        ("flows.tcp1.sink.delayed_ack", json!(t)),
                        ("flows.tcp1.tcp.limited_transmit", json!(t)),
                    ],
                ),
                (
                    "finite_ts",
                    vec![
                        ("flows.tcp1.segments", json!(1500)),
                        ("output.timeseries", json!(t)),
                        ("output.interval", json!(0.5)),
                    ],
                ),
            ],
        ),
        "clrp_one_link_mh_fh.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                (
                    "snoop",
                    bs(&["bs"], "snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "eln_snoop",
                    bs(&["bs"], "eln_snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(&["bs"], "clrp", &[("flows.tcp1.tcp.clrp", json!(t))]),
                ),
                (
                    "clrp_literal",
                    bs(
                        &["bs"],
                        "clrp",
                        &[
                            ("flows.tcp1.tcp.clrp", json!(t)),
                            ("flows.tcp1.tcp.clrp_inflate", json!(false)),
                        ],
                    ),
                ),
            ],
        ),
        "clrp_two_links.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                (
                    "snoop",
                    bs(
                        &["bs1", "bs2"],
                        "snoop",
                        &[("flows.tcp1.tcp.eln", json!(t))],
                    ),
                ),
                (
                    "eln_snoop",
                    bs(
                        &["bs1", "bs2"],
                        "eln_snoop",
                        &[("flows.tcp1.tcp.eln", json!(t))],
                    ),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs1", "bs2"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(
                        &["bs1", "bs2"],
                        "clrp",
                        &[
                            ("flows.tcp1.tcp.clrp", json!(t)),
                            ("flows.tcp1.sink.clrp", json!(t)),
                        ],
                    ),
                ),
            ],
        ),
        "pftk_check.toml" => (vec![], vec![("plain", vec![])]),
        "snoop_paper.toml" => (
            vec![(
                "links.wireless.forward.loss",
                json!({"model": "ber", "ber": 1e-5}),
            )],
            vec![
                ("plain", vec![]),
                ("snoop", bs(&["bs"], "snoop", &[])),
                (
                    "eln_snoop",
                    bs(&["bs"], "eln_snoop", &[("flows.tcp1.tcp.eln", json!(t))]),
                ),
                (
                    "syndrome",
                    bs(
                        &["bs"],
                        "syndrome",
                        &[
                            ("flows.tcp1.tcp.eln", json!(t)),
                            ("flows.tcp1.sink.syndrome", json!(t)),
                        ],
                    ),
                ),
                (
                    "clrp",
                    bs(&["bs"], "clrp", &[("flows.tcp1.sink.clrp", json!(t))]),
                ),
            ],
        ),
        "syndrome_paper.toml" => {
            let both = |key: &'static str| -> Vec<(&'static str, Value)> {
                match key {
                    "eln" => vec![
                        ("flows.s1.tcp.eln", json!(t)),
                        ("flows.s2.tcp.eln", json!(t)),
                    ],
                    "syndrome" => vec![
                        ("flows.s1.tcp.eln", json!(t)),
                        ("flows.s2.tcp.eln", json!(t)),
                        ("flows.s1.sink.syndrome", json!(t)),
                        ("flows.s2.sink.syndrome", json!(t)),
                    ],
                    "clrp" => vec![
                        ("flows.s1.sink.clrp", json!(t)),
                        ("flows.s2.sink.clrp", json!(t)),
                    ],
                    _ => unreachable!(),
                }
            };
            let fig11 = [
                (
                    "links.n8-ha.forward.reorder",
                    json!({"p": 0.05, "min": 1, "max": 10}),
                ),
                (
                    "links.n8-ha.forward.duplicate",
                    json!({"p": 0.02, "min": 1, "max": 20}),
                ),
            ];
            let mut syn_fig11 = bs(&["ha"], "syndrome", &both("syndrome"));
            syn_fig11.extend(fig11.iter().cloned());
            let mut snoop_fig11 = bs(&["ha"], "snoop", &[]);
            snoop_fig11.extend(fig11.iter().cloned());
            (
                vec![("links.wireless.forward.loss.p", json!(0.03))],
                vec![
                    ("plain", vec![]),
                    ("snoop", bs(&["ha"], "snoop", &[])),
                    ("eln_snoop", bs(&["ha"], "eln_snoop", &both("eln"))),
                    ("syndrome", bs(&["ha"], "syndrome", &both("syndrome"))),
                    ("clrp", bs(&["ha"], "clrp", &both("clrp"))),
                    ("syndrome_fig11", syn_fig11),
                    ("snoop_fig11", snoop_fig11),
                ],
            )
        }
        // The mobile host of Fig. 14: each scheme at both BSs, and the
        // optimised route.
        "syndrome_fig14.toml" => {
            let syn = [
                ("flows.s1.tcp.eln", json!(t)),
                ("flows.s2.tcp.eln", json!(t)),
                ("flows.s1.sink.syndrome", json!(t)),
                ("flows.s2.sink.syndrome", json!(t)),
            ];
            (
                vec![],
                vec![
                    ("plain", vec![]),
                    ("snoop", bs(&["ha", "fa"], "snoop", &[])),
                    ("syndrome", bs(&["ha", "fa"], "syndrome", &syn)),
                    (
                        "route_optimization",
                        vec![("mobility.route_optimization", json!(t))],
                    ),
                    ("freeze", vec![("mobility.freeze", json!(t))]),
                    (
                        "snoop_moved",
                        bs(&["ha", "fa"], "snoop", &[("mobility.move_state", json!(t))]),
                    ),
                ],
            )
        }
        // Loss-differentiation paths: plain senders, and each with a detector
        // answered by responder 1 (keep the window).
        "pr_chain.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                ("pr", vec![("flows.pr1.tcp.detector", json!("pr"))]),
            ],
        ),
        "pr_dumbbell.toml" => (
            vec![],
            vec![("plain", vec![]), ("pr", every_flow_detector("pr"))],
        ),
        "lda_mixed.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                ("lda_eq", vec![("flows.tcp1.tcp.detector", json!("lda_eq"))]),
                ("spike", vec![("flows.tcp1.tcp.detector", json!("spike"))]),
                ("oracle", vec![("flows.tcp1.tcp.detector", json!("oracle"))]),
            ],
        ),
        // The 802.11b chain: plain, and with 2% packet loss after the MAC.
        "wifi_chain.toml" => (
            vec![],
            vec![
                ("plain", vec![]),
                (
                    "loss2",
                    vec![("media.chain.loss", json!({"model": "uniform", "p": 0.02}))],
                ),
            ],
        ),
        // Park et al. 2010's chain: TCP's own response, and every fast
        // retransmit answered by responders 1 and 21 once per episode, with 3%
        // packet loss on 3 hops.
        "respond_chain.toml" => (
            vec![("run.warmup", json!(5.0))],
            vec![
                ("plain", vec![]),
                ("w_r1", respond_w("1")),
                ("w_r21", respond_w("21")),
            ],
        ),
        other => panic!("no snapshot matrix for {other}"),
    }
}

/// The respond_chain scenario as the W group runs it: 3 hops, 3% loss, every
/// fast retransmit answered by `responder`.
fn respond_w(responder: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("flows.tcp1.dst", json!("n3")),
        ("media.chain.loss.p", json!(0.03)),
        ("flows.tcp1.tcp.detector", json!("always_wireless")),
        ("flows.tcp1.tcp.responder", json!(responder)),
    ]
}

/// `flows.fK.tcp.detector = name` for each of the dumbbell's flows f0..f9.
fn every_flow_detector(name: &str) -> Vec<(&'static str, Value)> {
    const KEYS: [&str; 10] = [
        "flows.f0.tcp.detector",
        "flows.f1.tcp.detector",
        "flows.f2.tcp.detector",
        "flows.f3.tcp.detector",
        "flows.f4.tcp.detector",
        "flows.f5.tcp.detector",
        "flows.f6.tcp.detector",
        "flows.f7.tcp.detector",
        "flows.f8.tcp.detector",
        "flows.f9.tcp.detector",
    ];
    KEYS.iter().map(|&k| (k, json!(name))).collect()
}

/// 64-bit FNV-1a of `s`.
fn fnv(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Row count and per-column digests of a column-oriented table.
fn digest(table: &Value) -> Value {
    let mut m = Map::new();
    let mut rows = 0;
    if let Some(cols) = table.as_object() {
        for (name, col) in cols {
            rows = col.as_array().map_or(0, Vec::len);
            m.insert(name.clone(), json!(fnv(&col.to_string())));
        }
    }
    json!({"rows": rows, "columns": m})
}

/// What a snapshot keeps of one run.
fn keep(out: &Value) -> Value {
    let mut summary = out["summary"].clone();
    summary.as_object_mut().unwrap().remove("wall_s");
    let mut tables = Map::new();
    for t in [
        "drops",
        "recoveries",
        "timeseries",
        "bs_state",
        "bs_counters",
        "handoffs",
    ] {
        tables.insert(t.into(), digest(&out[t]));
    }
    json!({"summary": summary, "flows": out["flows"], "tables": tables})
}

fn run_scenario(file: &str) -> Value {
    let base: Value = toml::from_str(&shipped(file)).expect("shipped scenario parses");
    let (common_set, schemes) = matrix(file);
    let mut all = BTreeMap::new();
    for (label, settings) in &schemes {
        for variant in VARIANTS {
            for seed in SEEDS {
                let mut v = base.clone();
                set(&mut v, "run.duration", json!(DURATION));
                set(&mut v, "run.seed", json!(seed));
                for f in v["flows"].as_array_mut().unwrap() {
                    f["variant"] = json!(variant);
                }
                for (k, x) in common_set.iter().chain(settings) {
                    set(&mut v, k, x.clone());
                }
                let out = tcpair_core::sim::run_json(&v.to_string())
                    .unwrap_or_else(|e| panic!("{file} {label} {variant} seed {seed}: {e}"))
                    .to_json();
                all.insert(format!("{label}/{variant}/seed{seed}"), keep(&out));
            }
        }
    }
    serde_json::to_value(all).unwrap()
}

/// Every difference between `golden` and `now`, by golden key; keys only
/// in `now` go to `added`.
fn compare(
    path: &str,
    golden: &Value,
    now: &Value,
    diffs: &mut Vec<String>,
    added: &mut Vec<String>,
) {
    match (golden, now) {
        (Value::Object(g), Value::Object(n)) => {
            for (k, gv) in g {
                let p = format!("{path}.{k}");
                match n.get(k) {
                    Some(nv) => compare(&p, gv, nv, diffs, added),
                    None => diffs.push(format!("{p}: gone (was {gv})")),
                }
            }
            for k in n.keys().filter(|k| !g.contains_key(*k)) {
                added.push(format!("{path}.{k}"));
            }
        }
        (Value::Array(g), Value::Array(n)) if g.len() == n.len() => {
            for (i, (gv, nv)) in g.iter().zip(n).enumerate() {
                compare(&format!("{path}[{i}]"), gv, nv, diffs, added);
            }
        }
        _ if golden == now => {}
        _ => diffs.push(format!("{path}: {golden} -> {now}")),
    }
}

fn check(file: &str) {
    let now = run_scenario(file);
    let dir = format!("{}/tests/snapshots", env!("CARGO_MANIFEST_DIR"));
    let path = format!("{dir}/{}.json", file.trim_end_matches(".toml"));
    if std::env::var_os("TCPAIR_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&now).unwrap() + "\n").unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (TCPAIR_UPDATE_SNAPSHOTS=1 writes it)"));
    let golden: Value = serde_json::from_str(&text).unwrap();
    // Through text like the golden file, so that both sides take the same
    // (not always exact) float parse.
    let now: Value = serde_json::from_str(&serde_json::to_string(&now).unwrap()).unwrap();
    let (mut diffs, mut added) = (Vec::new(), Vec::new());
    compare(file, &golden, &now, &mut diffs, &mut added);
    if !added.is_empty() {
        let mut kinds: Vec<String> = added
            .iter()
            .map(|a| a.rsplit('.').next().unwrap_or(a).to_string())
            .collect();
        kinds.sort();
        kinds.dedup();
        eprintln!(
            "{file}: keys not in the snapshot (allowed): {}",
            kinds.join(", ")
        );
    }
    assert!(
        diffs.is_empty(),
        "{file}: {} values differ from the snapshot, first ones:\n{}",
        diffs.len(),
        diffs
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn clrp_one_link() {
    check("clrp_one_link.toml");
}

#[test]
fn clrp_one_link_mh_fh() {
    check("clrp_one_link_mh_fh.toml");
}

#[test]
fn clrp_two_links() {
    check("clrp_two_links.toml");
}

#[test]
fn pftk_check() {
    check("pftk_check.toml");
}

#[test]
fn snoop_paper() {
    check("snoop_paper.toml");
}

#[test]
fn syndrome_paper() {
    check("syndrome_paper.toml");
}

#[test]
fn syndrome_fig14() {
    check("syndrome_fig14.toml");
}

/// Every shipped scenario has a matrix here (a new scenario needs one).
#[test]
fn every_shipped_scenario_is_covered() {
    let dir = format!("{}/../../scenarios", env!("CARGO_MANIFEST_DIR"));
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".toml") {
            let _ = matrix(&name);
        }
    }
}

#[test]
fn pr_chain() {
    check("pr_chain.toml");
}

#[test]
fn pr_dumbbell() {
    check("pr_dumbbell.toml");
}

#[test]
fn lda_mixed() {
    check("lda_mixed.toml");
}

#[test]
fn wifi_chain() {
    check("wifi_chain.toml");
}

#[test]
fn respond_chain() {
    check("respond_chain.toml");
}
