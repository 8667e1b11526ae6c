//! Detectors and responders written in Python (docs/python.md, "Writing a
//! detector or responder in Python"): the core's `scenario::plugins::Plugins`
//! hook, implemented with the user's classes. `tcpair.simulate.plugins` (Python) finds
//! and instantiates the class; this file calls it at each fast-retransmit
//! decision with a [`Context`], checks the answer, and keeps the first
//! failure of a run in a [`Failure`] slot, which stops the run at the
//! simulator's next periodic check (a decision cannot fail in the core).

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::{Arc, Mutex};
use tcpair_core::engine::Time;
use tcpair_core::error::ConfigError;
use tcpair_core::limits::MAX_PACKETS;
use tcpair_core::scenario::plugins::Plugins;
use tcpair_core::tcp::detect::{Cause, Detector, Query};
use tcpair_core::tcp::respond::{Responder, Response, ResponseQuery};
use tcpair_core::tcp::{History, Window};

/// A failure's message, naming the field, and the exception if one was raised.
pub type Failed = (String, Option<PyErr>);

/// The first failure of a run's Python parts, shared by all of them.
#[derive(Clone, Default)]
pub struct Failure(Arc<Mutex<Option<Failed>>>);

impl Failure {
    pub fn is_set(&self) -> bool {
        self.0.lock().map(|f| f.is_some()).unwrap_or(true)
    }

    fn set(&self, message: String, err: Option<PyErr>) {
        if let Ok(mut f) = self.0.lock() {
            f.get_or_insert((message, err));
        }
    }

    pub fn take(&self) -> Option<Failed> {
        self.0.lock().ok().and_then(|mut f| f.take())
    }
}

/// What the user's `classify(ctx)` or `respond(ctx)` sees: the decision's
/// inputs and the sender's RTT/ACK history, times in integer nanoseconds
/// (the core's own units, so a Python twin of a built-in computes the same
/// figures). Fields a detector's query lacks for a responder (`now_ns`,
/// `seq`, `eln`, `flight`) are None there, and the responder's own ones
/// (`own_cwnd`, `own_ssthresh`, `window_limit`, `packet_size`) for a detector.
#[pyclass(frozen, get_all, module = "tcpair._core")]
pub struct Context {
    now_ns: Option<Time>,
    seq: Option<u32>,
    eln: Option<bool>,
    flight: Option<u32>,
    cwnd: f64,
    ssthresh: f64,
    own_cwnd: Option<f64>,
    own_ssthresh: Option<f64>,
    window_limit: Option<u32>,
    packet_size: Option<u32>,
    rtt_samples: u64,
    rtt_min_ns: Option<Time>,
    rtt_max_ns: Option<Time>,
    rtt_mean_ns: Option<f64>,
    rtt_last_ns: Option<Time>,
    srtt_ns: Option<Time>,
    small_rtt_run: u32,
    round_min_rtt_ns: Option<Time>,
    last_round_min_rtt_ns: Option<Time>,
    max_delivery_rate: f64,
    bdp: f64,
    ack_gap_ns: Option<Time>,
    mean_ack_gap_ns: Option<f64>,
    one_way_ns: Time,
    jitter_ratio: Option<f64>,
    first_dup_echo_ns: Option<Time>,
    mean_window: Option<f64>,
    max_window: Option<f64>,
}

#[pymethods]
impl Context {
    fn __repr__(&self) -> String {
        format!(
            "<tcpair decision context seq={:?} cwnd={} ssthresh={} rtt_min_ns={:?} rtt_last_ns={:?}>",
            self.seq, self.cwnd, self.ssthresh, self.rtt_min_ns, self.rtt_last_ns
        )
    }
}

impl Context {
    fn new(h: &History, w: Window) -> Context {
        Context {
            now_ns: None,
            seq: None,
            eln: None,
            flight: None,
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            own_cwnd: None,
            own_ssthresh: None,
            window_limit: None,
            packet_size: None,
            rtt_samples: h.samples(),
            rtt_min_ns: h.min_rtt(),
            rtt_max_ns: h.max_rtt(),
            rtt_mean_ns: h.mean_rtt(),
            rtt_last_ns: h.last_rtt(),
            srtt_ns: h.srtt(),
            small_rtt_run: h.small_run(),
            round_min_rtt_ns: h.round_min_rtt(),
            last_round_min_rtt_ns: h.last_round_min_rtt(),
            max_delivery_rate: h.max_delivery_rate(),
            bdp: h.bdp(),
            ack_gap_ns: h.ack_gap(),
            mean_ack_gap_ns: h.mean_ack_gap(),
            one_way_ns: h.one_way(),
            jitter_ratio: h.jitter_ratio(),
            first_dup_echo_ns: h.first_dup_echo(),
            mean_window: h.mean_window(),
            max_window: h.max_window(),
        }
    }

    fn of_query(q: &Query) -> Context {
        Context {
            now_ns: Some(q.now),
            seq: Some(q.seq),
            eln: Some(q.ack.eln),
            flight: Some(q.flight),
            ..Context::new(q.history, q.window)
        }
    }

    fn of_response(q: &ResponseQuery) -> Context {
        Context {
            own_cwnd: Some(q.own.cwnd),
            own_ssthresh: Some(q.own.ssthresh),
            window_limit: Some(q.window_limit),
            packet_size: Some(q.packet_size),
            ..Context::new(q.history, q.before)
        }
    }
}

/// One user object and the method the core calls on it.
struct Part {
    /// Where the scenario names it (`flows.tcp1.tcp.detector`).
    field: String,
    /// `module:Class`, for messages.
    reference: String,
    method: Py<PyAny>,
    failure: Failure,
}

impl Part {
    fn clone_in(&self, py: Python<'_>) -> Part {
        Part {
            field: self.field.clone(),
            reference: self.reference.clone(),
            method: self.method.clone_ref(py),
            failure: self.failure.clone(),
        }
    }

    /// Call the method with `ctx`; None after a failure (kept in the slot).
    fn call<T>(
        &self,
        ctx: Context,
        name: &str,
        check: impl FnOnce(&Bound<'_, PyAny>) -> Result<T, String>,
    ) -> Option<T> {
        if self.failure.is_set() {
            return None;
        }
        Python::with_gil(|py| {
            let res = Bound::new(py, ctx).and_then(|c| self.method.bind(py).call1((c,)));
            let out = match res {
                Ok(v) => check(&v).map_err(|m| (m, None)),
                Err(e) => Err((raised(py, &e), Some(e))),
            };
            out.map_err(|(m, e)| {
                let head = format!("{}: {}.{name}", self.field, self.reference);
                self.failure.set(format!("{head} {m}"), e)
            })
            .ok()
        })
    }
}

/// "raised ZeroDivisionError: division by zero" and the user's traceback.
fn raised(py: Python<'_>, e: &PyErr) -> String {
    let text = py
        .import("tcpair.simulate.plugins")
        .and_then(|m| m.call_method1("describe", (e.value(py), e.traceback(py))))
        .and_then(|s| s.extract::<String>());
    text.unwrap_or_else(|_| format!("raised {e}"))
}

fn clone_part(p: &Part) -> Part {
    Python::with_gil(|py| p.clone_in(py))
}

/// A detector written in Python.
pub struct PyDetector(Part);

impl std::fmt::Debug for PyDetector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyDetector({})", self.0.reference)
    }
}

impl Clone for PyDetector {
    fn clone(&self) -> Self {
        PyDetector(clone_part(&self.0))
    }
}

/// The verdict `classify` returned.
fn verdict(v: &Bound<'_, PyAny>) -> Result<Cause, String> {
    match v.extract::<String>().as_deref() {
        Ok("wireless") => Ok(Cause::Wireless),
        Ok("congestion") => Ok(Cause::Congestion),
        _ => Err(format!(
            "returned {}; expected \"wireless\" or \"congestion\"",
            shown(v)
        )),
    }
}

fn shown(v: &Bound<'_, PyAny>) -> String {
    v.repr().map_or_else(|_| "?".into(), |r| r.to_string())
}

impl Detector for PyDetector {
    fn name(&self) -> &'static str {
        "python"
    }
    fn classify(&mut self, q: &Query) -> Cause {
        // After a failure the run is stopping: TCP's own answer meanwhile.
        self.0
            .call(Context::of_query(q), "classify", verdict)
            .unwrap_or(Cause::Congestion)
    }
}

/// A responder written in Python.
pub struct PyResponder(Part);

impl std::fmt::Debug for PyResponder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyResponder({})", self.0.reference)
    }
}

impl Clone for PyResponder {
    fn clone(&self) -> Self {
        PyResponder(clone_part(&self.0))
    }
}

/// The window `respond` returned: None (TCP's own response) or a pair of
/// packet counts from 1 to the largest window.
fn window(v: &Bound<'_, PyAny>) -> Result<Response, String> {
    if v.is_none() {
        return Ok(Response::Own);
    }
    let bad = || {
        format!(
            "returned {}; expected (cwnd, ssthresh), each a number of packets from 1 to \
             {MAX_PACKETS}, or None for TCP's own response",
            shown(v)
        )
    };
    let pair = v.downcast::<PyTuple>().map_err(|_| bad())?;
    let (cwnd, ssthresh): (f64, f64) = pair.extract().map_err(|_| bad())?;
    let ok = |x: f64| x.is_finite() && (1.0..=f64::from(MAX_PACKETS)).contains(&x);
    if ok(cwnd) && ok(ssthresh) {
        Ok(Response::Set(Window { cwnd, ssthresh }))
    } else {
        Err(bad())
    }
}

impl Responder for PyResponder {
    fn name(&self) -> &'static str {
        "python"
    }
    fn respond(&mut self, q: &ResponseQuery) -> Response {
        self.0
            .call(Context::of_response(q), "respond", window)
            .unwrap_or(Response::Own)
    }
}

/// The binding's [`Plugins`]: every part of one run shares its [`Failure`].
#[derive(Default)]
pub struct PyPlugins {
    pub failure: Failure,
}

impl PyPlugins {
    /// The user's object's method, from `tcpair.simulate.plugins.load`.
    fn load(&self, field: &str, spec: &serde_json::Value, kind: &str) -> Result<Part, ConfigError> {
        Python::with_gil(|py| {
            let found = py
                .import("tcpair.simulate.plugins")
                .and_then(|m| m.call_method1("load", (field, spec.to_string(), kind)));
            let (reference, method) = match found {
                Ok(v) => v
                    .extract::<(String, Py<PyAny>)>()
                    .map_err(|e| load_error(py, field, e))?,
                Err(e) => return Err(load_error(py, field, e)),
            };
            Ok(Part {
                field: field.to_string(),
                reference,
                method,
                failure: self.failure.clone(),
            })
        })
    }
}

/// `tcpair.simulate.plugins.PluginSpecError` carries the field and the message; any
/// other exception is shown as it is.
fn load_error(py: Python<'_>, field: &str, e: PyErr) -> ConfigError {
    let v = e.value(py);
    let attr = |n: &str| v.getattr(n).and_then(|a| a.extract::<String>());
    match (attr("path"), attr("message")) {
        (Ok(path), Ok(message)) => ConfigError::new(path, message),
        _ => ConfigError::new(field, e.to_string()),
    }
}

impl Plugins for PyPlugins {
    fn detector(
        &self,
        field: &str,
        spec: &serde_json::Value,
    ) -> Result<Box<dyn Detector>, ConfigError> {
        Ok(Box::new(PyDetector(self.load(field, spec, "detector")?)))
    }

    fn responder(
        &self,
        field: &str,
        spec: &serde_json::Value,
    ) -> Result<Box<dyn Responder>, ConfigError> {
        Ok(Box::new(PyResponder(self.load(
            field,
            spec,
            "responder",
        )?)))
    }
}
