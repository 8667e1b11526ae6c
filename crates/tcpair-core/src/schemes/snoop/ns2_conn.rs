//! One ns-2 `Snoop` object's state for `snoop_ns2` (`ns2.rs`): the cache
//! entries (`hdr_snoop`), the connection's variables, its RTT arithmetic
//! (`snoop_rtt()`, `timeout()`) and `snoop_insert()`, in ns-2.35's numbering
//! (`tcp/snoop.cc`; docs/snoop.md).

use std::collections::VecDeque;

use super::ns2_params::Ns2Params;
use crate::engine::Time;
use crate::packet::Packet;

/// One cached packet (snoop.cc's `hdr_snoop`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cached {
    pub(super) pkt: Packet,
    /// `sndTime_`: last sent toward the MH (by the FH or locally).
    pub(super) snd_time: Time,
    /// `numRxmit_`: local retransmissions since the sender last sent it.
    pub(super) num_rxmit: u32,
    /// `senderRxmit_`: its DUPACKs are left to the sender.
    pub(super) sender_rxmit: bool,
}

/// Per-connection state (one ns-2 `Snoop` object).
#[derive(Debug, Clone)]
pub(super) struct Conn {
    /// `pkts_[buftail_..bufhead_]`, sorted by seq.
    pub(super) cache: VecDeque<Cached>,
    pub(super) alive: bool,
    /// `lastSeen_`, `lastAck_` (ns-2 numbering: -1 = none).
    pub(super) last_seen: i64,
    pub(super) last_ack: i64,
    /// `expNextAck_`, as an offset from the cache's head (it is always
    /// `buftail_` or `next(buftail_)`).
    pub(super) exp_next: usize,
    /// `expDupacks_`.
    pub(super) exp_dupacks: i64,
    /// `srtt_`, `rttvar_`, seconds.
    pub(super) srtt: f64,
    pub(super) rttvar: f64,
    pub(super) timer: Option<Time>,
    pub(super) c: Counters,
}

impl Conn {
    pub(super) fn new(p: &Ns2Params) -> Self {
        Self {
            cache: VecDeque::new(),
            alive: false,
            last_seen: -1,
            last_ack: -1,
            exp_next: 0,
            exp_dupacks: 0,
            srtt: p.srtt,
            rttvar: p.rttvar,
            timer: None,
            c: Counters::default(),
        }
    }

    /// `timeout()`: max(srtt + 4 rttvar, snoopTick_), in nanoseconds.
    pub(super) fn timeout(&self, p: &Ns2Params) -> Time {
        let t = (self.srtt + 4.0 * self.rttvar).max(p.snoop_tick);
        crate::engine::fmath::round(t * 1e9) as Time
    }

    /// `snoop_rtt()`: the old estimate weighs `g`, the sample 1 - g; the
    /// deviation is taken from the *updated* srtt.
    pub(super) fn rtt_sample(&mut self, rtt: f64, g: f64) {
        if rtt > 0.0 {
            self.srtt = g * self.srtt + (1.0 - g) * rtt;
            let delta = (rtt - self.srtt).abs();
            self.rttvar = if self.rttvar != 0.0 {
                g * delta + (1.0 - g) * self.rttvar
            } else {
                delta
            };
            self.c.rtt_samples += 1;
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counters {
    pub(super) local_retransmits: u64,
    pub(super) local_timeouts: u64,
    pub(super) dupacks_suppressed: u64,
    pub(super) dupacks_forwarded: u64,
    pub(super) cache_full: u64,
    pub(super) sender_retransmits: u64,
    pub(super) rtt_samples: u64,
    pub(super) resets: u64,
    pub(super) not_cached: u64,
}

/// What `snoop_insert()` did with a data packet.
pub(super) enum Insert {
    /// At or below the last ACK: not cached.
    Acked,
    /// Cached at index `at`; `tail`: out of order (snoop.cc's SNOOP_TAIL).
    New { at: usize, tail: bool },
    /// Already cached at `at` (a sender retransmission): was `before`.
    Again { at: usize, before: Cached },
}

/// `snoop_insert()`: place `pkt` in the cache.
pub(super) fn insert(conn: &mut Conn, pkt: &Packet, now: Time) -> Insert {
    let seq = i64::from(pkt.seq);
    if seq <= conn.last_ack {
        return Insert::Acked;
    }
    let search = match conn.cache.back() {
        // Above everything cached (in order, the usual case).
        Some(last) if last.pkt.seq < pkt.seq => Err(conn.cache.len()),
        None => Err(0),
        Some(_) => conn.cache.binary_search_by_key(&pkt.seq, |e| e.pkt.seq),
    };
    let at = match search {
        Ok(k) => {
            let before = conn.cache[k];
            let e = &mut conn.cache[k];
            e.num_rxmit = 0;
            e.sender_rxmit = true;
            e.snd_time = now;
            return Insert::Again { at: k, before };
        }
        Err(k) => k,
    };
    let e = || Cached {
        pkt: *pkt,
        snd_time: now,
        num_rxmit: 0,
        sender_rxmit: false,
    };
    if at == conn.cache.len() {
        conn.cache.push_back(e()); // in order, the usual case
    } else {
        conn.cache.insert(at, e());
    }
    if seq < conn.last_seen {
        // A sender retransmission or a reordered packet: if it heads the
        // cache, its DUPACKs are the sender's.
        if at == 0 {
            conn.cache[0].sender_rxmit = true;
        }
        conn.exp_next = 0;
        return Insert::New { at, tail: true };
    }
    conn.last_seen = seq;
    Insert::New { at, tail: false }
}

/// Packets and bytes a connection's cache holds.
pub(super) fn held(c: &Conn) -> (i64, i64) {
    let bytes: i64 = c.cache.iter().map(|e| i64::from(e.pkt.size)).sum();
    (c.cache.len() as i64, bytes)
}
