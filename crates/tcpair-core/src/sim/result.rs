//! The summary of a run: per-flow results and column-oriented tables, with a
//! JSON form that the Python layer turns into pandas DataFrames.

use super::Sim;
use crate::engine::{to_secs, Time};
use crate::metrics::{jain_fairness, RecoveryKind};
use crate::packet::{PktKind, Retx};
use serde_json::{json, Map, Value};

/// Conservation of packets:
/// `sent + copies + injected = delivered + dropped + absorbed + in_flight`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PacketCounters {
    /// Packets created by end-host agents (data and ACKs).
    pub sent: u64,
    /// Copies created by `duplicate` impairments.
    pub copies: u64,
    /// Packets created by BS agents (local retransmissions).
    pub injected: u64,
    /// Packets handed to their destination agent.
    pub delivered: u64,
    pub dropped: u64,
    /// Packets discarded by BS agents on purpose (e.g. suppressed DUPACKs).
    pub absorbed: u64,
    pub in_flight: u64,
}

impl PacketCounters {
    pub fn conserved(&self) -> bool {
        self.sent + self.copies + self.injected
            == self.delivered + self.dropped + self.absorbed + self.in_flight
    }
}

/// Per-flow summary over the measurement window [max(warmup, start), end].
#[derive(Debug, Clone, PartialEq)]
pub struct FlowResult {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub variant: &'static str,
    pub packet_size: u32,
    /// Seconds the flow was measured (t in the throughput formulas).
    pub measured_s: f64,
    pub goodput_kbps: f64,
    pub throughput_kbps: f64,
    /// Paper 003 eq. (7): (Np - Nx) * P * 8 / (t * 1e6).
    pub formula_throughput_mbps: f64,
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub window_cuts: u64,
    pub arrived: u64,
    pub delivered: u64,
    pub duplicates: u64,
    pub acks_sent: u64,
    pub delay_mean_s: Option<f64>,
    pub delay_p50_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_p99_s: Option<f64>,
    pub mean_rtt_s: Option<f64>,
    pub mean_rto_s: Option<f64>,
    pub mean_timeout_rto_s: Option<f64>,
    pub finished_at_s: Option<f64>,
    /// Data packets retransmitted locally by BS agents.
    pub bs_retransmits: u64,
    /// ACKs that reached the sender with ELN set.
    pub eln_acks: u64,
    /// Fast retransmits without a window cut because of ELN.
    pub eln_retransmits: u64,
    /// Syndrome receiver: credits given, and syndromes the paper rules out.
    pub syndrome_credits: u64,
    pub impossible_syndromes: u64,
    /// End-to-end delay of each segment from its *first* transmission to
    /// its first arrival at the receiver (paper 001 Fig. 7: recovery time
    /// included), over the measurement window.
    pub e2e_delay_mean_s: Option<f64>,
    pub e2e_delay_p50_s: Option<f64>,
    pub e2e_delay_p95_s: Option<f64>,
    pub e2e_delay_p99_s: Option<f64>,
    /// Delay from a segment's first transmission to its in-order delivery
    /// to the receiving application (head-of-line wait included).
    pub app_delay_mean_s: Option<f64>,
    pub app_delay_p95_s: Option<f64>,
    /// CLRP TCP-MH sender: ACKs with loss blocks, and retransmissions of
    /// notified losses (no window cut).
    pub clrp_notices: u64,
    pub clrp_retransmits: u64,
    /// CLRP TCP-MH receiver: holes it declared losses and reported.
    pub clrp_holes: u64,
}

#[derive(Debug, Clone)]
pub struct RunResult {
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub sim_time_s: f64,
    pub events: u64,
    pub wall_s: f64,
    /// New in-order segments delivered to receivers over the whole run.
    pub delivered_data_packets: u64,
    pub jain_fairness: Option<f64>,
    pub packets: PacketCounters,
    pub flows: Vec<FlowResult>,
    /// Column-oriented tables (name -> columns), ready for pandas.
    pub drops: Value,
    pub recoveries: Value,
    pub timeseries: Value,
    /// State held by each BS agent: per flow and in total, peak and
    /// time-average over the whole run.
    pub bs_state: Value,
    /// Agent-specific counters, one row per (agent, flow, counter).
    pub bs_counters: Value,
}

fn ns_mean(sum: u128, n: u64) -> Option<f64> {
    (n > 0).then(|| sum as f64 / n as f64 / 1e9)
}

fn retx_name(r: Retx) -> &'static str {
    match r {
        Retx::Original => "original",
        Retx::Sender => "sender",
        Retx::BaseStation => "bs",
    }
}

impl RunResult {
    pub(crate) fn collect(sim: &Sim, wall_s: f64) -> RunResult {
        let sc = sim.scenario();
        let topo = sim.topology();
        let end: Time = sc.duration;
        let mut flows = Vec::new();
        for f in &sim.flows {
            let st = f.sender.stats();
            let base = f.base_sender;
            let sink = f.sink_c.minus(&f.base_sink);
            let begin = f.plan.start.max(sc.warmup);
            let stop = f.finished_at.unwrap_or(end).min(end);
            let t = if stop > begin {
                to_secs(stop - begin)
            } else {
                0.0
            };
            let bits = |pkts: u64| pkts as f64 * f64::from(f.plan.packet_size) * 8.0;
            let rate = |pkts: u64| if t > 0.0 { bits(pkts) / t } else { 0.0 };
            let retransmits = st.retransmits - base.retransmits;
            let q = |x: f64| f.delay.quantile(x).map(|v| v / 1e9);
            let q2 = |x: f64| f.e2e_delay.quantile(x).map(|v| v / 1e9);
            let syn = f.sink.syndrome_stats().copied().unwrap_or_default();
            flows.push(FlowResult {
                name: f.plan.name.clone(),
                src: topo.nodes[f.plan.src as usize].name.clone(),
                dst: topo.nodes[f.plan.dst as usize].name.clone(),
                variant: f.plan.tcp.variant.name(),
                packet_size: f.plan.packet_size,
                measured_s: t,
                goodput_kbps: rate(sink.delivered) / 1e3,
                throughput_kbps: rate(sink.arrived) / 1e3,
                formula_throughput_mbps: rate(sink.arrived.saturating_sub(retransmits)) / 1e6,
                sent: st.sent - base.sent,
                retransmits,
                timeouts: st.timeouts - base.timeouts,
                fast_retransmits: st.fast_retransmits - base.fast_retransmits,
                window_cuts: st.window_cuts - base.window_cuts,
                arrived: sink.arrived,
                delivered: sink.delivered,
                duplicates: sink.duplicates,
                acks_sent: sink.acks_sent,
                delay_mean_s: f.delay.mean().map(|v| v / 1e9),
                delay_p50_s: q(0.5),
                delay_p95_s: q(0.95),
                delay_p99_s: q(0.99),
                mean_rtt_s: ns_mean(st.rtt_sum_ns, st.rtt_samples),
                mean_rto_s: ns_mean(st.rto_after_sample_sum_ns, st.rtt_samples),
                mean_timeout_rto_s: ns_mean(st.timeout_rto_sum_ns, st.timeouts),
                finished_at_s: f.finished_at.map(to_secs),
                bs_retransmits: f.bs_retx - f.base_bs_retx,
                eln_acks: st.eln_acks - base.eln_acks,
                eln_retransmits: st.eln_retransmits - base.eln_retransmits,
                syndrome_credits: syn.credits_given - f.syndrome_base.credits_given,
                impossible_syndromes: syn.impossible - f.syndrome_base.impossible,
                e2e_delay_mean_s: f.e2e_delay.mean().map(|v| v / 1e9),
                e2e_delay_p50_s: q2(0.5),
                e2e_delay_p95_s: q2(0.95),
                e2e_delay_p99_s: q2(0.99),
                app_delay_mean_s: f.app_delay.mean().map(|v| v / 1e9),
                app_delay_p95_s: f.app_delay.quantile(0.95).map(|v| v / 1e9),
                clrp_notices: st.clrp_notices - base.clrp_notices,
                clrp_retransmits: st.clrp_retransmits - base.clrp_retransmits,
                clrp_holes: f.clrp_holes() - f.base_clrp_holes,
            });
        }
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_kbps).collect();
        let mut packets = sim.counters;
        packets.in_flight = sim.in_flight();
        // Checked on every run (it costs one pass over the links): a leak or a
        // double count is a simulator bug, reported as an internal error.
        assert!(
            packets.conserved() && packets.in_flight == sim.arena_live() as u64,
            "packet balance broken: {packets:?}, arena holds {}",
            sim.arena_live()
        );
        let flow_name = |i: u32| Value::from(sim.flows[i as usize].plan.name.as_str());

        let mut drops = Columns::new(&[
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
        ]);
        for d in &sim.drops {
            let dir = &topo.dirs[d.dir as usize];
            drops.push(vec![
                to_secs(d.time).into(),
                flow_name(d.flow),
                (if d.kind == PktKind::Data {
                    "data"
                } else {
                    "ack"
                })
                .into(),
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
        let mut recoveries = Columns::new(&[
            "time_s",
            "flow",
            "event",
            "seq",
            "window_cut",
            "true_cause",
            "true_link_kind",
        ]);
        for r in &sim.recoveries {
            recoveries.push(vec![
                to_secs(r.time).into(),
                flow_name(r.flow),
                (match r.kind {
                    RecoveryKind::FastRetransmit => "fast_retransmit",
                    RecoveryKind::Timeout => "timeout",
                    RecoveryKind::ClrpRetransmit => "clrp_retransmit",
                })
                .into(),
                r.seq.into(),
                r.window_cut.into(),
                r.true_cause.map_or("none", |(c, _)| c.name()).into(),
                r.true_cause.map_or("", |(_, k)| k.name()).into(),
            ]);
        }
        let mut ts = Columns::new(&[
            "time_s",
            "flow",
            "cwnd",
            "ssthresh",
            "seq_sent",
            "throughput_kbps",
        ]);
        for s in &sim.samples {
            ts.push(vec![
                to_secs(s.time).into(),
                flow_name(s.flow),
                finite(s.cwnd),
                finite(s.ssthresh),
                s.seq_sent.into(),
                s.throughput_kbps.into(),
            ]);
        }
        let mut bs_state = Columns::new(&[
            "node",
            "agent",
            "flow",
            "pkts_peak",
            "pkts_mean",
            "bytes_peak",
            "bytes_mean",
        ]);
        let mut bs_counters = Columns::new(&["node", "agent", "flow", "counter", "value"]);
        for (i, a) in sim.agents.iter().enumerate() {
            let node: Value = topo.nodes[sim.agent_node[i] as usize].name.as_str().into();
            let m = a.meters();
            let mut row = |flow: Value, s: crate::bs::StateSummary| {
                bs_state.push(vec![
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
                row(flow_name(fl), meter.summary(end));
            }
            row("total".into(), m.total.summary(end));
            for (fl, _) in m.flows() {
                for (c, v) in a.counters(fl) {
                    bs_counters.push(vec![
                        node.clone(),
                        a.name().into(),
                        flow_name(fl),
                        c.into(),
                        v.into(),
                    ]);
                }
            }
        }
        RunResult {
            seed: sc.seed,
            duration_s: to_secs(sc.duration),
            warmup_s: to_secs(sc.warmup),
            // The run completed: simulated time reached the end (events may
            // have run out earlier, e.g. after a finite transfer).
            sim_time_s: to_secs(sim.now().max(sc.duration)),
            events: sim.events_processed(),
            wall_s,
            delivered_data_packets: sim.flows.iter().map(|f| f.sink_c.delivered).sum(),
            jain_fairness: jain_fairness(&goodputs),
            packets,
            flows,
            drops: drops.into_value(),
            recoveries: recoveries.into_value(),
            timeseries: ts.into_value(),
            bs_state: bs_state.into_value(),
            bs_counters: bs_counters.into_value(),
        }
    }

    /// The JSON document of the Python contract (see python/tcpair/api.py).
    pub fn to_json(&self) -> Value {
        let flows: Vec<Value> = self
            .flows
            .iter()
            .map(|f| {
                json!({
                    "name": f.name, "src": f.src, "dst": f.dst, "variant": f.variant,
                    "packet_size": f.packet_size, "measured_s": f.measured_s,
                    "goodput_kbps": f.goodput_kbps, "throughput_kbps": f.throughput_kbps,
                    "formula_throughput_mbps": f.formula_throughput_mbps,
                    "sent": f.sent, "retransmits": f.retransmits, "timeouts": f.timeouts,
                    "fast_retransmits": f.fast_retransmits, "window_cuts": f.window_cuts,
                    "arrived": f.arrived, "delivered": f.delivered, "duplicates": f.duplicates,
                    "acks_sent": f.acks_sent,
                    "delay_mean_s": f.delay_mean_s, "delay_p50_s": f.delay_p50_s,
                    "delay_p95_s": f.delay_p95_s, "delay_p99_s": f.delay_p99_s,
                    "mean_rtt_s": f.mean_rtt_s, "mean_rto_s": f.mean_rto_s,
                    "mean_timeout_rto_s": f.mean_timeout_rto_s, "finished_at_s": f.finished_at_s,
                    "bs_retransmits": f.bs_retransmits, "eln_acks": f.eln_acks,
                    "eln_retransmits": f.eln_retransmits,
                    "syndrome_credits": f.syndrome_credits,
                    "impossible_syndromes": f.impossible_syndromes,
                    "e2e_delay_mean_s": f.e2e_delay_mean_s, "e2e_delay_p50_s": f.e2e_delay_p50_s,
                    "e2e_delay_p95_s": f.e2e_delay_p95_s, "e2e_delay_p99_s": f.e2e_delay_p99_s,
                    "app_delay_mean_s": f.app_delay_mean_s, "app_delay_p95_s": f.app_delay_p95_s,
                    "clrp_notices": f.clrp_notices, "clrp_retransmits": f.clrp_retransmits,
                    "clrp_holes": f.clrp_holes,
                })
            })
            .collect();
        json!({
            "summary": {
                "seed": self.seed, "duration_s": self.duration_s, "warmup_s": self.warmup_s,
                "sim_time_s": self.sim_time_s, "events": self.events, "wall_s": self.wall_s,
                "delivered_data_packets": self.delivered_data_packets,
                "jain_fairness": self.jain_fairness,
                "packets": {
                    "sent": self.packets.sent, "copies": self.packets.copies,
                    "injected": self.packets.injected, "absorbed": self.packets.absorbed,
                    "delivered": self.packets.delivered, "dropped": self.packets.dropped,
                    "in_flight": self.packets.in_flight,
                },
            },
            "flows": flows,
            "drops": self.drops,
            "recoveries": self.recoveries,
            "timeseries": self.timeseries,
            "bs_state": self.bs_state,
            "bs_counters": self.bs_counters,
        })
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

/// Builds a column-oriented table.
struct Columns {
    names: Vec<&'static str>,
    cols: Vec<Vec<Value>>,
}

impl Columns {
    fn new(names: &[&'static str]) -> Self {
        Self {
            names: names.to_vec(),
            cols: vec![Vec::new(); names.len()],
        }
    }
    fn push(&mut self, row: Vec<Value>) {
        debug_assert_eq!(row.len(), self.cols.len());
        for (c, v) in self.cols.iter_mut().zip(row) {
            c.push(v);
        }
    }
    fn into_value(self) -> Value {
        let mut m = Map::new();
        for (n, c) in self.names.into_iter().zip(self.cols) {
            m.insert(n.to_string(), Value::Array(c));
        }
        Value::Object(m)
    }
}
