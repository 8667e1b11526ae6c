//! The C allocator's threshold for blocks of their own, fixed: for the
//! core's own program (`tcpair-sim`) alone, which owns its process.
//!
//! glibc's `malloc` gives a block of 128 KiB or more pages of its own,
//! returned to the system when the block is freed. Each time such a block
//! is freed, though, it raises that threshold to the block's size (up to
//! 32 MiB): blocks below it then come from the heap, whose freed memory
//! stays with the process. A run frees large blocks early (the scenario's
//! JSON text, 5 MiB at 10,000 flows) and then grows large buffers step by
//! step (the arena, the caches' store, the slices of a deferred total's
//! log, `bs/meter_log.rs`): with the threshold raised, each step left the
//! one before it behind in the heap. Fixing it is what
//! `MALLOC_MMAP_THRESHOLD_=131072` does from the environment; it changes
//! which memory a block takes, never what a run computes.
//!
//! The Python extension never calls it: the parameter is the whole
//! process's, and with it fixed every large array `numpy` makes and frees
//! takes fresh pages from the system (a loop of sums on 8 MB arrays ran 2.5
//! to 3.1 times slower after one `tcpair.run` than before it, when the
//! extension called it). What it saves, and what a Python process does
//! instead, is in docs/performance.md ("The allocator left to the process
//! it runs in").

/// glibc's `M_MMAP_THRESHOLD` parameter (`<malloc.h>`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_MMAP_THRESHOLD: i32 = -3;

/// glibc's own initial threshold.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const THRESHOLD: i32 = 128 * 1024;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    fn mallopt(param: i32, value: i32) -> i32;
}

/// Fix the threshold at glibc's initial 128 KiB (once per process; other
/// allocators are left as they are). For a program's `main`, before it
/// reads a scenario: never from a library in someone else's process.
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: `mallopt(int, int) -> int` is glibc's, declared as in
        // `<malloc.h>`; it only sets an allocator parameter under the
        // allocator's own lock, takes no pointer, and is documented as safe
        // to call at any time, from any thread (MT-Safe). An unknown value
        // is refused by its return value (0), which changes nothing.
        ONCE.call_once(|| unsafe {
            mallopt(M_MMAP_THRESHOLD, THRESHOLD);
        });
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    fn malloc_trim(pad: usize) -> i32;
}

/// Give the heap's free pages back to the system now (glibc's
/// `malloc_trim`; other allocators are left as they are). For a process
/// that goes on after a large run: the memory the run freed stays in the
/// heap, and a Python process then decodes the run's answer into objects
/// of its own allocator, beside it. Unlike [`fix_mmap_threshold`] it sets
/// nothing: what the process allocates afterwards is served as before
/// (docs/performance.md, "The allocator left to the process it runs in").
pub fn give_back_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim(size_t) -> int` is glibc's, declared as in
    // `<malloc.h>`; it takes no pointer, works under the allocator's own
    // locks and is MT-Safe; it only releases memory that no block holds.
    unsafe {
        malloc_trim(0);
    }
}
