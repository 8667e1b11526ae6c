//! Parameters of `snoop_ns2` (`{ agent = "snoop_ns2", cache, max_local_rtx,
//! snoop_tick, srtt, rttvar, g }`): the Tcl-bound variables of ns-2.35's
//! `Snoop` object and their defaults there (`maxbufs_` 0 meaning 100,
//! `SNOOP_MAX_RXMIT` 10, `snoopTick_` 0.1 s, `srtt_` 0.1 s, `rttvar_`
//! 0.25 s, `g_` 0.125), and their validation.

use super::params::seconds;
use crate::engine::Time;
use crate::error::{from_value, ConfigError};
use crate::units::Quantity;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    cache: Option<i64>,
    max_local_rtx: Option<i64>,
    snoop_tick: Option<Quantity>,
    srtt: Option<Quantity>,
    rttvar: Option<Quantity>,
    g: Option<f64>,
}

/// `snoop_ns2`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ns2Params {
    /// Packets cached per connection (`maxbufs_`, `SNOOP_MAXWIND` = 100).
    pub cache: usize,
    /// Local retransmissions of one packet (`SNOOP_MAX_RXMIT` = 10).
    pub max_local_rtx: u32,
    /// Floor of the local timer, seconds (`snoopTick_`).
    pub snoop_tick: f64,
    /// Smoothed RTT before the first sample, seconds (`srtt_`).
    pub srtt: f64,
    /// Its deviation before the first sample, seconds (`rttvar_`).
    pub rttvar: f64,
    /// Weight of the *old* estimate in the moving averages (`g_`).
    pub g: f64,
}

impl Default for Ns2Params {
    fn default() -> Self {
        Self {
            cache: 100,
            max_local_rtx: 10,
            snoop_tick: 0.1,
            srtt: 0.1,
            rttvar: 0.25,
            g: 0.125,
        }
    }
}

fn secs_of(field: &str, q: &Option<Quantity>, dflt: f64) -> Result<f64, ConfigError> {
    let t: Time = seconds(field, q, (dflt * 1e9) as Time)?;
    Ok(if q.is_some() { t as f64 / 1e9 } else { dflt })
}

fn count(field: &str, v: Option<i64>, lo: i64, hi: i64, dflt: i64) -> Result<i64, ConfigError> {
    match v {
        None => Ok(dflt),
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        Some(n) => Err(ConfigError::new(
            field,
            format!("must be {lo}..={hi}, got {n}"),
        )),
    }
}

pub(super) fn parse(v: &serde_json::Value) -> Result<Ns2Params, ConfigError> {
    let c: Config = from_value(v)?;
    let d = Ns2Params::default();
    let g = c.g.unwrap_or(d.g);
    if !(0.0..1.0).contains(&g) {
        return Err(ConfigError::new(
            "g",
            format!("must be a weight in [0, 1), got {g}"),
        ));
    }
    let tick = secs_of("snoop_tick", &c.snoop_tick, d.snoop_tick)?;
    Ok(Ns2Params {
        cache: count("cache", c.cache, 2, 1_000_000, d.cache as i64)? as usize,
        max_local_rtx: count("max_local_rtx", c.max_local_rtx, 0, 1000, 10)? as u32,
        snoop_tick: tick,
        srtt: secs_of("srtt", &c.srtt, d.srtt)?,
        rttvar: secs_of("rttvar", &c.rttvar, d.rttvar)?,
        g,
    })
}
