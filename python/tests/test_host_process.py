"""tcpair runs inside the user's own Python process (a notebook, a script that goes
on with pandas): it must leave that process's allocator as it found it."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from typing import Any

import pytest
from procs import tcpair_env

# Run in a fresh interpreter: glibc's parameters are the whole process's.
_PROBE = r"""
import ctypes
import tcpair

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
    ).split()]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]

tcpair.run("clrp_one_link", overrides={"run.duration": 0.1})
# Left to itself, glibc raises its threshold for blocks of their own pages to the
# size of each such block freed: after an 8 MiB one, a 4 MiB block comes from the heap.
libc.free(libc.malloc(8 << 20))
before = libc.mallinfo2().hblks
block = libc.malloc(4 << 20)
print(libc.mallinfo2().hblks - before)
libc.free(block)
"""


@pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc",
    reason="glibc's malloc parameters only",
)
def test_a_run_leaves_glibcs_threshold_to_the_process() -> None:
    """A fixed threshold would make every large array numpy makes and frees take
    fresh pages from the system: a loop of sums on 8 MB arrays ran 2.5 to 3.1 times
    slower after one `tcpair.run` when the core fixed it (engine/malloc.rs)."""
    # glibc's own variables fix its parameters from the environment: dask.distributed,
    # once imported (by an earlier test), sets MALLOC_TRIM_THRESHOLD_ in this process's
    # environment for its workers, which would fix the threshold before tcpair runs.
    env = {k: v for k, v in tcpair_env().items() if not k.startswith("MALLOC_")}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "0", "the 4 MiB block got pages of its own"


def test_a_text_handed_over_is_taken_and_no_reference_kept() -> None:
    """The core takes a handed-over text out of its list (so that Python frees it
    once read, not after the run) and keeps no reference to it, whichever run."""
    from tcpair._errors import require_core
    from tcpair.simulate.binding import handed, prepare, to_json

    def without_wall(answer: str) -> dict[str, Any]:
        raw = json.loads(answer)
        raw["summary"].pop("wall_s")
        return raw

    core = require_core()
    text = to_json(prepare("clrp_one_link", overrides={"run.duration": 0.1}))
    refs = sys.getrefcount(text)
    plain = without_wall(core.run(text))
    for call in (core.run, core.run_summary):
        box = handed(text)
        answer = call(box)
        assert box == []
        assert sys.getrefcount(text) == refs
        if call is core.run:
            assert without_wall(answer) == plain


@pytest.mark.parametrize("box", [[], ["{}", "{}"]])
def test_a_list_that_does_not_hold_one_text_is_refused(box: list[str]) -> None:
    from tcpair._errors import require_core

    with pytest.raises(TypeError, match="scenario_json: a list must hold"):
        require_core().run(box)


def test_a_runs_scenario_is_the_one_it_ran() -> None:
    """`tcpair.run` holds the scenario's text through the run, not the prepared
    scenario, and reads the result's scenario back from it."""
    import tcpair
    from tcpair.simulate.binding import prepare

    ov = {"run.duration": 0.5, "flows.*.variant": "newreno"}
    r = tcpair.run("clrp_one_link", overrides=ov, seed=4)
    assert r.scenario == prepare("clrp_one_link", overrides=ov, seed=4)
    assert r.summary["seed"] == 4
