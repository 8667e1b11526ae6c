"""The syndrome_fig14 analysis on hand-built traces: the recovery measures against
values computed by hand, and every claim holding and failing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from synthetic import by_text

from tcpair.evidence.verdict import FAILS, HOLDS
from tcpair.reproduce.chen2002 import fig14 as f14
from tcpair.sweeper.definition import load_sweep

HANDOFFS = [(8.0, 9.2), (13.0, 14.2), (18.0, 19.2), (23.0, 24.2)]


def trace(rate: float, lag: float) -> tuple[pd.DataFrame, list[float]]:
    """Sequence numbers sent at ``rate`` per second, none during a hand-off and for
    ``lag`` s after it; throughput is the 1 s moving window of that, sampled every
    0.1 s. Returns the samples and the resumption time after each hand-off."""
    t = np.round(np.arange(0, 30.0001, 0.1), 6)
    sending = np.ones_like(t, dtype=bool)
    for a, b in HANDOFFS:
        sending &= ~((t > a) & (t <= b + lag))
    seq = np.concatenate([[0.0], np.cumsum(np.where(sending[1:], rate * 0.1, 0.0))])
    thr = np.array([seq[i] - seq[max(i - 10, 0)] for i in range(len(t))]) * 8.0
    df = pd.DataFrame({"time_s": t, "seq_sent": seq, "throughput_kbps": thr})
    return df, [b + lag for _, b in HANDOFFS]


def tables(lags: dict[str, float], rates: dict[str, float]) -> tuple[pd.DataFrame, ...]:
    ts, ho, runs = [], [], []
    rng = np.random.default_rng(3)
    for scheme in lags:
        for seed in (1, 2, 3, 4):
            for flow in ("s1", "s2"):
                lag = lags[scheme] + 0.01 * rng.standard_normal()
                rate = rates[scheme] * (1 + 0.01 * rng.standard_normal())
                df, resumed = trace(rate, max(lag, 0.0))
                keys = {"scheme": scheme, "seed": seed, "flow": flow}
                ts.append(df.assign(**keys))
                for i, ((a, b), r) in enumerate(zip(HANDOFFS, resumed, strict=True)):
                    ho.append({**keys, "handoff": i, "start": a, "end": b, "resumed_at": r})
                runs.append({**keys, "goodput_kbps": df["seq_sent"].iloc[-1] * 8 / 30})
    return pd.concat(ts), pd.DataFrame(ho), pd.DataFrame(runs)


def test_recovery_measures_by_hand() -> None:
    ts, ho, _ = tables({"reno": 0.3}, {"reno": 100.0})
    one = (ts["seed"] == 1) & (ts["flow"] == "s1")
    per = f14.handoff_metrics(ts[one], ho[(ho["seed"] == 1) & (ho["flow"] == "s1")])
    assert len(per) == 4
    lag = per["t_first"].iloc[0]
    assert abs(lag - 0.3) < 0.05
    # Half of the 1 s window refills 0.5 s after sending resumes (to the 0.1 s sample).
    assert np.allclose(per["t_half"], per["t_first"] + 0.5, atol=0.11)
    # Retained: 2 s after the end minus the lag out of 1.2 + 2 s at the old rate.
    assert np.allclose(per["retained"], (2.0 - per["t_first"]) / 3.2, atol=0.04)


def _claims(lags: dict[str, float], rates: dict[str, float]) -> list:
    ts, ho, runs = tables(lags, rates)
    m = f14.run_metrics(runs, ts, f14.handoff_metrics(ts, ho))
    return f14.claims(m)


def test_claims_hold_when_syndrome_is_best() -> None:
    cs = _claims(
        {"reno": 0.6, "snoop": 0.5, "syndrome": 0.1},
        {"reno": 90.0, "snoop": 95.0, "syndrome": 110.0},
    )
    assert len(cs) == 5
    assert all(c.verdict == HOLDS for c in cs), [(c.claim_id, c.detail) for c in cs]


def test_claims_fail_when_syndrome_is_worst() -> None:
    cs = _claims(
        {"reno": 0.1, "snoop": 0.1, "syndrome": 0.6},
        {"reno": 110.0, "snoop": 110.0, "syndrome": 90.0},
    )
    assert all(c.verdict == FAILS for c in cs), [(c.claim_id, c.detail) for c in cs]
    assert by_text(cs, "suffers least").cause


def test_without_syndrome_nothing_is_judged() -> None:
    cs = _claims({"reno": 0.3, "snoop": 0.3}, {"reno": 100.0, "snoop": 100.0})
    assert all(c.verdict not in (HOLDS, FAILS) for c in cs)


def test_traces_median_and_band(tmp_path: Path) -> None:
    ts = tables({"reno": 0.3}, {"reno": 100.0})[0]
    tr = f14.traces(ts)
    row = tr[(tr["flow"] == "s1") & (tr["time_s"] == 5.0)].iloc[0]
    assert row["seq_sent_q25"] <= row["seq_sent_median"] <= row["seq_sent_q75"]
    fig = f14.plot_panels(tr, [(8.0, 9.2)], tmp_path, "fig14")
    assert (tmp_path / fig.png).is_file()


def test_sweep_has_ten_seeds_and_keeps_the_tables() -> None:
    spec = load_sweep("syndrome_fig14")
    assert len(spec.seeds) >= 10
    assert set(spec.keep) == {"timeseries", "handoffs"}


def test_syndrome_with_freeze_tcp_against_every_series() -> None:
    lags = {"reno": 0.5, "snoop": 0.5, "syndrome": 0.6, "freeze": 0.2, "syndrome_freeze": 0.05}
    rates = dict.fromkeys(lags, 100.0)
    ts, ho, runs = tables(lags, rates)
    m = f14.run_metrics(runs, ts, f14.handoff_metrics(ts, ho))
    cs = f14.extra_claims(m)
    assert [c.verdict for c in cs] == [HOLDS, HOLDS], [c.detail for c in cs]
    assert all(len(c.numbers) == 8 for c in cs), "four other series, two flows"
    lags["syndrome_freeze"] = 0.4
    ts, ho, runs = tables(lags, rates)
    m = f14.run_metrics(runs, ts, f14.handoff_metrics(ts, ho))
    assert all(c.verdict == FAILS for c in f14.extra_claims(m))
