//! The end hosts of a run: data reaching receivers, ACKs reaching senders,
//! their timers, and what the senders ask for (transmissions, and the
//! recovery records with the ground truth of each loss).

use super::{Ev, Sim};
use crate::engine::Time;
use crate::metrics::trace::TraceKind;
use crate::metrics::{RecoveryKind, RecoveryRecord};
use crate::packet::{FlowId, Packet, PktKind, PktRef, Retx};
use crate::tcp::{AckInfo, RecoveryEvent};
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

    pub(super) fn deliver_local(&mut self, pkt: PktRef) {
        let p = *self.arena.get(pkt);
        self.arena.free(pkt);
        self.counters.delivered += 1;
        if self.trace.is_some() {
            let (kind, node) = match p.kind {
                PktKind::Data => (TraceKind::Receive, p.dst),
                PktKind::Ack => (TraceKind::AckReceived, p.dst),
            };
            let now = self.q.now();
            self.trace_packet(now, kind, &p, (node, None), "");
        }
        match p.kind {
            PktKind::Data => self.on_data_at_sink(&p),
            PktKind::Ack => self.on_ack_at_sender(&p),
        }
    }

    pub(super) fn on_data_at_sink(&mut self, p: &Packet) {
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
        while f.first_base < rcv_nxt && f.first_tx.pop_front().is_some() {
            f.first_base += 1;
        }
        f.sink_c.delivered += u64::from(self.sink_out.new_in_order);
        if self.sink_out.new_in_order > 0 && self.trace.is_some() {
            self.trace_packet(now, TraceKind::Deliver, p, (p.dst, None), "");
        }
        let f = &mut self.flows[flow as usize];
        if !f.lost.is_empty() {
            f.lost.remove(&p.seq);
            if !f.lost_mixed.is_empty() {
                f.lost_mixed.remove(&p.seq);
            }
        }
        if self.mobility.is_some() && self.sink_out.new_in_order > 0 {
            self.note_delivery(flow as usize);
        }
        self.after_sink(flow);
    }

    pub(super) fn after_sink(&mut self, flow: FlowId) {
        let now = self.q.now();
        if let Some(ack) = self.sink_out.ack.take() {
            let f = &mut self.flows[flow as usize];
            f.sink_c.acks_sent += 1;
            let mut pkt = ack.packet(flow, (f.plan.dst, f.plan.src), f.plan.ack_size, now);
            pkt.path = f.ack_path;
            let r = self.arena.alloc(pkt);
            self.counters.sent += 1;
            if self.trace.is_some() {
                let p = *self.arena.get(r);
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

    pub(super) fn on_ack_at_sender(&mut self, p: &Packet) {
        let now = self.q.now();
        let f = &self.flows[p.flow as usize];
        let truth = if f.wants_truth {
            f.lost.get(&p.seq).map(|&(c, k)| c.loss_cause(k))
        } else {
            None
        };
        let info = AckInfo {
            truth,
            ..AckInfo::of(p)
        };
        self.snd_out.clear();
        self.flows[p.flow as usize]
            .sender
            .on_ack(now, &info, &mut self.snd_out);
        self.apply_sender_output(p.flow);
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
        let flow = self.arena.get(pkt).flow;
        self.flows[flow as usize].held -= 1;
        let _ = self.forward(pkt);
    }

    /// Carry out what the sender asked for: transmit, record recoveries with
    /// their ground truth, re-arm the timer lazily.
    pub(super) fn apply_sender_output(&mut self, flow: FlowId) {
        let now = self.q.now();
        let out = std::mem::take(&mut self.snd_out);
        for ev in &out.events {
            let mut r = recovery_record(ev, now, flow);
            let f = &self.flows[flow as usize];
            r.true_cause = f.lost.get(&r.seq).copied();
            r.true_mixed = r.true_cause.is_some() && f.lost_mixed.contains(&r.seq);
            if self.scenario.keep_recoveries {
                self.recoveries.push(r);
            } else {
                self.count_recovery(flow, &r);
            }
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
            pkt.path = f.data_path;
            if seg.retransmit {
                pkt.retx = Retx::Sender;
            }
            let r = self.arena.alloc(pkt);
            self.counters.sent += 1;
            if self.trace.is_some() {
                let p = *self.arena.get(r);
                self.trace_packet(now, TraceKind::Send, &p, (p.src, None), "");
            }
            self.send_data(flow, r);
        }
        self.snd_out = out;
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
