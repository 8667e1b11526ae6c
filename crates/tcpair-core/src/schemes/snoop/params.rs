//! Snoop's parameters (`{ agent = "snoop", cache, max_local_rtx, min_rto,
//! initial_rto, max_backoff }`), their defaults (ns-2's snoop.cc where it has one) and
//! their validation.

use crate::engine::{secs, Time, MS};
use crate::error::{from_value, ConfigError, Shown};
use crate::units::Quantity;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    cache: Option<i64>,
    max_local_rtx: Option<i64>,
    min_rto: Option<Quantity>,
    initial_rto: Option<Quantity>,
    max_backoff: Option<i64>,
}

/// Snoop's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnoopParams {
    /// Packets cached per connection (ns-2 snoop.cc: 100).
    pub cache: usize,
    /// Local retransmissions per packet before it is left to the sender
    /// (ns-2 snoop.cc: 10).
    pub max_local_rtx: u32,
    /// Floor of the local RTO.
    pub min_rto: Time,
    /// Local RTO before the first RTT sample of the wireless hop.
    pub initial_rto: Time,
    /// Largest exponent of the local timer's backoff (doubling per local
    /// timeout, reset by a clean RTT sample); 0: none (Amir et al. 1995 §3
    /// describes none).
    pub max_backoff: u32,
}

impl Default for SnoopParams {
    fn default() -> Self {
        Self {
            cache: 100,
            max_local_rtx: 10,
            min_rto: 20 * MS,
            initial_rto: 100 * MS,
            max_backoff: 0,
        }
    }
}

pub(super) fn seconds(field: &str, q: &Option<Quantity>, dflt: Time) -> Result<Time, ConfigError> {
    let Some(q) = q else { return Ok(dflt) };
    let v = q.as_secs().map_err(|m| ConfigError::new(field, m))?;
    if !v.is_finite() || v <= 0.0 || v > 3600.0 {
        return Err(ConfigError::new(
            field,
            format!(
                "must be a number of seconds > 0 (at most 3600), got {}",
                Shown(v)
            ),
        ));
    }
    Ok(secs(v).max(1))
}

pub(super) fn parse(v: &serde_json::Value) -> Result<SnoopParams, ConfigError> {
    let c: Config = from_value(v)?;
    let d = SnoopParams::default();
    let cache = match c.cache {
        None => d.cache,
        Some(n) if (1..=1_000_000).contains(&n) => n as usize,
        Some(n) => {
            return Err(ConfigError::new(
                "cache",
                format!("must be 1..=1000000 packets, got {n}"),
            ))
        }
    };
    let max_local_rtx = match c.max_local_rtx {
        None => d.max_local_rtx,
        Some(n) if (0..=1000).contains(&n) => n as u32,
        Some(n) => {
            return Err(ConfigError::new(
                "max_local_rtx",
                format!("must be 0..=1000, got {n}"),
            ))
        }
    };
    let max_backoff = match c.max_backoff {
        None => d.max_backoff,
        Some(n) if (0..=16).contains(&n) => n as u32,
        Some(n) => {
            return Err(ConfigError::new(
                "max_backoff",
                format!("must be 0..=16 (doublings of the local timer), got {n}"),
            ))
        }
    };
    Ok(SnoopParams {
        cache,
        max_backoff,
        max_local_rtx,
        min_rto: seconds("min_rto", &c.min_rto, d.min_rto)?,
        initial_rto: seconds("initial_rto", &c.initial_rto, d.initial_rto)?,
    })
}
