"""The core's own program, ``tcpair-sim``, as the benchmarks run it beside the
Python API (``tcpair bench --vs-ns2 --core-binary``, ``tcpair bench --flows ...
--core-binary``): its failures, in the user's terms."""

from __future__ import annotations

from pathlib import Path

from tcpair._errors import SimulationError

BUILD = "cargo build --release --bin tcpair-sim"
"""The command that builds the core's own program (``target/release/tcpair-sim``)."""


class CoreBinaryFailed(SimulationError):
    """The core's own program (``--core-binary``) did not run a scenario as asked."""


def core_binary_failed(binary: str | Path, what: str, why: str) -> CoreBinaryFailed:
    """The error for ``--core-binary BINARY`` not running ``what`` (``case X``, ``N
    reno flows``), saying why and how to build the program."""
    return CoreBinaryFailed(
        f"--core-binary {binary} did not run {what}: {why}; build the core's program "
        f"with: {BUILD}"
    )
