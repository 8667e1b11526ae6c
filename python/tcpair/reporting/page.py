"""Static HTML report pages.

Pages are self-contained (inline CSS, no scripts, no CDN) and reference their
images by relative path, so a results folder can be copied, zipped or opened
from disk offline and still render.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tcpair.evidence.verdict import FAILS, HOLDS, INCONCLUSIVE, NA

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em}
.meta{color:#666;font-size:.9em}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
figcaption{color:#555;font-size:.9em}
details{margin:.4em 0 1em}summary{cursor:pointer;color:#36c;font-size:.9em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.banner{border:1px solid #d9b650;background:#fff6d6;color:#5c4700;padding:.5em .8em;
margin:.8em 0;border-radius:3px}
.claim{border-left:4px solid #999;padding:.4em .8em;margin:.8em 0;background:#fafafa}
.holds{border-color:#2a7d2a}.fails{border-color:#b22}.inconclusive{border-color:#5a63b8}
.na{border-color:#999}
.verdict{font-weight:bold}.holds .verdict{color:#2a7d2a}.fails .verdict{color:#b22}
.inconclusive .verdict{color:#4a529e}.na .verdict{color:#666}
.claim.provisional{border-left-style:dashed;border-color:#c9a227;background:#fbf8ef}
.claim.provisional .verdict{color:#7a6520}
.tag{font-size:.8em;font-weight:normal;border:1px solid #c9a227;color:#7a6520;
border-radius:3px;padding:0 .3em;margin-left:.4em}
.why{margin-top:.3em}.nowrap{white-space:nowrap}.rule{color:#555;font-size:.9em}
.n-holds{color:#2a7d2a}.n-fails{color:#b22}.n-inconclusive{color:#4a529e}.n-na{color:#666}
.prov .n-holds,.prov .n-fails,.prov .n-inconclusive{color:#7a6520}
code{background:#f3f3f3;padding:0 .2em}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.8em}
blockquote.paper{border-left:4px solid #36c;margin:.5em 0;padding:.3em .8em;background:#f5f8ff}
"""

QUICK_BANNER = (
    "Quick run (--quick): fewer seeds and grid points and shorter runs than the full "
    "experiment. A first look, not for conclusions: every verdict here is provisional; "
    "rerun without --quick to decide."
)


@dataclass
class Claim:
    """A published or expected statement set beside our numbers.

    ``verdict`` is one of :data:`tcpair.evidence.verdict.OUTCOMES`, decided by the rule in
    :mod:`tcpair.evidence.verdict`. The structured fields go to ``verdicts.json``:
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
    """An image in the page; ``svg`` is offered as a vector download and
    ``table`` (the numbers plotted) is folded under the image."""

    png: str
    caption: str
    svg: str | None = None
    table: pd.DataFrame | None = None
    table_caption: str = "The numbers in this figure"


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
    index_href: str | None = "../index.html"  # link back to the list of results
    index_label: str = "all results"
    quick: bool = False  # made from a --quick run: banner, verdicts provisional


def _e(text: object) -> str:
    return html.escape(str(text))


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float | np.floating):
        return f"{float(value):.4g}"
    return str(value)


def _table(df: pd.DataFrame) -> str:
    """An HTML table: text columns left-aligned, numeric columns right-aligned."""
    numeric = [
        pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        for c in df.columns
    ]
    cls = [' class="num"' if n else "" for n in numeric]
    head = "".join(f"<th{c}>{_e(name)}</th>" for name, c in zip(df.columns, cls, strict=True))
    rows = [
        "<tr>"
        + "".join(f"<td{c}>{_e(_cell(v))}</td>" for v, c in zip(row, cls, strict=True))
        + "</tr>"
        for row in df.itertuples(index=False, name=None)
    ]
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _claim(c: Claim) -> str:
    tag = ' <span class="tag">provisional: quick run</span>' if c.provisional else ""
    parts = [
        f'<div class="claim {c.css}"><div><b>{_e(c.source)}</b>: {_e(c.text)}</div>',
        f'<div>Verdict: <span class="verdict">{_e(c.verdict)}</span>{tag}</div>',
    ]
    if c.rule:
        seeds = f"; {c.seeds} seeds per point" if c.seeds else ""
        parts.append(f'<div class="rule">Rule: {_e(c.rule)}{_e(seeds)}</div>')
    if c.detail:
        parts.append(f"<div>{_e(c.detail)}</div>")
    if c.cause and c.verdict == FAILS:
        parts.append(f'<div class="why"><b>Why:</b> {_e(c.cause)}</div>')
    parts.append("</div>")
    return "".join(parts)


def _figure(fig: Figure) -> str:
    svg = f' (<a href="{_e(fig.svg)}">SVG</a>)' if fig.svg else ""
    out = (
        f'<figure><img src="{_e(fig.png)}" alt="{_e(fig.caption)}">'
        f"<figcaption>{_e(fig.caption)}{svg}</figcaption></figure>"
    )
    if fig.table is not None and len(fig.table):
        out += (
            f"<details><summary>{_e(fig.table_caption)} ({len(fig.table)} rows)</summary>"
            f"{_table(fig.table)}</details>"
        )
    return out


def _head(title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
    )


#: In the footer of every page tcpair writes: a page without it is not ours.
OURS_MARK = "Generated by tcpair"


def _footer() -> str:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f'<p class="meta">{OURS_MARK} on {stamp}.</p></body></html>'


def render(page: Page) -> str:
    """The page as an HTML string."""
    parts = [_head(page.title)]
    if page.index_href:
        parts.append(
            f'<p class="meta"><a href="{_e(page.index_href)}">{_e(page.index_label)}</a></p>'
        )
    parts.append(f"<h1>{_e(page.title)}</h1>")
    if page.quick:
        parts.append(f'<div class="banner quick">{_e(QUICK_BANNER)}</div>')
    if page.intro and page.intro != page.title:
        parts.append(f"<p>{_e(page.intro)}</p>")
    if page.meta:
        items = " · ".join(f"{_e(k)}: <code>{_e(v)}</code>" for k, v in page.meta.items())
        parts.append(f'<p class="meta">{items}</p>')
    if page.claim_text:
        parts.append("<h2>The paper's claim</h2>")
        parts.append(f'<blockquote class="paper">{_e(page.claim_text)}</blockquote>')
    if page.claims:
        parts.append("<h2>Claims and verdicts</h2>")
        parts.extend(_claim(c) for c in page.claims)
    parts.extend(_figure(fig) for fig in page.figures)
    for caption, df in page.tables:
        parts.append(f"<h2>{_e(caption)}</h2>")
        parts.append(_table(df))
    for title, text in page.sections:
        parts.append(f"<h2>{_e(title)}</h2><pre>{_e(text)}</pre>")
    if page.files:
        parts.append("<h2>Data</h2><ul>")
        parts.extend(f'<li><a href="{_e(href)}">{_e(label)}</a></li>' for href, label in page.files)
        parts.append("</ul>")
    parts.append(_footer())
    return "\n".join(parts) + "\n"


def write_page(directory: Path, page: Page, filename: str = "index.html") -> Path:
    """Write the page into ``directory`` and return its path."""
    path = Path(directory) / filename
    path.write_text(render(page), encoding="utf-8")
    return path


__all__ = [
    "FAILS",
    "HOLDS",
    "INCONCLUSIVE",
    "NA",
    "QUICK_BANNER",
    "Claim",
    "Figure",
    "Page",
    "render",
    "write_page",
]
