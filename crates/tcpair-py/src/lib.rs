//! Python bindings: `tcpair._core`. A thin, JSON-in/JSON-out boundary so the
//! core stays free of Python types and the contract is easy to test from both
//! sides (python/tcpair/api.py documents it).

use pyo3::create_exception;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tcpair_core::SimError;

create_exception!(tcpair._core, ScenarioError, pyo3::exceptions::PyValueError);
create_exception!(
    tcpair._core,
    SimulationError,
    pyo3::exceptions::PyRuntimeError
);

/// Run a panic-prone closure; a panic becomes a SimulationError, never a crash.
fn guarded<T>(f: impl FnOnce() -> Result<T, SimError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(SimError::Config(e))) => Err(ScenarioError::new_err(e.to_string())),
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
#[pyfunction]
fn run(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let text = scenario_json.to_owned();
    let mut pending: Option<PyErr> = None;
    let out = py.allow_threads(|| {
        guarded(|| {
            let mut stop = || match Python::with_gil(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    pending = Some(e);
                    true
                }
            };
            let r = tcpair_core::sim::run_json_checked(&text, &mut stop)?;
            Ok(r.to_json().to_string())
        })
    });
    match pending {
        Some(e) => Err(e),
        None => out,
    }
}

/// Validate a scenario; returns it normalized (defaults filled in, base
/// units: seconds, bit/s) as JSON; errors name list elements by `name`.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<String> {
    guarded(|| Ok(tcpair_core::validate_json(scenario_json)?.to_string()))
}

/// Names of variants, error models and impairments, as JSON.
#[pyfunction]
fn catalog() -> String {
    tcpair_core::catalog().to_string()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Fingerprint of the simulator's sources (build.rs): part of every
    // stored run's key, so results never outlive the code that made them.
    m.add("__build__", env!("TCPAIR_SOURCE_HASH"))?;
    Ok(())
}
