//! The optional RTS/CTS exchange and the NAV (IEEE 802.11-1999 §9.2.5.4,
//! §9.2.5.6): RTS - SIFS - CTS - SIFS - DATA - SIFS - ACK; stations that
//! decode an RTS or a CTS defer until the exchange it announces is over.

use super::{Frame, MacEv, MacFail, MacOut, Medium, Sta, State, Tx};
use crate::engine::Time;

impl Medium {
    /// End of the exchange an RTS sent now announces (its Duration field).
    fn exchange_end(&self, now: Time, size: u32) -> Time {
        let p = &self.params;
        now + p.rts_time() + 3 * p.sifs + p.ack_time() + p.data_time(size) + p.ack_time()
    }

    pub(super) fn send_rts(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let head = *self.sta[s as usize].queue.front().expect("contending");
        self.sta[s as usize].state = State::TxData;
        let nav = self.exchange_end(now, head.size);
        let d = self.params.rts_time();
        self.start_tx(now, s, head.to, d, Frame::Rts, nav, out);
    }

    pub(super) fn rts_end(&mut self, now: Time, s: Sta, t: Tx, out: &mut Vec<MacOut>) {
        let p = &self.params;
        let (sifs, cts, slot) = (p.sifs, p.ack_time(), p.slot);
        let st = &mut self.sta[s as usize];
        st.state = State::WaitCts;
        if t.ok {
            let ev = MacEv::CtsStart { sta: t.to, to: s };
            out.push(MacOut::Schedule(now + sifs, ev));
        }
        let gen = st.gen;
        out.push(MacOut::Schedule(
            now + sifs + cts + slot,
            MacEv::AckTimeout { sta: s, gen },
        ));
    }

    /// The receiver answers unless it is sending or its NAV is set.
    pub(super) fn send_cts(&mut self, now: Time, s: Sta, to: Sta, out: &mut Vec<MacOut>) {
        let st = &self.sta[s as usize];
        if self.tx[s as usize].is_some() || (st.nav_on && st.nav_until > now) {
            return;
        }
        let p = &self.params;
        let (d, sifs) = (p.ack_time(), p.sifs);
        let head_end = self.sta[to as usize].queue.front().map_or(now, |h| {
            now + d + 2 * sifs + self.params.data_time(h.size) + self.params.ack_time()
        });
        self.start_tx(now, s, to, d, Frame::Cts, head_end, out);
    }

    pub(super) fn cts_end(&mut self, now: Time, t: Tx, out: &mut Vec<MacOut>) {
        let sifs = self.params.sifs;
        let st = &mut self.sta[t.to as usize];
        if t.ok && st.state == State::WaitCts {
            st.state = State::TxData;
            st.gen = st.gen.wrapping_add(1);
            out.push(MacOut::Schedule(now + sifs, MacEv::DataStart { sta: t.to }));
        }
    }

    pub(super) fn data_after_cts(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        if self.tx[s as usize].is_none() {
            self.send_data(now, s, out);
        } else {
            self.sta[s as usize].state = State::WaitAck;
            self.failed(now, s, out);
        }
    }

    /// No CTS: the RTS counts against the short retry limit.
    pub(super) fn no_cts(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let (limit, cw_max) = (self.params.short_retry, self.params.cw_max);
        let st = &mut self.sta[s as usize];
        st.attempts += 1;
        if st.attempts < limit {
            st.cw = (2 * st.cw + 1).min(cw_max);
            self.contend(now, s, out);
            return;
        }
        if !st.delivered {
            let head = st.queue.front().expect("in service");
            self.stats.contention_drops += 1;
            out.push(MacOut::Drop(head.pkt, head.dir, MacFail::Contention));
        }
        self.next_packet(now, s, out);
    }

    /// Bystanders that decoded an RTS or CTS from `s` set their NAV.
    pub(super) fn set_navs(&mut self, now: Time, s: Sta, t: Tx, out: &mut Vec<MacOut>) {
        let n = self.nodes.len();
        for i in 0..self.cs[s as usize].len() {
            let o = self.cs[s as usize][i];
            if o == s || o == t.to || !self.hear[s as usize * n + o as usize] {
                continue;
            }
            let st = &mut self.sta[o as usize];
            if t.nav <= st.nav_until.max(now) {
                continue;
            }
            st.nav_until = t.nav;
            out.push(MacOut::Schedule(t.nav, MacEv::NavEnd { sta: o }));
            if !st.nav_on {
                st.nav_on = true;
                st.busy += 1;
                if st.busy == 1 {
                    self.freeze(now, o);
                }
            }
        }
    }

    pub(super) fn nav_end(&mut self, now: Time, s: Sta, out: &mut Vec<MacOut>) {
        let st = &mut self.sta[s as usize];
        if !st.nav_on || st.nav_until > now {
            return;
        }
        st.nav_on = false;
        st.busy -= 1;
        if st.busy == 0 {
            st.idle_since = now;
            if st.state == (State::Contend { armed: false }) {
                self.arm(now, s, out);
            }
        }
    }
}
