//! Layer 6: what every run measures. Counters are plain structs updated by
//! the `sim` layer; tables (drops, recoveries, time series) are column-ready
//! records. Nothing here schedules events or touches packets' contents.

mod histogram;
mod records;
pub mod trace;

pub use histogram::Histogram;
pub use records::{DropCauseKind, DropRecord, RecoveryKind, RecoveryRecord, Sample, Truth};

/// Jain's fairness index (Jain, Chiu, Hawe 1984): (sum x)^2 / (n sum x^2).
/// 1 when all equal; 1/n when one flow takes everything. `None` for no flows
/// or all-zero input.
pub fn jain_fairness(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        None
    } else {
        Some(s * s / (n * s2))
    }
}

/// Receiver-side counters of one flow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkCounters {
    /// Data packets that reached the receiver (duplicates included): Stojcevska and Popov's Np.
    pub arrived: u64,
    /// New in-order segments handed to the application (goodput counts these).
    pub delivered: u64,
    /// Arrivals of segments already received.
    pub duplicates: u64,
    pub acks_sent: u64,
}

impl SinkCounters {
    pub fn minus(&self, base: &SinkCounters) -> SinkCounters {
        SinkCounters {
            arrived: self.arrived - base.arrived,
            delivered: self.delivered - base.delivered,
            duplicates: self.duplicates - base.duplicates,
            acks_sent: self.acks_sent - base.acks_sent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_extremes() {
        assert_eq!(jain_fairness(&[5.0, 5.0, 5.0]), Some(1.0));
        assert!((jain_fairness(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(jain_fairness(&[]), None);
        // Hand-computed: (1+2+3)^2 / (3 * 14) = 36/42.
        assert!((jain_fairness(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-12);
    }
}
