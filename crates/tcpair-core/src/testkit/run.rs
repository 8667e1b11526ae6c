//! The loop's engine: events in, the end points' and the agent's outputs
//! carried out.

use super::hop::Fate;
use super::record::{AckAtSender, AckSent, Lost, Sent};
use super::{AckRoute, Ev, HopId, Loop, ACK_SIZE, BS, FLOW, RECEIVER, SENDER};
use crate::bs::{BsCtx, Verdict};
use crate::engine::Time;
use crate::packet::{flags, Packet, PktKind, Retx};
use crate::tcp::AckInfo;

/// Schedule an expiry for `deadline` unless the last one was for it.
fn arm(armed: &mut Option<Time>, deadline: Option<Time>) -> Option<Time> {
    let d = deadline?;
    if *armed == Some(d) {
        return None;
    }
    *armed = Some(d);
    Some(d)
}

impl Loop {
    /// Run every event up to time `end` (included), or until the sender's
    /// finite transfer is finished. The first call starts the sender at
    /// time 0; later calls go on from where the last one stopped.
    pub fn run_until(&mut self, end: Time) {
        self.start();
        while let Some(t) = self.q.peek_time() {
            if t > end || self.sender.finished() {
                break;
            }
            let ev = self.q.pop().expect("an event was peeked");
            match ev.event {
                Ev::AtBs(p) => self.at_bs(p),
                Ev::AtReceiver(p) => self.at_receiver(p),
                Ev::AtSender(p) => self.at_sender(&p),
                Ev::SenderTimer => self.sender_timer(),
                Ev::SinkTimer => self.sink_timer(),
                Ev::BsTimer => self.bs_timer(),
            }
        }
    }

    fn start(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        assert!(
            self.two_hops || (self.agent.is_none() && !self.hops[1].scripted()),
            "a BS agent or a hop-B script needs hop B (Loop::hop_b)"
        );
        self.out.clear();
        self.sender.start(self.q.now(), &mut self.out);
        self.after_sender();
    }

    // ---- the sender ----

    fn at_sender(&mut self, p: &Packet) {
        let now = self.q.now();
        let ack = AckInfo::of(p);
        self.out.clear();
        self.sender.on_ack(now, &ack, &mut self.out);
        let cwnd = self.sender.cwnd();
        self.rec
            .acks_at_sender
            .push(AckAtSender { t: now, ack, cwnd });
        self.after_sender();
    }

    fn sender_timer(&mut self) {
        let now = self.q.now();
        if self.sender.rto_deadline().is_none_or(|d| d > now) {
            return;
        }
        self.armed.rto = None;
        self.out.clear();
        self.sender.on_timer(now, &mut self.out);
        self.after_sender();
    }

    /// Transmit what the sender asked for, record its recovery events, arm
    /// its timer.
    fn after_sender(&mut self) {
        let now = self.q.now();
        let out = std::mem::take(&mut self.out);
        let size = self.sender.config().packet_size;
        for s in &out.segs {
            let (seq, retransmit) = (s.seq, s.retransmit);
            self.rec.sent.push(Sent {
                t: now,
                seq,
                retransmit,
            });
            let p = Packet::data(FLOW, (SENDER, RECEIVER), size, seq, now);
            let retx = if retransmit {
                Retx::Sender
            } else {
                Retx::Original
            };
            self.transmit(HopId::A, p.with_retx(retx));
        }
        let events = out.events.iter().map(|&e| (now, e));
        self.rec.recoveries.extend(events);
        self.out = out;
        if let Some(d) = arm(&mut self.armed.rto, self.sender.rto_deadline()) {
            self.q.schedule(d.max(now), Ev::SenderTimer);
        }
    }

    // ---- the hops ----

    /// Put a data packet on `hop`; it arrives at the hop's far end.
    fn transmit(&mut self, hop: HopId, p: Packet) {
        let now = self.q.now();
        let i = hop as usize;
        let to_bs = hop == HopId::A && self.two_hops;
        let ev = |p| {
            if to_bs {
                Ev::AtBs(p)
            } else {
                Ev::AtReceiver(p)
            }
        };
        match self.hops[i].transmit(now, p.seq) {
            Fate::Lost { k } => {
                let seq = p.seq;
                self.rec.lost.push(Lost {
                    t: now,
                    hop,
                    seq,
                    k,
                });
            }
            Fate::Arrives { at, copy_at } => {
                self.q.schedule(at, ev(p));
                if let Some(c) = copy_at {
                    let mut copy = p;
                    copy.flags |= flags::IMPAIR_COPY;
                    self.q.schedule(c, ev(copy));
                }
            }
        }
    }

    /// Send an ACK from the middle node toward the sender.
    fn ack_over_a(&mut self, p: Packet) {
        let at = self.hops[0].link.ack_arrival(self.q.now());
        self.q.schedule(at, Ev::AtSender(p));
    }

    // ---- the middle node ----

    fn at_bs(&mut self, mut p: Packet) {
        let now = self.q.now();
        self.rec.at_bs.push((now, p));
        let verdict = match self.agent.as_mut() {
            Some(agent) => {
                let (a, b) = (self.hops[0].link.kind, self.hops[1].link.kind);
                let (in_kind, out_kind) = match p.kind {
                    PktKind::Data => (a, b),
                    PktKind::Ack => (b, a),
                };
                let ctx = BsCtx {
                    node: BS,
                    in_kind,
                    out_kind,
                };
                agent.on_packet(now, &ctx, &mut p, &mut self.bso)
            }
            None => Verdict::Forward,
        };
        self.after_agent();
        if verdict == Verdict::Absorb {
            self.rec.absorbed.push((now, p));
            return;
        }
        match p.kind {
            PktKind::Data => self.transmit(HopId::B, p),
            PktKind::Ack => self.ack_over_a(p),
        }
    }

    fn bs_timer(&mut self) {
        let now = self.q.now();
        let Some(agent) = self.agent.as_mut() else {
            return;
        };
        if agent.deadline(FLOW).is_none_or(|d| d > now) {
            return;
        }
        self.armed.bs = None;
        agent.on_timer(now, FLOW, &mut self.bso);
        self.after_agent();
    }

    /// Send what the agent injected, arm its timer.
    fn after_agent(&mut self) {
        let now = self.q.now();
        let mut inject = std::mem::take(&mut self.bso.inject);
        for p in inject.drain(..) {
            self.rec.injected.push((now, p));
            match p.kind {
                PktKind::Data => self.transmit(HopId::B, p),
                PktKind::Ack => self.ack_over_a(p),
            }
        }
        self.bso.inject = inject;
        let deadline = self.agent.as_ref().and_then(|a| a.deadline(FLOW));
        if let Some(d) = arm(&mut self.armed.bs, deadline) {
            self.q.schedule(d.max(now), Ev::BsTimer);
        }
    }

    // ---- the receiver ----

    fn at_receiver(&mut self, p: Packet) {
        let now = self.q.now();
        self.rec.at_receiver.push((now, p));
        self.sink
            .on_data_tagged(now, p.seq, p.sent_at, &p.opts.syn, &mut self.sout);
        self.after_sink(false);
    }

    fn sink_timer(&mut self) {
        let now = self.q.now();
        if self.sink.timer_deadline().is_none_or(|d| d > now) {
            return;
        }
        self.armed.delack = None;
        self.sink.on_timer(now, &mut self.sout);
        self.after_sink(true);
    }

    /// Count what was delivered, send the ACK, arm the delayed-ACK timer.
    fn after_sink(&mut self, on_timer: bool) {
        let now = self.q.now();
        self.rec.delivered += u64::from(self.sout.new_in_order);
        if let Some(ack) = self.sout.ack.take() {
            self.send_ack(ack, on_timer);
        }
        if let Some(d) = arm(&mut self.armed.delack, self.sink.timer_deadline()) {
            self.q.schedule(d.max(now), Ev::SinkTimer);
        }
    }

    fn send_ack(&mut self, ack: AckInfo, on_timer: bool) {
        let now = self.q.now();
        let n = self.rec.acks_sent.len() as u64 + 1;
        let killed = self.ack_kills.contains(&n);
        let t = now;
        self.rec.acks_sent.push(AckSent {
            t,
            ack,
            on_timer,
            killed,
        });
        if killed {
            return;
        }
        let ends = (RECEIVER, SENDER);
        let p = ack.packet(FLOW, ends, ACK_SIZE, now);
        let (at, ev) = match self.acks {
            AckRoute::Direct(d) => (now + d, Ev::AtSender(p)),
            AckRoute::Hops if self.two_hops => (self.hops[1].link.ack_arrival(now), Ev::AtBs(p)),
            AckRoute::Hops => (self.hops[0].link.ack_arrival(now), Ev::AtSender(p)),
        };
        self.q.schedule(at, ev);
    }
}
