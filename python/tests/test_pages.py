"""What report pages and the folder index show: quick runs marked, verdict
styling, claim counts, causes, TOML, readable paths and file modes."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest

import tcpair
from tcpair.base.paths import shipped_sweeps
from tcpair.base.tomlout import dumps
from tcpair.reporting.index_page import MIXED_BANNER, parse_verdicts
from tcpair.reporting.page import FAILS, HOLDS, INCONCLUSIVE, NA, QUICK_BANNER, Claim, Page, render
from tcpair.reporting.site import build_index, build_report, display_path
from tcpair.sweeper.definition import load_sweep

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


def _claims(provisional: bool) -> list[Claim]:
    return [
        Claim("paper", "A holds", HOLDS, provisional=provisional),
        Claim("paper", "B fails", FAILS, cause="the BS has no timer; docs/clrp.md", rule="r > 1"),
        Claim("paper", "C unsure", INCONCLUSIVE, provisional=provisional, seeds=5),
        Claim("paper", "D open", NA),
    ]


def test_verdict_styles_and_cause() -> None:
    html = render(Page("t", "i", claims=_claims(provisional=False)))
    assert 'class="claim holds"' in html and 'class="claim fails"' in html
    assert 'class="claim inconclusive"' in html and 'class="claim na"' in html
    assert "Why:</b> the BS has no timer; docs/clrp.md" in html
    assert "Rule: r &gt; 1" in html
    assert html.count("Why:") == 1, "only a claim that does not hold gets its cause"
    assert "provisional" not in html.split("</style>")[1]
    assert QUICK_BANNER not in html


def test_quick_page_banner_and_provisional_claims() -> None:
    claims = [Claim("paper", "X", FAILS, provisional=True, cause="why")]
    html = render(Page("t", "i", claims=claims, quick=True))
    body = html.split("</style>")[1]
    assert 'class="banner quick"' in body and "--quick" in body
    assert 'class="claim fails provisional"' in body
    assert "provisional: quick run" in body
    css = html.split("<style>")[1].split("</style>")[0]
    assert ".claim.provisional .verdict{color:#7a6520}" in css, "never the failure red"
    assert ".inconclusive .verdict{color:#4a529e}" in css


def test_tables_align_text_left_numbers_right() -> None:
    import pandas as pd

    df = pd.DataFrame({"scheme": ["reno"], "p": [0.01], "n": [3]})
    html = render(Page("t", "i", tables=[("T", df)]))
    assert "<td>reno</td>" in html and '<td class="num">0.01</td>' in html
    assert '<td class="num">3</td>' in html


def _fake_report(root: Path, name: str, verdicts: list, quick: bool) -> None:
    d = root / name / "report"
    d.mkdir(parents=True)
    (d / "index.html").write_text("<html></html>")
    (d / "verdicts.json").write_text(json.dumps(verdicts))
    status = {"runs": 4, "ok": 4, "failed": 0, "quick": quick, "target": True}
    (d / "status.json").write_text(json.dumps(status))


def test_index_counts_both_verdict_forms(tmp_path: Path) -> None:
    records = [c.record("new") for c in _claims(provisional=True)[:3]]
    _fake_report(tmp_path, "new", records, quick=True)
    _fake_report(tmp_path, "old", ["A: holds", "B: holds", "C: does not hold"], quick=False)
    html = build_index(tmp_path, [("new", "New form"), ("old", "Old form")]).read_text()
    assert "1 of 3 claims hold" in html and "1 does not hold" in html
    assert "1 inconclusive" in html
    assert "2 of 3 claims hold" in html
    assert '<span class="n-inconclusive">1 inconclusive</span>' in html
    assert "Why:</i> the BS has no timer" in html
    assert MIXED_BANNER in html, "one of the two is a quick run"
    assert "reproduces one published experiment" in html
    assert [v.outcome for v in parse_verdicts(["x: y: holds", "garbled"])] == [HOLDS, NA]


def test_toml_emitter_round_trips() -> None:
    tricky = {
        "name": 'a "quoted"\tname\\ with \u00e9 and \x7f',
        "run": {"duration": 1.5, "seed": 3, "big": 1e300, "flag": False},
        "output": {},
        "set": {"flows.tcp1.variant": "sack", "links.w.forward.loss": {"model": "uniform"}},
        "flows": [{"name": "a", "tcp": {"eln": True}, "x": [[1, 2], ["a"]]}, {"name": "b"}],
        "nodes": [{"name": "bs", "bs": [{"agent": "clrp", "hole_threshold": 3}]}],
        "empty": [],
    }
    assert tomllib.loads(dumps(tricky)) == tricky
    for name in shipped_sweeps():
        spec = load_sweep(name)
        for data in (spec.base(), spec.base(quick=True), spec.to_dict()):
            text = dumps(data)
            assert tomllib.loads(text) == data, name
    text = dumps(load_sweep("baseline").base())
    assert "[[flows]]" in text and "[run]" in text and "{ model =" in text


def test_pages_show_no_absolute_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sweep = tmp_path / "mine.toml"
    sweep.write_text(
        'name = "mine"\nscenario = "clrp_one_link"\nseeds = 1\n[set]\n"run.duration" = 1.0\n'
        '[[axis]]\nname = "p"\nparam = "links.wireless.forward.loss.p"\nvalues = [0.0]\n'
    )
    store = tmp_path / "res" / "mine"
    tcpair.sweep(str(sweep), store, jobs=1, progress=False)
    monkeypatch.chdir(tmp_path)
    build_report(store)
    page = (store / "report" / "index.html").read_text()
    assert "# mine.toml" in page
    for bad in (str(tmp_path), "site-packages", "/home/", str(REPO)):
        assert bad not in page, bad
    assert display_path(shipped_sweeps()["baseline"]) == "sweeps/baseline.toml"


def test_reports_and_stores_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        store = tmp_path / "s"
        tcpair.sweep(
            {"name": "s", "scenario": CLRP, "seeds": 1, "set": {"run.duration": 1.0}},
            store,
            jobs=1,
            progress=False,
        )
        build_report(store)
    finally:
        os.umask(old)
    report = store / "report"
    assert stat.S_IMODE(report.stat().st_mode) == 0o755
    files = [p for p in [*report.iterdir(), *store.rglob("*.parquet"), store / "sweep.json"]]
    assert files
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o644, p


def test_report_of_a_results_folder_keeps_the_reproduce_order(tmp_path: Path) -> None:
    from tcpair.reporting.site import _targets_present
    from tcpair.reproduce import targets

    order = list(targets())
    stores = [tmp_path / n for n in reversed(order[:3])] + [tmp_path / "aaa_mine"]
    got = [n for n, _ in _targets_present(stores)]
    assert got == order[:3]
