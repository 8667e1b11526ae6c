//! The log of a deferred total (`bs::meter`): the changes of a BS agent's
//! total state made while independent parts of the network run one after
//! another through a window of time, applied in time order once every part
//! has run through it.
//!
//! A change is packed in 64 bits: its time since the window's start (32
//! bits), its change of packets (8 bits) and of bytes (24 bits), both
//! signed; a larger change is logged as several at the same instant (only an
//! instant's sum counts, `bs::meter`). Changes go into slices of the window
//! by time ([`SLICE_BITS`]): a part runs in time order, so it appends to one
//! slice at a time, and at the window's end each slice is sorted while it
//! fits in the cache (a radix sort on the time within the slice) and
//! applied, slice after slice. A window's log holds millions of changes at
//! 10,000 flows; one sort of them all would cost several times more.

use crate::engine::Time;

/// A slice spans 2^26 ns (67 ms): a window of one second has 15 of them.
const SLICE_BITS: u32 = 26;
/// The radix sort's digit: two passes cover a slice's 26 bits of time.
const DIGIT_BITS: u32 = 13;

#[derive(Debug, Clone, Default)]
pub(super) struct Log {
    /// The window's start; changes come at or after it, within 4.29 s.
    base: Time,
    /// Slice `k` holds the changes at `base + k * 2^SLICE_BITS` and after.
    slices: Vec<Vec<u64>>,
    scratch: Vec<u64>,
}

impl Log {
    /// A new window starts at `base` (the log is empty).
    pub(super) fn start(&mut self, base: Time) {
        self.base = base;
    }

    /// Log a change of (`dpkts`, `dbytes`) at `at`.
    pub(super) fn push(&mut self, at: Time, mut dpkts: i64, mut dbytes: i64) {
        let off = at
            .checked_sub(self.base)
            .and_then(|o| u32::try_from(o).ok())
            .expect("a change within the window (4.29 s from its start)");
        let k = (off >> SLICE_BITS) as usize;
        if self.slices.len() <= k {
            self.slices.resize_with(k + 1, Vec::new);
        }
        loop {
            let p = dpkts.clamp(-128, 127);
            let b = dbytes.clamp(-(1 << 23), (1 << 23) - 1);
            let packed = (u64::from(off) << 32) | ((p as u8 as u64) << 24) | (b as u64 & 0xff_ffff);
            self.slices[k].push(packed);
            dpkts -= p;
            dbytes -= b;
            if dpkts == 0 && dbytes == 0 {
                return;
            }
        }
    }

    /// Hand every logged change to `apply` as (time, packets, bytes), in
    /// time order (changes at the same instant in the order logged), empty
    /// the log and start the next window at `next`.
    pub(super) fn drain_in_time_order(
        &mut self,
        next: Time,
        mut apply: impl FnMut(Time, i64, i64),
    ) {
        let base = self.base;
        for slice in &mut self.slices {
            sort_by_time(slice, &mut self.scratch);
            for &c in slice.iter() {
                let p = i64::from((c >> 24) as u8 as i8);
                let b = i64::from(((c as u32) << 8) as i32 >> 8);
                apply(base + (c >> 32), p, b);
            }
            slice.clear();
        }
        self.base = next;
    }
}

/// Stable sort of one slice's packed changes by their time (the bits of the
/// time below the slice's): a least-significant-digit radix sort.
fn sort_by_time(changes: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    if changes.len() < 2 {
        return;
    }
    scratch.clear();
    scratch.resize(changes.len(), 0);
    let mut count = vec![0usize; 1 << DIGIT_BITS];
    let mut shift = 32;
    while shift < 32 + SLICE_BITS {
        let digit = |c: u64| (c >> shift) as usize & ((1 << DIGIT_BITS) - 1);
        count.fill(0);
        for &c in changes.iter() {
            count[digit(c)] += 1;
        }
        let mut sum = 0;
        for n in count.iter_mut() {
            let k = *n;
            *n = sum;
            sum += k;
        }
        for &c in changes.iter() {
            let d = digit(c);
            scratch[count[d]] = c;
            count[d] += 1;
        }
        std::mem::swap(changes, scratch);
        shift += DIGIT_BITS;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Changes logged in any order come out in time order, those of
        /// one instant in the order logged, large ones as their sum.
        #[test]
        fn changes_come_out_in_time_order(
            changes in proptest::collection::vec((0u64..3_000_000_000, -300i64..300), 0..300),
        ) {
            let mut log = Log::default();
            log.start(1_000);
            let mut want: Vec<(Time, usize, i64)> = Vec::new();
            for (i, &(t, d)) in changes.iter().enumerate() {
                // Coarse times, so that instants repeat.
                let at = 1_000 + t / 50_000_000 * 50_000_000;
                log.push(at, d, d * 40_000);
                want.push((at, i, d));
            }
            want.sort_by_key(|&(t, i, _)| (t, i));
            let mut got: Vec<(Time, i64, i64)> = Vec::new();
            log.drain_in_time_order(5_000, |t, p, b| match got.last_mut() {
                Some(l) if l.0 == t => { l.1 += p; l.2 += b; }
                _ => got.push((t, p, b)),
            });
            let mut sums: Vec<(Time, i64, i64)> = Vec::new();
            for (t, _, d) in want {
                match sums.last_mut() {
                    Some(l) if l.0 == t => { l.1 += d; l.2 += d * 40_000; }
                    _ => sums.push((t, d, d * 40_000)),
                }
            }
            proptest::prop_assert_eq!(got, sums);
        }
    }
}
