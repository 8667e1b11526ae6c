//! Outage intervals (e.g. a handoff blackout, Chen et al. 2002 §6 / Fig. 14):
//! every packet *sent into* the link during `[start, stop)` is lost.
//!
//! Config: a list of `[start, stop]` pairs in seconds, e.g.
//! `outages = [[8, 9.2], [13, 14.2]]`. Each needs `0 <= start < stop`, both
//! finite. The list may be unsorted; overlapping or touching intervals are
//! allowed and merged into their union (an outage is a set of instants, so
//! overlap has an obvious meaning and rejecting it would only be a nuisance).

use super::check;
use crate::engine::{secs, Time};
use crate::error::{from_value, ConfigError};

#[derive(Debug, Clone, Default)]
pub struct Outages {
    /// Disjoint, sorted, non-touching half-open intervals `[start, stop)` in ns.
    intervals: Vec<(Time, Time)>,
}

impl Outages {
    /// Parse the list; errors name the element (e.g. `[1]`), relative to the list.
    pub fn from_value(v: &serde_json::Value) -> Result<Self, ConfigError> {
        let raw: Vec<(f64, f64)> = from_value(v)?;
        let mut iv = Vec::with_capacity(raw.len());
        for (i, &(a, b)) in raw.iter().enumerate() {
            let at = format!("[{i}]");
            check::nonneg_secs(&at, a)?;
            check::nonneg_secs(&at, b)?;
            if a >= b {
                return Err(ConfigError::new(
                    at,
                    format!("outage start must be before its stop, got [{a}, {b}]"),
                ));
            }
            iv.push((secs(a), secs(b)));
        }
        Ok(Self::from_intervals(iv))
    }

    /// From `[start, stop)` intervals in ns (any order, overlaps merged;
    /// empty intervals ignored).
    pub fn from_intervals(mut iv: Vec<(Time, Time)>) -> Self {
        iv.retain(|&(a, b)| a < b);
        iv.sort_unstable();
        let mut merged: Vec<(Time, Time)> = Vec::with_capacity(iv.len());
        for (a, b) in iv {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Self { intervals: merged }
    }

    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// The merged intervals, in ns.
    pub fn intervals(&self) -> &[(Time, Time)] {
        &self.intervals
    }

    /// Whether `t` lies in an outage. O(log n) binary search; `t` need not be
    /// monotone (packets are judged by when they entered the link).
    #[inline]
    pub fn active(&self, t: Time) -> bool {
        // Index of the first interval starting after t; the one before it is
        // the only candidate.
        let i = self.intervals.partition_point(|&(a, _)| a <= t);
        i > 0 && t < self.intervals[i - 1].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC};
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn outage_exactly_the_packets_entered_inside() {
        let o = Outages::from_value(&json!([[3, 3.5], [1, 2]])).unwrap();
        for i in 0..5000u64 {
            let t = i * MS;
            let inside = (SEC..2 * SEC).contains(&t) || (3 * SEC..3 * SEC + 500 * MS).contains(&t);
            assert_eq!(o.active(t), inside, "t={t}");
        }
    }

    #[test]
    fn outage_overlaps_are_merged() {
        let o = Outages::from_value(&json!([[1, 3], [2, 4], [4, 5], [7, 8]])).unwrap();
        assert_eq!(o.intervals(), &[(SEC, 5 * SEC), (7 * SEC, 8 * SEC)]);
    }

    #[test]
    fn outage_config_errors() {
        let e = Outages::from_value(&json!([[1, 2], [3, 3]])).unwrap_err();
        assert_eq!(e.path, "[1]");
        assert!(e.message.contains('3'));
        let e = Outages::from_value(&json!([[-1, 2]])).unwrap_err();
        assert_eq!(e.path, "[0]");
        assert!(Outages::from_value(&json!([[1, 2, 3]])).is_err());
        assert!(Outages::from_value(&json!({"start": 1})).is_err());
        assert!(Outages::from_value(&json!([])).unwrap().is_empty());
    }

    proptest! {
        #[test]
        fn outage_active_matches_linear_scan(
            iv in proptest::collection::vec((0u64..1000, 1u64..200), 0..8),
            ts in proptest::collection::vec(0u64..1300, 1..50),
        ) {
            let iv: Vec<(Time, Time)> = iv.into_iter().map(|(a, d)| (a, a + d)).collect();
            let o = Outages::from_intervals(iv.clone());
            for t in ts {
                let want = iv.iter().any(|&(a, b)| a <= t && t < b);
                prop_assert_eq!(o.active(t), want);
            }
        }
    }
}
