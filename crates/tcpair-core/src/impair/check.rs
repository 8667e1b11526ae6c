//! Range checks shared by the impairment configs. Field names are relative to
//! the table being parsed; the caller prefixes the scenario path with
//! [`ConfigError::within`].

use crate::error::{ConfigError, Shown};
use crate::limits::time_of;

/// `v` must be a probability.
pub(crate) fn prob(field: &str, v: f64) -> Result<f64, ConfigError> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(ConfigError::new(
            field,
            format!("probability must be in [0, 1], got {}", Shown(v)),
        ))
    }
}

/// `v` must be a finite, strictly positive duration in seconds, within the
/// limits of [`time_of`] (at most `MAX_TIME_S`, not below 1 ns).
pub(crate) fn positive_secs(field: &str, v: f64) -> Result<f64, ConfigError> {
    time_of(field, v, false).map(|_| v)
}

/// `v` must be a finite, non-negative time in seconds, within the limits of
/// [`time_of`].
pub(crate) fn nonneg_secs(field: &str, v: f64) -> Result<f64, ConfigError> {
    time_of(field, v, true).map(|_| v)
}

#[cfg(test)]
pub(crate) mod testutil {
    /// Statistical tolerance used by the tests: `z` standard deviations of an
    /// estimator with variance `var`.
    pub fn tol(z: f64, var: f64) -> f64 {
        z * var.sqrt()
    }
}
