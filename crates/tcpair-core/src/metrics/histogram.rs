//! A log-linear histogram of durations (HDR-histogram style): each quantile
//! is exact to within one bucket, i.e. a relative error below 1/SUB (under
//! 0.8%).
//!
//! Values are grouped by power of two (`GROUPS` groups of `SUB` linear
//! buckets). A group's counts are allocated when it receives its first sample,
//! so a histogram costs a few hundred bytes plus 256 bytes per octave its
//! samples span (delays between 16.8 ms and 268 ms: four groups, 1 KiB), instead
//! of all 58 groups up front. Counts are `u16`: a bucket that passes 65,535
//! samples carries each 2^16 into a side list of 64-bit counts (a few entries
//! per histogram even in long runs: a flow's delays spread over many
//! buckets), so no count can overflow and the quantiles are those of plain
//! 64-bit counters. At 10,000 flows, `u32` counts took 3 KiB more per flow.

/// Bits of a bucket's count kept in its group; the rest is carried.
const COUNT_BITS: u32 = 16;

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS; // 128 linear buckets per power of two
const GROUPS: usize = 64 - SUB_BITS as usize + 1;

/// The counts of one group (one power of two).
type Group = [u16; SUB as usize];

/// Laid out (`repr(C)`) so that recording a sample reads one cache line of
/// the histogram besides its bucket: the running totals, the groups and the
/// group of the previous sample (delays of one flow mostly share a power of
/// two) come first; the full group table after them.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Histogram {
    sum: u128,
    n: u64,
    min: u64,
    max: u64,
    /// The allocated groups, in the order of their first sample.
    groups: Box<[Group]>,
    /// The group of the previous sample and its index in `groups`.
    last: (u8, u8),
    /// Per group: 0 when it has no samples, else 1 + its index in `groups`.
    slot: [u8; GROUPS],
    /// (bucket, multiples of 2^16 carried out of its `u16` count), in
    /// bucket order.
    carries: Vec<(u16, u64)>,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    pub fn new() -> Self {
        Self {
            sum: 0,
            n: 0,
            min: u64::MAX,
            max: 0,
            groups: Box::new([]),
            // Group 0 is never `last` until it has a slot (`slot` is 0 then).
            last: (u8::MAX, 0),
            slot: [0; GROUPS],
            carries: Vec::new(),
        }
    }

    #[inline]
    fn index(v: u64) -> usize {
        if v < SUB {
            return v as usize;
        }
        let msb = 63 - v.leading_zeros(); // >= SUB_BITS
        let group = (msb - SUB_BITS + 1) as usize;
        let shift = msb - SUB_BITS;
        let sub = ((v >> shift) - SUB) as usize; // 0..SUB
        group * SUB as usize + sub
    }

    /// Lower edge of bucket `i`, and its width.
    fn bucket(i: usize) -> (u64, u64) {
        let group = i / SUB as usize;
        let sub = (i % SUB as usize) as u64;
        if group == 0 {
            (sub, 1)
        } else {
            let shift = group as u32 - 1;
            ((SUB + sub) << shift, 1 << shift)
        }
    }

    /// Ask for the bucket a sample `v` would go to to be loaded (when its
    /// group is the previous sample's, the common case).
    #[inline]
    pub fn prefetch(&self, v: u64) {
        let i = Self::index(v);
        if usize::from(self.last.0) == i / SUB as usize {
            let g = &self.groups[usize::from(self.last.1)];
            crate::engine::prefetch(&g[i % SUB as usize]);
        }
    }

    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        let i = Self::index(v);
        let g = i / SUB as usize;
        let slot = if usize::from(self.last.0) == g {
            usize::from(self.last.1)
        } else {
            self.slot_of(g)
        };
        let c = &mut self.groups[slot][i % SUB as usize];
        match c.checked_add(1) {
            Some(next) => *c = next,
            None => {
                *c = 0;
                self.carry(i, 1);
            }
        }
        self.n += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// The index in `groups` of group `g` (allocated now if it has no
    /// samples yet), remembered as `last`.
    #[inline(never)]
    fn slot_of(&mut self, g: usize) -> usize {
        let slot = match self.slot[g] {
            0 => self.add_group(g),
            s => usize::from(s) - 1,
        };
        // At most GROUPS (58) groups, so a group and a slot fit a u8.
        self.last = (g as u8, slot as u8);
        slot
    }

    #[cold]
    fn add_group(&mut self, g: usize) -> usize {
        let mut groups = std::mem::take(&mut self.groups).into_vec();
        groups.push([0; SUB as usize]);
        self.groups = groups.into_boxed_slice();
        self.slot[g] = self.groups.len() as u8;
        self.groups.len() - 1
    }

    /// Bucket `i`'s `u16` count wrapped `k` times: remember the `k` 2^16 it held.
    #[cold]
    fn carry(&mut self, i: usize, k: u64) {
        // GROUPS * SUB = 7,424 buckets: an index fits a u16.
        let i = i as u16;
        match self.carries.binary_search_by_key(&i, |&(b, _)| b) {
            Ok(j) => self.carries[j].1 += k,
            Err(j) => self.carries.insert(j, (i, k)),
        }
    }

    /// The count of bucket `i` (its group's share, without the carries).
    fn low_at(&self, i: usize) -> u64 {
        match self.slot[i / SUB as usize] {
            0 => 0,
            s => u64::from(self.groups[usize::from(s) - 1][i % SUB as usize]),
        }
    }

    /// The count of bucket `i`.
    #[cfg(test)]
    fn count_at(&self, i: usize) -> u64 {
        let high = self
            .carries
            .binary_search_by_key(&(i as u16), |&(b, _)| b)
            .map_or(0, |j| self.carries[j].1 << COUNT_BITS);
        self.low_at(i) + high
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Bytes this histogram holds on the heap (its groups and carries).
    pub fn heap_bytes(&self) -> usize {
        self.groups.len() * std::mem::size_of::<Group>()
            + self.carries.capacity() * std::mem::size_of::<(u16, u64)>()
    }

    /// Exact mean of the recorded values.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    /// The q-quantile (0 <= q <= 1), nearest-rank, reported as the midpoint
    /// of the bucket holding it and clamped to the observed [min, max].
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        // The carries (in bucket order) read alongside the buckets.
        let mut carries = self.carries.iter().peekable();
        let mut acc = 0;
        for g in (0..GROUPS).filter(|&g| self.slot[g] != 0) {
            for i in g * SUB as usize..(g + 1) * SUB as usize {
                acc += self.low_at(i);
                if let Some(&(_, k)) = carries.next_if(|&&(b, _)| usize::from(b) == i) {
                    acc += k << COUNT_BITS;
                }
                if acc >= rank {
                    let (lo, w) = Self::bucket(i);
                    let mid = lo as f64 + (w as f64 - 1.0) / 2.0;
                    return Some(mid.clamp(self.min as f64, self.max as f64));
                }
            }
        }
        Some(self.max as f64)
    }

    /// Add every sample of `other`, as if each had been recorded here: the
    /// counts, totals and extremes are sums and bounds, so the result does
    /// not depend on the order of samples.
    pub fn merge(&mut self, other: &Histogram) {
        if other.n == 0 {
            return;
        }
        for g in (0..GROUPS).filter(|&g| other.slot[g] != 0) {
            let theirs = &other.groups[usize::from(other.slot[g]) - 1];
            let slot = self.slot_of(g);
            for (j, &c) in theirs.iter().enumerate() {
                let mine = &mut self.groups[slot][j];
                let (sum, wrapped) = mine.overflowing_add(c);
                *mine = sum;
                if wrapped {
                    self.carry(g * SUB as usize + j, 1);
                }
            }
        }
        for &(b, k) in &other.carries {
            self.carry(usize::from(b), k);
        }
        self.n += other.n;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Forget every sample (the groups stay allocated, zeroed).
    pub fn clear(&mut self) {
        self.groups.iter_mut().for_each(|g| g.fill(0));
        self.carries.clear();
        self.n = 0;
        self.sum = 0;
        self.min = u64::MAX;
        self.max = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::new();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(50.0));
        assert_eq!(h.quantile(0.99), Some(99.0));
        assert_eq!(h.mean(), Some(50.5));
    }

    /// The quantile as the layout with every group allocated (64-bit
    /// counts, all buckets scanned) computes it: the compact histogram must
    /// agree bit for bit.
    fn dense_quantile(vs: &[u64], q: f64) -> f64 {
        let mut counts = vec![0u64; GROUPS * SUB as usize];
        vs.iter().for_each(|&v| counts[Histogram::index(v)] += 1);
        let (min, max) = (*vs.iter().min().unwrap(), *vs.iter().max().unwrap());
        let rank = ((q.clamp(0.0, 1.0) * vs.len() as f64).ceil() as u64).max(1);
        let mut acc = 0;
        for (i, &c) in counts.iter().enumerate() {
            acc += c;
            if acc >= rank {
                let (lo, w) = Histogram::bucket(i);
                let mid = lo as f64 + (w as f64 - 1.0) / 2.0;
                return mid.clamp(min as f64, max as f64);
            }
        }
        max as f64
    }

    #[test]
    fn groups_are_allocated_on_first_use() {
        let mut h = Histogram::new();
        assert_eq!(h.heap_bytes(), 0);
        // 16.8 ms to 268 ms in nanoseconds: four powers of two.
        for v in ((1u64 << 24)..(1 << 28)).step_by(1_000_003) {
            h.record(v);
        }
        assert_eq!(h.groups.len(), 4);
        assert!(h.heap_bytes() <= 4 * 256, "{} bytes", h.heap_bytes());
    }

    /// Bucket `i` of `h` as if `n` samples of it had been recorded (`n`
    /// below 2^16: the group holds it all).
    fn set_count(h: &mut Histogram, v: u64, n: u16) {
        let i = Histogram::index(v);
        let slot = usize::from(h.slot[i / SUB as usize]) - 1;
        let before = h.groups[slot][i % SUB as usize];
        h.groups[slot][i % SUB as usize] = n;
        h.n = h.n - u64::from(before) + u64::from(n);
    }

    #[test]
    fn a_full_count_carries_without_loss() {
        let mut h = Histogram::new();
        h.record(1000);
        h.record(5000);
        let i = Histogram::index(1000);
        // As if 2^16 - 1 samples of 1000 had been recorded, then two more.
        set_count(&mut h, 1000, u16::MAX);
        h.record(1000);
        h.record(1000);
        assert_eq!(h.count_at(i), (1u64 << 16) + 1);
        assert_eq!(h.count(), (1u64 << 16) + 2);
        // 2^16 + 1 samples of 1000 and one of 5000: the top one is 5000.
        assert_eq!(h.quantile(1.0), Some(5000.0));
        assert_eq!(h.quantile(0.9999), Some(1001.5)); // the bucket [1000, 1004)
        h.clear();
        assert_eq!(h.count_at(i), 0);
    }

    /// Many samples in several buckets, each past 2^16 several times: the
    /// quantiles are those of the plain counts.
    #[test]
    fn carries_of_several_buckets_give_exact_quantiles() {
        let mut h = Histogram::new();
        let mut dense = Vec::new();
        for (v, n) in [
            (1000u64, 200_000u64),
            (900, 70_000),
            (3000, 140_000),
            (50, 3),
        ] {
            for _ in 0..n {
                h.record(v);
            }
            dense.extend(std::iter::repeat_n(v, n as usize));
        }
        assert_eq!(h.carries.len(), 3, "{:?}", h.carries);
        for q in [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0] {
            assert_eq!(
                h.quantile(q).unwrap().to_bits(),
                dense_quantile(&dense, q).to_bits()
            );
        }
    }

    #[test]
    fn merged_carries_add_up() {
        let (mut a, mut b) = (Histogram::new(), Histogram::new());
        for h in [&mut a, &mut b] {
            h.record(1000);
            set_count(h, 1000, u16::MAX);
            h.record(1000); // wraps: a carry of 2^16
            h.record(1000);
        }
        a.merge(&b);
        let i = Histogram::index(1000);
        assert_eq!(a.count_at(i), 2 * ((1u64 << 16) + 1));
        assert_eq!(a.count(), 2 * ((1u64 << 16) + 1));
    }

    proptest! {
        /// Merging two histograms gives what recording every sample in one
        /// gives: the same quantiles, mean, count and bounds, bit for bit.
        #[test]
        fn merge_is_recording_the_union(
            a in proptest::collection::vec(0u64..u64::MAX >> 1, 0..200),
            b in proptest::collection::vec(0u64..1u64 << 40, 0..200),
            q in 0.0f64..=1.0,
        ) {
            let (mut ha, mut hb, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
            a.iter().for_each(|&v| { ha.record(v); all.record(v); });
            b.iter().for_each(|&v| { hb.record(v); all.record(v); });
            ha.merge(&hb);
            prop_assert_eq!(ha.count(), all.count());
            prop_assert_eq!(ha.mean().map(f64::to_bits), all.mean().map(f64::to_bits));
            prop_assert_eq!(ha.quantile(q).map(f64::to_bits), all.quantile(q).map(f64::to_bits));
            prop_assert_eq!((ha.min, ha.max, ha.sum), (all.min, all.max, all.sum));
        }

        #[test]
        fn quantiles_match_the_dense_layout(vs in proptest::collection::vec(0u64..u64::MAX, 1..300), q in 0.0f64..=1.0) {
            let mut h = Histogram::new();
            for &v in &vs { h.record(v); }
            prop_assert_eq!(h.quantile(q).unwrap().to_bits(), dense_quantile(&vs, q).to_bits());
        }

        #[test]
        fn quantiles_within_relative_bucket_error(mut vs in proptest::collection::vec(1u64..10_000_000_000, 1..400), q in 0.0f64..1.0) {
            let mut h = Histogram::new();
            for &v in &vs { h.record(v); }
            vs.sort_unstable();
            let rank = ((q * vs.len() as f64).ceil() as usize).max(1);
            let exact = vs[rank - 1] as f64;
            let got = h.quantile(q).unwrap();
            prop_assert!((got - exact).abs() <= exact / SUB as f64 + 1.0, "q={q} exact={exact} got={got}");
        }
    }
}
