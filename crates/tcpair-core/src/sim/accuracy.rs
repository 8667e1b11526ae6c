//! The accuracy of a flow's detector against the ground truth (Park et al.
//! 2010, §3): A_w, the share of wireless fast retransmits it classified
//! wireless; A_c, the share of congestion fast retransmits it classified
//! congestion; A_t = (A_w + A_c) / 2. Counted over the fast retransmits of
//! the measurement window, each in one category of its ground truth
//! (`RecoveryRecord::truth`, the `true_category` of the recoveries table):
//! wireless, congestion, spurious (the segment was not lost) or mixed (its
//! drops since its last delivery had both causes). Spurious and mixed ones
//! are counted apart and enter neither share.

use crate::metrics::{RecoveryKind, RecoveryRecord, Truth};
use crate::tcp::Cause;
use serde::Serialize;

/// Fast retransmits by ground truth and verdict, and the accuracies; a
/// share is None where its denominator is 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Accuracy {
    pub frs_wireless_true: u64,
    pub frs_wireless_said_wireless: u64,
    pub frs_congestion_true: u64,
    pub frs_congestion_said_congestion: u64,
    pub frs_spurious: u64,
    pub frs_mixed: u64,
    pub acc_w: Option<f64>,
    pub acc_c: Option<f64>,
    pub acc_t: Option<f64>,
}

impl Accuracy {
    /// Count one fast-retransmit record.
    pub fn add(&mut self, r: &RecoveryRecord) {
        if r.kind != RecoveryKind::FastRetransmit {
            return;
        }
        let said = r.verdict;
        match r.truth() {
            Truth::Lost(Cause::Wireless) => {
                self.frs_wireless_true += 1;
                self.frs_wireless_said_wireless += u64::from(said == Some(Cause::Wireless));
            }
            Truth::Lost(Cause::Congestion) => {
                self.frs_congestion_true += 1;
                self.frs_congestion_said_congestion += u64::from(said == Some(Cause::Congestion));
            }
            Truth::Spurious => self.frs_spurious += 1,
            Truth::Mixed => self.frs_mixed += 1,
        }
    }

    /// Add another's counts (pooling flows).
    pub fn merge(&mut self, o: &Accuracy) {
        self.frs_wireless_true += o.frs_wireless_true;
        self.frs_wireless_said_wireless += o.frs_wireless_said_wireless;
        self.frs_congestion_true += o.frs_congestion_true;
        self.frs_congestion_said_congestion += o.frs_congestion_said_congestion;
        self.frs_spurious += o.frs_spurious;
        self.frs_mixed += o.frs_mixed;
    }

    /// The shares from the counts. `plain`: the detector never says
    /// wireless (`none`), which Park et al. 2010 (§3) score 0%, 100% and
    /// 50% by definition, whatever the counts.
    pub fn finish(mut self, plain: bool) -> Self {
        let share = |n: u64, d: u64| (d > 0).then(|| n as f64 / d as f64);
        (self.acc_w, self.acc_c) = if plain {
            (Some(0.0), Some(1.0))
        } else {
            (
                share(self.frs_wireless_said_wireless, self.frs_wireless_true),
                share(
                    self.frs_congestion_said_congestion,
                    self.frs_congestion_true,
                ),
            )
        };
        self.acc_t = self.acc_w.zip(self.acc_c).map(|(w, c)| (w + c) / 2.0);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::DropCauseKind::{Corruption, Queue};
    use crate::net::LinkKind::{Wired, Wireless};

    fn fr(
        truth: Option<(crate::metrics::DropCauseKind, crate::net::LinkKind)>,
        said: Cause,
    ) -> RecoveryRecord {
        RecoveryRecord {
            verdict: Some(said),
            true_cause: truth,
            ..RecoveryRecord::at(0, 0)
        }
    }

    #[test]
    fn counts_and_shares() {
        let mut a = Accuracy::default();
        a.add(&fr(Some((Corruption, Wireless)), Cause::Wireless));
        a.add(&fr(Some((Corruption, Wireless)), Cause::Congestion));
        a.add(&fr(Some((Corruption, Wireless)), Cause::Wireless));
        a.add(&fr(Some((Corruption, Wired)), Cause::Congestion));
        a.add(&fr(Some((Queue, Wireless)), Cause::Wireless));
        a.add(&fr(None, Cause::Wireless));
        let mut m = fr(Some((Queue, Wired)), Cause::Congestion);
        m.true_mixed = true;
        a.add(&m);
        a.add(&RecoveryRecord {
            kind: RecoveryKind::Timeout,
            ..fr(Some((Queue, Wired)), Cause::Congestion)
        });
        let a = a.finish(false);
        assert_eq!((a.frs_wireless_true, a.frs_wireless_said_wireless), (3, 2));
        assert_eq!(
            (a.frs_congestion_true, a.frs_congestion_said_congestion),
            (2, 1)
        );
        assert_eq!((a.frs_spurious, a.frs_mixed), (1, 1));
        assert_eq!((a.acc_w, a.acc_c), (Some(2.0 / 3.0), Some(0.5)));
        assert_eq!(a.acc_t, Some((2.0 / 3.0 + 0.5) / 2.0));
    }

    #[test]
    fn empty_denominators_and_plain_tcp() {
        let mut a = Accuracy::default();
        a.add(&fr(Some((Corruption, Wireless)), Cause::Wireless));
        let b = a.finish(false);
        assert_eq!((b.acc_w, b.acc_c, b.acc_t), (Some(1.0), None, None));
        let p = Accuracy::default().finish(true);
        assert_eq!(
            (p.acc_w, p.acc_c, p.acc_t),
            (Some(0.0), Some(1.0), Some(0.5))
        );
    }
}
