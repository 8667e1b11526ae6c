//! An 802.11b shared medium (DCF, basic access) for a static multi-hop
//! chain: stations at fixed positions, unit-disc transmission and
//! carrier-sense/interference ranges, one DropTail interface queue per
//! station, and the per-frame exchange DATA - SIFS - ACK with binary
//! exponential backoff (IEEE 802.11-1999 §9.2; the analysis of Bianchi 2000).
//!
//! The medium is a state machine: the simulator hands it packets and its
//! own timer events (`MacEv`), and it answers with `MacOut` items (timers to
//! schedule, packets delivered to the next node, packets dropped). Each hop
//! of the medium is an ordinary link direction whose `medium` field routes
//! it here, so static routes and the exit pipelines (the packet-level loss
//! the MAC does not repair) work as on wired links. See docs/wifi.md.

mod dcf;
mod rts;

use crate::engine::{stream, SimRng, Time, SEC, US};
use crate::packet::{NodeId, PktRef};
use std::collections::VecDeque;

use super::DirId;

/// Station index within one medium.
pub type Sta = u16;

/// Parameters of 802.11b DSSS (IEEE 802.11b-1999 Table 101; 802.11-1999
/// §9.2.10 for the interframe spaces, §10.3.3 for CW and retry limits).
#[derive(Debug, Clone, PartialEq)]
pub struct WifiParams {
    pub slot: Time,
    pub sifs: Time,
    pub difs: Time,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Transmission attempts of a data frame before it is dropped
    /// (dot11ShortRetryLimit: frames not protected by RTS/CTS, and RTS).
    pub short_retry: u32,
    /// Attempts of a data frame sent after an RTS/CTS exchange
    /// (dot11LongRetryLimit).
    pub long_retry: u32,
    /// RTS/CTS before every data frame (§9.2.5.6).
    pub rts_cts: bool,
    pub rts_bytes: u32,
    /// Long PLCP preamble and header, sent at 1 Mb/s.
    pub plcp: Time,
    pub data_bps: u64,
    pub basic_bps: u64,
    /// MAC header 24 + FCS 4 + LLC/SNAP 8 bytes added to every IP packet.
    pub data_overhead: u32,
    pub ack_bytes: u32,
    /// Probability that a data frame that did not collide is still received
    /// in error (the MAC retries it).
    pub frame_error: f64,
    pub tx_range: f64,
    pub cs_range: f64,
    /// Interface queue limit (packets waiting, ns-2's IFQ default 50).
    pub queue: u32,
}

impl Default for WifiParams {
    fn default() -> Self {
        Self {
            slot: 20 * US,
            sifs: 10 * US,
            difs: 50 * US,
            cw_min: 31,
            cw_max: 1023,
            short_retry: 7,
            long_retry: 4,
            rts_cts: false,
            rts_bytes: 20,
            plcp: 192 * US,
            data_bps: 11_000_000,
            basic_bps: 1_000_000,
            data_overhead: 36,
            ack_bytes: 14,
            frame_error: 0.0,
            tx_range: 250.0,
            cs_range: 550.0,
            queue: 50,
        }
    }
}

fn air(bytes: u32, bps: u64) -> Time {
    let bits = u128::from(bytes) * 8 * u128::from(SEC);
    let bps = u128::from(bps);
    ((bits + bps / 2) / bps) as Time
}

impl WifiParams {
    /// Air time of the data frame carrying an IP packet of `size` bytes.
    pub fn data_time(&self, size: u32) -> Time {
        self.plcp + air(size + self.data_overhead, self.data_bps)
    }

    /// Air time of a MAC ACK (basic rate).
    pub fn ack_time(&self) -> Time {
        self.plcp + air(self.ack_bytes, self.basic_bps)
    }

    /// Air time of an RTS (20 bytes) or a CTS (14 bytes, as an ACK).
    pub fn rts_time(&self) -> Time {
        self.plcp + air(self.rts_bytes, self.basic_bps)
    }

    /// EIFS = SIFS + ACK time at the basic rate + DIFS (IEEE 802.11-1999
    /// §9.2.10): the wait after a frame the station sensed but could not decode.
    pub fn eifs(&self) -> Time {
        self.sifs + self.ack_time() + self.difs
    }
}

/// A timer of the medium, scheduled by the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacEv {
    /// Backoff of station `sta` ends (stale unless `gen` matches).
    Backoff { sta: Sta, gen: u32 },
    /// The frame station `sta` is sending ends.
    TxEnd { sta: Sta },
    /// Receiver `sta` sends the MAC ACK to `to` (a SIFS after the data).
    AckStart { sta: Sta, to: Sta },
    /// Station `sta` gave up waiting for its ACK (or CTS).
    AckTimeout { sta: Sta, gen: u32 },
    /// Receiver `sta` answers an RTS from `to` with a CTS.
    CtsStart { sta: Sta, to: Sta },
    /// Station `sta` got its CTS: the data frame follows a SIFS later.
    DataStart { sta: Sta },
    /// The NAV of station `sta` may have expired.
    NavEnd { sta: Sta },
}

/// What a medium did, summed over its stations: the MAC's own view of the
/// losses TCP sees as drops (`contention`, `corruption`, `queue` causes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MacCounters {
    /// Data frames put on the air, first attempts and retries.
    pub data_frames: u64,
    /// Data frames that were retries of a frame sent before.
    pub retries: u64,
    /// Frames (of any kind) lost at their receiver to an overlapping
    /// transmission.
    pub collisions: u64,
    /// Data frames that did not collide but hit the frame error model.
    pub frame_errors: u64,
    /// Packets dropped at the retry limit, the last attempt lost to a
    /// collision or a lost ACK (drop cause `contention`).
    pub contention_drops: u64,
    /// Packets dropped at the retry limit, the last attempt lost to the frame
    /// error model (drop cause `corruption`).
    pub frame_error_drops: u64,
    /// Packets refused by a full interface queue (drop cause `queue`).
    pub queue_drops: u64,
}

impl MacCounters {
    /// The counts since `earlier` (the end of the warm-up).
    pub fn since(&self, earlier: &MacCounters) -> MacCounters {
        MacCounters {
            data_frames: self.data_frames - earlier.data_frames,
            retries: self.retries - earlier.retries,
            collisions: self.collisions - earlier.collisions,
            frame_errors: self.frame_errors - earlier.frame_errors,
            contention_drops: self.contention_drops - earlier.contention_drops,
            frame_error_drops: self.frame_error_drops - earlier.frame_error_drops,
            queue_drops: self.queue_drops - earlier.queue_drops,
        }
    }

    /// The sum of two media's counts.
    pub fn add(&mut self, o: &MacCounters) {
        self.data_frames += o.data_frames;
        self.retries += o.retries;
        self.collisions += o.collisions;
        self.frame_errors += o.frame_errors;
        self.contention_drops += o.contention_drops;
        self.frame_error_drops += o.frame_error_drops;
        self.queue_drops += o.queue_drops;
    }
}

/// Why the MAC gave up on a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacFail {
    /// Retry limit reached, the last attempt lost to a collision or a lost ACK.
    Contention,
    /// Retry limit reached, the last attempt lost to the frame error model.
    FrameError,
}

/// What the simulator must do after a call into the medium.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MacOut {
    Schedule(Time, MacEv),
    /// `pkt` was received over hop `dir`.
    Deliver(PktRef, DirId),
    Drop(PktRef, DirId, MacFail),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    /// Counting down `slots`; `armed` when the medium is idle and the
    /// backoff timer is pending.
    Contend {
        armed: bool,
    },
    TxData,
    WaitCts,
    WaitAck,
}

/// The kind of a frame on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Data,
    Ack,
    Rts,
    Cts,
}

#[derive(Debug, Clone, Copy)]
struct Queued {
    pkt: PktRef,
    dir: DirId,
    to: Sta,
    size: u32,
}

#[derive(Debug)]
struct Station {
    queue: VecDeque<Queued>,
    state: State,
    slots: u32,
    count_from: Time,
    gen: u32,
    cw: u32,
    attempts: u32,
    /// Data attempts after a CTS (the long retry count).
    long_attempts: u32,
    /// Data frames sent for the head packet (to count retries).
    data_tries: u32,
    /// Virtual carrier sense (§9.2.5.4): counted in `busy` while on.
    nav_on: bool,
    nav_until: Time,
    /// The head packet already reached the receiver (its ACK was lost):
    /// retransmissions are duplicates the receiver discards.
    delivered: bool,
    last_fail_fer: bool,
    /// The last frame sensed could not be decoded: wait EIFS, not DIFS.
    eifs: bool,
    /// Transmissions (own included) within carrier-sense range.
    busy: u32,
    idle_since: Time,
    backoff_rng: SimRng,
    fer_rng: SimRng,
}

#[derive(Debug, Clone, Copy)]
struct Tx {
    to: Sta,
    kind: Frame,
    /// End of the exchange announced by an RTS or CTS (bystanders' NAV).
    nav: Time,
    ok: bool,
    fer: bool,
}

/// One 802.11b medium.
#[derive(Debug)]
pub struct Medium {
    pub name: String,
    pub params: WifiParams,
    /// Topology node of each station.
    pub nodes: Vec<NodeId>,
    pub pos: Vec<(f64, f64)>,
    /// Per station: the stations within carrier-sense range, itself included.
    cs: Vec<Vec<Sta>>,
    /// `near[a * n + b]`: b is within interference range of a.
    near: Vec<bool>,
    /// `hear[a * n + b]`: b is within transmission range of a (can decode).
    hear: Vec<bool>,
    sta: Vec<Station>,
    tx: Vec<Option<Tx>>,
    pub stats: MacCounters,
}

impl Medium {
    pub fn new(
        name: &str,
        params: WifiParams,
        nodes: Vec<NodeId>,
        pos: Vec<(f64, f64)>,
        seed: u64,
    ) -> Self {
        let n = nodes.len();
        let dist = |a: usize, b: usize| {
            let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
            (dx * dx + dy * dy).sqrt()
        };
        let mut near = vec![false; n * n];
        let mut hear = vec![false; n * n];
        let mut cs = vec![Vec::new(); n];
        for a in 0..n {
            for b in 0..n {
                hear[a * n + b] = dist(a, b) <= params.tx_range;
                if dist(a, b) <= params.cs_range {
                    near[a * n + b] = true;
                    cs[a].push(b as Sta);
                }
            }
        }
        let sta = (0..n)
            .map(|i| Station {
                queue: VecDeque::with_capacity((params.queue as usize + 1).min(64)),
                state: State::Idle,
                slots: 0,
                count_from: 0,
                gen: 0,
                cw: params.cw_min,
                attempts: 0,
                long_attempts: 0,
                data_tries: 0,
                nav_on: false,
                nav_until: 0,
                delivered: false,
                last_fail_fer: false,
                eifs: false,
                busy: 0,
                idle_since: 0,
                backoff_rng: stream(seed, &format!("wifi/{name}/backoff/{i}")),
                fer_rng: stream(seed, &format!("wifi/{name}/frame_error/{i}")),
            })
            .collect();
        Self {
            name: name.to_string(),
            params,
            nodes,
            pos,
            cs,
            near,
            hear,
            sta,
            tx: vec![None; n],
            stats: MacCounters::default(),
        }
    }

    /// Distance in metres between stations `a` and `b`.
    pub fn distance(&self, a: usize, b: usize) -> f64 {
        let (dx, dy) = (self.pos[a].0 - self.pos[b].0, self.pos[a].1 - self.pos[b].1);
        (dx * dx + dy * dy).sqrt()
    }

    /// Packets held by station `s`'s interface queue (head in service included).
    pub fn queued(&self, s: Sta) -> usize {
        self.sta[s as usize].queue.len()
    }
}

#[cfg(test)]
mod tests;
