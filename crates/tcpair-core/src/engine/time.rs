/// Simulated time in integer nanoseconds since the start of the run.
///
/// `u64` nanoseconds cover about 584 years, far beyond any simulation.
pub type Time = u64;

pub const NS: Time = 1;
pub const US: Time = 1_000;
pub const MS: Time = 1_000_000;
pub const SEC: Time = 1_000_000_000;

/// Seconds (as written in scenario files) to nanoseconds, rounded to the nearest ns.
///
/// Callers validate that `s` is finite and non-negative; this only saturates.
pub fn secs(s: f64) -> Time {
    if s <= 0.0 || !s.is_finite() {
        return 0;
    }
    let ns = (s * SEC as f64).round();
    if ns >= u64::MAX as f64 {
        u64::MAX
    } else {
        ns as Time
    }
}

/// Nanoseconds to seconds, for reporting only (never fed back into the queue).
pub fn to_secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn round_trip() {
        assert_eq!(secs(1.5), 1_500_000_000);
        assert_eq!(secs(64e-6), 64_000);
        assert_eq!(secs(-1.0), 0);
        assert!((to_secs(secs(0.123_456_789)) - 0.123_456_789).abs() < 1e-12);
    }
}
