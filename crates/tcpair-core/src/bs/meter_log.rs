//! The log of a deferred total (`bs::meter`): the changes of a BS agent's
//! total state made while independent parts of the network run one after
//! another through a window of time, applied in time order once every part
//! has run through it.
//!
//! Changes go into slices of the window by time ([`SLICE_BITS`]): a part
//! runs in time order, so it appends to one slice at a time, and at the
//! window's end each slice is sorted while it fits in the cache
//! ([`Sorter::sort_by_time`]) and applied, slice after slice. A window's log
//! holds millions of changes at 10,000 flows; one sort of them all would
//! cost several times more.
//!
//! A change is logged in 32 bits: its time within its slice (24 bits) and a
//! code (8 bits) for its (packets, bytes) in the log's table of changes
//! ([`Codes`]). An agent makes few distinct changes (a packet of the flows'
//! size cached, one or a few cleaned), so the table rarely fills; a change
//! it has no code for is logged as several at the same instant whose codes
//! it always has, powers of two (only an instant's sum counts, `bs::meter`).
//! Against 64-bit entries (time, packets and bytes in one word) the log
//! takes half the memory, and its sort moves half the bytes: at 10,000
//! Snoop flows in windows of 4 s, 9 KiB a flow less and about a tenth less
//! time (docs/performance.md).

use crate::engine::Time;

/// A slice spans 2^24 ns (16.8 ms): a window of 4 s has 239 of them. At
/// 10,000 Snoop flows a slice holds about 67,000 changes: it and the sort's
/// scratch stay in a second-level cache of a few MiB while they are sorted.
/// With slices of 67 ms (2^26 ns) and entries of 8 bytes they did not: a
/// cache simulation of that size (docs/performance-history.md) counted
/// 12.5 M misses in the sort against 4.5 M, for the same instructions.
/// Slices of 1 ms sort faster still, but a part then appends to a new slice
/// every change or two: a bench of the log alone at 10,000 parts took 7.0
/// against 14.2 ns per change to sort with 67 ms, 8.1 against 3.4 ns to
/// append.
const SLICE_BITS: u32 = 24;
/// Bits of an entry below its time within the slice: the change's code.
const CODE_BITS: u32 = 8;
const _: () = assert!(SLICE_BITS + CODE_BITS == 32, "an entry is 32 bits");
/// The radix sort's digit: two passes cover a slice's bits of time.
const DIGIT_BITS: u32 = SLICE_BITS / 2;
/// Up to this many runs in time order, a slice is sorted by merging them.
const MERGED_RUNS: usize = 16;
/// Slices of more runs, up to this many changes, are sorted by the standard
/// library's stable sort (no heap buffer at this length) rather than by radix.
const SHORT_SLICE: usize = 512;

/// An entry's time within its slice.
#[inline]
fn time_of(c: u32) -> u32 {
    c >> CODE_BITS
}

#[derive(Debug, Clone, Default)]
pub(super) struct Log {
    /// The window's start; changes come at or after it, within 4.29 s.
    base: Time,
    /// Slice `k` holds the changes at `base + k * 2^SLICE_BITS` and after.
    slices: Vec<Vec<u32>>,
    codes: Codes,
    sorter: Sorter,
}

impl Log {
    /// A new window starts at `base` (the log is empty).
    pub(super) fn start(&mut self, base: Time) {
        self.base = base;
    }

    /// Log a change of (`dpkts`, `dbytes`) at `at`.
    #[inline]
    pub(super) fn push(&mut self, at: Time, dpkts: i64, dbytes: i64) {
        // The common case: a change with a code, in a slice begun (which
        // puts `at` within 2^32 ns of the window's start: at most 256 slices).
        let off = at.wrapping_sub(self.base);
        if let Some(code) = self.codes.find(dpkts, dbytes) {
            if let Some(slice) = self.slices.get_mut((off >> SLICE_BITS) as usize) {
                slice.push(entry(off, code));
                return;
            }
        }
        self.push_in_pieces(at, dpkts, dbytes);
    }

    /// [`Self::push`] of any change: one entry, or one per power of two of
    /// its packets and bytes when it has no code.
    #[cold]
    fn push_in_pieces(&mut self, at: Time, dpkts: i64, dbytes: i64) {
        let off = at
            .checked_sub(self.base)
            .filter(|o| o >> 32 == 0)
            .expect("a change within the window (4.29 s from its start)");
        let k = (off >> SLICE_BITS) as usize;
        if self.slices.len() <= k {
            self.slices.resize_with(k + 1, Vec::new);
        }
        let slice = &mut self.slices[k];
        if let Some(code) = self.codes.find_or_add(dpkts, dbytes) {
            slice.push(entry(off, code));
            return;
        }
        Codes::pieces(dpkts, dbytes, |code| slice.push(entry(off, code)));
    }

    /// Hand every logged change to `apply` as (time, packets, bytes), in
    /// time order (changes at the same instant in the order logged), empty
    /// the log and start the next window at `next`.
    pub(super) fn drain_in_time_order(
        &mut self,
        next: Time,
        mut apply: impl FnMut(Time, i64, i64),
    ) {
        let mut base = self.base;
        for slice in &mut self.slices {
            self.sorter.sort_by_time(slice);
            for &c in slice.iter() {
                let (p, b) = self.codes.change(c);
                apply(base + Time::from(time_of(c)), p, b);
            }
            slice.clear();
            base += 1 << SLICE_BITS;
        }
        self.base = next;
    }
}

/// One entry of the log: the time within its slice of `off` (ns from the
/// window's start) in the high 24 bits, `code` in the low 8.
#[inline]
fn entry(off: u64, code: u8) -> u32 {
    ((off as u32 & ((1 << SLICE_BITS) - 1)) << CODE_BITS) | u32::from(code)
}

/// The log's table of changes: a code for each (packets, bytes) logged, for
/// the whole run (codes stay valid from window to window). The first
/// [`Codes::RESERVED`] codes are the powers of two, packets or bytes, either
/// sign: any change is a sum of them ([`Codes::pieces`]).
#[derive(Debug, Clone)]
struct Codes {
    /// The change of each code (the first `used` are in use): all 256, so
    /// that reading an entry's needs no bounds check.
    changes: Box<[(i64, i64); 1 << CODE_BITS]>,
    used: usize,
    /// Open addressing from a change to its code: 0 for an empty slot, else
    /// `1 << 40 | key << 8 | code` ([`Codes::key`]).
    index: Box<[u64; Codes::SLOTS]>,
}

impl Default for Codes {
    fn default() -> Self {
        let mut codes = Codes {
            changes: Box::new([(0, 0); 1 << CODE_BITS]),
            used: 0,
            index: Box::new([0; Self::SLOTS]),
        };
        for sign in [1, -1] {
            for i in 0..Self::PKT_POWERS {
                codes.add(sign << i, 0);
            }
            for i in 0..Self::BYTE_POWERS {
                codes.add(0, sign << i);
            }
        }
        debug_assert_eq!(codes.used, Self::RESERVED);
        codes
    }
}

impl Codes {
    /// Powers of two of packets (1 to 64) and of bytes (1 to 2^22) with a
    /// code of their own, each sign.
    const PKT_POWERS: u32 = 7;
    const BYTE_POWERS: u32 = 23;
    const RESERVED: usize = 2 * (Self::PKT_POWERS + Self::BYTE_POWERS) as usize;
    /// Slots of the index: twice the codes, so that probes stay short.
    const SLOTS: usize = 2 << CODE_BITS;

    /// A change as 32 bits (packets in 8, bytes in 24, two's complement),
    /// if it fits.
    #[inline]
    fn key(dpkts: i64, dbytes: i64) -> Option<u32> {
        let p = i8::try_from(dpkts).ok()?;
        if !(-(1 << 23)..1 << 23).contains(&dbytes) {
            return None;
        }
        Some((u32::from(p as u8) << 24) | (dbytes as u32 & 0xff_ffff))
    }

    #[inline]
    fn slot(key: u32) -> usize {
        (key.wrapping_mul(0x9e37_79b1) >> (32 - (CODE_BITS + 1))) as usize
    }

    /// The code of a change, if it has one.
    #[inline]
    fn find(&self, dpkts: i64, dbytes: i64) -> Option<u8> {
        let key = u64::from(Self::key(dpkts, dbytes)?);
        let mut i = Self::slot(key as u32);
        loop {
            let e = self.index[i];
            if e == 0 {
                return None;
            }
            if (e >> CODE_BITS) & 0xffff_ffff == key {
                return Some(e as u8);
            }
            i = (i + 1) % Self::SLOTS;
        }
    }

    /// The code of a change, given one if it has none and codes are left.
    fn find_or_add(&mut self, dpkts: i64, dbytes: i64) -> Option<u8> {
        match self.find(dpkts, dbytes) {
            Some(code) => Some(code),
            None => self.add(dpkts, dbytes),
        }
    }

    /// Give a change that has no code the next one, if it fits a key and
    /// codes are left.
    fn add(&mut self, dpkts: i64, dbytes: i64) -> Option<u8> {
        let key = Self::key(dpkts, dbytes)?;
        let code = u8::try_from(self.used).ok()?;
        self.changes[self.used] = (dpkts, dbytes);
        self.used += 1;
        let mut i = Self::slot(key);
        while self.index[i] != 0 {
            i = (i + 1) % Self::SLOTS;
        }
        self.index[i] = (1 << 40) | (u64::from(key) << CODE_BITS) | u64::from(code);
        Some(code)
    }

    /// The codes of powers of two that sum to (`dpkts`, `dbytes`), each
    /// handed to `put`: the largest power each time, so a change of `n`
    /// packets or bytes takes about log2(n) pieces, more only past 2^7
    /// packets or 2^23 bytes.
    fn pieces(dpkts: i64, dbytes: i64, mut put: impl FnMut(u8)) {
        let mut take = |mut left: i64, powers: u32, first: usize| {
            while left != 0 {
                let i = (63 - left.unsigned_abs().leading_zeros()).min(powers - 1);
                let neg = if left < 0 { Self::RESERVED / 2 } else { 0 };
                put((neg + first + i as usize) as u8);
                left -= left.signum() << i;
            }
        };
        take(dpkts, Self::PKT_POWERS, 0);
        take(dbytes, Self::BYTE_POWERS, Self::PKT_POWERS as usize);
    }

    /// The change an entry logs.
    #[inline]
    fn change(&self, c: u32) -> (i64, i64) {
        self.changes[usize::from(c as u8)]
    }
}

/// Buffers of the sort, kept between calls: zeroing buffers sized for the
/// largest slice at every call cost more than the sort itself at ten flows.
#[derive(Debug, Clone, Default)]
struct Sorter {
    scratch: Vec<u32>,
    count: Vec<u32>,
    /// Where each run of changes in time order starts (then the slice's end,
    /// to merge them).
    runs: Vec<usize>,
}

impl Sorter {
    /// Stable sort of one slice's changes by their time. A slice is the
    /// concatenation of the parts' changes, each part's in time order: a
    /// few such runs are merged pairwise (a pass per doubling); many go
    /// through the standard library's stable sort when the slice is short,
    /// else through a least-significant-digit radix sort of two passes on
    /// the time within the slice.
    fn sort_by_time(&mut self, changes: &mut [u32]) {
        // The runs' starts, until there are too many to merge.
        self.runs.clear();
        self.runs.push(0);
        for i in 1..changes.len() {
            if time_of(changes[i]) < time_of(changes[i - 1]) {
                self.runs.push(i);
                if self.runs.len() > MERGED_RUNS {
                    break;
                }
            }
        }
        if self.runs.len() == 1 {
            return; // one run: already in time order
        }
        if self.scratch.len() < changes.len() {
            self.scratch.resize(changes.len(), 0);
        }
        let scratch = &mut self.scratch[..changes.len()];
        if self.runs.len() <= MERGED_RUNS {
            self.runs.push(changes.len());
            merge_runs(changes, scratch, &mut self.runs);
        } else if changes.len() <= SHORT_SLICE {
            changes.sort_by_key(|&c| time_of(c));
        } else {
            self.count.resize(1 << DIGIT_BITS, 0);
            // Low digit into `scratch`, high digit back into `changes`.
            radix_pass(changes, scratch, CODE_BITS, &mut self.count);
            radix_pass(scratch, changes, CODE_BITS + DIGIT_BITS, &mut self.count);
        }
    }
}

/// Merge the runs of `changes` (bounded by `runs`) pairwise, pass after
/// pass between `changes` and `scratch`, until one is left, in `changes`.
/// Ties go to the earlier run: the order logged.
fn merge_runs(changes: &mut [u32], scratch: &mut [u32], runs: &mut Vec<usize>) {
    let mut in_changes = true;
    while runs.len() > 2 {
        let (from, to): (&[u32], &mut [u32]) = if in_changes {
            (changes, scratch)
        } else {
            (scratch, changes)
        };
        let mut kept = 0;
        for k in (0..runs.len() - 1).step_by(2) {
            let (lo, mid) = (runs[k], runs[k + 1]);
            let hi = runs.get(k + 2).copied().unwrap_or(mid);
            merge(&from[lo..mid], &from[mid..hi], &mut to[lo..hi]);
            runs[kept] = lo;
            kept += 1;
        }
        runs[kept] = *runs.last().expect("a run's end");
        runs.truncate(kept + 1);
        in_changes = !in_changes;
    }
    if !in_changes {
        changes.copy_from_slice(scratch);
    }
}

/// Merge two runs in time order into `to`, ties from `a` first.
fn merge(a: &[u32], b: &[u32], to: &mut [u32]) {
    let (mut i, mut j) = (0, 0);
    for slot in to.iter_mut() {
        let take_a = j == b.len() || (i < a.len() && time_of(a[i]) <= time_of(b[j]));
        if take_a {
            *slot = a[i];
            i += 1;
        } else {
            *slot = b[j];
            j += 1;
        }
    }
}

/// One counting-sort pass of `from` into `to` on the digit at `shift`,
/// stable (equal digits keep their order).
fn radix_pass(from: &[u32], to: &mut [u32], shift: u32, count: &mut [u32]) {
    let digit = |c: u32| (c >> shift) as usize & ((1 << DIGIT_BITS) - 1);
    count.fill(0);
    for &c in from {
        count[digit(c)] += 1;
    }
    let mut sum = 0;
    for n in count.iter_mut() {
        let k = *n;
        *n = sum;
        sum += k;
    }
    for &c in from {
        let d = digit(c);
        to[count[d] as usize] = c;
        count[d] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SEC;

    /// A slice written as parts write it (each part's changes in time
    /// order, the parts one after another) comes out in time order, an
    /// instant's changes in the order logged, whichever way it is sorted:
    /// already in order (one part), merged (a few), by the standard
    /// library (many, short) or by radix (many, long).
    #[test]
    fn a_slice_of_parts_comes_out_in_time_order() {
        for (parts, each) in [
            (1, 50),
            (2, 50),
            (3, 7),
            (5, 50),
            (16, 30),
            (17, 20),
            (40, 50),
        ] {
            let mut log = Log::default();
            log.start(0);
            let mut want: Vec<(Time, i64)> = Vec::new();
            let mut x: u64 = 7;
            for part in 0..parts {
                let mut t = 0;
                for _ in 0..each {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    t += (x >> 40) % 20_000; // within 1 ms: one slice
                    let at = t / 300 * 300; // coarse: instants repeat
                    let d = part % 7 - 3;
                    log.push(at, d, 0);
                    want.push((at, d));
                }
            }
            let mut order: Vec<usize> = (0..want.len()).collect();
            order.sort_by_key(|&i| want[i].0); // stable: ties keep the order logged
            let want: Vec<(Time, i64)> = order.iter().map(|&i| want[i]).collect();
            assert_eq!(log.slices.len(), 1, "one slice");
            let mut got = Vec::new();
            log.drain_in_time_order(SEC, |t, p, _| got.push((t, p)));
            assert_eq!(got, want, "{parts} parts of {each} changes");
        }
    }

    /// Once the table's codes are all given, a change without one is
    /// logged as powers of two at its instant: it comes out as its sum.
    #[test]
    fn changes_past_the_full_table_come_out_as_their_sums() {
        let mut log = Log::default();
        log.start(0);
        let mut want = Vec::new();
        for i in 0..400i64 {
            // 400 distinct changes: more than the 196 codes left to give.
            let (p, b) = (i % 5 - 2, 1_000 + 37 * i);
            log.push(i as Time * 1_000, p, b);
            want.push((i as Time * 1_000, p, b));
        }
        assert_eq!(log.codes.used, 1 << CODE_BITS, "the table is full");
        let mut got: Vec<(Time, i64, i64)> = Vec::new();
        log.drain_in_time_order(SEC, |t, p, b| match got.last_mut() {
            Some(l) if l.0 == t => {
                l.1 += p;
                l.2 += b;
            }
            _ => got.push((t, p, b)),
        });
        assert_eq!(got, want);
    }

    proptest::proptest! {
        /// Any change is the sum of its pieces, about log2 of its size of them.
        #[test]
        fn pieces_sum_to_the_change(p in -100_000i64..100_000, b in -(1i64 << 40)..1 << 40) {
            let codes = Codes::default();
            let (mut sp, mut sb, mut n) = (0, 0, 0u64);
            Codes::pieces(p, b, |code| {
                let (dp, db) = codes.changes[usize::from(code)];
                sp += dp;
                sb += db;
                n += 1;
            });
            proptest::prop_assert_eq!((sp, sb), (p, b));
            let most = p.unsigned_abs() / 64 + 7 + b.unsigned_abs() / (1 << 22) + 23;
            proptest::prop_assert!(n <= most, "{} pieces", n);
        }

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
