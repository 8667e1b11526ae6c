"""What each scheme of ``compare-all`` needs: base-station state and deployment.

Both tables are computed from the runs, not typed per scheme:

- **BS state** from the runs' ``bs_state`` table (kept by the sweep): packets and
  bytes the BS agents hold per connection, mean over time and peak.
- **Deployment** (the criteria of Chen et al. 2002, §2, Table 1: changes at the
  BS, at the fixed host, at the mobile host; end-to-end semantics kept) from each
  run's scenario: which node carries a BS agent, which end's TCP settings differ
  from a standard TCP's, and which end is the mobile host (the flow's end next to
  the wireless link). Whether end-to-end semantics are kept is observed: one short
  traced probe run per scheme and direction records every action of the BS agents
  (docs/trace.md); semantics are broken when a BS agent sends an acknowledgement of
  its own (the split-connection approach Chen et al. 2002, §2, criticise).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

FLOW = "tcp1"
# Variants whose every part is an IETF standard TCP (RFC 5681, RFC 6582, RFC 6675):
# running one of them is no change to an end host.
STANDARD_VARIANTS = ("tahoe", "reno", "newreno", "sack")
# The sender's and the receiver's keys at their defaults (docs/scenarios.md).
TCP_DEFAULTS: Mapping[str, Any] = {"eln": False, "clrp": False, "detector": "none"}
SINK_DEFAULTS: Mapping[str, Any] = {"syndrome": False, "clrp": False}
PROBE_SECONDS = 10.0
# BS actions as the trace names them (docs/trace.md), in words.
ACTIONS: Mapping[str, str] = {
    "bs_cache": "caches",
    "bs_local_retransmit": "retransmits locally",
    "bs_dupack_suppressed": "holds back",
    "bs_absorb": "discards",
    "bs_eln_set": "sets ELN on",
    "bs_option_added": "adds an option to",
    "bs_option_stripped": "strips an option from",
    "bs_counter_attached": "numbers",
    "bs_inject": "sends its own",
}


def the_flow(sc: Mapping[str, Any]) -> dict[str, Any]:
    for f in sc.get("flows", []):
        if f.get("name") == FLOW:
            return dict(f)
    return dict((sc.get("flows") or [{}])[0])


def mobile_hosts(sc: Mapping[str, Any]) -> set[str]:
    """The flow's ends that a wireless link or a shared medium touches."""
    flow = the_flow(sc)
    ends = {flow.get("src"), flow.get("dst")}
    near: set[Any] = set()
    for link in sc.get("links", []):
        if link.get("kind") == "wireless":
            near |= {link.get("from"), link.get("to")}
    for medium in sc.get("media", []):
        near |= {st.get("node") for st in medium.get("stations", [])}
    return {str(e) for e in ends & near}


def mobile_host(sc: Mapping[str, Any]) -> str | None:
    """The first (by name) of the flow's mobile ends."""
    hosts = sorted(mobile_hosts(sc))
    return hosts[0] if hosts else None


def bs_agents(sc: Mapping[str, Any]) -> list[str]:
    """``node: agent`` for every BS agent of the scenario."""
    out = []
    for node in sc.get("nodes", []):
        for a in node.get("bs") or []:
            name = a.get("agent", "?") if isinstance(a, Mapping) else str(a)
            out.append(f"{node.get('name')}: {name}")
    return out


def sender_changes(flow: Mapping[str, Any]) -> list[str]:
    """What the sender runs beyond a standard TCP."""
    out = []
    variant = flow.get("variant", "reno")
    if variant not in STANDARD_VARIANTS:
        out.append(f"variant {variant}")
    tcp = dict(flow.get("tcp") or {})
    detector = tcp.get("detector", "none")
    for key, value in sorted(tcp.items()):
        if key == "responder":
            if detector != "none":
                out.append(f"responder {value}")
        elif value != TCP_DEFAULTS.get(key, object()):
            out.append(f"tcp.{key} = {_show(value)}")
    return out


def receiver_changes(flow: Mapping[str, Any]) -> list[str]:
    sink = dict(flow.get("sink") or {})
    return [
        f"sink.{k} = {_show(v)}"
        for k, v in sorted(sink.items())
        if v != SINK_DEFAULTS.get(k, object())
    ]


def _show(v: Any) -> str:
    return json.dumps(v) if isinstance(v, bool | Mapping | list) else str(v)


def host_changes(sc: Mapping[str, Any]) -> dict[str, list[str]]:
    """Changes at the fixed host (``FH``) and the mobile host (``MH``)."""
    flow = the_flow(sc)
    mhs = mobile_hosts(sc)
    sending, receiving = sender_changes(flow), receiver_changes(flow)
    if (sc.get("mobility") or {}).get("freeze") and sc["mobility"].get("host") == flow.get("dst"):
        receiving.append("mobility.freeze = true (zero window before each hand-off)")
    out: dict[str, list[str]] = {"FH": [], "MH": []}
    out["MH" if flow.get("src") in mhs else "FH"].extend(sending)
    out["MH" if flow.get("dst") in mhs else "FH"].extend(receiving)
    return out


def probe(sc: Mapping[str, Any]) -> pd.DataFrame:
    """BS actions of a short traced run of ``sc``: counts per trace kind and packet."""
    from tcpair.simulate.result import run

    short = json.loads(json.dumps(sc))
    # hand-offs must end within the run: a scenario with them is probed whole
    seconds = short.get("run", {}).get("duration") if short.get("mobility") else PROBE_SECONDS
    short.setdefault("run", {}).update({"duration": seconds, "warmup": 0.0})
    trace = run(short, trace=True).trace
    if trace.empty:
        return pd.DataFrame(columns=["kind", "packet", "count"])
    bs = trace[trace["kind"].astype(str).str.startswith("bs_")]
    return bs.groupby(["kind", "packet"], sort=True).size().rename("count").reset_index()


def can_trace() -> bool:
    """Whether the core in use records traces (a stand-in core for tests may not)."""
    from tcpair._errors import require_core

    return hasattr(require_core(), "run_traced")


def actions_text(actions: pd.DataFrame) -> str:
    """``caches data, retransmits locally data, ...`` from a probe."""
    if actions.empty:
        return "none seen"
    parts = [
        f"{ACTIONS.get(str(r['kind']), str(r['kind']))} {r['packet']}"
        for _, r in actions.iterrows()
    ]
    return ", ".join(parts)


def semantics_kept(actions: pd.DataFrame) -> bool:
    """False when a BS agent sent an ACK of its own."""
    own = actions[(actions["kind"] == "bs_inject") & (actions["packet"] == "ack")]
    return own.empty


def deployment(runs: pd.DataFrame, order: Sequence[str], *, probes: bool = True) -> pd.DataFrame:
    """One row per ``direction`` and ``name`` (scheme): the changes it needs.

    ``runs`` has the columns ``direction``, ``name``, ``rate`` and ``sc`` (the run's
    scenario); the
    scenario of the run with the highest loss rate is probed (most BS actions)."""
    rows = []
    for (direction, name), g in runs.groupby(["direction", "name"], sort=False):
        sc = g.sort_values("rate", kind="stable").iloc[-1]["sc"]
        agents = bs_agents(sc)
        hosts = host_changes(sc)
        row = {
            "direction": direction,
            "scheme": name,
            "BS change": ", ".join(agents) or "no",
            "FH change": ", ".join(hosts["FH"]) or "no",
            "MH change": ", ".join(hosts["MH"]) or "no",
        }
        if agents and probes and can_trace():
            acts = probe(sc)
            row["end-to-end semantics kept"] = "yes" if semantics_kept(acts) else "no"
            row["BS actions seen"] = actions_text(acts)
        else:
            row["end-to-end semantics kept"] = "yes" if not agents else "not probed"
            row["BS actions seen"] = "no BS agent" if not agents else "not probed"
        rows.append(row)
    return _ordered(pd.DataFrame(rows), order)


def bs_state(kept: pd.DataFrame, runs: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Per part, direction and scheme with a BS agent: packets and bytes held at the BSs
    per connection (mean over each run's time, averaged over runs; peak, the largest
    over runs). The agents of every BS on the path add up."""
    runs = runs.assign(part=runs["part"] if "part" in runs.columns else "")
    with_agent = runs[[bool(bs_agents(sc)) for sc in runs["sc"]]] if len(runs) else runs
    pairs = with_agent[["part", "direction", "name", "scheme"]].drop_duplicates()
    cols = ["pkts_mean", "pkts_peak", "bytes_mean", "bytes_peak"]
    if kept.empty or "flow" not in kept.columns:
        state = pd.DataFrame(columns=["part", "scheme", *cols])
    else:
        per_conn = kept[kept["flow"].astype(str) != "total"].copy()
        per_conn["part"] = per_conn["part"].fillna("") if "part" in per_conn.columns else ""
        for c in cols:
            per_conn[c] = pd.to_numeric(per_conn[c], errors="coerce")
        # several agents at one BS, and several BSs, add up; then one value per run
        per_run = per_conn.groupby(["part", "scheme", "run_key"])[cols].sum().reset_index()
        state = per_run.groupby(["part", "scheme"]).agg(
            pkts_mean=("pkts_mean", "mean"),
            pkts_peak=("pkts_peak", "max"),
            bytes_mean=("bytes_mean", "mean"),
            bytes_peak=("bytes_peak", "max"),
        )
        state = state.reset_index()
    out = pairs.merge(state, on=["part", "scheme"], how="left").fillna({c: 0.0 for c in cols})
    out = out.drop(columns="scheme").rename(
        columns={
            "name": "scheme",
            "pkts_mean": "packets held, mean",
            "pkts_peak": "packets held, peak",
            "bytes_mean": "bytes held, mean",
            "bytes_peak": "bytes held, peak",
        }
    )
    return _ordered(out, order)


def _ordered(df: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    if df.empty:
        return df
    rank = {s: i for i, s in enumerate(order)}
    key = df["scheme"].map(lambda s: rank.get(s, len(rank)))
    first = {d: i for i, d in enumerate(dict.fromkeys(df["direction"]))}
    by = df.assign(_k=key, _d=df["direction"].map(first))
    by = by.sort_values(["_d", "_k"], kind="stable")
    return by.drop(columns=["_k", "_d"]).reset_index(drop=True)


__all__ = [
    "bs_state",
    "deployment",
    "host_changes",
    "mobile_host",
    "mobile_hosts",
    "probe",
    "receiver_changes",
    "semantics_kept",
    "sender_changes",
]
