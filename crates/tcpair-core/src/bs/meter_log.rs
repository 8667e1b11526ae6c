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
//! size cached, one or a few cleaned), so the table rarely fills. A change
//! it has no code for goes to its slice's side list in 64 bits (time,
//! packets and bytes; a larger change as several at the same instant), and
//! the two lists are merged by time when applied: changes at one instant
//! come those with a code first, which changes nothing (only an instant's
//! sum counts, `bs::meter`). Against 64-bit entries for all, the log takes
//! half the memory and its sort moves half the bytes: at 10,000 Snoop flows
//! in windows of 4 s, 9 KiB a flow less and about a tenth less time
//! (docs/performance.md). Flows of many packet sizes make more distinct
//! changes than there are codes: the codes then go to the most frequent
//! ([`Codes::refit`]) and the rest take 64 bits, as all did before.

use super::meter_codes::{Codes, CODE_BITS};
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
    /// Slice `k`'s changes without a code ([`wide_entry`]).
    wide: Vec<Vec<u64>>,
    codes: Codes,
    sorter: Sorter<u32>,
    wide_sorter: Sorter<u64>,
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

    /// [`Self::push`] of any change: one entry with a code, else one wide
    /// entry per piece that fits one.
    #[cold]
    fn push_in_pieces(&mut self, at: Time, mut dpkts: i64, mut dbytes: i64) {
        let off = at
            .checked_sub(self.base)
            .filter(|o| o >> 32 == 0)
            .expect("a change within the window (4.29 s from its start)");
        let k = (off >> SLICE_BITS) as usize;
        if self.slices.len() <= k {
            self.slices.resize_with(k + 1, Vec::new);
            self.wide.resize_with(k + 1, Vec::new);
        }
        if let Some(code) = self.codes.find_or_add(dpkts, dbytes) {
            self.slices[k].push(entry(off, code));
            return;
        }
        self.codes.note_miss(dpkts, dbytes);
        loop {
            let p = dpkts.clamp(-128, 127);
            let b = dbytes.clamp(-(1 << 23), (1 << 23) - 1);
            let key = Codes::key(p, b).expect("a piece in range");
            self.wide[k].push(wide_entry(off, key));
            dpkts -= p;
            dbytes -= b;
            if dpkts == 0 && dbytes == 0 {
                return;
            }
        }
    }

    /// Hand the logged changes to `apply` as (time, packets, bytes) in time
    /// order; empty the log and start the next window at `next`. The changes
    /// of one instant come those with a code first, not in the order logged:
    /// only their sum counts, and the holding it leaves is never below zero,
    /// whereas a part of them taken alone might be (`bs::meter`'s `Running`).
    pub(super) fn drain_in_time_order(
        &mut self,
        next: Time,
        mut apply: impl FnMut(Time, i64, i64),
    ) {
        let mut base = self.base;
        // Only a window that logged changes without a code counts its codes' uses.
        let counting = self.codes.counting();
        for (slice, wide) in self.slices.iter_mut().zip(&mut self.wide) {
            self.sorter.sort_by_time(slice);
            if !counting && wide.is_empty() {
                // The usual case: every change of the slice has a code.
                for &c in slice.iter() {
                    let (p, b) = self.codes.change(c);
                    apply(base + Time::from(time_of(c)), p, b);
                }
            } else {
                self.wide_sorter.sort_by_time(wide);
                apply_merged(&mut self.codes, counting, base, slice, wide, &mut apply);
                wide.clear();
            }
            slice.clear();
            base += 1 << SLICE_BITS;
        }
        if counting {
            self.codes.refit();
        }
        self.base = next;
    }
}

/// Apply a slice's changes with a code (`slice`) and without (`wide`), both
/// sorted, merged by time: at one instant those with a code first. With
/// `counting`, counts the codes' uses ([`Codes::refit`]).
fn apply_merged(
    codes: &mut Codes,
    counting: bool,
    base: Time,
    slice: &[u32],
    wide: &[u64],
    apply: &mut impl FnMut(Time, i64, i64),
) {
    let mut w = wide.iter().peekable();
    for &c in slice {
        while let Some(&x) = w.next_if(|&&x| x >> 32 < u64::from(time_of(c))) {
            let (t, p, b) = wide_change(x);
            apply(base + t, p, b);
        }
        if counting {
            codes.count_use(c);
        }
        let (p, b) = codes.change(c);
        apply(base + Time::from(time_of(c)), p, b);
    }
    for &x in w {
        let (t, p, b) = wide_change(x);
        apply(base + t, p, b);
    }
}

/// One entry of the log: the time within its slice of `off` (ns from the
/// window's start) in the high 24 bits, `code` in the low 8.
#[inline]
fn entry(off: u64, code: u8) -> u32 {
    ((off as u32 & ((1 << SLICE_BITS) - 1)) << CODE_BITS) | u32::from(code)
}

/// One entry of a side list: the time within its slice of `off` in the high
/// 32 bits, the change's key ([`Codes::key`]) in the low 32.
#[inline]
fn wide_entry(off: u64, key: u32) -> u64 {
    ((off & ((1 << SLICE_BITS) - 1)) << 32) | u64::from(key)
}

/// A side list's entry as (time within its slice, packets, bytes).
#[inline]
fn wide_change(x: u64) -> (Time, i64, i64) {
    let (p, b) = Codes::unkey(x as u32);
    (x >> 32, p, b)
}

/// Buffers of the sort, kept between calls: zeroing buffers sized for the
/// largest slice at every call cost more than the sort itself at ten flows.
#[derive(Debug, Clone, Default)]
struct Sorter<E> {
    scratch: Vec<E>,
    count: Vec<u32>,
    /// Where each run of changes in time order starts (then the slice's end,
    /// to merge them).
    runs: Vec<usize>,
}

/// An entry of the log: its time within its slice in the bits from
/// [`Entry::TIME_SHIFT`] up.
trait Entry: Copy + Default {
    const TIME_SHIFT: u32;
    fn bits(self) -> u64;
    #[inline]
    fn time(self) -> u64 {
        self.bits() >> Self::TIME_SHIFT
    }
}

/// An entry with a code ([`entry`]).
impl Entry for u32 {
    const TIME_SHIFT: u32 = CODE_BITS;
    #[inline]
    fn bits(self) -> u64 {
        u64::from(self)
    }
}

/// An entry of a side list ([`wide_entry`]).
impl Entry for u64 {
    const TIME_SHIFT: u32 = 32;
    #[inline]
    fn bits(self) -> u64 {
        self
    }
}

impl<E: Entry> Sorter<E> {
    /// Stable sort of one slice's changes by their time. A slice is the
    /// concatenation of the parts' changes, each part's in time order: a
    /// few such runs are merged pairwise (a pass per doubling); many go
    /// through the standard library's stable sort when the slice is short,
    /// else through a least-significant-digit radix sort of two passes on
    /// the time within the slice.
    fn sort_by_time(&mut self, changes: &mut [E]) {
        // The runs' starts, until there are too many to merge.
        self.runs.clear();
        self.runs.push(0);
        for i in 1..changes.len() {
            if changes[i].time() < changes[i - 1].time() {
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
            self.scratch.resize(changes.len(), E::default());
        }
        let scratch = &mut self.scratch[..changes.len()];
        if self.runs.len() <= MERGED_RUNS {
            self.runs.push(changes.len());
            merge_runs(changes, scratch, &mut self.runs);
        } else if changes.len() <= SHORT_SLICE {
            changes.sort_by_key(|&c| c.time());
        } else {
            self.count.resize(1 << DIGIT_BITS, 0);
            // Low digit into `scratch`, high digit back into `changes`.
            radix_pass(changes, scratch, E::TIME_SHIFT, &mut self.count);
            radix_pass(
                scratch,
                changes,
                E::TIME_SHIFT + DIGIT_BITS,
                &mut self.count,
            );
        }
    }
}

/// Merge the runs of `changes` (bounded by `runs`) pairwise, pass after
/// pass between `changes` and `scratch`, until one is left, in `changes`.
/// Ties go to the earlier run: the order logged.
fn merge_runs<E: Entry>(changes: &mut [E], scratch: &mut [E], runs: &mut Vec<usize>) {
    let mut in_changes = true;
    while runs.len() > 2 {
        let (from, to): (&[E], &mut [E]) = if in_changes {
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
fn merge<E: Entry>(a: &[E], b: &[E], to: &mut [E]) {
    let (mut i, mut j) = (0, 0);
    for slot in to.iter_mut() {
        let take_a = j == b.len() || (i < a.len() && a[i].time() <= b[j].time());
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
fn radix_pass<E: Entry>(from: &[E], to: &mut [E], shift: u32, count: &mut [u32]) {
    let digit = |c: E| (c.bits() >> shift) as usize & ((1 << DIGIT_BITS) - 1);
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
    /// order, the parts one after another) comes out in time order, each
    /// instant's changes summing to what was logged, whichever way it is sorted:
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
            let mut want: Vec<(Time, i64, i64)> = Vec::new();
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
                    want.push((at, d, 0));
                }
            }
            assert_eq!(log.slices.len(), 1, "one slice");
            assert_eq!(
                drained_sums(&mut log),
                sum_instants(want),
                "{parts} parts of {each} changes"
            );
        }
    }

    /// `changes` in time order, each instant's as their sum.
    fn sum_instants(mut changes: Vec<(Time, i64, i64)>) -> Vec<(Time, i64, i64)> {
        changes.sort_by_key(|c| c.0);
        let mut sums: Vec<(Time, i64, i64)> = Vec::new();
        for (t, p, b) in changes {
            match sums.last_mut() {
                Some(l) if l.0 == t => {
                    l.1 += p;
                    l.2 += b;
                }
                _ => sums.push((t, p, b)),
            }
        }
        sums
    }

    /// Drain `log`, checking that its changes come in time order, and sum
    /// each instant's (which come in no particular order).
    fn drained_sums(log: &mut Log) -> Vec<(Time, i64, i64)> {
        let mut got: Vec<(Time, i64, i64)> = Vec::new();
        log.drain_in_time_order(SEC, |t, p, b| got.push((t, p, b)));
        assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
        sum_instants(got)
    }

    /// Once the table's codes are all given, changes without one go to the
    /// side lists and come out in time order among the others; a window
    /// of such changes gives the codes anew to its most frequent ones.
    #[test]
    fn changes_past_the_full_table_come_out_in_time_order() {
        let mut log = Log::default();
        log.start(0);
        let mut want = Vec::new();
        for i in 0..600i64 {
            // 300 distinct changes, then a frequent one no code was left for.
            let (p, b) = if i < 300 {
                (i % 5 - 2, 1_000 + 37 * i)
            } else {
                (1, 40)
            };
            // Two slices, the times of the two kinds interleaved in each.
            let at = (i as Time % 300) * 100_000 + i as Time / 300 * 7;
            log.push(at, p, b);
            want.push((at, p, b));
        }
        assert_eq!(log.codes.used, 1 << CODE_BITS, "the table is full");
        assert!(log.codes.find(1, 40).is_none());
        want.sort_by_key(|w| w.0);
        assert_eq!(drained_sums(&mut log), want);
        // The window logged (1, 40) 300 times, more than any other: it has a
        // code now, and the codes given anew still read right.
        assert!(log.codes.find(1, 40).is_some());
        log.start(0);
        log.push(5, 1, 40);
        log.push(5, -2, 1_000 + 37 * 255);
        log.push(9, 3, 1);
        assert_eq!(
            drained_sums(&mut log),
            vec![(5, -1, 40 + 1_000 + 37 * 255), (9, 3, 1)]
        );
    }

    proptest::proptest! {
        /// Changes logged in any order come out in time order, those of
        /// one instant, large ones included, summing to what was logged.
        #[test]
        fn changes_come_out_in_time_order(
            changes in proptest::collection::vec((0u64..3_000_000_000, -300i64..300), 0..300),
        ) {
            let mut log = Log::default();
            log.start(1_000);
            let mut want: Vec<(Time, i64, i64)> = Vec::new();
            for &(t, d) in &changes {
                // Coarse times, so that instants repeat.
                let at = 1_000 + t / 50_000_000 * 50_000_000;
                log.push(at, d, d * 40_000);
                want.push((at, d, d * 40_000));
            }
            proptest::prop_assert_eq!(drained_sums(&mut log), sum_instants(want));
        }
    }
}
