"""``tcpair list``, ``tcpair report`` and ``tcpair pcap-dissector``: imported when
named (see :data:`tcpair.cli.main.LAZY_COMMANDS`), so ``tcpair run`` does not build them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from tcpair._errors import CoreMissingError, ScenarioError, require_core
from tcpair.cli.common import _stdout

# What `tcpair list` shows, in order: (catalog key, heading). Every entry
# comes from the core's registries (name, summary and source).
CATALOG_SECTIONS = (
    ("variants", "TCP variants (flows.X.variant)"),
    ("congestion_ops", "congestion ops (flows.X.tcp.congestion)"),
    ("detectors", "loss detectors (flows.X.tcp.detector)"),
    ("responders", "responders (flows.X.tcp.responder)"),
    ("error_models", "error models (links.X.forward.loss.model)"),
    ("impairments", "impairments"),
    ("bs_agents", "BS agents (nodes.X.bs)"),
    ("link_kinds", "link kinds (links.X.kind)"),
    ("medium_kinds", "medium kinds (media.X.kind)"),
)


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_cmd(as_json: bool) -> None:
    """Name every TCP variant, congestion op, detector, responder, error model, BS agent,
    impairment, link kind, medium kind, sweep and target."""
    try:
        cat: dict[str, Any] = json.loads(require_core().catalog())
    except CoreMissingError as exc:
        cat = {name: [] for name, _ in CATALOG_SECTIONS} | {"note": str(exc)}
    sweeps = _shipped_sweeps()
    if as_json:
        targets = [n for n, v in sweeps.items() if v.get("target")]
        click.echo(json.dumps({**cat, "sweeps": sweeps, "reproduce_targets": targets}))
        return
    _print_catalog(cat)
    _print_sweeps(sweeps)


def _shipped_sweeps() -> dict[str, dict[str, Any]]:
    """Each shipped sweep's size and title, or the error that keeps it from loading."""
    from tcpair.base.paths import shipped_sweeps
    from tcpair.sweeper.definition import load_sweep

    sweeps: dict[str, dict[str, Any]] = {}
    for name, path in shipped_sweeps().items():
        try:
            spec = load_sweep(path)
        except ScenarioError as exc:  # one broken file must not hide the others
            sweeps[name] = {"path": str(path), "error": str(exc)}
            continue
        points, seeds, runs = spec.count()
        sweeps[name] = {
            "path": str(path),
            "title": spec.target.title if spec.target else spec.title,
            "target": spec.target is not None,
            "points": points,
            "seeds": seeds,
            "runs": runs,
            "quick_runs": spec.count(quick=True)[2],
        }
    return sweeps


def _print_catalog(cat: dict[str, Any]) -> None:
    """The core's registries, a section each: names, summaries and sources."""
    from rich.markup import escape

    con = _stdout()
    if "note" in cat:
        con.print(f"[yellow]note:[/yellow] {cat['note']}")
    for key, title in CATALOG_SECTIONS:
        entries = cat.get(key, [])
        if entries and isinstance(entries[0], str):  # plain names
            con.print(f"[bold]{title}[/bold]: " + ", ".join(entries))
            continue
        con.print(f"[bold]{title}[/bold]:")
        for e in entries:
            source = f" [dim]({escape(e['source'])})[/dim]" if e.get("source") else ""
            con.print(f"  {escape(str(e.get('name')))}: {escape(e.get('summary', ''))}{source}")


def _print_sweeps(sweeps: dict[str, dict[str, Any]]) -> None:
    """The shipped sweeps as a table; a sweep that did not load shows its error."""
    from rich.table import Table

    table = Table(title="sweeps (sweeps/*.toml); targets run with `tcpair reproduce NAME`")
    for col in ("sweep", "target", "points", "seeds", "runs", "quick runs", "what"):
        table.add_column(col, justify="right" if col in ("points", "seeds", "runs") else "left")
    for name, v in sweeps.items():
        if "error" in v:
            table.add_row(name, "", "", "", "", "", f"[red]{v['error']}")
            continue
        table.add_row(
            name,
            "yes" if v["target"] else "",
            str(v["points"]),
            str(v["seeds"]),
            str(v["runs"]),
            str(v["quick_runs"]),
            v["title"] or "",
        )
    _stdout().print(table)


@click.command("report")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def report_cmd(directory: Path) -> None:
    """Build the HTML report of DIRECTORY (one results store, or a folder of them)."""
    from tcpair.reporting.site import build_site

    built = build_site(directory)
    con = _stdout()
    for name, verdicts in built.items():
        con.print(f"[bold]{name}[/bold]")
        for v in verdicts:
            con.print(f"  {v}")
    index = directory / "index.html"
    con.print(f"report: {index if index.is_file() else directory / 'report' / 'index.html'}")


@click.command("pcap-dissector")
def pcap_dissector_cmd() -> None:
    """Print the path of the Wireshark Lua dissector for tcpair's TCP option.

    Use it as `tshark -X lua_script:PATH -r FILE.pcap` or copy it into
    Wireshark's personal plugins folder.
    """
    from tcpair.base.paths import dissector_path

    click.echo(str(dissector_path()))
