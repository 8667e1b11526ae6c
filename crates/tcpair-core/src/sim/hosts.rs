//! The end hosts of a run: data reaching receivers, ACKs reaching senders,
//! their timers, and what the senders ask for (transmissions, and the
//! recovery records with the ground truth of each loss).

use super::{Ev, Sim};
use crate::engine::Time;
use crate::metrics::trace::TraceKind;
use crate::metrics::{RecoveryKind, RecoveryRecord};
use crate::packet::{FlowId, Packet, PktKind, PktRef, Retx, SynTags};
use crate::tcp::{AckInfo, RecoveryEvent, SendSeg};
use rand::Rng;

impl Sim {
    pub(super) fn on_start(&mut self, flow: FlowId) {
        let now = self.q.now();
        self.snd_out.clear();
        self.flows[flow as usize]
            .sender
            .start(now, &mut self.snd_out);
        self.apply_sender_output(flow);
    }

    /// `pkt` reached its end point: the receiver takes data, the sender an
    /// ACK. Only what they read is taken from the packet (with its options,
    /// 152 bytes).
    #[inline(never)]
    pub(super) fn deliver_local(&mut self, pkt: PktRef) {
        self.counters.delivered += 1;
        if self.trace.is_some() {
            self.deliver_traced(pkt);
            return;
        }
        let p = self.arena.get(pkt);
        match p.kind {
            PktKind::Data => {
                let d = DataIn::of(&p);
                self.arena.free(pkt);
                self.on_data_at_sink(&d, None);
            }
            PktKind::Ack => {
                let (flow, info) = (p.flow, AckInfo::of(&p));
                self.arena.free(pkt);
                self.on_ack_at_sender(flow, info);
            }
        }
    }

    /// [`Self::deliver_local`] with the event trace on (which shows whole packets).
    #[cold]
    #[inline(never)]
    fn deliver_traced(&mut self, pkt: PktRef) {
        let p = self.arena.get(pkt);
        self.arena.free(pkt);
        let (kind, node) = match p.kind {
            PktKind::Data => (TraceKind::Receive, p.dst),
            PktKind::Ack => (TraceKind::AckReceived, p.dst),
        };
        let now = self.q.now();
        self.trace_packet(now, kind, &p, (node, None), "");
        match p.kind {
            PktKind::Data => self.on_data_at_sink(&DataIn::of(&p), Some(&p)),
            PktKind::Ack => self.on_ack_at_sender(p.flow, AckInfo::of(&p)),
        }
    }

    /// Data segment `p` at its receiver (`traced`: the whole packet, for the trace).
    fn on_data_at_sink(&mut self, p: &DataIn, traced: Option<&Packet>) {
        let now = self.q.now();
        let flow = p.flow;
        let f = &mut self.flows[flow as usize];
        let rcv_before = f.sink.rcv_nxt();
        f.sink
            .on_data_tagged(now, p.seq, p.sent_at, &p.syn, &mut self.sink_out);
        f.sink_c.arrived += 1;
        let rcv_nxt = f.sink.rcv_nxt();
        let first = f.first_tx_of(p.seq);
        if self.sink_out.duplicate {
            f.sink_c.duplicates += 1;
        } else if first == Some(p.sent_at) && rcv_before == p.seq && rcv_nxt == p.seq + 1 {
            // A first transmission delivered in order at once: the same
            // delay in all three histograms.
            f.delays.record_all(now - p.sent_at);
        } else {
            f.delays.record_delay(now - p.sent_at);
            if let Some(t0) = first {
                f.delays.record_e2e(now - t0);
            }
            // Segments delivered in order to the application now: their delay
            // from first transmission includes any wait behind a hole.
            for seq in rcv_before..rcv_nxt {
                if let Some(t0) = f.first_tx_of(seq) {
                    f.delays.record_app(now - t0);
                }
            }
        }
        // Segments below rcv_nxt can only arrive again as duplicates.
        while f.first_base < rcv_nxt && !f.first_tx.is_empty() {
            f.first_tx.pop_front();
            f.first_base += 1;
        }
        f.sink_c.delivered += u64::from(self.sink_out.new_in_order);
        if !f.lost.is_empty() && p.seq <= f.lost_max {
            f.lost.remove(&p.seq);
            if !f.lost_mixed.is_empty() {
                f.lost_mixed.remove(&p.seq);
            }
        }
        if let Some(p) = traced.filter(|_| self.sink_out.new_in_order > 0) {
            self.trace_packet(now, TraceKind::Deliver, p, (p.dst, None), "");
        }
        if self.mobility.is_some() && self.sink_out.new_in_order > 0 {
            self.note_delivery(flow as usize);
        }
        self.after_sink(flow);
    }

    pub(super) fn after_sink(&mut self, flow: FlowId) {
        let now = self.q.now();
        if let Some(ack) = &self.sink_out.ack {
            let f = &mut self.flows[flow as usize];
            f.sink_c.acks_sent += 1;
            let (ends, size, path) = ((f.plan.dst, f.plan.src), f.plan.ack_size, f.ack_path);
            let r = self.arena.alloc_with(|| Packet {
                path,
                ..ack.packet(flow, ends, size, now)
            });
            self.sink_out.ack = None;
            self.counters.sent += 1;
            if self.trace.is_some() {
                let p = self.arena.get(r);
                self.trace_packet(now, TraceKind::AckSent, &p, (p.src, None), "");
            }
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

    pub(super) fn on_sink_timer(&mut self, flow: FlowId) {
        let now = self.q.now();
        let f = &mut self.flows[flow as usize];
        if f.sink_timer_at != Some(now) {
            return;
        }
        f.sink_timer_at = None;
        f.sink.on_timer(now, &mut self.sink_out);
        self.after_sink(flow);
    }

    /// ACK `info` of `flow` at its sender.
    fn on_ack_at_sender(&mut self, flow: FlowId, mut info: AckInfo) {
        let now = self.q.now();
        let f = &mut self.flows[flow as usize];
        if f.wants_truth {
            info.truth = f.lost.get(&info.ack).map(|&(c, k)| c.loss_cause(k));
        }
        self.snd_out.clear();
        f.sender.on_ack(now, &info, &mut self.snd_out);
        self.apply_sender_output(flow);
    }

    pub(super) fn on_sender_timer(&mut self, flow: FlowId) {
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

    /// Hand a data packet to the network, now or after the flow's sending
    /// jitter (in order: a packet never leaves before the one sent before it).
    fn send_data(&mut self, flow: FlowId, pkt: PktRef) {
        let now = self.q.now();
        let f = &mut self.flows[flow as usize];
        let Some(rng) = f.send_rng.as_mut() else {
            let _ = self.forward(pkt);
            return;
        };
        let at = (now + rng.gen_range(0..f.plan.send_jitter)).max(f.released_at);
        f.released_at = at;
        f.held += 1;
        self.q.schedule(at, Ev::Send { pkt });
    }

    /// A data packet held by the sending jitter leaves its sender.
    pub(super) fn on_send(&mut self, pkt: PktRef) {
        let flow = self.arena.head(pkt).flow;
        self.flows[flow as usize].held -= 1;
        let _ = self.forward(pkt);
    }

    /// Carry out what the sender asked for: transmit, record recoveries with
    /// their ground truth, re-arm the timer lazily.
    pub(super) fn apply_sender_output(&mut self, flow: FlowId) {
        let now = self.q.now();
        if !self.snd_out.events.is_empty() {
            self.record_recoveries(flow, now);
        }
        // Handing a segment to the network never reaches a sender again
        // before this returns (a flow's two ends differ: every path has a
        // hop), so `snd_out` stays as the sender left it.
        for i in 0..self.snd_out.segs.len() {
            let seg = self.snd_out.segs[i];
            self.send_seg(flow, seg, now);
        }
        if self.trace.is_some() {
            self.trace_sender(flow);
        }
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

    /// The sender's recovery events, with the ground truth of each loss.
    #[inline(never)]
    fn record_recoveries(&mut self, flow: FlowId, now: Time) {
        for i in 0..self.snd_out.events.len() {
            let mut r = recovery_record(&self.snd_out.events[i], now, flow);
            let f = &self.flows[flow as usize];
            r.true_cause = f.lost.get(&r.seq).copied();
            r.true_mixed = r.true_cause.is_some() && f.lost_mixed.contains(&r.seq);
            if self.scenario.keep_recoveries {
                self.recoveries.push(r);
            } else {
                self.count_recovery(flow, &r);
            }
        }
    }

    /// Build the data packet of `seg` and hand it to the network.
    #[inline]
    fn send_seg(&mut self, flow: FlowId, seg: SendSeg, now: Time) {
        let f = &mut self.flows[flow as usize];
        if !seg.retransmit && seg.seq >= f.first_base {
            // First transmissions come in sequence order.
            debug_assert_eq!(seg.seq, f.first_base + f.first_tx.len());
            f.first_tx.push_back(now);
        }
        let (ends, size, path) = ((f.plan.src, f.plan.dst), f.plan.packet_size, f.data_path);
        let retx = if seg.retransmit {
            Retx::Sender
        } else {
            Retx::Original
        };
        let r = self.arena.alloc_with(|| Packet {
            path,
            retx,
            ..Packet::data(flow, ends, size, seg.seq, now)
        });
        self.counters.sent += 1;
        if self.trace.is_some() {
            let p = self.arena.get(r);
            self.trace_packet(now, TraceKind::Send, &p, (p.src, None), "");
        }
        self.send_data(flow, r);
    }
}

/// What a receiver reads of a data packet.
struct DataIn {
    flow: FlowId,
    seq: u32,
    sent_at: Time,
    syn: SynTags,
}

impl DataIn {
    #[inline]
    fn of(p: &Packet) -> Self {
        Self {
            flow: p.flow,
            seq: p.seq,
            sent_at: p.sent_at,
            syn: p.opts.syn,
        }
    }
}

impl Sim {
    /// Count recovery `r` into its flow's accuracy as the pass over the
    /// `recoveries` table would at the end (`result.rs`): inside the flow's
    /// measured span, from its start or the end of the warm-up to its finish.
    fn count_recovery(&mut self, flow: FlowId, r: &RecoveryRecord) {
        let warmup = self.scenario.warmup;
        let f = &mut self.flows[flow as usize];
        let begin = f.plan.start.max(warmup);
        if r.time >= begin && f.finished_at.is_none_or(|t| r.time <= t) {
            f.accuracy.add(r);
        }
    }
}

/// The record of one recovery event (the ground truth is added by the caller).
fn recovery_record(ev: &RecoveryEvent, now: Time, flow: FlowId) -> RecoveryRecord {
    match *ev {
        RecoveryEvent::FastRetransmit(d) => RecoveryRecord {
            kind: RecoveryKind::FastRetransmit,
            seq: d.seq,
            window_cut: d.window_cut,
            verdict: Some(d.verdict),
            before: Some(d.before),
            after: Some(d.after),
            ..RecoveryRecord::at(now, flow)
        },
        RecoveryEvent::Timeout { seq, before, after } => RecoveryRecord {
            kind: RecoveryKind::Timeout,
            seq,
            window_cut: true,
            before: Some(before),
            after: Some(after),
            ..RecoveryRecord::at(now, flow)
        },
        RecoveryEvent::Retransmit { seq, by } => RecoveryRecord {
            kind: RecoveryKind::Retransmit(by),
            seq,
            ..RecoveryRecord::at(now, flow)
        },
    }
}
