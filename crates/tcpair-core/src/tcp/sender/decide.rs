//! The one fast-retransmit decision point. Every trigger (the duplicate-ACK
//! threshold, SACK's IsLost, an ELN-marked duplicate ACK) comes here:
//!
//! 1. TCP's own response is computed (the congestion op's cut, shaped by
//!    the recovery mechanics: Tahoe restarts from one segment);
//! 2. the detector says congestion or wireless;
//! 3. on "wireless" the responder's window replaces TCP's own, unless the
//!    responder is TCP's own (method 0);
//! 4. the decision is carried out (`recovery`) and recorded as one
//!    [`RecoveryEvent::FastRetransmit`]: segment, verdict, window cut, cwnd
//!    and ssthresh before and after (the simulator adds the time and the
//!    ground truth of the loss).
//!
//! A congestion response is made only if the cumulative ACK covers more than
//! all the data sent before the last congestion response (RFC 6582 §3.2
//! step 1); a wireless one only once per hole, and with
//! `tcp.respond_per = "window"` under the same gate as a congestion one.

use super::TcpSender;
use crate::engine::Time;
use crate::tcp::cc::LossCtx;
use crate::tcp::detect::Query;
use crate::tcp::respond::{Response, ResponseQuery};
use crate::tcp::{
    AckInfo, Cause, Decision, Recovery, RecoveryEvent, RespondPer, SenderOutput, Window,
};

impl TcpSender {
    /// A fast-retransmit trigger on `ack`: decide, act, record.
    pub(super) fn trigger(&mut self, now: Time, ack: &AckInfo, out: &mut SenderOutput) {
        let seq = self.snd_una;
        let before = self.window();
        let own = self.own_response();
        let q = Query {
            now,
            seq,
            ack,
            history: &self.history,
            window: before,
            flight: self.max_sent - self.snd_una,
        };
        let verdict = self.cfg.detector.classify(&q);
        let response = match verdict {
            Cause::Congestion => Response::Own,
            Cause::Wireless => self.cfg.responder.respond(&ResponseQuery {
                before,
                own,
                history: &self.history,
                window_limit: self.cfg.window,
                packet_size: self.cfg.packet_size,
            }),
        };
        let (after, window_cut) = match response {
            Response::Own if !self.may_enter_recovery() => return,
            Response::Set(_) if self.wireless_rxmit == Some(seq) => return,
            Response::Set(_) if self.per_window() && !self.may_enter_recovery() => return,
            Response::Own => (own, true),
            Response::Set(w) => (w, w.cwnd < before.cwnd),
        };
        let d = Decision {
            seq,
            verdict,
            window_cut,
            before,
            after,
        };
        self.stats.fast_retransmits += 1;
        if window_cut {
            self.stats.window_cuts += 1;
        }
        out.events.push(RecoveryEvent::FastRetransmit(d));
        self.cfg.detector.on_decision(&d);
        match response {
            Response::Own => self.congestion_fr(now, own, out),
            Response::Set(w) => {
                self.stats.wireless_frs += 1;
                self.wireless_fr(now, w, out);
            }
        }
    }

    /// One response per fast-retransmit episode (`tcp.respond_per = "window"`).
    pub(super) fn per_window(&self) -> bool {
        self.cfg.respond_per == RespondPer::Window
    }

    /// TCP's own response to a loss found now: the congestion op's
    /// ssthresh, and the cwnd its recovery ends with (Tahoe: one segment).
    fn own_response(&self) -> Window {
        let c = LossCtx {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            // FlightSize for ssthresh: outstanding minus limited-transmit segments.
            flight: (self.max_sent - self.snd_una).saturating_sub(self.lt_sent),
            window: self.cfg.window,
        };
        let w = self.cfg.cc.on_loss(&c, &self.history);
        match self.cfg.recovery {
            Recovery::Tahoe => Window {
                cwnd: 1.0,
                ssthresh: w.ssthresh,
            },
            _ => w,
        }
    }
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;
