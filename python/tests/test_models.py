"""PFTK and Mathis against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpair.evidence.models import mathis, pftk, pftk_kbps, pkts_to_kbps


def test_pftk_hand_value() -> None:
    # p=0.01, RTT=0.1 s, T0=1 s, b=1:
    # RTT*sqrt(2bp/3) = 0.1*sqrt(0.0066667) = 0.0081650
    # min(1, 3*sqrt(3*0.01/8)) = 3*0.0612372 = 0.1837117
    # T0*0.1837117*0.01*(1+32e-4) = 0.0018430
    # B = 1/(0.0081650+0.0018430) = 99.920 packets/s
    assert pftk(0.01, 0.1, 1.0) == pytest.approx(99.92, rel=1e-4)


def test_pftk_high_loss_timeout_term_saturates() -> None:
    # p=0.2: 3*sqrt(3*0.2/8) = 0.8216 < 1; p=0.5: 3*sqrt(0.1875)=1.299 -> min = 1
    # p=0.5, RTT=0.2, T0=2: 0.2*sqrt(1/3)=0.115470; 2*1*0.5*(1+8)=9 -> B=1/9.115470
    assert pftk(0.5, 0.2, 2.0) == pytest.approx(1 / 9.115470, rel=1e-6)


def test_pftk_window_limit() -> None:
    # Wmax/RTT = 10/0.1 = 100 < 99.92? no: 99.92 < 100, loss-limited
    assert pftk(0.01, 0.1, 1.0, wmax=10) == pytest.approx(99.92, rel=1e-4)
    # Wmax = 5 -> 50 packets/s
    assert pftk(0.01, 0.1, 1.0, wmax=5) == pytest.approx(50.0)
    assert pftk(0.0, 0.1, 1.0, wmax=30) == pytest.approx(300.0)
    assert math.isinf(pftk(0.0, 0.1, 1.0))


def test_pftk_b2_lower_than_b1() -> None:
    assert pftk(0.01, 0.1, 1.0, b=2) < pftk(0.01, 0.1, 1.0, b=1)


def test_pftk_vectorised_and_monotone() -> None:
    ps = np.array([0.001, 0.01, 0.05, 0.1])
    out = pftk(ps, 0.1, 0.5)
    assert isinstance(out, np.ndarray)
    assert np.all(np.diff(out) < 0)
    assert out[1] == pytest.approx(pftk(0.01, 0.1, 0.5))


def test_pftk_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        pftk(1.5, 0.1, 1.0)
    with pytest.raises(ValueError):
        pftk(0.1, 0.0, 1.0)


def test_mathis_hand_value() -> None:
    # sqrt(1.5)/(0.1*sqrt(0.01)) = 1.2247449/0.01 = 122.47449
    assert mathis(0.01, 0.1) == pytest.approx(122.47449, rel=1e-6)
    assert math.isinf(mathis(0.0, 0.1))


def test_mathis_above_pftk_where_timeouts_matter() -> None:
    assert mathis(0.05, 0.1) > pftk(0.05, 0.1, 1.0)
    # at low p the two agree closely (timeouts negligible); T0 small
    assert pftk(1e-5, 0.1, 0.2) == pytest.approx(mathis(1e-5, 0.1), rel=0.01)


def test_units() -> None:
    assert pkts_to_kbps(250, 1000) == pytest.approx(2000.0)
    assert pftk_kbps(0.01, 0.1, 1.0, 1000) == pytest.approx(99.92 * 8, rel=1e-4)
