"""What ``tcpair run FILE`` and ``tcpair validate FILE`` import at start-up: only
what they use (docs/performance.md, "Against ns-2.35").

Each command runs in a fresh interpreter. Modules already imported before tcpair
starts (the interpreter's own, a site hook's) and those of click, json, pathlib
and tomllib (which the path needs in any case; click itself imports inspect,
enum, typing, ...) are not counted: what is left is what tcpair chose to import.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tcpair

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"

SCRIPT = """
import sys
start = set(sys.modules)
import click, json, pathlib, tomllib
needed = set(sys.modules)
from tcpair.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
with open(sys.argv[1], "w") as fh:
    fh.write("\\n".join(sorted(set(sys.modules) - needed)))
sys.exit(code)
"""

#: tcpair's modules on the path of `tcpair run FILE --json` (and `validate`).
RUN_PATH = {
    "tcpair",
    "tcpair._core",
    "tcpair._errors",
    "tcpair._moved",
    "tcpair.base",
    "tcpair.base.plugin_dirs",
    "tcpair.cli",
    "tcpair.simulate",
    "tcpair.cli.main",
    "tcpair.cli.common",
    "tcpair.base.plain",
    "tcpair.simulate.binding",
    "tcpair.simulate.scenario",
}

#: Never imported by a run: tables, plots, sweeps.
HEAVY = {"pandas", "numpy", "pyarrow", "matplotlib", "dask", "distributed", "cloudpickle"}

#: Nor, for --json or validate, by tcpair: the version, results, saving, tracing, seeds.
NEVER = HEAVY | {
    "importlib.metadata",
    "dataclasses",
    "copy",
    "hashlib",
    "traceback",
    "shutil",
    "tempfile",
    "numbers",
    "zipfile",
    "subprocess",
    "multiprocessing",
    "concurrent.futures",
}


def _tiny(tmp_path: Path) -> Path:
    """The shipped one-link scenario, 1 ms long: start-up is all there is."""
    text = (SCENARIOS / "clrp_one_link.toml").read_text()
    path = tmp_path / "tiny.toml"
    path.write_text(re.sub(r"(?m)^duration = .*$", "duration = 0.001", text, count=1))
    return path


def _imported(tmp_path: Path, *args: str) -> set[str]:
    """The modules ``tcpair ARGS`` imports beyond those counted out (see above)."""
    listing = tmp_path / "modules.txt"
    package_root = str(Path(tcpair.__file__).resolve().parents[1])
    path = [package_root, *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(listing), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return set(listing.read_text().split())


def _ours(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "tcpair" or m.startswith("tcpair.")}


def _top(modules: set[str]) -> set[str]:
    return modules | {m.split(".")[0] for m in modules}


@pytest.mark.parametrize("command", ["run", "validate"])
def test_run_and_validate_json_import_only_what_they_use(tmp_path: Path, command: str) -> None:
    modules = _imported(tmp_path, command, str(_tiny(tmp_path)), "--json")
    assert _ours(modules) <= RUN_PATH, sorted(_ours(modules) - RUN_PATH)
    assert not _top(modules) & (NEVER | {"rich"}), sorted(_top(modules) & (NEVER | {"rich"}))


def test_run_table_imports_rich_and_nothing_of_the_api(tmp_path: Path) -> None:
    # rich itself imports dataclasses, copy and numbers: only the heavy ones are checked.
    modules = _imported(tmp_path, "run", str(_tiny(tmp_path)))
    assert "rich.table" in modules
    assert _ours(modules) <= RUN_PATH | {"tcpair.cli.runview"}, sorted(_ours(modules) - RUN_PATH)
    assert not _top(modules) & HEAVY, sorted(_top(modules) & HEAVY)


def test_a_python_part_imports_tcpair_plugins_when_the_core_loads_it(tmp_path: Path) -> None:
    detector = 'flows.tcp1.tcp.detector={python = "tcpair.examples.lda:LdaEq"}'
    modules = _imported(tmp_path, "run", str(_tiny(tmp_path)), "--set", detector, "--json")
    assert {"tcpair.simulate.plugins", "tcpair.examples.lda"} <= modules
    assert not _top(modules) & {"pandas", "rich", "hashlib"}
