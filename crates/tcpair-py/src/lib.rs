//! Python bindings: `tcpair._core`. A thin, JSON-in/JSON-out boundary so the
//! core stays free of Python types and the contract is easy to test from both
//! sides (python/tcpair/simulate/result.py documents it).

mod plugins;

use plugins::{Failure, PyPlugins};
use pyo3::create_exception;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use tcpair_core::metrics::trace::{TraceChunk, TraceKind, TraceLabels, TraceSink};
use tcpair_core::sim::Sim;
use tcpair_core::SimError;

create_exception!(tcpair._core, ScenarioError, pyo3::exceptions::PyValueError);
create_exception!(
    tcpair._core,
    SimulationError,
    pyo3::exceptions::PyRuntimeError
);
create_exception!(tcpair._core, PluginError, SimulationError);

/// Run a panic-prone closure; a panic becomes a SimulationError, never a crash.
fn guarded<T>(f: impl FnOnce() -> Result<T, SimError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(SimError::Config(e))) => Err(ScenarioError::new_err(e.to_string())),
        // The trace's or pcap's output path is the user's input too.
        Ok(Err(SimError::Output(m))) => Err(ScenarioError::new_err(m)),
        Ok(Err(e)) => Err(SimulationError::new_err(e.to_string())),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown".into());
            Err(SimulationError::new_err(format!(
                "internal error in the simulator (please report it with your scenario): {msg}"
            )))
        }
    }
}

/// Run a scenario given as JSON text; returns the result as JSON text.
///
/// The core asks every few thousand events whether a signal is pending
/// (`Python::check_signals`, which runs Python's handlers): Ctrl-C raises
/// KeyboardInterrupt here within milliseconds and the partial run is dropped.
///
/// Detectors and responders written in Python (`{python = "mod:Class"}`) are
/// called at each decision; the first exception or wrong answer of one stops
/// the run at the next such check and is raised as a PluginError naming the
/// field, the user's exception as its cause.
///
/// `scenario_json` is the text, or a list holding it alone ([`take_text`]).
#[pyfunction]
fn run(py: Python<'_>, scenario_json: &Bound<'_, PyAny>) -> PyResult<String> {
    run_then(py, take_text(scenario_json)?, |sim, stop| {
        // The run's state is freed by now, its tables built: give its pages
        // back before a large answer takes room of its own beside them.
        let mut give_back = |len: usize| {
            if len >= LARGE_ANSWER {
                tcpair_core::engine::malloc::give_back_free_pages();
            }
        };
        Ok(sim.run_checked(stop)?.to_json_text_then(&mut give_back))
    })
}

/// The scenario's JSON text, given as a `str` or handed over in a list that
/// holds it alone (`[text]`), which is left empty. A caller that keeps no
/// other reference to a text it hands over lets Python free it here, before
/// the run's state is built, rather than hold it through the run: 5 MiB at
/// 10,000 flows (docs/performance.md, "The end of a run, and what the
/// caller holds through it").
fn take_text(scenario_json: &Bound<'_, PyAny>) -> PyResult<String> {
    let held = match scenario_json.downcast::<PyList>() {
        Ok(list) if list.len() == 1 => list.call_method0("pop")?,
        Ok(list) => {
            return Err(PyTypeError::new_err(format!(
                "scenario_json: a list must hold the scenario's text alone, got {} items",
                list.len()
            )))
        }
        Err(_) => scenario_json.clone(),
    };
    held.extract()
}

/// An answer of this many bytes or more comes from a large run (thousands of
/// flows): the heap's free pages are given back around it.
const LARGE_ANSWER: usize = 1 << 20;

/// A run's answer, once its state is gone: after a large one (an answer of
/// 1 MiB or more: thousands of flows), the heap's free pages go back to the
/// system before Python decodes the answer beside them
/// (`engine::malloc::give_back_free_pages`); after a small one there is
/// little to give back, and sweeps run thousands of them a second.
fn after_a_run(answer: String) -> String {
    if answer.len() >= LARGE_ANSWER {
        tcpair_core::engine::malloc::give_back_free_pages();
    }
    answer
}

/// [`run`], returning only the summary and the flows (`{"flows": [...],
/// "summary": {...}}`, the same values and key order as in `run`'s answer):
/// what `tcpair run` shows, without building, encoding and decoding tables of
/// tens of thousands of rows it would not show.
#[pyfunction]
fn run_summary(py: Python<'_>, scenario_json: &Bound<'_, PyAny>) -> PyResult<String> {
    run_then(py, take_text(scenario_json)?, |sim, stop| {
        sim.run_summary_json(stop)
    })
}

/// Build the run of the scenario's text outside the GIL (the text and its
/// parsed form dropped before the run's state is built) and answer with
/// `go`, given a `stop` callback that checks for signals.
fn run_then(
    py: Python<'_>,
    text: String,
    go: impl FnOnce(Sim, &mut dyn FnMut() -> bool) -> Result<String, SimError> + Send,
) -> PyResult<String> {
    let mut pending: Option<PyErr> = None;
    let plugins = PyPlugins::default();
    let failure = plugins.failure.clone();
    let out = py.allow_threads(|| {
        guarded(|| {
            let mut stop = || {
                if failure.is_set() {
                    return true;
                }
                match Python::with_gil(|py| py.check_signals()) {
                    Ok(()) => false,
                    Err(e) => {
                        pending = Some(e);
                        true
                    }
                }
            };
            let sim = Sim::from_json_with(&text, &plugins)?;
            drop(text);
            Ok(after_a_run(go(sim, &mut stop)?))
        })
    });
    plugin_failure(py, &failure)?;
    match pending {
        Some(e) => Err(e),
        None => out,
    }
}

/// The run's Python part failed: a PluginError with the user's exception as
/// its cause (its traceback shows the user's file and line).
fn plugin_failure(py: Python<'_>, failure: &Failure) -> PyResult<()> {
    match failure.take() {
        None => Ok(()),
        Some((message, cause)) => {
            let e = PluginError::new_err(message);
            e.set_cause(py, cause);
            Err(e)
        }
    }
}

/// Hands each full chunk of the event trace to a Python callable:
/// `callback(columns, labels)`, `columns` a dict of column name ->
/// little-endian bytes (dtypes in python/tcpair/simulate/trace.py), `labels` a dict
/// of name lists (nodes, dirs, flows, details).
struct PySink(Py<PyAny>);

fn le_bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

impl TraceSink for PySink {
    fn chunk(&mut self, c: &TraceChunk, labels: &TraceLabels) -> Result<(), String> {
        Python::with_gil(|py| {
            let cols = PyDict::new(py);
            let put = |k: &str, b: Vec<u8>| cols.set_item(k, PyBytes::new(py, &b));
            put("time_ns", le_bytes(&c.time, u64::to_le_bytes))?;
            put("kind", c.kind.clone())?;
            put("packet_id", le_bytes(&c.packet_id, i64::to_le_bytes))?;
            put("flow", le_bytes(&c.flow, i32::to_le_bytes))?;
            put("seq", le_bytes(&c.seq, i64::to_le_bytes))?;
            put("size", le_bytes(&c.size, u32::to_le_bytes))?;
            put("is_ack", le_bytes(&c.is_ack, i8::to_le_bytes))?;
            put("origin", le_bytes(&c.origin, i8::to_le_bytes))?;
            put("eln", c.eln.clone())?;
            put("node", le_bytes(&c.node, i32::to_le_bytes))?;
            put("dir", le_bytes(&c.dir, i32::to_le_bytes))?;
            put("queue", le_bytes(&c.queue, i32::to_le_bytes))?;
            put("detail", le_bytes(&c.detail, u16::to_le_bytes))?;
            put("value", le_bytes(&c.value, i64::to_le_bytes))?;
            put("cwnd", le_bytes(&c.cwnd, f64::to_le_bytes))?;
            put("ssthresh", le_bytes(&c.ssthresh, f64::to_le_bytes))?;
            let lab = PyDict::new(py);
            lab.set_item("nodes", &labels.nodes)?;
            lab.set_item("dirs", &labels.dirs)?;
            lab.set_item("flows", &labels.flows)?;
            lab.set_item("details", &labels.details)?;
            let kinds: Vec<&str> = TraceKind::ALL.iter().map(|k| k.name()).collect();
            lab.set_item("kinds", kinds)?;
            self.0.call1(py, (cols, lab)).map(|_| ())
        })
        .map_err(|e: PyErr| format!("writing the event trace: {e}"))
    }
}

/// Run a scenario with `[trace]`, handing the trace's chunks to `callback`
/// as they fill; returns the result as JSON text.
#[pyfunction]
fn run_traced(
    py: Python<'_>,
    scenario_json: &Bound<'_, PyAny>,
    callback: Py<PyAny>,
) -> PyResult<String> {
    let text = take_text(scenario_json)?;
    let plugins = PyPlugins::default();
    let failure = plugins.failure.clone();
    let out = py.allow_threads(|| {
        guarded(|| {
            let mut sim = Sim::from_json_with(&text, &plugins)?;
            drop(text);
            sim.set_trace_sink(Box::new(PySink(callback)));
            let mut stop = || failure.is_set();
            Ok(after_a_run(sim.run_checked(&mut stop)?.to_json_text()))
        })
    });
    plugin_failure(py, &failure)?;
    out
}

/// Validate a scenario; returns it normalized (defaults filled in, base
/// units: seconds, bit/s) as JSON; errors name list elements by `name`.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<String> {
    let plugins = PyPlugins::default();
    guarded(|| Ok(tcpair_core::validate_json_with(scenario_json, &plugins)?.to_string()))
}

/// Names of variants, error models and impairments, as JSON.
#[pyfunction]
fn catalog() -> String {
    tcpair_core::catalog().to_string()
}

/// The bare-heap limit on this machine (`tcpair_core::sim::bare_heap`): events
/// per wall second of an event loop that only pops and reschedules `pending`
/// events of the core's size in the core's queue, over `events` events; and
/// the bytes of one queued event.
#[pyfunction]
fn bare_heap(py: Python<'_>, events: u64, pending: usize) -> PyResult<(f64, usize)> {
    if pending == 0 || events == 0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "bare_heap: events and pending must be at least 1",
        ));
    }
    Ok(py.allow_threads(|| tcpair_core::sim::bare_heap::events_per_s(events, pending)))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_summary, m)?)?;
    m.add_function(wrap_pyfunction!(bare_heap, m)?)?;
    m.add_function(wrap_pyfunction!(run_traced, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("PluginError", m.py().get_type::<PluginError>())?;
    m.add_class::<plugins::Context>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Fingerprint of the simulator's sources (build.rs): part of every
    // stored run's key, so results never outlive the code that made them.
    m.add("__build__", env!("TCPAIR_SOURCE_HASH"))?;
    Ok(())
}
