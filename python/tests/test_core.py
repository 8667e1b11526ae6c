"""End-to-end tests against the compiled core (skipped until it is built).

Issue 2 items 8, 9, 11(a)-(d), 12: the JSON contract, one-line errors for ten
kinds of bad input, determinism (also across processes), conservation of
packets, PFTK validation and full use of the bottleneck without loss.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tcpair._core")

from contract import assert_run_json_contract

import tcpair
from tcpair.base.paths import scenario_path
from tcpair.evidence.models import pftk
from tcpair.simulate.result import to_json
from tcpair.sweeper.backends import make_backend
from tcpair.sweeper.runner import run_task

CLRP = str(scenario_path("clrp_one_link"))
PFTK_CHECK = str(scenario_path("pftk_check"))
SHORT = "run.duration=20"


def _one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


def _conserved(summary: dict) -> None:
    pk = summary["packets"]
    made = pk["sent"] + pk["copies"] + pk.get("injected", 0)
    gone = pk["delivered"] + pk["dropped"] + pk.get("absorbed", 0) + pk["in_flight"]
    assert made == gone, pk


def test_run_json_has_required_keys(cli, tmp_path: Path) -> None:
    code, out, err = cli(
        "run", CLRP, "--json", "--set", SHORT, "--set", "links.wireless.forward.loss.p=0.01"
    )
    assert code == 0, err
    obj = json.loads(out)
    assert_run_json_contract(obj)
    assert obj["events"] > 0 and obj["sim_time_s"] == pytest.approx(20.0, abs=1e-6)
    flow = obj["flows"][0]
    assert flow["name"] == "tcp1" and flow["goodput_kbps"] > 0
    _conserved(obj["summary"])


def _no_wall(obj: dict) -> str:
    """``obj`` as JSON text with the wall-clock times (which differ run to run) zeroed."""
    obj["summary"]["wall_s"] = 0.0
    if "wall_s" in obj:
        obj["wall_s"] = 0.0
    return json.dumps(obj)


def test_run_without_tables_is_the_run_less_its_tables(cli) -> None:
    """`tcpair run` asks the core for the summary and flows alone: the same values,
    keys in the same order, and `--json` prints what the full result's compact form is."""
    from tcpair._errors import require_core

    sc = to_json(tcpair.simulate.result.prepare(CLRP, overrides=[SHORT]))
    full = json.loads(require_core().run(sc))
    only = json.loads(require_core().run_summary(sc))
    assert list(only) == ["flows", "summary"]
    assert _no_wall(only) == _no_wall({"flows": full["flows"], "summary": full["summary"]})
    code, out, err = cli("run", CLRP, "--set", SHORT, "--json")
    assert code == 0, err
    expected = tcpair.run(CLRP, overrides=[SHORT]).compact()
    assert _no_wall(json.loads(out)) == _no_wall(expected)


def test_run_without_tables_keeps_no_rows_and_counts_the_same() -> None:
    """Without tables the drops and recoveries are not even kept while the run goes
    (so `output.max_rows` does not bound it), and the flows' columns, counted from
    the rows in a full run, come out the same."""
    from tcpair._errors import require_core

    lossy = [SHORT, "links.wireless.forward.loss.p=0.05"]
    sc = tcpair.simulate.result.prepare(CLRP, overrides=lossy)
    full = json.loads(require_core().run(to_json(sc)))
    assert len(full["drops"]["seq"]) > 20 and len(full["recoveries"]["seq"]) > 20
    capped = tcpair.simulate.result.prepare(CLRP, overrides=[*lossy, "output.max_rows=10"])
    only = json.loads(require_core().run_summary(to_json(capped)))
    assert _no_wall(only) == _no_wall({"flows": full["flows"], "summary": full["summary"]})


def test_run_out_dir_and_validate(cli, tmp_path: Path) -> None:
    out = tmp_path / "r"
    code, _, err = cli("run", CLRP, "--set", SHORT, "--out", str(out))
    assert code == 0, err
    assert (out / "summary.json").is_file() and (out / "flows.parquet").is_file()
    code, stdout, _ = cli("validate", CLRP)
    assert code == 0 and stdout.startswith("ok: ")


def _with_extra_node(tmp_path: Path, name: str) -> str:
    text = Path(CLRP).read_text() + f'\n[[nodes]]\nname = "{name}"\n'
    f = tmp_path / f"extra_{name}.toml"
    f.write_text(text)
    return str(f)


BAD = [
    ("unknown key", None, ["run.bogus=1"], ["bogus"]),
    ("wrong type", None, ['links.wired.queue="many"'], ["queue"]),
    ("negative bandwidth", None, ["links.wired.bandwidth=-5"], ["bandwidth"]),
    ("probability > 1", None, ["links.wireless.forward.loss.p=1.5"], ["1.5"]),
    ("unknown node", None, ["flows.tcp1.dst=nowhere"], ["nowhere"]),
    ("unroutable flow", "island", ["flows.tcp1.dst=island"], ["island"]),
    ("duration <= 0", None, ["run.duration=0"], ["duration"]),
    ("unknown variant", None, ["flows.tcp1.variant=vegasx"], ["vegasx"]),
    ("unknown error model", None, ["links.wireless.forward.loss.model=bogusmodel"], ["bogusmodel"]),
    ("duplicate node name", "fh", [], ["fh"]),
    (
        "reorder min > max",
        None,
        ["links.wireless.forward.reorder={p=0.05, min=10, max=1}"],
        ["reorder"],
    ),
    ("negative delay", None, ["links.wired.delay=-1"], ["delay"]),
    ("unknown BS agent", None, ['nodes.bs.bs=["snooop"]'], ["nodes.bs.bs[0]", "snooop"]),
    (
        "unknown BS agent parameter",
        None,
        ['nodes.bs.bs=[{agent="snoop", cach=5}]'],
        ["nodes.bs.bs[0]", "cach"],
    ),
    ("BS agent on a node no flow crosses", None, ['nodes.fh.bs=["snoop"]'], ["nodes.fh.bs"]),
    (
        "Syndrome receiver without a Syndrome BS",
        None,
        ["flows.tcp1.sink.syndrome=true"],
        ["flows.tcp1.sink.syndrome"],
    ),
    (
        "CLRP receiver without a CLRP BS",
        None,
        ["flows.tcp1.sink.clrp=true"],
        ["flows.tcp1.sink.clrp"],
    ),
    (
        "CLRP blocks beyond the option",
        None,
        ['nodes.bs.bs=["clrp"]', "flows.tcp1.sink.clrp=true", "flows.tcp1.sink.clrp_max_blocks=12"],
        ["flows.tcp1.sink.clrp_max_blocks", "12"],
    ),
    (
        "CLRP BS threshold out of range",
        None,
        ['nodes.bs.bs=[{agent="clrp", rxmit_threshold=0}]'],
        ["nodes.bs.bs[0].rxmit_threshold", "0"],
    ),
    ("unknown TCP variant", None, ["flows.tcp1.variant=cubic"], ["flows.tcp1.variant", "cubic"]),
    (
        "unknown loss detector",
        None,
        ["flows.tcp1.tcp.detector=psychic"],
        ["flows.tcp1.tcp.detector", "psychic", "oracle"],
    ),
    (
        "unknown responder",
        None,
        ["flows.tcp1.tcp.responder=18"],
        ["flows.tcp1.tcp.responder", "18"],
    ),
    (
        "congestion op parameter out of range",
        None,
        ['flows.tcp1.tcp.congestion={name="veno", beta=-1}'],
        ["flows.tcp1.tcp.congestion.beta", "-1"],
    ),
    (
        "detector parameter out of range",
        None,
        ['flows.tcp1.tcp.detector={name="pr", min_small_rtts=0}'],
        ["flows.tcp1.tcp.detector.min_small_rtts", "0"],
    ),
    (
        "detector parameter of the wrong type",
        None,
        ['flows.tcp1.tcp.detector={name="lda_eq", threshold="half"}'],
        ["flows.tcp1.tcp.detector.threshold", "half"],
    ),
    (
        "unknown detector parameter",
        None,
        ['flows.tcp1.tcp.detector={name="spike", gamma=0.1}'],
        ["flows.tcp1.tcp.detector", "gamma"],
    ),
    (
        "ELN alias against another detector",
        None,
        ["flows.tcp1.tcp.eln=true", "flows.tcp1.tcp.detector=oracle"],
        ["flows.tcp1.tcp.eln", "oracle"],
    ),
]


@pytest.mark.parametrize(
    ("kind", "extra_node", "overrides", "needles"), BAD, ids=[b[0] for b in BAD]
)
def test_bad_scenario_one_line_exit_2(
    cli, tmp_path: Path, kind: str, extra_node: str | None, overrides: list[str], needles: list[str]
) -> None:
    file = _with_extra_node(tmp_path, extra_node) if extra_node else CLRP
    sets = [a for o in overrides for a in ("--set", o)]
    out = tmp_path / "out"
    for cmd in (["run", file, *sets, "--out", str(out), "--json"], ["validate", file, *sets]):
        code, stdout, err = cli(*cmd)
        assert code == 2, (kind, stdout, err)
        line = _one_error_line(err)
        for n in needles:
            assert n in line, (kind, line)
        assert stdout == ""
        assert not out.exists()


def test_event_budget_is_a_clear_error(cli) -> None:
    code, _, err = cli("run", CLRP, "--set", "run.event_budget=1000")
    assert code == 2
    assert "event_budget" in _one_error_line(err)
    with pytest.raises(tcpair.SimulationError):
        tcpair.run(CLRP, overrides=["run.event_budget=1000"])
    with pytest.raises(tcpair.ScenarioError):
        tcpair.run(CLRP, overrides=["run.duration=-1"])


def _strip_wall(res: dict) -> dict:
    res = json.loads(json.dumps(res))
    res["summary"].pop("wall_s", None)
    return res


def run_many(scenarios: list[dict], jobs: int) -> list[dict]:
    """Run scenarios on a backend; results back in input order."""
    out: list[dict] = [{}] * len(scenarios)
    with make_backend(jobs=jobs) as backend:
        for i, res in backend.map_unordered(run_task, [(to_json(s), ()) for s in scenarios]):
            assert res["status"] == "ok", res
            out[i] = res
    return out


def test_determinism_same_seed() -> None:
    a = tcpair.run(CLRP, overrides=[SHORT, "links.wireless.forward.loss.p=0.02"], seed=7)
    b = tcpair.run(CLRP, overrides=[SHORT, "links.wireless.forward.loss.p=0.02"], seed=7)
    assert _strip_wall(a.raw) == _strip_wall(b.raw)
    c = tcpair.run(CLRP, overrides=[SHORT, "links.wireless.forward.loss.p=0.02"], seed=8)
    assert _strip_wall(a.raw) != _strip_wall(c.raw)
    _conserved(a.summary)


def test_determinism_in_parallel() -> None:
    base = tcpair.load_scenario(CLRP)
    scenarios = [
        tcpair.apply_overrides(base, [SHORT, f"links.wireless.forward.loss.p={p}"], seed=s)
        for s in (1, 2, 3)
        for p in (0.01, 0.05)
    ]
    serial = run_many(scenarios * 2, jobs=1)
    parallel = run_many(scenarios * 2, jobs=4)
    for x, y in zip(serial, parallel, strict=True):
        assert _strip_wall(x) == _strip_wall(y)
    n = len(scenarios)
    for i in range(n):
        assert _strip_wall(parallel[i]) == _strip_wall(parallel[i + n])


@pytest.mark.parametrize("p", [0.005, 0.01, 0.02, 0.05])
def test_reno_matches_pftk(p: float) -> None:
    """Issue 2, 11(a): b = 1, the run's mean RTT and mean RTO at timeouts."""
    base = tcpair.load_scenario(PFTK_CHECK)
    scenarios = [
        tcpair.apply_overrides(
            base,
            [f'links.lossy.forward.loss={{model="uniform", p={p}}}', "flows.tcp1.variant=reno"],
            seed=s,
        )
        for s in (1, 2, 3)
    ]
    results = run_many(scenarios, jobs=3)
    flows = [r["flows"][0] for r in results]
    goodput = np.mean([f["goodput_kbps"] for f in flows])
    rtt = np.mean([f["mean_rtt_s"] for f in flows])
    t0s = [f.get("mean_timeout_rto_s") or f["mean_rto_s"] for f in flows]
    t0 = float(np.mean(t0s))
    size = flows[0]["packet_size"]
    window = base["flows"][0]["window"]
    model = pftk(p, rtt, t0, wmax=window, b=1) * size * 8 / 1000
    assert goodput == pytest.approx(model, rel=0.25), (p, goodput, model, rtt, t0)
    for r in results:
        _conserved(r["summary"])


def test_no_loss_fills_the_bottleneck() -> None:
    """Issue 2, 11(b): window 30 covers the BDP, so goodput ~ 2 Mb/s."""
    r = tcpair.run(CLRP, overrides=['links.wireless.forward.loss={model="uniform", p=0.0}'])
    goodput = r.flows.loc[0, "goodput_kbps"]
    assert goodput == pytest.approx(2000.0, rel=0.02)
    assert r.flows.loc[0, "timeouts"] == 0
    _conserved(r.summary)


def test_reproduce_baseline_quick(cli, tmp_path: Path) -> None:
    out = tmp_path / "tmp"
    code, stdout, err = cli("reproduce", "baseline", "--quick", "--out", str(out))
    assert code == 0, err
    assert (out / "index.html").is_file()
    page = out / "baseline" / "report" / "index.html"
    assert page.is_file()
    assert (out / "baseline" / "report" / "goodput_vs_loss.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "baseline" / "runs.parquet").is_file()
    assert "PFTK" in page.read_text()
    assert "baseline" in stdout


def test_catalog_and_list(cli) -> None:
    cat = tcpair.catalog()
    assert {"tahoe", "reno", "newreno", "sack", "veno", "westwood+"} <= {
        v["name"] for v in cat["variants"]
    }
    assert {"none", "eln", "oracle", "always_wireless"} <= {d["name"] for d in cat["detectors"]}
    responders = [r["name"] for r in cat["responders"]]
    assert responders == ["0", "1", *map(str, range(11, 18)), *map(str, range(21, 28)), "adaptive"]
    assert all(e["source"] for k in ("variants", "detectors", "responders") for e in cat[k])
    names = {m["name"] for m in cat["error_models"]}
    assert {"uniform", "ber", "expo", "markov2", "markov2_time"} <= names
    code, out, _ = cli("list")
    assert code == 0 and "baseline" in out and "uniform" in out
    assert "Park et al. 2010, Table 1" in out and "always_wireless" in out


def test_list_names_the_link_and_medium_kinds(cli) -> None:
    """The 802.11b medium can be found from `tcpair list`, as every other kind."""
    cat = tcpair.catalog()
    assert [k["name"] for k in cat["link_kinds"]] == ["wired", "wireless"]
    assert [k["name"] for k in cat["medium_kinds"]] == ["wifi"]
    assert all(e["summary"] and e["source"] for k in ("link_kinds", "medium_kinds") for e in cat[k])
    code, out, _ = cli("list")
    assert code == 0
    lines = out.splitlines()
    assert "link kinds (links.X.kind):" in lines and "medium kinds (media.X.kind):" in lines
    wifi = next(ln for ln in lines if ln.startswith("  wifi: "))
    assert "802.11b DCF" in wifi and "(IEEE 802.11-1999" in wifi
    assert any(ln.startswith("  wireless: point-to-point link") for ln in lines)
    code, out, _ = cli("list", "--json")
    listed = json.loads(out)
    assert code == 0 and listed["medium_kinds"] == cat["medium_kinds"]
    assert listed["link_kinds"] == cat["link_kinds"]


SCHEMES = {
    "snoop": ['nodes.bs.bs=["snoop"]'],
    "eln_snoop": ['nodes.bs.bs=["eln_snoop"]', "flows.tcp1.tcp.eln=true"],
    "syndrome": [
        'nodes.bs.bs=["syndrome"]',
        "flows.tcp1.tcp.eln=true",
        "flows.tcp1.sink.syndrome=true",
    ],
    "clrp": ['nodes.bs.bs=["clrp"]', "flows.tcp1.sink.clrp=true"],
}


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_bs_schemes_from_cli_and_api(cli, tmp_path: Path, scheme: str) -> None:
    """Each BS scheme runs from the CLI and the API and reports its state."""
    sets = ["links.wireless.forward.loss.p=0.03", SHORT, *SCHEMES[scheme]]
    out = tmp_path / "out"
    args = [a for o in sets for a in ("--set", o)]
    code, stdout, err = cli("run", CLRP, *args, "--out", str(out), "--json")
    assert code == 0, err
    summary = json.loads(stdout)["summary"]
    _conserved(summary)
    assert (out / "bs_state.parquet").is_file()
    res = tcpair.run(CLRP, overrides=sets)
    state = res.bs_state
    assert set(state["flow"]) == {"tcp1", "total"}
    assert (state["agent"] == scheme).all()
    counters = res.bs_counters
    assert len(counters) > 0 and (counters["value"] >= 0).all()
    flow = res.flows.iloc[0]
    if scheme in ("snoop", "clrp"):
        assert flow["bs_retransmits"] > 0 and state["pkts_peak"].max() > 0
    else:
        assert flow["eln_retransmits"] > 0 and state["pkts_peak"].max() == 0


ACCURACY = (
    "frs_wireless_true",
    "frs_wireless_said_wireless",
    "frs_congestion_true",
    "frs_congestion_said_congestion",
    "frs_spurious",
    "frs_mixed",
    "acc_w",
    "acc_c",
    "acc_t",
)


def test_detector_accuracy_in_flows_and_table(cli) -> None:
    """A run with a detector: the accuracy columns in r.flows, counted from the
    recoveries table's true_category and verdict; the CLI table shows them."""
    sets = [
        "links.wireless.forward.loss.p=0.01",
        "links.wireless.queue=10",
        "flows.tcp1.window=40",
        SHORT,
        'flows.tcp1.tcp.detector={name="lda_eq", threshold=0.5}',
    ]
    res = tcpair.run(CLRP, overrides=sets)
    flow = res.flows.iloc[0]
    for col in ACCURACY:
        assert col in res.flows.columns, col
    rec = res.recoveries
    frs = rec[rec["event"] == "fast_retransmit"]
    wireless = frs[frs["true_category"] == "wireless"]
    congestion = frs[frs["true_category"] == "congestion"]
    assert flow["frs_wireless_true"] == len(wireless) > 0
    assert flow["frs_congestion_true"] == len(congestion) > 0
    said_w = int((wireless["verdict"] == "wireless").sum())
    assert flow["frs_wireless_said_wireless"] == said_w
    assert flow["acc_w"] == pytest.approx(said_w / len(wireless))
    assert flow["acc_t"] == pytest.approx((flow["acc_w"] + flow["acc_c"]) / 2)
    assert res.summary["acc_t"] == pytest.approx(flow["acc_t"])
    args = [a for o in sets for a in ("--set", o)]
    code, stdout, err = cli("run", CLRP, *args)
    assert code == 0, err
    assert "A_w" in stdout and "A_t" in stdout


def test_sender_parts_from_cli_and_api(cli, tmp_path: Path) -> None:
    """A congestion op, a detector and a responder chosen by name: the flow row
    names them, and the recoveries table holds each decision beside the truth."""
    sets = [
        "links.wireless.forward.loss.p=0.02",
        SHORT,
        "flows.tcp1.variant=westwood+",
        "flows.tcp1.tcp.detector=oracle",
        "flows.tcp1.tcp.responder=21",
    ]
    args = [a for o in sets for a in ("--set", o)]
    code, stdout, err = cli("run", CLRP, *args, "--json")
    assert code == 0, err
    flow = json.loads(stdout)["flows"][0]
    parts = (flow["congestion"], flow["detector"], flow["responder"])
    assert parts == ("westwood+", "oracle", "21")
    res = tcpair.run(CLRP, overrides=sets)
    rec = res.recoveries
    frs = rec[rec["event"] == "fast_retransmit"]
    assert len(frs) > 5
    # Every loss is wireless here: the oracle says so, and responder 21 sets
    # cwnd = ssthresh = 1 segment.
    assert (frs["verdict"] == "wireless").all()
    assert set(frs["true_verdict"]) <= {"wireless", ""}
    assert (frs["cwnd_after"] == 1.0).all() and (frs["ssthresh_after"] == 1.0).all()
    assert res.flows.iloc[0]["wireless_frs"] == len(frs)


def test_wifi_mac_counters_from_cli_and_sweep(cli, tmp_path: Path) -> None:
    """A run over the 802.11 chain shows the MAC's counters (a line in ``tcpair run``,
    ``summary.mac`` in the API, ``run_mac_*`` columns in a sweep); a wired run none."""
    wifi = str(scenario_path("wifi_chain"))
    code, out, err = cli(
        "run", wifi, "--set", "run.duration=10", "--set", "flows.tcp1.tcp.respond_per=window"
    )
    assert code == 0, err
    assert "802.11 MAC after the warm-up: data frames" in out
    r = tcpair.run(wifi, overrides=["run.duration=10"])
    mac = r.summary["mac"]
    assert mac["data_frames"] > mac["retries"] > 0 and mac["collisions"] > 0
    assert "mac" not in tcpair.run(CLRP, overrides=[SHORT]).summary
    sweep = {
        "name": "mac",
        "scenario": wifi,
        "seeds": 1,
        "set": {"run.duration": 10.0},
        "axis": [{"name": "window", "param": "flows.tcp1.window", "values": [2, 8]}],
    }
    res = tcpair.sweep(sweep, tmp_path / "s", jobs=1, progress=False)
    assert (res.runs["run_mac_data_frames"] > 0).all()
