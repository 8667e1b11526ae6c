//! The `[mobility]` table: a mobile host attached to one base station at a
//! time, its handoffs, and the routes of its flows at each base station, as
//! Mobile IP routes them (Perkins 1996, RFC 2002 §1.7 and §4.2): packets for
//! the host go to its home agent, which tunnels them to the foreign agent
//! while the host is away; the host's own packets leave through the base
//! station it is attached to. With `route_optimization` correspondents send
//! straight to the current base station (they are taken to know its address
//! at once), and the home agent is bypassed.

use super::topo::lookup;
use super::{check_secs, err, FlowPlan, MobilitySpec};
use crate::engine::{secs, Time};
use crate::error::ConfigError;
use crate::net::{shortest_path_avoiding, DirId, LinkKind, NodeKind, Topology};
use crate::packet::NodeId;

/// A base station the mobile host can attach to, and its wireless hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseStation {
    pub node: NodeId,
    /// BS -> host.
    pub down: DirId,
    /// Host -> BS.
    pub up: DirId,
}

/// One validated handoff: detached over `[start, end)`, attached to `to`
/// from `end` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handoff {
    pub start: Time,
    pub end: Time,
    pub from: NodeId,
    pub to: NodeId,
}

/// A validated `[mobility]` table.
#[derive(Debug, Clone)]
pub struct MobilityPlan {
    pub host: NodeId,
    pub home: NodeId,
    pub route_optimization: bool,
    pub stations: Vec<BaseStation>,
    pub handoffs: Vec<Handoff>,
    /// Freeze-TCP: (flow index, warning) for each flow the host receives.
    pub freeze: Vec<(usize, Time)>,
    /// BS agents hand their state to the new BS at each handoff's end.
    pub move_state: bool,
}

/// A flow's paths while the host is attached to base station `bs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachPaths {
    pub bs: NodeId,
    pub data: Vec<DirId>,
    pub ack: Vec<DirId>,
}

/// Validate `spec.mobility` and give each flow to or from the mobile host
/// its paths at every base station (those at home become its initial ones).
pub(super) fn build(
    m: &MobilitySpec,
    topo: &Topology,
    flows: &mut [FlowPlan],
    duration: f64,
) -> Result<MobilityPlan, ConfigError> {
    let host = lookup(topo, "mobility.host", &m.host)?;
    let stations = stations(topo, host, &m.host)?;
    let home = lookup(topo, "mobility.home", &m.home)?;
    let bs_of = |path: &str, node: NodeId, name: &str| {
        if stations.iter().any(|s| s.node == node) {
            Ok(node)
        } else {
            Err(err(
                path,
                format!(
                    "node {name:?} is not a base station of the mobile host {:?} (no wireless \
                     link joins them; base stations: {})",
                    m.host,
                    names(topo, &stations)
                ),
            ))
        }
    };
    bs_of("mobility.home", home, &m.home)?;
    let mut handoffs: Vec<Handoff> = Vec::with_capacity(m.handoffs.len());
    let mut at_bs = home;
    for (i, h) in m.handoffs.iter().enumerate() {
        let p = format!("mobility.handoffs[{i}]");
        let to = lookup(topo, &format!("{p}.to"), &h.to)?;
        bs_of(&format!("{p}.to"), to, &h.to)?;
        if to == at_bs {
            return Err(err(
                format!("{p}.to"),
                format!("the mobile host is already at {:?} then", h.to),
            ));
        }
        let at = check_secs(&format!("{p}.at"), &h.at, true)?;
        let delay = check_secs(&format!("{p}.delay"), &h.delay, true)?;
        if at + delay >= duration {
            return Err(err(
                format!("{p}.at"),
                format!(
                    "the handoff ({at} s plus a delay of {delay} s) must end before the run \
                     does ({duration} s)"
                ),
            ));
        }
        if let Some(prev) = handoffs.last() {
            if secs(at) < prev.end {
                return Err(err(
                    format!("{p}.at"),
                    format!(
                        "{at} s overlaps the handoff before it, which ends at {} s",
                        crate::engine::to_secs(prev.end)
                    ),
                ));
            }
        }
        handoffs.push(Handoff {
            start: secs(at),
            end: secs(at + delay),
            from: at_bs,
            to,
        });
        at_bs = to;
    }
    let mut plan = MobilityPlan {
        host,
        home,
        route_optimization: m.route_optimization,
        stations,
        handoffs,
        freeze: Vec::new(),
        move_state: m.move_state,
    };
    for (i, f) in flows.iter_mut().enumerate() {
        attach_paths(&plan, topo, f, &format!("flows[{i}]"))?;
    }
    let warning = match &m.freeze_warning {
        Some(q) => Some(secs(check_secs("mobility.freeze_warning", q, true)?)),
        None => None,
    };
    if m.freeze {
        plan.freeze = flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.dst == host)
            .map(|(i, f)| (i, warning.unwrap_or_else(|| base_rtt(topo, f))))
            .collect();
    }
    Ok(plan)
}

/// The round-trip time of `f`'s paths without queueing: transmission and
/// propagation of a data packet out and of an ACK back.
fn base_rtt(topo: &Topology, f: &FlowPlan) -> Time {
    let one = |path: &[DirId], size: u32| -> Time {
        path.iter()
            .map(|&d| {
                let d = &topo.dirs[d as usize];
                d.tx_time(size) + d.delay
            })
            .sum()
    };
    one(&f.data_path, f.packet_size) + one(&f.ack_path, f.ack_size)
}

/// The base stations of `host`: the far ends of its links, which must all be
/// wireless point-to-point links.
fn stations(topo: &Topology, host: NodeId, name: &str) -> Result<Vec<BaseStation>, ConfigError> {
    if topo.nodes[host as usize].kind != NodeKind::Host {
        return Err(err(
            "mobility.host",
            format!("node {name:?} is a router; the mobile host must be a host"),
        ));
    }
    let mut out: Vec<BaseStation> = Vec::new();
    for (i, d) in topo.dirs.iter().enumerate() {
        if d.from != host {
            continue;
        }
        if d.kind != LinkKind::Wireless || d.medium.is_some() {
            return Err(err(
                "mobility.host",
                format!(
                    "the mobile host {name:?} must reach its base stations over wireless \
                     point-to-point links only; link {:?} is not one",
                    topo.link_names[d.link as usize]
                ),
            ));
        }
        // Link directions come in pairs: 2k forward, 2k + 1 reverse.
        let down = (i ^ 1) as DirId;
        out.push(BaseStation {
            node: d.to,
            down,
            up: i as DirId,
        });
    }
    if out.len() < 2 {
        return Err(err(
            "mobility.host",
            format!(
                "the mobile host {name:?} needs wireless links to at least two base stations, \
                 found {}",
                out.len()
            ),
        ));
    }
    Ok(out)
}

fn names(topo: &Topology, stations: &[BaseStation]) -> String {
    let v: Vec<&str> = stations
        .iter()
        .map(|s| topo.nodes[s.node as usize].name.as_str())
        .collect();
    v.join(", ")
}

/// Fill in `f`'s paths at every base station if it starts or ends at the host.
fn attach_paths(
    m: &MobilityPlan,
    topo: &Topology,
    f: &mut FlowPlan,
    p: &str,
) -> Result<(), ConfigError> {
    let toward_host = f.dst == m.host;
    if !toward_host && f.src != m.host {
        return Ok(());
    }
    let other = if toward_host { f.src } else { f.dst };
    for s in &m.stations {
        let to_host = path_to_host(m, topo, other, s).ok_or_else(|| no_route(topo, p, other, s))?;
        let from_host =
            path_from_host(m, topo, other, s).ok_or_else(|| no_route(topo, p, other, s))?;
        let (data, ack) = if toward_host {
            (to_host, from_host)
        } else {
            (from_host, to_host)
        };
        if s.node == m.home {
            f.data_path = data.clone();
            f.ack_path = ack.clone();
        }
        f.attach.push(AttachPaths {
            bs: s.node,
            data,
            ack,
        });
    }
    Ok(())
}

fn no_route(topo: &Topology, p: &str, other: NodeId, s: &BaseStation) -> ConfigError {
    err(
        format!("{p}.src"),
        format!(
            "no route between {:?} and base station {:?} that avoids the mobile host",
            topo.nodes[other as usize].name, topo.nodes[s.node as usize].name
        ),
    )
}

/// From `other` to the host at `s`: through the home agent (tunnelled from
/// there to a foreign agent) unless routes are optimised.
fn path_to_host(
    m: &MobilityPlan,
    topo: &Topology,
    other: NodeId,
    s: &BaseStation,
) -> Option<Vec<DirId>> {
    let avoid = Some(m.host);
    let mut path = if m.route_optimization || s.node == m.home {
        shortest_path_avoiding(topo, other, s.node, avoid)?
    } else {
        let mut p = shortest_path_avoiding(topo, other, m.home, avoid)?;
        p.extend(shortest_path_avoiding(topo, m.home, s.node, avoid)?);
        p
    };
    path.push(s.down);
    Some(path)
}

/// From the host at `s` to `other`: out through `s`.
fn path_from_host(
    m: &MobilityPlan,
    topo: &Topology,
    other: NodeId,
    s: &BaseStation,
) -> Option<Vec<DirId>> {
    let mut path = vec![s.up];
    path.extend(shortest_path_avoiding(topo, s.node, other, Some(m.host))?);
    Some(path)
}
