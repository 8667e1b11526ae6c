"""Detectors and responders written in Python (docs/python.md, "Writing a
detector or responder in Python").

A scenario names one with a table, ``flows.X.tcp.detector = {python =
"mymod:MyDetector", threshold = 0.5}``; the other keys are the class's
keyword arguments. The compiled core calls :func:`load` while it builds the
scenario (so ``tcpair validate`` imports the class too), then the object's
``classify(ctx)`` or ``respond(ctx)`` at each fast-retransmit decision.

Where the module is found: the directories of the scenario files this
process has loaded (:func:`add_dirs`, called by ``load_scenario``), the
current directory, then ``sys.path``. A sweep sends those directories with
each run, so the local pool's and a Dask cluster's workers import the class
from the same files (by reference: the module must be readable there). A
class defined in a notebook or script is ``__main__:MyDetector``, which only
an in-process run can see.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcpair.base.plugin_dirs import add_dirs, search_dirs

if TYPE_CHECKING:
    from types import TracebackType

# hashlib (fingerprint) and traceback (describe) are imported where used: a run
# whose Python parts load and answer well needs neither.

#: The method each kind of part must have.
METHODS = {"detector": "classify", "responder": "respond"}


class PluginSpecError(Exception):
    """A part the scenario names cannot be loaded (the core turns it into a
    ScenarioError at ``path``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@contextlib.contextmanager
def _on_path(dirs: Sequence[str]) -> Iterator[None]:
    added = [d for d in dirs if d not in sys.path]
    sys.path[:0] = added
    try:
        yield
    finally:
        for d in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(d)


def _references(scenario: Any) -> Iterator[Any]:
    """The ``python`` values of a scenario's parts."""
    flows = scenario.get("flows") if isinstance(scenario, Mapping) else None
    for f in flows if isinstance(flows, list) else []:
        tcp = f.get("tcp") if isinstance(f, Mapping) else None
        for part in tcp.values() if isinstance(tcp, Mapping) else ():
            if isinstance(part, Mapping) and "python" in part:
                yield part["python"]


def uses_plugins(scenario: Any) -> bool:
    """Whether a scenario names a part written in Python."""
    return next(_references(scenario), None) is not None


_hashes: dict[tuple[str, int, int], str] = {}


def fingerprint(scenario: Any) -> dict[str, str] | None:
    """For a stored run's key: each Python part's reference and the SHA-256 of the
    file that defines its module (None without a Python part), so that editing the
    file makes new runs. Only that file counts, not the modules it imports."""
    refs = sorted({r for r in _references(scenario) if isinstance(r, str)})
    return {r: _source_hash(r) for r in refs} or None


def _source_hash(reference: str) -> str:
    name = reference.partition(":")[0]
    try:
        module = sys.modules.get(name)
        if module is None:
            with _on_path(search_dirs()):
                module = importlib.import_module(name)
        path = getattr(module, "__file__", None)
        if not path:
            return ""
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
        if key not in _hashes:
            import hashlib

            _hashes[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        return _hashes[key]
    except Exception:  # the core reports what cannot be imported, naming the field
        return ""


def _import(path: str, reference: str) -> Any:
    module_name, sep, qualname = reference.partition(":")
    if not sep or not module_name or not qualname:
        raise PluginSpecError(
            path, f'expected "module:Class" (e.g. "mydetectors:MyDetector"), got {reference!r}'
        )
    try:
        with _on_path(search_dirs()):
            module = importlib.import_module(module_name)
    except ImportError as exc:
        where = ", ".join(search_dirs())
        raise PluginSpecError(
            path, f"cannot import module {module_name!r} ({exc}); looked in {where} and sys.path"
        ) from None
    except Exception as exc:
        raise PluginSpecError(path, f"importing module {module_name!r} {describe(exc)}") from None
    obj: Any = module
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PluginSpecError(
                path, f"module {module_name!r} has no {qualname!r} (in {reference!r})"
            ) from None
    return obj


def load(field: str, spec_json: str, kind: str) -> tuple[str, Any]:
    """Instantiate the part the table ``spec_json`` at ``field`` names: its
    reference and the bound method the core calls (``classify`` or ``respond``)."""
    spec = json.loads(spec_json)
    path = f"{field}.python"
    reference = spec.pop("python")
    if not isinstance(reference, str):
        raise PluginSpecError(path, f'expected a string "module:Class", got {reference!r}')
    cls = _import(path, reference)
    if not callable(cls):
        raise PluginSpecError(path, f"{reference!r} is not a class, got {type(cls).__name__}")
    try:
        obj = cls(**spec)
    except Exception as exc:
        args = ", ".join(f"{k}={v!r}" for k, v in spec.items())
        raise PluginSpecError(field, f"{reference}({args}) {describe(exc)}") from None
    method = METHODS[kind]
    bound = getattr(obj, method, None)
    if not callable(bound):
        raise PluginSpecError(
            path, f"{reference!r} has no method {method}(ctx), which a {kind} needs"
        )
    return reference, bound


def describe(exc: BaseException, tb: TracebackType | None = None) -> str:
    """``raised Type: message`` and the traceback (``tb``, else the exception's)
    of the user's code, the frames of tcpair's own glue left out."""
    import traceback

    head = "".join(traceback.format_exception_only(exc)).strip()
    frames = [f for f in traceback.extract_tb(tb or exc.__traceback__) if not _ours(f.filename)]
    if not frames:
        return f"raised {head}"
    body = "".join(traceback.format_list(frames)).rstrip()
    return f"raised {head}\nTraceback (most recent call last):\n{body}"


def _ours(filename: str) -> bool:
    return os.path.abspath(filename) == os.path.abspath(__file__) or "importlib" in filename


__all__ = [
    "METHODS",
    "PluginSpecError",
    "add_dirs",
    "describe",
    "fingerprint",
    "load",
    "search_dirs",
    "uses_plugins",
]
