//! The summary of a run: the run's figures, per-flow results and
//! column-oriented tables, serialised (by derive) into the JSON document
//! that the Python layer turns into pandas DataFrames.

use super::accuracy::Accuracy;
use super::flow::FlowState;
use super::{answer, tables, Sim};
use crate::engine::{to_secs, Time};
use crate::metrics::jain_fairness;
use crate::net::wifi::MacCounters;
use crate::schemes::{clrp, syndrome};
use crate::tcp::detect;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Conservation of packets:
/// `sent + copies + injected = delivered + dropped + absorbed + in_flight`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
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

/// Every per-flow counter of the scheme parts, by part (each part's file
/// declares its names). A flow whose parts lack one reports 0, so every
/// run has the same columns.
const SCHEME_COUNTERS: &[&[&str]] = &[
    detect::eln::COUNTERS,
    syndrome::receiver::COUNTERS,
    clrp::mh::COUNTERS,
    clrp::holes::RECEIVER_COUNTERS,
];

/// Per-flow summary over the measurement window [max(warmup, start), end].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowResult {
    pub name: String,
    pub src: String,
    pub dst: String,
    /// The `variant` the flow names, and the parts it runs with.
    pub variant: String,
    pub congestion: &'static str,
    pub detector: &'static str,
    pub responder: &'static str,
    pub packet_size: u32,
    /// Seconds the flow was measured (t in the throughput formulas).
    pub measured_s: f64,
    pub goodput_kbps: f64,
    pub throughput_kbps: f64,
    /// Stojcevska and Popov eq. (7): (Np - Nx) * P * 8 / (t * 1e6).
    pub formula_throughput_mbps: f64,
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Fast retransmits on a wireless verdict (the responder's window).
    pub wireless_frs: u64,
    pub window_cuts: u64,
    /// Freeze-TCP: zero windows that froze the sender, and its zero-window probes.
    pub freezes: u64,
    pub zero_window_probes: u64,
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
    /// End-to-end delay of each segment from its *first* transmission to
    /// its first arrival at the receiver (Sun et al. 2005 Fig. 7: recovery time
    /// included), over the measurement window.
    pub e2e_delay_mean_s: Option<f64>,
    pub e2e_delay_p50_s: Option<f64>,
    pub e2e_delay_p95_s: Option<f64>,
    pub e2e_delay_p99_s: Option<f64>,
    /// Delay from a segment's first transmission to its in-order delivery
    /// to the receiving application (head-of-line wait included).
    pub app_delay_mean_s: Option<f64>,
    pub app_delay_p95_s: Option<f64>,
    /// The detector's accuracy against the ground truth (Park et al. 2010,
    /// §3) and the fast retransmits behind it.
    #[serde(flatten)]
    pub accuracy: Accuracy,
    /// The scheme parts' counters (`SCHEME_COUNTERS`), one column each.
    #[serde(flatten)]
    pub counters: BTreeMap<&'static str, u64>,
}

/// The run as a whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
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
    /// The accuracy over all flows' fast retransmits pooled (the shares by
    /// definition when no flow has a detector).
    #[serde(flatten)]
    pub accuracy: Accuracy,
    /// The 802.11 media's counters over the measurement window (runs with a
    /// `[[media]]` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mac: Option<MacCounters>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub summary: Summary,
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
    /// One row per handoff and flow of the mobile host (`[mobility]` runs;
    /// empty columns otherwise).
    pub handoffs: Value,
}

impl FlowResult {
    /// A scheme counter by name (0 if the flow's parts have none; panics on
    /// a name no part declares).
    pub fn counter(&self, name: &str) -> u64 {
        *self
            .counters
            .get(name)
            .unwrap_or_else(|| panic!("no flow counter named {name:?}"))
    }
}

fn ns_mean(sum: u128, n: u64) -> Option<f64> {
    (n > 0).then(|| sum as f64 / n as f64 / 1e9)
}

/// The scheme counters of `f` over the measurement window, every
/// registered name present.
fn scheme_counters(f: &FlowState) -> BTreeMap<&'static str, u64> {
    let mut m: BTreeMap<&'static str, u64> = SCHEME_COUNTERS
        .iter()
        .flat_map(|names| names.iter().map(|&n| (n, 0)))
        .collect();
    for (name, v) in f.counters() {
        debug_assert!(
            m.contains_key(name),
            "counter {name} not in SCHEME_COUNTERS"
        );
        let b = f
            .base_counters
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |&(_, b)| b);
        m.insert(name, v - b);
    }
    m
}

fn flow_result(sim: &Sim, flow: usize, end: Time, accuracy: Accuracy) -> FlowResult {
    let f = &sim.flows[flow];
    let topo = sim.topology();
    let st = f.sender.stats();
    let base = f.base_sender;
    let sink = f.sink_c.minus(&f.base_sink);
    let (begin, stop) = measured_span(sim, flow, end);
    let t = if stop > begin {
        to_secs(stop - begin)
    } else {
        0.0
    };
    let rate = |pkts: u64| match t {
        t if t > 0.0 => pkts as f64 * f64::from(f.plan.packet_size) * 8.0 / t,
        _ => 0.0,
    };
    let secs = |h: &crate::metrics::Histogram, q: f64| h.quantile(q).map(|v| v / 1e9);
    let (delay, e2e_delay, app_delay) = (f.delays.delay(), f.delays.e2e(), f.delays.app());
    let retransmits = st.retransmits - base.retransmits;
    let tcp = &f.plan.tcp;
    FlowResult {
        name: f.plan.name.clone(),
        src: topo.nodes[f.plan.src as usize].name.clone(),
        dst: topo.nodes[f.plan.dst as usize].name.clone(),
        variant: f.plan.variant.clone(),
        congestion: tcp.cc.name(),
        detector: tcp.detector.name(),
        responder: tcp.responder.name(),
        packet_size: f.plan.packet_size,
        measured_s: t,
        goodput_kbps: rate(sink.delivered) / 1e3,
        throughput_kbps: rate(sink.arrived) / 1e3,
        formula_throughput_mbps: rate(sink.arrived.saturating_sub(retransmits)) / 1e6,
        sent: st.sent - base.sent,
        retransmits,
        timeouts: st.timeouts - base.timeouts,
        fast_retransmits: st.fast_retransmits - base.fast_retransmits,
        wireless_frs: st.wireless_frs - base.wireless_frs,
        window_cuts: st.window_cuts - base.window_cuts,
        freezes: st.freezes - base.freezes,
        zero_window_probes: st.zero_window_probes - base.zero_window_probes,
        arrived: sink.arrived,
        delivered: sink.delivered,
        duplicates: sink.duplicates,
        acks_sent: sink.acks_sent,
        delay_mean_s: delay.mean().map(|v| v / 1e9),
        delay_p50_s: secs(&delay, 0.5),
        delay_p95_s: secs(&delay, 0.95),
        delay_p99_s: secs(&delay, 0.99),
        mean_rtt_s: ns_mean(st.rtt_sum_ns, st.rtt_samples),
        mean_rto_s: ns_mean(st.rto_after_sample_sum_ns, st.rtt_samples),
        mean_timeout_rto_s: ns_mean(st.timeout_rto_sum_ns, st.timeouts),
        finished_at_s: f.finished_at.map(to_secs),
        bs_retransmits: f.bs_retx - f.base_bs_retx,
        eln_acks: st.eln_acks - base.eln_acks,
        e2e_delay_mean_s: e2e_delay.mean().map(|v| v / 1e9),
        e2e_delay_p50_s: secs(&e2e_delay, 0.5),
        e2e_delay_p95_s: secs(&e2e_delay, 0.95),
        e2e_delay_p99_s: secs(&e2e_delay, 0.99),
        app_delay_mean_s: app_delay.mean().map(|v| v / 1e9),
        app_delay_p95_s: secs(&app_delay, 0.95),
        counters: scheme_counters(f),
        accuracy,
    }
}

/// The span a flow is measured over: from the later of its start and the
/// end of the warm-up to the earlier of its finish and `end`.
fn measured_span(sim: &Sim, flow: usize, end: Time) -> (Time, Time) {
    let f = &sim.flows[flow];
    let begin = f.plan.start.max(sim.scenario().warmup);
    (begin, f.finished_at.unwrap_or(end).min(end))
}

/// Each flow's detector accuracy over its measured span, in one pass over
/// the recoveries (a pass per flow would cost flows x recoveries).
fn flow_accuracies(sim: &Sim, end: Time) -> Vec<Accuracy> {
    let spans: Vec<(Time, Time)> = (0..sim.flows.len())
        .map(|i| measured_span(sim, i, end))
        .collect();
    let mut acc: Vec<Accuracy> = sim.flows.iter().map(|f| f.accuracy).collect();
    for r in sim.recoveries.iter() {
        let (begin, stop) = spans[r.flow as usize];
        if (begin..=stop).contains(&r.time) {
            acc[r.flow as usize].add(r);
        }
    }
    for (a, f) in acc.iter_mut().zip(&sim.flows) {
        *a = a.finish(f.plan.tcp.detector.name() == detect::none::ENTRY.name);
    }
    acc
}

/// The flows' accuracy counts pooled.
fn pooled_accuracy(flows: &[FlowResult]) -> Accuracy {
    let mut a = Accuracy::default();
    for f in flows {
        a.merge(&f.accuracy);
    }
    a.finish(flows.iter().all(|f| f.detector == detect::none::ENTRY.name))
}

impl RunResult {
    pub(crate) fn collect(sim: &Sim, wall_s: f64) -> RunResult {
        let (summary, flows) = Self::head(sim, wall_s);
        let (bs_state, bs_counters) = tables::bs_tables(sim, sim.scenario().duration);
        RunResult {
            summary,
            flows,
            drops: tables::drops(sim),
            recoveries: tables::recoveries(sim),
            timeseries: tables::timeseries(sim),
            bs_state,
            bs_counters,
            handoffs: sim.handoff_table(),
        }
    }

    /// The summary and the flows alone, without building the tables.
    pub(crate) fn head(sim: &Sim, wall_s: f64) -> (Summary, Vec<FlowResult>) {
        let sc = sim.scenario();
        let end: Time = sc.duration;
        let flows: Vec<FlowResult> = flow_accuracies(sim, end)
            .into_iter()
            .enumerate()
            .map(|(i, a)| flow_result(sim, i, end, a))
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_kbps).collect();
        // Packets in flight were counted, and the balance checked, when the
        // run ended (`Sim::release_run_state`).
        let packets = sim.counters;
        let summary = Summary {
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
            accuracy: pooled_accuracy(&flows),
            mac: sim.mac_measured(),
        };
        (summary, flows)
    }

    /// The JSON document of the Python contract (see python/tcpair/simulate/result.py).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a run result serialises")
    }

    /// [`Self::to_json`] as text, byte for byte, without a second copy of
    /// the whole answer as a JSON value (`answer.rs`).
    pub fn to_json_text(&self) -> String {
        self.to_json_text_then(&mut |_| {})
    }

    /// [`Self::to_json_text`], calling `counted` with the text's length
    /// before the text is written: a caller that holds memory it no longer
    /// needs (the run's freed state) can give it back before the text takes
    /// its room.
    pub fn to_json_text_then(&self, counted: &mut dyn FnMut(usize)) -> String {
        answer::object_text_then(
            &mut [
                ("summary", &|w| answer::write_as_value(w, &self.summary)),
                ("flows", &|w| answer::write_each_as_value(w, &self.flows)),
                ("drops", &|w| answer::write_value(w, &self.drops)),
                ("recoveries", &|w| answer::write_value(w, &self.recoveries)),
                ("timeseries", &|w| answer::write_value(w, &self.timeseries)),
                ("bs_state", &|w| answer::write_value(w, &self.bs_state)),
                ("bs_counters", &|w| {
                    answer::write_value(w, &self.bs_counters)
                }),
                ("handoffs", &|w| answer::write_value(w, &self.handoffs)),
            ],
            counted,
        )
    }
}
