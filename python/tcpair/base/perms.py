"""File modes that follow the user's umask.

``tempfile.mkdtemp`` and ``mkstemp`` create private entries (0700 / 0600)
whatever the umask, so a report or a store renamed into place from them could
not be read by anyone else. After creating, callers set the mode a plain
``mkdir`` / ``open`` would have given: ``0o777 & ~umask`` for directories and
``0o666 & ~umask`` for files.
"""

from __future__ import annotations

import os
from pathlib import Path


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no way to read it without setting it
    os.umask(mask)
    return mask


def dir_mode() -> int:
    return 0o777 & ~current_umask()


def file_mode() -> int:
    return 0o666 & ~current_umask()


def fix_dir(path: str | Path) -> None:
    """Give a directory made by ``mkdtemp`` the mode ``mkdir`` would have given."""
    os.chmod(path, dir_mode())


def fix_file(path: str | Path) -> None:
    """Give a file made by ``mkstemp`` the mode ``open`` would have given."""
    os.chmod(path, file_mode())


__all__ = ["current_umask", "dir_mode", "file_mode", "fix_dir", "fix_file"]
