//! A flow's sender: `variant` and the `tcp` table to a [`TcpConfig`], with
//! its congestion op, detector and responder built from their registries.

use super::plugins::{self, Plugins};
use super::{check_secs, err, FlowSpec, Quantity, Sizes, TcpSpec};
use crate::engine::{secs, Time};
use crate::error::{count_in_range, plain_name, ConfigError};
use crate::limits;
use crate::registry::{self, Builder, Entry};
use crate::schemes::clrp::mh::MhConfig;
use crate::tcp::{cc, detect, respond, Preset, RespondPer, RtoEstimatorKind, TcpConfig, VARIANTS};

/// The preset a flow's `variant` names.
pub(super) fn preset(p: &str, variant: &str) -> Result<Preset, ConfigError> {
    VARIANTS
        .iter()
        .find(|v| v.name == variant)
        .map(|v| v.build)
        .ok_or_else(|| {
            err(
                format!("{p}.variant"),
                format!(
                    "unknown TCP variant {variant:?} (known: {})",
                    registry::names(VARIANTS)
                ),
            )
        })
}

/// The sender of flow `p` (`flows[i]`).
pub(super) fn config(
    p: &str,
    f: &FlowSpec,
    sizes: Sizes,
    preset: Preset,
    plugins: &dyn Plugins,
) -> Result<TcpConfig, ConfigError> {
    let t = &f.tcp;
    let path = format!("{p}.tcp");
    let ext = External {
        plugins,
        path: shown(p, f),
    };
    let d = TcpConfig::default();
    let secs_or = |key: &str, q: &Option<Quantity>, dflt: Time| -> Result<Time, ConfigError> {
        match q {
            None => Ok(dflt),
            Some(q) => Ok(secs(check_secs(&format!("{path}.{key}"), q, false)?)),
        }
    };
    let cfg = TcpConfig {
        recovery: preset.recovery,
        cc: congestion(&path, &f.variant, t, preset)?,
        detector: detector(&path, &f.variant, t, preset, &ext)?,
        responder: match &t.responder {
            None => d.responder.clone(),
            Some(v) if plugins::is_plugin(v) => {
                plugins.responder(&format!("{}.responder", ext.path), v)?
            }
            Some(v) => build_part(
                respond::REGISTRY,
                v,
                "responder",
                &format!("{path}.responder"),
            )?,
        },
        // `"hole"` (default) or `"window"`.
        respond_per: named(
            &path,
            "respond_per",
            t.respond_per.as_deref(),
            RespondPer::Hole,
            RespondPer::parse,
            RespondPer::NAMES,
        )?,
        window: sizes.window,
        packet_size: sizes.packet,
        initial_cwnd: t.initial_cwnd.unwrap_or(d.initial_cwnd),
        initial_ssthresh: t.initial_ssthresh.unwrap_or(d.initial_ssthresh),
        dupack_threshold: t.dupack_threshold.unwrap_or(d.dupack_threshold),
        limited_transmit: t.limited_transmit.unwrap_or(d.limited_transmit),
        initial_rto: secs_or("initial_rto", &t.initial_rto, d.initial_rto)?,
        min_rto: secs_or("min_rto", &t.min_rto, d.min_rto)?,
        max_rto: secs_or("max_rto", &t.max_rto, d.max_rto)?,
        granularity: secs_or("granularity", &t.granularity, d.granularity)?,
        max_backoff: t.max_backoff.unwrap_or(d.max_backoff),
        rto_estimator: named(
            &path,
            "rto_estimator",
            t.rto_estimator.as_deref(),
            RtoEstimatorKind::Rfc6298,
            RtoEstimatorKind::parse,
            RtoEstimatorKind::NAMES,
        )?,
        total_segments: f.segments,
        clrp: clrp(&path, t)?,
    };
    check(&path, &cfg)?;
    Ok(cfg)
}

/// The builder of parts written outside the core, and the flow's `tcp`
/// table as users address it (`flows.tcp1.tcp`: flow names are unique).
struct External<'a> {
    plugins: &'a dyn Plugins,
    path: String,
}

fn shown(p: &str, f: &FlowSpec) -> String {
    match f.name.as_deref() {
        Some(n) if plain_name(n) => format!("flows.{n}.tcp"),
        _ => format!("{p}.tcp"),
    }
}

/// Build the part `v` chooses from `entries` (`what` and `path` for messages).
fn build_part<T: ?Sized>(
    entries: &[Entry<Builder<T>>],
    v: &serde_json::Value,
    what: &str,
    path: &str,
) -> Result<Box<T>, ConfigError> {
    let (entry, params) = registry::pick(entries, v, what, path)?;
    (entry.build)(&params).map_err(|e| e.within(path))
}

/// The congestion op: the variant's, unless `tcp.congestion` names one
/// (which the variant must leave open: tahoe, reno, newreno or sack).
fn congestion(
    path: &str,
    variant: &str,
    t: &TcpSpec,
    preset: Preset,
) -> Result<Box<dyn cc::CongestionOps>, ConfigError> {
    let key = format!("{path}.congestion");
    match &t.congestion {
        None => build_part(
            cc::REGISTRY,
            &preset.congestion.into(),
            "congestion op",
            &key,
        ),
        Some(v) => {
            let op = build_part(cc::REGISTRY, v, "congestion op", &key)?;
            if preset.congestion != "reno" && op.name() != preset.congestion {
                return Err(err(
                    key,
                    format!(
                        "variant {variant:?} already selects the congestion op {:?}, got {:?}; \
                         name a recovery variant (tahoe, reno, newreno, sack) to combine it \
                         with another op",
                        preset.congestion,
                        op.name()
                    ),
                ));
            }
            Ok(op)
        }
    }
}

/// The detector: `tcp.detector`, else the variant's (`pr`, `pr_star`), or
/// `eln` when `tcp.eln = true` (an alias kept so that stored sweeps still
/// resolve). A variant with a detector accepts only that one (with its
/// parameters).
fn detector(
    path: &str,
    variant: &str,
    t: &TcpSpec,
    preset: Preset,
    ext: &External,
) -> Result<Box<dyn detect::Detector>, ConfigError> {
    let key = format!("{path}.detector");
    let d = match &t.detector {
        None => serde_json::Value::from(preset.detector),
        Some(v) => v.clone(),
    };
    let det = if plugins::is_plugin(&d) {
        ext.plugins
            .detector(&format!("{}.detector", ext.path), &d)?
    } else {
        build_part(detect::REGISTRY, &d, "detector", &key)?
    };
    if preset.detector != "none" && det.name() != preset.detector {
        return Err(err(
            key,
            format!(
                "variant {variant:?} already selects the detector {:?}, got {:?}; \
                 name a recovery variant (tahoe, reno, newreno, sack) to combine it \
                 with another detector",
                preset.detector,
                det.name()
            ),
        ));
    }
    match (t.eln, det.name()) {
        (Some(true), "eln") => Ok(det),
        (Some(true), "none") if t.detector.is_none() => {
            build_part(detect::REGISTRY, &"eln".into(), "detector", &key)
        }
        (Some(true), other) => Err(err(
            format!("{path}.eln"),
            format!(
                "true means detector \"eln\", but tcp.detector is {other:?}; set one of the two"
            ),
        )),
        _ => Ok(det),
    }
}

/// A key of `tcp` naming one of a fixed set of values (`parse`, listed in
/// `names`); `default` when absent.
fn named<T>(
    path: &str,
    key: &str,
    value: Option<&str>,
    default: T,
    parse: fn(&str) -> Option<T>,
    names: &str,
) -> Result<T, ConfigError> {
    match value {
        None => Ok(default),
        Some(v) => parse(v).ok_or_else(|| {
            err(
                format!("{path}.{key}"),
                format!("unknown value {v:?} (known: {names})"),
            )
        }),
    }
}

/// TCP-MH's sender part (CLRP), if `tcp.clrp`.
fn clrp(path: &str, t: &TcpSpec) -> Result<Option<MhConfig>, ConfigError> {
    let d = MhConfig::default();
    let rxmit_threshold = count_in_range(
        &format!("{path}.clrp_rxmit_threshold"),
        t.clrp_rxmit_threshold.unwrap_or(d.rxmit_threshold.into()),
        1,
        1000,
    )?;
    Ok(t.clrp.unwrap_or(false).then_some(MhConfig {
        rxmit_threshold,
        inflate: t.clrp_inflate.unwrap_or(d.inflate),
    }))
}

/// Ranges of the numeric sender settings.
fn check(path: &str, cfg: &TcpConfig) -> Result<(), ConfigError> {
    let max = f64::from(limits::MAX_PACKETS);
    if !cfg.initial_cwnd.is_finite() || !(1.0..=max).contains(&cfg.initial_cwnd) {
        return Err(err(
            format!("{path}.initial_cwnd"),
            format!("must be from 1 to {max} packets, got {}", cfg.initial_cwnd),
        ));
    }
    if cfg.initial_ssthresh.is_nan() || cfg.initial_ssthresh < 2.0 {
        return Err(err(
            format!("{path}.initial_ssthresh"),
            format!("must be at least 2 packets, got {}", cfg.initial_ssthresh),
        ));
    }
    if cfg.dupack_threshold == 0 {
        return Err(err(
            format!("{path}.dupack_threshold"),
            "must be at least 1, got 0",
        ));
    }
    if cfg.min_rto > cfg.max_rto {
        return Err(err(
            format!("{path}.min_rto"),
            format!(
                "must not exceed max_rto ({} s), got {} s",
                crate::engine::to_secs(cfg.max_rto),
                crate::engine::to_secs(cfg.min_rto)
            ),
        ));
    }
    if cfg.max_backoff == 0 {
        return Err(err(
            format!("{path}.max_backoff"),
            "must be at least 1, got 0",
        ));
    }
    Ok(())
}
