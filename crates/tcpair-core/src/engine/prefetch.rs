//! Hints to the processor that memory will be read soon.
//!
//! With thousands of flows the state an event reads is spread over far more
//! memory than the caches hold, and each event would wait for several loads
//! from memory in turn. The event loop asks for what the next events will
//! read while the current one runs. A prefetch never faults and changes no
//! value, so no result can depend on these hints.

/// Ask for the cache line holding address `p` to be loaded into the caches.
/// Any address is allowed: nothing is read through it.
#[inline(always)]
fn prefetch_addr(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: the call is unsafe only because it needs the `sse` target
        // feature, which every x86_64 processor has (it is in the target's
        // baseline). PREFETCHT0 is a hint: it reads no memory the program can
        // observe and never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Ask for the cache line holding the start of `*r` to be loaded.
#[inline(always)]
pub fn prefetch<T: ?Sized>(r: &T) {
    prefetch_addr((r as *const T).cast::<u8>());
}

/// Ask for every cache line of `*r` to be loaded (a value read in several places).
#[inline(always)]
pub fn prefetch_all<T>(r: &T) {
    let base = (r as *const T).cast::<u8>();
    for off in (0..std::mem::size_of::<T>()).step_by(64) {
        prefetch_addr(base.wrapping_add(off));
    }
}
