"""The docs match the code: every command and snippet in README.md and docs/ runs.

Each Markdown file's fenced blocks are run in document order in one scratch
directory (where ``scenarios/`` and ``sweeps/`` are the repository's), so a
later block may use what an earlier one wrote, as a reader following the page
would:

- ``python`` blocks run in one namespace per file;
- ``bash``/``sh`` blocks run line by line (``tcpair`` as ``python3 -m tcpair``);
  a line must exit 0;
- ``toml`` blocks must parse; a block that is a whole scenario must validate.

A block the machine cannot run as written (installing the package, the test
suite itself, a library we do not depend on) is preceded by an HTML comment
``<!-- docs-test: skip: <reason> -->``; a fence without a language is prose
(a directory tree, an output sample) and is not run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

import tcpair

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SKIP = re.compile(r"<!--\s*docs-test:\s*skip:\s*(.+?)\s*-->")
FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass
class Block:
    lang: str
    code: str
    line: int  # 1-based line of the opening fence
    skip: str | None  # the reason, when marked


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with their skip marks."""
    out: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        prev = next((ln for ln in reversed(lines[:start]) if ln.strip()), "")
        mark = SKIP.search(prev)
        code = "\n".join(lines[start + 1 : j]) + "\n"
        out.append(Block(m.group(1).lower(), code, start + 1, mark.group(1) if mark else None))
        i = j + 1
    return out


def shell_lines(code: str) -> list[str]:
    """Commands of a shell block: comments dropped, ``tcpair`` run as a module."""
    cmds = []
    for raw in code.splitlines():
        line = raw.split("  #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"(^|&& )tcpair ", r"\1python3 -m tcpair ", line)
        # The full `reproduce all` takes longer than the suite's budget on 2 cores
        # (docs/performance.md, "Whole-job timings"); its quick grids run every
        # target's code, analysis and report the same way.
        line = re.sub(r"(-m tcpair reproduce all)(\s|$)", r"\1 --quick\2", line)
        cmds.append(line)
    return cmds


def run_shell(line: str, cwd: Path, where: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run(
        ["bash", "-c", line.replace("python3 ", f"{shlex.quote(sys.executable)} ")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, (
        f"{where}: `{line}` exited {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    )


def check_toml(code: str, where: str) -> None:
    data = tomllib.loads(code)
    if "links" in data and "flows" in data:
        tcpair.validate(data)  # a whole scenario: it must be a valid one
    assert data, f"{where}: empty TOML block"


def scratch(tmp: Path) -> Path:
    for name in ("scenarios", "sweeps"):
        (tmp / name).symlink_to(REPO / name, target_is_directory=True)
    return tmp


@pytest.mark.parametrize("path", DOCS, ids=[p.relative_to(REPO).as_posix() for p in DOCS])
def test_every_block_runs_as_written(path: Path, tmp_path: Path) -> None:
    cwd = scratch(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    old = Path.cwd()
    os.chdir(cwd)
    try:
        for b in blocks(path):
            where = f"{path.relative_to(REPO)}:{b.line}"
            if b.skip is not None or not b.lang:
                continue
            if b.lang == "python":
                exec(compile(b.code, where, "exec"), namespace)
            elif b.lang in ("bash", "sh", "shell", "console"):
                for line in shell_lines(b.code):
                    run_shell(line, cwd, where)
            elif b.lang == "toml":
                check_toml(b.code, where)
            else:
                pytest.fail(f"{where}: unknown block language {b.lang!r} (mark it or fix it)")
    finally:
        os.chdir(old)


def test_blocks_parser(tmp_path: Path) -> None:
    md = tmp_path / "x.md"
    md.write_text(
        "text\n```bash\ntcpair list   # all\n# c\n```\n"
        "<!-- docs-test: skip: needs a cluster -->\n\n```python\nx = 1\n```\n```\ntree\n```\n"
    )
    got = blocks(md)
    assert [(b.lang, b.line, b.skip) for b in got] == [
        ("bash", 2, None),
        ("python", 8, "needs a cluster"),
        ("", 11, None),
    ]
    assert shell_lines(got[0].code) == ["python3 -m tcpair list"]


INLINE = re.compile(r"`(?:python3 -m )?tcpair ([a-z][a-z0-9-]*)([^`]*)`")


def inline_commands() -> list[tuple[str, str, str]]:
    """(file:line, subcommand, rest) of every inline `tcpair CMD ...` in the docs."""
    found = []
    for path in DOCS:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in INLINE.finditer(line):
                found.append((f"{path.relative_to(REPO)}:{n}", m.group(1), m.group(2)))
    return found


def test_inline_commands_name_real_subcommands_and_options() -> None:
    from click.testing import CliRunner

    from tcpair.cli.main import cli

    helps: dict[str, str] = {}
    problems = []
    for where, cmd, rest in inline_commands():
        if cmd not in helps:
            res = CliRunner().invoke(cli, [cmd, "--help"])
            helps[cmd] = res.output if res.exit_code == 0 else ""
        if not helps[cmd]:
            problems.append(f"{where}: `tcpair {cmd}` is not a command")
            continue
        for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]*", rest):
            if opt not in helps[cmd]:
                problems.append(f"{where}: `tcpair {cmd}` has no option {opt}")
    assert not problems, "\n".join(problems)
    assert len(helps) >= 6, helps.keys()
