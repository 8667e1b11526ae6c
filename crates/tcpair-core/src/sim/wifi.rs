//! The simulator's side of the shared media (`net::wifi`): packets offered
//! to a hop on a medium go to its MAC, the MAC's timers become events, and
//! what it delivers or gives up on returns to the forwarding path.

use super::{Ev, Sim};
use crate::engine::Place;
use crate::metrics::trace::TraceKind;
use crate::metrics::DropCauseKind;
use crate::net::wifi::{MacCounters, MacEv, MacFail, MacOut};
use crate::net::DirId;
use crate::packet::PktRef;

/// A medium's pending timers, kept beside the event queue rather than in it.
///
/// A MAC sets timers that are mostly cancelled before they fall: every frame
/// on the air freezes the backoff of each station that senses it (its timer
/// then falls for nothing and a new one is set when the medium is idle
/// again), and every frame acknowledged leaves its ACK timeout to fall for
/// nothing. Queued, each such timer costs a push and a pop: on Park et al.
/// 2010's five-hop chain, 430,000 of 1.6 million events were backoffs
/// frozen before they fell, 128,000 more were timeouts of frames acknowledged.
/// Here a timer takes its place in the queue's order when it is set
/// ([`crate::engine::EventQueue::reserve`]), only the earliest one is in the
/// queue, and a timer the medium says is dead ([`crate::net::wifi::Medium::is_dead`])
/// is dropped without being queued. The live timers run at the places they
/// were given, so every event runs in the order it ran in when each timer was
/// queued: only the count of events is smaller.
#[derive(Debug, Default)]
pub(super) struct MacTimers {
    /// Timers set and not yet run, at their places.
    pending: Vec<(Place, MacEv)>,
    /// The place of the timer queued (the earliest when it was queued).
    queued: Option<Place>,
    /// The token of the queued event: an event with an older one was
    /// replaced by an earlier timer and does nothing.
    token: u32,
}

impl Sim {
    /// Every medium's counters summed, or None when the scenario has none.
    pub(super) fn mac_total(&self) -> Option<MacCounters> {
        if self.topo.media.is_empty() {
            return None;
        }
        let mut t = MacCounters::default();
        for m in &self.topo.media {
            t.add(&m.stats);
        }
        Some(t)
    }

    /// The media's counters over the measurement window (after the warm-up).
    pub(super) fn mac_measured(&self) -> Option<MacCounters> {
        self.mac_total().map(|t| t.since(&self.mac_at_warmup))
    }

    /// Offer `pkt` to hop `dir` of medium `m` (stations `a` -> `b`).
    /// Returns false if the station's interface queue dropped it.
    #[inline(never)]
    pub(super) fn wifi_offer(
        &mut self,
        (m, a, b): (u32, u16, u16),
        dir: DirId,
        pkt: PktRef,
    ) -> bool {
        let now = self.q.now();
        let size = self.arena.head(pkt).size;
        let mut out = std::mem::take(&mut self.mac_out);
        let ok = self.topo.media[m as usize].enqueue(now, a, b, dir, pkt, size, &mut out);
        if ok {
            let d = &mut self.topo.dirs[dir as usize];
            d.accepted += 1;
            d.in_transit += 1;
            self.arena.head_mut(pkt).hop += 1;
            if self.trace.is_some() {
                let p = self.arena.get(pkt);
                let from = self.topo.dirs[dir as usize].from;
                self.trace_packet(now, TraceKind::Enqueue, &p, (from, Some(dir)), "");
            }
        } else {
            self.topo.dirs[dir as usize].queue_drops += 1;
            self.record_drop(dir, pkt, DropCauseKind::Queue);
        }
        self.after_mac(m, &mut out);
        self.mac_out = out;
        ok
    }

    /// Medium `m`'s queued timer event: run the timer it stands for, then
    /// queue the next.
    pub(super) fn on_mac_timer(&mut self, m: u32, token: u32) {
        let timers = &mut self.mac_timers[m as usize];
        if token != timers.token {
            return; // replaced by an earlier timer
        }
        let Some(place) = timers.queued.take() else {
            return;
        };
        // The timer may have been dropped as dead since it was queued.
        if let Some(i) = timers.pending.iter().position(|&(p, _)| p == place) {
            let (_, ev) = timers.pending.swap_remove(i);
            self.on_mac(m, ev);
        } else {
            self.queue_mac_timer(m);
        }
    }

    fn on_mac(&mut self, m: u32, ev: MacEv) {
        let now = self.q.now();
        let mut out = std::mem::take(&mut self.mac_out);
        self.topo.media[m as usize].on_event(now, ev, &mut out);
        self.after_mac(m, &mut out);
        self.mac_out = out;
    }

    /// Queue medium `m`'s earliest live timer, unless it (or an earlier
    /// event of the medium) is queued already; drop the dead ones.
    fn queue_mac_timer(&mut self, m: u32) {
        let medium = &self.topo.media[m as usize];
        let timers = &mut self.mac_timers[m as usize];
        timers.pending.retain(|(_, ev)| !medium.is_dead(ev));
        let Some(first) = timers.pending.iter().map(|&(p, _)| p).min() else {
            return;
        };
        if timers.queued.is_some_and(|q| q <= first) {
            return;
        }
        timers.token = timers.token.wrapping_add(1);
        timers.queued = Some(first);
        let ev = Ev::Mac {
            medium: m,
            token: timers.token,
        };
        self.q.schedule_at(first, ev);
    }

    /// Received packets continue through the hop's exit pipeline (the
    /// packet-level wireless loss the MAC does not repair).
    fn after_mac(&mut self, m: u32, out: &mut Vec<MacOut>) {
        let now = self.q.now();
        for o in out.drain(..) {
            match o {
                MacOut::Schedule(t, ev) => {
                    let place = self.q.reserve(t);
                    self.mac_timers[m as usize].pending.push((place, ev));
                }
                MacOut::Deliver(pkt, dir) => self.q.schedule(now, Ev::Arrive { dir, pkt }),
                MacOut::Drop(pkt, dir, why) => {
                    self.topo.dirs[dir as usize].in_transit -= 1;
                    let cause = match why {
                        MacFail::Contention => DropCauseKind::Contention,
                        MacFail::FrameError => DropCauseKind::Corruption,
                    };
                    self.record_drop(dir, pkt, cause);
                }
            }
        }
        self.queue_mac_timer(m);
    }
}
