"""What a detector or responder written in Python costs per decision.

``scenarios/lda_mixed.toml`` (one NewReno flow over a path with both kinds of
loss) run with the built-in part and with its Python twin from
``tcpair.examples.lda``, alternately, REPEAT times each; the best CPU time of
each is kept (CPU time, not wall time: the machine may be shared). The decisions
are counted by a run of the twin whose calls are counted (the runs are
deterministic: the twin's decisions are the same in every run, and the same as
the built-in's, which is checked). The cost per call is
(twin's time - built-in's time) / calls. Usage::

    python3 benches/python_plugins.py [--duration S] [--repeat N] [--loss P]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import tcpair
from tcpair.examples import lda

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "lda_mixed.toml"
CASES = {
    "detector lda_eq": (
        {"detector": "lda_eq", "responder": 1},
        {"detector": {"python": "tcpair.examples.lda:LdaEq"}, "responder": 1},
        "classify",
    ),
    "responder 1": (
        {"detector": "lda_eq", "responder": 1},
        {"detector": "lda_eq", "responder": {"python": "tcpair.examples.lda:Restore"}},
        "respond",
    ),
}
CALLS = {"classify": 0, "respond": 0}


class CountedLdaEq(lda.LdaEq):
    def classify(self, ctx: Any) -> str:
        CALLS["classify"] += 1
        return super().classify(ctx)


class CountedRestore(lda.Restore):
    def respond(self, ctx: Any) -> tuple[float, float]:
        CALLS["respond"] += 1
        return super().respond(ctx)


def run(tcp: dict[str, Any], a: argparse.Namespace) -> tuple[float, tcpair.Result]:
    over = {
        "flows.tcp1.tcp": tcp,
        "run.duration": a.duration,
        "links.wireless.forward.loss.p": a.loss,
    }
    t = time.process_time()
    r = tcpair.run(SCENARIO, overrides=over)
    return time.process_time() - t, r


def counted(tcp: dict[str, Any]) -> dict[str, Any]:
    out = dict(tcp)
    for key, name in (("detector", "CountedLdaEq"), ("responder", "CountedRestore")):
        if isinstance(out[key], dict):
            out[key] = {"python": f"__main__:{name}"}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=3000.0, help="simulated seconds")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--loss", type=float, default=0.01, help="wireless loss rate")
    a = ap.parse_args()
    print(f"lda_mixed, {a.duration:g} s simulated, p = {a.loss}, best of {a.repeat}")
    for label, (built_in, twin, method) in CASES.items():
        CALLS[method] = 0
        _, ref = run(counted(twin), a)
        calls = CALLS[method]
        best = {"built-in": float("inf"), "python": float("inf")}
        for _ in range(a.repeat):
            for which, tcp in (("built-in", built_in), ("python", twin)):
                wall, r = run(tcp, a)
                best[which] = min(best[which], wall)
                assert r.recoveries.equals(ref.recoveries), f"{which}: decisions differ"
        frs = int(ref.flows.iloc[0]["fast_retransmits"])
        per = (best["python"] - best["built-in"]) / calls * 1e6
        print(
            f"{label}: {calls} calls ({frs} fast retransmits); "
            f"built-in {best['built-in'] * 1e3:.1f} ms, python {best['python'] * 1e3:.1f} ms: "
            f"{per:.2f} us per call"
        )


if __name__ == "__main__":
    main()
