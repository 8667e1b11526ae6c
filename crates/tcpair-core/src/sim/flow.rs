//! Per-flow state of a run: the two end points, the flow's timers, what is
//! measured, and the ground truth of its lost segments.

use super::accuracy::Accuracy;
use super::delays::Delays;
use crate::engine::{stream, Ring, SimRng, Time};
use crate::metrics::{DropCauseKind, SinkCounters};
use crate::net::{LinkKind, Routes};
use crate::packet::PktKind;
use crate::scenario::FlowPlan;
use crate::tcp::{Counters, SenderStats, TcpSender, TcpSink};
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes a segment number with one multiplication (Fibonacci hashing, as
/// rustc's `FxHasher`): the default SipHash took about 120 instructions per
/// look-up, and the ground truth is looked up for every data packet
/// delivered while a loss is pending. Nothing iterates over these sets, so
/// the hasher changes no result.
#[derive(Default, Clone, Copy)]
pub(super) struct SeqHasher(u64);

impl Hasher for SeqHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type SeqBuild = BuildHasherDefault<SeqHasher>;

pub(super) struct FlowState {
    pub plan: FlowPlan,
    pub data_path: u32,
    pub ack_path: u32,
    /// A flow of the mobile host: (base station, data path, ACK path).
    pub attach: Vec<(crate::packet::NodeId, u32, u32)>,
    pub sender: TcpSender,
    pub sink: TcpSink,
    /// The sender asks for the ground truth on each ACK (oracle detector).
    pub wants_truth: bool,
    pub snd_timer_at: Option<Time>,
    pub sink_timer_at: Option<Time>,
    pub sink_c: SinkCounters,
    pub base_sink: SinkCounters,
    pub base_sender: SenderStats,
    /// The scheme parts' counters at the end of the warm-up (none before).
    pub base_counters: Counters,
    /// The delay histograms (transmission to arrival, first transmission
    /// to first arrival, first transmission to in-order delivery).
    pub delays: Delays,
    /// First-transmission times of segments `first_base..`, for `e2e_delay`.
    pub first_tx: Ring<Time>,
    pub first_base: u32,
    /// Ground truth: segment -> cause of its latest drop not yet followed by
    /// a delivery. Looked up when the sender retransmits.
    pub lost: HashMap<u32, (DropCauseKind, LinkKind), SeqBuild>,
    /// Segments in `lost` whose drops since their last delivery include
    /// both a congestion and a wireless one (mixed causes).
    pub lost_mixed: HashSet<u32, SeqBuild>,
    /// No segment above this was ever entered in `lost` (nor so in
    /// `lost_mixed`): a delivery above it has nothing to remove.
    pub lost_max: u32,
    pub finished_at: Option<Time>,
    /// Data packets injected by BS agents (local retransmissions), and the
    /// count at the end of the warm-up.
    pub bs_retx: u64,
    pub base_bs_retx: u64,
    /// (time, delivered segments) at recent samples, for moving-window throughput.
    pub tput_hist: VecDeque<(Time, u64)>,
    /// The sending-jitter stream (`flow/<name>/send`), when `send_jitter` > 0.
    pub send_rng: Option<SimRng>,
    /// When the last jittered data packet leaves the sender.
    pub released_at: Time,
    /// Data packets the sending jitter holds now (in flight, not on a link).
    pub held: u64,
    /// The detector's accuracy counts, when the `recoveries` table is not
    /// kept (`output.recoveries = false`); from the table otherwise.
    pub accuracy: Accuracy,
}

impl FlowState {
    pub fn new(plan: &FlowPlan, routes: &mut Routes, seed: u64) -> Self {
        let sender = TcpSender::new(plan.tcp.clone());
        Self {
            data_path: routes.add(plan.data_path.clone()),
            ack_path: routes.add(plan.ack_path.clone()),
            attach: plan
                .attach
                .iter()
                .map(|a| (a.bs, routes.add(a.data.clone()), routes.add(a.ack.clone())))
                .collect(),
            wants_truth: sender.wants_truth(),
            sender,
            sink: TcpSink::new(plan.sink.clone()),
            plan: plan.clone(),
            snd_timer_at: None,
            sink_timer_at: None,
            sink_c: SinkCounters::default(),
            base_sink: SinkCounters::default(),
            base_sender: SenderStats::default(),
            base_counters: Counters::new(),
            delays: Delays::default(),
            first_tx: Ring::default(),
            first_base: 0,
            lost: HashMap::default(),
            lost_mixed: HashSet::default(),
            lost_max: 0,
            finished_at: None,
            bs_retx: 0,
            base_bs_retx: 0,
            tput_hist: VecDeque::new(),
            send_rng: (plan.send_jitter > 0)
                .then(|| stream(seed, &format!("flow/{}/send", plan.name))),
            released_at: 0,
            held: 0,
            accuracy: Accuracy::default(),
        }
    }

    /// Ask for what a packet of `kind` arriving at its end point reads to be
    /// loaded: the receiver, its counters and the delay histograms for data,
    /// the sender for an ACK.
    #[inline]
    pub fn prefetch(&self, kind: PktKind) {
        use crate::engine::{prefetch, prefetch_all};
        prefetch(&self.wants_truth);
        prefetch(&self.first_tx);
        prefetch(&self.data_path);
        match kind {
            PktKind::Data => {
                prefetch_all(&self.sink);
                prefetch(&self.sink_c);
                self.delays.prefetch_head();
            }
            PktKind::Ack => prefetch_all(&self.sender),
        }
    }

    /// Ask for the records packet `p` arriving at its end point at `at`
    /// writes to be loaded: its delay's bucket and its first-transmission
    /// time (data), the end of the first-transmission times (an ACK, which
    /// lets new segments go).
    #[inline]
    pub fn prefetch_records(&self, p: &crate::packet::Stored, at: Time) {
        use crate::engine::prefetch;
        match p.kind {
            PktKind::Data => {
                // A first transmission arriving in order has the same delay
                // in all three, recorded once.
                self.delays.prefetch(at.saturating_sub(p.sent_at));
                if let Some(t) = p.seq.checked_sub(self.first_base) {
                    if let Some(t) = self.first_tx.get(t) {
                        prefetch(t);
                    }
                }
            }
            PktKind::Ack => {
                if let Some(t) = self.first_tx.back() {
                    prefetch(t);
                }
            }
        }
    }

    /// The path of what an end point sends in reply to a packet of `kind`:
    /// an ACK for data, data for an ACK.
    #[inline]
    pub fn reply_path(&self, kind: PktKind) -> u32 {
        match kind {
            PktKind::Data => self.ack_path,
            PktKind::Ack => self.data_path,
        }
    }

    /// When segment `seq` was first transmitted (if still remembered).
    pub fn first_tx_of(&self, seq: u32) -> Option<Time> {
        let i = seq.checked_sub(self.first_base)?;
        self.first_tx.get(i).copied()
    }

    /// The scheme parts' counters of both end points, now.
    pub fn counters(&self) -> Counters {
        let mut c = Counters::new();
        self.sender.counters(&mut c);
        self.sink.counters(&mut c);
        c
    }

    /// A finite transfer's balance: no more segments delivered in order, nor
    /// sent, than the transfer has (`segments`). What broke it, if it is.
    pub fn check_transfer(&self) -> Result<(), String> {
        let Some(n) = self.plan.tcp.total_segments else {
            return Ok(());
        };
        let (delivered, sent) = (self.sink_c.delivered, self.sender.max_sent());
        if delivered <= n && u64::from(sent) <= n {
            return Ok(());
        }
        Err(format!(
            "flow {}: {delivered} segments delivered and {sent} sent of a {n}-segment transfer",
            self.plan.name
        ))
    }

    /// The end of the warm-up: what was counted so far is not measured.
    pub fn start_measuring(&mut self) {
        self.base_bs_retx = self.bs_retx;
        self.base_sink = self.sink_c;
        self.base_sender = *self.sender.stats();
        self.base_counters = self.counters();
        self.delays.clear();
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::SEC;
    use crate::sim::Sim;
    use serde_json::json;

    /// A 20-segment transfer over one link, run until it is long done.
    fn finished() -> Sim {
        let v = json!({
            "run": {"duration": 5.0, "seed": 1},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"name": "l", "from": "a", "to": "b", "bandwidth": "10Mb",
                       "delay": "10ms", "queue": 50}],
            "flows": [{"name": "f", "src": "a", "dst": "b", "variant": "reno",
                       "segments": 20}]
        });
        let mut sim = Sim::from_value(&v).unwrap();
        sim.run_until(5 * SEC).unwrap();
        assert!(sim.flows[0].sender.finished());
        sim
    }

    #[test]
    fn a_finite_transfer_within_its_segments_passes() {
        let mut sim = finished();
        assert_eq!(sim.flows[0].check_transfer(), Ok(()));
        sim.release_run_state();
    }

    #[test]
    #[should_panic(expected = "finite transfer broken: flow f: 21 segments delivered")]
    fn delivering_more_than_the_transfer_has_is_an_internal_error() {
        let mut sim = finished();
        sim.flows[0].sink_c.delivered += 1;
        sim.release_run_state();
    }

    #[test]
    fn sending_past_the_end_breaks_the_balance() {
        let mut sim = finished();
        sim.flows[0].plan.tcp.total_segments = Some(19);
        let e = sim.flows[0].check_transfer().unwrap_err();
        assert!(e.contains("20 sent of a 19-segment transfer"), "{e}");
    }
}
