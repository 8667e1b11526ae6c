//! The distributed coordination function of one medium (IEEE 802.11-1999
//! §9.2): carrier sense, DIFS, slotted backoff frozen while the medium is
//! busy (§9.2.5.2), DATA - SIFS - ACK (§9.2.8), retries with a doubled
//! contention window (§9.2.4) and collisions at the receivers.

use super::{Frame, MacEv, MacFail, MacOut, Medium, Queued, Sta, State, Tx};
use crate::engine::Time;
use crate::packet::PktRef;
use rand::Rng;

use super::super::DirId;

impl Medium {
    /// Offer `pkt` (IP size `size`) to station `s` for hop `dir` to `to`.
    /// False when the interface queue is full (DropTail).
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue(
        &mut self,
        now: Time,
        s: Sta,
        to: Sta,
        dir: DirId,
        pkt: PktRef,
        size: u32,
        out: &mut Vec<MacOut>,
    ) -> bool {
        let limit = self.params.queue as usize;
        let st = &mut self.sta[s as usize];
        if st.queue.len() > limit {
            self.stats.queue_drops += 1;
            return false;
        }
        st.queue.push_back(Queued { pkt, dir, to, size });
        if st.state == State::Idle {
            self.contend(now, s, out);
        }
        true
    }

    /// Whether timer `ev` can no longer do anything: a backoff or an ACK
    /// timeout of a station whose counter `gen` has moved on since the timer
    /// was set ([`Self::on_event`] ignores it). The counter only moves forward
    /// (by one at each backoff armed or frozen and at each packet done with:
    /// never 2^32 times within a timer's few milliseconds), so such a timer
    /// stays dead, and the simulator need not queue it at all.
    pub fn is_dead(&self, ev: &MacEv) -> bool {
        match *ev {
            MacEv::Backoff { sta, gen } | MacEv::AckTimeout { sta, gen } => {
                self.sta[sta as usize].gen != gen
            }
            _ => false,
        }
    }

    /// Handle one of the medium's own timers.
    pub fn on_event(&mut self, now: Time, ev: MacEv, out: &mut Vec<MacOut>) {
        match ev {
            MacEv::Backoff { sta, gen } => {
                let st = &self.sta[sta as usize];
                if st.gen == gen && st.state == (State::Contend { armed: true }) {
                    if self.tx[sta as usize].is_some() {
                        // Sending a MAC ACK right now: wait for the medium again.
                        self.sta[sta as usize].slots = 0;
                        self.sta[sta as usize].state = State::Contend { armed: false };
                    } else if self.params.rts_cts {
                        self.send_rts(now, sta, out);
                    } else {
                        self.send_data(now, sta, out);
                    }
                }
            }
            MacEv::TxEnd { sta } => self.tx_end(now, sta, out),
            MacEv::AckStart { sta, to } => {
                if self.tx[sta as usize].is_none() {
                    let d = self.params.ack_time();
                    self.start_tx(now, sta, to, d, Frame::Ack, 0, out);
                }
            }
            MacEv::AckTimeout { sta, gen } => {
                let st = &self.sta[sta as usize];
                if st.gen == gen && st.state == State::WaitAck {
                    self.failed(now, sta, out);
                } else if st.gen == gen && st.state == State::WaitCts {
                    self.no_cts(now, sta, out);
                }
            }
            MacEv::CtsStart { sta, to } => self.send_cts(now, sta, to, out),
            MacEv::DataStart { sta } => self.data_after_cts(now, sta, out),
            MacEv::NavEnd { sta } => self.nav_end(now, sta, out),
        }
    }

    /// Draw a backoff in [0, CW] slots (§9.2.4) and start counting when idle.
    pub(super) fn contend(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let st = &mut self.sta[s as usize];
        st.slots = st.backoff_rng.gen_range(0..=st.cw);
        st.state = State::Contend { armed: false };
        if st.busy == 0 {
            self.arm(now, s, out);
        }
    }

    /// The medium is idle at `s`: the backoff resumes a DIFS after it went
    /// idle, or an EIFS if the last frame sensed was not decoded (§9.2.3.4).
    pub(super) fn arm(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let slot = self.params.slot;
        let ifs = if self.sta[s as usize].eifs {
            self.params.eifs()
        } else {
            self.params.difs
        };
        let st = &mut self.sta[s as usize];
        st.count_from = now.max(st.idle_since + ifs);
        st.gen = st.gen.wrapping_add(1);
        st.state = State::Contend { armed: true };
        let at = st.count_from + Time::from(st.slots) * slot;
        out.push(MacOut::Schedule(
            at,
            MacEv::Backoff {
                sta: s,
                gen: st.gen,
            },
        ));
    }

    /// The medium turned busy at `s`: freeze the backoff counter at the
    /// slots still to go (§9.2.5.2). A backoff ending this very instant is
    /// not stopped: stations whose counters expire in the same slot collide.
    pub(super) fn freeze(&mut self, now: Time, s: Sta) {
        let slot = self.params.slot;
        let st = &mut self.sta[s as usize];
        if st.state != (State::Contend { armed: true }) {
            return;
        }
        let fire = st.count_from + Time::from(st.slots) * slot;
        if fire <= now {
            return;
        }
        let done = now.saturating_sub(st.count_from) / slot;
        st.slots -= done as u32;
        st.gen = st.gen.wrapping_add(1);
        st.state = State::Contend { armed: false };
    }

    pub(super) fn send_data(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let st = &mut self.sta[s as usize];
        let head = *st.queue.front().expect("contending");
        st.state = State::TxData;
        self.stats.data_frames += 1;
        if st.data_tries > 0 {
            self.stats.retries += 1;
        }
        st.data_tries += 1;
        let d = self.params.data_time(head.size);
        self.start_tx(now, s, head.to, d, Frame::Data, 0, out);
    }

    /// Put a frame from `s` to `to` on the air. A frame is lost at its
    /// receiver if the receiver transmits, or any other station within
    /// interference range of the receiver transmits, while it lasts (no
    /// capture).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_tx(
        &mut self,
        now: Time,
        s: Sta,
        to: Sta,
        dur: Time,
        kind: Frame,
        nav: Time,
        out: &mut Vec<MacOut>,
    ) {
        let n = self.nodes.len();
        let mut ok = self.tx[to as usize].is_none();
        for (o, t) in self.tx.iter_mut().enumerate() {
            if let Some(t) = t {
                if self.near[o * n + to as usize] {
                    ok = false;
                }
                if t.ok && (t.to == s || self.near[s as usize * n + t.to as usize]) {
                    t.ok = false;
                    self.stats.collisions += 1;
                }
            }
        }
        if !ok {
            self.stats.collisions += 1;
        }
        self.tx[s as usize] = Some(Tx {
            to,
            kind,
            nav,
            ok,
            fer: false,
        });
        for i in 0..self.cs[s as usize].len() {
            let o = self.cs[s as usize][i];
            let st = &mut self.sta[o as usize];
            st.busy += 1;
            if st.busy == 1 {
                self.freeze(now, o);
            }
        }
        out.push(MacOut::Schedule(now + dur, MacEv::TxEnd { sta: s }));
    }

    fn tx_end(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let mut t = self.tx[s as usize].take().expect("a frame on the air");
        let p = &self.params;
        if t.kind == Frame::Data
            && t.ok
            && p.frame_error > 0.0
            && self.sta[t.to as usize].fer_rng.gen::<f64>() < p.frame_error
        {
            t.ok = false;
            t.fer = true;
            self.stats.frame_errors += 1;
        }
        if t.ok && matches!(t.kind, Frame::Rts | Frame::Cts) {
            self.set_navs(now, s, t, out);
        }
        let n = self.nodes.len();
        for i in 0..self.cs[s as usize].len() {
            let o = self.cs[s as usize][i];
            // Out of transmission range, or the frame's own receiver when it
            // was corrupted: sensed but not decoded.
            let garbled = !self.hear[s as usize * n + o as usize] || (o == t.to && !t.ok);
            let st = &mut self.sta[o as usize];
            if o != s {
                st.eifs = garbled;
            }
            st.busy -= 1;
            if st.busy == 0 {
                st.idle_since = now;
                if st.state == (State::Contend { armed: false }) {
                    self.arm(now, o, out);
                }
            }
        }
        match t.kind {
            Frame::Data => {}
            Frame::Ack => {
                let st = &self.sta[t.to as usize];
                if t.ok && st.state == State::WaitAck {
                    self.succeeded(now, t.to, out);
                }
                return;
            }
            Frame::Rts => return self.rts_end(now, s, t, out),
            Frame::Cts => return self.cts_end(now, t, out),
        }
        let p = &self.params;
        let (sifs, ack, slot) = (p.sifs, p.ack_time(), p.slot);
        let st = &mut self.sta[s as usize];
        st.state = State::WaitAck;
        st.last_fail_fer = t.fer;
        if t.ok {
            if !st.delivered {
                st.delivered = true;
                let head = st.queue.front().expect("in service");
                out.push(MacOut::Deliver(head.pkt, head.dir));
            }
            let to = t.to;
            out.push(MacOut::Schedule(
                now + sifs,
                MacEv::AckStart { sta: to, to: s },
            ));
        }
        let gen = st.gen;
        out.push(MacOut::Schedule(
            now + sifs + ack + slot,
            MacEv::AckTimeout { sta: s, gen },
        ));
    }

    fn succeeded(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        self.next_packet(now, s, out);
    }

    /// No ACK: retry with a doubled window, or drop at the retry limit
    /// (the long one after RTS/CTS, §9.2.4).
    pub(super) fn failed(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let p = &self.params;
        let cw_max = p.cw_max;
        let st = &mut self.sta[s as usize];
        let (count, limit) = if p.rts_cts {
            (&mut st.long_attempts, p.long_retry)
        } else {
            (&mut st.attempts, p.short_retry)
        };
        *count += 1;
        if *count < limit {
            st.cw = (2 * st.cw + 1).min(cw_max);
            self.contend(now, s, out);
            return;
        }
        if !st.delivered {
            let head = st.queue.front().expect("in service");
            let why = if st.last_fail_fer {
                self.stats.frame_error_drops += 1;
                MacFail::FrameError
            } else {
                self.stats.contention_drops += 1;
                MacFail::Contention
            };
            out.push(MacOut::Drop(head.pkt, head.dir, why));
        }
        self.next_packet(now, s, out);
    }

    /// The head packet is done with: reset the window and serve the next.
    pub(super) fn next_packet(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let cw_min = self.params.cw_min;
        let st = &mut self.sta[s as usize];
        st.queue.pop_front();
        st.cw = cw_min;
        st.attempts = 0;
        st.long_attempts = 0;
        st.data_tries = 0;
        st.delivered = false;
        st.gen = st.gen.wrapping_add(1);
        if st.queue.is_empty() {
            st.state = State::Idle;
        } else {
            self.contend(now, s, out);
        }
    }
}
