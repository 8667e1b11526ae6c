"""Every page of ``reproduce all --quick`` opened in a real browser: each loads
with no console or JavaScript error, every link resolves, every image renders."""

from __future__ import annotations

from pathlib import Path

import needs
import pytest
from browser import check_site

from tcpair.reproduce import reproduce, targets

pytestmark = pytest.mark.browser


def test_every_reproduce_page_renders(tmp_path: Path) -> None:
    chromium = needs.chromium()
    reproduce(["all"], tmp_path, jobs=2, quick=True, progress=False)

    report = check_site(tmp_path / "index.html", chromium=chromium, timeout=120)

    assert report.ok, "\n".join(report.problems)
    visited = {Path(p.url.removeprefix("file://")).resolve() for p in report.pages}
    pages = {(tmp_path / t / "report" / "index.html").resolve() for t in targets()}
    assert pages <= visited, sorted(str(p) for p in pages - visited)
    for page in report.pages:
        assert page.loaded, page.url
        images = page.images
        if Path(page.url.removeprefix("file://")) != tmp_path / "index.html":
            assert images, f"{page.url}: a target page without a figure"
        for img in images:
            assert img.ok, (page.url, img)
