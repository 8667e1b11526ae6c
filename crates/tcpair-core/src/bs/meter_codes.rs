//! The table of changes of a deferred total's log (`bs::meter_log`): an
//! 8-bit code for each (packets, bytes) an agent's total changes by, so
//! that a change takes 32 bits in the log with its time.

/// Bits of a log entry below its time within its slice: the change's code.
pub(super) const CODE_BITS: u32 = 8;

/// The log's table of changes: a code for each (packets, bytes) logged, in
/// the order they first come (codes stay valid from window to window), 256
/// at most. When a window logged more than a few changes without a code
/// (the table full: flows of many packet sizes, say), the codes are given
/// anew at its end, the log being empty then, to the changes that window
/// made most often ([`Codes::refit`]).
#[derive(Debug, Clone)]
pub(super) struct Codes {
    /// The change of each code (the first `used` are in use): all 256, so
    /// that reading an entry's needs no bounds check.
    changes: Box<[(i64, i64); 1 << CODE_BITS]>,
    pub(super) used: usize,
    /// Open addressing from a change to its code: 0 for an empty slot, else
    /// `1 << 40 | key << 8 | code` ([`Codes::key`]).
    index: Box<[u64; Codes::SLOTS]>,
    /// In a window with changes logged without a code: the entries of each
    /// code applied, ...
    hits: Box<[u32; 1 << CODE_BITS]>,
    /// ... and the changes logged most often without one: (count, key) by
    /// a slot of the key's hash, a slot taken by a change logged more often
    /// since it was last emptied ([`Codes::note_miss`]).
    missed: Box<[(u32, u32); Codes::SLOTS]>,
    missed_changes: u64,
}

impl Default for Codes {
    fn default() -> Self {
        Codes {
            changes: Box::new([(0, 0); 1 << CODE_BITS]),
            used: 0,
            index: Box::new([0; Self::SLOTS]),
            hits: Box::new([0; 1 << CODE_BITS]),
            missed: Box::new([(0, 0); Self::SLOTS]),
            missed_changes: 0,
        }
    }
}

impl Codes {
    /// Slots of the index: twice the codes, so that probes stay short.
    const SLOTS: usize = 2 << CODE_BITS;

    /// Whether this window logged changes without a code: then its codes'
    /// uses are counted ([`Self::count_use`]) for [`Self::refit`].
    #[inline]
    pub(super) fn counting(&self) -> bool {
        self.missed_changes > 0
    }

    /// An entry with code `c` applied, in a window that counts.
    #[inline]
    pub(super) fn count_use(&mut self, c: u32) {
        self.hits[usize::from(c as u8)] += 1;
    }

    /// A change logged without a code: counted, if it could have had one.
    /// Its slot counts it if the slot is its or empty; else the slot's
    /// count falls by one, and at 0 the slot is free for the next: a change
    /// made more often than the others of its slot ends up holding it.
    pub(super) fn note_miss(&mut self, dpkts: i64, dbytes: i64) {
        let Some(key) = Self::key(dpkts, dbytes) else {
            return;
        };
        self.missed_changes += 1;
        let slot = &mut self.missed[Self::slot(key)];
        if slot.0 == 0 {
            *slot = (1, key);
        } else if slot.1 == key {
            slot.0 += 1;
        } else {
            slot.0 -= 1;
        }
    }

    /// At a window's end (the log empty), after changes without a code: if
    /// they were more than one in 32, give the codes to the changes the
    /// window logged most often (ties by key, so that the codes do not
    /// depend on which slot a count sat in). The counts start again.
    pub(super) fn refit(&mut self) {
        let coded: u64 = self.hits.iter().map(|&h| u64::from(h)).sum();
        if self.missed_changes * 32 > coded + self.missed_changes {
            let mut counted: Vec<(u32, u32)> = (0..self.used)
                .map(|c| {
                    let (p, b) = self.changes[c];
                    (
                        self.hits[c],
                        Self::key(p, b).expect("a coded change has a key"),
                    )
                })
                .chain(self.missed.iter().copied().filter(|&(n, _)| n > 0))
                .collect();
            counted.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            self.index.fill(0);
            self.used = 0;
            for &(_, key) in counted.iter().take(1 << CODE_BITS) {
                let (p, b) = Self::unkey(key);
                self.add(p, b);
            }
        }
        self.hits.fill(0);
        self.missed.fill((0, 0));
        self.missed_changes = 0;
    }

    /// The change of a key ([`Self::key`]).
    pub(super) fn unkey(key: u32) -> (i64, i64) {
        (
            i64::from((key >> 24) as u8 as i8),
            i64::from(((key << 8) as i32) >> 8),
        )
    }

    /// A change as 32 bits (packets in 8, bytes in 24, two's complement),
    /// if it fits.
    #[inline]
    pub(super) fn key(dpkts: i64, dbytes: i64) -> Option<u32> {
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
    pub(super) fn find(&self, dpkts: i64, dbytes: i64) -> Option<u8> {
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
    pub(super) fn find_or_add(&mut self, dpkts: i64, dbytes: i64) -> Option<u8> {
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

    /// The change an entry logs.
    #[inline]
    pub(super) fn change(&self, c: u32) -> (i64, i64) {
        self.changes[usize::from(c as u8)]
    }
}
