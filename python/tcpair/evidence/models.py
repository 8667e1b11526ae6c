"""Analytical TCP throughput models used to validate the simulator.

PFTK (Padhye, Firoiu, Towsley, Kurose, "Modeling TCP Reno performance: a
simple model and its empirical validation", IEEE/ACM ToN 2000), full model with
the receiver-window limit, and the square-root law of Mathis, Semke, Mahdavi
and Ott (1997). Both return packets per second; helpers convert to kb/s using
the ns-2 convention that a packet counts ``packet_size`` bytes.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

ArrayLike = float | npt.ArrayLike


def pftk(
    p: ArrayLike,
    rtt: ArrayLike,
    t0: ArrayLike,
    wmax: ArrayLike | None = None,
    b: float = 1.0,
) -> float | np.ndarray:
    """PFTK throughput in packets/s.

    B(p) = min(Wmax/RTT, 1 / (RTT*sqrt(2bp/3) + T0*min(1, 3*sqrt(3bp/8))*p*(1+32p^2)))

    ``b`` is packets acknowledged per ACK (1 without delayed ACKs). At p = 0 the
    loss term vanishes and only the window limit remains (infinite without
    ``wmax``). Accepts scalars or arrays (broadcast).
    """
    p_a = np.asarray(p, dtype=float)
    rtt_a = np.asarray(rtt, dtype=float)
    t0_a = np.asarray(t0, dtype=float)
    if np.any(p_a < 0) or np.any(p_a > 1):
        raise ValueError("loss probability p must be in [0, 1]")
    if np.any(rtt_a <= 0):
        raise ValueError("rtt must be positive")
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = rtt_a * np.sqrt(2 * b * p_a / 3) + t0_a * np.minimum(
            1.0, 3 * np.sqrt(3 * b * p_a / 8)
        ) * p_a * (1 + 32 * p_a**2)
        loss_limited = np.where(denom > 0, 1.0 / np.where(denom > 0, denom, 1.0), np.inf)
    out = loss_limited
    if wmax is not None:
        out = np.minimum(np.asarray(wmax, dtype=float) / rtt_a, loss_limited)
    return float(out) if np.ndim(out) == 0 else out


def mathis(p: ArrayLike, rtt: ArrayLike, c: float = math.sqrt(1.5)) -> float | np.ndarray:
    """Mathis et al. square-root law, C / (RTT * sqrt(p)) packets/s, C = sqrt(3/2).

    Valid at low loss, where timeouts are rare; infinite at p = 0.
    """
    p_a = np.asarray(p, dtype=float)
    rtt_a = np.asarray(rtt, dtype=float)
    with np.errstate(divide="ignore"):
        out = c / (rtt_a * np.sqrt(p_a))
    return float(out) if np.ndim(out) == 0 else out


def pkts_to_kbps(rate_pps: ArrayLike, packet_size: ArrayLike) -> float | np.ndarray:
    """Packets/s to kb/s (1000 bits), counting ``packet_size`` bytes per packet."""
    out = np.asarray(rate_pps, dtype=float) * np.asarray(packet_size, dtype=float) * 8 / 1000
    return float(out) if np.ndim(out) == 0 else out


def pftk_kbps(
    p: ArrayLike,
    rtt: ArrayLike,
    t0: ArrayLike,
    packet_size: ArrayLike,
    wmax: ArrayLike | None = None,
    b: float = 1.0,
) -> float | np.ndarray:
    """PFTK throughput in kb/s for packets of ``packet_size`` bytes."""
    return pkts_to_kbps(pftk(p, rtt, t0, wmax=wmax, b=b), packet_size)


__all__ = ["mathis", "pftk", "pftk_kbps", "pkts_to_kbps"]
