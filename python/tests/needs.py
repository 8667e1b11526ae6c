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


def chromium() -> str:
    """Path of a Chromium to drive, or skip (fail under ``TCPAIR_REQUIRE_BROWSER``)."""
    path = find_chromium()
    if path is None:
        msg = "chromium not installed (Debian package `chromium`, or set TCPAIR_CHROMIUM)"
        if os.environ.get(REQUIRE_BROWSER):
            pytest.fail(f"{msg}, and {REQUIRE_BROWSER} is set")
        pytest.skip(msg)
    return path


REQUIRE_NS2 = "TCPAIR_REQUIRE_NS2"


def ns2() -> str:
    """Path of ns-2.35's ``ns``, or skip (fail under ``TCPAIR_REQUIRE_NS2``)."""
    from tcpair.ns2 import missing_message, ns_binary

    path = ns_binary()
    if path is None:
        if os.environ.get(REQUIRE_NS2):
            pytest.fail(f"{missing_message()}, and {REQUIRE_NS2} is set")
        pytest.skip(missing_message())
    return path


REQUIRE_TSHARK = "TCPAIR_REQUIRE_TSHARK"


def tshark() -> str:
    """Path of tshark, or skip (fail under ``TCPAIR_REQUIRE_TSHARK``)."""
    import shutil

    path = shutil.which("tshark")
    if path is None:
        msg = "tshark not installed (Debian package `tshark`)"
        if os.environ.get(REQUIRE_TSHARK):
            pytest.fail(f"{msg}, and {REQUIRE_TSHARK} is set")
        pytest.skip(msg)
    return path
