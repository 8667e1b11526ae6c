//! The event trace and pcap capture of a run (docs/trace.md). Off unless the
//! scenario has `[trace]`; every hook in the forwarding path is one test of
//! `self.trace.is_some()` and calls into this file only when it holds.

use super::pcap::PcapSet;
use super::Sim;
use crate::engine::Time;
use crate::metrics::trace::{TraceChunk, TraceKind, TraceLabels, TraceRow, TraceSink, CHUNK_ROWS};
use crate::net::{DirId, Topology};
use crate::packet::{flags, NodeId, Packet, PktKind, Retx};
use crate::scenario::TraceFilter;
use std::collections::HashMap;

/// The trace's state: the filter, the chunk being filled, the sink.
pub(super) struct Tracer {
    pub(super) filter: TraceFilter,
    chunk: TraceChunk,
    labels: TraceLabels,
    detail_ix: HashMap<String, u16>,
    sink: Option<Box<dyn TraceSink>>,
    pub(super) pcap: Option<PcapSet>,
    /// Per flow: the (cwnd, ssthresh) of the last `window` row.
    last_window: Vec<(f64, f64)>,
    /// Why a BS agent is being run now ("ack", "data", "timer").
    pub(super) bs_reason: &'static str,
    pub(super) error: Option<String>,
    pub(super) rows: u64,
}

impl Tracer {
    pub(super) fn new(filter: TraceFilter, topo: &Topology, flows: Vec<String>) -> Tracer {
        let dirs = topo
            .dirs
            .iter()
            .map(|d| {
                let side = if d.forward { "forward" } else { "reverse" };
                format!("{}:{side}", topo.link_names[d.link as usize])
            })
            .collect();
        let labels = TraceLabels {
            nodes: topo.nodes.iter().map(|n| n.name.clone()).collect(),
            dirs,
            flows,
            details: vec![String::new()],
        };
        let n_flows = labels.flows.len();
        Tracer {
            filter,
            chunk: TraceChunk::with_capacity(CHUNK_ROWS),
            labels,
            detail_ix: HashMap::new(),
            sink: None,
            pcap: None,
            last_window: vec![(f64::NAN, f64::NAN); n_flows],
            bs_reason: "",
            error: None,
            rows: 0,
        }
    }

    pub(super) fn set_sink(&mut self, sink: Box<dyn TraceSink>) {
        self.sink = Some(sink);
    }

    /// The index of `s` in the string table.
    fn detail(&mut self, s: &str) -> u16 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&i) = self.detail_ix.get(s) {
            return i;
        }
        let i = self.labels.details.len() as u16;
        self.labels.details.push(s.to_string());
        self.detail_ix.insert(s.to_string(), i);
        i
    }

    fn push(&mut self, row: &TraceRow) {
        if !self.filter.events {
            return;
        }
        self.rows += 1;
        self.chunk.push(row);
        if self.chunk.len() >= CHUNK_ROWS {
            self.flush();
        }
    }

    /// Hand the rows so far to the sink.
    pub(super) fn flush(&mut self) {
        if self.chunk.is_empty() {
            return;
        }
        if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
            if let Err(e) = sink.chunk(&self.chunk, &self.labels) {
                self.error = Some(e);
            }
        }
        self.chunk.clear();
    }
}

/// Unbounded ssthresh (the sender's initial 2^32 - 1 segments) as +inf.
fn window_value(w: f64) -> f64 {
    if w >= f64::from(u32::MAX) {
        f64::INFINITY
    } else {
        w
    }
}

/// A row about packet `p` at `node` (and on `dir`).
fn packet_row(t: Time, kind: TraceKind, p: &Packet, node: NodeId, dir: Option<DirId>) -> TraceRow {
    TraceRow {
        packet_id: p.id as i64,
        flow: p.flow as i32,
        seq: i64::from(p.seq),
        size: p.size,
        is_ack: i8::from(p.kind == PktKind::Ack),
        origin: match (p.kind, p.retx) {
            (PktKind::Ack, _) => -1,
            (_, Retx::Original) => 0,
            (_, Retx::Sender) => 1,
            (_, Retx::BaseStation) => 2,
        },
        eln: p.has_flag(flags::ELN),
        node: node as i32,
        dir: dir.map_or(-1, |d| d as i32),
        ..TraceRow::new(t, kind)
    }
}

impl Sim {
    /// Record an event about packet `p` at time `t` if the filter keeps it.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_packet(
        &mut self,
        t: Time,
        kind: TraceKind,
        p: &Packet,
        (node, dir): (NodeId, Option<DirId>),
        detail: &str,
    ) {
        // A transmission start lies ahead: the queue then is not known yet.
        let queue = match dir {
            Some(d) if kind != TraceKind::Transmit => self.queue_len(d),
            _ => -1,
        };
        let Some(tr) = self.trace.as_deref_mut() else {
            return;
        };
        if !tr.filter.keeps_flow(p.flow) || !tr.filter.keeps_place(Some(node), dir, t) {
            return;
        }
        let mut row = packet_row(t, kind, p, node, dir);
        row.queue = queue;
        row.detail = tr.detail(detail);
        if kind == TraceKind::Deliver {
            row.value = i64::from(self.sink_out.new_in_order);
            row.seq = i64::from(self.flows[p.flow as usize].sink.rcv_nxt());
        }
        if kind == TraceKind::BsCounterAttached {
            row.value = p
                .opts
                .syn
                .iter()
                .map(|t| i64::from(t.an))
                .max()
                .unwrap_or(-1);
        }
        tr.push(&row);
    }

    /// Packets waiting in link direction `d`'s queue now (-1 on a medium).
    fn queue_len(&mut self, d: DirId) -> i32 {
        let now = self.q.now();
        let dir = &mut self.topo.dirs[d as usize];
        if dir.medium.is_some() {
            -1
        } else {
            dir.waiting(now) as i32
        }
    }

    /// The sender's decisions just carried out, and its window if it changed.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_sender(&mut self, flow: crate::packet::FlowId) {
        let now = self.q.now();
        let f = &self.flows[flow as usize];
        let node = f.plan.src;
        let responder = f.plan.tcp.responder.name();
        let (cwnd, ssth) = (f.sender.cwnd(), window_value(f.sender.ssthresh()));
        let Some(tr) = self.trace.as_deref_mut() else {
            return;
        };
        if !tr.filter.keeps_flow(flow) || !tr.filter.keeps_place(Some(node), None, now) {
            return;
        }
        let base = TraceRow {
            flow: flow as i32,
            node: node as i32,
            ..TraceRow::new(now, TraceKind::Window)
        };
        for ev in &self.snd_out.events {
            let row = match *ev {
                crate::tcp::RecoveryEvent::FastRetransmit(d) => {
                    let verdict = match d.verdict {
                        crate::tcp::Cause::Congestion => "congestion",
                        crate::tcp::Cause::Wireless => "wireless",
                    };
                    TraceRow {
                        kind: TraceKind::FastRetransmit,
                        seq: i64::from(d.seq),
                        detail: tr.detail(&format!("{verdict}; responder {responder}")),
                        cwnd: d.after.cwnd,
                        ssthresh: window_value(d.after.ssthresh),
                        ..base
                    }
                }
                crate::tcp::RecoveryEvent::Timeout { seq, after, .. } => TraceRow {
                    kind: TraceKind::Timeout,
                    seq: i64::from(seq),
                    cwnd: after.cwnd,
                    ssthresh: window_value(after.ssthresh),
                    ..base
                },
                crate::tcp::RecoveryEvent::Retransmit { .. } => continue,
            };
            tr.push(&row);
        }
        let last = &mut tr.last_window[flow as usize];
        if last.0.to_bits() != cwnd.to_bits() || last.1.to_bits() != ssth.to_bits() {
            *last = (cwnd, ssth);
            tr.push(&TraceRow {
                cwnd,
                ssthresh: ssth,
                ..base
            });
        }
    }

    /// Compare a packet before and after BS agent `agent` saw it and record
    /// what the agent did to it.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_agent(
        &mut self,
        agent: u32,
        (before, after): (&Packet, &Packet),
        absorbed: bool,
        held_before: u64,
    ) {
        let now = self.q.now();
        let node = self.agent_node[agent as usize];
        let at = (node, None);
        let name = self.agents[agent as usize].name();
        let held = self.agents[agent as usize].meters().total().pkts;
        if after.kind == PktKind::Data && held > held_before {
            self.trace_packet(now, TraceKind::BsCache, after, at, name);
        }
        if absorbed {
            let kind = if after.kind == PktKind::Ack {
                TraceKind::BsDupackSuppressed
            } else {
                TraceKind::BsAbsorb
            };
            self.trace_packet(now, kind, after, at, name);
        }
        if after.has_flag(flags::ELN) && !before.has_flag(flags::ELN) {
            self.trace_packet(now, TraceKind::BsElnSet, after, at, name);
        }
        if after.opts.syn != before.opts.syn {
            let kind = if after.opts.syn.is_empty() {
                TraceKind::BsOptionStripped
            } else {
                TraceKind::BsCounterAttached
            };
            self.trace_packet(now, kind, after, at, "syndrome");
        }
        if after.opts.loss != before.opts.loss {
            let kind = if after.opts.loss.is_empty() {
                TraceKind::BsOptionStripped
            } else {
                TraceKind::BsOptionAdded
            };
            self.trace_packet(now, kind, after, at, "clrp loss blocks");
        }
    }

    /// A packet agent `agent` injected (its id already given).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_inject(&mut self, agent: u32, p: &Packet, reason: &str) {
        let now = self.q.now();
        let node = self.agent_node[agent as usize];
        let name = self.agents[agent as usize].name();
        let (kind, detail) = if p.kind == PktKind::Data && p.retx == Retx::BaseStation {
            (TraceKind::BsLocalRetransmit, format!("{name}: {reason}"))
        } else {
            (TraceKind::BsInject, name.to_string())
        };
        self.trace_packet(now, kind, p, (node, None), &detail);
    }
}

impl Sim {
    /// Create the pcap directory and files if the scenario asks for them.
    pub(super) fn open_pcap(&mut self) -> Result<(), crate::error::SimError> {
        let Some(tr) = self.trace.as_deref_mut() else {
            return Ok(());
        };
        let Some(dir) = tr.filter.pcap.clone() else {
            return Ok(());
        };
        let keep: Vec<bool> = (0..self.topo.dirs.len())
            .map(|d| tr.filter.everywhere || tr.filter.dirs[d])
            .collect();
        let set = PcapSet::open(std::path::Path::new(&dir), &tr.labels.dirs, &keep)
            .map_err(crate::error::SimError::Output)?;
        tr.pcap = Some(set);
        Ok(())
    }

    /// Flush the last chunk and the pcap files; report a write error.
    pub(super) fn finish_trace(&mut self) -> Result<(), crate::error::SimError> {
        let Some(tr) = self.trace.as_deref_mut() else {
            return Ok(());
        };
        tr.flush();
        if let Some(p) = tr.pcap.as_mut() {
            if let Err(e) = p.finish() {
                tr.error.get_or_insert(e);
            }
        }
        match tr.error.take() {
            Some(e) => Err(crate::error::SimError::Output(e)),
            None => Ok(()),
        }
    }

    /// Capture `p` on direction `d` at `t` (its transmission start).
    #[cold]
    #[inline(never)]
    pub(super) fn capture(&mut self, d: DirId, t: Time, p: &Packet) {
        let f = &self.flows[p.flow as usize];
        let payload = f.plan.packet_size.saturating_sub(40).max(1);
        let dir = &self.topo.dirs[d as usize];
        let hop = (dir.from, dir.to);
        let Some(tr) = self.trace.as_deref_mut() else {
            return;
        };
        if !tr.filter.keeps_flow(p.flow) || t < tr.filter.start || t >= tr.filter.end {
            return;
        }
        if let Some(set) = tr.pcap.as_mut() {
            if let Err(e) = set.write(d, t, p, hop, payload) {
                tr.error.get_or_insert(e);
                tr.pcap = None;
            }
        }
    }
}

impl Sim {
    /// `pkt` was queued on `dir` and arrives at the far end at `arrive`.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_link(&mut self, dir: DirId, pkt: crate::packet::PktRef, arrive: Time) {
        let now = self.q.now();
        let p = self.arena.get(pkt);
        let d = &self.topo.dirs[dir as usize];
        let (from, start) = (d.from, d.entered_at(arrive, p.size));
        self.trace_packet(now, TraceKind::Enqueue, &p, (from, Some(dir)), "");
        self.trace_packet(start, TraceKind::Transmit, &p, (from, Some(dir)), "");
        self.capture(dir, start, &p);
    }

    /// `pkt` reaches the far end of `dir` (captured here on a medium).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_arrive(&mut self, dir: DirId, pkt: crate::packet::PktRef) {
        let now = self.q.now();
        let p = self.arena.get(pkt);
        let d = &self.topo.dirs[dir as usize];
        let (to, medium) = (d.to, d.medium.is_some());
        self.trace_packet(now, TraceKind::Arrive, &p, (to, Some(dir)), "");
        if medium {
            self.capture(dir, now, &p);
        }
    }
}
