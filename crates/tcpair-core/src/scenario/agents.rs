//! BS agents: each node's `bs` list built (once) from the registry, and
//! checked to sit where it can act: on a node that forwards a flow across a
//! wireless link next to it.

use super::{err, FlowPlan, ScenarioSpec};
use crate::bs::BsAgent;
use crate::error::ConfigError;
use crate::net::{LinkKind, Topology};
use crate::packet::NodeId;

/// The agents of one node, in chain order.
#[derive(Debug)]
pub struct NodeAgents {
    pub node: NodeId,
    pub agents: Vec<Box<dyn BsAgent>>,
}

/// Build every node's BS agents.
pub(super) fn build(
    spec: &ScenarioSpec,
    topo: &Topology,
    flows: &[FlowPlan],
) -> Result<Vec<NodeAgents>, ConfigError> {
    let mut out = Vec::new();
    for (i, n) in spec.nodes.iter().enumerate() {
        if n.bs.is_empty() {
            continue;
        }
        let node = i as NodeId;
        let agents =
            n.bs.iter()
                .enumerate()
                .map(|(j, a)| crate::schemes::build_agent(a, node, &format!("nodes[{i}].bs[{j}]")))
                .collect::<Result<Vec<_>, _>>()?;
        check_place(i, &n.name, topo, flows)?;
        out.push(NodeAgents { node, agents });
    }
    Ok(out)
}

/// Some flow passes through (not ends at) node `i` and enters or leaves it
/// over a wireless link.
fn check_place(
    i: usize,
    name: &str,
    topo: &Topology,
    flows: &[FlowPlan],
) -> Result<(), ConfigError> {
    let node = i as NodeId;
    let mut crosses = false;
    let mut wireless = false;
    for f in flows {
        let attached = f.attach.iter().flat_map(|a| [&a.data, &a.ack]);
        for path in [&f.data_path, &f.ack_path].into_iter().chain(attached) {
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
                "node {name:?} has BS agents but no flow passes through it; put them on the \
                 base station that forwards the flow"
            ),
        ));
    }
    if !wireless {
        return Err(err(
            path,
            format!(
                "node {name:?} has BS agents but no flow through it crosses a wireless link \
                 there (BS agents act on the wireless hop next to them; mark that link \
                 kind = \"wireless\")"
            ),
        ));
    }
    Ok(())
}
