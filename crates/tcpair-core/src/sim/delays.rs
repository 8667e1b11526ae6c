//! A flow's three delay histograms, with the sample they share recorded once.

use crate::metrics::Histogram;

/// The delay of each data packet's arrival (from its transmission), of each
/// segment's first arrival (from its first transmission) and of each
/// segment's in-order delivery (from its first transmission). A first
/// transmission that arrives in order and is delivered at once, the usual
/// case, has the same delay in all three: it is recorded once, in `all`,
/// and counted in each when they are read ([`Histogram::merge`] is exact, so
/// the figures are those of three separate records).
#[derive(Debug, Clone, Default)]
pub(super) struct Delays {
    /// Samples of all three.
    all: Histogram,
    delay: Histogram,
    e2e: Histogram,
    app: Histogram,
}

impl Delays {
    /// A sample of all three histograms.
    #[inline]
    pub fn record_all(&mut self, v: u64) {
        self.all.record(v);
    }

    #[inline]
    pub fn record_delay(&mut self, v: u64) {
        self.delay.record(v);
    }

    #[inline]
    pub fn record_e2e(&mut self, v: u64) {
        self.e2e.record(v);
    }

    #[inline]
    pub fn record_app(&mut self, v: u64) {
        self.app.record(v);
    }

    fn with_all(&self, h: &Histogram) -> Histogram {
        let mut m = h.clone();
        m.merge(&self.all);
        m
    }

    /// Delay from each transmission to its arrival.
    pub fn delay(&self) -> Histogram {
        self.with_all(&self.delay)
    }

    /// Delay from a segment's first transmission to its first arrival.
    pub fn e2e(&self) -> Histogram {
        self.with_all(&self.e2e)
    }

    /// Delay from a segment's first transmission to its in-order delivery.
    pub fn app(&self) -> Histogram {
        self.with_all(&self.app)
    }

    /// Forget every sample.
    pub fn clear(&mut self) {
        for h in [&mut self.all, &mut self.delay, &mut self.e2e, &mut self.app] {
            h.clear();
        }
    }

    /// Ask for the shared histogram's first line to be loaded.
    #[inline]
    pub fn prefetch_head(&self) {
        crate::engine::prefetch(&self.all);
    }

    /// Ask for the bucket a shared delay of `v` goes to to be loaded (the
    /// histogram's first line should already be in cache).
    #[inline]
    pub fn prefetch(&self, v: u64) {
        self.all.prefetch(v);
    }
}
