//! Layer 7: the declarative scenario schema (TOML file or Python dict, same
//! structure), its validation, and the build of a runnable network from it.
//!
//! Every user error is a [`ConfigError`] naming the field's dotted path and
//! the offending value. Validation finishes before anything runs, so a bad
//! scenario never produces partial output. docs/scenarios.md documents every
//! key; keep the two in step.

mod spec;

pub use crate::units::Quantity;
pub use spec::*;

use crate::engine::{secs, Time};
use crate::error::{from_value, in_range, ConfigError};
use crate::impair::pipeline::ImpairSpec;
use crate::impair::Pipeline;
use crate::net::{shortest_path, DirId, LinkDir, LinkKind, Node, NodeKind, Topology};
use crate::packet::NodeId;
use crate::schemes::syndrome::receiver::UnusedCredit;
use crate::tcp::{SinkConfig, TcpConfig, Variant};

/// A validated flow, ready to instantiate.
#[derive(Debug, Clone)]
pub struct FlowPlan {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: Time,
    pub packet_size: u32,
    pub ack_size: u32,
    pub tcp: TcpConfig,
    pub sink: SinkConfig,
    pub data_path: Vec<DirId>,
    pub ack_path: Vec<DirId>,
}

/// A validated scenario. Built together with its [`Topology`].
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The normalized spec (defaults filled in), as `tcpair validate` prints it.
    pub spec: ScenarioSpec,
    pub duration: Time,
    pub warmup: Time,
    pub seed: u64,
    pub event_budget: Option<u64>,
    pub flows: Vec<FlowPlan>,
    pub timeseries: bool,
    pub sample_interval: Time,
    pub throughput_window: Time,
    /// BS agents per node, in chain order (validated specs; `sim` builds them).
    pub bs: Vec<(NodeId, Vec<serde_json::Value>)>,
}

/// Parse TOML text into the generic value tree the schema is read from.
pub fn parse_toml(text: &str) -> Result<serde_json::Value, ConfigError> {
    toml::from_str::<serde_json::Value>(text)
        .map_err(|e| ConfigError::new("", format!("not valid TOML: {}", e.message().trim())))
}

/// Parse JSON text (what the Python API sends).
pub fn parse_json(text: &str) -> Result<serde_json::Value, ConfigError> {
    serde_json::from_str(text).map_err(|e| ConfigError::new("", format!("not valid JSON: {e}")))
}

fn err(path: impl Into<String>, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(path, msg)
}

fn check_secs(path: &str, q: &Quantity, allow_zero: bool) -> Result<f64, ConfigError> {
    let v = q.as_secs().map_err(|m| err(path, m))?;
    if !v.is_finite() || v < 0.0 || (!allow_zero && v == 0.0) {
        let want = if allow_zero { ">= 0" } else { "> 0" };
        return Err(err(
            path,
            format!("must be a finite number of seconds {want}, got {v}"),
        ));
    }
    Ok(v)
}

impl Scenario {
    /// Validate `value` and build the scenario and its network.
    pub fn build(value: &serde_json::Value) -> Result<(Scenario, Topology), ConfigError> {
        if !value.is_object() {
            return Err(err(
                "",
                "a scenario must be a table (TOML) or an object (JSON)",
            ));
        }
        let mut spec: ScenarioSpec = from_value(value)?;
        let run = &spec.run;
        let duration = check_secs("run.duration", &run.duration, false)?;
        let warmup = check_secs("run.warmup", &run.warmup, true)?;
        if warmup >= duration {
            return Err(err(
                "run.warmup",
                format!("must be shorter than run.duration ({duration} s), got {warmup}"),
            ));
        }
        if run.event_budget == Some(0) {
            return Err(err(
                "run.event_budget",
                "must be a positive number of events, got 0",
            ));
        }

        // Nodes.
        if spec.nodes.is_empty() {
            return Err(err("nodes", "a scenario needs at least two nodes"));
        }
        let mut topo = Topology::default();
        for (i, n) in spec.nodes.iter().enumerate() {
            let path = format!("nodes[{i}].name");
            if n.name.trim().is_empty() {
                return Err(err(path, "node names must not be empty"));
            }
            if topo.node_id(&n.name).is_some() {
                return Err(err(path, format!("duplicate node name {:?}", n.name)));
            }
            topo.nodes.push(Node {
                name: n.name.clone(),
                kind: match n.kind {
                    NodeKindSpec::Host => NodeKind::Host,
                    NodeKindSpec::Router => NodeKind::Router,
                },
            });
        }
        let names: Vec<String> = spec.nodes.iter().map(|n| n.name.clone()).collect();
        let lookup = |path: &str, name: &str| {
            names
                .iter()
                .position(|n| n == name)
                .map(|i| i as NodeId)
                .ok_or_else(|| {
                    err(
                        path,
                        format!("unknown node {name:?} (nodes: {})", names.join(", ")),
                    )
                })
        };

        // Links.
        let mut dirs = Vec::new();
        let mut link_names = Vec::new();
        for (i, l) in spec.links.iter_mut().enumerate() {
            let p = format!("links[{i}]");
            let from = lookup(&format!("{p}.from"), &l.from)?;
            let to = lookup(&format!("{p}.to"), &l.to)?;
            if from == to {
                return Err(err(
                    format!("{p}.to"),
                    format!("a link must join two different nodes, got {:?} twice", l.to),
                ));
            }
            let name = l
                .name
                .clone()
                .unwrap_or_else(|| format!("{}-{}", l.from, l.to));
            if link_names.contains(&name) {
                return Err(err(
                    format!("{p}.name"),
                    format!("duplicate link name {name:?}"),
                ));
            }
            l.name = Some(name.clone());
            let bw = l
                .bandwidth
                .as_bps()
                .map_err(|m| err(format!("{p}.bandwidth"), m))?;
            if !bw.is_finite() || bw < 1.0 {
                return Err(err(
                    format!("{p}.bandwidth"),
                    format!("must be a positive rate of at least 1 bit/s, got {bw}"),
                ));
            }
            let delay = check_secs(&format!("{p}.delay"), &l.delay, true)?;
            let kind = match l.kind {
                LinkKindSpec::Wired => LinkKind::Wired,
                LinkKindSpec::Wireless => LinkKind::Wireless,
            };
            for (fwd, d, dp) in [
                (true, &l.forward, "forward"),
                (false, &l.reverse, "reverse"),
            ] {
                let dpath = format!("{p}.{dp}");
                let (a, b) = if fwd { (from, to) } else { (to, from) };
                let limit = d.queue.unwrap_or(l.queue);
                let imp = ImpairSpec {
                    loss: d.loss.clone(),
                    reorder: d.reorder.clone(),
                    duplicate: d.duplicate.clone(),
                    outages: d.outages.clone(),
                };
                let pipe =
                    Pipeline::build(&imp, &dpath, spec.run.seed, &format!("link/{name}/{dp}"))?;
                dirs.push(LinkDir::new(
                    i as u32,
                    fwd,
                    a,
                    b,
                    bw.round() as u64,
                    secs(delay),
                    limit,
                    kind,
                    pipe,
                ));
            }
            link_names.push(name);
        }
        topo.dirs = dirs;
        topo.link_names = link_names;

        // Nodes carrying a given BS agent (for the end points' checks).
        let nodes_with = |agent: &str| -> Vec<NodeId> {
            spec.nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.bs.iter().any(|a| agent_name(a) == Some(agent)))
                .map(|(i, _)| i as NodeId)
                .collect()
        };
        let syndrome_nodes = nodes_with("syndrome");
        let clrp_nodes = nodes_with("clrp");

        // Flows.
        if spec.flows.is_empty() {
            return Err(err("flows", "a scenario needs at least one flow"));
        }
        let mut flows = Vec::with_capacity(spec.flows.len());
        let mut flow_names: Vec<String> = Vec::new();
        for (i, f) in spec.flows.iter_mut().enumerate() {
            let p = format!("flows[{i}]");
            let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
            if flow_names.contains(&name) {
                return Err(err(
                    format!("{p}.name"),
                    format!("duplicate flow name {name:?}"),
                ));
            }
            f.name = Some(name.clone());
            let src = lookup(&format!("{p}.src"), &f.src)?;
            let dst = lookup(&format!("{p}.dst"), &f.dst)?;
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
            let variant = Variant::ALL
                .iter()
                .find(|(n, _)| *n == f.variant)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    err(
                        format!("{p}.variant"),
                        format!(
                            "unknown TCP variant {:?} (known: tahoe, reno, newreno, sack)",
                            f.variant
                        ),
                    )
                })?;
            let start = check_secs(&format!("{p}.start"), &f.start, true)?;
            if start >= duration {
                return Err(err(
                    format!("{p}.start"),
                    format!("must be before the end of the run ({duration} s), got {start}"),
                ));
            }
            if f.packet_size <= f.ack_size || f.packet_size > 65_535 {
                return Err(err(
                    format!("{p}.packet_size"),
                    format!(
                        "must be larger than ack_size ({}) and at most 65535 bytes, got {}",
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
            if f.window == 0 {
                return Err(err(
                    format!("{p}.window"),
                    "must be at least 1 packet, got 0",
                ));
            }
            if f.segments == Some(0) {
                return Err(err(format!("{p}.segments"), "a finite transfer needs at least 1 segment, got 0; omit the key for a bulk source"));
            }
            let data_path = shortest_path(&topo, src, dst).ok_or_else(|| {
                err(
                    format!("{p}.dst"),
                    format!("no route from {:?} to {:?}", f.src, f.dst),
                )
            })?;
            let ack_path = shortest_path(&topo, dst, src).ok_or_else(|| {
                err(
                    format!("{p}.src"),
                    format!("no route for ACKs from {:?} back to {:?}", f.dst, f.src),
                )
            })?;
            let tcp = f
                .tcp
                .to_config(&format!("{p}.tcp"), variant, f.window, f.segments)?;
            let sink = SinkConfig {
                delayed_ack: f.sink.delayed_ack,
                syndrome: f.sink.syndrome,
                syndrome_unused_credit: match f.sink.syndrome_unused_credit.as_str() {
                    "keep" => UnusedCredit::Keep,
                    "drop" => UnusedCredit::Drop,
                    other => {
                        return Err(err(
                            format!("{p}.sink.syndrome_unused_credit"),
                            format!("must be \"keep\" or \"drop\", got {other:?}"),
                        ))
                    }
                },
                delack_timeout: secs(check_secs(
                    &format!("{p}.sink.delack_timeout"),
                    &f.sink.delack_timeout,
                    false,
                )?),
                sack: f.sink.sack.unwrap_or(variant == Variant::Sack),
                clrp: f.sink.clrp,
                clrp_hole_threshold: in_range(
                    &format!("{p}.sink.clrp_hole_threshold"),
                    f.sink.clrp_hole_threshold,
                    0,
                    1000,
                )?,
                clrp_max_blocks: in_range(
                    &format!("{p}.sink.clrp_max_blocks"),
                    f.sink.clrp_max_blocks,
                    1,
                    crate::packet::MAX_LOSS_BLOCKS as u32,
                )?,
            };
            f.sink.sack = Some(sink.sack);
            let needs = [
                (
                    f.sink.syndrome,
                    "sink.syndrome",
                    "syndrome",
                    &syndrome_nodes,
                ),
                (f.sink.clrp, "sink.clrp", "clrp", &clrp_nodes),
                (tcp.clrp, "tcp.clrp", "clrp", &clrp_nodes),
            ];
            for (on, key, agent, nodes) in needs {
                if !on {
                    continue;
                }
                if let Some(n) = agent_missing(agent, &topo, &data_path, nodes) {
                    return Err(err(format!("{p}.{key}"), n));
                }
            }
            if variant == Variant::Sack && !sink.sack {
                return Err(err(
                    format!("{p}.sink.sack"),
                    "the sack variant needs a SACK receiver, got false",
                ));
            }
            flow_names.push(name.clone());
            flows.push(FlowPlan {
                name,
                src,
                dst,
                start: secs(start),
                packet_size: f.packet_size,
                ack_size: f.ack_size,
                tcp,
                sink,
                data_path,
                ack_path,
            });
        }

        let bs = check_bs(&spec, &topo, &flows)?;

        let interval = check_secs("output.interval", &spec.output.interval, false)?;
        let window = check_secs(
            "output.throughput_window",
            &spec.output.throughput_window,
            false,
        )?;
        let scenario = Scenario {
            duration: secs(duration),
            warmup: secs(warmup),
            seed: spec.run.seed,
            event_budget: spec.run.event_budget,
            flows,
            timeseries: spec.output.timeseries,
            sample_interval: secs(interval),
            throughput_window: secs(window),
            bs,
            spec,
        };
        Ok((scenario, topo))
    }
}

impl TcpSpec {
    fn to_config(
        &self,
        path: &str,
        variant: Variant,
        window: u32,
        segments: Option<u64>,
    ) -> Result<TcpConfig, ConfigError> {
        let d = TcpConfig::default();
        let t = |key: &str, q: &Option<Quantity>, dflt: Time| -> Result<Time, ConfigError> {
            match q {
                None => Ok(dflt),
                Some(q) => Ok(secs(check_secs(&format!("{path}.{key}"), q, false)?)),
            }
        };
        let cfg = TcpConfig {
            variant,
            window,
            initial_cwnd: self.initial_cwnd.unwrap_or(d.initial_cwnd),
            initial_ssthresh: self.initial_ssthresh.unwrap_or(d.initial_ssthresh),
            dupack_threshold: self.dupack_threshold.unwrap_or(d.dupack_threshold),
            limited_transmit: self.limited_transmit.unwrap_or(d.limited_transmit),
            initial_rto: t("initial_rto", &self.initial_rto, d.initial_rto)?,
            min_rto: t("min_rto", &self.min_rto, d.min_rto)?,
            max_rto: t("max_rto", &self.max_rto, d.max_rto)?,
            granularity: t("granularity", &self.granularity, d.granularity)?,
            max_backoff: self.max_backoff.unwrap_or(d.max_backoff),
            total_segments: segments,
            eln: self.eln.unwrap_or(d.eln),
            clrp: self.clrp.unwrap_or(d.clrp),
            clrp_rxmit_threshold: in_range(
                &format!("{path}.clrp_rxmit_threshold"),
                self.clrp_rxmit_threshold.unwrap_or(d.clrp_rxmit_threshold),
                1,
                1000,
            )?,
            clrp_inflate: self.clrp_inflate.unwrap_or(d.clrp_inflate),
        };
        if !cfg.initial_cwnd.is_finite() || cfg.initial_cwnd < 1.0 {
            return Err(err(
                format!("{path}.initial_cwnd"),
                format!("must be at least 1 packet, got {}", cfg.initial_cwnd),
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
        Ok(cfg)
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

/// Validate every node's BS agents: each builds, and each node with agents
/// forwards at least one flow across a wireless hop next to it.
fn check_bs(
    spec: &ScenarioSpec,
    topo: &Topology,
    flows: &[FlowPlan],
) -> Result<Vec<(NodeId, Vec<serde_json::Value>)>, ConfigError> {
    let mut out = Vec::new();
    for (i, n) in spec.nodes.iter().enumerate() {
        if n.bs.is_empty() {
            continue;
        }
        let node = i as NodeId;
        for (j, a) in n.bs.iter().enumerate() {
            crate::schemes::build_agent(a, node, &format!("nodes[{i}].bs[{j}]"))?;
        }
        // Does some flow pass through (not end at) this node, and does it
        // enter or leave over a wireless link there?
        let mut crosses = false;
        let mut wireless = false;
        for f in flows {
            for path in [&f.data_path, &f.ack_path] {
                for w in path.windows(2) {
                    let (a, b) = (&topo.dirs[w[0] as usize], &topo.dirs[w[1] as usize]);
                    if a.to == node {
                        crosses = true;
                        wireless |= a.kind == LinkKind::Wireless || b.kind == LinkKind::Wireless;
                    }
                }
            }
        }
        let path = format!("nodes[{i}].bs");
        if !crosses {
            return Err(err(
                path,
                format!(
                    "node {:?} has BS agents but no flow passes through it; put them on the \
                     base station that forwards the flow",
                    n.name
                ),
            ));
        }
        if !wireless {
            return Err(err(
                path,
                format!(
                    "node {:?} has BS agents but no flow through it crosses a wireless link \
                     there (BS agents act on the wireless hop next to them; mark that link \
                     kind = \"wireless\")",
                    n.name
                ),
            ));
        }
        out.push((node, n.bs.clone()));
    }
    Ok(out)
}
