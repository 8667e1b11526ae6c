//! The simulator's side of the shared media (`net::wifi`): packets offered
//! to a hop on a medium go to its MAC, the MAC's timers become events, and
//! what it delivers or gives up on returns to the forwarding path.

use super::{Ev, Sim};
use crate::metrics::trace::TraceKind;
use crate::metrics::DropCauseKind;
use crate::net::wifi::{MacCounters, MacEv, MacFail, MacOut};
use crate::net::DirId;
use crate::packet::PktRef;

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
        let size = self.arena.get(pkt).size;
        let mut out = std::mem::take(&mut self.mac_out);
        let ok = self.topo.media[m as usize].enqueue(now, a, b, dir, pkt, size, &mut out);
        if ok {
            let d = &mut self.topo.dirs[dir as usize];
            d.accepted += 1;
            d.in_transit += 1;
            self.arena.get_mut(pkt).hop += 1;
            if self.trace.is_some() {
                let p = *self.arena.get(pkt);
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

    pub(super) fn on_mac(&mut self, m: u32, ev: MacEv) {
        let now = self.q.now();
        let mut out = std::mem::take(&mut self.mac_out);
        self.topo.media[m as usize].on_event(now, ev, &mut out);
        self.after_mac(m, &mut out);
        self.mac_out = out;
    }

    /// Received packets continue through the hop's exit pipeline (the
    /// packet-level wireless loss the MAC does not repair).
    fn after_mac(&mut self, m: u32, out: &mut Vec<MacOut>) {
        let now = self.q.now();
        for o in out.drain(..) {
            match o {
                MacOut::Schedule(t, ev) => self.q.schedule(t, Ev::Mac { medium: m, ev }),
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
    }
}
