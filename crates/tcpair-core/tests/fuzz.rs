//! The fuzz suite of the core (docs/reliability.md): random scenarios (chains
//! of wired and wireless links, every error model and BS agent, every
//! variant) with edge numbers in random places. Whatever comes in, the core
//! returns an error naming a field or a result that keeps its invariants:
//! packets conserved, no finite transfer delivering more segments than it
//! has, every number finite and >= 0, goodput at most the
//! bottleneck's capacity, one-way delays at least the propagation delay, and
//! the same result when run twice. No panic, and no case runs longer than a
//! wall-clock limit.
//!
//! Short budget by default (runs in `cargo test`); the long budget is
//! `TCPAIR_FUZZ_CASES=100000 cargo test --release -p tcpair-core --test fuzz`.
//! Failures proptest finds are kept in `fuzz.proptest-regressions` beside this
//! file and replayed first on every run.

use proptest::prelude::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tcpair_core::sim::{run_json_checked, RunResult};
use tcpair_core::SimError;

const WALL_LIMIT: Duration = Duration::from_secs(20);

fn cases() -> u32 {
    std::env::var("TCPAIR_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40)
}

/// Numbers at the edges of every representation.
fn edge() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(0),
        json!(5e-324),
        json!(1e-10),
        json!(4e-10),
        json!(1e-9),
        json!(2_147_483_648u64),
        json!(4_294_967_294u64),
        json!(9_223_372_036_854_775_808u64),
        json!(u64::MAX),
        json!(1e300),
        json!(-1),
        json!("nan"),
        json!("inf"),
        json!("x".repeat(10_000)),
        serde_json::from_str(&format!("{}1{}", "[".repeat(20), "]".repeat(20))).unwrap(),
    ])
}

/// Mostly `sane`, sometimes an edge number.
fn num(sane: impl Strategy<Value = f64> + 'static) -> BoxedStrategy<Value> {
    prop_oneof![60 => sane.prop_map(|v| json!(v)), 1 => edge()].boxed()
}

fn loss_model() -> BoxedStrategy<Value> {
    prop_oneof![
        num(0.0..0.2).prop_map(|p| json!({"model": "uniform", "p": p})),
        num(0.0..1e-4).prop_map(|b| json!({"model": "ber", "ber": b})),
        num(0.0..0.2).prop_map(|p| json!({"model": "expo", "p": p})),
        (num(0.0..0.3), num(0.0..1.0), num(0.0..1.0)).prop_map(|(g, b, l)| json!({
            "model": "markov2", "p_good_to_bad": g, "p_bad_to_good": b,
            "loss_good": 0.0, "loss_bad": l})),
        (
            num(1e-3..2.0),
            num(1e-3..0.5),
            num(1e-6..1e-3),
            any::<bool>()
        )
            .prop_map(|(g, b, slot, geo)| {
                let mut m = json!({"model": "markov2_time", "mean_good": g, "mean_bad": b,
                    "loss_good": 0.001, "loss_bad": 0.5});
                if geo {
                    m["sojourn"] = json!("geometric");
                    m["slot"] = slot;
                }
                m
            }),
    ]
    .boxed()
}

fn link(i: usize) -> BoxedStrategy<Value> {
    (
        num(1e5..2e7),
        num(0.0..0.05),
        prop_oneof![num(1.0..80.0), Just(json!(1_000_000))],
        any::<bool>(),
        prop::option::of(loss_model()),
        prop::option::of(loss_model()),
    )
        .prop_map(move |(bw, delay, queue, wireless, fwd, rev)| {
            let mut l = json!({"name": format!("l{i}"), "from": format!("n{i}"),
                "to": format!("n{}", i + 1), "bandwidth": bw, "delay": delay,
                "queue": queue.as_f64().map_or(queue.clone(), |q| json!(q.round().max(0.0) as u64)),
                "kind": if wireless { "wireless" } else { "wired" }});
            if let Some(m) = fwd {
                l["forward"] = json!({"loss": m});
            }
            if let Some(m) = rev {
                l["reverse"] = json!({"loss": m});
            }
            l
        })
        .boxed()
}

fn flow() -> BoxedStrategy<Value> {
    let variants = vec![
        "tahoe",
        "reno",
        "newreno",
        "sack",
        "veno",
        "westwood+",
        "pr",
        "pr_star",
    ];
    (
        prop::sample::select(variants),
        num(0.0..1.0),
        prop_oneof![10 => Just(json!(1000)), 10 => Just(json!(536)), 1 => edge()],
        prop_oneof![20 => (1u32..64).prop_map(|w| json!(w)), 1 => edge()],
        prop::option::of(num(1.0..10.0)),
        prop::option::of(num(0.05..3.0)),
        prop::option::of(1u64..400),
    )
        .prop_map(|(variant, start, size, window, cwnd, rto, segments)| {
            let mut f = json!({"variant": variant, "start": start, "packet_size": size,
                "window": window, "tcp": {}});
            if let Some(n) = segments {
                f["segments"] = json!(n);
            }
            if let Some(c) = cwnd {
                f["tcp"]["initial_cwnd"] = c;
            }
            if let Some(r) = rto {
                f["tcp"]["initial_rto"] = r;
            }
            f
        })
        .boxed()
}

fn scenario() -> impl Strategy<Value = Value> {
    (2usize..5)
        .prop_flat_map(|n| {
            (
                Just(n),
                (0..n - 1).map(link).collect::<Vec<_>>(),
                prop::collection::vec(flow(), 1..3),
                num(0.5..10.0),
                prop_oneof![20 => (0u64..1000).prop_map(|s| json!(s)), 1 => edge()],
                prop::option::of(prop::sample::select(vec![
                    "snoop",
                    "snoop_ns2",
                    "eln_snoop",
                    "syndrome",
                    "clrp",
                ])),
                any::<bool>(),
            )
        })
        .prop_map(|(n, links, flows, duration, seed, agent, ts)| {
            let mut nodes: Vec<Value> = (0..n).map(|i| json!({"name": format!("n{i}")})).collect();
            if let Some(a) = agent {
                nodes[n - 2]["kind"] = json!("router");
                nodes[n - 2]["bs"] = json!([a]);
            }
            let flows: Vec<Value> = flows
                .into_iter()
                .map(|mut f| {
                    f["src"] = json!("n0");
                    f["dst"] = json!(format!("n{}", n - 1));
                    f
                })
                .collect();
            json!({"run": {"duration": duration, "seed": seed, "event_budget": 200_000},
                "nodes": nodes, "links": links, "flows": flows,
                "output": {"timeseries": ts, "interval": 0.05}})
        })
}

/// Run with the wall-clock limit; `None` when the core refused or stopped the run.
fn run_limited(text: &str) -> Result<Option<RunResult>, String> {
    let t0 = Instant::now();
    match run_json_checked(text, &mut || t0.elapsed() > WALL_LIMIT) {
        Ok(r) => Ok(Some(r)),
        Err(SimError::Interrupted) => Err(format!("ran longer than {WALL_LIMIT:?}")),
        Err(SimError::Config(e)) if e.to_string().trim().is_empty() => {
            Err("an error with no message".into())
        }
        Err(_) => Ok(None),
    }
}

/// Every number in `v` finite and >= 0 (the time series' `seq_sent` is -1
/// before the first segment is sent: the highest sequence number sent).
fn numbers_ok(v: &Value, path: &str) -> Result<(), String> {
    let floor = if path.contains(".seq_sent[") {
        -1.0
    } else {
        0.0
    };
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= floor => Ok(()),
            x => Err(format!("{path} = {x:?}")),
        },
        Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| numbers_ok(x, &format!("{path}[{i}]"))),
        Value::Object(m) => m
            .iter()
            .try_for_each(|(k, x)| numbers_ok(x, &format!("{path}.{k}"))),
        _ => Ok(()),
    }
}

fn without_wall(r: &RunResult) -> Value {
    let mut v = r.to_json();
    v["summary"]["wall_s"] = json!(0);
    v
}

/// The invariants of a finished run of the chain `sc`.
fn invariants(sc: &Value, r: &RunResult) -> Result<(), String> {
    let p = r.summary.packets;
    if !p.conserved() {
        return Err(format!("packets not conserved: {p:?}"));
    }
    numbers_ok(&r.to_json(), "result")?;
    let links = sc["links"].as_array().unwrap();
    let capacity = links
        .iter()
        .filter_map(|l| l["bandwidth"].as_f64())
        .fold(f64::MAX, f64::min);
    let prop: f64 = links.iter().filter_map(|l| l["delay"].as_f64()).sum();
    for (i, f) in r.flows.iter().enumerate() {
        if let Some(n) = sc["flows"][i]["segments"].as_u64() {
            if f.delivered > n {
                return Err(format!(
                    "{}: {} segments delivered of a {n}-segment transfer",
                    f.name, f.delivered
                ));
            }
        }
        let slack = 8.0 * f64::from(f.packet_size) * 2.0 / f.measured_s.max(1e-9);
        if f.goodput_kbps * 1e3 > capacity + slack {
            return Err(format!(
                "{}: goodput {} kb/s above the bottleneck {capacity} b/s",
                f.name, f.goodput_kbps
            ));
        }
        for d in [f.delay_mean_s, f.delay_p50_s].into_iter().flatten() {
            if d + 1e-9 < prop {
                return Err(format!(
                    "{}: delay {d} s below the propagation delay {prop} s",
                    f.name
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_scenarios_keep_the_invariants(sc in scenario()) {
        let text = sc.to_string();
        let first = run_limited(&text).map_err(TestCaseError::fail)?;
        if let Some(r) = first {
            invariants(&sc, &r).map_err(TestCaseError::fail)?;
            let again = run_limited(&text).map_err(TestCaseError::fail)?.expect("ran once");
            prop_assert_eq!(without_wall(&r), without_wall(&again), "not deterministic");
        }
    }

    #[test]
    fn arbitrary_text_is_an_error_not_a_panic(text in ".{0,200}") {
        let _ = run_limited(&text).map_err(TestCaseError::fail)?;
        let _ = tcpair_core::validate_json(&text);
        if let Ok(v) = tcpair_core::scenario::parse_toml(&text) {
            let _ = tcpair_core::sim::Sim::from_value(&v);
        }
    }
}

#[test]
fn deep_nesting_is_an_error() {
    for depth in [300, 1200] {
        let text = format!("{{\"flows\": {}1{}}}", "[".repeat(depth), "]".repeat(depth));
        assert!(tcpair_core::validate_json(&text).is_err());
        let toml = format!("x = {}1{}", "[".repeat(depth), "]".repeat(depth));
        assert!(tcpair_core::scenario::parse_toml(&toml).is_err());
    }
}
