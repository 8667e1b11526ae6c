"""The HTML report, built from real sweeps, opened in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import needs
import pytest
from browser import check_site

import tcpair
from tcpair.evidence.verdict import OUTCOMES
from tcpair.reporting.site import build_site
from tcpair.reproduce import reproduce

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder with the baseline target (quick) and a sweep with failures."""
    root = tmp_path_factory.mktemp("results")
    reproduce(["baseline"], root, jobs=2, quick=True, progress=False)
    tcpair.sweep(
        {
            "name": "with_failures",
            "title": "A sweep where one point is invalid",
            "scenario": CLRP,
            "seeds": 2,
            "set": {"run.duration": 10.0},
            "axis": [
                {"name": "p", "param": "links.wireless.forward.loss.p", "values": [0.0, 0.05, 7.0]}
            ],
        },
        root / "with_failures",
        jobs=1,
        progress=False,
    )
    build_site(root)
    return root


def test_site_layout_and_content(site: Path) -> None:
    index = (site / "index.html").read_text()
    assert 'href="baseline/report/index.html"' in index
    assert 'href="with_failures/report/index.html"' in index
    assert "6 runs, 2 failed" in index
    page = (site / "with_failures" / "report" / "index.html").read_text()
    assert "Failed runs" in page and "7" in page and "loss" in page
    assert "Sweep definition" in page and "Base scenario" in page
    base = (site / "baseline" / "report" / "index.html").read_text()
    assert "The paper&#x27;s claim" in base or "The paper's claim" in base
    assert "PFTK" in base
    for html in (index, page, base):
        assert "http://" not in html and "https://" not in html, "report must work offline"
        assert "<script" not in html


RECORD_FIELDS = {
    "target",
    "claim_id",
    "source",
    "claim",
    "rule",
    "numbers",
    "outcome",
    "provisional",
    "seeds",
    "detail",
    "cause",
}


def test_verdicts_json_is_a_list_of_claim_records(site: Path) -> None:
    records = json.loads((site / "baseline" / "report" / "verdicts.json").read_text())
    assert records and isinstance(records, list)
    ids = [r["claim_id"] for r in records]
    assert len(set(ids)) == len(ids) and "pftk" in ids
    for r in records:
        assert set(r) == RECORD_FIELDS
        assert r["target"] == "baseline"
        assert r["outcome"] in OUTCOMES
        assert r["provisional"] is True  # a quick run
        assert r["rule"] and "95% CI" in r["rule"]
        assert isinstance(r["seeds"], int) and r["seeds"] >= 2
        for part in r["numbers"].values():
            assert set(part) == {"estimate", "low", "high", "n", "outcome"}
            assert part["outcome"] in OUTCOMES
            if part["low"] is not None:
                assert part["low"] <= part["estimate"] <= part["high"]
        assert r["cause"] == "" or r["outcome"] == "does not hold"
    # The index reads the records and shows each claim's outcome.
    index = (site / "index.html").read_text()
    assert all(r["outcome"] in index for r in records)
    assert "provisional" in index


@pytest.mark.browser
def test_every_page_loads_and_every_image_renders(site: Path) -> None:
    chromium = needs.chromium()
    report = check_site(site / "index.html", chromium=chromium)
    assert report.ok, "\n".join(report.problems)
    visited = {Path(p.url.removeprefix("file://")).resolve() for p in report.pages}
    expected = {
        (site / "index.html").resolve(),
        (site / "baseline" / "report" / "index.html").resolve(),
        (site / "with_failures" / "report" / "index.html").resolve(),
    }
    assert expected <= visited
    images = [img for p in report.pages for img in p.images]
    assert len(images) >= 3  # baseline's two plots and the generic one
