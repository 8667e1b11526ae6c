"""Tests of the headless-Chromium site checker (tests/browser.py) on small sites."""

from __future__ import annotations

import os
import random
import stat
import time
from pathlib import Path

import needs
import pytest
from browser import BrowserError, SiteReport, check_site, find_chromium, main
from matplotlib.figure import Figure

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium() -> str:
    return needs.chromium()


def write_figure(path: Path) -> None:
    fig = Figure(figsize=(3, 2), dpi=50)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [1, 0, 1])
    fig.savefig(path)


def page(title: str, body: str) -> str:
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{title}</title></head>\n'
        f"<body>\n{body}\n</body></html>\n"
    )


def problems_with(report: SiteReport, *needles: str) -> list[str]:
    return [p for p in report.problems if all(n in p for n in needles)]


def test_good_site_is_ok(tmp_path: Path, chromium: str) -> None:
    write_figure(tmp_path / "fig.png")
    (tmp_path / "figs").mkdir()
    write_figure(tmp_path / "figs" / "fig.svg")
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    (tmp_path / "index.html").write_text(
        page(
            "Index",
            '<img src="fig.png" alt="png"><a href="sub/detail.html#top">detail</a>'
            '<a href="data.csv">data</a><a href="https://example.org/">external link</a>'
            '<a href="mailto:someone@example.org">mail</a><a href="#here">here</a>',
        )
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "detail.html").write_text(
        page(
            "Detail",
            '<img src="../figs/fig.svg" alt="svg">'
            '<a href="../index.html">back</a><a href="../index.html?x=1">again</a>',
        )
    )

    report = check_site(tmp_path / "index.html", chromium=chromium)

    assert report.ok, report.format()
    assert [p.title for p in report.pages] == ["Index", "Detail"]
    assert all(p.loaded for p in report.pages)
    images = [img for p in report.pages for img in p.images]
    assert [img.src for img in images] == ["fig.png", "../figs/fig.svg"]
    for img in images:
        assert img.complete and img.natural_width > 0 and img.natural_height > 0, img
    assert images[0].natural_width == 150  # 3 in at 50 dpi
    assert not any(p.broken_images for p in report.pages)


def test_missing_and_corrupt_images(tmp_path: Path, chromium: str) -> None:
    write_figure(tmp_path / "good.png")
    (tmp_path / "corrupt.png").write_bytes(random.Random(1).randbytes(2000))
    (tmp_path / "index.html").write_text(
        page("Index", '<img src="good.png"><img src="gone.png"><a href="two.html">two</a>')
    )
    (tmp_path / "two.html").write_text(page("Two", '<img src="corrupt.png">'))

    report = check_site(tmp_path / "index.html", chromium=chromium)

    assert not report.ok
    assert len(report.pages) == 2 and all(p.loaded for p in report.pages)
    assert problems_with(report, "index.html", "gone.png", "does not exist")
    assert problems_with(report, "two.html", "corrupt.png", "did not decode")
    assert not problems_with(report, "good.png")
    index, two = report.pages
    assert [img.src for img in index.broken_images] == ["gone.png"]
    assert [img.src for img in two.broken_images] == ["corrupt.png"]
    assert len(report.problems) == 2, report.format()


def test_link_to_missing_local_file(tmp_path: Path, chromium: str) -> None:
    (tmp_path / "index.html").write_text(
        page("Index", '<a href="results/flows.csv">csv</a><a href="nowhere.html">page</a>')
    )

    report = check_site(tmp_path / "index.html", chromium=chromium)

    assert problems_with(report, "index.html", "results/flows.csv", "missing file")
    assert problems_with(report, "index.html", "nowhere.html", "missing file")
    assert report.pages[0].missing_links == ["results/flows.csv", "nowhere.html"]
    assert len(report.pages) == 1


def test_external_resource_is_a_problem(tmp_path: Path, chromium: str) -> None:
    (tmp_path / "index.html").write_text(
        page(
            "Index",
            '<img src="http://example.invalid/x.png">'
            '<script src="https://example.invalid/lib.js"></script>',
        )
    )

    start = time.monotonic()
    report = check_site(tmp_path / "index.html", chromium=chromium)

    assert time.monotonic() - start < 20  # blocked, not waited for
    assert problems_with(report, "index.html", "http://example.invalid/x.png", "offline")
    assert problems_with(report, "index.html", "https://example.invalid/lib.js", "offline")
    assert report.pages[0].loaded
    assert sorted(report.pages[0].external_requests) == [
        "http://example.invalid/x.png",
        "https://example.invalid/lib.js",
    ]


def test_javascript_error_is_a_problem(tmp_path: Path, chromium: str) -> None:
    (tmp_path / "index.html").write_text(page("Index", "<script>undefinedThing()</script>"))

    report = check_site(tmp_path / "index.html", chromium=chromium)

    assert problems_with(report, "index.html", "JavaScript", "undefinedThing")


def test_console_error_is_a_problem(tmp_path: Path, chromium: str) -> None:
    script = "<script>console.error('bad plot')</script>"
    (tmp_path / "index.html").write_text(page("Index", script))

    report = check_site(tmp_path / "index.html", chromium=chromium)

    assert problems_with(report, "index.html", "console error", "bad plot")


def test_command_line(tmp_path: Path, chromium: str, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "index.html").write_text(page("Index", '<img src="nothing.svg">'))

    assert main([str(tmp_path / "index.html"), "--chromium", chromium]) == 1
    out = capsys.readouterr().out
    assert "nothing.svg" in out and "1 problem" in out


def test_hung_page_times_out(tmp_path: Path, chromium: str) -> None:
    (tmp_path / "index.html").write_text(
        page("Index", '<a href="spin.html">spin</a><a href="after.html">after</a>')
    )
    (tmp_path / "spin.html").write_text(page("Spin", "<script>for (;;) {}</script>"))
    (tmp_path / "after.html").write_text(page("After", ""))

    start = time.monotonic()
    report = check_site(tmp_path / "index.html", chromium=chromium, timeout=4)

    assert time.monotonic() - start < 20
    assert problems_with(report, "spin.html", "timed out after 4 s", "not checked: after.html")
    assert [p.title for p in report.pages] == ["Index", ""]


def fake_browser(tmp_path: Path, script: str) -> str:
    path = tmp_path / "fake-chromium"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_browser_that_exits_early(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(page("Index", ""))
    fake = fake_browser(tmp_path, 'echo "cannot open display: nowhere" >&2\nexit 3\n')

    with pytest.raises(BrowserError, match=r"(?s)exit code 3.*cannot open display"):
        check_site(tmp_path / "index.html", chromium=fake, timeout=10)


def test_browser_that_hangs(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(page("Index", ""))
    pid_file = tmp_path / "pid"
    fake = fake_browser(tmp_path, f'echo $$ > "{pid_file}"\nexec sleep 300\n')

    start = time.monotonic()
    with pytest.raises(BrowserError, match="did not answer within 1 s"):
        check_site(tmp_path / "index.html", chromium=fake, timeout=1)
    assert time.monotonic() - start < 10
    with pytest.raises(ProcessLookupError):  # killed, and reaped
        os.kill(int(pid_file.read_text()), 0)


def test_find_chromium_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_browser(tmp_path, "exit 0\n")
    monkeypatch.setenv("TCPAIR_CHROMIUM", fake)
    assert find_chromium() == fake
    monkeypatch.setenv("TCPAIR_CHROMIUM", str(tmp_path / "absent"))
    assert find_chromium() is None


def test_missing_index(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        check_site(tmp_path / "index.html", chromium="/nonexistent")
