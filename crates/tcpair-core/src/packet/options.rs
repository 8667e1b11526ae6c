//! Typed TCP options carried by a [`super::Packet`]: SACK blocks (RFC 2018),
//! Syndrome's attached numbers (Chen et al. 2002) and CLRP's loss blocks (Sun et al. 2005).
//! Fixed-size arrays, so a packet stays `Copy` and allocation-free.

/// At most this many SACK blocks are carried (RFC 2018 with timestamps: 3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// SACK blocks, each `[start, end)` in segment numbers; block 0 is the most
/// recently changed one (RFC 2018 §4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub len: u8,
    pub blocks: [(u32, u32); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    #[inline]
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..self.len as usize]
    }
    pub fn push(&mut self, b: (u32, u32)) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = b;
            self.len += 1;
        }
    }
}

/// At most this many Syndrome counters ride on one packet: one per
/// Syndrome BS on the path (MH -> MH crosses two; Chen et al. 2002 §3).
pub const MAX_SYN_TAGS: usize = 2;

/// Syndrome's attached number (AN) as set by one BS (Chen et al. 2002 §3): which BS
/// (node id + 1; 0 = empty slot), whether the wireless hop lies downstream of
/// it (FH -> MH, Table 2) or upstream (MH -> FH, Table 3), and the counter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynTag {
    pub bs: u32,
    pub downstream_wireless: bool,
    pub an: u32,
}

/// The Syndrome option: up to [`MAX_SYN_TAGS`] tags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynTags(pub [SynTag; MAX_SYN_TAGS]);

impl SynTags {
    /// Set (or overwrite) the tag of BS `bs`; returns false if no slot is free.
    pub fn set(&mut self, tag: SynTag) -> bool {
        for t in self.0.iter_mut() {
            if t.bs == tag.bs || t.bs == 0 {
                *t = tag;
                return true;
            }
        }
        false
    }
    pub fn iter(&self) -> impl Iterator<Item = &SynTag> {
        self.0.iter().filter(|t| t.bs != 0)
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|t| t.bs == 0)
    }
}

/// Capacity of the CLRP loss-block option. Sun et al. 2005 §II.A lets the BS
/// choose the maximum (its simulations use 6); 8 blocks of one 32-bit
/// sequence number each, plus kind and length, still fit the 40 bytes of
/// TCP option space (34 bytes).
pub const MAX_LOSS_BLOCKS: usize = 8;

/// CLRP's loss blocks (Sun et al. 2005 §II): the sequence numbers of recent
/// wireless losses, newest first, piggy-backed on ACKs between the BS and
/// the MH only (never seen by the fixed host).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LossBlocks {
    pub len: u8,
    pub seqs: [u32; MAX_LOSS_BLOCKS],
}

impl LossBlocks {
    #[inline]
    pub fn as_slice(&self) -> &[u32] {
        &self.seqs[..self.len as usize]
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Append `seq`; returns false (and drops it) when full.
    pub fn push(&mut self, seq: u32) -> bool {
        if (self.len as usize) < MAX_LOSS_BLOCKS {
            self.seqs[self.len as usize] = seq;
            self.len += 1;
            true
        } else {
            false
        }
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
}
