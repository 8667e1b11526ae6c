"""What some tests need from the machine, and what happens when it is missing.

A missing tool skips its tests on a developer's machine, but fails them when
the environment says the suite must be complete (``.ci/run`` installs the
tools and sets ``TCPAIR_REQUIRE_BROWSER=1``), so CI can never pass by skipping.
"""

from __future__ import annotations

import os

import pytest
from browser import find_chromium

REQUIRE_BROWSER = "TCPAIR_REQUIRE_BROWSER"


def _or_skip(path: str | None, msg: str, require: str) -> str:
    """``path``, or skip with ``msg`` (fail instead when ``require`` is set)."""
    if path is None:
        if os.environ.get(require):
            pytest.fail(f"{msg}, and {require} is set")
        pytest.skip(msg)
    return path


def chromium() -> str:
    """Path of a Chromium to drive, or skip (fail under ``TCPAIR_REQUIRE_BROWSER``)."""
    msg = "chromium not installed (Debian package `chromium`, or set TCPAIR_CHROMIUM)"
    return _or_skip(find_chromium(), msg, REQUIRE_BROWSER)


REQUIRE_NS2 = "TCPAIR_REQUIRE_NS2"


def ns2() -> str:
    """Path of ns-2.35's ``ns``, or skip (fail under ``TCPAIR_REQUIRE_NS2``)."""
    from tcpair.ns2 import missing_message, ns_binary

    return _or_skip(ns_binary(), missing_message(), REQUIRE_NS2)


REQUIRE_TSHARK = "TCPAIR_REQUIRE_TSHARK"


def tshark() -> str:
    """Path of tshark, or skip (fail under ``TCPAIR_REQUIRE_TSHARK``)."""
    import shutil

    msg = "tshark not installed (Debian package `tshark`)"
    return _or_skip(shutil.which("tshark"), msg, REQUIRE_TSHARK)


REQUIRE_CORE_BINARY = "TCPAIR_REQUIRE_CORE_BINARY"


def core_binary() -> str:
    """The core's own program (``tcpair-sim``) of this checkout, built by cargo
    (debug; a no-op when it is up to date), or skip (fail under
    ``TCPAIR_REQUIRE_CORE_BINARY``) where cargo is missing."""
    import shutil
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    cargo = shutil.which("cargo")
    if cargo is None or not (root / "Cargo.toml").is_file():
        return _or_skip(None, "cargo or the Rust sources not here", REQUIRE_CORE_BINARY)
    subprocess.run([cargo, "build", "-q", "-p", "tcpair-core", "--bin", "tcpair-sim"],
                   cwd=root, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
    return str(target / "debug" / "tcpair-sim")


def installed_core_command() -> str:
    """The ``tcpair-sim`` command on ``PATH`` (what the quick start and ``.ci/run``
    install), or skip (fail under ``TCPAIR_REQUIRE_CORE_BINARY``)."""
    from tcpair.simulate.core_program import INSTALL, installed_core_program

    msg = f"no tcpair-sim on PATH (install it from the repository's root: {INSTALL})"
    return _or_skip(installed_core_program(), msg, REQUIRE_CORE_BINARY)
