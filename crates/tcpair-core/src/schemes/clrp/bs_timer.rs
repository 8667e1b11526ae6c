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

use crate::engine::Time;
use crate::packet::{DataPacket, Packet, Retx};

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

    /// After a packet of connection `i` (`holding`: the BS caches packets
    /// of it; `progressed`: the MH acknowledged new data): start, restart
    /// or stop its timer of `period`.
    pub(super) fn rearm(
        &mut self,
        period: Time,
        now: Time,
        i: usize,
        holding: bool,
        progressed: bool,
    ) {
        let t = if !holding {
            None
        } else if progressed || self.get(i).is_none() {
            Some(now + period)
        } else {
            return;
        };
        self.set(i, t);
    }

    /// Connection `i`'s timer is due at `now`: the copy of its oldest cached
    /// packet `head` to retransmit if it is the one the MH waits for
    /// (`wanted`, the MH's cumulative ACK), and the timer restarts; else
    /// none, and the timer stops.
    pub(super) fn fire(
        &mut self,
        period: Time,
        now: Time,
        i: usize,
        head: Option<&DataPacket>,
        wanted: Option<u32>,
    ) -> Option<Packet> {
        let copy = match head {
            Some(p) if wanted.is_none_or(|a| a == p.seq) => {
                let mut copy = p.packet();
                copy.retx = Retx::BaseStation; // keeps the sender's `sent_at`
                Some(copy)
            }
            _ => None,
        };
        self.set(i, copy.map(|_| now + period));
        copy
    }
}
