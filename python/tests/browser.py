"""Open a static, offline HTML site in headless Chromium and check that it renders.

A dependency-free test helper: it talks to Chromium over the DevTools protocol on
``--remote-debugging-pipe`` (Chromium reads NUL-terminated JSON commands on fd 3 and
writes replies and events on fd 4), so it needs neither selenium, playwright nor a
websocket client. Every wait has a deadline, and the browser (with its whole process
group) is killed when the check ends, so a hung browser cannot hang a test suite.

``check_site(index)`` starts at ``index``, crawls every ``<a href>`` that points to a
local ``.html`` file (each page once), and for every page records whether it loaded,
its title and every ``<img>`` (``complete``, ``naturalWidth``, ``naturalHeight``). It
reports as problems: pages that fail to load, images that do not render, links to
local files that do not exist, local resources that fail to load, uncaught JavaScript
errors and console errors, and any request for a non-local resource (the site must
work offline; such requests are blocked, then reported).

Command line, for humans::

    python python/tests/browser.py path/to/index.html

prints the report and exits 1 if there are problems (2 if no browser could be run).

This module must not import tcpair: it checks the output, not the code. The DevTools
connection itself (launch, commands, deadlines) is in ``devtools.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from urllib.request import url2pathname

from devtools import BrowserError, _Crashed, _DevTools, _launch, _stop, _Timeout

CHROMIUM_ENV = "TCPAIR_CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
HTML_SUFFIXES = (".html", ".htm")
# Schemes a page may load without touching the network.
LOCAL_SCHEMES = frozenset({"file", "data", "blob", "about"})
# Requests for these are blocked before they leave the browser, then reported.
BLOCKED_URL_PATTERNS = ("http://*", "https://*", "ws://*", "wss://*", "ftp://*")

# Evaluated in every page once its load event has fired. Lazy images are switched
# to eager and every image is given a bounded time to finish (load or error).
_PAGE_PROBE = """
(async () => {
  const imgs = Array.from(document.images);
  for (const img of imgs) {
    if (!img.complete && img.loading === "lazy") img.loading = "eager";
  }
  const settle = (img) => new Promise((resolve) => {
    if (img.complete) return resolve();
    img.addEventListener("load", resolve, {once: true});
    img.addEventListener("error", resolve, {once: true});
    setTimeout(resolve, %(wait_ms)d);
  });
  await Promise.all(imgs.map(settle));
  return {
    href: location.href,
    readyState: document.readyState,
    title: document.title,
    images: imgs.map((img) => ({
      src: img.getAttribute("src") ?? "",
      url: img.currentSrc || img.src,
      complete: img.complete,
      naturalWidth: img.naturalWidth,
      naturalHeight: img.naturalHeight,
    })),
    links: Array.from(document.querySelectorAll("a[href]"), (a) => ({
      href: a.getAttribute("href"),
      url: a.href,
    })),
  };
})()
"""


@dataclass
class ImageInfo:
    """One ``<img>`` as the browser saw it."""

    src: str  # the src attribute as written
    url: str  # what it resolved to
    complete: bool
    natural_width: int
    natural_height: int

    @property
    def ok(self) -> bool:
        return self.complete and self.natural_width > 0 and self.natural_height > 0


@dataclass
class PageReport:
    url: str
    title: str = ""
    loaded: bool = False
    error: str | None = None
    images: list[ImageInfo] = field(default_factory=list)
    missing_links: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)

    @property
    def broken_images(self) -> list[ImageInfo]:
        return [img for img in self.images if not img.ok]


@dataclass
class SiteReport:
    index: Path
    pages: list[PageReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def format(self) -> str:
        lines = [f"site: {self.index}"]
        for page in self.pages:
            state = "ok" if page.loaded else f"FAILED ({page.error or 'not loaded'})"
            broken = len(page.broken_images)
            lines.append(
                f"  {page.url}  [{state}] title={page.title!r} "
                f"images={len(page.images)} broken={broken}"
            )
        if self.problems:
            lines.append(f"{len(self.problems)} problem(s):")
            lines.extend(f"  - {p}" for p in self.problems)
        else:
            lines.append(f"ok: {len(self.pages)} page(s), no problems")
        return "\n".join(lines)


def find_chromium() -> str | None:
    """The Chromium to use: $TCPAIR_CHROMIUM if set, else the first found on PATH."""
    override = os.environ.get(CHROMIUM_ENV)
    if override:
        return shutil.which(override) or (override if os.access(override, os.X_OK) else None)
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _file_path(url: str) -> Path | None:
    """The local path of a file:// URL (query and fragment dropped), else None."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    return Path(url2pathname(parts.path))


def _page_url(path: Path) -> str:
    return path.as_uri()


def _strip(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class _Crawler:
    def __init__(self, cdp: _DevTools, index: Path, timeout: float):
        self.cdp = cdp
        self.root = index.parent
        self.timeout = timeout
        self.report = SiteReport(index=index)
        self.session = ""

    def name(self, url_or_path: str | Path) -> str:
        """A short, human-readable name for a local page or file."""
        path = url_or_path if isinstance(url_or_path, Path) else _file_path(url_or_path)
        if path is None:
            return str(url_or_path)
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def problem(self, text: str) -> None:
        self.report.problems.append(text)

    def open_tab(self) -> None:
        deadline = time.monotonic() + self.timeout
        self.cdp.call("Browser.getVersion", deadline=deadline)
        target = self.cdp.call("Target.createTarget", {"url": "about:blank"}, deadline=deadline)
        attached = self.cdp.call(
            "Target.attachToTarget",
            {"targetId": target["targetId"], "flatten": True},
            deadline=deadline,
        )
        self.session = attached["sessionId"]
        for method in ("Page.enable", "Network.enable", "Runtime.enable", "Log.enable"):
            self.cdp.call(method, session=self.session, deadline=deadline)
        self.cdp.call(
            "Network.setBlockedURLs",
            {"urls": list(BLOCKED_URL_PATTERNS)},
            session=self.session,
            deadline=deadline,
        )

    def crawl(self, index: Path) -> SiteReport:
        queue = [index]
        seen = {index}
        while queue:
            path = queue.pop(0)
            try:
                links = self.visit(path)
            except (_Timeout, _Crashed) as exc:
                if isinstance(exc, _Timeout):
                    what = f"timed out after {self.timeout:g} s ({exc})"
                else:
                    what = "the page's renderer crashed"
                left = [self.name(p) for p in queue]
                rest = f"; crawl stopped, not checked: {', '.join(left)}" if left else ""
                self.problem(f"{self.name(path)}: {what}{rest}")
                break
            for target in links:
                if target not in seen:
                    seen.add(target)
                    queue.append(target)
        return self.report

    def visit(self, path: Path) -> list[Path]:
        """Load one page, record it, and return the local pages it links to."""
        url = _page_url(path)
        page = PageReport(url=url)
        self.report.pages.append(page)
        name = self.name(path)
        deadline = time.monotonic() + self.timeout
        sid = self.session
        self.cdp.events.clear()

        nav = self.cdp.call("Page.navigate", {"url": url}, session=sid, deadline=deadline)
        if nav.get("errorText"):
            page.error = nav["errorText"]
            self.problem(f"{name}: navigation failed: {page.error}")
            return []
        # Wait for this navigation's commit, then for the load event after it (a late
        # load event of the previous document must not be taken for this one).
        loader = nav.get("loaderId")

        def is_commit(ev: dict[str, Any]) -> bool:
            frame = ev.get("params", {}).get("frame", {})
            return (
                ev.get("sessionId") == sid
                and ev["method"] == "Page.frameNavigated"
                and "parentId" not in frame
                and frame.get("loaderId") == loader
            )

        committed = 0
        if loader:
            committed = self.cdp.wait_for(is_commit, deadline, "waiting for the commit")
        self.cdp.wait_for(
            lambda ev: ev.get("sessionId") == sid and ev["method"] == "Page.loadEventFired",
            deadline,
            "waiting for the load event",
            start=committed,
        )
        wait_ms = int(max(0.0, min(10.0, deadline - time.monotonic() - 1.0)) * 1000)
        result = self.cdp.call(
            "Runtime.evaluate",
            {
                "expression": _PAGE_PROBE % {"wait_ms": wait_ms},
                "returnByValue": True,
                "awaitPromise": True,
            },
            session=sid,
            deadline=deadline,
        )
        if "exceptionDetails" in result:
            page.error = f"probe failed: {result['exceptionDetails'].get('text', '?')}"
            self.problem(f"{name}: {page.error}")
            return []
        info: dict[str, Any] = result["result"]["value"]
        page.title = info["title"]
        if _strip(info["href"]) != _strip(url):
            page.error = f"ended up at {info['href']}"
        elif info["readyState"] != "complete":
            page.error = f"document.readyState is {info['readyState']!r}"
        page.loaded = page.error is None
        if not page.loaded:
            self.problem(f"{name}: did not load: {page.error}")

        self.record_images(page, name, info["images"])
        self.record_events(page, name)
        return self.follow_links(page, name, info["links"])

    def record_images(self, page: PageReport, name: str, images: list[dict[str, Any]]) -> None:
        for raw in images:
            img = ImageInfo(
                src=raw["src"],
                url=raw["url"],
                complete=bool(raw["complete"]),
                natural_width=int(raw["naturalWidth"]),
                natural_height=int(raw["naturalHeight"]),
            )
            page.images.append(img)
            if img.ok:
                continue
            local = _file_path(img.url)
            if not img.src:
                why = "no src"
            elif local is not None and not local.exists():
                why = f"file does not exist: {local}"
            elif urlsplit(img.url).scheme not in LOCAL_SCHEMES:
                why = "not a local file (blocked: the report must work offline)"
            elif not img.complete:
                why = "did not finish loading"
            else:
                why = "did not decode (naturalWidth/naturalHeight is 0)"
            self.problem(f"{name}: broken image {img.src!r}: {why}")

    def record_events(self, page: PageReport, name: str) -> None:
        requests: dict[str, str] = {}
        broken = {img.url for img in page.broken_images}
        for ev in self.cdp.events:
            method, params = ev["method"], ev.get("params", {})
            if method == "Network.requestWillBeSent":
                req_url = params["request"]["url"]
                requests[params["requestId"]] = req_url
                scheme = urlsplit(req_url).scheme
                if scheme not in LOCAL_SCHEMES and req_url not in page.external_requests:
                    page.external_requests.append(req_url)
                    self.problem(
                        f"{name}: loads non-local resource {req_url} (the report must work offline)"
                    )
            elif method == "Network.responseReceived" and params.get("type") == "Document":
                status = int(params["response"].get("status") or 0)
                if status >= 400 and page.loaded:
                    page.loaded = False
                    page.error = f"status {status}"
                    self.problem(f"{name}: did not load: status {status}")
            elif method == "Network.loadingFailed":
                req_url = requests.get(params["requestId"], "")
                if urlsplit(req_url).scheme != "file" or req_url in broken:
                    continue  # external ones and broken images are reported already
                if params.get("type") == "Document":
                    continue  # the page itself: navigation failure, reported already
                self.problem(
                    f"{name}: resource {self.name(req_url)!r} failed to load: "
                    f"{params.get('errorText', '?')}"
                )
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                text = details.get("exception", {}).get("description") or details.get("text")
                first = str(text).splitlines()[0] if text else "?"
                self.problem(f"{name}: uncaught JavaScript error: {first}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                args = params.get("args", [])
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in args)
                self.problem(f"{name}: console error: {text or '?'}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                if entry.get("source") == "network":
                    continue  # failed loads are reported above, with the resource's name
                self.problem(f"{name}: console error: {entry.get('text', '?')}")

    def follow_links(self, page: PageReport, name: str, links: list[dict[str, Any]]) -> list[Path]:
        pages: list[Path] = []
        for link in links:
            target = _file_path(link["url"])
            if target is None:
                continue  # http(s), mailto, javascript: ... are not followed
            if target.suffix.lower() in HTML_SUFFIXES:
                if target.is_file():
                    pages.append(target.resolve())
                    continue
            elif target.exists():
                continue
            if link["href"] not in page.missing_links:
                page.missing_links.append(link["href"])
                self.problem(f"{name}: link to missing file {link['href']!r} ({target})")
        return pages


def check_site(index: Path, *, chromium: str | None = None, timeout: float = 30.0) -> SiteReport:
    """Crawl the local site starting at ``index`` in headless Chromium and report.

    ``timeout`` bounds each page (navigation, load, probe) and the browser start.
    Raises FileNotFoundError if ``index`` does not exist, BrowserError if no browser
    can be found or run. Problems with the site itself go in ``SiteReport.problems``.
    """
    index = Path(index).resolve()
    if not index.is_file():
        raise FileNotFoundError(index)
    chromium = chromium or find_chromium()
    if chromium is None:
        raise BrowserError(f"no chromium found (tried {CHROMIUM_NAMES}; set {CHROMIUM_ENV})")
    with tempfile.TemporaryDirectory(prefix="tcpair-browser-", ignore_cleanup_errors=True) as tmp:
        proc, wfd, rfd, stderr = _launch(chromium, Path(tmp))
        try:
            cdp = _DevTools(proc, wfd, rfd, stderr)
            crawler = _Crawler(cdp, index, timeout)
            try:
                crawler.open_tab()
            except _Timeout:
                raise cdp.failure(f"did not answer within {timeout:g} s", wait=0) from None
            report = crawler.crawl(index)
            with contextlib.suppress(BrowserError, _Timeout):  # killed below either way
                cdp.call("Browser.close", deadline=time.monotonic() + 2)
            return report
        finally:
            _stop(proc)
            os.close(wfd)
            os.close(rfd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", type=Path, help="the site's start page (an .html file)")
    parser.add_argument("--chromium", help=f"browser binary (default: ${CHROMIUM_ENV} or PATH)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per page")
    args = parser.parse_args(argv)
    try:
        report = check_site(args.index, chromium=args.chromium, timeout=args.timeout)
    except (BrowserError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report.format())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
