"""Static HTML report pages.

Pages are self-contained (inline CSS, no scripts, no CDN) and reference their
images by relative path, so a results folder can be copied, zipped or opened
from disk offline and still render.
"""

from __future__ import annotations

import datetime as _dt
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from tcpair.verdict import FAILS, HOLDS, INCONCLUSIVE, NA

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em}
.meta{color:#666;font-size:.9em}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
figcaption{color:#555;font-size:.9em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
.claim{border-left:4px solid #999;padding:.4em .8em;margin:.8em 0;background:#fafafa}
.holds{border-color:#2a7d2a}.fails{border-color:#b22}.na{border-color:#999}
.verdict{font-weight:bold}.holds .verdict{color:#2a7d2a}.fails .verdict{color:#b22}
code{background:#f3f3f3;padding:0 .2em}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.8em}
blockquote.paper{border-left:4px solid #36c;margin:.5em 0;padding:.3em .8em;background:#f5f8ff}
"""


@dataclass
class Claim:
    """A published or expected statement set beside our numbers.

    ``verdict`` is one of :data:`tcpair.verdict.OUTCOMES`, decided by the rule in
    :mod:`tcpair.verdict`. The structured fields go to ``verdicts.json``:
    ``claim_id`` (stable within a target), ``rule`` (the rule's test in words,
    e.g. "paired ratio CI > 1"), ``numbers`` (the estimates and intervals it was
    decided on, JSON-ready), ``seeds`` (seeds per point it used) and
    ``provisional`` (decided on a quick run). ``cause`` says, for a claim that
    does not hold, why (in a sentence) and where the docs explain it
    (``docs/clrp.md``, section "...").
    """

    source: str
    text: str
    verdict: str
    detail: str = ""
    claim_id: str = ""
    rule: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)
    seeds: int | None = None
    provisional: bool = False
    cause: str = ""

    @property
    def css(self) -> str:
        base = {HOLDS: "holds", FAILS: "fails", INCONCLUSIVE: "inconclusive"}.get(
            self.verdict, "na"
        )
        return f"{base} provisional" if self.provisional else base

    def record(self, target: str) -> dict[str, Any]:
        """This claim as a ``verdicts.json`` record."""
        return {
            "target": target,
            "claim_id": self.claim_id,
            "source": self.source,
            "claim": self.text,
            "rule": self.rule,
            "numbers": self.numbers,
            "outcome": self.verdict,
            "provisional": self.provisional,
            "seeds": self.seeds,
            "detail": self.detail,
            "cause": self.cause,
        }


@dataclass
class Figure:
    """An image in the page; ``svg`` is offered as a vector download."""

    png: str
    caption: str
    svg: str | None = None


@dataclass
class Page:
    """Everything one target's page shows."""

    title: str
    intro: str
    figures: list[Figure] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    meta: Mapping[str, object] = field(default_factory=dict)
    files: list[tuple[str, str]] = field(default_factory=list)
    claim_text: str = ""  # the paper's claim in words, set beside the verdicts
    sections: list[tuple[str, str]] = field(default_factory=list)  # (title, preformatted)
    index_href: str | None = "../index.html"  # link back to the list of targets


def _e(text: object) -> str:
    return html.escape(str(text))


def _table(df: pd.DataFrame) -> str:
    return df.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="–", border=0)


def render(page: Page) -> str:
    """The page as an HTML string."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(page.title)}</title><style>{CSS}</style></head><body>",
        (
            f'<p class="meta"><a href="{_e(page.index_href)}">all targets</a></p>'
            if page.index_href
            else ""
        ),
        f"<h1>{_e(page.title)}</h1>",
        f"<p>{_e(page.intro)}</p>",
    ]
    if page.meta:
        items = " · ".join(f"{_e(k)}: <code>{_e(v)}</code>" for k, v in page.meta.items())
        parts.append(f'<p class="meta">{items}</p>')
    if page.claim_text:
        parts.append("<h2>The paper's claim</h2>")
        parts.append(f'<blockquote class="paper">{_e(page.claim_text)}</blockquote>')
    if page.claims:
        parts.append("<h2>Claims and verdicts</h2>")
        for c in page.claims:
            parts.append(
                f'<div class="claim {c.css}"><div><b>{_e(c.source)}</b>: {_e(c.text)}</div>'
                f'<div>Verdict: <span class="verdict">{_e(c.verdict)}</span></div>'
                + (f"<div>{_e(c.detail)}</div>" if c.detail else "")
                + "</div>"
            )
    for fig in page.figures:
        svg = f' (<a href="{_e(fig.svg)}">SVG</a>)' if fig.svg else ""
        parts.append(
            f'<figure><img src="{_e(fig.png)}" alt="{_e(fig.caption)}">'
            f"<figcaption>{_e(fig.caption)}{svg}</figcaption></figure>"
        )
    for caption, df in page.tables:
        parts.append(f"<h2>{_e(caption)}</h2>")
        parts.append(_table(df))
    for title, text in page.sections:
        parts.append(f"<h2>{_e(title)}</h2><pre>{_e(text)}</pre>")
    if page.files:
        parts.append("<h2>Data</h2><ul>")
        parts.extend(f'<li><a href="{_e(href)}">{_e(label)}</a></li>' for href, label in page.files)
        parts.append("</ul>")
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f'<p class="meta">Generated by tcpair on {stamp}.</p></body></html>')
    return "\n".join(parts) + "\n"


def write_page(directory: Path, page: Page, filename: str = "index.html") -> Path:
    """Write the page into ``directory`` and return its path."""
    path = Path(directory) / filename
    path.write_text(render(page), encoding="utf-8")
    return path


@dataclass
class IndexEntry:
    """One target in ``results/index.html``."""

    name: str
    title: str
    href: str | None
    # ``verdicts.json`` records (:meth:`Claim.record`); plain strings from older reports
    verdicts: Sequence[Mapping[str, Any] | str] = ()
    runs: str = ""  # e.g. "120 runs, 2 failed"


def _verdict_text(v: Mapping[str, Any] | str) -> str:
    if isinstance(v, str):
        return v
    flag = " (provisional)" if v.get("provisional") else ""
    return f"{v.get('claim', '')}: {v.get('outcome', NA)}{flag}"


def write_index(results_dir: Path, entries: Sequence[IndexEntry]) -> Path:
    """Write ``results/index.html`` linking every target (missing ones marked)."""
    rows = []
    for e in entries:
        link = f'<a href="{_e(e.href)}">{_e(e.name)}</a>' if e.href else _e(e.name)
        status = "; ".join(_verdict_text(v) for v in e.verdicts) if e.href else "not run yet"
        rows.append(
            f"<tr><td>{link}</td><td>{_e(e.title)}</td><td>{_e(e.runs)}</td>"
            f"<td>{_e(status)}</td></tr>"
        )
    body = "\n".join(rows)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>tcpair results</title><style>{CSS}</style></head><body>\n"
        "<h1>tcpair results</h1>\n"
        "<p>Each target reproduces one experiment; its page sets our numbers beside the "
        "claim they test.</p>\n"
        "<table><tr><th>target</th><th>what</th><th>runs</th><th>verdicts</th></tr>\n"
        f"{body}\n</table>\n"
        f'<p class="meta">Generated by tcpair on {stamp}.</p></body></html>\n'
    )
    path = Path(results_dir) / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


__all__ = [
    "FAILS",
    "HOLDS",
    "INCONCLUSIVE",
    "NA",
    "Claim",
    "Figure",
    "IndexEntry",
    "Page",
    "render",
    "write_index",
    "write_page",
]
