use crate::engine::{Ring, Time, SEC};
use crate::impair::Pipeline;
use crate::packet::NodeId;

/// What kind of medium a link models; recorded with every drop so each loss
/// is attributed to the wired or the wireless part of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    Wired,
    Wireless,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Wired => "wired",
            LinkKind::Wireless => "wireless",
        }
    }
}

/// Result of offering a packet to a link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    /// Accepted; the packet reaches the far end at this time.
    ArrivesAt(Time),
    /// DropTail: the queue already holds `limit` waiting packets.
    QueueFull,
}

/// One direction of a duplex link: a DropTail FIFO feeding a serial line.
///
/// Laid out for the many-flow case (`repr(C)`, 128 bytes, aligned to a
/// cache line): the first line holds what accepting a packet reads (the
/// line's state, its departure times and the serialization time of the
/// last size sent), the second what an arrival reads
/// (the far end, the packet count, whether the impairment pipeline can be
/// skipped) and the counters; the pipeline itself lives out of line, since
/// most directions have none.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct LinkDir {
    busy_until: Time,
    pub delay: Time,
    pub bandwidth_bps: u64,
    /// Finish times of accepted packets whose transmission has not ended.
    /// Front is the packet on the wire (if its start has passed).
    departures: Ring<Time>,
    pub to: NodeId,
    /// Maximum packets waiting (not counting the one being transmitted), as
    /// ns-2's `DropTail` `limit_`.
    pub queue_limit: u32,
    /// The serialization time of `tx_size` bytes (`tx_time`), remembered
    /// when it fits 32 bits: a direction mostly carries one size of packet,
    /// and the exact time is a 128-bit division.
    tx_size: u32,
    tx_ns: u32,
    /// Packets accepted and not yet handed to the far end (on the wire or queued).
    pub in_transit: u64,
    /// `(medium, from station, to station)` when this hop is on a shared
    /// medium (`wifi`): the medium's MAC, not this line, carries the packet.
    pub medium: Option<(u32, u16, u16)>,
    pub kind: LinkKind,
    /// `true` for the `from -> to` direction of the scenario's link.
    pub forward: bool,
    /// Peak number of waiting packets.
    pub peak_queue: u32,
    pub link: u32,
    pub from: NodeId,
    pub accepted: u64,
    pub queue_drops: u64,
    /// The impairment pipeline; `None` when it has no stage (most
    /// directions): arrivals then go straight to the far end.
    pipeline: Option<Box<Pipeline>>,
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        link: u32,
        forward: bool,
        from: NodeId,
        to: NodeId,
        bandwidth_bps: u64,
        delay: Time,
        queue_limit: u32,
        kind: LinkKind,
        pipeline: Pipeline,
    ) -> Self {
        Self {
            busy_until: 0,
            delay,
            bandwidth_bps,
            // Grows with what is queued, not with the limit: a direction that
            // never queues (most of the 40,000 at 10,000 flows: ACK directions,
            // fast wired hops) holds a few entries, not a limit's worth.
            departures: Ring::default(),
            to,
            queue_limit,
            // 0 bytes take 1 ns (at most) on any line: 32 bits hold it.
            tx_size: 0,
            tx_ns: exact_tx_time(bandwidth_bps, 0) as u32,
            in_transit: 0,
            medium: None,
            kind,
            forward,
            peak_queue: 0,
            link,
            from,
            accepted: 0,
            queue_drops: 0,
            pipeline: (!pipeline.is_transparent()).then(|| Box::new(pipeline)),
        }
    }

    /// The impairment pipeline has no stage (arrivals skip it).
    #[inline]
    pub fn transparent(&self) -> bool {
        self.pipeline.is_none()
    }

    /// The impairment pipeline, if it has a stage.
    #[inline]
    pub fn pipeline(&self) -> Option<&Pipeline> {
        self.pipeline.as_deref()
    }

    #[inline]
    pub fn pipeline_mut(&mut self) -> Option<&mut Pipeline> {
        self.pipeline.as_deref_mut()
    }

    /// Serialization time of `size` bytes, rounded to the nearest ns and at
    /// least 1 ns, so a packet never crosses a link in zero time and no
    /// cycle of events can run without simulated time moving forward.
    #[inline]
    pub fn tx_time(&self, size: u32) -> Time {
        if size == self.tx_size {
            Time::from(self.tx_ns)
        } else {
            exact_tx_time(self.bandwidth_bps, size)
        }
    }

    /// [`Self::tx_time`], remembered for the next packet of the same size.
    #[inline]
    fn tx_time_caching(&mut self, size: u32) -> Time {
        if size == self.tx_size {
            return Time::from(self.tx_ns);
        }
        let t = exact_tx_time(self.bandwidth_bps, size);
        if let Ok(ns) = u32::try_from(t) {
            (self.tx_size, self.tx_ns) = (size, ns);
        }
        t
    }

    /// Ask for the ends of the departure queue to be loaded (this
    /// direction's first cache line should already be in cache).
    #[inline]
    pub fn prefetch_queue(&self) {
        if let Some(f) = self.departures.front() {
            crate::engine::prefetch(f);
        }
        if let Some(b) = self.departures.back() {
            crate::engine::prefetch(b);
        }
    }

    /// Packets waiting at `now` (excluding the one being transmitted).
    #[inline(always)]
    pub fn waiting(&mut self, now: Time) -> u32 {
        while let Some(&f) = self.departures.front() {
            if f <= now {
                self.departures.pop_front();
            } else {
                break;
            }
        }
        self.departures.len().saturating_sub(1)
    }

    /// Offer a packet of `size` bytes at `now`.
    #[inline(always)]
    pub fn offer(&mut self, now: Time, size: u32) -> Accept {
        // The finished transmissions are forgotten only when the count of
        // those remembered could reach the limit or the peak (a count that
        // is too high by the finished ones cannot reach either otherwise).
        let remembered = self.departures.len();
        if remembered > self.queue_limit.min(self.peak_queue) {
            let waiting = self.waiting(now);
            if !self.departures.is_empty() && waiting >= self.queue_limit {
                self.queue_drops += 1;
                return Accept::QueueFull;
            }
        }
        let start = self.busy_until.max(now);
        let finish = start + self.tx_time_caching(size);
        self.busy_until = finish;
        self.departures.push_back(finish);
        let now_waiting = self.departures.len().saturating_sub(1);
        self.peak_queue = self.peak_queue.max(now_waiting);
        self.accepted += 1;
        self.in_transit += 1;
        Accept::ArrivesAt(finish + self.delay)
    }

    /// Time a packet of `size` bytes arriving at the far end at `arrival`
    /// started its transmission (the moment it was "sent into the link").
    #[inline]
    pub fn entered_at(&self, arrival: Time, size: u32) -> Time {
        arrival.saturating_sub(self.delay + self.tx_time(size))
    }
}

/// Serialization time of `size` bytes at `bandwidth_bps`, rounded to the
/// nearest ns and at least 1 ns.
#[inline(never)]
fn exact_tx_time(bandwidth_bps: u64, size: u32) -> Time {
    let bits = u128::from(size) * 8 * u128::from(SEC);
    let bw = u128::from(bandwidth_bps);
    (((bits + bw / 2) / bw) as Time).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, US};
    use crate::impair::pipeline::ImpairSpec;

    fn dir(limit: u32) -> LinkDir {
        let p = Pipeline::build(&ImpairSpec::default(), "l", 1, "l").unwrap();
        // 8 Mb/s: a 1000-byte packet takes exactly 1 ms.
        LinkDir::new(0, true, 0, 1, 8_000_000, 10 * MS, limit, LinkKind::Wired, p)
    }

    #[test]
    fn serialization_and_propagation() {
        let mut d = dir(10);
        assert_eq!(d.tx_time(1000), MS);
        assert_eq!(d.tx_time(40), 40 * US);
        assert_eq!(d.offer(0, 1000), Accept::ArrivesAt(11 * MS));
        // Back-to-back packet waits for the first.
        assert_eq!(d.offer(0, 1000), Accept::ArrivesAt(12 * MS));
        // After the line went idle, no waiting.
        assert_eq!(d.offer(20 * MS, 1000), Accept::ArrivesAt(31 * MS));
        assert_eq!(d.entered_at(31 * MS, 1000), 20 * MS);
    }

    #[test]
    fn remembered_tx_times_are_exact() {
        let mut d = dir(10);
        for size in [1000, 1000, 40, 1000, 0, 40, 40, u32::MAX, 7] {
            let want = exact_tx_time(d.bandwidth_bps, size);
            assert_eq!(d.tx_time(size), want);
            assert_eq!(d.tx_time_caching(size), want);
            assert_eq!(d.tx_time(size), want);
        }
        assert_eq!(std::mem::size_of::<LinkDir>(), 128);
    }

    #[test]
    fn droptail_limit_counts_waiting_packets_only() {
        let mut d = dir(2);
        // One on the wire + 2 waiting are accepted, the 4th is dropped.
        for _ in 0..3 {
            assert!(matches!(d.offer(0, 1000), Accept::ArrivesAt(_)));
        }
        assert_eq!(d.offer(0, 1000), Accept::QueueFull);
        assert_eq!(d.peak_queue, 2);
        // Once the first finished (t = 1 ms), there is room for one more.
        assert!(matches!(d.offer(MS, 1000), Accept::ArrivesAt(_)));
        assert_eq!(d.offer(MS, 1000), Accept::QueueFull);
        assert_eq!(d.queue_drops, 2);
    }
}
