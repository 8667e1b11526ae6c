//! The run's tables, column-oriented (name -> values) for pandas: drops
//! with their ground truth, recoveries with the sender's decisions, the
//! time series, and the BS agents' state and counters.

use super::Sim;
use crate::engine::{to_secs, Time};
use crate::packet::{FlowId, PktKind, Retx};
use crate::tcp::Window;
use serde_json::{Map, Value};

/// Builds a column-oriented table of a number of rows known beforehand:
/// each column is made at that size. Grown by doubling instead, a table of
/// 160,000 rows (16 counters for each of 10,000 CLRP flows) held up to
/// twice its columns' room, and each smaller copy was freed beside the
/// run's state at the run's end, where the process's memory peaks.
pub(super) struct Columns {
    names: Vec<&'static str>,
    cols: Vec<Vec<Value>>,
    rows: usize,
}

impl Columns {
    pub(super) fn new(names: &[&'static str], rows: usize) -> Self {
        Self {
            names: names.to_vec(),
            cols: (0..names.len()).map(|_| Vec::with_capacity(rows)).collect(),
            rows,
        }
    }
    pub(super) fn push(&mut self, row: Vec<Value>) {
        debug_assert_eq!(row.len(), self.cols.len());
        for (c, v) in self.cols.iter_mut().zip(row) {
            c.push(v);
        }
    }
    pub(super) fn into_value(self) -> Value {
        // The count given beforehand is the table's (checked by every test
        // that builds one).
        debug_assert!(self.cols.iter().all(|c| c.len() == self.rows));
        let mut m = Map::new();
        for (n, c) in self.names.into_iter().zip(self.cols) {
            m.insert(n.to_string(), Value::Array(c));
        }
        Value::Object(m)
    }
}

fn finite(x: f64) -> Value {
    // ssthresh starts "arbitrarily high"; JSON has no infinity.
    if x.is_finite() {
        x.into()
    } else {
        Value::Null
    }
}

fn flow_name(sim: &Sim, i: FlowId) -> Value {
    sim.flows[i as usize].plan.name.as_str().into()
}

fn retx_name(r: Retx) -> &'static str {
    match r {
        Retx::Original => "original",
        Retx::Sender => "sender",
        Retx::BaseStation => "bs",
    }
}

/// `rows` ordered by `key` (time, then part or flow), rows of equal keys in
/// the order written: the order of the rows does not depend on how the
/// independent parts' events interleaved (`sim/parts.rs`). Rows of one
/// queue come in time order already; the sort only interleaves parts.
fn in_order<T, K: Ord>(rows: &[T], key: impl Fn(&T) -> K) -> impl Iterator<Item = &T> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| key(&rows[i]));
    order.into_iter().map(move |i| &rows[i])
}

/// Every drop with where and why it happened.
pub(super) fn drops(sim: &Sim) -> Value {
    let topo = sim.topology();
    let mut t = Columns::new(
        &[
            "time_s",
            "flow",
            "kind",
            "seq",
            "packet_id",
            "link",
            "direction",
            "from",
            "to",
            "cause",
            "link_kind",
            "retx",
        ],
        sim.drops.len(),
    );
    for d in in_order(&sim.drops, |d| (d.time, sim.parts.of_flow[d.flow as usize])) {
        let dir = &topo.dirs[d.dir as usize];
        let kind = if d.kind == PktKind::Data {
            "data"
        } else {
            "ack"
        };
        t.push(vec![
            to_secs(d.time).into(),
            flow_name(sim, d.flow),
            kind.into(),
            d.seq.into(),
            d.packet_id.into(),
            topo.link_names[dir.link as usize].as_str().into(),
            (if dir.forward { "forward" } else { "reverse" }).into(),
            topo.nodes[dir.from as usize].name.as_str().into(),
            topo.nodes[dir.to as usize].name.as_str().into(),
            d.cause.name().into(),
            d.link_kind.name().into(),
            retx_name(d.retx).into(),
        ]);
    }
    t.into_value()
}

/// Every fast retransmit, timeout and scheme retransmission: the decision
/// (verdict, window before and after) beside the true cause of the loss.
pub(super) fn recoveries(sim: &Sim) -> Value {
    let mut t = Columns::new(
        &[
            "time_s",
            "flow",
            "event",
            "seq",
            "window_cut",
            "verdict",
            "cwnd_before",
            "ssthresh_before",
            "cwnd_after",
            "ssthresh_after",
            "true_cause",
            "true_link_kind",
            "true_verdict",
            "true_category",
        ],
        sim.recoveries.len(),
    );
    let cwnd = |w: Option<Window>| w.map_or(Value::Null, |w| finite(w.cwnd));
    let ssthresh = |w: Option<Window>| w.map_or(Value::Null, |w| finite(w.ssthresh));
    for r in in_order(&sim.recoveries, |r| {
        (r.time, sim.parts.of_flow[r.flow as usize])
    }) {
        t.push(vec![
            to_secs(r.time).into(),
            flow_name(sim, r.flow),
            r.kind.name().into(),
            r.seq.into(),
            r.window_cut.into(),
            r.verdict.map_or("", |v| v.name()).into(),
            cwnd(r.before),
            ssthresh(r.before),
            cwnd(r.after),
            ssthresh(r.after),
            r.true_cause.map_or("none", |(c, _)| c.name()).into(),
            r.true_cause.map_or("", |(_, k)| k.name()).into(),
            r.true_cause
                .map_or("", |(c, k)| c.loss_cause(k).name())
                .into(),
            r.truth().name().into(),
        ]);
    }
    t.into_value()
}

/// The time series (only with `output.timeseries`).
pub(super) fn timeseries(sim: &Sim) -> Value {
    let mut t = Columns::new(
        &[
            "time_s",
            "flow",
            "cwnd",
            "ssthresh",
            "seq_sent",
            "throughput_kbps",
        ],
        sim.samples.len(),
    );
    for s in in_order(&sim.samples, |s| (s.time, s.flow)) {
        t.push(vec![
            to_secs(s.time).into(),
            flow_name(sim, s.flow),
            finite(s.cwnd),
            finite(s.ssthresh),
            s.seq_sent.into(),
            s.throughput_kbps.into(),
        ]);
    }
    t.into_value()
}

/// The BS agents' state (per flow and in total) and their own counters.
pub(super) fn bs_tables(sim: &Sim, end: Time) -> (Value, Value) {
    let topo = sim.topology();
    let state_rows = sim.agents.iter().map(|a| a.meters().flows().count() + 1);
    // Every flow has the same counters (`BsAgent::counters`).
    let counter_rows = sim.agents.iter().map(|a| {
        let mut flows = a.meters().flows();
        let each = flows.next().map_or(0, |(fl, _)| a.counters(fl).len());
        each * (1 + flows.count())
    });
    let mut state = Columns::new(
        &[
            "node",
            "agent",
            "flow",
            "pkts_peak",
            "pkts_mean",
            "bytes_peak",
            "bytes_mean",
        ],
        state_rows.sum(),
    );
    let mut counters = Columns::new(
        &["node", "agent", "flow", "counter", "value"],
        counter_rows.sum(),
    );
    for (i, a) in sim.agents.iter().enumerate() {
        let node: Value = topo.nodes[sim.agent_node[i] as usize].name.as_str().into();
        let m = a.meters();
        let mut row = |flow: Value, s: crate::bs::StateSummary| {
            state.push(vec![
                node.clone(),
                a.name().into(),
                flow,
                s.pkts_peak.into(),
                s.pkts_mean.into(),
                s.bytes_peak.into(),
                s.bytes_mean.into(),
            ]);
        };
        for (fl, meter) in m.flows() {
            row(flow_name(sim, fl), meter.summary(end));
        }
        row("total".into(), m.total_summary(end));
        for (fl, _) in m.flows() {
            for (c, v) in a.counters(fl) {
                counters.push(vec![
                    node.clone(),
                    a.name().into(),
                    flow_name(sim, fl),
                    c.into(),
                    v.into(),
                ]);
            }
        }
    }
    (state.into_value(), counters.into_value())
}
