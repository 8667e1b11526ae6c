//! What a run measures over time: the end of the warm-up, and the time
//! series samples.

use super::{Ev, Sim};
use crate::metrics::Sample;
use crate::packet::FlowId;

impl Sim {
    /// The end of the warm-up: counters and delays restart from here (for
    /// the flows of the running part; a run with media has one queue).
    pub(super) fn on_warmup(&mut self) {
        self.note_copy();
        for k in 0..self.parts.running_count(self.flows.len()) {
            let i = self.parts.running_flow(k);
            self.flows[i].start_measuring();
        }
        self.mac_at_warmup = self.mac_total().unwrap_or_default();
    }

    /// A time series sample of the running part's flows.
    pub(super) fn on_sample(&mut self) {
        self.note_copy();
        let now = self.q.now();
        let window = self.scenario.throughput_window;
        for k in 0..self.parts.running_count(self.flows.len()) {
            let i = self.parts.running_flow(k);
            let f = &mut self.flows[i];
            let delivered = f.sink_c.delivered;
            f.tput_hist.push_back((now, delivered));
            while f.tput_hist.len() > 1 && f.tput_hist[0].0 + window < now {
                f.tput_hist.pop_front();
            }
            let (t0, d0) = f.tput_hist[0];
            let tput = if now > t0 {
                (delivered - d0) as f64 * f64::from(f.plan.packet_size) * 8.0
                    / crate::engine::to_secs(now - t0)
                    / 1e3
            } else {
                0.0
            };
            self.samples.push(Sample {
                time: now,
                flow: i as FlowId,
                cwnd: f.sender.cwnd(),
                ssthresh: f.sender.ssthresh(),
                seq_sent: i64::from(f.sender.max_sent()) - 1,
                throughput_kbps: tput,
            });
        }
        let next = now + self.scenario.sample_interval;
        if next <= self.scenario.duration {
            self.q.schedule(next, Ev::Sample);
        }
    }
}
