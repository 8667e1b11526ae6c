//! Errors a user can cause. Every one names the offending field (a dotted path
//! into the scenario, e.g. `links[1].forward.loss.p`) and the value.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the field, e.g. `links[0].bandwidth`.
    pub path: String,
    /// What is wrong, mentioning the value.
    pub message: String,
}

impl ConfigError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }

    /// Prefix the path with `parent` (used when a sub-config is parsed on its own).
    pub fn within(mut self, parent: &str) -> Self {
        self.path = if self.path.is_empty() {
            parent.to_string()
        } else if self.path.starts_with('[') {
            format!("{parent}{}", self.path)
        } else {
            format!("{parent}.{}", self.path)
        };
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Errors while running a valid scenario (e.g. the event budget ran out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    Config(ConfigError),
    EventBudgetExceeded { budget: u64, sim_time_s: String },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(e) => write!(f, "{e}"),
            SimError::EventBudgetExceeded { budget, sim_time_s } => write!(
                f,
                "run.event_budget: the budget of {budget} events was used up at simulated time {sim_time_s} s before the run's end; raise run.event_budget or shorten run.duration"
            ),
        }
    }
}

impl std::error::Error for SimError {}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> Self {
        SimError::Config(e)
    }
}

/// `v` if `lo <= v <= hi`, else an error naming `field` and the value.
pub fn in_range<T: PartialOrd + std::fmt::Display>(
    field: &str,
    v: T,
    lo: T,
    hi: T,
) -> Result<T, ConfigError> {
    if lo <= v && v <= hi {
        Ok(v)
    } else {
        Err(ConfigError::new(
            field,
            format!("must be {lo}..={hi}, got {v}"),
        ))
    }
}

/// Deserialize `value` into `T`, reporting the failing field's path.
pub fn from_value<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        ConfigError::new(path, e.into_inner().to_string())
    })
}
