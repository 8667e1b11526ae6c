//! CLRP-BS's optional local retransmission timer (`local_timer`), FH -> MH.
//!
//! Not in Sun et al. 2005: the paper describes no timer at the BS (§II.B
//! gives the BS only the notice list), but calls CLRP a "localized link
//! layer retransmission protocol" and says the details "are the same" in
//! both directions, where the retransmitting side of MH -> FH (TCP-MH) does
//! have a timer, its own RTO. This is that reading for the BS, kept as
//! simple as the text allows: one timer per connection with a fixed period.
//!
//! - Armed `local_timer` after a packet passes while the BS holds cached
//!   packets of the connection and no timer runs; restarted at every ACK from
//!   the MH that acknowledges new data; stopped when the cache empties.
//! - At expiry, if the oldest cached packet is the one the MH's cumulative
//!   ACK asks for, a copy is retransmitted (`timer_retransmits`) and the
//!   timer restarts; otherwise that packet never reached the BS (a wired
//!   loss, the FH's to repair) and the timer stops until the next packet.
//! - The period does not back off: the BS retransmits at most one packet
//!   per period and connection.

use super::bs::ClrpBs;
use crate::bs::BsOut;
use crate::engine::Time;
use crate::packet::Retx;

/// Each connection's deadline (indexed by connection).
#[derive(Debug, Default)]
pub(super) struct LocalTimer {
    deadlines: Vec<Option<Time>>,
}

impl LocalTimer {
    /// Connection `i`'s deadline, if its timer runs.
    pub(super) fn get(&self, i: usize) -> Option<Time> {
        self.deadlines.get(i).copied().flatten()
    }

    fn set(&mut self, i: usize, t: Option<Time>) {
        if self.deadlines.len() <= i {
            self.deadlines.resize(i + 1, None);
        }
        self.deadlines[i] = t;
    }
}

impl ClrpBs {
    /// After a packet of connection `i` (`progressed`: the MH acknowledged
    /// new data): start, restart or stop its timer.
    pub(super) fn rearm(&mut self, now: Time, i: usize, progressed: bool) {
        let Some(period) = self.p.local_timer else {
            return;
        };
        let t = if self.conns[i].cache.is_empty() {
            None
        } else if progressed || self.timer.get(i).is_none() {
            Some(now + period)
        } else {
            return;
        };
        self.timer.set(i, t);
    }

    /// Connection `i`'s timer is due at `now`: retransmit its oldest cached
    /// packet if it is the one the MH waits for.
    pub(super) fn fire(&mut self, now: Time, i: usize, out: &mut BsOut) {
        let Some(period) = self.p.local_timer else {
            return;
        };
        let c = &mut self.conns[i];
        let head = c.cache.front().copied();
        let next = match head {
            Some(p) if c.down_last_ack.is_none_or(|a| a == p.seq) => {
                let mut copy = p;
                copy.retx = Retx::BaseStation; // keeps the sender's `sent_at`
                out.inject.push(copy);
                c.c.timer_retransmits += 1;
                Some(now + period)
            }
            _ => None,
        };
        self.timer.set(i, next);
    }
}
