"""Python twins of built-in parts, as a starting point for your own
(docs/python.md, "Writing a detector or responder in Python").

Name them in a scenario as ``tcp.detector = {python = "tcpair.examples.lda:LdaEq"}``
and ``tcp.responder = {python = "tcpair.examples.lda:Restore"}``. Times in the
context are integer nanoseconds, as in the core, so these compute the same
figures bit for bit and make the same decisions as the detectors ``lda_eq``,
``veno`` and ``jtcp``, responder 1 and responders 11-17/21-27.
"""

from __future__ import annotations

from typing import Any

#: Largest TCP window without window scaling, bytes (RFC 7323 §2.1).
SS_THRESH_BYTES = 65535.0


class LdaEq:
    """Loss differentiation by the estimated queue usage (Park, Chung and
    Sreekumari 2009; Park et al. 2010, §2): Q = (RTT_cur - RTT_min) /
    (RTT_max - RTT_min); Q below ``threshold`` means a wireless loss.

    As the core's ``lda_eq``: before the first RTT sample the loss is
    congestion; with no variation seen (RTT_max = RTT_min) Q is 0.
    """

    def __init__(self, threshold: float = 0.5) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in 0..1, got {threshold}")
        self.threshold = threshold

    def classify(self, ctx: Any) -> str:
        lo, hi, cur = ctx.rtt_min_ns, ctx.rtt_max_ns, ctx.rtt_last_ns
        if lo is None or hi is None or cur is None:
            return "congestion"
        q = 0.0 if hi == lo else (cur - lo) / (hi - lo)
        return "wireless" if q < self.threshold else "congestion"


class Veno:
    """Veno's backlog as a detector (Fu and Liew 2003, §II.A-B; Park et al. 2010,
    §2): N = FlightSize (RTT - BaseRTT) / RTT, RTT the smallest sample of the
    last completed round trip; N below ``beta`` packets means a wireless loss.
    As the core's ``veno`` detector: congestion before a round has completed."""

    def __init__(self, beta: float = 3.0) -> None:
        if not beta > 0.0:
            raise ValueError(f"beta must be a positive number of packets, got {beta}")
        self.beta = beta

    def classify(self, ctx: Any) -> str:
        base, rtt = ctx.rtt_min_ns, ctx.last_round_min_rtt_ns
        if base is None or rtt is None:
            return "congestion"
        n = ctx.flight * float(rtt - base) / float(rtt)
        return "wireless" if n < self.beta else "congestion"


class Jtcp:
    """JTCP's rule (Wu and Chen 2004, §III; Park et al. 2010, §2): congestion when
    the loss is older than ``rtts`` RTTs (since the echoed send time of the first
    duplicate ACK) and the jitter ratio Jr exceeds 1/cwnd (FlightSize), else
    wireless. As the core's ``jtcp`` detector: congestion before any RTT sample."""

    def __init__(self, rtts: float = 1.0) -> None:
        if not 0.0 <= rtts <= 100.0:
            raise ValueError(f"rtts must be in 0..100, got {rtts}")
        self.rtts = rtts

    def classify(self, ctx: Any) -> str:
        rtt = ctx.rtt_last_ns
        if rtt is None:
            return "congestion"
        echo = ctx.first_dup_echo_ns
        late = echo is not None and float(max(ctx.now_ns - echo, 0)) > self.rtts * float(rtt)
        jr = ctx.jitter_ratio
        jittery = jr is not None and jr > 1.0 / max(ctx.flight, 1)
        return "congestion" if late and jittery else "wireless"


class Restore:
    """Responder 1 (Park et al. 2010, Table 1): keep cwnd and ssthresh as they
    were just before the fast retransmit."""

    def respond(self, ctx: Any) -> tuple[float, float]:
        return ctx.cwnd, ctx.ssthresh


class Table1:
    """Responders 11-17 and 21-27 (Park et al. 2010, Table 1 and §4.1):
    cwnd is one of seven choices (the ``method``'s last digit); ssthresh is
    65535 bytes for 11-17 (slow start) and equal to cwnd for 21-27
    (congestion avoidance). The same readings as the core's (docs/tcp.md)."""

    def __init__(self, method: int = 21) -> None:
        if not (11 <= method <= 17 or 21 <= method <= 27):
            raise ValueError(f"method must be 11-17 or 21-27, got {method}")
        self.method = method

    def _cwnd(self, ctx: Any) -> float:
        prev = ctx.cwnd
        choice = self.method % 10
        if choice == 1:
            v = 1.0
        elif choice == 2:
            v = ctx.own_cwnd
        elif choice == 3:
            v = prev
        elif choice == 4:
            v = prev if ctx.mean_window is None else ctx.mean_window
        elif choice == 5:
            v = prev if ctx.max_window is None else ctx.max_window
        elif choice == 6:
            v = float(ctx.window_limit)
        else:
            v = ctx.bdp if ctx.bdp > 0.0 else prev
        return max(v, 1.0)

    def respond(self, ctx: Any) -> tuple[float, float]:
        cwnd = self._cwnd(ctx)
        if self.method < 20:
            return cwnd, SS_THRESH_BYTES / ctx.packet_size
        return cwnd, cwnd
