"""``tcpair.plot`` / ``tcpair plot`` and the generic report page built on them."""

from __future__ import annotations

from pathlib import Path

import pytest

import tcpair
from tcpair import ScenarioError
from tcpair.reporting.metrics import label
from tcpair.reporting.site import build_report

REPO = Path(__file__).resolve().parents[2]
CLRP = str(REPO / "scenarios" / "clrp_one_link.toml")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user sweep (no target): p x variant x buffer, time series kept."""
    out = tmp_path_factory.mktemp("plot") / "grid"
    tcpair.sweep(
        {
            "name": "grid",
            "scenario": CLRP,
            "seeds": 2,
            "keep": ["timeseries"],
            "set": {"run.duration": 3.0, "output.timeseries": True, "output.interval": 0.5},
            "axis": [
                {"name": "p", "param": "links.wireless.forward.loss.p", "values": [0.0, 0.02]},
                {"name": "variant", "param": "flows.tcp1.variant", "values": ["reno", "sack"]},
                {
                    "name": "buffer",
                    "labels": [5, 10, 50],
                    "params": {"links.wireless.forward.queue": [5, 10, 50]},
                },
            ],
        },
        out,
        jobs=1,
        progress=False,
    )
    return out


def _panels(fig) -> int:  # type: ignore[no-untyped-def]
    return sum(ax.get_visible() for ax in fig.axes)


def test_facet_and_hue_make_one_panel_per_value(store: Path, tmp_path: Path) -> None:
    fig = tcpair.plot(store, x="p", y="goodput_kbps", facet="variant", hue="buffer")
    assert _panels(fig) == 2
    fig = tcpair.plot(store, x="p", facet="variant,buffer")
    assert _panels(fig) == 6
    fig = tcpair.plot(store, x="variant", hue="buffer", facet="p", out=tmp_path / "v.svg")
    assert _panels(fig) == 2 and (tmp_path / "v.svg").read_text().lstrip().startswith("<?xml")
    ax = fig.axes[0]
    assert not any(line.get_linestyle() not in ("None", "none", "") for line in ax.lines), (
        "a categorical x axis gets points and error bars, no connecting line"
    )


def test_default_layout_facets_many_series(store: Path) -> None:
    fig = tcpair.plot(store)  # x = p; variant x buffer = 6 series: facet by variant
    assert _panels(fig) == 2
    assert fig.legends, "the legend sits outside the panels"
    assert label("goodput_kbps") == "goodput (kb/s)"
    assert fig.texts or any(ax.get_ylabel() == "goodput (kb/s)" for ax in fig.axes)


def test_time_series_median_and_band(store: Path) -> None:
    fig = tcpair.plot(store, x="time_s", y="cwnd", facet="variant", hue="p,buffer")
    assert _panels(fig) == 2


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"x": "loss"}, "x: unknown field 'loss' (known: p, variant, buffer)"),
        ({"facet": "nope"}, "facet: unknown field 'nope'"),
        ({"y": "goodput"}, "y: unknown metric 'goodput'"),
        ({"x": "p", "hue": "p"}, "hue: 'p' is already the x field"),
    ],
)
def test_bad_names_raise_one_line(store: Path, options: dict, needle: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        tcpair.plot(store, **options)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_plot_cli(cli, store: Path, tmp_path: Path) -> None:
    out = tmp_path / "fig.png"
    args = ["--x", "p", "--y", "goodput_kbps", "--facet", "variant", "--hue", "buffer"]
    code, stdout, err = cli("plot", str(store), *args, "--out", str(out))
    assert code == 0, err
    assert out.read_bytes()[:4] == b"\x89PNG" and str(out) in stdout
    code, stdout, err = cli("plot", str(store), "--x", "bs", "--out", str(tmp_path / "x.png"))
    assert code == 2 and stdout == ""
    lines = err.strip().splitlines()
    assert lines == ["error: x: unknown field 'bs' (known: p, variant, buffer)"]
    assert not (tmp_path / "x.png").exists()
    code, _, err = cli("plot", str(tmp_path / "missing"))
    assert code == 2 and "missing" in err


def test_generic_page_folds_table_and_plots_series(store: Path) -> None:
    build_report(store)
    page = (store / "report" / "index.html").read_text()
    assert "<details><summary>Per-point table" in page
    assert 'src="goodput_kbps.png"' in page and 'src="series_cwnd.png"' in page
    assert "median over seeds" in page
    assert "goodput (kb/s)" in page
    assert "reproduces" not in page and "The paper" not in page
