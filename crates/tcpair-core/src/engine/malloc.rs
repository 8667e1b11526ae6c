//! The C allocator's threshold for blocks of their own, fixed.
//!
//! glibc's `malloc` gives a block of 128 KiB or more pages of its own,
//! returned to the system when the block is freed. Each time such a block
//! is freed, though, it raises that threshold to the block's size (up to
//! 32 MiB): blocks below it then come from the heap, whose freed memory
//! stays with the process. A run frees large blocks early (the scenario's
//! JSON text, 5 MiB at 10,000 flows) and then makes and frees many blocks
//! of a few hundred KiB (the slices of a deferred total's log, every
//! window, `bs/meter_log.rs`): with the threshold raised they piled up in
//! the heap. At 10,000 Snoop flows x 8 s through the Python API the peak
//! was 268 MiB with the threshold left to move and 227 MiB with it fixed
//! at 128 KiB (docs/performance.md, "What every flow holds"). Fixing it is
//! what `MALLOC_MMAP_THRESHOLD_=131072` does from the environment; it
//! changes which memory a block takes, never what a run computes.

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
/// allocators are left as they are). Called when a scenario's text is
/// parsed and when a run is built, before either frees a large block.
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
