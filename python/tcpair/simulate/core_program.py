"""The core's own command, ``tcpair-sim`` (one scenario file run without the Python
interpreter), as the benchmarks run it beside the Python command and API (``tcpair
bench --vs-ns2``, ``tcpair bench --flows ... --core-binary``): where it is, how to
install it, and its failures in the user's terms."""

from __future__ import annotations

from pathlib import Path

from tcpair._errors import SimulationError

BUILD = "cargo build --release --bin tcpair-sim"
"""The command that builds the core's own program (``target/release/tcpair-sim``)."""

INSTALL = "cargo install --locked --path crates/tcpair-core --target-dir target"
"""The command, from the repository's root, that installs the core's own program as the
``tcpair-sim`` command (into cargo's ``bin`` folder, ``~/.cargo/bin``; reusing the build
that ``pip install .`` left in ``target``)."""


def installed_core_program() -> str | None:
    """The ``tcpair-sim`` command on ``PATH``, if one is installed."""
    import shutil

    return shutil.which("tcpair-sim")


class CoreBinaryFailed(SimulationError):
    """The core's own program (``--core-binary``) did not run a scenario as asked."""


def core_binary_failed(binary: str | Path, what: str, why: str) -> CoreBinaryFailed:
    """The error for ``--core-binary BINARY`` not running ``what`` (``case X``, ``N
    reno flows``), saying why and how to build the program."""
    return CoreBinaryFailed(
        f"--core-binary {binary} did not run {what}: {why}; build the core's program "
        f"with: {BUILD}"
    )
