//! A log-linear histogram of durations (HDR-histogram style): memory is fixed
//! whatever the number of samples, and each quantile is exact to within one
//! bucket, i.e. a relative error below 1/SUB (under 0.8%).

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS; // 128 linear buckets per power of two
const GROUPS: usize = 64 - SUB_BITS as usize + 1;

#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    pub fn new() -> Self {
        Self {
            counts: vec![0; GROUPS * SUB as usize],
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
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

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[Self::index(v)] += 1;
        self.n += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.n
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
        let mut acc = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= rank {
                let (lo, w) = Self::bucket(i);
                let mid = lo as f64 + (w as f64 - 1.0) / 2.0;
                return Some(mid.clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
    }

    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
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

    proptest! {
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
