"""Replacing a folder whole: the new content is written beside it and moved
into place once complete, and never over what tcpair did not write (a saved
run's folder, a store's report)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tcpair.base.plain import first_names


def check_replaceable(target: Path, ours: frozenset[str] | None) -> None:
    """Raise ``FileExistsError`` (naming ``target``) where replacing ``target`` by a
    new folder would lose what is not ours: a file, the current folder or one that
    holds it, or a folder holding anything but the names in ``ours`` (any name, when
    ``ours`` is None: a folder only tcpair writes, e.g. a store's report)."""
    import errno

    target = Path(target).resolve()

    def refuse(why: str) -> FileExistsError:
        return FileExistsError(errno.EEXIST, why, str(target))

    if not target.exists():
        return
    if not target.is_dir():
        raise refuse("exists and is not a folder")
    if target == Path.cwd().resolve() or target in Path.cwd().resolve().parents:
        raise refuse("is the current folder or holds it; give a folder of its own")
    if ours is None:
        return
    foreign = sorted(p.name for p in target.iterdir() if p.name not in ours)
    if foreign:
        raise refuse(
            f"holds what is not a tcpair result ({first_names(foreign)}), and saving "
            "replaces the whole folder; give a new or empty folder, or one a run was saved in"
        )


def write_atomically(target: Path, write: Any, *, ours: frozenset[str] | None = None) -> Path:
    """Call ``write(tmpdir)`` and move the filled directory to ``target``.

    An existing ``target`` is replaced only after the new content is complete,
    and only if :func:`check_replaceable` finds nothing in it to lose (checked
    before ``write`` is called).
    """
    import shutil
    import tempfile

    from tcpair.base.perms import fix_dir

    target = target.resolve()
    check_replaceable(target, ours)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    except OSError as exc:
        # Named by the user's path, not by the temporary sibling's.
        raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from None
    fix_dir(tmp)  # mkdtemp makes it 0700; readers expect the umask's mode
    try:
        write(tmp)
        if target.exists():
            old = target.with_name(f".{target.name}.old-{os.getpid()}-{time.monotonic_ns()}")
            os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


__all__ = ["check_replaceable", "write_atomically"]
