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
//! Regenerate with `TCPAIR_UPDATE_SNAPSHOTS=1 cargo test --release --test snapshots`
//! (the value `1` only: `0` or an empty value compares as usual).

#[path = "snapshots/cases.rs"]
mod cases;
mod common;
use cases::matrix;
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

/// The variable that, set to `1`, rewrites the golden files.
const UPDATE_VAR: &str = "TCPAIR_UPDATE_SNAPSHOTS";

/// Whether `value` (of [`UPDATE_VAR`]) asks to rewrite the golden files:
/// `1` only, so that `0`, an empty value or anything else still compares.
fn updating(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| v == "1")
}

#[test]
fn only_one_updates_the_snapshots() {
    assert!(updating(Some("1".as_ref())));
    for v in [None, Some(""), Some("0"), Some("true"), Some(" 1")] {
        assert!(!updating(v.map(AsRef::as_ref)), "{v:?}");
    }
}

fn check(file: &str) {
    let now = run_scenario(file);
    let dir = format!("{}/tests/snapshots", env!("CARGO_MANIFEST_DIR"));
    let path = format!("{dir}/{}.json", file.trim_end_matches(".toml"));
    if updating(std::env::var_os(UPDATE_VAR).as_deref()) {
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

#[test]
fn compare_congested() {
    check("compare_congested.toml");
}

#[test]
fn compare_handoff() {
    check("compare_handoff.toml");
}
