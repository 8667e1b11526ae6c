//! Wires the layers together and runs a scenario: the event loop, packet
//! forwarding along precomputed paths, TCP agents at the end hosts, the
//! impairment pipelines at link exits, and the bookkeeping of ground truth.
//!
//! Per delivered data packet the cost is one event per hop for the data
//! packet and one per hop for its ACK; timers are re-armed lazily (a deadline
//! is stored, and the one pending timer event re-checks it when it fires).

mod result;

pub use result::{FlowResult, PacketCounters, RunResult};

use crate::bs::{BsAgent, BsCtx, BsOut, Verdict};
use crate::engine::{EventQueue, Time};
use crate::error::{ConfigError, SimError};
use crate::impair::{DropCause, PipeOut};
use crate::metrics::{
    DropCauseKind, DropRecord, Histogram, RecoveryKind, RecoveryRecord, Sample, SinkCounters,
};
use crate::net::{Accept, DirId, LinkKind, Routes, Topology};
use crate::packet::{flags, Arena, FlowId, Packet, PktKind, PktRef, Retx};
use crate::scenario::{FlowPlan, Scenario};
use crate::tcp::{
    AckInfo, RecoveryEvent, SenderOutput, SenderStats, SinkOutput, TcpSender, TcpSink,
};
use std::collections::{HashMap, VecDeque};

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
    SenderTimer {
        flow: FlowId,
    },
    SinkTimer {
        flow: FlowId,
    },
    PipeTimer {
        dir: DirId,
    },
    BsTimer {
        agent: u32,
    },
    Warmup,
    Sample,
}

pub(crate) struct FlowState {
    pub plan: FlowPlan,
    data_path: u32,
    ack_path: u32,
    pub sender: TcpSender,
    pub sink: TcpSink,
    /// Syndrome receiver counters at the end of the warm-up (zeros without one).
    pub syndrome_base: crate::schemes::syndrome::receiver::SyndromeStats,
    snd_timer_at: Option<Time>,
    sink_timer_at: Option<Time>,
    pub sink_c: SinkCounters,
    pub base_sink: SinkCounters,
    pub base_sender: SenderStats,
    pub delay: Histogram,
    /// Delay from a segment's first transmission to its first arrival.
    pub e2e_delay: Histogram,
    /// Delay from a segment's first transmission to its in-order delivery.
    pub app_delay: Histogram,
    /// First-transmission times of segments `first_base..`, for `e2e_delay`.
    first_tx: VecDeque<Time>,
    first_base: u32,
    /// CLRP receiver's declared holes at the end of the warm-up.
    pub base_clrp_holes: u64,
    /// Ground truth: segment -> cause of its latest drop not yet followed by
    /// a delivery. Looked up when the sender retransmits.
    lost: HashMap<u32, (DropCauseKind, LinkKind)>,
    pub finished_at: Option<Time>,
    /// Data packets injected by BS agents (local retransmissions), and the
    /// count at the end of the warm-up.
    pub bs_retx: u64,
    pub base_bs_retx: u64,
    /// (time, delivered segments) at recent samples, for moving-window throughput.
    tput_hist: VecDeque<(Time, u64)>,
}

impl FlowState {
    /// Holes the CLRP receiver declared so far (0 without one).
    pub fn clrp_holes(&self) -> u64 {
        self.sink.clrp_stats().map_or(0, |h| h.by_threshold)
    }

    /// When segment `seq` was first transmitted (if still remembered).
    fn first_tx_of(&self, seq: u32) -> Option<Time> {
        let i = seq.checked_sub(self.first_base)?;
        self.first_tx.get(i as usize).copied()
    }
}

/// A scenario being run.
pub struct Sim {
    q: EventQueue<Ev>,
    arena: Arena,
    topo: Topology,
    routes: Routes,
    pub(crate) flows: Vec<FlowState>,
    pipe_timer_at: Vec<Option<Time>>,
    scenario: Scenario,
    // Reused output buffers: no allocation per event.
    pipe_out: Vec<PipeOut>,
    snd_out: SenderOutput,
    sink_out: SinkOutput,
    pub(crate) drops: Vec<DropRecord>,
    pub(crate) recoveries: Vec<RecoveryRecord>,
    pub(crate) samples: Vec<Sample>,
    pub(crate) counters: PacketCounters,
    /// BS agents of all nodes; a node's chain is a contiguous range.
    pub(crate) agents: Vec<Box<dyn BsAgent>>,
    pub(crate) agent_node: Vec<crate::packet::NodeId>,
    /// Per node: the range of its agents in `agents`.
    node_chain: Vec<Option<(u32, u32)>>,
    agent_timer_at: Vec<Option<Time>>,
    bs_out: BsOut,
}

impl Sim {
    /// Validate and build a scenario from its value tree (TOML or JSON).
    pub fn from_value(value: &serde_json::Value) -> Result<Sim, ConfigError> {
        let (scenario, topo) = Scenario::build(value)?;
        Ok(Sim::new(scenario, topo))
    }

    pub fn new(scenario: Scenario, topo: Topology) -> Sim {
        let mut routes = Routes::default();
        let mut q = EventQueue::new();
        let flows = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, plan)| {
                q.schedule(plan.start, Ev::Start { flow: i as FlowId });
                FlowState {
                    data_path: routes.add(plan.data_path.clone()),
                    ack_path: routes.add(plan.ack_path.clone()),
                    sender: TcpSender::new(plan.tcp.clone()),
                    sink: TcpSink::new(plan.sink.clone()),
                    syndrome_base: Default::default(),
                    plan: plan.clone(),
                    snd_timer_at: None,
                    sink_timer_at: None,
                    sink_c: SinkCounters::default(),
                    base_sink: SinkCounters::default(),
                    base_sender: SenderStats::default(),
                    delay: Histogram::new(),
                    e2e_delay: Histogram::new(),
                    app_delay: Histogram::new(),
                    first_tx: VecDeque::new(),
                    first_base: 0,
                    base_clrp_holes: 0,
                    lost: HashMap::new(),
                    finished_at: None,
                    bs_retx: 0,
                    base_bs_retx: 0,
                    tput_hist: VecDeque::new(),
                }
            })
            .collect();
        if scenario.warmup > 0 {
            q.schedule(scenario.warmup, Ev::Warmup);
        }
        let mut agents: Vec<Box<dyn BsAgent>> = Vec::new();
        let mut agent_node = Vec::new();
        let mut node_chain = vec![None; topo.nodes.len()];
        for (node, specs) in &scenario.bs {
            let start = agents.len() as u32;
            for (j, a) in specs.iter().enumerate() {
                let path = format!("nodes[{node}].bs[{j}]");
                agents.push(
                    crate::schemes::build_agent(a, *node, &path)
                        .expect("validated by Scenario::build"),
                );
                agent_node.push(*node);
            }
            node_chain[*node as usize] = Some((start, agents.len() as u32));
        }
        if scenario.timeseries {
            q.schedule(0, Ev::Sample);
        }
        Sim {
            q,
            arena: Arena::new(),
            pipe_timer_at: vec![None; topo.dirs.len()],
            topo,
            routes,
            flows,
            scenario,
            pipe_out: Vec::with_capacity(16),
            snd_out: SenderOutput::default(),
            sink_out: SinkOutput::default(),
            drops: Vec::new(),
            recoveries: Vec::new(),
            samples: Vec::new(),
            counters: PacketCounters::default(),
            agent_timer_at: vec![None; agents.len()],
            agents,
            agent_node,
            node_chain,
            bs_out: BsOut::default(),
        }
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    pub fn now(&self) -> Time {
        self.q.now()
    }

    pub fn events_processed(&self) -> u64 {
        self.q.events_processed()
    }

    /// Run to the scenario's end time and summarize.
    pub fn run(mut self) -> Result<RunResult, SimError> {
        let wall = std::time::Instant::now();
        self.run_until(self.scenario.duration)?;
        let wall_s = wall.elapsed().as_secs_f64();
        Ok(RunResult::collect(&self, wall_s))
    }

    /// Process every event up to and including time `end`.
    pub fn run_until(&mut self, end: Time) -> Result<(), SimError> {
        let budget = self.scenario.event_budget.unwrap_or(u64::MAX);
        while let Some(t) = self.q.peek_time() {
            if t > end {
                break;
            }
            if self.q.events_processed() >= budget {
                return Err(SimError::EventBudgetExceeded {
                    budget,
                    sim_time_s: format!("{:.6}", crate::engine::to_secs(t)),
                });
            }
            let ev = self.q.pop().expect("peeked").event;
            self.handle(ev);
        }
        Ok(())
    }

    #[inline]
    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive { dir, pkt } => self.on_arrive(dir, pkt),
            Ev::Start { flow } => {
                let now = self.q.now();
                self.snd_out.clear();
                self.flows[flow as usize]
                    .sender
                    .start(now, &mut self.snd_out);
                self.apply_sender_output(flow);
            }
            Ev::SenderTimer { flow } => self.on_sender_timer(flow),
            Ev::SinkTimer { flow } => self.on_sink_timer(flow),
            Ev::PipeTimer { dir } => self.on_pipe_timer(dir),
            Ev::BsTimer { agent } => self.on_bs_timer(agent),
            Ev::Warmup => {
                for f in &mut self.flows {
                    f.base_bs_retx = f.bs_retx;
                    if let Some(s) = f.sink.syndrome_stats() {
                        f.syndrome_base = *s;
                    }
                    f.base_sink = f.sink_c;
                    f.base_sender = *f.sender.stats();
                    f.delay.clear();
                    f.e2e_delay.clear();
                    f.app_delay.clear();
                    f.base_clrp_holes = f.clrp_holes();
                }
            }
            Ev::Sample => self.on_sample(),
        }
    }

    // ---- network -------------------------------------------------------

    /// Send `pkt` on its next hop (or hand it to the local agent at the end).
    /// Returns false if the next link's queue dropped it.
    #[inline]
    fn forward(&mut self, pkt: PktRef) -> bool {
        let p = self.arena.get(pkt);
        let f = &self.flows[p.flow as usize];
        let path = if p.kind == PktKind::Data {
            f.data_path
        } else {
            f.ack_path
        };
        match self.routes.hop(path, p.hop) {
            None => {
                self.deliver_local(pkt);
                true
            }
            Some(dir) => {
                let now = self.q.now();
                let size = p.size;
                let d = &mut self.topo.dirs[dir as usize];
                match d.offer(now, size) {
                    Accept::ArrivesAt(t) => {
                        self.arena.get_mut(pkt).hop += 1;
                        self.q.schedule(t, Ev::Arrive { dir, pkt });
                        true
                    }
                    Accept::QueueFull => {
                        self.record_drop(dir, pkt, DropCauseKind::Queue);
                        false
                    }
                }
            }
        }
    }

    #[inline]
    fn path_of(&self, p: &Packet) -> u32 {
        let f = &self.flows[p.flow as usize];
        if p.kind == PktKind::Data {
            f.data_path
        } else {
            f.ack_path
        }
    }

    /// `pkt` has reached the far end of `in_dir`: through the node's BS
    /// agents (if it has any and the packet goes on), then onward.
    #[inline]
    fn at_node(&mut self, in_dir: DirId, pkt: PktRef) {
        let node = self.topo.dirs[in_dir as usize].to;
        if let Some((s, e)) = self.node_chain[node as usize] {
            let p = self.arena.get(pkt);
            if let Some(out_dir) = self.routes.hop(self.path_of(p), p.hop) {
                let ctx = BsCtx {
                    node,
                    in_kind: self.topo.dirs[in_dir as usize].kind,
                    out_kind: self.topo.dirs[out_dir as usize].kind,
                };
                self.run_chain(s, e, &ctx, pkt);
                return;
            }
        }
        self.forward(pkt);
    }

    /// Show `pkt` to agents `from..to` of one node, carry out what they ask,
    /// and forward it unless one absorbed it.
    fn run_chain(&mut self, from: u32, to: u32, ctx: &BsCtx, pkt: PktRef) {
        let now = self.q.now();
        for i in from..to {
            let mut p = *self.arena.get(pkt);
            let v = self.agents[i as usize].on_packet(now, ctx, &mut p, &mut self.bs_out);
            *self.arena.get_mut(pkt) = p;
            self.after_agent(i);
            if v == Verdict::Absorb {
                self.counters.absorbed += 1;
                self.arena.free(pkt);
                return;
            }
        }
        let p = *self.arena.get(pkt);
        if !self.forward(pkt) {
            for i in from..to {
                self.agents[i as usize].on_queue_drop(now, &p);
            }
        }
    }

    /// Inject what agent `i` asked for (through the rest of its node's
    /// chain) and re-arm its timer.
    fn after_agent(&mut self, i: u32) {
        if !self.bs_out.inject.is_empty() {
            let node = self.agent_node[i as usize];
            let (_, end) = self.node_chain[node as usize].expect("agent's node has a chain");
            let mut inj = std::mem::take(&mut self.bs_out.inject);
            for mut p in inj.drain(..) {
                let path = self.routes.path(self.path_of(&p));
                let Some(h) = path
                    .iter()
                    .position(|&d| self.topo.dirs[d as usize].from == node)
                else {
                    debug_assert!(
                        false,
                        "agent injected a packet of a flow not routed via its node"
                    );
                    continue;
                };
                let out_dir = path[h];
                let out_kind = self.topo.dirs[out_dir as usize].kind;
                let in_kind = if h > 0 {
                    self.topo.dirs[path[h - 1] as usize].kind
                } else {
                    out_kind
                };
                p.hop = h as u16;
                if p.kind == PktKind::Data {
                    self.flows[p.flow as usize].bs_retx += 1;
                }
                let r = self.arena.alloc(p);
                self.counters.injected += 1;
                let ctx = BsCtx {
                    node,
                    in_kind,
                    out_kind,
                };
                self.run_chain(i + 1, end, &ctx, r);
            }
            if self.bs_out.inject.capacity() == 0 {
                self.bs_out.inject = inj; // keep the buffer
            }
        }
        if let Some(dl) = self.agents[i as usize].next_deadline() {
            let slot = &mut self.agent_timer_at[i as usize];
            if slot.is_none_or(|t| t > dl) {
                *slot = Some(dl);
                self.q
                    .schedule(dl.max(self.q.now()), Ev::BsTimer { agent: i });
            }
        }
    }

    fn on_bs_timer(&mut self, i: u32) {
        let now = self.q.now();
        if self.agent_timer_at[i as usize] != Some(now) {
            return; // superseded by an earlier deadline
        }
        self.agent_timer_at[i as usize] = None;
        self.agents[i as usize].on_timer(now, &mut self.bs_out);
        self.after_agent(i);
    }

    fn on_arrive(&mut self, dir: DirId, pkt: PktRef) {
        let now = self.q.now();
        let d = &mut self.topo.dirs[dir as usize];
        d.in_transit -= 1;
        if d.pipeline.is_transparent() {
            self.at_node(dir, pkt);
            return;
        }
        let size = self.arena.get(pkt).size;
        let entered = d.entered_at(now, size);
        let arena = &mut self.arena;
        let counters = &mut self.counters;
        let mut clone = |h: u32| -> u32 {
            let mut c: Packet = *arena.get(h);
            c.flags |= flags::IMPAIR_COPY;
            counters.copies += 1;
            arena.alloc(c)
        };
        let mut out = std::mem::take(&mut self.pipe_out);
        d.pipeline
            .on_arrival(now, entered, pkt, size, &mut clone, &mut out);
        self.after_pipeline(dir, &mut out);
        self.pipe_out = out;
    }

    fn on_pipe_timer(&mut self, dir: DirId) {
        let now = self.q.now();
        if self.pipe_timer_at[dir as usize] != Some(now) {
            return; // superseded
        }
        self.pipe_timer_at[dir as usize] = None;
        let d = &mut self.topo.dirs[dir as usize];
        let mut out = std::mem::take(&mut self.pipe_out);
        d.pipeline.on_timer(now, &mut out);
        self.after_pipeline(dir, &mut out);
        self.pipe_out = out;
    }

    fn after_pipeline(&mut self, dir: DirId, out: &mut Vec<PipeOut>) {
        for o in out.drain(..) {
            match o {
                PipeOut::Deliver(h) => self.at_node(dir, h),
                PipeOut::Drop(h, cause) => {
                    let c = match cause {
                        DropCause::Corruption => DropCauseKind::Corruption,
                        DropCause::Outage => DropCauseKind::Outage,
                    };
                    self.record_drop(dir, h, c);
                }
            }
        }
        if let Some(dl) = self.topo.dirs[dir as usize].pipeline.next_deadline() {
            let slot = &mut self.pipe_timer_at[dir as usize];
            if slot.is_none_or(|t| t > dl) {
                *slot = Some(dl);
                self.q.schedule(dl, Ev::PipeTimer { dir });
            }
        }
    }

    fn record_drop(&mut self, dir: DirId, pkt: PktRef, cause: DropCauseKind) {
        let p = *self.arena.get(pkt);
        let link_kind = self.topo.dirs[dir as usize].kind;
        self.drops.push(DropRecord {
            time: self.q.now(),
            flow: p.flow,
            kind: p.kind,
            seq: p.seq,
            packet_id: p.id,
            dir,
            cause,
            link_kind,
            retx: p.retx,
        });
        if p.kind == PktKind::Data {
            self.flows[p.flow as usize]
                .lost
                .insert(p.seq, (cause, link_kind));
        }
        self.counters.dropped += 1;
        self.arena.free(pkt);
    }

    // ---- end hosts -------------------------------------------------------

    fn deliver_local(&mut self, pkt: PktRef) {
        let p = *self.arena.get(pkt);
        self.arena.free(pkt);
        self.counters.delivered += 1;
        match p.kind {
            PktKind::Data => self.on_data_at_sink(&p),
            PktKind::Ack => self.on_ack_at_sender(&p),
        }
    }

    fn on_data_at_sink(&mut self, p: &Packet) {
        let now = self.q.now();
        let flow = p.flow;
        let f = &mut self.flows[flow as usize];
        let rcv_before = f.sink.rcv_nxt();
        f.sink
            .on_data_tagged(now, p.seq, p.sent_at, &p.syn, &mut self.sink_out);
        f.sink_c.arrived += 1;
        if self.sink_out.duplicate {
            f.sink_c.duplicates += 1;
        } else {
            f.delay.record(now - p.sent_at);
            if let Some(t0) = f.first_tx_of(p.seq) {
                f.e2e_delay.record(now - t0);
            }
        }
        // Segments delivered in order to the application now: their delay
        // from first transmission includes any wait behind a hole.
        let rcv_nxt = f.sink.rcv_nxt();
        for seq in rcv_before..rcv_nxt {
            if let Some(t0) = f.first_tx_of(seq) {
                f.app_delay.record(now - t0);
            }
        }
        // Segments below rcv_nxt can only arrive again as duplicates.
        while f.first_base < rcv_nxt && f.first_tx.pop_front().is_some() {
            f.first_base += 1;
        }
        f.sink_c.delivered += u64::from(self.sink_out.new_in_order);
        if !f.lost.is_empty() {
            f.lost.remove(&p.seq);
        }
        self.after_sink(flow);
    }

    fn after_sink(&mut self, flow: FlowId) {
        let now = self.q.now();
        if let Some(ack) = self.sink_out.ack.take() {
            let f = &mut self.flows[flow as usize];
            f.sink_c.acks_sent += 1;
            let mut pkt = Packet::ack(
                flow,
                (f.plan.dst, f.plan.src),
                f.plan.ack_size,
                ack.ack,
                now,
                ack.ts_echo,
            );
            if ack.eln {
                pkt.flags |= flags::ELN;
            }
            pkt.sack = ack.sack;
            pkt.loss = ack.loss;
            let r = self.arena.alloc(pkt);
            self.counters.sent += 1;
            let _ = self.forward(r);
        }
        let f = &mut self.flows[flow as usize];
        if let Some(d) = f.sink.timer_deadline() {
            if f.sink_timer_at.is_none_or(|t| t > d) {
                f.sink_timer_at = Some(d);
                self.q.schedule(d, Ev::SinkTimer { flow });
            }
        }
    }

    fn on_sink_timer(&mut self, flow: FlowId) {
        let now = self.q.now();
        let f = &mut self.flows[flow as usize];
        if f.sink_timer_at != Some(now) {
            return;
        }
        f.sink_timer_at = None;
        f.sink.on_timer(now, &mut self.sink_out);
        self.after_sink(flow);
    }

    fn on_ack_at_sender(&mut self, p: &Packet) {
        let now = self.q.now();
        let info = AckInfo {
            ack: p.seq,
            ts_echo: p.ts_echo,
            sack: p.sack,
            eln: p.has_flag(flags::ELN),
            loss: p.loss,
        };
        self.snd_out.clear();
        self.flows[p.flow as usize]
            .sender
            .on_ack(now, &info, &mut self.snd_out);
        self.apply_sender_output(p.flow);
    }

    fn on_sender_timer(&mut self, flow: FlowId) {
        let now = self.q.now();
        let f = &mut self.flows[flow as usize];
        if f.snd_timer_at != Some(now) {
            return; // a stale event: the timer was re-armed earlier
        }
        f.snd_timer_at = None;
        match f.sender.rto_deadline() {
            Some(d) if d <= now => {
                self.snd_out.clear();
                f.sender.on_timer(now, &mut self.snd_out);
                self.apply_sender_output(flow);
            }
            Some(d) => {
                f.snd_timer_at = Some(d);
                self.q.schedule(d, Ev::SenderTimer { flow });
            }
            None => {}
        }
    }

    /// Carry out what the sender asked for: transmit, record recoveries with
    /// their ground truth, re-arm the timer lazily.
    fn apply_sender_output(&mut self, flow: FlowId) {
        let now = self.q.now();
        let out = std::mem::take(&mut self.snd_out);
        for ev in &out.events {
            let f = &self.flows[flow as usize];
            let (kind, seq, window_cut) = match *ev {
                RecoveryEvent::FastRetransmit { seq, window_cut } => {
                    (RecoveryKind::FastRetransmit, seq, window_cut)
                }
                RecoveryEvent::Timeout { seq } => (RecoveryKind::Timeout, seq, true),
                RecoveryEvent::ClrpRetransmit { seq } => (RecoveryKind::ClrpRetransmit, seq, false),
            };
            self.recoveries.push(RecoveryRecord {
                time: now,
                flow,
                kind,
                seq,
                window_cut,
                true_cause: f.lost.get(&seq).copied(),
            });
        }
        for seg in &out.segs {
            let f = &mut self.flows[flow as usize];
            if !seg.retransmit && seg.seq >= f.first_base {
                // First transmissions come in sequence order.
                debug_assert_eq!(seg.seq, f.first_base + f.first_tx.len() as u32);
                f.first_tx.push_back(now);
            }
            let mut pkt = Packet::data(
                flow,
                (f.plan.src, f.plan.dst),
                f.plan.packet_size,
                seg.seq,
                now,
            );
            if seg.retransmit {
                pkt.retx = Retx::Sender;
            }
            let r = self.arena.alloc(pkt);
            self.counters.sent += 1;
            let _ = self.forward(r);
        }
        self.snd_out = out;
        let f = &mut self.flows[flow as usize];
        if let Some(d) = f.sender.rto_deadline() {
            if f.snd_timer_at.is_none_or(|t| t > d) {
                f.snd_timer_at = Some(d);
                self.q.schedule(d, Ev::SenderTimer { flow });
            }
        }
        if f.finished_at.is_none() && f.sender.finished() {
            f.finished_at = Some(now);
        }
    }

    // ---- measurement -----------------------------------------------------

    fn on_sample(&mut self) {
        let now = self.q.now();
        let window = self.scenario.throughput_window;
        for (i, f) in self.flows.iter_mut().enumerate() {
            let delivered = f.sink_c.delivered;
            f.tput_hist.push_back((now, delivered));
            while f.tput_hist.len() > 1 && f.tput_hist[0].0 + window < now {
                f.tput_hist.pop_front();
            }
            let (t0, d0) = f.tput_hist[0];
            let tput = if now > t0 {
                (delivered - d0) as f64 * f64::from(f.plan.packet_size) * 8.0
                    / crate::engine::to_secs(now - t0)
                    / 1e3
            } else {
                0.0
            };
            self.samples.push(Sample {
                time: now,
                flow: i as FlowId,
                cwnd: f.sender.cwnd(),
                ssthresh: f.sender.ssthresh(),
                seq_sent: i64::from(f.sender.max_sent()) - 1,
                throughput_kbps: tput,
            });
        }
        let next = now + self.scenario.sample_interval;
        if next <= self.scenario.duration {
            self.q.schedule(next, Ev::Sample);
        }
    }

    /// Packets currently inside the network (queued, on a wire, or held by an
    /// impairment), counted from the links' own counters.
    pub fn in_flight(&self) -> u64 {
        self.topo
            .dirs
            .iter()
            .map(|d| d.in_transit + d.pipeline.held() as u64)
            .sum()
    }

    /// Packets allocated in the arena (must equal `in_flight()`).
    pub fn arena_live(&self) -> usize {
        self.arena.live()
    }
}

/// Run a scenario given as TOML text.
pub fn run_toml(text: &str) -> Result<RunResult, SimError> {
    let v = crate::scenario::parse_toml(text)?;
    Sim::from_value(&v)?.run()
}

/// Run a scenario given as JSON text.
pub fn run_json(text: &str) -> Result<RunResult, SimError> {
    let v = crate::scenario::parse_json(text)?;
    Sim::from_value(&v)?.run()
}
