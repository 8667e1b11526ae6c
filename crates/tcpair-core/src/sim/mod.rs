//! Wires the layers together and runs a scenario: the event loop, packet
//! forwarding along precomputed paths, TCP agents at the end hosts, the
//! impairment pipelines at link exits, and the bookkeeping of ground truth.
//!
//! Per delivered data packet the cost is one event per hop for the data
//! packet and one per hop for its ACK; timers are re-armed lazily (a deadline
//! is stored, and the one pending timer event re-checks it when it fires).
//!
//! Where the code lives: this file (the simulator, its events, the run
//! loop), `net` (forwarding, links, impairments, drops), `agents` (BS-agent
//! chains), `hosts` (senders and receivers), `measure` (warm-up, time
//! series), `flow` (per-flow state), `result`, `accuracy` and `tables` (the summary);
//! `bare_heap` (the event loop with nothing to do: the limit benchmarks compare with).

mod accuracy;
mod agents;
mod answer;
pub mod bare_heap;
mod budget;
mod delays;
mod flow;
mod hosts;
mod measure;
mod mobility;
mod net;
mod parts;
mod pcap;
mod prefetch;
mod result;
mod tables;
mod trace;
mod wifi;

pub use accuracy::Accuracy;
pub use result::{FlowResult, PacketCounters, RunResult, Summary};

use crate::bs::{BsAgent, BsOut};
use crate::engine::{EventQueue, Time};
use crate::error::{ConfigError, SimError};
use crate::impair::PipeOut;
use crate::metrics::{DropRecord, RecoveryRecord, Sample};
use crate::net::{DirId, Routes, Topology};
use crate::packet::{Arena, FlowId, NodeId, PktRef};
use crate::scenario::Scenario;
use crate::tcp::{SenderOutput, SinkOutput};
use flow::FlowState;

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// Packet `pkt` reaches the far end of link direction `dir`.
    Arrive {
        dir: DirId,
        pkt: PktRef,
    },
    Start {
        flow: FlowId,
    },
    /// A data packet held by the sender's processing jitter leaves now.
    Send {
        pkt: PktRef,
    },
    SenderTimer {
        flow: FlowId,
    },
    SinkTimer {
        flow: FlowId,
    },
    PipeTimer {
        dir: DirId,
    },
    /// A BS agent's timer for one connection.
    BsTimer {
        agent: u32,
        flow: FlowId,
    },
    /// The earliest pending timer of shared medium `medium` (`sim::wifi`),
    /// unless a later `token` has replaced it.
    Mac {
        medium: u32,
        token: u32,
    },
    /// Handoff `i` of the mobile host starts (or, with `end`, ends).
    Handoff {
        i: u32,
        end: bool,
    },
    /// Freeze-TCP: flow `flow`'s receiver is warned of handoff `i`.
    Freeze {
        i: u32,
        flow: FlowId,
    },
    Warmup,
    Sample,
}

/// Bytes of one pending event in the queue (time, insertion counter and the
/// event): what the bare-heap benchmark (`benches/throughput.rs`) pushes and pops.
pub const QUEUED_EVENT_BYTES: usize = std::mem::size_of::<crate::engine::Scheduled<Ev>>();

/// A scenario being run.
pub struct Sim {
    q: EventQueue<Ev>,
    arena: Arena,
    topo: Topology,
    routes: Routes,
    flows: Vec<FlowState>,
    pipe_timer_at: Vec<Option<Time>>,
    scenario: Scenario,
    // Reused output buffers: no allocation per event.
    pipe_out: Vec<PipeOut>,
    snd_out: SenderOutput,
    sink_out: SinkOutput,
    drops: Vec<DropRecord>,
    recoveries: Vec<RecoveryRecord>,
    samples: Vec<Sample>,
    counters: PacketCounters,
    /// BS agents of all nodes; a node's chain is a contiguous range.
    agents: Vec<Box<dyn BsAgent>>,
    agent_node: Vec<NodeId>,
    /// Per node: the range of its agents in `agents`.
    node_chain: Vec<Option<(u32, u32)>>,
    agent_timer_at: Vec<Option<Time>>,
    bs_out: BsOut,
    mac_out: Vec<crate::net::wifi::MacOut>,
    /// Per medium: its pending timers (`sim::wifi`).
    mac_timers: Vec<wifi::MacTimers>,
    /// The media's counters at the end of the warm-up.
    mac_at_warmup: crate::net::wifi::MacCounters,
    /// The event trace and pcap capture, when the scenario asks for them.
    trace: Option<Box<trace::Tracer>>,
    /// The mobile host, if the scenario has one.
    mobility: Option<mobility::Mobility>,
    /// The independent parts of the network and their event queues (the
    /// running part's queue is `q`).
    parts: parts::Parts,
}

impl Sim {
    /// Validate and build a scenario from its value tree (TOML or JSON).
    pub fn from_value(value: &serde_json::Value) -> Result<Sim, ConfigError> {
        let (scenario, topo) = Scenario::build(value)?;
        Ok(Sim::new(scenario, topo))
    }

    /// [`Sim::from_value`] with parts written outside the core
    /// (`crate::scenario::plugins`).
    pub fn from_value_with(
        value: &serde_json::Value,
        plugins: &dyn crate::scenario::plugins::Plugins,
    ) -> Result<Sim, ConfigError> {
        let (scenario, topo) = Scenario::build_with(value, plugins)?;
        Ok(Sim::new(scenario, topo))
    }

    /// The run of the scenario in JSON text `text` (with parts written
    /// outside the core). The parsed text is dropped once the scenario is
    /// built, before the run's state is: with many flows it is a few KiB a
    /// flow that nothing reads again, and it would add to the peak.
    pub fn from_json_with(
        text: &str,
        plugins: &dyn crate::scenario::plugins::Plugins,
    ) -> Result<Sim, ConfigError> {
        let (scenario, topo) = {
            let value = crate::scenario::parse_json(text)?;
            Scenario::build_with(&value, plugins)?
        };
        Ok(Sim::new(scenario, topo))
    }

    /// Build a run; its independent parts get a queue each and run one
    /// after another unless it traces packets, moves a mobile host or has a
    /// shared medium (`sim/parts.rs`).
    pub fn new(scenario: Scenario, topo: Topology) -> Sim {
        let separate =
            scenario.trace.is_none() && scenario.mobility.is_none() && topo.media.is_empty();
        Sim::build(scenario, topo, separate)
    }

    /// [`Sim::new`] with one event queue for every part, their events
    /// interleaved in time order (the same results, more slowly with many
    /// parts; for tests that compare the two).
    pub fn new_interleaved(scenario: Scenario, topo: Topology) -> Sim {
        Sim::build(scenario, topo, false)
    }

    fn build(mut scenario: Scenario, topo: Topology, separate: bool) -> Sim {
        // The spec's lists serve `tcpair validate` alone; a run has their
        // built form (a few KiB per flow with thousands of flows).
        let spec = &mut scenario.spec;
        (spec.nodes, spec.links, spec.media, spec.flows) = Default::default();
        let mut routes = Routes::default();
        let (parts, q) = parts::Parts::new(&scenario, &topo, separate);
        let flows: Vec<FlowState> = scenario
            .flows
            .iter()
            .map(|plan| FlowState::new(plan, &mut routes, scenario.seed))
            .collect();
        let mut agents: Vec<Box<dyn BsAgent>> = Vec::new();
        let mut agent_node = Vec::new();
        let mut node_chain = vec![None; topo.nodes.len()];
        for n in std::mem::take(&mut scenario.bs) {
            let start = agents.len() as u32;
            agent_node.extend(std::iter::repeat_n(n.node, n.agents.len()));
            agents.extend(n.agents);
            node_chain[n.node as usize] = Some((start, agents.len() as u32));
        }
        let trace = scenario.trace.clone().map(|filter| {
            let names = scenario.flows.iter().map(|f| f.name.clone()).collect();
            Box::new(trace::Tracer::new(filter, &topo, names))
        });
        let mobility = std::mem::take(&mut scenario.mobility)
            .map(|m| mobility::Mobility::new(m, topo.dirs.len(), scenario.flows.len()));
        let mut arena = Arena::new();
        arena.set_id_spaces(parts.of_flow.clone());
        let mac_timers = topo.media.iter().map(|_| Default::default()).collect();
        let mut sim = Sim {
            trace,
            q,
            arena,
            pipe_timer_at: vec![None; topo.dirs.len()],
            topo,
            routes,
            scenario,
            pipe_out: Vec::with_capacity(16),
            snd_out: SenderOutput::default(),
            sink_out: SinkOutput::default(),
            drops: Vec::new(),
            recoveries: Vec::new(),
            samples: Vec::new(),
            counters: PacketCounters::default(),
            agent_timer_at: vec![None; agents.len() * flows.len()],
            flows,
            agents,
            agent_node,
            node_chain,
            bs_out: BsOut::default(),
            mac_out: Vec::with_capacity(8),
            mac_timers,
            mac_at_warmup: Default::default(),
            mobility,
            parts,
        };
        sim.schedule_first_events();
        sim.defer_shared_totals();
        sim.set_prefetching_by_size();
        sim
    }

    /// The events a run starts with: each flow's start, the end of the
    /// warm-up and the first time series sample in every part, handoffs.
    fn schedule_first_events(&mut self) {
        for i in 0..self.flows.len() {
            let flow = i as FlowId;
            self.schedule_for(flow, self.flows[i].plan.start, Ev::Start { flow });
        }
        if self.scenario.warmup > 0 {
            self.schedule_everywhere(self.scenario.warmup, Ev::Warmup);
        }
        if self.scenario.timeseries {
            self.schedule_everywhere(0, Ev::Sample);
        }
        self.schedule_handoffs();
    }

    /// Whether the event loop requests the coming events' state ahead of
    /// time (`sim/prefetch.rs`): by default in a part of 2,000 flows or more.
    /// Results are identical either way; only the speed differs.
    pub fn set_prefetching(&mut self, on: bool) {
        let depth = if on { prefetch::LOOKAHEAD } else { 0 };
        self.for_each_queue(|_, q| q.set_lookahead(depth));
    }

    fn set_prefetching_by_size(&mut self) {
        let big: Vec<bool> = (0..self.parts.len())
            .map(|p| self.parts.flows[p].len() >= prefetch::MIN_FLOWS)
            .collect();
        let interleaved = self.parts.interleaved();
        let all = self.flows.len() >= prefetch::MIN_FLOWS;
        self.for_each_queue(|p, q| {
            let on = if interleaved { all } else { big[p] };
            q.set_lookahead(if on { prefetch::LOOKAHEAD } else { 0 });
        });
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Hand the event trace's chunks to `sink` (without one the rows are
    /// counted and dropped). Only meaningful when the scenario has `[trace]`.
    pub fn set_trace_sink(&mut self, sink: Box<dyn crate::metrics::trace::TraceSink>) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.set_sink(sink);
        }
    }

    /// Rows the event trace has recorded so far (0 when tracing is off).
    pub fn trace_rows(&self) -> u64 {
        self.trace.as_ref().map_or(0, |t| t.rows)
    }

    /// Run to the scenario's end time and summarize.
    pub fn run(self) -> Result<RunResult, SimError> {
        self.run_checked(&mut || false)
    }

    /// [`Sim::run`], asking `stop` every [`CHECK_EVERY`] events whether to
    /// give up (e.g. on Ctrl-C); then the run ends with
    /// [`SimError::Interrupted`] and its partial results are dropped.
    pub fn run_checked(self, stop: &mut dyn FnMut() -> bool) -> Result<RunResult, SimError> {
        let (mut sim, wall_s) = self.run_to_end(stop)?;
        sim.release_run_state();
        Ok(RunResult::collect(&sim, wall_s))
    }

    /// [`Sim::run_checked`] returning only the summary and the flows: the
    /// tables (a row per drop, per recovery, ...) are not built, and the
    /// rows of the drops and recoveries tables not even kept while the run
    /// goes (the flows' columns are counted either way, as with
    /// `output.drops` and `output.recoveries` false).
    pub fn run_summary_checked(
        mut self,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<(Summary, Vec<FlowResult>), SimError> {
        self.scenario.keep_drops = false;
        self.scenario.keep_recoveries = false;
        let (mut sim, wall_s) = self.run_to_end(stop)?;
        sim.release_run_state();
        Ok(RunResult::head(&sim, wall_s))
    }

    /// [`Sim::run_summary_checked`] as JSON text, `{"flows": [...],
    /// "summary": {...}}`: what `tcpair run` shows (the Python binding's
    /// `run_summary` and `tcpair-sim --summary` answer with it).
    pub fn run_summary_json(self, stop: &mut dyn FnMut() -> bool) -> Result<String, SimError> {
        let (summary, flows) = self.run_summary_checked(stop)?;
        Ok(summary_json(&summary, &flows))
    }

    /// Run to the scenario's end time; the wall time of the run (`wall_s`).
    fn run_to_end(mut self, stop: &mut dyn FnMut() -> bool) -> Result<(Self, f64), SimError> {
        let wall = std::time::Instant::now();
        self.open_pcap()?;
        self.run_until_checked(self.scenario.duration, stop)?;
        self.finish_trace()?;
        Ok((self, wall.elapsed().as_secs_f64()))
    }

    /// At the end of a run, before its results are built: count the packets
    /// in flight and check the packet balance, then give back the memory
    /// only the run needed (the packets, those the BS agents' caches hold,
    /// the pending events, the logs of deferred totals), so that building
    /// the results does not add to the run's peak. With many flows that
    /// state is most of the run's memory.
    fn release_run_state(&mut self) {
        self.counters.in_flight = self.in_flight();
        self.check_balance();
        self.arena.release_slots();
        self.q.release_pending();
        self.parts.release_pending();
        for a in &mut self.agents {
            a.meters_mut().release_log();
            a.release_packets();
        }
    }

    /// Checked on every run (it costs one pass over the links and the
    /// flows): the packet balance, and that no finite transfer delivered or
    /// sent more segments than it has. A leak, a double count or a segment
    /// made up is a simulator bug, reported as an internal error.
    fn check_balance(&self) {
        let packets = self.counters;
        assert!(
            packets.conserved() && packets.in_flight == self.arena.live() as u64,
            "packet balance broken: {packets:?}, arena holds {}",
            self.arena.live()
        );
        for f in &self.flows {
            if let Err(e) = f.check_transfer() {
                panic!("finite transfer broken: {e}");
            }
        }
    }

    /// Process every event up to and including time `end`.
    pub fn run_until(&mut self, end: Time) -> Result<(), SimError> {
        self.run_until_checked(end, &mut || false)
    }

    /// [`Sim::run_until`] with the periodic checks of [`Sim::run_checked`].
    pub fn run_until_checked(
        &mut self,
        end: Time,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<(), SimError> {
        self.run_parts_until(end, stop)?;
        self.check_slice(self.now(), stop)
    }

    /// The checks made once per slice of events: a pending interrupt, the
    /// tables' row cap (`output.max_rows`) and the memory budget
    /// (`run.memory_budget`).
    #[cold]
    fn check_slice(&self, t: Time, stop: &mut dyn FnMut() -> bool) -> Result<(), SimError> {
        if stop() {
            return Err(SimError::Interrupted);
        }
        let cap = self.scenario.max_rows;
        for (table, rows) in [
            ("drops", self.drops.len()),
            ("recoveries", self.recoveries.len()),
            ("timeseries", self.samples.len()),
        ] {
            if rows as u64 > cap {
                return Err(SimError::TableFull {
                    table,
                    cap,
                    sim_time_s: format!("{:.6}", crate::engine::to_secs(t)),
                });
            }
        }
        self.check_memory(|| format!("{:.6}", crate::engine::to_secs(t)))
    }

    #[inline]
    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive { dir, pkt } => self.on_arrive(dir, pkt),
            Ev::Start { flow } => self.on_start(flow),
            Ev::Send { pkt } => self.on_send(pkt),
            Ev::SenderTimer { flow } => self.on_sender_timer(flow),
            Ev::SinkTimer { flow } => self.on_sink_timer(flow),
            Ev::PipeTimer { dir } => self.on_pipe_timer(dir),
            Ev::BsTimer { agent, flow } => self.on_bs_timer(agent, flow),
            Ev::Mac { medium, token } => self.on_mac_timer(medium, token),
            Ev::Handoff { i, end } => self.on_handoff(i, end),
            Ev::Freeze { i, flow } => self.on_freeze(i, flow),
            Ev::Warmup => self.on_warmup(),
            Ev::Sample => self.on_sample(),
        }
    }
}

/// Run a scenario given as TOML text.
pub fn run_toml(text: &str) -> Result<RunResult, SimError> {
    let sim = Sim::from_value(&crate::scenario::parse_toml(text)?)?;
    sim.run()
}

/// `{"flows": [...], "summary": {...}}`, written one flow at a time: each
/// goes through a JSON value of its own (keys sorted, as in every answer)
/// that is written out before the next is made. Making one value of all
/// the flows, then one of the whole answer (which copied it), held three
/// copies of the flows at the end of a run: at 10,000 flows about 120 MiB,
/// the peak of a Reno run.
fn summary_json(summary: &Summary, flows: &[FlowResult]) -> String {
    answer::object_text(&mut [
        ("flows", &|w| answer::write_each_as_value(w, flows)),
        ("summary", &|w| answer::write_as_value(w, summary)),
    ])
}

/// Run a scenario given as JSON text.
pub fn run_json(text: &str) -> Result<RunResult, SimError> {
    run_json_checked(text, &mut || false)
}

/// Run a scenario given as JSON text, asking `stop` every [`CHECK_EVERY`]
/// events whether to give up (the Python binding checks for Ctrl-C).
pub fn run_json_checked(text: &str, stop: &mut dyn FnMut() -> bool) -> Result<RunResult, SimError> {
    let sim = Sim::from_json_with(text, &crate::scenario::plugins::NoPlugins)?;
    sim.run_checked(stop)
}

/// Events between two checks for an interrupt and for full tables: about a
/// few milliseconds of work, so Ctrl-C is felt at once and the check costs
/// nothing measurable.
pub const CHECK_EVERY: u64 = 1 << 14;
