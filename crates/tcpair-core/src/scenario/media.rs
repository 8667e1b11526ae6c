//! The `[[media]]` tables: shared 802.11b media (see `net::wifi`). Every
//! pair of attached stations within transmission range becomes a duplex
//! hop (two link directions of kind wireless, named `MEDIUM:A-B`), so the
//! ordinary shortest-path routes run hop by hop along a chain.

use super::topo::lookup;
use super::{err, MediumSpec, ScenarioSpec};
use crate::error::{ConfigError, Shown};
use crate::impair::pipeline::ImpairSpec;
use crate::impair::Pipeline;
use crate::limits;
use crate::net::wifi::{Medium, WifiParams};
use crate::net::{LinkDir, LinkKind, Topology};
use crate::registry::{self, Entry};

/// Add every medium of `spec` to `topo` (after the wired links).
pub(super) fn build(spec: &ScenarioSpec, topo: &mut Topology) -> Result<(), ConfigError> {
    for (i, m) in spec.media.iter().enumerate() {
        medium(i, m, spec.run.seed, topo)?;
    }
    Ok(())
}

fn rate(path: String, q: &crate::units::Quantity, allowed: &[f64]) -> Result<u64, ConfigError> {
    let bps = q.as_bps().map_err(|m| err(path.clone(), m))?;
    if !allowed.iter().any(|a| (a - bps).abs() < 1.0) {
        let list: Vec<String> = allowed
            .iter()
            .map(|a| format!("{} Mb/s", a / 1e6))
            .collect();
        return Err(err(
            path,
            format!(
                "unsupported 802.11b rate {bps} bit/s (use {})",
                list.join(", ")
            ),
        ));
    }
    Ok(bps.round() as u64)
}

/// Builds a medium's parameters from its table (`p`: the table's path).
pub type MediumBuilder = fn(&str, &MediumSpec) -> Result<WifiParams, ConfigError>;

/// Every medium kind, by the name a `[[media]]` table gives as `kind`.
pub static MEDIUM_KINDS: &[Entry<MediumBuilder>] = &[Entry {
    name: "wifi",
    summary: "802.11b DCF channel shared by stations at fixed positions; every pair \
              within tx_range is a hop of kind wireless",
    source: "IEEE 802.11-1999 §9.2 and 802.11b DSSS; ns-2's default ranges (docs/wifi.md)",
    build: wifi_params,
}];

fn params(p: &str, m: &MediumSpec) -> Result<WifiParams, ConfigError> {
    let Some(kind) = MEDIUM_KINDS.iter().find(|k| k.name == m.kind) else {
        return Err(err(
            format!("{p}.kind"),
            format!(
                "unknown medium kind {:?} (kinds: {})",
                m.kind,
                registry::names(MEDIUM_KINDS)
            ),
        ));
    };
    (kind.build)(p, m)
}

fn wifi_params(p: &str, m: &MediumSpec) -> Result<WifiParams, ConfigError> {
    if !(0.0..1.0).contains(&m.frame_error) {
        return Err(err(
            format!("{p}.frame_error"),
            format!("must be in [0, 1), got {}", m.frame_error),
        ));
    }
    if !(m.tx_range > 0.0 && m.cs_range >= m.tx_range && m.cs_range.is_finite()) {
        return Err(err(
            format!("{p}.cs_range"),
            format!(
                "need 0 < tx_range <= cs_range, got {} and {}",
                m.tx_range, m.cs_range
            ),
        ));
    }
    Ok(WifiParams {
        data_bps: rate(
            format!("{p}.data_rate"),
            &m.data_rate,
            &[1e6, 2e6, 5.5e6, 11e6],
        )?,
        basic_bps: rate(format!("{p}.basic_rate"), &m.basic_rate, &[1e6, 2e6])?,
        frame_error: m.frame_error,
        rts_cts: m.rts_cts,
        tx_range: m.tx_range,
        cs_range: m.cs_range,
        queue: limits::packets(&format!("{p}.queue"), m.queue, true)?,
        ..WifiParams::default()
    })
}

fn medium(i: usize, m: &MediumSpec, seed: u64, topo: &mut Topology) -> Result<(), ConfigError> {
    let p = format!("media[{i}]");
    let params = params(&p, m)?;
    if m.stations.len() < 2 {
        return Err(err(
            format!("{p}.stations"),
            "a medium needs at least two stations",
        ));
    }
    if m.stations.len() > limits::MAX_STATIONS {
        return Err(err(
            format!("{p}.stations"),
            format!(
                "a medium holds at most {} stations, got {}",
                limits::MAX_STATIONS,
                m.stations.len()
            ),
        ));
    }
    let mut nodes = Vec::new();
    let mut pos = Vec::new();
    for (j, s) in m.stations.iter().enumerate() {
        let sp = format!("{p}.stations[{j}]");
        let id = lookup(topo, &format!("{sp}.node"), &s.node)?;
        if nodes.contains(&id) {
            return Err(err(
                format!("{sp}.node"),
                format!("node {:?} attached twice", s.node),
            ));
        }
        for (k, v) in [("x", s.x), ("y", s.y)] {
            if !v.is_finite() || v < 0.0 {
                return Err(err(
                    format!("{sp}.{k}"),
                    format!("positions are metres >= 0, got {}", Shown(v)),
                ));
            }
        }
        nodes.push(id);
        pos.push((s.x, s.y));
    }
    let mid = topo.media.len() as u32;
    let med = Medium::new(&m.name, params, nodes, pos, seed);
    hops(&p, m, mid, &med, seed, topo)?;
    topo.media.push(med);
    Ok(())
}

/// One duplex hop per station pair within transmission range; an error
/// naming the first station with no neighbour (no route could use it).
fn hops(
    p: &str,
    m: &MediumSpec,
    mid: u32,
    med: &Medium,
    seed: u64,
    topo: &mut Topology,
) -> Result<(), ConfigError> {
    let n = med.nodes.len();
    for a in 0..n {
        if !(0..n).any(|b| b != a && med.distance(a, b) <= med.params.tx_range) {
            return Err(err(
                format!("{p}.stations[{a}]"),
                format!(
                    "node {:?} has no station within tx_range {} m: no route reaches it",
                    m.stations[a].node, med.params.tx_range
                ),
            ));
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            if med.distance(a, b) > med.params.tx_range {
                continue;
            }
            let link = topo.link_names.len() as u32;
            let name = format!("{}:{}-{}", m.name, m.stations[a].node, m.stations[b].node);
            for (fwd, x, y, dp) in [(true, a, b, "forward"), (false, b, a, "reverse")] {
                let imp = ImpairSpec {
                    loss: m.loss.clone(),
                    ..ImpairSpec::default()
                };
                let pipe = Pipeline::build(&imp, p, seed, &format!("wifi/{name}/{dp}"))?;
                let mut d = LinkDir::new(
                    link,
                    fwd,
                    med.nodes[x],
                    med.nodes[y],
                    med.params.data_bps,
                    0,
                    med.params.queue,
                    LinkKind::Wireless,
                    pipe,
                );
                d.medium = Some((mid, x as u16, y as u16));
                topo.dirs.push(d);
            }
            topo.add_link_name(name);
        }
    }
    Ok(())
}
