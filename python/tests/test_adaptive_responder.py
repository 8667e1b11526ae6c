"""The adaptive_responder target: its quick run end to end (claims with outcomes) and
the family verdicts on hand-built runs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from tcpair.evidence.verdict import OUTCOMES
from tcpair.reporting.page import FAILS, HOLDS
from tcpair.reproduce import reproduce, targets
from tcpair.reproduce.studies import adaptive_responder

NAME = "adaptive_responder"
KEYS = ["p"]


def test_quick_run_gives_claims(tmp_path: Path) -> None:
    assert NAME in targets()
    done = reproduce(["adaptive-responder"], tmp_path, quick=True, jobs=2, progress=False)
    assert done[NAME]
    found = json.loads((tmp_path / NAME / "report" / "verdicts.json").read_text())
    assert {v["claim_id"] for v in found} >= {"adaptive_beats_1", "adaptive_beats_21"}
    assert all(v["outcome"] in OUTCOMES and v["provisional"] for v in found)
    assert (tmp_path / NAME / "report" / "index.html").exists()


def _runs(goodput: dict[tuple[str, int], float]) -> pd.DataFrame:
    """tcp1 alone with the oracle, two loss rates, four seeds; goodput per
    (responder, competing) plus a seed-dependent part common to every responder."""
    rows = []
    for (responder, competing), g in goodput.items():
        for p in (0.01, 0.02):
            for seed in range(4):
                rows.append(
                    {
                        "flow": "tcp1",
                        "detector": "oracle",
                        "competing": competing,
                        "responder": responder,
                        "p": p,
                        "seed": seed,
                        "goodput_kbps": g + 10 * seed + (seed % 2),
                        **{c: 1.0 for c in adaptive_responder.COUNTS[1:]},
                    }
                )
    return pd.DataFrame(rows)


def test_family_verdicts_follow_the_paired_gains() -> None:
    runs = _runs(
        {
            ("adaptive", 0): 1000,
            ("1", 0): 900,
            ("21", 0): 500,
            ("adaptive", 2): 800,
            ("1", 2): 900,
            ("21", 2): 400,
        }
    )
    table = adaptive_responder.gain_table(runs, KEYS).set_index(["competing", "against"])
    assert table.loc[(0, "1"), "verdict"] == HOLDS
    assert table.loc[(2, "1"), "verdict"] == FAILS
    assert table.loc[(2, "21"), "gain"] > 0.9
    assert adaptive_responder.claim_beats(runs, KEYS, "21").verdict == HOLDS
    beats_1 = adaptive_responder.claim_beats(runs, KEYS, "1")
    assert beats_1.verdict == FAILS and "competing=2" in beats_1.cause
    ratios = adaptive_responder.scenario_ratios(runs, KEYS)
    assert len(ratios) == 8 and set(ratios["against"]) == {"1", "21"}
    assert not adaptive_responder.behaviour(runs).empty
