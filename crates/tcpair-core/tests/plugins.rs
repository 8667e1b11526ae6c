//! The hook for parts written outside the core (`scenario::plugins`): a table
//! `{python = ...}` in `tcp.detector` or `tcp.responder` is built by the
//! caller's `Plugins` (the Python binding's in practice), which is asked once
//! per flow and whose parts are called only at fast-retransmit decisions.
//! Here a Rust stand-in hands out the core's own `lda_eq` and responder 21
//! behind a call counter: the run equals the built-in's.

mod common;
use common::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tcpair_core::error::ConfigError;
use tcpair_core::scenario::plugins::Plugins;
use tcpair_core::sim::Sim;
use tcpair_core::tcp::detect::{self, Cause, Detector, Query};
use tcpair_core::tcp::respond::{self, Responder, Response, ResponseQuery};

#[derive(Debug, Clone)]
struct Counted<T: Clone> {
    inner: T,
    calls: Arc<AtomicU64>,
}

impl Detector for Counted<Box<dyn Detector>> {
    fn name(&self) -> &'static str {
        "python"
    }
    fn classify(&mut self, q: &Query) -> Cause {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.classify(q)
    }
}

impl Responder for Counted<Box<dyn Responder>> {
    fn name(&self) -> &'static str {
        "python"
    }
    fn respond(&mut self, q: &ResponseQuery) -> Response {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.inner.respond(q)
    }
}

#[derive(Default)]
struct Twins {
    fields: std::sync::Mutex<Vec<String>>,
    classified: Arc<AtomicU64>,
    responded: Arc<AtomicU64>,
}

impl Plugins for Twins {
    fn detector(&self, field: &str, spec: &Value) -> Result<Box<dyn Detector>, ConfigError> {
        self.fields.lock().unwrap().push(field.to_string());
        assert_eq!(spec["python"], "twin:LdaEq");
        let build = detect::REGISTRY
            .iter()
            .find(|e| e.name == "lda_eq")
            .unwrap()
            .build;
        Ok(Box::new(Counted {
            inner: build(&json!({"threshold": spec["threshold"]}))?,
            calls: self.classified.clone(),
        }))
    }
    fn responder(&self, field: &str, _: &Value) -> Result<Box<dyn Responder>, ConfigError> {
        self.fields.lock().unwrap().push(field.to_string());
        let build = respond::REGISTRY
            .iter()
            .find(|e| e.name == "21")
            .unwrap()
            .build;
        Ok(Box::new(Counted {
            inner: build(&json!({}))?,
            calls: self.responded.clone(),
        }))
    }
}

fn mixed(tcp: Value) -> Value {
    let mut v = one_link("newreno", json!({"model": "uniform", "p": 0.01}), 60.0);
    v["links"][1]["queue"] = json!(10);
    v["flows"][0]["window"] = json!(40);
    v["flows"][0]["tcp"] = tcp;
    v
}

#[test]
fn an_external_twin_decides_as_the_built_in() {
    let builtin = run(&mixed(json!({"detector": "lda_eq", "responder": 21})));
    let twins = Twins::default();
    let spec = mixed(json!({
        "detector": {"python": "twin:LdaEq", "threshold": 0.5},
        "responder": {"python": "twin:Table1"},
    }));
    let sim = Sim::from_value_with(&spec, &twins).unwrap();
    let ext = sim.run().unwrap();
    assert_eq!(
        *twins.fields.lock().unwrap(),
        ["flows.tcp1.tcp.detector", "flows.tcp1.tcp.responder"]
    );
    let (a, b) = (&builtin.flows[0], &ext.flows[0]);
    assert_eq!(a.goodput_kbps, b.goodput_kbps);
    assert_eq!(a.fast_retransmits, b.fast_retransmits);
    assert_eq!(a.wireless_frs, b.wireless_frs);
    let verdicts = |r: &tcpair_core::sim::RunResult| r.to_json()["recoveries"]["verdict"].clone();
    assert_eq!(verdicts(&builtin), verdicts(&ext));
    // Asked only at fast-retransmit triggers: at least once per recorded
    // decision (a trigger the recovery gate refuses is asked too), and the
    // responder only on a wireless verdict.
    let asked = twins.classified.load(Ordering::Relaxed);
    assert!(b.wireless_frs > 0 && b.fast_retransmits > b.wireless_frs);
    assert!(asked >= b.fast_retransmits && asked < 2 * b.fast_retransmits + 10);
    assert!(twins.responded.load(Ordering::Relaxed) >= b.wireless_frs);
    assert_eq!(b.detector, "python");
}
