//! Nodes and links: the `[[nodes]]` and `[[links]]` tables to a [`Topology`]
//! with one impairment pipeline per link direction.

use super::{check_secs, err, LinkKindSpec, LinkSpec, NodeKindSpec, ScenarioSpec};
use crate::engine::secs;
use crate::error::{ConfigError, Shown};
use crate::impair::pipeline::ImpairSpec;
use crate::impair::Pipeline;
use crate::limits;
use crate::net::{LinkDir, LinkKind, Node, NodeKind, Topology};
use crate::packet::NodeId;

/// Build the nodes and links of `spec` (fills in default link names); the
/// shared media come after (`media::build`).
pub(super) fn build(spec: &mut ScenarioSpec) -> Result<Topology, ConfigError> {
    let mut topo = Topology::default();
    nodes(spec, &mut topo)?;
    let seed = spec.run.seed;
    for (i, l) in spec.links.iter_mut().enumerate() {
        link(i, l, seed, &mut topo)?;
    }
    Ok(topo)
}

fn nodes(spec: &ScenarioSpec, topo: &mut Topology) -> Result<(), ConfigError> {
    if spec.nodes.is_empty() {
        return Err(err("nodes", "a scenario needs at least two nodes"));
    }
    for (i, n) in spec.nodes.iter().enumerate() {
        let path = format!("nodes[{i}].name");
        if n.name.trim().is_empty() {
            return Err(err(path, "node names must not be empty"));
        }
        if topo.node_id(&n.name).is_some() {
            return Err(err(path, format!("duplicate node name {:?}", n.name)));
        }
        topo.add_node(Node {
            name: n.name.clone(),
            kind: match n.kind {
                NodeKindSpec::Host => NodeKind::Host,
                NodeKindSpec::Router => NodeKind::Router,
            },
        });
    }
    Ok(())
}

/// The node named `name`, or an error at `path` listing the nodes.
pub(super) fn lookup(topo: &Topology, path: &str, name: &str) -> Result<NodeId, ConfigError> {
    topo.node_id(name).ok_or_else(|| {
        let names: Vec<&str> = topo.nodes.iter().map(|n| n.name.as_str()).collect();
        err(
            path,
            format!("unknown node {name:?} (nodes: {})", names.join(", ")),
        )
    })
}

/// Link `i`: both directions, with their queues and impairments.
fn link(i: usize, l: &mut LinkSpec, seed: u64, topo: &mut Topology) -> Result<(), ConfigError> {
    let p = format!("links[{i}]");
    let from = lookup(topo, &format!("{p}.from"), &l.from)?;
    let to = lookup(topo, &format!("{p}.to"), &l.to)?;
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
    if topo.link_id(&name).is_some() {
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
    if !bw.is_finite() || !(1.0..=limits::MAX_BANDWIDTH_BPS).contains(&bw) {
        return Err(err(
            format!("{p}.bandwidth"),
            format!(
                "must be a rate from 1 bit/s to {:e} bit/s, got {}",
                limits::MAX_BANDWIDTH_BPS,
                Shown(bw)
            ),
        ));
    }
    let delay = secs(check_secs(&format!("{p}.delay"), &l.delay, true)?);
    let kind = match l.kind {
        LinkKindSpec::Wired => LinkKind::Wired,
        LinkKindSpec::Wireless => LinkKind::Wireless,
    };
    for (fwd, d, dp) in [
        (true, &l.forward, "forward"),
        (false, &l.reverse, "reverse"),
    ] {
        let (a, b) = if fwd { (from, to) } else { (to, from) };
        let imp = ImpairSpec {
            loss: d.loss.clone(),
            reorder: d.reorder.clone(),
            duplicate: d.duplicate.clone(),
            outages: d.outages.clone(),
        };
        let pipe = Pipeline::build(
            &imp,
            &format!("{p}.{dp}"),
            seed,
            &format!("link/{name}/{dp}"),
        )?;
        let limit = match d.queue {
            Some(q) => limits::packets(&format!("{p}.{dp}.queue"), q, true)?,
            None => limits::packets(&format!("{p}.queue"), l.queue, true)?,
        };
        let bw = bw.round() as u64;
        topo.dirs.push(LinkDir::new(
            i as u32, fwd, a, b, bw, delay, limit, kind, pipe,
        ));
    }
    topo.add_link_name(name);
    Ok(())
}
