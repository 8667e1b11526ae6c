"""The readings a CLRP claim is judged under: which Snoop, which CLRP.

Sun et al. 2005 compared CLRP with ns-2's Snoop, which is weaker than the Snoop
of Amir et al. 1995 that tcpair builds by default (docs/snoop.md, "Snoop as
ns-2.35 builds it"). Every claim that speaks of Snoop is therefore judged
first against ``snoop_ns2``, the comparator the paper used, and again against
tcpair's Snoop. CLRP's BS has no local timer in the paper's text; ``clrp_timer``
adds one (docs/clrp.md). Claims are judged first on the paper's CLRP.

A reading renames the chosen schemes' runs to the roles the claims speak of
("snoop", "clrp") and drops the others, so every claim function works unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from tcpair.reporting.page import Claim


@dataclass(frozen=True)
class Reading:
    """Which scheme plays Snoop and which plays CLRP."""

    snoop: str
    clrp: str

    @property
    def primary(self) -> bool:
        return self == PRIMARY

    @property
    def suffix(self) -> str:
        """Appended to claim ids of the other readings (the primary keeps its ids)."""
        return "" if self.primary else f"@{self.snoop}+{self.clrp}"

    @property
    def words(self) -> str:
        snoop = {
            "snoop_ns2": "Snoop as ns-2.35 builds it (the paper's comparator)",
            "snoop": "tcpair's Snoop (Amir et al. 1995)",
        }[self.snoop]
        clrp = {
            "clrp": "CLRP as the paper describes it (no BS timer)",
            "clrp_timer": "CLRP with a 50 ms BS local timer (not in the paper)",
        }[self.clrp]
        return f"{snoop}; {clrp}"


PRIMARY = Reading("snoop_ns2", "clrp")
ALL = (
    PRIMARY,
    Reading("snoop", "clrp"),
    Reading("snoop_ns2", "clrp_timer"),
    Reading("snoop", "clrp_timer"),
)


def available(present: set[str]) -> list[Reading]:
    """The readings whose schemes were run; without ``snoop_ns2`` (an older store)
    tcpair's Snoop stands in as the primary."""
    out = [r for r in ALL if r.snoop in present and r.clrp in present]
    if not out and {"snoop", "clrp"} & present:
        out = [Reading("snoop" if "snoop" in present else "snoop_ns2", "clrp")]
    return out


def relabel(frame: pd.DataFrame, r: Reading) -> pd.DataFrame:
    """The rows of Reno and the reading's schemes, renamed to their roles."""
    if frame is None or "scheme" not in frame.columns:
        return frame
    keep = frame[frame["scheme"].isin(["reno", r.snoop, r.clrp])].copy()
    keep["scheme"] = keep["scheme"].replace({r.snoop: "snoop", r.clrp: "clrp"})
    return keep


def mark(claim: Claim, r: Reading, only: bool) -> Claim:
    """The claim as judged under reading ``r``: its id suffixed, its text saying which
    Snoop and CLRP it used (unless ``only``: a single reading needs no words)."""
    if only:
        return claim
    head = "Judged on" if r.primary else "Other reading:"
    return dataclasses.replace(
        claim,
        text=f"[{head} {r.words}] {claim.text}",
        claim_id=claim.claim_id + r.suffix,
    )


def speaks_of(claim: Claim, role: str) -> bool:
    """Whether a claim's words involve ``role`` (its text or its rule)."""
    return role in f"{claim.text} {claim.rule}".lower()
