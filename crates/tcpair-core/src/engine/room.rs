//! Room for vectors that grow to many MiB at many flows: past [`SMALL`],
//! room for [`LARGE`] at once.
//!
//! That room is address space only, whose pages the system gives when first
//! written. glibc's `malloc` gives a block of its own pages only above a
//! threshold that it raises each time such a block is freed, up to 32 MiB
//! (the scenario's text, once parsed, is one such block); below it, a
//! vector grown by doubling leaves each smaller copy of itself behind in
//! the heap. Above 32 MiB a block always has its own pages, and grows in
//! place (`mremap`). Through the Python API, where the threshold is left to
//! the process (`engine/malloc.rs`), the arena's and the caches' slabs left
//! about 16 MiB of a 280 MiB peak behind at 10,000 Snoop flows x 8 s
//! (docs/performance.md, "The allocator left to the process it runs in");
//! small runs never reach [`SMALL`].

/// Bytes past which a vector takes room for [`LARGE`].
pub const SMALL: usize = 128 * 1024;
/// Above glibc's highest threshold for blocks of their own on 64-bit
/// systems (`DEFAULT_MMAP_THRESHOLD_MAX`, 32 MiB).
pub const LARGE: usize = 32 * 1024 * 1024 + 4096;

/// Make room in `v` for `len` values: past [`SMALL`] bytes, room for
/// [`LARGE`] bytes at once; below it, and past [`LARGE`], the vector's own
/// doubling.
#[cold]
pub fn make_room<T>(v: &mut Vec<T>, len: usize) {
    if v.capacity() >= len {
        return;
    }
    let each = size_of::<T>().max(1);
    if (SMALL..LARGE).contains(&(len * each)) {
        v.reserve_exact(LARGE.div_ceil(each).max(len) - v.len());
    } else {
        v.reserve(len - v.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small vectors double as ever; past 128 KiB a vector takes room for
    /// 32 MiB and more at once, then doubles again.
    #[test]
    fn room_at_once_past_small() {
        let mut v: Vec<[u64; 8]> = Vec::new();
        make_room(&mut v, 10);
        assert!(v.capacity() >= 10 && v.capacity() * 64 < SMALL);
        make_room(&mut v, SMALL / 64 + 1);
        assert!(v.capacity() * 64 >= LARGE);
        let room = v.capacity();
        make_room(&mut v, room + 1);
        assert!(v.capacity() >= 2 * room);
    }
}
