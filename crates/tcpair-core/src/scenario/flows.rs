//! The `[[flows]]` tables: end points, sizes, routes, the sender (`tcp`) and
//! the receiver, and the BS agents a flow's scheme parts need on its path.

use super::plugins::Plugins;
use super::topo::lookup;
use super::{check_secs, err, tcp, FlowPlan, FlowSpec, ScenarioSpec, Sizes};
use crate::engine::{secs, stream, Time};
use crate::error::{count_in_range, ConfigError, Shown};
use crate::limits;
use crate::net::{DirId, LinkKind, NodeKind, Router, Topology};
use crate::packet::NodeId;
use crate::schemes::syndrome::receiver::UnusedCredit;
use crate::tcp::{Recovery, SinkConfig};
use rand::Rng;
use std::collections::HashSet;

/// Build every flow of `spec` (fills in default flow names).
pub(super) fn build(
    spec: &mut ScenarioSpec,
    topo: &Topology,
    duration: f64,
    plugins: &dyn Plugins,
) -> Result<Vec<FlowPlan>, ConfigError> {
    if spec.flows.is_empty() {
        return Err(err("flows", "a scenario needs at least one flow"));
    }
    let agents = AgentNodes::of(spec);
    let seed = spec.run.seed;
    let mut router = Router::new(topo);
    let mut names = HashSet::with_capacity(spec.flows.len());
    let mut flows: Vec<FlowPlan> = Vec::with_capacity(spec.flows.len());
    for (i, f) in spec.flows.iter_mut().enumerate() {
        let p = format!("flows[{i}]");
        let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
        if !names.insert(name.clone()) {
            return Err(err(
                format!("{p}.name"),
                format!("duplicate flow name {name:?}"),
            ));
        }
        f.name = Some(name.clone());
        let ctx = Ctx {
            topo,
            duration,
            seed,
            agents: &agents,
            plugins,
        };
        flows.push(flow(&p, name, f, &ctx, &mut router)?);
    }
    Ok(flows)
}

/// What every flow is built against.
struct Ctx<'a> {
    topo: &'a Topology,
    duration: f64,
    seed: u64,
    agents: &'a AgentNodes,
    plugins: &'a dyn Plugins,
}

fn flow(
    p: &str,
    name: String,
    f: &mut FlowSpec,
    ctx: &Ctx,
    router: &mut Router,
) -> Result<FlowPlan, ConfigError> {
    let Ctx {
        topo,
        duration,
        seed,
        agents,
        plugins,
    } = *ctx;
    let (src, dst) = end_points(p, f, topo)?;
    let preset = tcp::preset(p, &f.variant)?;
    let (start, send_jitter) = start_and_jitter(p, &name, f, duration, seed)?;
    let sizes = check_sizes(p, f)?;
    let (data_path, ack_path) = routes(p, f, router, src, dst)?;
    let tcp = tcp::config(p, f, sizes, preset, plugins)?;
    let sink = sink(p, f, tcp.recovery)?;
    f.sink.sack = Some(sink.sack);
    let needs = [
        (
            f.sink.syndrome,
            "sink.syndrome",
            "syndrome",
            &agents.syndrome,
        ),
        (f.sink.clrp, "sink.clrp", "clrp", &agents.clrp),
        (tcp.clrp.is_some(), "tcp.clrp", "clrp", &agents.clrp),
    ];
    for (on, key, agent, nodes) in needs {
        if let (true, Some(n)) = (on, agent_missing(agent, topo, &data_path, nodes)) {
            return Err(err(format!("{p}.{key}"), n));
        }
    }
    if tcp.recovery == Recovery::Sack && !sink.sack {
        return Err(err(
            format!("{p}.sink.sack"),
            "the sack variant needs a SACK receiver, got false",
        ));
    }
    Ok(FlowPlan {
        name,
        variant: f.variant.clone(),
        src,
        dst,
        start,
        send_jitter,
        packet_size: sizes.packet,
        ack_size: sizes.ack,
        tcp,
        sink,
        data_path,
        ack_path,
        attach: Vec::new(),
    })
}

/// The flow's start time (its jitter drawn from stream `flow/<name>/start`)
/// and its per-packet sending jitter, both in ns.
fn start_and_jitter(
    p: &str,
    name: &str,
    f: &FlowSpec,
    duration: f64,
    seed: u64,
) -> Result<(Time, Time), ConfigError> {
    let start = check_secs(&format!("{p}.start"), &f.start, true)?;
    let jitter = check_secs(&format!("{p}.start_jitter"), &f.start_jitter, true)?;
    if start + jitter >= duration {
        let key = if jitter > 0.0 {
            "start_jitter"
        } else {
            "start"
        };
        return Err(err(
            format!("{p}.{key}"),
            format!(
                "start ({start} s) plus start_jitter ({jitter} s) must end before the run does ({duration} s)"
            ),
        ));
    }
    let send = check_secs(&format!("{p}.send_jitter"), &f.send_jitter, true)?;
    if send > 0.0 && secs(send) == 0 {
        return Err(err(
            format!("{p}.send_jitter"),
            format!(
                "must be 0 or at least 1 ns (the time resolution), got {}",
                Shown(send)
            ),
        ));
    }
    let mut t = secs(start);
    let j = secs(jitter);
    if j > 0 {
        t += stream(seed, &format!("flow/{name}/start")).gen_range(0..j);
    }
    Ok((t, secs(send)))
}

/// Source and destination: two different hosts.
fn end_points(p: &str, f: &FlowSpec, topo: &Topology) -> Result<(NodeId, NodeId), ConfigError> {
    let src = lookup(topo, &format!("{p}.src"), &f.src)?;
    let dst = lookup(topo, &format!("{p}.dst"), &f.dst)?;
    for (node, key) in [(src, "src"), (dst, "dst")] {
        if topo.nodes[node as usize].kind != NodeKind::Host {
            return Err(err(
                format!("{p}.{key}"),
                format!(
                    "node {:?} is a router; flows start and end at hosts",
                    topo.nodes[node as usize].name
                ),
            ));
        }
    }
    if src == dst {
        return Err(err(
            format!("{p}.dst"),
            format!(
                "a flow needs two different end points, got {:?} twice",
                f.dst
            ),
        ));
    }
    Ok((src, dst))
}

/// A packet's largest size on the wire (an IPv4 datagram's), in bytes.
const MAX_PACKET_BYTES: u64 = 65_535;

fn check_sizes(p: &str, f: &FlowSpec) -> Result<Sizes, ConfigError> {
    if f.ack_size >= MAX_PACKET_BYTES {
        // An ACK must be smaller than the largest data packet.
        return Err(err(
            format!("{p}.ack_size"),
            format!(
                "must be smaller than packet_size, at most {} bytes, got {}",
                MAX_PACKET_BYTES - 1,
                f.ack_size
            ),
        ));
    }
    if f.packet_size <= f.ack_size || f.packet_size > MAX_PACKET_BYTES {
        return Err(err(
            format!("{p}.packet_size"),
            format!(
                "must be larger than ack_size ({}) and at most {MAX_PACKET_BYTES} bytes, got {}",
                f.ack_size, f.packet_size
            ),
        ));
    }
    if f.ack_size == 0 {
        return Err(err(
            format!("{p}.ack_size"),
            "must be at least 1 byte, got 0",
        ));
    }
    let window = limits::packets(&format!("{p}.window"), f.window, false)?;
    if f.segments == Some(0) {
        return Err(err(
            format!("{p}.segments"),
            "a finite transfer needs at least 1 segment, got 0; omit the key for a bulk source",
        ));
    }
    // Both checked above: ack_size < packet_size <= MAX_PACKET_BYTES.
    let bytes = |v: u64| u32::try_from(v).expect("a checked size");
    Ok(Sizes {
        packet: bytes(f.packet_size),
        ack: bytes(f.ack_size),
        window,
    })
}

/// The data path src -> dst and the ACK path back.
fn routes(
    p: &str,
    f: &FlowSpec,
    router: &mut Router,
    src: NodeId,
    dst: NodeId,
) -> Result<(Vec<DirId>, Vec<DirId>), ConfigError> {
    let data = router.path(src, dst, None).ok_or_else(|| {
        err(
            format!("{p}.dst"),
            format!("no route from {:?} to {:?}", f.src, f.dst),
        )
    })?;
    let ack = router.path(dst, src, None).ok_or_else(|| {
        err(
            format!("{p}.src"),
            format!("no route for ACKs from {:?} back to {:?}", f.dst, f.src),
        )
    })?;
    check_hops(&format!("{p}.dst"), &data)?;
    check_hops(&format!("{p}.src"), &ack)?;
    Ok((data, ack))
}

/// A packet counts its hops in 16 bits: a longer route is refused.
fn check_hops(field: &str, path: &[DirId]) -> Result<(), ConfigError> {
    if path.len() > limits::MAX_HOPS {
        return Err(err(
            field,
            format!(
                "the route has {} hops; at most {} are supported",
                path.len(),
                limits::MAX_HOPS
            ),
        ));
    }
    Ok(())
}

/// The receiver: the `sink` table.
fn sink(p: &str, f: &FlowSpec, recovery: Recovery) -> Result<SinkConfig, ConfigError> {
    let s = &f.sink;
    let unused = match s.syndrome_unused_credit.as_str() {
        "keep" => UnusedCredit::Keep,
        "drop" => UnusedCredit::Drop,
        other => {
            return Err(err(
                format!("{p}.sink.syndrome_unused_credit"),
                format!("must be \"keep\" or \"drop\", got {other:?}"),
            ))
        }
    };
    let delack = check_secs(
        &format!("{p}.sink.delack_timeout"),
        &s.delack_timeout,
        false,
    )?;
    Ok(SinkConfig {
        delayed_ack: s.delayed_ack,
        syndrome: s.syndrome,
        syndrome_unused_credit: unused,
        delack_timeout: secs(delack),
        sack: s.sack.unwrap_or(recovery == Recovery::Sack),
        clrp: s.clrp,
        clrp_hole_threshold: count_in_range(
            &format!("{p}.sink.clrp_hole_threshold"),
            s.clrp_hole_threshold,
            0,
            1000,
        )?,
        clrp_max_blocks: count_in_range(
            &format!("{p}.sink.clrp_max_blocks"),
            s.clrp_max_blocks,
            1,
            crate::packet::MAX_LOSS_BLOCKS as u32,
        )?,
    })
}

/// Nodes carrying the BS agents that end points' scheme parts need.
struct AgentNodes {
    syndrome: Vec<NodeId>,
    clrp: Vec<NodeId>,
}

impl AgentNodes {
    fn of(spec: &ScenarioSpec) -> Self {
        let with = |agent: &str| -> Vec<NodeId> {
            spec.nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.bs.iter().any(|a| agent_name(a) == Some(agent)))
                .map(|(i, _)| i as NodeId)
                .collect()
        };
        Self {
            syndrome: with("syndrome"),
            clrp: with("clrp"),
        }
    }
}

/// The registry name of a BS agent spec, if it has one.
fn agent_name(v: &serde_json::Value) -> Option<&str> {
    match v {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Object(m) => m.get("agent").and_then(|a| a.as_str()),
        _ => None,
    }
}

/// An end point that needs a BS agent (`agent`) on a node of its data path
/// next to a wireless hop (the Syndrome receiver, CLRP's TCP-MH): the
/// message says what is missing, or None if the agent is there.
fn agent_missing(
    agent: &str,
    topo: &Topology,
    data_path: &[DirId],
    agent_nodes: &[NodeId],
) -> Option<String> {
    let ok = data_path.windows(2).any(|w| {
        let (a, b) = (&topo.dirs[w[0] as usize], &topo.dirs[w[1] as usize]);
        agent_nodes.contains(&a.to)
            && (a.kind == LinkKind::Wireless || b.kind == LinkKind::Wireless)
    });
    (!ok).then(|| {
        format!(
            "true needs a `{agent}` BS agent on a node of the flow's path next to a wireless \
             link (e.g. bs = [\"{agent}\"] on the base station), found none"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_longer_than_the_hop_counter_are_refused() {
        let long = vec![0 as DirId; limits::MAX_HOPS + 1];
        let e = check_hops("flows[0].dst", &long).unwrap_err();
        assert_eq!(e.path, "flows[0].dst");
        assert!(e.message.contains("at most 65535"), "{e}");
        assert!(check_hops("f", &long[1..]).is_ok());
    }
}
