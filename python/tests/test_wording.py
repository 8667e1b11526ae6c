"""User-facing text names papers by author and year, never by internal labels."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Internal labels: the papers' file numbers, the private specification, the
# issue tracker's numbering and its sub-items, work "waves".
INTERNAL = re.compile(
    r"\b[Pp]aper 00[0-4]\b|\bSPEC\b|\b[Ii]ssue \d|\b[Ww]ave \d|\b[Ii]tem \d+\s*\([a-z]\)"
)
# Files a user reads: docs, README, shipped sweeps and scenarios, the package's
# modules (their docstrings reach help and pages) and the Rust sources (registry
# summaries reach `tcpair list`, module docs reach rustdoc).
USER_FACING = [
    ("README.md", ""),
    ("docs", ".md"),
    ("python/tcpair", ".py"),
    ("python/tcpair/sweeps", ".toml"),
    ("python/tcpair/scenarios", ".toml"),
    ("crates", ".rs"),
]


def _files() -> list[Path]:
    out: list[Path] = []
    for where, suffix in USER_FACING:
        path = REPO / where
        if path.is_file():
            out.append(path)
            continue
        out.extend(p for p in path.rglob(f"*{suffix}") if "target" not in p.parts)
    return out


def test_no_internal_references_in_user_facing_files() -> None:
    files = _files()
    assert len(files) > 50
    hits = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if INTERNAL.search(line):
                hits.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not hits, "internal references:\n" + "\n".join(hits)


def test_references_page_cites_the_five_papers_and_is_linked() -> None:
    refs = (REPO / "docs" / "references.md").read_text(encoding="utf-8")
    for who in ("Chen et al. 2002", "Sun et al. 2005", "Amir et al. 1995", "Stojcevska and Popov"):
        assert who in refs
    assert "Park et al. 2010" in refs and "Padhye et al. 2000" in refs
    for page in ("README.md", "docs/snoop.md", "docs/syndrome.md", "docs/clrp.md"):
        assert "references.md" in (REPO / page).read_text(encoding="utf-8"), page
