"""Many flows through one base station, as a scenario: N concurrent bulk TCP flows,
each from its own wired sender (10 Mb/s) through one base station to its own mobile
host over a 2 Mb/s wireless hop with uniform or bursty loss; the wired delays spread
the base round trips evenly over 20-200 ms so the flows are not in phase."""

from __future__ import annotations

from typing import Any

from tcpair._errors import ScenarioError

RTT_MIN_S = 0.020
RTT_MAX_S = 0.200
SCHEMES = ("reno", "snoop", "snoop_ns2", "eln_snoop", "syndrome", "clrp")
LOSS_MODELS = ("uniform", "bursty")


def flows_scenario(
    n: int,
    scheme: str = "reno",
    *,
    duration: float = 60.0,
    loss: float = 0.01,
    loss_model: str = "uniform",
    seed: int = 1,
    tables: bool = True,
) -> dict[str, Any]:
    """N flows s_i -> bs -> m_i; ``scheme`` is ``reno`` (no BS agent) or a BS agent's name.

    Flow i's wired one-way delay is chosen so that its base RTT is
    ``20 ms + 180 ms * i / max(n - 1, 1)``; windows are 30 packets of 1000 bytes.
    With ``tables=False`` the run keeps neither the ``drops`` nor the
    ``recoveries`` table (``output.drops`` and ``output.recoveries`` false: a
    row per lost packet and per recovery, about 1.5 GB at 10,000 flows and 60 s).

    ``loss_model`` is ``uniform`` (each packet lost with probability ``loss``) or
    ``bursty``: the two-state ``markov2`` model of the compare-all study
    (docs/compare.md), Bad lasting 2 packets on average with half of them lost,
    Good lossless, entered with ``p_good_to_bad = loss / (1 - 2 loss)`` so that the
    mean loss rate is ``loss``.
    """
    if not isinstance(n, int) or n < 1:
        raise ScenarioError(f"flows: a positive number of flows is needed, got {n!r}")
    if scheme not in SCHEMES:
        raise ScenarioError(f"scheme: {scheme!r} is not one of {', '.join(SCHEMES)}")
    wireless_loss = _loss(loss_model, loss)
    bs_agents = [] if scheme == "reno" else [scheme]
    nodes: list[dict[str, Any]] = [{"name": "bs", "kind": "router", "bs": bs_agents}]
    links: list[dict[str, Any]] = []
    flows: list[dict[str, Any]] = []
    for i in range(n):
        rtt = RTT_MIN_S + (RTT_MAX_S - RTT_MIN_S) * i / max(n - 1, 1)
        nodes += [{"name": f"s{i}"}, {"name": f"m{i}"}]
        links.append(_link(f"w{i}", f"s{i}", "bs", "10Mb", rtt / 2, "wired", None))
        links.append(_link(f"r{i}", "bs", f"m{i}", "2Mb", 64e-6, "wireless", wireless_loss))
        flow: dict[str, Any] = {
            "name": f"f{i}", "src": f"s{i}", "dst": f"m{i}", "variant": "reno",
            "packet_size": 1000, "window": 30,
        }
        if scheme == "eln_snoop":
            flow["tcp"] = {"detector": "eln"}
        elif scheme == "syndrome":
            flow["tcp"] = {"eln": True}
            flow["sink"] = {"syndrome": True}
        elif scheme == "clrp":
            flow["sink"] = {"clrp": True}
        flows.append(flow)
    return {
        "description": f"{n} Reno flows through one base station ({scheme}), mixed RTTs, "
        f"{loss_model} loss {loss:g}",
        "run": {"duration": float(duration), "seed": int(seed)},
        "output": {"drops": bool(tables), "recoveries": bool(tables)},
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }


def _loss(model: str, p: float) -> dict[str, Any]:
    """The wireless hop's error model at mean loss rate ``p``."""
    if model not in LOSS_MODELS:
        raise ScenarioError(f"loss_model: {model!r} is not one of {', '.join(LOSS_MODELS)}")
    top = 0.5 if model == "bursty" else 1.0  # bursty: half of the Bad state's packets
    if not 0.0 <= float(p) < top and not (model == "uniform" and float(p) == 1.0):
        raise ScenarioError(f"loss: a rate from 0 to below {top:g} is needed, got {p!r}")
    if model == "uniform":
        return {"model": "uniform", "p": float(p)}
    # Stationary loss p_gb / (p_gb + p_bg) * loss_bad = p with p_bg = loss_bad = 0.5.
    return {
        "model": "markov2", "p_good_to_bad": float(p) / (1.0 - 2.0 * float(p)),
        "p_bad_to_good": 0.5, "loss_good": 0.0, "loss_bad": 0.5,
    }


def _link(
    name: str, a: str, b: str, bw: str, delay_s: float, kind: str, loss: dict[str, Any] | None
) -> dict[str, Any]:
    link: dict[str, Any] = {
        "name": name, "from": a, "to": b, "bandwidth": bw, "delay": delay_s,
        "queue": 50, "kind": kind,
    }
    if loss is not None:
        link["forward"] = {"loss": loss}
    return link


__all__ = ["LOSS_MODELS", "RTT_MAX_S", "RTT_MIN_S", "SCHEMES", "flows_scenario"]
